"""Group protocols and a topic's protocol alternatives through the store and `show`."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from planner.cli import main
from planner.store import COLUMNS, RecommendationStore, render_recommendation, sqlite_url
from planner.store.records import prepare_rows
from tests.store.conftest import run_for
from tests.store.rows import recommendation_row
from tests.support.protocol_plans import ALTERNATIVES, plan_with_protocols, protocol_plan_facts


def _row() -> dict[str, Any]:
    plan, history = plan_with_protocols()
    return recommendation_row(plan, history, protocol_plan_facts(history), brokers=3)


def test_protocols_and_alternatives_round_trip(fresh_store: RecommendationStore) -> None:
    row = _row()
    fresh_store.publish_run(run_for("2026-11-21"), [row])
    rec = fresh_store.latest("orders")
    assert rec is not None
    [prepared] = prepare_rows([row])
    assert rec.as_row() == {**prepared.columns, **prepared.detail}
    # By group id, as the recommendations dataset orders a topic's groups.
    assert [(g["group_id"], g["protocol"], g["planned_as"]) for g in rec.groups] == [
        ("audit", "consumer", "consumer:uniform"),
        ("billing", "classic", "cooperative-sticky"),
        ("enricher", "classic", "cooperative-sticky"),
        ("thumbnails", "share", "share:simple"),
    ]
    assert rec.alternatives == tuple(n.text for n in ALTERNATIVES)
    assert [a["code"] for a in rec.alternatives_coded] == [
        "consumer-protocol-alternative",
        "share-alternative",
    ]
    # Kept in `detail`, as the warnings' coded form is: no new column, no migration.
    assert "alternatives" not in COLUMNS and "alternatives" in rec.detail


def test_rows_stored_before_protocols_read_as_classic_without_alternatives(
    fresh_store: RecommendationStore,
) -> None:
    old = copy.deepcopy(_row())
    del old["alternatives"], old["alternatives_coded"]
    for g in old["groups"]:
        del g["protocol"], g["planned_as"]
    fresh_store.publish_run(run_for("2026-11-20"), [old])
    rec = fresh_store.latest("orders")
    assert rec is not None
    assert (rec.alternatives, rec.alternatives_coded) == ((), ())
    text = render_recommendation(rec)
    assert "Other protocols" not in text
    assert "billing: 3 -> 4 consumers, classic / range -> cooperative-sticky" in text
    # Without a protocol a Streams group reads as classic, which it is.
    assert "enricher: 3 -> 4 consumers, classic / stream (Kafka Streams)" in text


def test_show_prints_each_group_s_protocol_and_the_alternatives(
    fresh_store: RecommendationStore,
) -> None:
    fresh_store.publish_run(run_for("2026-11-21"), [_row()])
    rec = fresh_store.latest("orders")
    assert rec is not None
    lines = render_recommendation(rec).splitlines()
    groups = [line for line in lines if line.startswith("  ") and " consumers, " in line]
    assert groups == [
        "  audit: 3 -> 4 consumers, consumer / uniform",
        "  billing: 3 -> 4 consumers, classic / range -> cooperative-sticky",
        "  enricher: 3 -> 4 consumers, classic / stream (Kafka Streams, planned as",
        "  thumbnails: 3 -> 4 consumers, share / simple",
    ]
    block = lines[lines.index("Other protocols") :]
    text = " ".join(line.strip() for line in block)
    assert "- with the consumer protocol (KIP-848, group.protocol=consumer" in text
    assert "- as a share group (KIP-932, Kafka 4.2+) of 6 members" in text
    assert max(len(line) for line in lines) <= 80


def test_the_show_command_prints_them_and_its_json_carries_them(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqlite_url(tmp_path / "store.db")
    with RecommendationStore(url) as store:
        store.publish_run(run_for("2026-11-21"), [_row()])
    assert main(["show", "orders", "--store", url]) == 0
    out = capsys.readouterr().out
    assert "  thumbnails: 3 -> 4 consumers, share / simple" in out
    assert "\nOther protocols\n" in out
    assert main(["show", "orders", "--store", url, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [g["protocol"] for g in shown["groups"]] == ["consumer", "classic", "classic", "share"]
    assert [a["code"] for a in shown["detail"]["alternatives_coded"]] == [
        "consumer-protocol-alternative",
        "share-alternative",
    ]
