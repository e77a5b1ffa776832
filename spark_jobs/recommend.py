"""The `recommendations` rows of `simulate_assignments`: sizing, every group, the answer.

Kept free of Spark, like `spark_jobs.planning`: rows in, the core's rule
(`planner.recommend.choose_consumers`), rows out. One Python task reads the run's
`sizing` file with PyArrow, merges in the plans of the groups that read several topics
(`GROUP_RESULT` rows, which the driver collects: one per such group), picks each topic's
consumers and writes the dataset's one file, sorted by topic (`recommendations_file_udf`),
a batch of topics at a time.

Each topic's row is its sizing row with:

- `groups`: its one-topic groups' plans (`plan_topic`'s) and the plans of the
  multi-topic groups that read it, by group id;
- `recommended_consumers`, `standby_consumers`, `consumers_group_id`, `strategy`:
  `choose_consumers` over all of them, its reason appended to `rationale`; null for a
  topic without a plan;
- `warnings` and `warnings_coded`: the multi-topic groups' warnings appended;
- `alternatives` and `alternatives_coded`: each multi-topic group's move to the
  consumer protocol appended (a one-topic group's is there already, from `plan_topic`).

The merge is row by row in Python: the 10,000-topic fleet's rows took 5.1 task-seconds
as a chain of Spark joins and array functions, and take 0.7 s here, reading and writing
included (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from planner.recommend import choose_consumers
from planner.recommend.alternatives import CONSUMER_PROTOCOL_ALTERNATIVE
from spark_jobs.outputs import write_task_file
from spark_jobs.schemas import arrow_schema

__all__ = [
    "MultiTopicPlans",
    "consumer_choice",
    "multi_topic_plans",
    "recommendations",
    "recommendations_file_udf",
    "sizing_in_order",
]

#: The list columns of a sizing row the merge extends.
_LISTS = (
    "groups",
    "warnings",
    "warnings_coded",
    "rationale",
    "alternatives",
    "alternatives_coded",
)

#: The columns of a sizing row the merge reads; every other one is copied.
_MERGED = ("topic", *_LISTS, "one_group_members", "one_group_strategy", "one_group_standby")

#: What `consumer_choice` gives: the four columns of the pick, and its reason.
_CHOICE = (
    "recommended_consumers",
    "standby_consumers",
    "consumers_group_id",
    "strategy",
    "reason",
)

#: The columns `_merged` gives a row (the others are its sizing row's).
_WRITTEN = (*_CHOICE[:-1], *_LISTS)


class _Group(NamedTuple):
    # A group row as `choose_consumers` reads it (`planner.recommend.SizedGroup`).
    group_id: str
    recommended_members: int | None
    strategy: str | None
    standby_members: int | None


class _Result(NamedTuple):
    # One multi-topic group's plan and the warnings it gives its topics.
    plan: dict[str, Any]
    warnings: list[str] | None
    warnings_coded: list[dict[str, Any]] | None


#: Topic -> the multi-topic groups that read it, by group id.
MultiTopicPlans = Mapping[str, Sequence[_Result]]


def multi_topic_plans(results: pa.Table) -> dict[str, list[_Result]]:
    """Each topic's multi-topic group plans, from `GROUP_RESULT` rows (`plan`,
    `warnings`, `warnings_coded`; other columns are not read)."""
    by_topic: dict[str, list[_Result]] = {}
    for row in results.select(["plan", "warnings", "warnings_coded"]).to_pylist():
        result = _Result(row["plan"], row["warnings"], row["warnings_coded"])
        for topic in row["plan"]["topics"] or ():
            by_topic.setdefault(topic, []).append(result)
    for plans in by_topic.values():
        plans.sort(key=lambda r: r.plan["group_id"])
    return by_topic


def consumer_choice(
    groups: Sequence[Mapping[str, Any]],
    *,
    one_group_members: int | None,
    one_group_strategy: str | None,
    one_group_standby: int | None,
) -> dict[str, Any]:
    """The topic's consumers to run: `choose_consumers` over `groups` (plans, every
    group reading the topic) and the plan of one group reading only it (none when
    `one_group_members` is null).

    Returns:
        `recommended_consumers`, `standby_consumers`, `consumers_group_id`, `strategy`
        and `reason`, all None for a topic without a plan.
    """
    one = (
        None
        if one_group_members is None
        else _Group("", one_group_members, one_group_strategy, one_group_standby)
    )
    choice = choose_consumers(
        [
            _Group(g["group_id"], g["recommended_members"], g["strategy"], g["standby_members"])
            for g in groups
        ],
        one_group=one,
    )
    if choice is None:
        return dict.fromkeys(_CHOICE)
    return {
        "recommended_consumers": choice.members,
        "standby_consumers": choice.standby_members,
        "consumers_group_id": choice.group_id,
        "strategy": choice.strategy,
        "reason": choice.reason,
    }


def _appended(base: list[Any] | None, extra: list[Any]) -> list[Any] | None:
    # A list column with more entries; a null one stays null.
    return None if base is None else base + extra


def _merged(row: dict[str, Any], multi: Sequence[_Result]) -> dict[str, Any]:
    everyone = (
        None
        if row["groups"] is None
        else sorted([*row["groups"], *(r.plan for r in multi)], key=_group_key)
    )
    choice = consumer_choice(
        everyone or (),
        one_group_members=row["one_group_members"],
        one_group_strategy=row["one_group_strategy"],
        one_group_standby=row["one_group_standby"],
    )
    moves = [
        n
        for r in multi
        for n in r.plan["notes_coded"] or ()
        if n["code"] == CONSUMER_PROTOCOL_ALTERNATIVE
    ]
    reason = choice.pop("reason")
    return {
        **choice,
        "groups": everyone,
        "warnings": _appended(row["warnings"], [w for r in multi for w in r.warnings or ()]),
        "warnings_coded": _appended(
            row["warnings_coded"], [w for r in multi for w in r.warnings_coded or ()]
        ),
        "rationale": _appended(row["rationale"], [] if reason is None else [reason]),
        "alternatives": _appended(row["alternatives"], [n["text"] for n in moves]),
        "alternatives_coded": _appended(row["alternatives_coded"], moves),
    }


def _group_key(plan: Mapping[str, Any]) -> str:
    # A topic's groups are distinct groups: their ids order them.
    group_id: str = plan["group_id"]
    return group_id


def recommendations(sizing: pa.Table, multi: MultiTopicPlans) -> pa.Table:
    """The `recommendations` rows of a run, sorted by topic.

    Args:
        sizing: The run's `sizing` rows (the dataset's columns), any order.
        multi: `multi_topic_plans` of the run's multi-topic groups.

    Returns:
        One row per sizing row, the `recommendations` schema.
    """
    schema = arrow_schema("recommendations")
    sizing_schema = arrow_schema("sizing")
    if sizing.schema != sizing_schema:
        # Rows from a Spark frame may allow nulls the dataset does not; fails on a null
        # where the dataset allows none.
        sizing = sizing.cast(sizing_schema)
    sizing = sizing.sort_by("topic")
    merged = [
        _merged(row, multi.get(row["topic"], ()))
        for row in sizing.select(list(_MERGED)).to_pylist()
    ]
    columns = [
        pa.array([m[field.name] for m in merged], type=field.type)
        if field.name in _WRITTEN
        else sizing.column(field.name)
        for field in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema)


def sizing_in_order(folder: str | Path, *, batch_rows: int) -> Iterator[pa.Table]:
    """The `sizing` rows in `folder`, by topic, in tables of at most about `batch_rows`.

    The job writes the dataset as one file sorted by topic: that file is read a batch
    at a time, so that a fleet of 100,000 topics (about 380 MB of sizing rows in Arrow)
    is never in memory whole. Any other layout (several files, rows out of order) is
    read whole and sorted.
    """
    files = sorted(f for f in Path(folder).glob("*.parquet") if not f.name.startswith("."))
    schema = arrow_schema("sizing")
    if len(files) == 1 and pq.read_schema(files[0]) == schema:
        topics = pq.read_table(files[0], columns=["topic"]).column("topic")
        if len(topics) < 2 or pc.all(pc.less(topics[:-1], topics[1:])).as_py():
            reader = pq.ParquetFile(files[0])
            for batch in reader.iter_batches(batch_size=batch_rows):
                yield pa.Table.from_batches([batch], schema=schema)
            return
    yield pq.read_table(folder, schema=schema).sort_by("topic")


def recommendations_file_udf(
    sizing_folder: str, multi: MultiTopicPlans, folder: str, *, batch_rows: int
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """A `mapInArrow` function, for a frame of one row in one partition, that reads the
    run's sizing from `sizing_folder` (`sizing_in_order`) and writes its
    `recommendations` file into `folder` (`part-00000`; `FILES_WRITTEN` rows out)."""

    def apply(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for _ in batches:
            pass
        tables = (
            recommendations(sizing, multi)
            for sizing in sizing_in_order(sizing_folder, batch_rows=batch_rows)
        )
        return write_task_file(tables, folder, arrow_schema("recommendations"), number=0)

    return apply
