"""Group protocols and a topic's protocol alternatives in the `sizing` rows (no Spark)."""

from __future__ import annotations

import json

import pyarrow as pa

from planner.notes import render_coded
from spark_jobs import planning
from spark_jobs.planning import group_row, invalid_figures_row, unplanned_group_row
from spark_jobs.schemas import SIZING, arrow_schema, empty_row
from spark_jobs.settings import JobSettings
from tests.spark_jobs import arrow_inputs as ai
from tests.support.protocol_plans import ALTERNATIVES, GROUPS, plan_with_protocols


def _filled() -> dict[str, object]:
    plan, history = plan_with_protocols()
    row = empty_row(SIZING)
    row.update(
        run="r",
        topic="orders",
        brokers=3,
        samples=history.ts_s.size,  # type: ignore[union-attr]
        history_days=14,
        consuming_groups=len(plan.groups),
        warnings=[],
        warnings_coded=[],
        rationale=[],
    )
    planning._fill_plan(row, plan)
    return row


def test_group_rows_carry_the_protocol_and_the_key_they_were_planned_as() -> None:
    rows = [group_row(g) for g in GROUPS]
    assert [
        (r["group_id"], r["protocol"], r["current_strategy"], r["planned_as"]) for r in rows
    ] == [
        ("billing", "classic", "range", "cooperative-sticky"),
        ("audit", "consumer", "uniform", "consumer:uniform"),
        ("thumbnails", "share", "simple", "share:simple"),
        ("enricher", "classic", "stream", "cooperative-sticky"),
    ]


def test_a_plan_s_alternatives_are_written_as_sentences_and_coded() -> None:
    row = _filled()
    assert row["alternatives"] == [n.text for n in ALTERNATIVES]
    coded = row["alternatives_coded"]
    assert isinstance(coded, list)
    assert [c["code"] for c in coded] == ["consumer-protocol-alternative", "share-alternative"]
    assert [render_coded(c) for c in coded] == row["alternatives"]
    assert json.loads(coded[1]["params"])["partitions"] == 3
    # The row fits the dataset's schema, the groups' new fields included.
    table = pa.Table.from_pylist([row], schema=arrow_schema("sizing"))
    groups = table.column("groups").to_pylist()[0]
    assert [(g["protocol"], g["planned_as"]) for g in groups] == [
        ("classic", "cooperative-sticky"),
        ("consumer", "consumer:uniform"),
        ("share", "share:simple"),
        ("classic", "cooperative-sticky"),
    ]


def test_an_unplanned_group_keeps_its_protocol_and_has_no_planned_key() -> None:
    row = unplanned_group_row("thumbnails", ["orders"], "simple", 5, "why", protocol="share")
    assert (row["protocol"], row["current_strategy"], row["planned_as"]) == (
        "share",
        "simple",
        None,
    )
    assert unplanned_group_row("g", ["orders"], "range", 1, "why")["protocol"] == "classic"


def test_rows_without_a_plan_have_no_alternatives() -> None:
    set_aside = invalid_figures_row("orders", "a bad row", run="r", brokers=3)
    assert (set_aside["alternatives"], set_aside["alternatives_coded"]) == ([], [])
    empty = ai.hourly().slice(0, 0)
    no_figures = planning.sizing_row(
        "orders",
        empty,
        ai.facts(groups=[("g", "range", 1)]),
        run="r",
        brokers=3,
        settings=JobSettings(),
    )
    assert no_figures["status"] == "no-figures"
    assert (no_figures["alternatives"], no_figures["alternatives_coded"]) == ([], [])
    assert [g["protocol"] for g in no_figures["groups"]] == ["classic"]
