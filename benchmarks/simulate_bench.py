"""Benchmark: the full planning grid of planner.simulate for one topic.

Grid: partition counts 12, 24, 48, 96, 192; every group size 1..P; the four classic
strategies (range, roundrobin, sticky, cooperative-sticky), then each of the consumer
protocol's and share groups' (consumer:uniform, consumer:range, share:simple) alone and
all seven together, warm and with the per-count layouts not cached yet; member loads,
imbalance, capacity check, churn (one member joining, one leaving) and its costs. That
is 372 (P, C) pairs x 4 classic strategies = 1,488 rows. Two topics: a keyless one
(uniform loads) and a keyed one whose loads come from a 100,000-key Zipf sample hashed
with murmur2 once per partition count.

Reference: Kafka 4.4.0's own Java assignors timed now, in a warm JVM, on the *bare
assignments* of the three-strategy grid (range, roundrobin, sticky: 372 x 3 = 1,116
assignments; `assignors_bench.time_java`, best of `--java-repeat`). The simulation computes
more than that (loads, churn, a fourth strategy), from closed forms instead of assignments.
`--no-java` skips the JVM (no ratio then).

Usage:
    .venv/bin/python benchmarks/simulate_bench.py [--runs N] [--json] [--assign-baseline]
        [--no-java] [--java-repeat N]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.simulate import (
    ALL_STRATEGIES,
    PLANNING_GRID,
    STRATEGIES,
    TopicLoad,
    simulate_grid,
)
from planner.simulate import grid as grid_module

JAVA_ASSIGNMENTS = 1_116
KEYS = 100_000
ZIPF_EXPONENT = 1.1
TOPIC_MIB_PER_S = 100.0
CONSUMER_MIB_PER_S = 10.0
HEADROOM_PCT = 20.0


def zipf_topic() -> TopicLoad:
    """100,000 distinct keys whose counts follow Zipf's law (count ~ 1 / rank^1.1)."""
    ranks = np.arange(1, KEYS + 1, dtype=np.float64)
    counts = np.round(1e7 / ranks**ZIPF_EXPONENT) + 1.0
    keys = [f"customer-{i:06d}".encode() for i in range(KEYS)]
    return TopicLoad(TOPIC_MIB_PER_S, keys=keys, key_counts=counts)


def median_ms(fn: Callable[[], object], runs: int, warmup: int = 3) -> tuple[float, list[float]]:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), times


def grid(topic: TopicLoad, strategies: tuple[str, ...] = STRATEGIES) -> object:
    return simulate_grid(
        topic,
        consumer_capacity=CONSUMER_MIB_PER_S,
        keep_free_pct=HEADROOM_PCT,
        partition_counts=PLANNING_GRID,
        strategies=strategies,
    )


def cold_grid(topic: TopicLoad, strategies: tuple[str, ...]) -> object:
    """The grid with the per-(P, sizes) layouts forgotten: what the first topic of a
    partition count pays (the layouts are then reused by every later topic)."""
    grid_module._LAYOUTS.clear()
    return grid(topic, strategies)


def assign_baseline_ms() -> float:
    """Bare assignments of the three-strategy grid with planner.assignors (one run)."""
    from planner.assignors import assign

    start = time.perf_counter()
    for p in PLANNING_GRID:
        for c in range(1, p + 1):
            subs = {f"consumer-{i:03d}": ["t"] for i in range(c)}
            for strategy in ("range", "roundrobin", "sticky"):
                assign(strategy, {"t": p}, subs)
    return (time.perf_counter() - start) * 1e3


