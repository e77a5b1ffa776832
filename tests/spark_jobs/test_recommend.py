"""The recommendations' merge: each topic's sizing row, the multi-topic groups' plans
that read it, and the core's pick of its consumers (`spark_jobs.recommend`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from planner.recommend.alternatives import CONSUMER_PROTOCOL_ALTERNATIVE
from spark_jobs.recommend import (
    consumer_choice,
    multi_topic_plans,
    recommendations,
    sizing_in_order,
)
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
        brokers=3,
        consuming_groups=0,
        samples=0,
        history_days=0,
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


def _sizing_table(topics: list[str]) -> pa.Table:
    return pa.Table.from_pylist([_sizing_row(t, []) for t in topics], schema=arrow_schema("sizing"))


def test_the_job_s_sorted_sizing_file_is_read_a_batch_at_a_time(tmp_path: Path) -> None:
    topics = [f"t{i:03d}" for i in range(25)]
    pq.write_table(_sizing_table(topics), tmp_path / "part-00000.zstd.parquet", row_group_size=10)
    (tmp_path / ".part-00001.zstd.parquet.attempt-3").write_bytes(b"a failed attempt's")
    tables = list(sizing_in_order(tmp_path, batch_rows=10))
    assert [t.num_rows for t in tables] == [10, 10, 5]
    assert [t for table in tables for t in table.column("topic").to_pylist()] == topics
    assert all(t.schema == arrow_schema("sizing") for t in tables)


def test_sizing_in_several_files_or_out_of_order_is_read_whole_and_sorted(
    tmp_path: Path,
) -> None:
    pq.write_table(_sizing_table(["d", "b"]), tmp_path / "part-00000.zstd.parquet")
    pq.write_table(_sizing_table(["c", "a"]), tmp_path / "part-00001.zstd.parquet")
    (whole,) = sizing_in_order(tmp_path, batch_rows=1)
    assert whole.column("topic").to_pylist() == ["a", "b", "c", "d"]
    (tmp_path / "part-00001.zstd.parquet").unlink()
    (alone,) = sizing_in_order(tmp_path, batch_rows=1)
    assert alone.column("topic").to_pylist() == ["b", "d"]
