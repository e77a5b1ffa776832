"""One topic's sizing row: its figures, through `plan_topic`, into a row.

This is the body of the `size_partitions` job's Arrow function, kept free of Spark so
that it can be tested and reasoned about on its own. It decides nothing about Kafka:
`planner.recommend.plan_topic` does. What it adds is the bookkeeping around it: units,
the fan-out of multi-topic groups, and the statuses of topics that cannot be planned.
The candidate partition counts with their cost panels are the plan's
(`TopicPlan.candidates`), laid out as rows.

Inputs, per topic (`size_unit` gathers them for a unit of topics):

- throughput samples `ts, mib_in, records_in, mib_out` (MiB/s, records/s), read by the
  unit's task (`spark_jobs.units.read_samples`),
- at most one facts row, worked out on the driver (`spark_jobs.facts.topic_facts`): the topic's
  snapshot (`partitions`, `replication_factor`, `keyed`, `partitioner`,
  `retention_ms`), Tp and Tc with their source, the consumer groups that read only this
  topic, and how many groups read it in all;
- a keyed topic's key-sample rows (`key` as bytes, `count`), read by the unit's task
  (`spark_jobs.keys.read_key_rows`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from planner.choices import DEFAULT_PARTITIONER
from planner.cost import PartitionCost
from planner.cross_zone import client_racks, cross_zone_record, replica_lists
from planner.notes import Note, coded_rows, note, texts
from planner.protocols import DEFAULT_PROTOCOL
from planner.recommend import (
    Candidate,
    GroupInfo,
    GroupPlan,
    TopicHistory,
    TopicPlan,
    plan_topic,
)
from planner.recommend.cross_zone import daily_read_bytes, with_cross_zone
from planner.recommend.partitions import SIZED_STATUSES
from planner.recommend.targets import topic_targets
from planner.simulate import loads_by_count
from planner.sizing import PlanningTarget, SideCapacity
from planner.standbys import Changelog, standby_record
from spark_jobs.facts import GROUP_CAPACITY_FIELDS, unit_facts
from spark_jobs.keys import read_key_rows
from spark_jobs.schemas import COST_FIELDS, GROUP_PLAN, SIZING, arrow_schema, empty_row
from spark_jobs.settings import JobSettings
from spark_jobs.units import Unit, read_samples

__all__ = [
    "PLANNED_STATUSES",
    "group_row",
    "invalid_figures_row",
    "planned_row",
    "sample_from_rows",
    "size_unit",
    "size_units",
    "size_units_udf",
    "sizing_row",
    "unplanned_group_row",
]

#: Statuses of a topic `plan_topic` planned (`create`: a topic that does not exist yet):
#: the core's `SIZED_STATUSES`, under the name the jobs and the output suites use.
PLANNED_STATUSES: tuple[str, ...] = SIZED_STATUSES
_SECONDS_PER_DAY = 86_400
# The `sizing` columns, named once: a row of them is started for every topic.
_SIZING_COLUMNS = tuple(empty_row(SIZING))


def sample_from_rows(rows: pa.Table) -> tuple[pa.Array | None, npt.NDArray[np.float64] | None]:
    """A topic's key sample from its `keys` rows (`key` as bytes, `count`), any order.

    The rows are one per key, as `read_key_rows` gives them (it merges a key spelled
    both as text and as hex). They come out ordered by count, lowest first: every sum
    over the sample (the total, each partition's load) then adds the same values in the
    same order whatever order the rows were read in, so a rerun gives the same last bit.
    Keys with equal counts may come in either order: swapping equal values changes no
    sum, and `planner.simulate.find_hot_keys` orders hot keys by their bytes on a tie.
    Ordering the counts is a numeric sort (about 0.6 ms for 100,000 keys); ordering the
    keys by their bytes, as this did before, took 15 ms. The keys stay in Arrow's
    layout, which is what `planner.partitioners` hashes: no Python object per key.

    Returns:
        The keys (Arrow binary) and their counts, or `(None, None)` for no rows.
    """
    if rows.num_rows == 0:
        return None, None
    # `+ 0.0` turns -0.0 into 0.0, as Arrow's sum of the merged spellings does.
    counts = np.asarray(rows.column("count").to_numpy(), dtype=np.float64) + 0.0
    order = np.argsort(counts)
    keys = rows.column("key").combine_chunks().take(pa.array(order))
    return keys, counts[order]


def _seconds(ts: pa.ChunkedArray | pa.Array) -> npt.NDArray[np.float64]:
    micros = pc.cast(ts, pa.timestamp("us", tz="UTC")).cast(pa.int64())
    return np.asarray(micros.to_numpy(zero_copy_only=False), dtype=np.float64) / 1e6


@dataclass(frozen=True)
class _Samples:
    """Throughput samples of one or many topics as NumPy columns (MiB/s, records/s).

    Attributes:
        ts_s: Sample times, seconds since the epoch.
        columns: `mib_in`, `records_in`, `mib_out`, `mib_out_busiest` (nulls as NaN).
        valid: Per column, which samples are not null.
    """

    ts_s: npt.NDArray[np.float64]
    columns: dict[str, npt.NDArray[np.float64]]
    valid: dict[str, npt.NDArray[np.bool_]]

    @classmethod
    def of(cls, rows: pa.Table) -> _Samples:
        """The samples of `rows` (`ts, mib_in, records_in, mib_out[, mib_out_busiest]`), in
        their order."""
        columns, valid = {}, {}
        for name in ("mib_in", "records_in", "mib_out", "mib_out_busiest"):
            if name not in rows.column_names:  # (a frame of the tests' own making)
                continue
            column = rows.column(name)
            columns[name] = np.asarray(
                pc.fill_null(column, math.nan).to_numpy(zero_copy_only=False), dtype=np.float64
            )
            valid[name] = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        return cls(_seconds(rows.column("ts")), columns, valid)

    def history(self, start: int, end: int) -> dict[str, Any]:
        """One topic's samples `[start, end)` sorted by time, as `_history` takes them.

        Samples sorted by time: the core's sums run in a fixed order, so a rerun on the
        same figures gives the same last bit whatever order the rows came in. The sort
        is stable, so equal times keep their order.
        """
        ts = self.ts_s[start:end]
        # The unit's samples come by topic and then time (`read_samples`): a stable sort
        # of times already in order is no change, and is skipped.
        order = None if (ts[1:] >= ts[:-1]).all() else np.argsort(ts, kind="stable")
        out: dict[str, Any] = {"ts_s": ts if order is None else ts[order]}
        for name, values in self.columns.items():
            # A column with no value at all is a dimension not measured.
            seen = self.valid[name][start:end].any()
            mine = values[start:end]
            out[name] = (mine if order is None else mine[order]) if seen else None
        return out


def _history_arrays(throughput: pa.Table) -> dict[str, Any]:
    return _Samples.of(throughput).history(0, throughput.num_rows)


def _capacities(facts: Mapping[str, Any]) -> tuple[SideCapacity, SideCapacity]:
    return (
        SideCapacity(
            facts["tp_mib_per_s"], facts["tp_records_per_s"], facts.get("tp_record_bytes")
        ),
        SideCapacity(
            facts["tc_mib_per_s"], facts["tc_records_per_s"], facts.get("tc_record_bytes")
        ),
    )


def _groups(facts: Mapping[str, Any]) -> list[GroupInfo]:
    return [
        GroupInfo(
            g["group_id"],
            g["strategy"],
            int(g["members"]),
            g.get("protocol") or "classic",
            # The group's own Tc and lag on the topic (figures `groups`); absent from
            # facts written before them, so read with `get`.
            **{f: g.get(c) for c, f in GROUP_CAPACITY_FIELDS.items()},
            client_racks=client_racks(g["client_rack"]) if g.get("client_rack") else (),
            stream_threads=g.get("stream_threads"),
            standby_replicas=g.get("standby_replicas"),
            changelogs=tuple(Changelog(**c) for c in g.get("changelogs") or ()),
        )
        for g in facts["groups"] or ()
    ]


def _pair(value: Any) -> tuple[str, str] | None:
    # `(application, kind)` as the facts hold it (a tuple, or a list once serialised).
    return None if not value else (str(value[0]), str(value[1]))


def _share_fetch(facts: Mapping[str, Any]) -> SideCapacity | None:
    # One partition's share-fetch throughput, where the capacity table has it.
    mib, records = facts.get("sf_mib_per_s"), facts.get("sf_records_per_s")
    return None if mib is None and records is None else SideCapacity(mib, records)


def unplanned_group_row(
    group_id: str,
    topics: list[str],
    strategy: str,
    members: int,
    why: str,
    *,
    protocol: str = DEFAULT_PROTOCOL,
) -> dict[str, Any]:
    """The `GROUP_PLAN` row of a group the run could not plan, and why: the record's
    columns (`spark_jobs.schemas.GROUP_PLAN`), the sizes, the strategy and `planned_as`
    left empty; `strategy` is its assignor today, of `protocol`."""
    return {
        **empty_row(GROUP_PLAN),
        "group_id": group_id,
        "topics": topics,
        "current_strategy": strategy,
        "protocol": protocol,
        "current_members": members,
        "status": "unplanned",
        "notes": [why],
        "notes_coded": coded_rows([note("group-unplanned", reason=why)]),
    }


def _unplanned_groups(
    facts: Mapping[str, Any] | None, topic: str, why: str
) -> list[dict[str, Any]]:
    if facts is None:
        return []
    return [
        unplanned_group_row(g.group_id, [topic], g.strategy, g.members, why, protocol=g.protocol)
        for g in _groups(facts)
    ]


def _warn(row: dict[str, Any], warning: Note) -> str:
    # A warning in both forms, the sentence and the coded one; returns the sentence.
    row["warnings"].append(warning.text)
    row["warnings_coded"].append(warning.as_row())
    return warning.text


def _targets_columns(row: dict[str, Any], targets: Mapping[str, PlanningTarget]) -> None:
    for dim, t in targets.items():
        row[f"{dim}_peak_per_s"] = t.peak
        row[f"{dim}_growth_per_year"] = t.growth_per_year
        row[f"{dim}_growth_source"] = t.growth_source
        row[f"{dim}_growth_factor"] = t.growth_factor
        row[f"{dim}_grown_per_s"] = t.grown
        row[f"{dim}_target_per_s"] = t.target


def _cost_columns(cost: PartitionCost, prefix: str) -> dict[str, Any]:
    return {f"{prefix}{f.name}": getattr(cost, f.name) for f in COST_FIELDS}


def group_row(plan: GroupPlan) -> dict[str, Any]:
    """The `GROUP_PLAN` row of a group's plan (one topic or several)."""
    busiest = plan.busiest_utilisation
    return {
        "group_id": plan.group_id,
        "topics": list(plan.topics),
        "current_strategy": plan.current_strategy,
        "strategy": plan.strategy,
        "protocol": plan.protocol,
        "planned_as": plan.planned_as or None,
        "current_members": plan.current_members,
        "recommended_members": plan.recommended_members,
        "members_now": plan.members_now,
        "members_at_horizon": plan.members_at_horizon,
        "busiest_utilisation": busiest if math.isfinite(busiest) else None,
        "idle_members_now": plan.idle_members_now,
        "standby_members": plan.standby_members,
        "fits": plan.fits,
        "status": plan.status,
        "notes": texts(plan.notes),
        "notes_coded": coded_rows(plan.notes),
        "consumer_capacity": (
            None if plan.consumer_capacity is None else asdict(plan.consumer_capacity)
        ),
        "lag": None if plan.lag is None else asdict(plan.lag),
        "cross_zone": cross_zone_record(plan.cross_zone, plan.cross_zone_advice),
        "standbys": standby_record(plan.standbys),
    }


def _candidate_row(candidate: Candidate) -> dict[str, Any]:
    # One `candidates` element: the count, its flags and its cost panel.
    return {
        "partitions": candidate.partitions,
        "is_current": candidate.is_current,
        "is_required_now": candidate.is_required_now,
        "is_required": candidate.is_required,
        "is_recommended": candidate.is_recommended,
        "considered": candidate.considered,
        "simulated": candidate.simulated,
        "even_group_sizes": list(candidate.even_group_sizes),
        **_cost_columns(candidate.cost, ""),
        "cost_warnings": texts(candidate.cost.warnings),
    }


def _capacity_rationale(facts: Mapping[str, Any]) -> str:
    parts = []
    for side, name in (("tp", "Tp"), ("tc", "Tc")):
        mib, records = facts[f"{side}_mib_per_s"], facts[f"{side}_records_per_s"]
        figures = [
            f"{mib:g} MiB/s" if mib is not None else "",
            f"{records:g} records/s" if records is not None else "",
        ]
        text = " and ".join(f for f in figures if f) or "not measured"
        source = facts[f"{side}_source"]
        origin = {"topic": "the topic's own measurement", "*": "the fleet default '*'"}.get(
            source, "nowhere"
        )
        by = f", {facts[f'{side}_measured_by']}" if facts[f"{side}_measured_by"] else ""
        parts.append(f"{name} {text} per partition from {origin}{by}")
    return "; ".join(parts)


def _distinct_sorted(values: npt.NDArray[np.float64]) -> int:
    # Distinct values of a sorted array.
    return int(values.size and 1 + np.count_nonzero(np.diff(values)))


def _history(
    topic: str,
    arrays: Mapping[str, Any],
    facts: Mapping[str, Any],
    keys: Any,
    counts: Any,
) -> TopicHistory:
    keyed = bool(facts["keyed"])
    return TopicHistory(
        topic=topic,
        ts_s=arrays["ts_s"],
        mib_in=arrays["mib_in"],
        records_in=arrays["records_in"],
        mib_out=arrays["mib_out"],
        mib_out_busiest_group=arrays.get("mib_out_busiest"),
        current_partitions=facts["partitions"],
        replication_factor=int(facts["replication_factor"]),
        keyed=keyed,
        partitioner=facts["partitioner"] or DEFAULT_PARTITIONER,
        retention_ms=facts["retention_ms"],
        keys=keys if keyed else None,
        key_counts=counts if keyed else None,
    )


def _peaks_without_capacity(
    row: dict[str, Any], history: TopicHistory, consuming_groups: int, settings: JobSettings
) -> None:
    # No rule without Tp and Tc, but the peak, growth and target are still worth
    # showing: they say what the missing measurement has to carry. Bytes out are one
    # group's read rate, as plan_topic divides them (`TopicPlan.fan_out`).
    try:
        targets = topic_targets(
            history, fan_out=max(1, consuming_groups), settings=settings.planning
        )
    except ValueError:
        return
    _targets_columns(row, targets)


def _fill_plan(row: dict[str, Any], plan: TopicPlan) -> None:
    _targets_columns(row, plan.targets)
    for r in plan.sizing.requirements:
        row[f"{r.dimension}_producer_partitions"] = r.producer_partitions
        row[f"{r.dimension}_consumer_partitions"] = r.consumer_partitions
        # The Tc the consumer side was sized with: the topic's, or its slowest group's own
        # (`planner.recommend.consumer_capacity`), in the dimension's unit.
        row[f"{r.dimension}_consumer_capacity"] = r.consumer_capacity
        row[f"{r.dimension}_required_partitions"] = r.required
        row[f"{r.dimension}_side"] = r.side
    choice = plan.choice
    skew = plan.skew
    row.update(
        status=plan.status,
        topic_tc_records_per_s=plan.topic_tc_records_per_s,
        rule_partitions=plan.sizing.required_partitions,
        share_partitions=plan.share.partitions if plan.share is not None else None,
        share_bound=plan.share.deciding.bound if plan.share is not None else None,
        skew_partitions=skew.partitions if skew is not None and skew.fits else None,
        required_partitions_now=choice.required_now,
        required_partitions=choice.required,
        recommended_partitions=choice.recommended,
        over_provision=choice.over_provision,
        deciding_dimension=plan.sizing.deciding_dimension,
        deciding_side=plan.sizing.deciding_side,
        choice_reason=choice.reason,
        skipped_dimensions=list(plan.sizing.skipped),
        consumers_now=plan.utilisation_now,
        consumers_at_horizon=plan.utilisation_at_horizon,
        busiest_partition_share=skew.busiest_share if skew is not None else None,
        hot_key_share=skew.hot_share if skew is not None else None,
        hot_keys=[
            {
                "key": None if h.key is None else h.key.decode("utf-8", "backslashreplace"),
                "key_hex": None if h.key is None else h.key.hex(),
                "share": h.share,
                "partitions_worth": h.rate,
                "hash": h.hash,
            }
            for h in plan.hot_keys
        ],
        cost_warnings=texts(plan.cost.warnings),
        candidates=[_candidate_row(c) for c in plan.candidates],
        **_cost_columns(plan.cost, "cost_"),
    )
    if plan.key_sample is not None:
        # Placed here, once, at every count the simulation will look at; the grids and
        # the multi-topic groups then need no key sample. The load is simulate_grid's
        # own (in consumers at the end of the horizon), so its grid is unchanged; the
        # sample was checked and hashed by plan_topic already.
        load = plan.key_sample.with_load(plan.utilisation_at_horizon)
        row["partition_loads"] = [
            {"partitions": n, "loads": loads.tolist()}
            for n, loads in sorted(loads_by_count(load, plan.simulated_counts).items())
        ]
    groups = plan.groups
    one = plan.one_group
    assert one is not None
    row["one_group_members"] = one.members_now
    row["one_group_strategy"] = one.strategy
    row["one_group_standby"] = one.standby_members
    row["groups"] = [group_row(g) for g in groups]
    row["warnings"] = list(row["warnings"]) + texts(plan.warnings)
    row["warnings_coded"] = list(row["warnings_coded"]) + coded_rows(plan.warnings)
    row["rationale"] = list(row["rationale"]) + list(plan.rationale)
    row["alternatives"] = texts(plan.alternatives)
    row["alternatives_coded"] = coded_rows(plan.alternatives)


def sizing_row(
    topic: str,
    throughput: pa.Table,
    facts: pa.Table,
    *,
    keys: pa.Array | None = None,
    key_counts: npt.NDArray[np.float64] | None = None,
    run: str,
    brokers: int,
    settings: JobSettings,
) -> dict[str, Any]:
    """The `sizing` row of one topic.

    Args:
        topic: The topic.
        throughput: Its samples in the history window (`ts`, `mib_in`, `records_in`,
            `mib_out`), any order; may be empty.
        facts: Its facts row (see the module docstring); empty when the run's topics
            table does not list it.
        keys: Its key sample (distinct keys, Arrow binary; see `sample_from_rows`);
            used for a keyed topic only.
        key_counts: The counts of the key sample.
        run: The run key.
        brokers: Brokers in the cluster.
        settings: The job settings.

    Returns:
        A dict with every `SIZING` column. `plan_topic` refusing the figures (a
        `ValueError`) gives status `error` with its message, not an exception: one bad
        topic must not stop the fleet.
    """
    return _sizing_row(
        topic,
        _history_arrays(throughput) if throughput.num_rows else None,
        facts.to_pylist()[0] if facts.num_rows else None,
        keys=keys,
        key_counts=key_counts,
        run=run,
        brokers=brokers,
        settings=settings,
    )


def planned_row(
    plan: TopicPlan,
    history: TopicHistory,
    info: Mapping[str, Any],
    *,
    run: str,
    brokers: int,
    settings: JobSettings,
) -> dict[str, Any]:
    """The `sizing` row of a topic `plan_topic` planned.

    Args:
        plan: Its plan, from `history` and the figures in `info`.
        history: What it was planned on (`TopicHistory`, as `sizing_row` makes it).
        info: Its facts row as a dict (see the module docstring).
        run: The run key.
        brokers: Brokers in the cluster.
        settings: The job settings.

    Returns:
        A dict with every `SIZING` column: the facts, the plan (with its groups'
        cross-zone figures, `planner.recommend.cross_zone`), the notes on its inputs.
    """
    row = _started_row(plan.topic, history.ts_s, info, run=run, brokers=brokers)
    row["key_sample_keys"] = len(history.keys) if history.keys is not None else None
    _input_notes(row, info, history.keys)
    plan = with_cross_zone(
        plan,
        history,
        _groups(info),
        replicas=replica_lists(info["replicas"]) if info.get("replicas") else None,
        broker_racks={b["broker_id"]: b["rack"] for b in info.get("broker_racks") or ()},
        price_per_gib=settings.planning.cross_zone_price_per_gib,
    )
    _fill_plan(row, plan)
    row["group_read_bytes_per_day"] = daily_read_bytes(history, fan_out=plan.fan_out)
    return row


#: The facts columns a sizing row copies as they are.
_FACTS_COLUMNS = (
    "replication_factor",
    "keyed",
    "partitioner",
    "retention_ms",
    "tp_mib_per_s",
    "tp_records_per_s",
    "tc_mib_per_s",
    "tc_records_per_s",
    "tp_source",
    "tc_source",
    "tp_measured_by",
    "tc_measured_by",
)


def _started_row(
    topic: str,
    ts_s: npt.ArrayLike | None,
    info: Mapping[str, Any] | None,
    *,
    run: str,
    brokers: int,
) -> dict[str, Any]:
    # A topic's row before any plan: the run, its samples (times sorted; None: none)
    # and its facts (None: not in the topics table).
    row: dict[str, Any] = dict.fromkeys(_SIZING_COLUMNS)
    times = None if ts_s is None else np.asarray(ts_s, dtype=np.float64)
    row.update(
        run=run,
        topic=topic,
        brokers=brokers,
        samples=0 if times is None else len(times),
        history_days=0 if times is None else _distinct_sorted(np.floor(times / _SECONDS_PER_DAY)),
        consuming_groups=int(info["consuming_groups"]) if info else 0,
        share_groups=int(info.get("share_groups") or 0) if info else 0,
        warnings=[],
        warnings_coded=[],
        rationale=[],
        alternatives=[],
        alternatives_coded=[],
        groups=[],
        hot_keys=[],
        candidates=[],
        skipped_dimensions=[],
        cost_warnings=[],
    )
    if info is None:
        return row
    for name in _FACTS_COLUMNS:
        row[name] = info[name]
    row["current_partitions"] = info["partitions"]
    # Carried for the groups that read this topic among others (simulate_assignments).
    row["replicas"] = info.get("replicas")
    row["broker_racks"] = list(info.get("broker_racks") or ())
    row["partitioner"] = info["partitioner"] or DEFAULT_PARTITIONER
    return row


def _input_notes(row: dict[str, Any], info: Mapping[str, Any], keys: Any) -> None:
    # What a plan rests on that the figures leave out, and where Tp and Tc come from.
    if info["tp_mib_per_s"] is None and info["tp_records_per_s"] is None:
        _warn(row, note("no-producer-capacity"))
    if info["keyed"] and keys is None:
        _warn(row, note("no-key-sample"))
    row["rationale"] = [_capacity_rationale(info)]


def _sizing_row(
    topic: str,
    arrays: Mapping[str, Any] | None,
    info: Mapping[str, Any] | None,
    *,
    keys: pa.Array | None,
    key_counts: npt.NDArray[np.float64] | None,
    run: str,
    brokers: int,
    settings: JobSettings,
) -> dict[str, Any]:
    # sizing_row on samples already in arrays (sorted by time; None: no samples) and
    # the facts row as a dict (None: not in the topics table).
    row = _started_row(
        topic, None if arrays is None else arrays["ts_s"], info, run=run, brokers=brokers
    )
    if info is None:
        why = _warn(row, note("unknown-topic"))
        row.update(status="unknown-topic", status_detail=why)
        return row
    if not info["keyed"]:
        keys = key_counts = None
    row["key_sample_keys"] = len(keys) if keys is not None else None

    if arrays is None:
        why = _warn(row, note("no-figures", lookback_days=settings.lookback_days))
        row.update(
            status="no-figures",
            status_detail=why,
            groups=_unplanned_groups(info, topic, why),
        )
        return row

    groups = _groups(info)
    history = _history(topic, arrays, info, keys, key_counts)
    producer, consumer = _capacities(info)
    if info["tc_mib_per_s"] is None and info["tc_records_per_s"] is None:
        why = _warn(row, note("missing-capacity"))
        row.update(
            status="missing-capacity",
            status_detail=why,
            groups=_unplanned_groups(info, topic, why),
        )
        _peaks_without_capacity(row, history, row["consuming_groups"], settings)
        return row
    try:
        # `groups` holds the groups that read only this topic (`TopicPlan.one_group` is
        # the plan of one reading only it that runs no member yet);
        # bytes out are divided over every group that fetches them, those that also
        # read other topics (simulated apart) included.
        plan = plan_topic(
            history,
            producer,
            consumer,
            brokers=brokers,
            groups=groups,
            consuming_groups=row["consuming_groups"],
            share_groups=row["share_groups"],
            share_fetch=_share_fetch(info),
            settings=settings.planning,
            # Absent from facts written before Kafka Streams applications were told apart.
            streams_readers=info.get("streams_readers") or (),
            streams_internal=_pair(info.get("streams_internal")),
        )
    except ValueError as exc:
        _input_notes(row, info, keys)
        why = _warn(row, note("plan-error", error=str(exc)))
        row.update(
            status="error",
            status_detail=str(exc),
            groups=_unplanned_groups(info, topic, why),
        )
        return row
    return planned_row(plan, history, info, run=run, brokers=brokers, settings=settings)


def invalid_figures_row(topic: str, reason: str, *, run: str, brokers: int) -> dict[str, Any]:
    """The `sizing` row of a topic the input validation set aside (status
    `invalid-figures`): no figure of it was read, the reason says which rule and values
    (`planner.figures.set_aside`)."""
    from planner.figures.set_aside import STATUS

    row = empty_row(SIZING)
    row.update(
        run=run,
        topic=topic,
        brokers=brokers,
        samples=0,
        history_days=0,
        consuming_groups=0,
        share_groups=0,
        status=STATUS,
        status_detail=reason,
        warnings=[],
        warnings_coded=[],
        rationale=[],
        alternatives=[],
        alternatives_coded=[],
        groups=[],
        hot_keys=[],
        candidates=[],
        skipped_dimensions=[],
        cost_warnings=[],
    )
    _warn(row, note("invalid-figures", reason=reason))
    return row


def size_unit(
    rows: Sequence[Mapping[str, Any]],
    unit: Unit,
    *,
    run: str,
    brokers: int,
    settings: JobSettings,
    left_out: frozenset[str] = frozenset(),
) -> pa.Table:
    """The sizing rows of every topic of one unit.

    Reads the unit's samples and key rows (`spark_jobs.units`, `spark_jobs.keys`), and
    sizes every topic that has a facts row or samples in the unit, in topic order.

    Args:
        rows: The unit's facts rows (`spark_jobs.facts.topic_facts`), one per topic
            of the run's topics table in the unit's range; a unit may have none.
        unit: The unit.
        run, brokers, settings: The run key, the brokers in the cluster, the settings.
        left_out: Topics whose samples are skipped (set aside by the input validation);
            samples without a topic are skipped too.

    Returns:
        Their sizing rows, `SIZING` schema.
    """
    facts = {info["topic"]: info for info in rows}
    samples = read_samples(unit)
    keyed = [t for t, info in facts.items() if info["keyed"]]
    found = read_key_rows(unit.keys, keyed, lo=unit.lo, hi=unit.hi) if keyed and unit.keys else {}
    columns = _Samples.of(samples.rows)
    where = {t: i for i, t in enumerate(samples.topics) if t is not None and t not in left_out}
    out = []
    for topic in sorted(facts.keys() | where.keys()):
        i = where.get(topic)
        arrays = None
        if i is not None:
            arrays = columns.history(int(samples.starts[i]), int(samples.starts[i + 1]))
        mine = found.get(topic)
        keys, counts = sample_from_rows(mine) if mine is not None else (None, None)
        out.append(
            _sizing_row(
                topic,
                arrays,
                facts.get(topic),
                keys=keys,
                key_counts=counts,
                run=run,
                brokers=brokers,
                settings=settings,
            )
        )
    return pa.Table.from_pylist(out, schema=arrow_schema("sizing"))


def size_units(
    batches: Iterator[pa.RecordBatch],
    units: Mapping[int, Unit],
    facts: Mapping[int, bytes],
    *,
    run: str,
    brokers: int,
    settings: JobSettings,
    left_out: frozenset[str] = frozenset(),
) -> Iterator[pa.RecordBatch]:
    """The `mapInArrow` body of `size_partitions`: the units of one partition.

    Each partition holds the number of one unit (`size_partitions.size_topics`); its
    facts rows come packed per unit (`spark_jobs.facts.by_unit`), and each unit is
    sized once (`size_unit`).
    """
    for batch in batches:
        for number in batch.column("unit").to_pylist():
            sized = size_unit(
                unit_facts(facts[number]),
                units[number],
                run=run,
                brokers=brokers,
                settings=settings,
                left_out=left_out,
            )
            yield from sized.to_batches()


def size_units_udf(
    units: Sequence[Unit],
    facts: Mapping[int, bytes],
    *,
    run: str,
    brokers: int,
    settings: JobSettings,
    left_out: frozenset[str] = frozenset(),
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """`size_units` bound to a run, its units and their facts, for
    `DataFrame.mapInArrow`.

    A plain function rather than a `functools.partial`: PySpark reads the hints of an
    Arrow function to choose how to call it, and cannot read a partial's.
    """
    by_number = {u.unit: u for u in units}

    def apply(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return size_units(
            batches,
            by_number,
            facts,
            run=run,
            brokers=brokers,
            settings=settings,
            left_out=left_out,
        )

    return apply
