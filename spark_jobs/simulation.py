"""The Arrow functions of `simulate_assignments`: per-topic grids and multi-topic groups.

Kept free of Spark, like `spark_jobs.planning`: Spark hands these functions Arrow data
and takes Arrow data back.

- `simulate_topics` (`mapInArrow`, one sizing row per planned topic in): the grid of
  the topic's simulated candidate counts (its plan's `simulated` candidates), made by
  the core's `planner.recommend.topic_grid`, the call `plan_topic` makes for its own.
  A keyed topic's partition loads come from its sizing row (`partition_loads`:
  `size_partitions` placed its key sample at every simulated count), so no key sample
  is hashed again.
- `plan_groups` (`groupBy("group_id").applyInArrow`): one group that reads several
  topics, planned by `spark_jobs.groups.plan_group_of_topics`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pyarrow as pa

from planner.notes import note
from planner.recommend import GroupInfo, PlanSettings, load_factor, topic_grid
from planner.simulate import GridResult, TopicLoad
from planner.simulate.churn import COST_COLUMNS
from spark_jobs.groups import GroupTopic, plan_group_of_topics
from spark_jobs.outputs import write_task_file
from spark_jobs.schemas import arrow_schema

__all__ = [
    "grid_table",
    "group_plans_udf",
    "plan_groups",
    "simulate_topics",
    "topic_grid_files_udf",
]

# The order of a topic's grid rows in the `simulations` dataset (after scope and topic).
# `topic_grid` gives the strategies by name, so a grid's rows come out already in this
# order within each partition count and the sort of a batch can usually be skipped (see
# `_in_row_order`).
_ROW_ORDER = ("topic", "partitions", "members", "strategy")
_GRID_COLUMNS = (
    "members",
    "strategy",
    "max_member_partitions",
    "min_member_partitions",
    "max_load",
    "min_load",
    "mean_load",
    "imbalance",
    "idle_members",
    "within_capacity",
    "max_partition_load",
    "hot_partition",
    "grow_moved",
    "grow_revoked",
    "shrink_moved",
    "shrink_revoked",
    # What a join and a leave cost, per protocol (docs/simulation.md 4.1).
    *COST_COLUMNS,
)


def _grid(
    *,
    consumers_at_horizon: float,
    partition_loads: Mapping[int, Sequence[float]] | None,
    counts: Sequence[int],
    groups: Sequence[GroupInfo],
    other_group_sizes: Sequence[int],
    settings: PlanSettings,
) -> GridResult:
    # The core's grid of the topic (`topic_grid`, the call plan_topic makes), on the
    # loads size_partitions placed at every simulated count of a keyed topic.
    return topic_grid(
        TopicLoad(consumers_at_horizon),
        counts,
        groups=groups,
        settings=settings,
        other_group_sizes=other_group_sizes,
        placed=partition_loads,
    )


def _rows_table(
    run: str,
    topics: Sequence[str],
    grids: Sequence[GridResult],
    current: Sequence[int | None],
    recommended: Sequence[int],
) -> pa.Table:
    # The grids of many topics as one table, built column by column: a Python object
    # per row (a run, a scope, a one-topic list) cost more than the grids themselves.
    schema = arrow_schema("simulations")
    sizes = np.array([len(g) for g in grids], dtype=np.int64)
    n = int(sizes.sum())
    owner = np.repeat(np.arange(len(grids)), sizes)
    columns = {
        name: np.concatenate([getattr(g, name) for g in grids]) if grids else np.zeros(0)
        for name in ("partitions", *_GRID_COLUMNS)
    }
    topic = pa.array(topics, pa.string()).take(pa.array(owner))
    partitions = columns["partitions"]
    data: dict[str, Any] = {
        "run": pa.array([run], pa.string()).take(pa.array(np.zeros(n, dtype=np.int64))),
        "scope": pa.array(["topic"], pa.string()).take(pa.array(np.zeros(n, dtype=np.int64))),
        "topic": topic,
        "group_id": pa.nulls(n, pa.string()),
        "topics": pa.ListArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32)), topic),
        "partitions": partitions,
        "is_recommended_partitions": partitions == np.asarray(recommended, np.int64)[owner],
        "is_current_partitions": partitions
        == np.asarray([c if c else -1 for c in current], np.int64)[owner],
        "load_limit": np.repeat([g.load_limit for g in grids], sizes).astype(np.float64),
        **{name: columns[name] for name in _GRID_COLUMNS},
    }
    return pa.Table.from_pydict({f.name: data[f.name] for f in schema}, schema=schema)


def grid_table(
    topic: str,
    *,
    run: str,
    consumers_at_horizon: float,
    partition_loads: Mapping[int, Sequence[float]] | None,
    counts: Sequence[int],
    largest_group: int,
    current: int | None,
    recommended: int,
    settings: PlanSettings,
) -> pa.Table:
    """The `simulations` rows of one topic (scope `topic`).

    Args:
        topic: The topic.
        run: The run key.
        consumers_at_horizon: Its load at the end of the horizon, in consumers.
        partition_loads: A keyed topic's partition loads at each count (from its key
            sample, in consumers at the horizon); None for an even spread.
        counts: Partition counts to simulate.
        largest_group: The most members of a group reading it (0: none): the grid
            holds that size.
        current: Partitions today.
        recommended: The recommended count.
        settings: The planning settings.
    """
    grid = _grid(
        consumers_at_horizon=consumers_at_horizon,
        partition_loads=partition_loads,
        counts=counts,
        groups=(),
        other_group_sizes=(largest_group,),
        settings=settings,
    )
    return _rows_table(run, [topic], [grid], [current], [recommended])


def _in_row_order(topics: Sequence[str], counts: Sequence[Sequence[int]]) -> bool:
    # Whether a batch's grid rows, laid end to end, are already sorted by `_ROW_ORDER`
    # and need no sort (about 0.15 CPU-s for the 1.2 M rows of the 10,000-topic fleet):
    # true when the topics strictly increase (Python's string order is Arrow's, UTF-8
    # bytes) and so do each topic's partition counts. Each count's rows are then by
    # members and (`topic_grid`'s order) by strategy. Anything else (a repeated topic,
    # counts out of order or repeated) is left to the sort.
    return all(a < b for a, b in pairwise(topics)) and all(
        a < b for each in counts for a, b in pairwise(each)
    )


def _groups(info: Mapping[str, Any]) -> list[GroupInfo]:
    # The groups of another protocol than classic that read only the topic: the
    # strategies the core simulates for them (`planner.recommend.grid_parameters`).
    # Classic groups need none: every grid holds the classic four.
    return [
        GroupInfo(g["group_id"], g["current_strategy"], g["current_members"] or 0, protocol)
        for g in info.get("groups") or ()
        if (protocol := g.get("protocol") or "classic") != "classic"
        and g["current_strategy"] is not None
    ]


def simulate_topics(
    batches: Iterator[pa.RecordBatch],
    *,
    run: str,
    headroom_pct: float,
    min_group_members: int = PlanSettings.min_group_members,
) -> Iterator[pa.RecordBatch]:
    """`mapInArrow` body: for every input row (one planned topic), its grid rows.

    Input columns: `topic, current_partitions, recommended_partitions,
    consumers_at_horizon, simulate_counts, largest_group, partition_loads`, and
    optionally `groups` (the plans of the groups that read only the topic).
    """
    settings = PlanSettings(headroom_pct=headroom_pct, min_group_members=min_group_members)
    for batch in batches:
        topics, grids, current, recommended, counts = [], [], [], [], []
        for info in batch.to_pylist():
            loads = info["partition_loads"]
            grids.append(
                _grid(
                    consumers_at_horizon=info["consumers_at_horizon"],
                    partition_loads=(
                        None if loads is None else {e["partitions"]: e["loads"] for e in loads}
                    ),
                    counts=info["simulate_counts"],
                    groups=_groups(info),
                    other_group_sizes=(info["largest_group"],),
                    settings=settings,
                )
            )
            topics.append(info["topic"])
            counts.append(info["simulate_counts"])
            current.append(info["current_partitions"])
            recommended.append(info["recommended_partitions"])
        if grids:
            # One batch per input batch: Spark pays per batch, not per row. Topics arrive
            # sorted; each one's rows leave in the dataset's order (the job writes them
            # without sorting).
            table = _rows_table(run, topics, grids, current, recommended)
            if not _in_row_order(topics, counts):
                table = table.sort_by([(c, "ascending") for c in _ROW_ORDER])
            yield from table.to_batches()


def plan_groups(
    key: Sequence[pa.Scalar],
    table: pa.Table,
    *,
    run: str,
    headroom_pct: float,
    min_group_members: int,
    price_per_gib: float | None = None,
) -> pa.Table:
    """`applyInArrow` body: one multi-topic group in (one row per topic), one row out.

    Input columns: `group_id, topic, strategy, members, protocol` (and `client_rack`), the
    group's own Tc on the topic (`consumer_records_per_s, capacity_source`), and per
    topic its sizing `status, current_partitions, recommended_partitions, consumers_now,
    consumers_at_horizon, topic_tc_records_per_s, loads` (the partition loads at the
    recommended count of a keyed topic; all null when the run does not know the topic)
    and, for the cross-zone figure, `replicas, broker_racks, group_read_bytes_per_day`.
    Each topic's loads are scaled to the group's own Tc by the core's `load_factor`.
    """
    group_id = key[0].as_py()
    rows = table.sort_by([("topic", "ascending")]).to_pylist()
    strategies = sorted({r["strategy"] for r in rows})
    sizes = sorted({int(r["members"]) for r in rows})
    topics = []
    for r in rows:
        topics.append(
            GroupTopic(
                topic=r["topic"],
                status=r["status"],
                current_partitions=r["current_partitions"],
                partitions=r["recommended_partitions"],
                consumers_now=r["consumers_now"],
                consumers_at_horizon=r["consumers_at_horizon"],
                loads=None if r["loads"] is None else np.asarray(r["loads"], dtype=np.float64),
                load_factor=load_factor(
                    GroupInfo(
                        group_id,
                        r["strategy"],
                        int(r["members"]),
                        capacity_records_per_s=r.get("consumer_records_per_s"),
                        capacity_source=r.get("capacity_source"),
                    ),
                    r.get("topic_tc_records_per_s"),
                ),
                replicas=r.get("replicas"),
                broker_racks=tuple(
                    (b["broker_id"], b["rack"]) for b in r.get("broker_racks") or ()
                ),
                read_bytes_per_day=r.get("group_read_bytes_per_day"),
            )
        )
    # The groups table has one row per subscription; a group's rows should agree.
    strategy, members = rows[0]["strategy"], max(sizes)
    result = plan_group_of_topics(
        group_id,
        strategy,
        members,
        topics,
        protocol=rows[0].get("protocol") or "classic",
        headroom_pct=headroom_pct,
        min_group_members=min_group_members,
        client_rack=rows[0].get("client_rack"),
        price_per_gib=price_per_gib,
    )
    if len(strategies) > 1 or len(sizes) > 1:
        disagrees = note(
            "groups-table-disagrees",
            strategies=strategies,
            sizes=sizes,
            strategy=strategy,
            members=members,
        )
        result.plan["notes"].append(disagrees.text)
        result.plan["notes_coded"].append(disagrees.as_row())
    for row in result.grid:
        row["run"] = run
    out = {
        "group_id": group_id,
        "plan": result.plan,
        "warnings": result.warnings,
        "warnings_coded": result.warnings_coded,
        "grid": result.grid,
    }
    return pa.Table.from_pylist([out], schema=arrow_schema("group_result"))


# PySpark 4.2 reads an Arrow function's type hints to pick its calling convention, and
# fails (UnboundLocalError) on a functools.partial, whose hints it cannot resolve. The
# factories below return plain functions with the hints it looks for.


def topic_grid_files_udf(
    *,
    run: str,
    headroom_pct: float,
    folder: str,
    min_group_members: int = PlanSettings.min_group_members,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """`simulate_topics` bound to a run, writing each task's rows as its file of `folder`.

    For `DataFrame.mapInArrow` with the `FILES_WRITTEN` schema: the rows never go to the
    JVM (`spark_jobs.outputs.write_task_file`).
    """

    def apply(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = simulate_topics(
            batches, run=run, headroom_pct=headroom_pct, min_group_members=min_group_members
        )
        return write_task_file(rows, folder, arrow_schema("simulations"))

    return apply


def group_plans_udf(
    *,
    run: str,
    headroom_pct: float,
    min_group_members: int,
    price_per_gib: float | None = None,
) -> Callable[[tuple[pa.Scalar, ...], pa.Table], pa.Table]:
    """`plan_groups` bound to a run, for `GroupedData.applyInArrow`."""

    def apply(key: tuple[pa.Scalar, ...], table: pa.Table) -> pa.Table:
        return plan_groups(
            key,
            table,
            run=run,
            headroom_pct=headroom_pct,
            min_group_members=min_group_members,
            price_per_gib=price_per_gib,
        )

    return apply
