"""Benchmark: `partition-planner sample` for 1,000 and 10,000 topics x 30 days.

Each size runs in a fresh Python process (so its peak RSS is its own) and writes a whole
landing folder: hourly throughput (one Parquet file per day), topics, capacity, groups,
key samples (one Parquet file per keyed topic: 100,000 keys each at 10,000 topics),
brokers and perf-tool output.

Reference: the time pyarrow takes just to write the same rows, already in memory, to
Parquet with the same options (Snappy throughput, Zstandard keys, the topic column
dictionary-encoded) and the same two writer threads. The ratio of the two is what
generating the fleet costs on top of writing it.

Usage:
    .venv/bin/python benchmarks/sample_bench.py [--sizes 1000,10000] [--days 30] [--runs N]
        [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

END = datetime(2026, 11, 23, tzinfo=UTC)
SEED = 0
WORKERS = 2


def _peak_rss_mib() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _reference_write_s(landing: Path, scratch: Path) -> float:
    """Write the landing folder's throughput and key rows again, timing only the writes."""
    import pyarrow.parquet as pq

    jobs = []
    for folder, compression in (("throughput", "snappy"), ("keys", "zstd")):
        (scratch / folder).mkdir(parents=True)
        for path in sorted((landing / folder).iterdir()):
            jobs.append((pq.read_table(path), scratch / folder / path.name, compression))

    def write(job: tuple[Any, Path, str]) -> None:
        table, path, compression = job
        pq.write_table(table, path, compression=compression, use_dictionary=["topic"])

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        list(pool.map(write, jobs))
    return time.perf_counter() - started


def child(topics: int, days: int, work: Path) -> dict[str, Any]:
    """One measured run (called in a fresh process)."""
    baseline_rss = _peak_rss_mib()
    from planner.sample import write_landing

    imported_rss = _peak_rss_mib()
    cpu = _cpu_s()
    started = time.perf_counter()
    summary = write_landing(
        work / "landing", topics=topics, days=days, seed=SEED, end=END, workers=WORKERS
    )
    elapsed = time.perf_counter() - started
    cpu = _cpu_s() - cpu
    peak_rss = _peak_rss_mib()
    reference = _reference_write_s(summary.path, work / "reference")
    tables = {
        n: {"files": t.files, "rows": t.rows, "bytes": t.bytes} for n, t in summary.tables.items()
    }
    return {
        "topics": topics,
        "days": days,
        "throughput_rows": summary.tables["throughput"].rows,
        "key_rows": summary.tables["keys"].rows,
        "rows": sum(t.rows for n, t in summary.tables.items() if n != "perf"),
        "files": summary.files,
        "bytes": summary.bytes,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "peak_rss_mib": peak_rss,
        "rss_after_imports_mib": imported_rss,
        "rss_at_start_mib": baseline_rss,
        "reference_write_seconds": reference,
        "tables": tables,
    }


def run_child(topics: int, days: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="sample-bench-"))
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(topics), str(days), str(work)],
            capture_output=True,
            text=True,
            check=True,
        )
        result: dict[str, Any] = json.loads(done.stdout)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="topic counts, comma separated")
    parser.add_argument("--days", type=int, default=30, help="days of hourly history")
    parser.add_argument("--runs", type=int, default=1, help="runs per size (median reported)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        topics, days, work = int(args.child[0]), int(args.child[1]), Path(args.child[2])
        print(json.dumps(child(topics, days, work)))
        return 0

    load_before = os.getloadavg()[0]
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    for topics in sizes:
        runs = [run_child(topics, args.days) for _ in range(args.runs)]
        best = min(runs, key=lambda r: r["seconds"])
        median = statistics.median(r["seconds"] for r in runs)
        results.append({**best, "median_seconds": median, "runs": len(runs)})
    report = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
        "workers": WORKERS,
        "sizes": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"partition-planner sample, {args.days} days hourly, seed {SEED}, {WORKERS} writer "
        f"threads, {os.cpu_count()} CPUs (load average {load_before:.2f} before, "
        f"{report['load_average_after']:.2f} after)"
    )
    print(
        f"\n{'topics':>7} {'rows':>12} {'files':>6} {'MiB':>7} {'seconds':>8} {'cpu s':>7} "
        f"{'rows/s':>11} {'peak RSS':>10} {'pyarrow write':>14} {'ratio':>6}"
    )
    for r in results:
        ratio = r["seconds"] / r["reference_write_seconds"]
        print(
            f"{r['topics']:>7,} {r['rows']:>12,} {r['files']:>6,} {r['bytes'] / 2**20:>7.1f} "
            f"{r['seconds']:>8.2f} {r['cpu_seconds']:>7.2f} {r['rows'] / r['seconds']:>11,.0f} "
            f"{r['peak_rss_mib']:>7.0f} MiB {r['reference_write_seconds']:>12.2f} s "
            f"{ratio:>6.2f}"
        )
    print(
        "\nrows: throughput + key-sample + topics + capacity + groups + brokers rows "
        "(throughput / keys:"
        + "; ".join(f" {r['throughput_rows']:,} / {r['key_rows']:,}" for r in results)
        + ")"
    )
    print(
        "pyarrow write (reference): the same throughput and key rows, already in memory, "
        "written to Parquet with the same options and threads; ratio = ours / reference"
    )
    print(
        "peak RSS: the whole process (Python, NumPy and Arrow imported: "
        f"{results[0]['rss_after_imports_mib']:.0f} MiB before any work)"
    )
    if args.runs > 1:
        for r in results:
            print(
                f"{r['topics']:,} topics: best of {r['runs']}, median {r['median_seconds']:.2f} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
