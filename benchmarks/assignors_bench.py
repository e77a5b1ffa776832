"""Benchmark: planner.assignors.assign() against kafka-python's and Kafka's own assignors.

The grid for one topic: partition counts 12, 24, 48, 96, 192 and every group size
1..P, fresh group, strategies range, roundrobin and sticky (1,116 assignments). Our side
and kafka-python's run in this process; kafka-python's inputs (fake cluster, decoded
JoinGroup members, assignor instances) are built before its clock starts, ours are the
plain dicts ``assign`` takes. Kafka 4.4.0's own Java assignors run the same grid in one
warm JVM (the tests' oracle program, ``tests/oracle``, with both JIT tiers), their inputs
(Cluster, GroupSubscription) built before the clock starts, best of N after warm-up
rounds. Also timed: the grid with cooperative-sticky, and a "grow by one member"
rebalance per size (previous = the sticky assignment of C members, one member joins) for
sticky and cooperative-sticky.

The broker-side assignors of Kafka 4 (``protocol="consumer"``: ``uniform``, ``range``;
``protocol="share"``: ``simple``) run the same grid, with the topic id the Java side uses,
against Kafka 4.4.0's own ``UniformAssignor``, ``RangeAssignor`` and ``SimpleAssignor`` in
the same warm JVM, fresh and grown by one member (previous = the target assignment of C
members). kafka-python has none of them (it speaks the classic protocol only).

Run: ``.venv/bin/python benchmarks/assignors_bench.py [--json] [--repeat N] [--no-java]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.assignors import assign

PARTITION_COUNTS = (12, 24, 48, 96, 192)
STRATEGIES = ("range", "roundrobin", "sticky")
TARGET_SPEEDUP = 100.0

Case = tuple[str, dict[str, int], dict[str, list[str]]]

# The broker-side assignors: strategy -> its protocol.
BROKER_STRATEGIES = {"uniform": "consumer", "range": "consumer", "simple": "share"}
# The topic id of the Java side's grid (tests/oracle/java/BrokerAssignors.java).
BENCH_TOPIC_IDS = {"t": "2i5pS0Q3T3anZrJ3rBNdaA"}


def member_ids(count: int) -> list[str]:
    return [f"consumer-{i}" for i in range(count)]


def grid(strategies: tuple[str, ...] = STRATEGIES) -> list[Case]:
    cases: list[Case] = []
    for strategy in strategies:
        for partitions in PARTITION_COUNTS:
            for members in range(1, partitions + 1):
                cases.append((strategy, {"t": partitions}, {m: ["t"] for m in member_ids(members)}))
    return cases


def best_of(repeat: int, run: Callable[[], None]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def time_ours(cases: list[Case], repeat: int) -> float:
    def run() -> None:
        for strategy, partitions, subscriptions in cases:
            assign(strategy, partitions, subscriptions)

    return best_of(repeat, run)


def time_broker_side(strategy: str, repeat: int) -> tuple[float, float]:
    """Our broker-side assignor on the grid: (fresh seconds, grow-by-one seconds)."""
    protocol = BROKER_STRATEGIES[strategy]
    fresh = [(partitions, subscriptions) for _, partitions, subscriptions in grid((strategy,))]
    grown = []
    for partitions, subscriptions in fresh:
        ids = [*subscriptions, f"consumer-{len(subscriptions)}"]
        previous = assign(
            strategy, partitions, subscriptions, protocol=protocol, topic_ids=BENCH_TOPIC_IDS
        )
        grown.append((partitions, {m: ["t"] for m in ids}, previous))

    def run_fresh() -> None:
        for partitions, subscriptions in fresh:
            assign(
                strategy, partitions, subscriptions, protocol=protocol, topic_ids=BENCH_TOPIC_IDS
            )

    def run_grown() -> None:
        for partitions, subscriptions, previous in grown:
            assign(
                strategy,
                partitions,
                subscriptions,
                previous,
                protocol=protocol,
                topic_ids=BENCH_TOPIC_IDS,
            )

    return best_of(repeat, run_fresh), best_of(repeat, run_grown)


def time_kafka_python(cases: list[Case]) -> float:
    from kafka.coordinator.assignors.range import RangePartitionAssignor
    from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
    from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.assignors.oracle import FakeCluster, members

    logging.getLogger("kafka").setLevel(logging.CRITICAL)
    prepared: list[tuple[Any, Any, Any]] = []
    for strategy, partitions, subscriptions in cases:
        assignor: Any = {
            "range": RangePartitionAssignor,
            "roundrobin": RoundRobinPartitionAssignor,
        }.get(strategy) or StickyPartitionAssignor()
        prepared.append((assignor, FakeCluster(partitions), members(subscriptions)))
    start = time.perf_counter()
    for assignor, cluster, group in prepared:
        assignor.assign(cluster, group)
    return time.perf_counter() - start


def time_java(repeat: int) -> dict[str, float] | None:
    """Kafka's own assignors on the same grids in a warm JVM, or None if Kafka is missing.

    Keys: each of STRATEGIES and ``cooperative-sticky`` (fresh grid), ``grow-sticky`` and
    ``grow-cooperative-sticky`` (grow by one member).
    """
    from planner.adapters.kafka_dist import project_install
    from tests.oracle.java_oracle import BENCHMARK_JVM_OPTIONS, running_oracle

    kafka = project_install()
    if kafka is None:
        return None
    seconds: dict[str, float] = {}
    with (
        tempfile.TemporaryDirectory() as folder,
        running_oracle(
            kafka, Path(folder), timeout_s=600, jvm_options=BENCHMARK_JVM_OPTIONS
        ) as oracle,
    ):
        for strategy in (*STRATEGIES, "cooperative-sticky"):
            seconds[strategy], _ = oracle.bench(strategy, PARTITION_COUNTS, warmup=5, repeat=repeat)
        for strategy in ("sticky", "cooperative-sticky"):
            seconds[f"grow-{strategy}"], _ = oracle.bench(
                strategy, PARTITION_COUNTS, scenario="grow", warmup=5, repeat=repeat
            )
        for strategy in BROKER_STRATEGIES:
            for scenario in ("fresh", "grow"):
                seconds[f"{scenario}-broker-{strategy}"], _ = oracle.server_bench(
                    strategy, PARTITION_COUNTS, scenario=scenario, warmup=5, repeat=repeat
                )
    return seconds


def time_grow_by_one(strategy: str, repeat: int) -> tuple[float, int, int]:
    """Time the rebalances; return (seconds, rebalances, partitions moved or revoked)."""
    cases = []
    for partitions in PARTITION_COUNTS:
        for count in range(1, partitions + 1):
            ids = member_ids(count + 1)
            previous = assign("sticky", {"t": partitions}, {m: ["t"] for m in ids[:count]})
            cases.append(({"t": partitions}, {m: ["t"] for m in ids}, previous))

    def run() -> None:
        for partitions_per_topic, subscriptions, previous in cases:
            assign(strategy, partitions_per_topic, subscriptions, previous)

    seconds = best_of(repeat, run)
    changed = 0
    for partitions_per_topic, subscriptions, previous in cases:
        result = assign(strategy, partitions_per_topic, subscriptions, previous)
        before = {tp: m for m, tps in previous.items() for tp in tps}
        after = {tp: m for m, tps in result.items() for tp in tps}
        changed += sum(1 for tp, m in before.items() if after.get(tp) != m)
    return seconds, len(cases), changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--repeat", type=int, default=5, help="best of N for our timings")
    parser.add_argument(
        "--no-java", action="store_true", help="skip Kafka's own assignors (no JVM)"
    )
    args = parser.parse_args(argv)

    cases = grid()
    ours_s = time_ours(cases, args.repeat)
    kafka_python_s = time_kafka_python(cases)
    per_strategy = {s: time_ours(grid((s,)), args.repeat) for s in STRATEGIES}
    cooperative_s = time_ours(grid(("cooperative-sticky",)), args.repeat)
    grow_sticky = time_grow_by_one("sticky", args.repeat)
    grow_coop = time_grow_by_one("cooperative-sticky", args.repeat)
    broker_side = {s: time_broker_side(s, args.repeat) for s in BROKER_STRATEGIES}
    java = None if args.no_java else time_java(args.repeat)
    java_grid_s = sum(java[s] for s in STRATEGIES) if java else None
    speedup = kafka_python_s / ours_s
    report = {
        "assignments": len(cases),
        "ours_s": round(ours_s, 5),
        "kafka_python_s": round(kafka_python_s, 3),
        "speedup": round(speedup, 1),
        "target_speedup": TARGET_SPEEDUP,
        "target_met": speedup >= TARGET_SPEEDUP,
        "java_warm_jvm_s": round(java_grid_s, 5) if java_grid_s is not None else None,
        "java_warm_jvm_per_grid_s": {k: round(v, 5) for k, v in java.items()} if java else None,
        "ours_per_strategy_s": {s: round(v, 5) for s, v in per_strategy.items()},
        "cooperative_sticky_grid_s": round(cooperative_s, 5),
        "grow_by_one": {
            "rebalances": grow_sticky[1],
            "sticky_s": round(grow_sticky[0], 5),
            "sticky_partitions_moved": grow_sticky[2],
            "cooperative_sticky_s": round(grow_coop[0], 5),
            "cooperative_sticky_partitions_revoked": grow_coop[2],
        },
        "broker_side": {
            s: {
                "protocol": BROKER_STRATEGIES[s],
                "ours_fresh_s": round(fresh, 5),
                "ours_grow_by_one_s": round(grown, 5),
                "java_warm_jvm_fresh_s": round(java[f"fresh-broker-{s}"], 5) if java else None,
                "java_warm_jvm_grow_by_one_s": (
                    round(java[f"grow-broker-{s}"], 5) if java else None
                ),
                "kafka_python_s": None,  # kafka-python has no broker-side assignors
            }
            for s, (fresh, grown) in broker_side.items()
        },
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"grid: {len(cases)} fresh assignments (P in {PARTITION_COUNTS}, C = 1..P; "
            f"{', '.join(STRATEGIES)})"
        )
        print(f"  kafka-python 3.0.12       {kafka_python_s:9.3f} s")
        print(
            f"  planner.assignors.assign  {ours_s * 1000:9.1f} ms   "
            f"({speedup:,.0f}x faster; target {TARGET_SPEEDUP:.0f}x: "
            f"{'met' if report['target_met'] else 'NOT met'})"
        )
        if java_grid_s is not None and java is not None:
            print(f"  Kafka 4.4.0, warm JVM     {java_grid_s * 1000:9.1f} ms   (measured now)")
        else:
            print("  Kafka 4.4.0, warm JVM     not measured (--no-java, or Kafka not installed)")
        print(f"    {'':<18} {'ours':>8} {'Kafka':>9}")
        for s, v in per_strategy.items():
            print(f"    {s:<18} {v * 1000:6.1f} ms {_java_ms(java, s)}")
        print(
            f"    {'cooperative-sticky':<18} {cooperative_s * 1000:6.1f} ms "
            f"{_java_ms(java, 'cooperative-sticky')}"
        )
        print(f"grow by one member ({grow_sticky[1]} rebalances, previous = sticky of C members):")
        print(
            f"    {'sticky':<18} {grow_sticky[0] * 1000:6.1f} ms {_java_ms(java, 'grow-sticky')}"
            f"   {grow_sticky[2]} partitions moved"
        )
        print(
            f"    {'cooperative-sticky':<18} {grow_coop[0] * 1000:6.1f} ms "
            f"{_java_ms(java, 'grow-cooperative-sticky')}"
            f"   {grow_coop[2]} partitions revoked in round one"
        )
        print(
            f"broker-side assignors of Kafka 4 ({len(grid(('uniform',)))} assignments each; "
            "kafka-python has none of them):"
        )
        print(f"    {'':<18} {'ours':>8} {'Kafka':>9}   {'grown by one: ours':>18} {'Kafka':>9}")
        for s, (fresh, grown) in broker_side.items():
            label = f"{s} ({BROKER_STRATEGIES[s]})"
            print(
                f"    {label:<18} {fresh * 1000:6.1f} ms {_java_ms(java, f'fresh-broker-{s}')}"
                f"   {grown * 1000:15.1f} ms {_java_ms(java, f'grow-broker-{s}')}"
            )
    return 0


def _java_ms(java: dict[str, float] | None, key: str) -> str:
    return f"{java[key] * 1000:6.1f} ms" if java else "     n/a"


if __name__ == "__main__":
    raise SystemExit(main())
