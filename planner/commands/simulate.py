"""`partition-planner simulate`: consumer groups over candidate partition counts."""

from __future__ import annotations

import argparse
from typing import Any

from planner.choices import DEFAULT_PARTITIONER
from planner.commands import common


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate consumer-group assignments for candidate partition counts",
        description=(
            "For each partition count, group size and strategy: the busiest member's load "
            "as a share of one consumer's capacity (Tc), idle members, whether the busiest "
            "member keeps its headroom, and the partitions moved and revoked when one "
            "member joins or leaves."
        ),
    )
    p.add_argument("--partitions", type=common.int_list, required=True, help="e.g. 12,24,48")
    p.add_argument("--members", type=common.int_list, help="group sizes, e.g. 1-16 (default 1..P)")
    p.add_argument(
        "--strategies",
        default="range,roundrobin,sticky,cooperative-sticky",
        help=(
            "comma-separated: Kafka's client strategies, and the broker's as "
            "consumer:uniform, consumer:range (KIP-848) and share:simple (KIP-932; give "
            "--members beyond the partitions to see shared partitions)"
        ),
    )
    p.add_argument("--load-mib", type=common.non_negative, help="topic load, MiB/s")
    p.add_argument("--tc-mib", type=common.positive, help="Tc, MiB/s per consumer")
    p.add_argument("--load-records", type=common.non_negative, help="topic load, records/s")
    p.add_argument("--tc-records", type=common.positive, help="Tc, records/s per consumer")
    p.add_argument(
        "--headroom-pct",
        type=common.non_negative,
        default=30.0,
        help="headroom each member keeps: load x (1 + h) <= Tc (default 30)",
    )
    p.add_argument("--key-sample", help="CSV with key (or key_hex) and count columns")
    p.add_argument("--partitioner", default=DEFAULT_PARTITIONER, help="librdkafka partitioner name")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def _utilisation(args: argparse.Namespace) -> float:
    pairs = [("--load-mib", args.load_mib, "--tc-mib", args.tc_mib)]
    pairs.append(("--load-records", args.load_records, "--tc-records", args.tc_records))
    ratios = []
    for load_flag, load, tc_flag, tc in pairs:
        if (load is None) != (tc is None):
            given, missing = (load_flag, tc_flag) if tc is None else (tc_flag, load_flag)
            raise common.UsageError(f"{given} needs {missing}")
        if load is not None and tc is not None:
            ratios.append(load / tc)
    if not ratios:
        raise common.UsageError(
            "give --load-mib with --tc-mib, or --load-records with --tc-records"
        )
    return float(max(ratios))


def run(args: argparse.Namespace) -> int:
    from planner.fit import member_headroom_pct
    from planner.partitioners import PARTITIONERS
    from planner.simulate import ALL_STRATEGIES, TopicLoad, simulate_grid

    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in ALL_STRATEGIES]
    if unknown or not strategies:
        raise common.UsageError(
            f"--strategies: unknown {', '.join(unknown) or '(none)'}; "
            f"use {', '.join(ALL_STRATEGIES)}"
        )
    if args.partitioner not in PARTITIONERS:
        raise common.UsageError(
            f"--partitioner: unknown {args.partitioner!r}; use {', '.join(PARTITIONERS)}"
        )
    if args.headroom_pct >= 100:
        raise common.UsageError("--headroom-pct must be below 100")
    load = _utilisation(args)
    keys = counts = None
    if args.key_sample:
        from planner.adapters.key_sample import KeySampleError, read_key_sample

        try:
            keys, counts = read_key_sample(args.key_sample)
        except KeySampleError as exc:
            raise common.UsageError(f"--key-sample: {exc}") from None
    topic = TopicLoad(load, keys, counts, args.partitioner)
    extra = max(0, max(args.members or [0]) - min(args.partitions))
    grid = simulate_grid(
        topic,
        consumer_capacity=1.0,
        keep_free_pct=member_headroom_pct(args.headroom_pct),
        partition_counts=args.partitions,
        strategies=strategies,
        extra_members=extra,
    )
    if args.members:
        grid = grid.where(_isin(grid.members, args.members))
    else:
        grid = grid.where(grid.members <= grid.partitions)
    if args.json:
        common.print_json(
            {
                "load_in_consumers": load,
                "busiest_member_limit": grid.load_limit,
                "hot_keys": [
                    {
                        "key": h.key.decode("utf-8", "backslashreplace") if h.key else None,
                        "share": h.share,
                        "consumers": h.rate,
                    }
                    for h in grid.hot_keys
                ],
                "rows": grid.rows(),
            }
        )
        return 0
    print(_table(grid, load))
    return 0


def _isin(values: Any, wanted: list[int]) -> Any:
    import numpy as np

    return np.isin(values, np.asarray(wanted))


def _table(grid: Any, load: float) -> str:
    lines = [
        f"Topic load: {load:.2f} consumers' worth; a member may carry at most "
        f"{grid.load_limit:.0%} of one consumer (Tc).",
        f"{'P':>5} {'C':>5} {'strategy':<19} {'busiest':>8} {'least':>7} {'imbal':>6} "
        f"{'idle':>5} {'fits':>4} {'join mv/rv':>11} {'leave mv/rv':>12}",
    ]
    for r in grid.rows():
        lines.append(
            f"{r['partitions']:>5} {r['members']:>5} {r['strategy']:<19} "
            f"{r['max_load']:>8.0%} {r['min_load']:>7.0%} {r['imbalance']:>6.2f} "
            f"{r['idle_members']:>5} {'yes' if r['within_capacity'] else 'NO':>4} "
            f"{r['grow_moved']:>5}/{r['grow_revoked']:<5} "
            f"{r['shrink_moved']:>6}/{r['shrink_revoked']:<5}"
        )
    for h in grid.hot_keys:
        name = h.key.decode("utf-8", "backslashreplace") if h.key else "null"
        lines.append(f"! hot key {name!r}: {h.share:.1%} of records, {h.rate:.0%} of one consumer")
    return "\n".join(lines)
