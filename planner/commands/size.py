"""`partition-planner size`: the sizing rule and the cost panel, from flags."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from planner.commands import common
from planner.cost import ClusterShape, CostSettings, partition_cost
from planner.growth import GrowthFit
from planner.notes import Note, note
from planner.recommend.partitions import PartitionChoice, choose_partitions
from planner.recommend.types import PlanSettings
from planner.render.text import render_cost
from planner.sizing import (
    DEFAULT_HEADROOM_PCT,
    DEFAULT_HORIZON_DAYS,
    DIMENSION_LABELS,
    SideCapacity,
    planning_target,
    side_words,
    size_topic,
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "size",
        help="partitions needed for a throughput, and what they cost",
        description=(
            "Apply partitions >= max(Tt/Tp, Tt/Tc) to every dimension given, where Tt is "
            "the peak grown over the horizon plus headroom, and print the cost panel."
        ),
    )
    load = p.add_argument_group("observed peak (at least one)")
    load.add_argument("--mib-per-s", type=common.non_negative, help="peak MiB/s into the topic")
    load.add_argument("--records-per-s", type=common.non_negative, help="peak records/s in")
    load.add_argument(
        "--mib-out-per-s", type=common.non_negative, help="peak MiB/s one consuming group reads"
    )
    cap = p.add_argument_group("single-partition capacity (Tp producer, Tc consumer)")
    cap.add_argument("--tp-mib", type=common.positive, help="Tp in MiB/s")
    cap.add_argument("--tp-records", type=common.positive, help="Tp in records/s")
    cap.add_argument("--tc-mib", type=common.positive, help="Tc in MiB/s, processing included")
    cap.add_argument("--tc-records", type=common.positive, help="Tc in records/s")
    plan = p.add_argument_group("planning")
    plan.add_argument("--headroom-pct", type=common.non_negative, default=DEFAULT_HEADROOM_PCT)
    plan.add_argument(
        "--growth-per-year", type=common.growth_fraction, default=0.0, help="0.5 = +50 %%/year"
    )
    plan.add_argument("--horizon-days", type=common.non_negative, default=DEFAULT_HORIZON_DAYS)
    plan.add_argument(
        "--evenness-slack-pct",
        type=common.non_negative,
        default=PlanSettings().evenness_slack_pct,
        help="how far above the requirement (%%) to look for a count that splits evenly over "
        "more group sizes, as `plan` does (0: the requirement itself)",
    )
    topic = p.add_argument_group("topic and cluster")
    topic.add_argument("--current-partitions", type=common.whole(1))
    topic.add_argument("--keyed", action="store_true", help="records carry keys")
    topic.add_argument("--brokers", type=common.whole(1), default=3)
    topic.add_argument("--replication-factor", type=common.whole(1), default=3)
    topic.add_argument("--existing-replicas-per-broker", type=common.whole(0), default=0)
    topic.add_argument("--retention-ms", type=common.whole(1))
    costs = p.add_argument_group("cost model settings")
    costs.add_argument("--batch-size", type=common.whole(1), default=16_384, help="bytes")
    costs.add_argument("--buffer-memory", type=common.whole(1), default=33_554_432, help="bytes")
    costs.add_argument("--max-replicas-per-broker", type=common.whole(1), default=4_000)
    costs.add_argument("--election-ms-per-partition", type=common.non_negative, default=5.0)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    peaks = {
        "mib_in": args.mib_per_s,
        "records_in": args.records_per_s,
        "mib_out": args.mib_out_per_s,
    }
    peaks = {k: v for k, v in peaks.items() if v is not None}
    if not peaks:
        raise common.UsageError(
            "give at least one of --mib-per-s, --records-per-s, --mib-out-per-s"
        )
    flags = {"mib_in": "--mib-per-s", "records_in": "--records-per-s", "mib_out": "--mib-out-per-s"}
    for dim in peaks:
        unit_ok = (
            (args.tp_mib or args.tc_mib)
            if dim.startswith("mib")
            else (args.tp_records or args.tc_records)
        )
        if not unit_ok:
            need = "--tp-mib/--tc-mib" if dim.startswith("mib") else "--tp-records/--tc-records"
            raise common.UsageError(f"{flags[dim]} needs a capacity in the same unit: {need}")
    if args.replication_factor > args.brokers:
        raise common.UsageError(
            f"--replication-factor {args.replication_factor} is larger than --brokers "
            f"{args.brokers} (Kafka refuses to create such a topic)"
        )

    growth = GrowthFit("none", 0.0, 0, "growth given on the command line")
    targets = {
        dim: planning_target(
            peak,
            growth,
            horizon_days=args.horizon_days,
            floor_growth_per_year=args.growth_per_year,
            headroom_pct=args.headroom_pct,
        )
        for dim, peak in peaks.items()
    }
    sizing = size_topic(
        {dim: t.target for dim, t in targets.items()},
        SideCapacity(args.tp_mib, args.tp_records),
        SideCapacity(args.tc_mib, args.tc_records),
    )
    # The count is chosen as `plan` chooses it (evenness within the slack, never fewer
    # than today's), and the notes are the coded ones the report prints.
    settings = PlanSettings()
    choice = choose_partitions(
        sizing.required_partitions,
        args.current_partitions,
        evenness_slack_pct=args.evenness_slack_pct,
        max_partitions=settings.max_partitions,
    )
    recommended = choice.recommended
    cost = partition_cost(
        recommended,
        ClusterShape(args.brokers, args.replication_factor, args.existing_replicas_per_broker),
        CostSettings(
            batch_size_bytes=args.batch_size,
            buffer_memory_bytes=args.buffer_memory,
            max_replicas_per_broker=args.max_replicas_per_broker,
            election_ms_per_partition=args.election_ms_per_partition,
        ),
        retention_ms=args.retention_ms,
        bytes_in_per_s=(targets["mib_in"].target * 2**20) if "mib_in" in targets else None,
    )
    notes = _notes(args, choice)
    if args.json:
        common.print_json(
            {
                "targets": {d: asdict(t) for d, t in targets.items()},
                "sizing": asdict(sizing),
                "current_partitions": args.current_partitions,
                "recommended_partitions": recommended,
                "choice": {"status": choice.status, "reason": choice.reason},
                "cost": {
                    **asdict(cost),
                    "warnings": [w.text for w in cost.warnings],
                    "warnings_coded": [w.as_dict() for w in cost.warnings],
                },
                "notes": [n.text for n in notes],
                "notes_coded": [n.as_dict() for n in notes],
            }
        )
        return 0
    print(_render(targets, sizing, choice, cost, notes))
    return 0


def _notes(args: argparse.Namespace, choice: PartitionChoice) -> list[Note]:
    """The coded notes `plan` gives a topic for the same choice (`planner.notes`)."""
    if not args.keyed or choice.current is None or choice.recommended <= choice.current:
        return []
    return [
        note(
            "keyed-remap",
            current_partitions=choice.current,
            recommended_partitions=choice.recommended,
            required_now=choice.required_now,
        )
    ]


def _render(
    targets: Any, sizing: Any, choice: PartitionChoice, cost: Any, notes: list[Note]
) -> str:
    unit = DIMENSION_LABELS
    lines = ["Planned throughput (peak x growth over the horizon x headroom):"]
    for dim, t in targets.items():
        lines.append(
            f"  {unit[dim]:<16} {t.peak:>12,.2f} x {t.growth_factor:.3f} x "
            f"{1 + t.headroom_pct / 100:.2f} = {t.target:,.2f}"
        )
    lines.append("Partitions per dimension, ceil(target / capacity):")
    for r in sizing.requirements:
        tp = f"{r.producer_partitions} (Tp {r.producer_capacity:g})" if r.producer_capacity else "-"
        tc = f"{r.consumer_partitions} (Tc {r.consumer_capacity:g})" if r.consumer_capacity else "-"
        lines.append(f"  {unit[r.dimension]:<16} producer {tp:<22} consumer {tc}")
    lines.append(
        f"Required: {sizing.required_partitions} partitions "
        f"(decided by {unit[sizing.deciding_dimension]}, {side_words(sizing.deciding_side)})"
    )
    lines.append(f"Recommended: {choice.recommended} partitions ({choice.reason})")
    lines.extend(render_cost(cost))
    lines.extend(f"Note: {n.text}" for n in notes)
    return "\n".join(lines)
