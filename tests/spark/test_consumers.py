"""The Arrow function that picks each topic's consumers: rows in, the core's rule, rows out."""

from __future__ import annotations

import pyarrow as pa

from spark_jobs.consumers import choose_consumers_arrow
from spark_jobs.schemas import arrow_schema

_GROUP = pa.struct(
    [
        ("group_id", pa.string()),
        ("recommended_members", pa.int32()),
        ("strategy", pa.string()),
        ("standby_members", pa.int32()),
    ]
)


def _batch(rows: list[dict[str, object]]) -> pa.RecordBatch:
    schema = pa.schema(
        [
            ("topic", pa.string()),
            ("groups", pa.list_(_GROUP)),
            ("one_group_members", pa.int32()),
            ("one_group_strategy", pa.string()),
            ("one_group_standby", pa.int32()),
        ]
    )
    return pa.RecordBatch.from_pylist(rows, schema=schema)


def test_each_topic_gets_the_core_s_choice_and_a_topic_without_a_plan_none() -> None:
    rows = [
        {
            "topic": "a",
            "groups": [
                {"group_id": "y", "recommended_members": 4, "strategy": "range",
                 "standby_members": 0},
                {"group_id": "x", "recommended_members": 4, "strategy": "sticky",
                 "standby_members": 1},
                {"group_id": "z", "recommended_members": None, "strategy": None,
                 "standby_members": None},
            ],
            "one_group_members": 2,
            "one_group_strategy": "cooperative-sticky",
            "one_group_standby": 0,
        },
        {"topic": "b", "groups": [], "one_group_members": 3,
         "one_group_strategy": "cooperative-sticky", "one_group_standby": 1},
        {"topic": "c", "groups": [], "one_group_members": None, "one_group_strategy": None,
         "one_group_standby": None},
    ]  # fmt: skip
    (out,) = list(choose_consumers_arrow(iter([_batch(rows)])))
    assert out.schema == arrow_schema("consumer_choice")
    got = {r["topic"]: r for r in out.to_pylist()}
    # The tie at 4 goes to the smaller group id; a group without a plan is left out.
    assert (got["a"]["pick_members"], got["a"]["pick_group_id"]) == (4, "x")
    assert (got["a"]["pick_strategy"], got["a"]["pick_standby"]) == ("sticky", 1)
    assert got["a"]["pick_reason"] == (
        "consumers: 4, the recommended size of group 'x' (sticky), the largest of the 2 "
        "groups with a plan that read the topic; 1 of them owns no partition and stands by "
        "to take over from a member that fails (min_group_members)"
    )
    assert (got["b"]["pick_members"], got["b"]["pick_group_id"]) == (3, None)
    assert set(got["c"].values()) == {"c", None}
