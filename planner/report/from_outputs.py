"""Report model objects from the Spark jobs' output rows: the one path into the report.

`spark_jobs.simulate_assignments` writes a `recommendations` row per topic and
`simulations` rows per topic and candidate count; the figures carry a `rejected` table.
The pipeline reads those datasets, groups the rows per topic and hands them here as plain
mappings (what `pyarrow.Table.to_pylist()` gives), so this module reads no file and
imports no Spark: it only maps values.

For a planned topic the jobs run `plan_topic` and keep its numbers in columns, and the
charts are its grid rows (`planner.recommend.topic_grid`). Besides the plan, the rows say
what only the jobs know: Tp and Tc may come from different capacity rows
(`producer_scope`), the rationale adds where they came from and which group the
consumers are sized for, the warnings add those of multi-topic groups, and `groups`
includes the multi-topic groups. The growth method is told in words from the row's
growth source and days of history (the fit's own details are not in it). Tests take a
plan of their own through the jobs' code into here (`tests/support/report_path.py`), so
there is no second path to drift from this one.

Columns are `spark_jobs.schemas.RECOMMENDATIONS` and `SIMULATIONS` (docs/spark-jobs.md);
units as there: MiB/s, records/s, loads in consumers (1.0 = one consumer's capacity Tc).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from planner.choices import DEFAULT_PARTITIONER
from planner.cost import COST_FIELDS
from planner.protocols import DEFAULT_PROTOCOL
from planner.recommend import PlanSettings
from planner.report.model import (
    PLANNED_STATUSES,
    Candidate,
    ChurnChart,
    ChurnRow,
    CodedNote,
    CostPanel,
    CrossZoneReport,
    Deciding,
    DimensionArithmetic,
    FleetReport,
    GroupCapacityReport,
    GroupLagReport,
    GroupReport,
    HotKeyMark,
    MemberLoadChart,
    MemberLoadCurve,
    PartitionLoadChart,
    RejectedExample,
    RejectedSummary,
    ReportSettings,
    StandbysReport,
    ThroughputHistory,
    TopicReport,
    cluster_replicas,
)
from planner.simulate import STRATEGIES, HotKey, hot_key_partitions

__all__ = ["fleet_report", "rejected_summaries", "report_settings", "topic_report"]

Row = Mapping[str, Any]

_TODAY = "today's peak"
_DIMENSIONS = ("mib_in", "records_in", "mib_out")


def report_settings(planning: PlanSettings) -> ReportSettings:
    """The report's view of the planning settings a run used.

    Args:
        planning: The `PlanSettings` the jobs planned with (the config's `[planning]`).
    """
    return ReportSettings(
        percentile=planning.percentile,
        headroom_pct=planning.headroom_pct,
        horizon_days=planning.horizon_days,
        growth_model=planning.growth_model,
        floor_growth_per_year=planning.floor_growth_per_year,
        evenness_slack_pct=planning.evenness_slack_pct,
        max_partitions=planning.max_partitions,
        min_group_members=planning.min_group_members,
    )


def _coded(values: Iterable[Mapping[str, Any]] | None) -> tuple[CodedNote, ...]:
    # Outputs written before warnings had codes have no such field: none then.
    return tuple(CodedNote(v["code"], v["severity"], v["params"], v["text"]) for v in values or ())


def _texts(values: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(values or ())


def _finite(value: float | None) -> float | None:
    # A group no size fits has an infinite busiest load in the core; the report says
    # "unknown" rather than carry a number JSON cannot hold.
    return value if value is not None and math.isfinite(value) else None


# ---------------------------------------------------------------------------------------
# Capacities and the arithmetic per dimension


def _side_text(side: str, measured_by: str | None, scope: str | None) -> str:
    row = ", default row *" if scope == "*" else ""
    return f"{measured_by or 'an unnamed source'} ({side}{row})"


def _capacity_source(row: Row) -> str | None:
    tp = (row["tp_measured_by"], row["tp_source"])
    tc = (row["tc_measured_by"], row["tc_source"])
    if tp == tc:
        measured_by, scope = tc
        if measured_by is None and scope is None:
            return None
        return f"{measured_by or 'an unnamed source'}" + (
            " (default row *)" if scope == "*" else ""
        )
    parts = [
        _side_text(side, *where) if where != (None, None) else f"no {side}"
        for side, where in (("Tp", tp), ("Tc", tc))
    ]
    return " and ".join(parts)


def _growth_method(row: Row, dimension: str, s: PlanSettings) -> str:
    source = row[f"{dimension}_growth_source"]
    days = int(row["history_days"] or 0)
    span = f"{days:,} day{'' if days == 1 else 's'} of samples"
    if source == "fitted":
        return f"fitted ({s.growth_model}) on {span}"
    if source != "floor":
        return "not recorded"
    floor = f"the floor of {s.floor_growth_per_year:+.0%}/year"
    if s.growth_model == "none":
        return f"{floor}: growth fitting is off in the configuration"
    needed = max(2, s.min_growth_days)
    if days < needed:
        return f"{floor}: {span}, fewer than the {needed} needed to fit a trend"
    return f"{floor}: the trend fitted on {span} was below it"


def _capacity(row: Row, side: str, dimension: str) -> float | None:
    unit = "mib_per_s" if dimension.startswith("mib") else "records_per_s"
    value: float | None = row[f"{side}_{unit}"]
    return value


def _dimensions(row: Row, s: PlanSettings) -> tuple[DimensionArithmetic, ...]:
    out = []
    for dim in _DIMENSIONS:
        if row[f"{dim}_peak_per_s"] is None:
            continue
        required = row[f"{dim}_required_partitions"]
        # As the core's requirement: capacities only where the rule ran in this
        # dimension, and never Tp for one group's read rate.
        ran = required is not None
        tp = _capacity(row, "tp", dim) if ran and dim != "mib_out" else None
        tc = _capacity(row, "tc", dim) if ran else None
        tp_scope = row["tp_source"] if tp is not None else None
        tc_scope = row["tc_source"] if tc is not None else None
        scope = tc_scope or tp_scope
        out.append(
            DimensionArithmetic(
                dimension=dim,  # type: ignore[arg-type]
                peak=row[f"{dim}_peak_per_s"],
                growth_per_year=row[f"{dim}_growth_per_year"],
                growth_method=_growth_method(row, dim, s),
                growth_factor=row[f"{dim}_growth_factor"],
                grown=row[f"{dim}_grown_per_s"],
                headroom_pct=s.headroom_pct,
                target=row[f"{dim}_target_per_s"],
                producer_capacity=tp,
                consumer_capacity=tc,
                capacity_scope=scope,
                producer_partitions=row[f"{dim}_producer_partitions"] if ran else None,
                consumer_partitions=row[f"{dim}_consumer_partitions"] if ran else None,
                required=required,
                side=row[f"{dim}_side"] if ran else None,
                producer_scope=tp_scope if tp_scope != scope else None,
                linear_growth=s.growth_model == "linear"
                and row[f"{dim}_growth_source"] == "fitted",
            )
        )
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Groups, candidates, cost


def _group(g: Row) -> GroupReport:
    return GroupReport(
        group_id=g["group_id"],
        topics=_texts(g["topics"]),
        current_strategy=g["current_strategy"],
        strategy=g["strategy"],
        current_members=g["current_members"],
        recommended_members=g["recommended_members"],
        members_now=g["members_now"],
        members_at_horizon=g["members_at_horizon"],
        busiest_utilisation=_finite(g["busiest_utilisation"]),
        status=g["status"],
        notes=_texts(g["notes"]),
        notes_coded=_coded(g.get("notes_coded")),
        # Outputs written before standbys were planned have no such field: none then.
        standby_members=g.get("standby_members") or 0,
        # Nor a protocol before groups had one: they were all classic.
        protocol=g.get("protocol") or DEFAULT_PROTOCOL,
        planned_as=g.get("planned_as") or None,
        # Nor a Tc or lag of its own before groups had them.
        consumer_capacity=_consumer_capacity(g.get("consumer_capacity")),
        lag=GroupLagReport(**g["lag"]) if g.get("lag") else None,
        # Nor a cross-zone figure before groups had one.
        cross_zone=CrossZoneReport.from_json_dict(g["cross_zone"]) if g.get("cross_zone") else None,
        # Nor standbys before Streams groups had them.
        standbys=StandbysReport.from_json_dict(g["standbys"]) if g.get("standbys") else None,
    )


def _consumer_capacity(row: Row | None) -> GroupCapacityReport | None:
    return None if not row else GroupCapacityReport(**row)


def _candidates(row: Row) -> tuple[Candidate, ...]:
    # The counts the choice considered (`PartitionChoice.candidates`); the others in the
    # column (current, required now) are there because the jobs simulate them.
    return tuple(
        Candidate(c["partitions"], tuple(c["even_group_sizes"] or ()), bool(c["is_recommended"]))
        for c in sorted(row["candidates"] or (), key=lambda c: int(c["partitions"]))
        if c["considered"]
    )


def _cost(row: Row, partitions: int) -> CostPanel:
    return CostPanel(
        partitions=partitions,
        **{name: row[f"cost_{name}"] for name in COST_FIELDS},
        warnings=_texts(row["cost_warnings"]),
    )


# ---------------------------------------------------------------------------------------
# Charts from the simulation rows


def _strategy_order(strategies: Iterable[str]) -> list[str]:
    present = set(strategies)
    return [s for s in STRATEGIES if s in present] + sorted(present - set(STRATEGIES))


def _member_load(rows: Sequence[Row], partitions: int, scale: float) -> MemberLoadChart | None:
    if not rows:
        return None
    by_strategy: dict[str, list[tuple[int, float]]] = {}
    for r in rows:
        by_strategy.setdefault(r["strategy"], []).append((int(r["members"]), r["max_load"]))
    curves = []
    for strategy in _strategy_order(by_strategy):
        points = sorted(by_strategy[strategy])
        curves.append(
            MemberLoadCurve(
                strategy=strategy,
                members=tuple(m for m, _ in points),
                busiest_load=tuple(load * scale for _, load in points),
            )
        )
    return MemberLoadChart(partitions, tuple(curves), rows[0]["load_limit"], _TODAY)


def _churn(rows: Sequence[Row], partitions: int, members: int | None) -> ChurnChart | None:
    at = {
        r["strategy"]: r
        for r in rows
        if r["members"] == members and r["grow_moved"] is not None and r["shrink_moved"] is not None
    }
    if not at:
        return None
    return ChurnChart(
        partitions=partitions,
        members=int(members or 0),
        rows=tuple(
            ChurnRow(
                strategy=s,
                join_moved=at[s]["grow_moved"],
                join_revoked=at[s]["grow_revoked"],
                leave_moved=at[s]["shrink_moved"],
                leave_revoked=at[s]["shrink_revoked"],
            )
            for s in _strategy_order(at)
        ),
    )


def _hot_key(hot: Row) -> HotKey:
    key: bytes | None
    if hot["key_hex"] is not None:
        key = bytes.fromhex(hot["key_hex"])
    else:
        text: str | None = hot["key"]
        key = None if text is None else text.encode("utf-8")
    return HotKey(key, hot["partitions_worth"], hot["share"], hot.get("hash"))


def _partition_load(
    row: Row, partitions: int, scale: float, limit: float
) -> PartitionLoadChart | None:
    if not row["keyed"]:
        return None
    entry = next((e for e in row["partition_loads"] or () if e["partitions"] == partitions), None)
    if entry is None:  # keyed without a key sample: an even spread, nothing to show
        return None
    hot_keys = list(row["hot_keys"] or ())
    partitioner = row["partitioner"] or DEFAULT_PARTITIONER
    # The row keeps each hot key's bytes; where it lands at the recommended count is the
    # partitioner's answer (`hot_key_partitions`).
    places = hot_key_partitions([_hot_key(h) for h in hot_keys], partitions, partitioner)
    marks = tuple(
        HotKeyMark(key=h["key"], partition=place, share=h["share"])
        for h, place in zip(hot_keys, places, strict=True)
    )
    # The loads are at the end of the horizon; the chart is at today's peak.
    loads = tuple(float(v) * scale for v in entry["loads"] or ())
    return PartitionLoadChart(loads, marks, limit, _TODAY)


def _recommended_rows(topic: str, simulations: Sequence[Row], partitions: int) -> list[Row]:
    rows = []
    for r in simulations:
        if r["scope"] != "topic" or r["topic"] != topic:
            # Another topic's rows, or a multi-topic group's, would silently skew the
            # charts: the caller grouped the dataset wrongly.
            raise ValueError(
                f"topic {topic!r}: simulation row of scope {r['scope']!r} for topic "
                f"{r['topic']!r} among its rows"
            )
        if r["partitions"] == partitions:
            rows.append(r)
    return rows


# ---------------------------------------------------------------------------------------
# The topic, the rejected rows, the fleet


def topic_report(
    recommendation: Row,
    simulations: Sequence[Row],
    *,
    history: ThroughputHistory | None,
    settings: PlanSettings,
    rejected_rows: int = 0,
) -> TopicReport:
    """The report of one topic from its `recommendations` row and its simulation rows.

    Args:
        recommendation: The topic's row of the `recommendations` dataset (every column
            of `spark_jobs.schemas.RECOMMENDATIONS`).
        simulations: Its rows of the `simulations` dataset with scope `topic`, any
            order; empty for a topic without a plan.
        history: Its throughput samples (MiB/s and records/s in), None if it has none.
        settings: The planning settings the jobs used.
        rejected_rows: Input rows of this topic the row checks kept out.

    Returns:
        For a planned topic (`ok`, `plan-increase`, `increase`), what the core's plan
        says, with its charts; for any other status, the facts
        known, the peaks and targets if measured, the groups (`unplanned`) and the reason
        (`status_detail`) as `error`.

    Raises:
        ValueError: a value the report model refuses, or a simulation row of another
            topic; the message names the topic.
    """
    row = recommendation
    topic: str = row["topic"]
    status: str = row["status"]
    known: dict[str, Any] = {
        "topic": topic,
        "status": status,
        "current_partitions": row["current_partitions"],
        "keyed": bool(row["keyed"]),
        "partitioner": row["partitioner"] or DEFAULT_PARTITIONER,
        "replication_factor": row["replication_factor"],
        "capacity_source": _capacity_source(row),
        "dimensions": _dimensions(row, settings),
        "rationale": _texts(row["rationale"]),
        "warnings": _texts(row["warnings"]),
        "warnings_coded": _coded(row.get("warnings_coded")),
        "alternatives": _texts(row.get("alternatives")),
        "alternatives_coded": _coded(row.get("alternatives_coded")),
        "groups": tuple(_group(g) for g in row["groups"] or ()),
        "history": history if history is not None and history.ts_s else None,
        "rejected_rows": rejected_rows,
    }
    if status not in PLANNED_STATUSES:
        return TopicReport(**known, error=row["status_detail"] or f"not planned ({status})")

    p: int = row["recommended_partitions"]
    sims = _recommended_rows(topic, simulations, p)
    horizon = row["consumers_at_horizon"] or 0.0
    # The grid is at the end of the horizon; the charts are at today's peak, and loads
    # scale linearly with the topic's load.
    scale_now = row["consumers_now"] / horizon if horizon > 0 else 0.0
    # What the grid's rows carry; computed as the jobs do when there are none.
    limit = sims[0]["load_limit"] if sims else settings.member_load_limit
    # The charts are for one group reading only this topic (the plan's `one_group`);
    # the headline is the row's answer (the largest group with a plan).
    members = row["one_group_members"]
    return TopicReport(
        **known,
        required_partitions_now=row["required_partitions_now"],
        required_partitions=row["required_partitions"],
        recommended_partitions=p,
        recommended_consumers=row["recommended_consumers"],
        strategy=row["strategy"],
        consumers_group=row["consumers_group_id"],
        standby_consumers=row.get("standby_consumers") or 0,
        groups_with_plan=sum(1 for g in known["groups"] if g.recommended_members is not None),
        one_group_consumers=members,
        deciding=Deciding(row["deciding_dimension"], row["deciding_side"]),
        candidates=_candidates(row),
        choice_reason=row["choice_reason"],
        cost=_cost(row, p),
        member_load=_member_load(sims, p, scale_now),
        partition_load=_partition_load(row, p, scale_now, limit),
        churn=_churn(sims, p, members),
    )


def rejected_summaries(
    rows: Iterable[Mapping[str, Any]], *, examples: int = 5
) -> tuple[RejectedSummary, ...]:
    """Rejected input rows counted per table, with the first few of each.

    Args:
        rows: Rows of the figures' `rejected` table (`table, source, row, field, value,
            reason`; `planner.figures.schema.REJECTED`), in the order it lists them.
        examples: How many rows to keep per table as examples (>= 0).

    Returns:
        One summary per table, sorted by table name.
    """
    if examples < 0:
        raise ValueError(f"examples must be zero or above, got {examples}")
    counts: dict[str, int] = {}
    firsts: dict[str, list[RejectedExample]] = {}
    for r in rows:
        table = r["table"]
        counts[table] = counts.get(table, 0) + 1
        kept = firsts.setdefault(table, [])
        if len(kept) < examples:
            kept.append(
                RejectedExample(
                    source=r["source"],
                    row=r.get("row"),
                    field=r.get("field"),
                    value=r.get("value"),
                    reason=r["reason"],
                )
            )
    return tuple(RejectedSummary(t, counts[t], tuple(firsts[t])) for t in sorted(counts))


def fleet_report(
    topics: Iterable[TopicReport],
    *,
    run_key: str,
    interval_start: datetime,
    interval_end: datetime,
    generated_at: datetime,
    settings: ReportSettings,
    rejected: Sequence[RejectedSummary] = (),
    input_rows: Mapping[str, int] | None = None,
    data_docs_path: str | None = None,
    brokers: int | None = None,
) -> FleetReport:
    """One run's report from its topics' reports.

    Args:
        topics: One report per topic (any order; names unique).
        run_key: The run's key (`20261121T0000Z`).
        interval_start: Start of the data interval (aware UTC, inclusive).
        interval_end: End of the data interval (aware UTC, exclusive).
        generated_at: When the report was made (aware UTC): passed in, so that a rerun
            of the same run can give the same report.
        settings: The planning settings of the run (see `report_settings`).
        rejected: Rejected input rows per table (see `rejected_summaries`).
        input_rows: Rows read per input table, accepted and rejected.
        data_docs_path: Relative link to the GX Data Docs published with the site.
        brokers: The cluster's brokers, for a run of the whole fleet: the report then
            adds up every topic's replicas per broker (`ClusterReplicas`). None for a
            run that does not see every topic (a new topic planned by hand).

    Raises:
        ValueError: a topic twice, a bad interval or link (`FleetReport`'s checks).
    """
    ordered = tuple(sorted(topics, key=lambda t: t.topic))
    return FleetReport(
        run_key=run_key,
        interval_start=interval_start,
        interval_end=interval_end,
        generated_at=generated_at,
        settings=settings,
        # Sorted so that the same rows in another order give the same site.
        topics=ordered,
        rejected=tuple(rejected),
        input_rows=dict(input_rows or {}),
        data_docs_path=data_docs_path,
        cluster=None if brokers is None else cluster_replicas(ordered, brokers),
    )
