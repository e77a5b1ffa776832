"""`partition-planner show TOPIC`: the stored recommendation as terminal text.

The example topic's text is kept as a golden file; refresh it after a deliberate change
with `UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/store/test_show.py` and review
the diff.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner.figures.dataset import DataInterval
from planner.notes import note
from planner.store import (
    Recommendation,
    RecommendationStore,
    render_latest,
    render_recommendation,
    sqlite_url,
)
from tests.store.conftest import run_for

GOLDEN = Path(__file__).parent / "golden" / "show_example.txt"
FIXED = dt.datetime(2026, 11, 22, 1, 5, tzinfo=dt.UTC)


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[RecommendationStore]:
    """An empty SQLite store (rendering does not depend on the backend)."""
    with RecommendationStore(sqlite_url(tmp_path / "store.db")) as store:
        yield store


def _pinned(rec: Recommendation) -> Recommendation:
    # The publish time is the clock's; pin it so the text can be compared.
    return dataclasses.replace(
        rec, run=dataclasses.replace(rec.run, started_at=FIXED, finished_at=FIXED)
    )


def _widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


def test_the_example_topic_reads_as_the_golden_text(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    sqlite_store.publish_run(run_for("2026-11-21"), [example_row])
    rec = sqlite_store.latest(example_row["topic"])
    assert rec is not None
    text = render_recommendation(_pinned(rec)) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
    assert _widest(text) <= 80


def test_the_headline_numbers_come_first(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    sqlite_store.publish_run(run_for("2026-11-21"), [example_row])
    lines = render_latest(sqlite_store, example_row["topic"]).splitlines()
    assert lines[0] == "Topic payments.authorizations"
    head = [line.split(None, 1) for line in lines[1:7]]
    assert [label for label, _ in head] == [
        "Partitions",
        "Status",
        "Consumers",
        "Deciding",
        "Keys",
        "Run",
    ]
    assert head[0][1] == "12 -> 16 (needed: 10 for today's peak, 14 at the horizon)"
    assert head[2][1] == "12, cooperative-sticky (group 'ledger-writer')"
    assert head[3][1] == "MiB/s in, consumer side"


def test_a_tie_between_producers_and_consumers_is_said_as_both_sides(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    sqlite_store.publish_run(run_for("2026-11-21"), [{**example_row, "deciding_side": "both"}])
    lines = render_latest(sqlite_store, example_row["topic"]).splitlines()
    assert "  Deciding      MiB/s in, both sides" in lines


def test_long_names_and_sentences_stay_within_80_columns(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    topic = "very." + "long-" * 60 + "topic"
    group = {**example_row["groups"][0], "group_id": "g" * 120}
    warning = "word " * 40 + "x" * 150
    sqlite_store.publish_run(
        run_for("2026-11-21"),
        [{**example_row, "topic": topic, "groups": [group], "warnings": [warning]}],
    )
    text = render_latest(sqlite_store, topic)
    assert _widest(text) <= 80
    assert "".join(line.strip() for line in text.splitlines()[:4]).startswith("Topic very.long")
    assert render_latest(sqlite_store, topic, width=60).count("\n") > text.count("\n")
    assert _widest(render_latest(sqlite_store, topic, width=60)) <= 60


def test_control_characters_from_the_store_are_shown_escaped(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    topic = "evil\x1b[2J\x1b]0;owned\x07\u202etxt.exe"
    # Sentences without their coded form (as rows published before notes had codes),
    # so the stored text is what is printed.
    group = {
        **example_row["groups"][0],
        "group_id": "grp\x1b[31m",
        "notes": ["bell\x07"],
        "notes_coded": [],
    }
    hostile = {"groups": [group], "warnings": ["\rovertype"], "warnings_coded": []}
    sqlite_store.publish_run(run_for("2026-11-21"), [{**example_row, "topic": topic, **hostile}])
    text = render_latest(sqlite_store, topic)
    assert "Topic evil\\x1b[2J\\x1b]0;owned\\x07\\u202etxt.exe" in text
    assert "grp\\x1b[31m" in text and "bell\\x07" in text and "\\rovertype" in text
    assert not any(ch in text for ch in "\x1b\x07\r\u202e")


def test_a_topic_missing_from_the_newest_runs_says_so(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    topic = example_row["topic"]
    sqlite_store.publish_run(run_for("2026-11-20"), [example_row])
    assert "! " not in render_latest(sqlite_store, topic).split("Figures")[0]
    sqlite_store.publish_run(run_for("2026-11-21"), [{**example_row, "topic": "other"}])
    sqlite_store.record_failure(
        run_for("2026-11-22"), "recommendations.published: 2 topics below the rule\nmore"
    )
    head = render_latest(sqlite_store, topic).split("Figures")[0]
    assert "! not in the last good run 20261121T0000Z: this is an older one" in " ".join(
        head.split()
    )
    assert (
        "! the newest run, 20261122T0000Z, failed and published nothing: "
        "recommendations.published: 2 topics below the rule"
    ) in " ".join(head.split())


def test_a_topic_without_capacity_figures_shows_what_is_known(
    sqlite_store: RecommendationStore,
) -> None:
    sqlite_store.publish_run(
        run_for("2026-11-21"),
        [
            {
                "topic": "audit.log",
                "status": "missing-capacity",
                "current_partitions": 6,
                "mib_in_peak_per_s": 3.25,
                "warnings": ["no Tp/Tc measured for audit.log: run the perf tests"],
            }
        ],
    )
    text = render_latest(sqlite_store, "audit.log")
    assert "missing-capacity: no capacity figures (Tp, Tc) to size on" in text
    assert "6 -> ?" in text
    assert "3.25 MiB/s" in text
    assert not any(line.lstrip().startswith(("Tc ", "Growth")) for line in text.splitlines())


def test_an_unknown_topic_is_a_lookup_error(sqlite_store: RecommendationStore) -> None:
    with pytest.raises(LookupError, match=r"no published recommendation for topic nope\\x1b"):
        render_latest(sqlite_store, "nope\x1b")


def test_standby_members_are_named_beside_the_consumers(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    group = {
        **example_row["groups"][0],
        "current_members": 3,
        "recommended_members": 2,
        "standby_members": 1,
    }
    row = {
        **example_row,
        "recommended_consumers": 2,
        "standby_consumers": 1,
        "consumers_group_id": group["group_id"],
        "groups": [group],
    }
    sqlite_store.publish_run(run_for("2026-11-21"), [row])
    text = render_latest(sqlite_store, example_row["topic"])
    assert f"2, cooperative-sticky (group '{group['group_id']}'; 1 standing by)" in text
    assert f"{group['group_id']}: 3 -> 2 consumers (1 standing by), " in text


def test_a_group_without_a_standby_member_is_not_said_to_need_the_floor(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    group = {
        **example_row["groups"][0],
        "status": "no-standby",
        "current_members": 1,
        "recommended_members": 2,
        "members_now": 2,
        "members_at_horizon": 2,
    }
    sqlite_store.publish_run(run_for("2026-11-21"), [{**example_row, "groups": [group]}])
    text = render_latest(sqlite_store, example_row["topic"])
    assert "    no standby member: min_group_members plans 2 now, 2 at the horizon" in text
    assert "2 needed now" not in text


def _creation_row(example_row: dict[str, Any]) -> dict[str, Any]:
    # The example topic's numbers, as a creation plan of a topic not created yet.
    groups = [
        {**g, "status": "deploy", "current_members": 0, "recommended_members": 4}
        for g in example_row["groups"][:1]
    ]
    return {
        **example_row,
        "topic": "payments.v2",
        "status": "create",
        "current_partitions": None,
        "groups": groups,
    }


def _creation_run(day: str) -> Any:
    request = {
        "topic": "payments.v2",
        "requested_at": f"{DataInterval.parse(day).end:%Y-%m-%d}T09:30:00+00:00",
        "parameters": {"peak_mib_per_s": 40, "growth_per_year": 0.5, "tc_mib_per_s": 4},
    }
    run = run_for(day, request=request)
    return dataclasses.replace(run, scope="topic:payments.v2")


def test_a_creation_plan_published_after_the_fleet_run_is_never_called_older(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    sqlite_store.publish_run(run_for("2026-11-25"), [example_row])
    sqlite_store.publish_run(_creation_run("2026-11-25"), [_creation_row(example_row)])
    text = " ".join(render_latest(sqlite_store, "payments.v2").split())
    assert "older" not in text
    assert "Plan creation plan: create payments.v2 with" in text
    assert "kafka-topics.sh --bootstrap-server" in text and "--create --topic payments.v2" in text
    assert "Requested 2026-11-26 09:30 UTC" in text
    assert "Request peak MiB/s 40 · growth/year +50% · Tc MiB/s 4" in text
    assert "planned after the last fleet run 20261125T0000Z" in text
    assert "deploy 4 consumers" in text and "under-provisioned" not in text
    assert "given in the request" in text  # the growth, and Tp/Tc


def test_a_creation_plan_a_later_fleet_run_does_not_hold_says_it_is_not_created_yet(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    sqlite_store.publish_run(_creation_run("2026-11-24"), [_creation_row(example_row)])
    sqlite_store.publish_run(run_for("2026-11-25"), [example_row])
    text = " ".join(render_latest(sqlite_store, "payments.v2").split())
    assert "older" not in text
    assert (
        "! the fleet run 20261125T0000Z, published after this plan, does not have the topic: "
        "not created yet, or its figures were not collected"
    ) in text


def test_warnings_and_notes_are_printed_from_their_codes_and_parameters(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    # Stale sentences on purpose: show renders from the codes and parameters.
    hot = note("hot-key", key="user-42", share=0.31, load=1.7)
    idle = note(
        "idle-members-planned", group_id="g", topics=["t"], partitions=[8],
        idle_members=2, current_members=10, standby_members=0, min_group_members=2,
    )  # fmt: skip
    group = {**example_row["groups"][0], "notes": ["stale note"]}
    group["notes_coded"] = [{**idle.as_row(), "text": "stale note"}]
    row = {
        **example_row,
        "warnings": ["stale wording", "kept as published"],
        "warnings_coded": [
            {**hot.as_row(), "text": "stale wording"},
            {
                "code": "from-a-newer-planner",
                "severity": "info",
                "params": "{}",
                "text": "kept as published",
            },
        ],
        "groups": [group],
    }
    sqlite_store.publish_run(run_for("2026-11-21"), [row])
    text = " ".join(render_latest(sqlite_store, example_row["topic"]).split())
    assert "stale" not in text
    assert hot.text in text and idle.text in text and "kept as published" in text


def test_a_groups_cross_zone_advice_is_shown_under_it(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    from planner.cross_zone import (
        GIB,
        GroupZones,
        TopicZones,
        advice,
        cross_zone_record,
        group_cross_zone,
    )

    # The core's figure for a group in rack a on a three-rack topic (model.md, section 10).
    figure = group_cross_zone(
        GroupZones("g", "classic", "range", 2, ("a",)),
        [TopicZones("t", ((1, 2), (2, 3), (3, 1)), (GIB, GIB, GIB))],
        {1: "a", 2: "b", 3: "c"},
        price_per_gib=0.5,
    )
    assert figure is not None
    group = {
        **example_row["groups"][0],
        "cross_zone": cross_zone_record(
            figure, advice(example_row["groups"][0]["group_id"], figure)
        ),
    }
    sqlite_store.publish_run(run_for("2026-11-21"), [{**example_row, "groups": [group]}])
    text = " ".join(render_latest(sqlite_store, example_row["topic"]).split())
    # Leaders of p1 (b) and p2 (c) cross: 2 GiB; p1's replicas are b and c: 1 GiB still.
    assert "fetches 2.00 GiB a day across zones from leaders (1.00 a day at 0.5 per GiB)" in text
    assert "1.00 GiB a day (0.50 a day at 0.5 per GiB)" in text


def test_a_groups_own_tc_and_lag_are_shown_with_their_evidence(
    sqlite_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    group = {
        **example_row["groups"][0],
        "members_now": 9,
        "consumer_capacity": {
            "records_per_s": 500.0,
            "mib_per_s": 0.49,
            "source": "saturation",
            "evidence": "saturation 2026-11-21 10:00-12:00 UTC: 8 windows",
            "members_now_at_topic_tc": 4,
        },
        "lag": {"records": 7_500_000.0, "seconds": 3_000.0, "trend": "growing"},
    }
    plain = {**example_row["groups"][0], "group_id": "audit", "lag": None}
    plain["consumer_capacity"] = {
        "records_per_s": 2_000.0,
        "mib_per_s": None,
        "source": "topic-default",
        "evidence": None,
        "members_now_at_topic_tc": None,
    }
    sqlite_store.publish_run(run_for("2026-11-21"), [{**example_row, "groups": [group, plain]}])
    text = " ".join(render_latest(sqlite_store, example_row["topic"]).split())
    assert (
        "Tc per member: 500.0 records/s (learned: saturated): saturation 2026-11-21 "
        "10:00-12:00 UTC: 8 windows"
    ) in text
    assert "with the topic's Tc instead: 4 needed now" in text
    assert "lag: 7,500,000 records, 50 min behind, growing" in text
    # A group sized with the topic's Tc is not told so once more.
    assert text.count("Tc per member") == 1 and text.count("lag:") == 1