def java_bare_assignments_ms(repeat: int) -> float | None:
    """Kafka's range, roundrobin and sticky on the grid, warm JVM, ms (None: no Kafka)."""
    from benchmarks.assignors_bench import STRATEGIES as BARE
    from benchmarks.assignors_bench import time_java

    seconds = time_java(repeat)
    return None if seconds is None else sum(seconds[s] for s in BARE) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25, help="timed runs (median reported)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--assign-baseline",
        action="store_true",
        help="also time the bare assignments through planner.assignors.assign",
    )
    parser.add_argument("--no-java", action="store_true", help="skip Kafka's assignors (no JVM)")
    parser.add_argument("--java-repeat", type=int, default=5, help="Kafka's timed rounds (best)")
    args = parser.parse_args(argv)
    java_ms = None if args.no_java else java_bare_assignments_ms(args.java_repeat)

    keyless = TopicLoad(TOPIC_MIB_PER_S)
    keyed = zipf_topic()
    # Building the keyed topic (keys copied into Arrow once, distinct check) is paid once
    # per sample, not per grid; timed apart, warm (the first call also imports pyarrow).
    keyed_setup_ms, _ = median_ms(zipf_topic, max(3, args.runs // 5), warmup=1)
    rows = len(simulate_grid(keyless, consumer_capacity=CONSUMER_MIB_PER_S))

    result: dict[str, Any] = {
        "grid": {
            "partition_counts": list(PLANNING_GRID),
            "group_sizes": "1..P",
            "strategies": list(STRATEGIES),
            "rows": rows,
            "churn": "grow and shrink by one member",
        },
        "runs": args.runs,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
    }
    for name, topic in (("keyless", keyless), ("keyed_zipf_100k", keyed)):
        total, times = median_ms(partial(grid, topic), args.runs)
        per_strategy = {
            s: median_ms(partial(grid, topic, (s,)), args.runs)[0] for s in ALL_STRATEGIES
        }
        every, _ = median_ms(partial(grid, topic, ALL_STRATEGIES), args.runs)
        cold = {
            s: median_ms(partial(cold_grid, topic, (s,)), max(3, args.runs // 5))[0]
            for s in ALL_STRATEGIES
        }
        result[name] = {
            "full_grid_ms": round(total, 3),
            "min_ms": round(min(times), 3),
            "per_strategy_ms": {s: round(v, 3) for s, v in per_strategy.items()},
            "all_seven_strategies_ms": round(every, 3),
            "cold_layout_per_strategy_ms": {s: round(v, 3) for s, v in cold.items()},
            "ratio_to_java": round(total / java_ms, 3) if java_ms else None,
        }
    result["keyed_zipf_100k"]["topic_setup_ms"] = round(keyed_setup_ms, 3)
    result["java_reference"] = {
        "bare_assignments_ms": round(java_ms, 2) if java_ms else None,
        "assignments": JAVA_ASSIGNMENTS,
        "note": "Kafka 4.4.0's range, roundrobin and sticky assignors, warm JVM, measured now",
    }
    if args.assign_baseline:
        result["python_assign_baseline_ms"] = round(assign_baseline_ms(), 1)

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"planning grid: P in {list(PLANNING_GRID)}, C in 1..P, {len(STRATEGIES)} strategies,")
    print(f"  {rows} rows, loads + imbalance + capacity + grow/shrink churn")
    print(f"  median of {args.runs} runs after 3 warm-up runs (Python {result['python']})")
    for name in ("keyless", "keyed_zipf_100k"):
        r = result[name]
        print(f"\n{name}: full grid {r['full_grid_ms']:.2f} ms (min {r['min_ms']:.2f} ms)")
        for s, v in r["per_strategy_ms"].items():
            cold = r["cold_layout_per_strategy_ms"][s]
            print(f"  {s:<20} {v:8.2f} ms   (layouts not cached yet: {cold:.2f} ms)")
        print(f"  all {len(ALL_STRATEGIES)} strategies    {r['all_seven_strategies_ms']:8.2f} ms")
        if java_ms:
            print(
                f"  vs Kafka's bare assignments {java_ms:.1f} ms "
                f"({JAVA_ASSIGNMENTS:,} assignments, warm JVM): ratio {r['ratio_to_java']:.3f}"
            )
    print(
        "\nkeyed topic set-up, once per sample (100,000 keys generated, copied into Arrow, "
        f"distinct check): {keyed_setup_ms:.1f} ms"
    )
    if args.assign_baseline:
        print(
            "bare assignments through planner.assignors.assign (1,116, one run): "
            f"{result['python_assign_baseline_ms']:.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
