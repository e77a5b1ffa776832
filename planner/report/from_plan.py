"""A `TopicReport` from the pure core's `TopicPlan` (the second path into the report).

The pipeline maps its Spark outputs into the report model; this maps one
`planner.recommend.plan_topic` result instead, so a report can be made from the core
alone (the bundled example, a single topic on the command line, tests).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.cross_zone import cross_zone_record
from planner.notes import Note, texts
from planner.recommend import (
    GroupPlan,
    PlanSettings,
    TopicHistory,
    TopicPlan,
)
from planner.recommend.targets import planning_samples
from planner.report.model import (
    Candidate,
    CapacityScope,
    ChurnChart,
    ChurnRow,
    CodedNote,
    CostPanel,
    CrossZoneReport,
    Deciding,
    DimensionArithmetic,
    GroupCapacityReport,
    GroupLagReport,
    GroupReport,
    HotKeyMark,
    MemberLoadChart,
    MemberLoadCurve,
    PartitionLoadChart,
    ThroughputHistory,
    TopicReport,
)
from planner.simulate import (
    STRATEGIES,
    GridResult,
    TopicLoad,
    hot_key_partitions,
    partition_loads,
)
from planner.sizing import PlanningTarget, fit_growth

__all__ = ["from_topic_plan"]

_TODAY = "today's peak"


def _optional_series(values: npt.ArrayLike | None) -> tuple[float | None, ...]:
    if values is None:
        return ()
    array = np.asarray(values, dtype=np.float64)
    return tuple(float(v) if math.isfinite(v) else None for v in array.tolist())


def _growth_method(
    target: PlanningTarget,
    samples: npt.NDArray[np.float64] | None,
    history: TopicHistory,
    s: PlanSettings,
) -> str:
    if samples is None:
        return target.growth_source
    fit = fit_growth(history.ts_s, samples, model=s.growth_model, min_days=s.min_growth_days)
    if target.growth_source == "fitted":
        return f"fitted ({fit.model}): {fit.reason}"
    floor = f"the floor of {s.floor_growth_per_year:+.0%}/year"
    if fit.model == "none":
        return f"{floor}: {fit.reason}"
    fitted = fit.per_year if fit.model == "exponential" else fit.per_day * 365 / (target.peak or 1)
    return f"{floor}: the fit ({fitted:+.0%}/year, {fit.reason}) was below it"


def _dimensions(
    plan: TopicPlan, history: TopicHistory, s: PlanSettings, scope: CapacityScope
) -> tuple[DimensionArithmetic, ...]:
    requirements = {r.dimension: r for r in plan.sizing.requirements}
    # The samples plan_topic sized on.
    samples = planning_samples(history, fan_out=plan.fan_out)
    out = []
    for dimension, t in plan.targets.items():
        r = requirements.get(dimension)
        out.append(
            DimensionArithmetic(
                dimension=dimension,  # type: ignore[arg-type]
                peak=t.peak,
                growth_per_year=t.growth_per_year,
                growth_method=_growth_method(t, samples.get(dimension), history, s),
                growth_factor=t.growth_factor,
                grown=t.grown,
                headroom_pct=t.headroom_pct,
                target=t.target,
                producer_capacity=r.producer_capacity if r else None,
                consumer_capacity=r.consumer_capacity if r else None,
                capacity_scope=scope,
                producer_partitions=r.producer_partitions if r else None,
                consumer_partitions=r.consumer_partitions if r else None,
                required=r.required if r else None,
                side=r.side if r else None,
                linear_growth=s.growth_model == "linear" and t.growth_source == "fitted",
            )
        )
    return tuple(out)


def _member_load(grid: GridResult, partitions: int, scale: float) -> MemberLoadChart:
    curves = []
    for strategy in STRATEGIES:
        rows = grid.where(grid.strategy == strategy)
        order = np.argsort(rows.members, kind="stable")
        curves.append(
            MemberLoadCurve(
                strategy=strategy,
                members=tuple(int(m) for m in rows.members[order]),
                busiest_load=tuple(float(v) * scale for v in rows.max_load[order]),
            )
        )
    return MemberLoadChart(partitions, tuple(curves), grid.load_limit, _TODAY)


def _partition_load(
    plan: TopicPlan, history: TopicHistory, partitions: int, limit: float
) -> PartitionLoadChart | None:
    if not history.keyed or history.keys is None or history.key_counts is None:
        return None
    sample = TopicLoad(plan.utilisation_now, history.keys, history.key_counts, history.partitioner)
    loads = partition_loads(sample, partitions)
    hot = plan.hot_keys
    places = hot_key_partitions(hot, partitions, history.partitioner)
    marks = tuple(
        HotKeyMark(
            key=None if h.key is None else h.key.decode("utf-8", "backslashreplace"),
            partition=place,
            share=h.share,
        )
        for h, place in zip(hot, places, strict=True)
    )
    return PartitionLoadChart(tuple(float(v) for v in loads), marks, limit, _TODAY)


def _churn(grid: GridResult, partitions: int, members: int) -> ChurnChart | None:
    rows = grid.where(grid.members == members)
    if not len(rows):
        return None
    return ChurnChart(
        partitions=partitions,
        members=members,
        rows=tuple(
            ChurnRow(
                strategy=str(r["strategy"]),
                join_moved=r["grow_moved"],
                join_revoked=r["grow_revoked"],
                leave_moved=r["shrink_moved"],
                leave_revoked=r["shrink_revoked"],
            )
            # The order the pipeline's report gives them (`from_outputs`), whatever the
            # grid's.
            for r in sorted(rows, key=lambda r: _strategy_rank(str(r["strategy"])))
        ),
    )


def _strategy_rank(strategy: str) -> tuple[int, str]:
    # The classic four in `STRATEGIES`' order, then the others by name.
    return (
        (STRATEGIES.index(strategy), "") if strategy in STRATEGIES else (len(STRATEGIES), strategy)
    )


def _coded(notes: Sequence[Note]) -> tuple[CodedNote, ...]:
    return tuple(CodedNote(**n.as_row()) for n in notes)


def _group(g: GroupPlan, topic: str) -> GroupReport:
    return GroupReport(
        group_id=g.group_id,
        topics=(topic,),
        current_strategy=g.current_strategy,
        strategy=g.strategy,
        current_members=g.current_members,
        recommended_members=g.recommended_members,
        members_now=g.members_now,
        members_at_horizon=g.members_at_horizon,
        busiest_utilisation=g.busiest_utilisation if math.isfinite(g.busiest_utilisation) else None,
        status=g.status,
        notes=tuple(texts(g.notes)),
        notes_coded=_coded(g.notes),
        standby_members=g.standby_members,
        protocol=g.protocol,
        planned_as=g.planned_as or None,
        consumer_capacity=(
            None
            if g.consumer_capacity is None
            else GroupCapacityReport(**dataclasses.asdict(g.consumer_capacity))
        ),
        lag=None if g.lag is None else GroupLagReport(**dataclasses.asdict(g.lag)),
        cross_zone=_cross_zone(cross_zone_record(g.cross_zone, g.cross_zone_advice)),
    )


def _cross_zone(record: Mapping[str, Any] | None) -> CrossZoneReport | None:
    # The same record the jobs write (`planner.cross_zone.cross_zone_record`), so both
    # paths into the report read it alike.
    return None if record is None else CrossZoneReport.from_json_dict(record)


def _consumers(plan: TopicPlan, single: GroupPlan) -> dict[str, Any]:
    # The core's choice (`TopicPlan.consumers`), as the job publishes it.
    choice = plan.consumers
    assert choice is not None
    return {
        "recommended_consumers": choice.members,
        "strategy": choice.strategy,
        "consumers_group": choice.group_id,
        "standby_consumers": choice.standby_members or 0,
        "groups_with_plan": choice.groups_with_plan,
        "one_group_consumers": single.members_now,
    }


def from_topic_plan(
    plan: TopicPlan,
    history: TopicHistory,
    *,
    settings: PlanSettings | None = None,
    capacity_scope: CapacityScope = "topic",
    capacity_source: str | None = None,
    rejected_rows: int = 0,
) -> TopicReport:
    """The report of one topic from its plan and the history it was planned on.

    Args:
        plan: `plan_topic`'s result.
        history: The `TopicHistory` given to `plan_topic` (for the throughput chart,
            the growth fit's description and the key sample).
        settings: The `PlanSettings` given to `plan_topic` (defaults when None).
        capacity_scope: Whether Tp/Tc came from the topic's own capacity row (`topic`)
            or the `*` default row.
        capacity_source: Where Tp/Tc were measured, in words.
        rejected_rows: Input rows of this topic the row checks kept out.
    """
    s = settings or PlanSettings()
    p = plan.recommended_partitions
    grid = plan.grid.where(plan.grid.partitions == p)
    horizon = plan.utilisation_at_horizon
    scale_now = plan.utilisation_now / horizon if horizon > 0 else 0.0
    # What a group reading only this topic that runs no member yet needs (the core's).
    single = plan.one_group
    assert single is not None
    groups = tuple(_group(g, plan.topic) for g in plan.groups)
    history_series = ThroughputHistory(
        ts_s=tuple(float(t) for t in np.asarray(history.ts_s, dtype=np.float64).tolist()),
        mib_in=_optional_series(history.mib_in),
        records_in=_optional_series(history.records_in),
    )
    return TopicReport(
        topic=plan.topic,
        status=plan.status,
        current_partitions=plan.choice.current,
        required_partitions_now=plan.choice.required_now,
        required_partitions=plan.choice.required,
        recommended_partitions=p,
        **_consumers(plan, single),
        deciding=Deciding(plan.sizing.deciding_dimension, plan.sizing.deciding_side),  # type: ignore[arg-type]
        keyed=history.keyed,
        partitioner=history.partitioner,
        replication_factor=history.replication_factor,
        capacity_source=capacity_source,
        dimensions=_dimensions(plan, history, s, capacity_scope),
        candidates=tuple(Candidate(n, sizes, n == p) for n, sizes in plan.choice.candidates),
        choice_reason=plan.choice.reason,
        rationale=plan.rationale,
        cost=CostPanel(
            **{**dataclasses.asdict(plan.cost), "warnings": tuple(texts(plan.cost.warnings))}
        ),
        warnings=tuple(texts(plan.warnings)),
        warnings_coded=_coded(plan.warnings),
        alternatives=tuple(texts(plan.alternatives)),
        alternatives_coded=_coded(plan.alternatives),
        groups=groups,
        history=history_series if history_series.ts_s else None,
        member_load=_member_load(grid, p, scale_now),
        partition_load=_partition_load(plan, history, p, grid.load_limit),
        churn=_churn(grid, p, single.members_now),
        rejected_rows=rejected_rows,
    )
