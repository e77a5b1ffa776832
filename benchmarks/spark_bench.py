"""Benchmark: both Spark jobs end to end on a sample fleet, beside a bare Spark job.

Fleet: `partition-planner sample` (`planner.sample.write_landing`) for N topics x 30 days
of hourly figures, collected into the canonical figures dataset by
`planner.collect.run.collect_interval` (the last day is the run, the 29 before it its
history). Generating and collecting are set-up, timed apart.

Measured, each in a fresh Python process on `local[2]` with the jobs' default settings,
JVM start-up included, as a scheduler would run them:

- ours, as the Airflow DAGs run them: `python -m spark_jobs.size_and_simulate`, both
  jobs one after the other in one Spark application (the `size_and_simulate` task's
  spark-submit runs the same file), the target's measurement;
- ours, each job in its own application, for information: `python -m
  spark_jobs.size_partitions`, then `python -m spark_jobs.simulate_assignments`, as one
  would re-run one job alone (what the DAG did until 2026-11-25);
- reference: a bare Spark job that reads the same throughput files with the same
  explicit schema and computes each topic's maximum rates (`groupBy(topic).max`),
  written to Parquet: the floor for any Spark job over this data;
- a second reference, for information: the same maxima from the samples as the
  `size_partitions` tasks read them (the run cut into units, `spark_jobs.units`; one
  task per unit reads its row groups with PyArrow and takes each topic's maxima in
  NumPy): the floor for this job's way of reading before any planning.

Peak memory is sampled from /proc every 0.2 s over each process tree: the driver's
Python, the JVM (driver and executor in one, in local mode), and the Python workers
(summed). So is CPU time: the tree's own (user + system, summed over its processes) and
the whole machine's (from /proc/stat), so that each measurement says how much of the two
cores other work took while it ran; the 1-minute load average is recorded at its start
and end. Targets (issue 4): both jobs at most 5 minutes and at most 3x the bare job.
The two ways of running the jobs must write the same rows (checked every run).

Usage:
    .venv/bin/python benchmarks/spark_bench.py [--sizes 1000,10000] [--days 30]
        [--runs N] [--work DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from spark_jobs.units import Unit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

END = datetime(2026, 11, 23, tzinfo=UTC)
SEED = 0
LIMIT_S = 300.0
LIMIT_RATIO = 3.0


_TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Peak:
    """Peak resident memory of one process tree, MiB."""

    driver_python: float = 0.0
    jvm: float = 0.0
    python_workers: float = 0.0
    total: float = 0.0


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process so far (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _machine_busy_s() -> float:
    """CPU seconds the whole machine has spent busy (all cores, /proc/stat)."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / _TICK


def _rss_mib(pid: int) -> tuple[float, str]:
    try:
        with open(f"/proc/{pid}/status") as handle:
            rss = next((line for line in handle if line.startswith("VmRSS:")), "VmRSS: 0 kB")
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return 0.0, ""
    return int(rss.split()[1]) / 1024, cmdline


def _sample(root: int, peak: Peak, cpu: dict[int, float]) -> None:
    tree, stack = [], [root]
    while stack:
        pid = stack.pop()
        tree.append(pid)
        stack.extend(_children(pid))
    now = Peak()
    for pid in tree:
        cpu[pid] = max(cpu.get(pid, 0.0), _cpu_s(pid))
        rss, cmdline = _rss_mib(pid)
        if "java" in cmdline.split(" ", 1)[0]:
            now.jvm += rss
        elif "pyspark.daemon" in cmdline or "pyspark.worker" in cmdline:
            now.python_workers += rss
        elif pid == root:
            now.driver_python += rss
    now.total = now.driver_python + now.jvm + now.python_workers
    for name in ("driver_python", "jvm", "python_workers", "total"):
        setattr(peak, name, max(getattr(peak, name), getattr(now, name)))


@dataclass
class Measured:
    """One process: wall time, peak memory, CPU time, and what else ran meanwhile.

    Attributes:
        seconds: Wall time, start to exit.
        peak: Peak resident memory of its process tree.
        cpu_s: CPU seconds of its process tree (sampled every 0.2 s: a process that
            lives less than that may be missed).
        others_cpu_s: CPU seconds the rest of the machine used over the same wall time.
        load_start: 1-minute load average when it started.
        load_end: 1-minute load average when it ended.
    """

    seconds: float
    peak: Peak = field(default_factory=Peak)
    cpu_s: float = 0.0
    others_cpu_s: float = 0.0
    load_start: float = 0.0
    load_end: float = 0.0


