"""`partition-planner perf-test`: read Kafka perf-tool output into runs, Tp, Tc and the
share-fetch throughput."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from planner.adapters.perf_test import read_perf_test
from planner.commands import common
from planner.partition_capacity import PartitionCapacity, PerfRun, PerfTestError, partition_capacity


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "perf-test",
        help="read kafka-producer/consumer/share-consumer-perf-test output into Tp and Tc",
        description=(
            "Parse files of kafka-producer-perf-test.sh, kafka-consumer-perf-test.sh and "
            "kafka-share-consumer-perf-test.sh output (topic from a first line "
            "'# topic: NAME' or a file name NAME.producer.txt / NAME.consumer.txt / "
            "NAME.share.txt), list the runs and derive each topic's single-partition "
            "capacities: Tp from the producer summary, Tc from the consumer's fetch.MB.sec "
            "and fetch.nMsg.sec, the share-fetch throughput from the share group's rows "
            "after its join, the median over several runs."
        ),
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="perf-tool output files")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    runs: list[PerfRun] = []
    for path in args.files:
        try:
            runs.extend(read_perf_test(path))
        except PerfTestError as exc:
            raise common.UsageError(str(exc)) from None
    topics = list(dict.fromkeys(r.topic for r in runs))
    capacities = [partition_capacity(runs, topic) for topic in topics]
    if args.json:
        common.print_json(
            {
                "runs": [asdict(r) for r in runs],
                "capacities": [asdict(c) for c in capacities],
            }
        )
        return 0
    print(_render(runs, capacities))
    return 0


def _figure(value: float | int | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _render(runs: list[PerfRun], capacities: list[PartitionCapacity]) -> str:
    head = (
        f"{'kind':<8} {'topic':<20} {'window':<12} {'member':>6} {'records':>11} {'records/s':>13} "
        f"{'MiB/s':>9} {'avg ms':>8} {'max ms':>8} {'p50':>6} {'p95':>6} {'p99':>6} "
        f"{'p99.9':>6}  source"
    )
    lines = [head]
    for r in runs:
        # The consumer's fetch.* rates are the ones Tc uses: show them in place of the
        # whole-run rates, which include the group join.
        rps = r.fetch_records_per_s if r.kind == "consumer" else r.records_per_s
        mib = r.fetch_mib_per_s if r.kind == "consumer" else r.mib_per_s
        lines.append(
            f"{r.kind:<8} {r.topic[:20]:<20} {r.window:<12} {_figure(r.member, 'd'):>6} "
            f"{r.records:>11,} "
            f"{_figure(rps, ',.1f'):>13} {_figure(mib, '.2f'):>9} "
            f"{_figure(r.avg_latency_ms, '.2f'):>8} {_figure(r.max_latency_ms, '.1f'):>8} "
            f"{_figure(r.p50_ms, '.0f'):>6} {_figure(r.p95_ms, '.0f'):>6} "
            f"{_figure(r.p99_ms, '.0f'):>6} {_figure(r.p999_ms, '.0f'):>6}  "
            f"{r.source}:{r.line}"
        )
    lines.append("Consumer rows show fetch.nMsg.sec and fetch.MB.sec (group join excluded).")
    if any(r.kind == "share" for r in runs):
        lines.append("Share rows show the tool's own rates (the summary's include the group join).")
    lines.append("Single-partition capacity:")
    for c in capacities:
        tp = (
            f"Tp {c.tp_mib_per_s:.2f} MiB/s, {c.tp_records_per_s:,.1f} records/s"
            if c.tp_mib_per_s is not None and c.tp_records_per_s is not None
            else "Tp not measured"
        )
        tc = (
            f"Tc {c.tc_mib_per_s:.2f} MiB/s, {c.tc_records_per_s:,.1f} records/s"
            if c.tc_mib_per_s is not None and c.tc_records_per_s is not None
            else "Tc not measured"
        )
        share = (
            f"share-fetch {c.share_fetch_mib_per_s:.2f} MiB/s, "
            f"{c.share_fetch_records_per_s:,.1f} records/s"
            f" ({c.share_members or '?'} member(s), not used in sizing yet)"
            if c.share_fetch_mib_per_s is not None and c.share_fetch_records_per_s is not None
            else None
        )
        lines.append(f"  {c.topic}: {tp}; {tc}" + (f"; {share}" if share else ""))
        lines.extend(f"    note: {note}" for note in c.notes)
    return "\n".join(lines)
