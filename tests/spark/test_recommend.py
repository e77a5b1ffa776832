"""The recommendations' merge: each topic's sizing row, the multi-topic groups' plans
that read it, and the core's pick of its consumers (`spark_jobs.recommend`)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from planner.recommend.alternatives import CONSUMER_PROTOCOL_ALTERNATIVE
from spark_jobs.recommend import consumer_choice, multi_topic_plans, recommendations
from spark_jobs.schemas import GROUP_PLAN, SIZING, arrow_schema, empty_row


def _plan(
    group_id: str, members: int | None, strategy: str | None = "range", **more: Any
) -> dict[str, Any]:
    plan = empty_row(GROUP_PLAN)
    plan.update(
        group_id=group_id,
        recommended_members=members,
        strategy=strategy,
        standby_members=None if members is None else 0,
        status="ok" if members is not None else "no-plan",
        notes=[],
        notes_coded=[],
    )
    plan.update(more)
    return plan


def test_each_topic_gets_the_core_s_choice_and_a_topic_without_a_plan_none() -> None:
    groups = [_plan("y", 4), _plan("x", 4, "sticky", standby_members=1), _plan("z", None, None)]
    got = consumer_choice(
        groups, one_group_members=2, one_group_strategy="cooperative-sticky", one_group_standby=0
    )
    # The tie at 4 goes to the smaller group id; a group without a plan is left out.
    assert (got["recommended_consumers"], got["consumers_group_id"]) == (4, "x")
    assert (got["strategy"], got["standby_consumers"]) == ("sticky", 1)
    assert got["reason"] == (
        "consumers: 4, the recommended size of group 'x' (sticky), the largest of the 2 "
        "groups with a plan that read the topic; 1 of them owns no partition and stands by "
        "to take over from a member that fails (min_group_members)"
    )
    alone = consumer_choice(
        [], one_group_members=3, one_group_strategy="cooperative-sticky", one_group_standby=1
    )
    assert (alone["recommended_consumers"], alone["consumers_group_id"]) == (3, None)
    nothing = consumer_choice(
        [], one_group_members=None, one_group_strategy=None, one_group_standby=None
    )
    assert set(nothing.values()) == {None}


def _sizing_row(topic: str, groups: list[dict[str, Any]] | None, **more: Any) -> dict[str, Any]:
    row = empty_row(SIZING)
    row.update(
        run="r",
        topic=topic,
        status="ok",
        groups=groups,
        warnings=[f"{topic}'s own warning"],
        warnings_coded=[],
        rationale=[f"{topic} sized"],
        alternatives=[],
        alternatives_coded=[],
        one_group_members=2,
        one_group_strategy="cooperative-sticky",
        one_group_standby=0,
        skipped_dimensions=[],
        cost_warnings=[],
        candidates=[],
    )
    row.update(more)
    return row


def _results(*plans: tuple[dict[str, Any], list[str]]) -> pa.Table:
    schema = arrow_schema("group_result")
    rows = [
        {"group_id": p["group_id"], "plan": p, "warnings": w, "warnings_coded": [], "grid": []}
        for p, w in plans
    ]
    return pa.Table.from_pylist(rows, schema=schema)


def test_multi_topic_plans_join_their_topics_groups_by_id_and_add_their_warnings() -> None:
    move = {
        "code": CONSUMER_PROTOCOL_ALTERNATIVE,
        "severity": "info",
        "params": "{}",
        "text": "group 'm2' could move to the consumer protocol",
    }
    m1 = _plan("m1", 6, topics=["b", "a"])
    m2 = _plan("m2", 3, topics=["a"], notes=[move["text"]], notes_coded=[move])
    multi = multi_topic_plans(_results((m2, ["m2 is hot on a"]), (m1, [])))
    sizing = pa.Table.from_pylist(
        [
            _sizing_row("c", [_plan("only", 1)]),
            _sizing_row("b", [_plan("n", 9)]),
            _sizing_row("a", [_plan("k", 2)]),
        ],
        schema=arrow_schema("sizing"),
    )
    out = recommendations(sizing, multi)
    assert out.schema == arrow_schema("recommendations")
    rows = out.to_pylist()
    assert [r["topic"] for r in rows] == ["a", "b", "c"]
    a, b, c = rows
    assert [g["group_id"] for g in a["groups"]] == ["k", "m1", "m2"]
    assert (a["recommended_consumers"], a["consumers_group_id"]) == (6, "m1")
    assert a["warnings"] == ["a's own warning", "m2 is hot on a"]
    assert a["alternatives"] == [move["text"]]
    assert [n["code"] for n in a["alternatives_coded"]] == [CONSUMER_PROTOCOL_ALTERNATIVE]
    assert a["rationale"][0] == "a sized"
    assert a["rationale"][-1].startswith("consumers: 6, the recommended size of group 'm1'")
    assert [g["group_id"] for g in b["groups"]] == ["m1", "n"]
    assert (b["recommended_consumers"], b["consumers_group_id"]) == (9, "n")
    assert b["warnings"] == ["b's own warning"] and b["alternatives"] == []
    # A topic no multi-topic group reads keeps its sizing row's lists as they were.
    assert [g["group_id"] for g in c["groups"]] == ["only"]
    assert c["warnings"] == ["c's own warning"] and c["rationale"][0] == "c sized"
    # Every other column is the sizing row's.
    for column in ("status", "one_group_members", "candidates"):
        assert out.column(column).to_pylist() == sizing.sort_by("topic").column(column).to_pylist()


def test_a_topic_without_a_plan_gets_no_consumers_and_no_reason() -> None:
    sizing = pa.Table.from_pylist(
        [
            _sizing_row(
                "x",
                [],
                status="missing-capacity",
                one_group_members=None,
                one_group_strategy=None,
                one_group_standby=None,
            )
        ],
        schema=arrow_schema("sizing"),
    )
    (row,) = recommendations(sizing, {}).to_pylist()
    assert row["recommended_consumers"] is None and row["strategy"] is None
    assert row["rationale"] == ["x sized"] and row["groups"] == []


def test_no_sizing_rows_give_no_recommendations() -> None:
    out = recommendations(arrow_schema("sizing").empty_table(), {})
    assert out.num_rows == 0 and out.schema == arrow_schema("recommendations")


def test_a_sizing_row_with_a_null_where_the_dataset_allows_none_is_refused() -> None:
    loose = pa.schema([f.with_nullable(True) for f in arrow_schema("sizing")])
    row = _sizing_row("x", [])
    row["status"] = None
    with pytest.raises(ValueError, match="status"):
        recommendations(pa.Table.from_pylist([row], schema=loose), {})
