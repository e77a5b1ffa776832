"""The Arrow function of `simulate_assignments` that picks each topic's consumers.

Kept free of Spark, like `spark_jobs.planning`: rows in, `planner.recommend.
choose_consumers` on them, rows out. The rule is the core's; this only converts.

In: one row per topic with `groups` (every group reading it, one topic or several:
`group_id, recommended_members, strategy, standby_members`) and the plan of one group
reading only it (`one_group_members, one_group_strategy, one_group_standby`; null for a
topic without a plan). Out: `schemas.CONSUMER_CHOICE` rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import pyarrow as pa

from planner.recommend import choose_consumers
from spark_jobs.schemas import arrow_schema

__all__ = ["choose_consumers_arrow"]


class _Group(NamedTuple):
    # A group row as `choose_consumers` reads it (`planner.recommend.SizedGroup`).
    group_id: str
    recommended_members: int | None
    strategy: str | None
    standby_members: int | None


def _choice(row: dict[str, Any]) -> dict[str, Any]:
    groups = [_Group(**g) for g in row["groups"] or ()]
    one = (
        None
        if row["one_group_members"] is None
        else _Group(
            "", row["one_group_members"], row["one_group_strategy"], row["one_group_standby"]
        )
    )
    choice = choose_consumers(groups, one_group=one)
    if choice is None:
        return {"topic": row["topic"]}
    return {
        "topic": row["topic"],
        "pick_members": choice.members,
        "pick_standby": choice.standby_members,
        "pick_group_id": choice.group_id,
        "pick_strategy": choice.strategy,
        "pick_reason": choice.reason,
    }


def choose_consumers_arrow(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The `mapInArrow` body: one `CONSUMER_CHOICE` row per topic row in."""
    schema = arrow_schema("consumer_choice")
    for batch in batches:
        rows = [_choice(r) for r in batch.to_pylist()]
        yield pa.RecordBatch.from_pylist(rows, schema=schema)
