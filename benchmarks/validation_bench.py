"""Benchmark: a small fleet's plan, and where its validation time goes (issue 39).

The reference is the issue's goal: a plan of a handful of topics, end to end from landing
files with every suite on, within 12 s. Two measurements, in this order:

1. `partition-planner plan` end to end on a sampled fleet (`sample --topics N --days D
   --seed S`), in a process of its own, as a person runs it: its wall time and each
   step's (`[plan] <step>: done in ...`). Run `--runs` times, best and median.
2. In one warm Spark session (the jobs' settings, the small-data settings the validation
   step uses), each suite of that run again, with Spark's job counter read around it:
   wall time, Spark jobs, and the CPU time of the Python driver and of the driver's JVM
   per suite, split into the column and table rules (run together, as
   `expectations.validate` runs them) and the query rules (Spark SQL, two jobs each in
   GX: a count, then up to 200 rows). A suite's cost on small data is its jobs times
   the cost of one job (planning, serialising and scheduling it in the JVM, not
   reading), which is why it does not scale with the rows; the script prints that cost
   per job too.

Usage:
    .venv/bin/python benchmarks/validation_bench.py [--topics 6] [--days 14] [--seed 3]
        [--runs 2] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_S = 12.0
_STEP = re.compile(r"^\[plan\] (\w+): done in ([0-9.]+) s$", re.MULTILINE)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planner.cli", *args],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYSPARK_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        check=True,
    )


def plan_runs(work: Path, landing: Path, interval: str, runs: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(runs):
        started = time.perf_counter()
        done = _cli(
            "plan",
            "--landing",
            str(landing),
            "--out",
            str(work / f"plan-{i}"),
            "--interval",
            interval,
        )
        wall = time.perf_counter() - started
        steps = {m[1]: float(m[2]) for m in _STEP.finditer(done.stderr + done.stdout)}
        out.append({"wall_s": wall, "steps": steps})
    return out


def suite_costs(out: Path, run_key: str, interval: str) -> list[dict[str, Any]]:
    """Each suite of the run, warm, with its Spark jobs counted."""
    import great_expectations as gx
    import psutil

    from expectations.catalog import build_suite
    from expectations.validate import _QUERY_TYPE, gx_context
    from planner.pipeline.validation import SMALL_DATA_CONF
    from spark_jobs import schemas
    from spark_jobs.figures import locate_run
    from spark_jobs.session import build_session
    from spark_jobs.settings import load_settings

    spark = build_session(load_settings(None).spark, "validation-bench")
    for key, value in SMALL_DATA_CONF.items():
        spark.conf.set(key, value)
    tracker = spark.sparkContext.statusTracker()
    # The driver's JVM is this process's java child (PySpark launches it).
    jvm = next(c for c in psutil.Process().children(recursive=True) if "java" in c.name())

    def jobs() -> int:
        return max(tracker.getJobIdsForGroup(None), default=-1)

    def cpu() -> tuple[float, float]:
        own, java = psutil.Process().cpu_times(), jvm.cpu_times()
        return own.user + own.system, java.user + java.system

    figures = locate_run(out / "figures", interval, lookback_days=30)
    frames: dict[str, Any] = {
        "throughput.input": figures.throughput(spark),
        **{
            f"{t}.input": figures.table(spark, t)
            for t in ("topics", "capacity", "groups", "keys")
            if figures.has(t)
        },
    }
    for dataset in ("sizing", "simulations", "recommendations"):
        folder = out / "work" / "datasets" / dataset / f"run={run_key}"
        frames[f"{dataset}.output"] = spark.read.schema(getattr(schemas, dataset.upper())).parquet(
            str(folder)
        )
    brokers = figures.brokers()
    results = []
    for name, frame in frames.items():
        frame = frame.coalesce(1).persist()
        frame.count()
        context = gx_context()
        batch = (
            context.data_sources.add_spark(name="bench", persist=False)
            .add_dataframe_asset(name="asset")
            .add_batch_definition_whole_dataframe("whole")
            .get_batch(batch_parameters={"dataframe": frame})
        )
        suite = build_suite(name)
        parameters = (
            {"broker_count": brokers, "min_coverage": 0.9} if name == "topics.input" else None
        )
        parts = {
            "column and table rules": [
                e for e in suite.expectations if e.expectation_type != _QUERY_TYPE
            ],
            "query rules": [e for e in suite.expectations if e.expectation_type == _QUERY_TYPE],
        }
        row: dict[str, Any] = {"suite": name, "rows": frame.count()}
        for label, expectations in parts.items():
            if not expectations:
                row[label] = {
                    "expectations": 0,
                    "jobs": 0,
                    "seconds": 0.0,
                    "python_cpu_s": 0.0,
                    "jvm_cpu_s": 0.0,
                }
                continue
            sub = gx.ExpectationSuite(
                name=name, expectations=[e.copy(update={"id": None}) for e in expectations]
            )
            before, started, (py, java) = jobs(), time.perf_counter(), cpu()
            batch.validate(
                sub,
                result_format="COMPLETE" if label == "query rules" else "BOOLEAN_ONLY",
                expectation_parameters=parameters,
            )
            py_after, java_after = cpu()
            row[label] = {
                "expectations": len(expectations),
                "jobs": jobs() - before,
                "seconds": time.perf_counter() - started,
                "python_cpu_s": py_after - py,
                "jvm_cpu_s": java_after - java,
            }
        frame.unpersist()
        results.append(row)
    before, started, (_, java) = jobs(), time.perf_counter(), cpu()
    for _ in range(20):
        spark.range(10).count()
    count = max(jobs() - before, 1)
    per_job = (time.perf_counter() - started) / count
    per_job_jvm = (cpu()[1] - java) / count
    spark.stop()
    return [
        *results,
        {
            "suite": "one trivial job (spark.range(10).count())",
            "per_job_s": per_job,
            "per_job_jvm_cpu_s": per_job_jvm,
        },
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--topics", type=int, default=6)
    p.add_argument("--days", type=int, default=14)
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    end = date.today()
    interval = (end - timedelta(days=1)).isoformat()
    with tempfile.TemporaryDirectory(prefix="validation-bench-") as tmp:
        work = Path(tmp)
        landing = work / "landing"
        _cli(
            "sample",
            "--topics",
            str(args.topics),
            "--days",
            str(args.days),
            "--seed",
            str(args.seed),
            "--end",
            end.isoformat(),
            "--out",
            str(landing),
        )
        load = os.getloadavg()[0]
        runs = plan_runs(work, landing, interval, args.runs)
        run_key = interval.replace("-", "") + "T0000Z"
        suites = suite_costs(work / "plan-0", run_key, interval)
    walls = [r["wall_s"] for r in runs]
    report = {
        "topics": args.topics,
        "load_average_before": load,
        "load_average_after": os.getloadavg()[0],
        "plan_wall_s": {"best": min(walls), "median": statistics.median(walls)},
        "goal_s": GOAL_S,
        "runs": runs,
        "suites": suites,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"plan of {args.topics} topics, end to end: best {min(walls):.1f} s, median "
        f"{statistics.median(walls):.1f} s (goal {GOAL_S:.0f} s); load average "
        f"{load:.1f} -> {report['load_average_after']:.1f}"
    )
    for i, r in enumerate(runs):
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in r["steps"].items())
        print(f"  run {i + 1}: {r['wall_s']:.1f} s: {steps}")
    print(
        "suite (warm session)          rows  column/table rules: exp, jobs, wall, CPU "
        "Python/JVM      query rules"
    )
    part = "{expectations:>3} {jobs:>3} {seconds:>5.1f} s {python_cpu_s:>4.1f}/{jvm_cpu_s:>4.1f}"
    for row in suites[:-1]:
        c, q = row["column and table rules"], row["query rules"]
        print(f"  {row['suite']:<26} {row['rows']:>5}  {part.format(**c)}    {part.format(**q)}")
    total = {
        key: sum(
            r[label][key]
            for r in suites[:-1]
            for label in ("column and table rules", "query rules")
        )
        for key in ("jobs", "seconds", "python_cpu_s", "jvm_cpu_s")
    }
    print(
        f"  all suites: {total['jobs']} jobs, {total['seconds']:.1f} s, CPU Python "
        f"{total['python_cpu_s']:.1f} s, JVM {total['jvm_cpu_s']:.1f} s"
    )
    last = suites[-1]
    print(
        f"  {last['suite']}: {last['per_job_s'] * 1000:.0f} ms a job, "
        f"{last['per_job_jvm_cpu_s'] * 1000:.0f} ms of JVM CPU"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