def _measure(command: list[str], env: dict[str, str]) -> Measured:
    peak = Peak()
    cpu: dict[int, float] = {}
    load_start = os.getloadavg()[0]
    busy_start = _machine_busy_s()
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            _sample(process.pid, peak, cpu)
            done.wait(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    out, err = process.communicate()
    elapsed = time.perf_counter() - started
    busy = _machine_busy_s() - busy_start
    done.set()
    watcher.join()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} failed:\n{out[-2000:]}\n{err[-4000:]}")
    ours = sum(cpu.values())
    return Measured(elapsed, peak, ours, max(0.0, busy - ours), load_start, os.getloadavg()[0])


_RATES = ("bytes_in_per_s", "records_in_per_s", "bytes_out_per_s")
_MIB = float(2**20)


def max_rates(rates: DataFrame) -> DataFrame:
    """Each topic's maximum rates, in the JVM: `topic` and the three rate columns."""
    from pyspark.sql import functions as F

    return rates.groupBy("topic").agg(*(F.max(name).alias(name) for name in _RATES))


def _unit_maxima(units: list[Unit]) -> Any:
    # Each unit's topics' maximum rates, from the samples its task reads as the sizing
    # job's tasks read them; back in bytes/s (MiB x 2**20 is exact), null where a rate
    # was never measured, as Spark's max gives.
    by_number = {u.unit: u for u in units}

    def apply(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import numpy as np
        import pyarrow as pa

        from spark_jobs.units import read_samples

        for batch in batches:
            for number in batch.column(0).to_pylist():
                got = read_samples(by_number[number])
                starts = got.starts[:-1]
                columns = {}
                for name, column, scale in (
                    ("bytes_in_per_s", "mib_in", _MIB),
                    ("records_in_per_s", "records_in", 1.0),
                    ("bytes_out_per_s", "mib_out", _MIB),
                ):
                    values = got.rows.column(column).fill_null(np.nan).to_numpy()
                    peaks = np.fmax.reduceat(values, starts) * scale if len(starts) else values[:0]
                    columns[name] = pa.array(peaks, pa.float64(), mask=np.isnan(peaks))
                yield pa.RecordBatch.from_pydict({"topic": got.topics, **columns})

    return apply


def max_rates_by_units(spark: SparkSession, units: list[Unit]) -> DataFrame:
    """`max_rates` with the samples read and the maxima taken in Python, one task per
    unit, as `size_partitions` reads the samples before planning them."""
    from pyspark.sql import functions as F

    slots = spark.range(0, len(units), 1, numPartitions=len(units))
    return slots.select(F.col("id").cast("int").alias("unit")).mapInArrow(
        _unit_maxima(units),
        "topic string, " + ", ".join(f"{name} double" for name in _RATES),
    )


def reference_job(
    figures: Path,
    out: Path,
    interval: str,
    lookback_days: float,
    config: Path | None = None,
    *,
    by_units: bool = False,
) -> None:
    """A reference: read the run's throughput files, write each topic's maximum rates.

    The session is built as the jobs build theirs, from the same settings (`config`, else
    the defaults), so every side pays the same start-up.
    """
    from planner.figures.dataset import interval_path
    from spark_jobs.figures import locate_run
    from spark_jobs.schemas import figures_schema
    from spark_jobs.session import build_session, stop_session
    from spark_jobs.settings import load_settings
    from spark_jobs.size_partitions import units_of

    settings = load_settings(config).with_overrides(lookback_days=lookback_days)
    run = locate_run(figures, interval, lookback_days=lookback_days)
    name = "bare_units_max_rate" if by_units else "bare_max_rate"
    spark = build_session(settings.spark, name)
    if by_units:
        peaks = max_rates_by_units(spark, units_of(run, settings))
    else:
        paths = [str(interval_path(figures, i) / "throughput.parquet") for i, _ in run.history]
        peaks = max_rates(spark.read.schema(figures_schema("throughput")).parquet(*paths))
    peaks.write.mode("overwrite").parquet(str(out / name))
    stop_session(spark)


def _fleet(work: Path, topics: int, days: int) -> tuple[Path, str, dict[str, float]]:
    from planner.figures.dataset import DataInterval

    figures = work / "figures"
    run = DataInterval.day((END - timedelta(days=1)).date())
    timings: dict[str, float] = {}
    if not (figures / f"interval={run.key}" / "_manifest.json").exists():
        # In a process of its own: collection's memory (19.6 GB at 100,000 topics) must
        # not stay with this one while the measured jobs run.
        done = subprocess.run(
            [sys.executable, __file__, "--build-fleet", str(work), str(topics), str(days)],
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
        timings = json.loads(done.stdout.splitlines()[-1])
    return figures, run.key, timings


def build_fleet(work: Path, topics: int, days: int) -> dict[str, float]:
    """Generate the sample fleet's landing folder and collect it; the seconds each took."""
    from planner.collect.landing import LandingSource
    from planner.collect.run import collect_interval
    from planner.figures.dataset import DataInterval
    from planner.sample import write_landing

    landing, figures = work / "landing", work / "figures"
    run = DataInterval.day((END - timedelta(days=1)).date())
    shutil.rmtree(landing, ignore_errors=True)
    shutil.rmtree(figures, ignore_errors=True)
    started = time.perf_counter()
    write_landing(landing, topics=topics, days=days, seed=SEED, end=END)
    timings = {"generate_s": time.perf_counter() - started}
    started = time.perf_counter()
    collect_interval([LandingSource(landing)], run, figures, history_days=days - 1)
    timings["collect_s"] = time.perf_counter() - started
    return timings


def _fleet_facts(figures: Path, key: str) -> dict[str, int]:
    import pyarrow.parquet as pq

    from planner.figures.dataset import list_intervals, read_manifest

    manifest = read_manifest(figures, key) or {}
    rows = sum(
        (read_manifest(figures, i) or {}).get("tables", {}).get("throughput", 0)
        for i in list_intervals(figures)
    )
    groups = pq.read_table(figures / f"interval={key}" / "groups.parquet", columns=["group_id"])
    return {
        "throughput_rows": rows,
        "key_rows": manifest.get("tables", {}).get("keys", 0),
        "groups": len(set(groups.column("group_id").to_pylist())),
        "topics": manifest.get("tables", {}).get("topics", 0),
    }


def run_size(
    work: Path, topics: int, days: int, runs: int, config: Path | None = None
) -> dict[str, Any]:
    """Set up the fleet of one size and measure both sides `runs` times, interleaved."""
    figures, key, setup = _fleet(work, topics, days)
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    common = ["--figures", str(figures), "--interval", key, "--lookback-days", str(days)]
    with_config = ["--config", str(config)] if config else []
    common += with_config
    bare: list[Measured] = []
    bare_units: list[Measured] = []
    dag: list[Measured] = []
    two_apps: list[Measured] = []
    sizing: list[Measured] = []
    simulate: list[Measured] = []
    for i in range(runs):
        out, out_two = work / f"out-{i}", work / f"out-{i}-two-applications"
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(out_two, ignore_errors=True)
        for mode, into in (("--bare", bare), ("--bare-units", bare_units)):
            reference = [sys.executable, __file__, mode, "--figures", str(figures)]
            reference += ["--out", str(out), "--interval", key, "--days", str(days)]
            into.append(_measure([*reference, *with_config], env))
        dag.append(_measure(_job("size_and_simulate", common, out), env))
        first = _measure(_job("size_partitions", common, out_two), env)
        second = _measure(_job("simulate_assignments", common, out_two), env)
        sizing.append(first)
        simulate.append(second)
        two_apps.append(
            Measured(
                first.seconds + second.seconds,
                cpu_s=first.cpu_s + second.cpu_s,
                others_cpu_s=first.others_cpu_s + second.others_cpu_s,
                load_start=first.load_start,
                load_end=second.load_end,
            )
        )
        same_outputs(out, out_two, key)
    best = min(range(runs), key=lambda i: dag[i].seconds)
    bare_best = min(m.seconds for m in bare)
    measured = {
        "bare": bare,
        "bare_units": bare_units,
        "size_and_simulate": dag,
        "size_partitions": sizing,
        "simulate_assignments": simulate,
    }
    return {
        "topics": topics,
        "days": days,
        **_fleet_facts(figures, key),
        **setup,
        "bare_s": [m.seconds for m in bare],
        "bare_units_s": [m.seconds for m in bare_units],
        "size_and_simulate_s": [m.seconds for m in dag],
        "size_partitions_s": [m.seconds for m in sizing],
        "simulate_assignments_s": [m.seconds for m in simulate],
        "two_applications_s": [m.seconds for m in two_apps],
        "cpu_s": {name: [m.cpu_s for m in ms] for name, ms in measured.items()},
        "others_cpu_s": {name: [m.others_cpu_s for m in ms] for name, ms in measured.items()},
        "load": {name: [(m.load_start, m.load_end) for m in ms] for name, ms in measured.items()},
        "ratio_best": dag[best].seconds / bare_best,
        "ratio_median": statistics.median(m.seconds for m in dag)
        / statistics.median(m.seconds for m in bare),
        "ratio_per_run": [o.seconds / b.seconds for o, b in zip(dag, bare, strict=True)],
        "ratio_to_units_floor": dag[best].seconds / min(m.seconds for m in bare_units),
        "ratio_two_applications_best": min(m.seconds for m in two_apps) / bare_best,
        "ratio_two_applications_median": statistics.median(m.seconds for m in two_apps)
        / statistics.median(m.seconds for m in bare),
        "peak_mib": {
            name: asdict(max(ms, key=lambda m: m.peak.total).peak) for name, ms in measured.items()
        },
        "output_rows": _output_rows(work / f"out-{best}", key),
    }


_DATASETS = ("sizing", "simulations", "recommendations")


def _job(module: str, common: list[str], out: Path) -> list[str]:
    return [sys.executable, "-m", f"spark_jobs.{module}", *common, "--out", str(out)]


def same_outputs(out: Path, other: Path, key: str) -> None:
    """Fail unless two runs wrote the same rows (the jobs are deterministic)."""
    import pyarrow.dataset as ds

    for name in _DATASETS:
        tables = [
            ds.dataset(root / name / f"run={key}", format="parquet", partitioning=None).to_table()
            for root in (out, other)
        ]
        if not tables[0].equals(tables[1]):
            raise RuntimeError(f"{name}: {out} and {other} differ")


def _output_rows(out: Path, key: str) -> dict[str, int]:
    import pyarrow.parquet as pq

    return {
        name: pq.read_metadata(path).num_rows
        if path.is_file()
        else sum(pq.read_metadata(p).num_rows for p in path.iterdir())
        for name in _DATASETS
        for path in [out / name / f"run={key}"]
    }


def _print(results: list[dict[str, Any]]) -> None:
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for r in results:
        print(
            f"\n{r['topics']:,} topics x {r['days']} days: "
            f"{r['throughput_rows']:,} throughput rows, {r['key_rows']:,} key rows, "
            f"{r['groups']:,} groups"
            + (
                f" (generated in {r['generate_s']:.1f} s, collected in {r['collect_s']:.1f} s)"
                if "generate_s" in r
                else ""
            )
        )
        rows = (
            ("bare job (read, max per topic)", r["bare_s"]),
            ("bare job, read by unit tasks", r["bare_units_s"]),
            ("both jobs, one application (DAG)", r["size_and_simulate_s"]),
            ("size_partitions alone", r["size_partitions_s"]),
            ("simulate_assignments alone", r["simulate_assignments_s"]),
            ("both jobs, two applications", r["two_applications_s"]),
        )
        for name, values in rows:
            print(
                f"  {name:32s} best {min(values):7.1f} s   "
                f"median {statistics.median(values):7.1f} s"
            )
        for name, values in r["cpu_s"].items():
            others = r["others_cpu_s"][name]
            loads = ", ".join(f"{a:.1f}-{b:.1f}" for a, b in r["load"][name])
            print(
                f"  {name:32s} CPU {statistics.median(values):6.1f} s (median); other work "
                f"took {statistics.median(others):5.1f} CPU-s meanwhile; load {loads}"
            )
        print(
            "  ratio, both jobs as the DAGs run them (best / best bare): "
            f"{r['ratio_best']:.2f}, medians {r['ratio_median']:.2f}, per run "
            + ", ".join(f"{x:.2f}" for x in r["ratio_per_run"])
            + f"  (target <= {LIMIT_RATIO})"
        )
        print(
            "  ratio, two applications (best / best bare): "
            f"{r['ratio_two_applications_best']:.2f}, medians "
            f"{r['ratio_two_applications_median']:.2f}  (for information)"
        )
        print(
            "  ratio to the unit-reading floor (best both / best bare job read by unit "
            f"tasks): {r['ratio_to_units_floor']:.2f}  (for information)"
        )
        print(
            f"  within {LIMIT_S:.0f} s: {min(r['size_and_simulate_s']) <= LIMIT_S} "
            f"(two applications: {min(r['two_applications_s']) <= LIMIT_S})"
        )
        for name, peak in r["peak_mib"].items():
            print(
                f"  peak MiB {name:22s} driver Python {peak['driver_python']:6.0f}  "
                f"JVM {peak['jvm']:6.0f}  Python workers {peak['python_workers']:6.0f}  "
                f"total {peak['total']:6.0f}"
            )
        print("  output rows: " + ", ".join(f"{k} {v:,}" for k, v in r["output_rows"].items()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1000,10000", help="topic counts, comma-separated")
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--work", type=Path, help="keep fleets and outputs here (reused if present)")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--config", type=Path, help="a planner config file for both jobs and the bare job"
    )
    p.add_argument("--bare", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--bare-units", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--figures", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--interval", help=argparse.SUPPRESS)
    p.add_argument("--build-fleet", nargs=3, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.build_fleet:
        work, topics, days = args.build_fleet
        print(json.dumps(build_fleet(Path(work), int(topics), int(days))))
        return 0
    if args.bare or args.bare_units:
        reference_job(
            args.figures,
            args.out,
            args.interval,
            float(args.days),
            args.config,
            by_units=args.bare_units,
        )
        return 0
    work = args.work or Path(tempfile.mkdtemp(prefix="spark-bench-"))
    results = []
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            results.append(
                run_size(work / f"fleet-{size}", size, args.days, args.runs, args.config)
            )
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _print(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
