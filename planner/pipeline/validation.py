"""The two validation steps: the figures before sizing, the datasets before publishing.

Both run Great Expectations on Spark DataFrames (`expectations.validate`), so they are
Spark applications like the jobs: the `plan` command calls them in its own session,
and the Airflow DAG submits this file with `spark-submit`:

    spark-submit planner/pipeline/validation.py inputs  --config FILE --interval KEY
    spark-submit planner/pipeline/validation.py outputs --config FILE --interval KEY

Each writes its result into the run's state folder (`planner.pipeline.state`) whether
it passed or not, and exits 1 with the failure message when it failed: the message
names the suite, the expectations, example rows and the topics involved.

- **inputs**: `throughput.input` on the whole throughput window the sizing job reads
  (the run's interval and its history), `topics.input` with the run's broker count,
  `capacity.input`, `groups.input`, `keys.input` on the run's tables. A failed
  run-level expectation stops the run; failed row-level ones set their topics aside
  (`planner.pipeline.row_checks`), unless they are too many (rows collection refused
  for their values, in the interval's `rejected` table, count among them), and the
  stage passes with `set_aside.json` beside its result, which the Spark jobs read. The
  fingerprint is the manifests of every interval read (a re-collection rewrites them).
- **outputs**: `sizing.output`, `simulations.output`, `recommendations.output` on the
  run's datasets, all or nothing: a failure names the topics. The fingerprint is every
  data file of the three run folders.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.figures.dataset import MANIFEST, interval_path, read_table
from planner.figures.refused import Refused, refused_rows
from planner.figures.set_aside import FILE as SET_ASIDE_FILE
from planner.figures.set_aside import SetAside, save_set_aside
from planner.observe.settings import DEFAULT_MIN_COVERAGE
from planner.pipeline import jobs
from planner.pipeline.row_checks import DEFAULT_MAX_BAD_SHARE
from planner.pipeline.state import StageResult, dataset_files, fingerprint, save_stage
from planner.pipeline.workspace import Workspace

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "OUTPUT_DATASETS",
    "ValidationStageFailed",
    "main",
    "validate_inputs",
    "validate_outputs",
]

#: The Spark jobs' datasets, in the order they are validated.
OUTPUT_DATASETS = ("sizing", "simulations", "recommendations")
_OPTIONAL_INPUTS = ("capacity", "groups", "keys")
#: Up to this size on disk a dataset is validated as one partition. GX runs about one
#: Spark job per expectation, and on small data a job's cost is scheduling its stages
#: and tasks, not reading: measured on a 300-topic fleet, `sizing.output` ran 70 jobs in
#: 7.7 s over the files' partitions and 39 jobs in 5.6 s over one.
ONE_PARTITION_BYTES = 64 * 2**20


#: Spark settings for validating small data, restored after. A suite is a few hundred
#: small queries of different shapes; compiling each (whole-stage code generation) and
#: re-planning it (adaptive execution) costs more than running it. Measured on the
#: 40-topic test fleet (2026-11-27, warm session): the three output suites took 17.9 s
#: with Spark's defaults and 10.1 s with the first two. Without whole-stage code, Spark
#: still compiles each query's projections and predicates with Janino: 198 compilations
#: in the three output suites of a 6-topic plan, warm (2026-11-28), and none with the
#: interpreted evaluators (`factoryMode`, the setting the test session runs every suite
#: with); the driver's JVM then took 10.3-11.4 CPU-seconds for those suites instead of
#: 15.4-15.6 (load average 8-11).
SMALL_DATA_CONF = {
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}


def _bytes(files: Sequence[Path]) -> int:
    return sum(f.stat().st_size for f in files if f.exists())


def _sized(frame: DataFrame, files: Sequence[Path]) -> DataFrame:
    """`frame` as one partition when its files are small (see `ONE_PARTITION_BYTES`)."""
    return frame.coalesce(1) if _bytes(files) <= ONE_PARTITION_BYTES else frame


@contextmanager
def _small_data(spark: SparkSession, files: Sequence[Path]) -> Iterator[None]:
    """`SMALL_DATA_CONF` while the block runs, when all of `files` are small data."""
    if _bytes(files) > ONE_PARTITION_BYTES:
        yield
        return
    before: dict[str, str | None] = {key: spark.conf.get(key, None) for key in SMALL_DATA_CONF}
    for key, value in SMALL_DATA_CONF.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, was in before.items():
            if was is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, was)


class ValidationStageFailed(RuntimeError):
    """The stage failed (a suite, or a run-level check); `result` is what was saved."""

    def __init__(self, result: StageResult) -> None:
        super().__init__(result.message)
        self.result = result


@dataclass(frozen=True)
class _Checked:
    reports: list[Any]
    files: list[Path]
    root: Path


def _stage_result(
    stage: str,
    run_key: str,
    checked: _Checked,
    *,
    stopped: str | None = None,
    set_aside: SetAside | None = None,
) -> StageResult:
    """The stage's result: it fails on any failed suite, except where only row-level
    rules failed and their topics were set aside (`set_aside`); `stopped` is why a
    run-level check outside the suites failed."""
    failed = [r for r in checked.reports if not r.success]
    run_level = [o for r in failed for o in r.failures if o.level != "row"]
    success = stopped is None and (not failed or (not run_level and set_aside is not None))
    names = ", ".join(r.suite_name for r in checked.reports)
    if not failed and stopped is None:
        message = f"validated {stage} of run {run_key}: {names}: every expectation met"
    else:
        message = "\n".join(r.message() for r in failed)
        if stopped is not None:
            message = f"{message}\nthe run stops: {stopped}".lstrip("\n")
        elif success and set_aside is not None:
            message = (
                f"validated {stage} of run {run_key}: {names}: run-level expectations met; "
                f"row-level failures below\n{message}\n{set_aside.message()}"
            )
    return StageResult(
        stage=stage,
        run_key=run_key,
        success=success,
        message=message,
        suites=tuple(r.summary() for r in checked.reports),
        gx_results={r.suite_name: r.gx_result.to_json_dict() for r in checked.reports},
        fingerprint=fingerprint(checked.files, checked.root),
        root=str(checked.root),
        set_aside=set_aside.summary() if success and set_aside is not None else {},
    )


def _finish(workspace: Workspace, result: StageResult) -> StageResult:
    save_stage(workspace.run_state(result.run_key), result)
    if not result.success:
        raise ValidationStageFailed(result)
    return result


def validate_inputs(
    spark: SparkSession,
    workspace: Workspace,
    run: str,
    *,
    lookback_days: float,
    max_bad_share: float = DEFAULT_MAX_BAD_SHARE,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> StageResult:
    """Validate the figures the sizing job will read for `run`, and set bad topics aside.

    Args:
        spark: The session.
        workspace: Where the figures are.
        run: The run: an interval key, a UTC day or START/END.
        lookback_days: Days of history the sizing job reads (the same setting).
        max_bad_share: The share of a table's rows, and of the run's topics, that
            row-level failures may set aside before the run stops instead (0..1).
        min_coverage: The share of the interval a topic's observations must cover
            (`[sources.kafka] min_coverage`); a topic below it is set aside.

    Returns:
        The saved result (the run may go on: every run-level expectation met, and any
        row-level failures set aside; `set_aside.json` is saved too).

    Raises:
        ValidationStageFailed: a run-level expectation failed, or too many rows did (its
            result is saved too, and no `set_aside.json` is left for the jobs).
        spark_jobs.figures.MissingFigures: the run's interval or a required table is
            missing.
    """
    from expectations import validate
    from spark_jobs.figures import locate_run

    figures = locate_run(workspace.figures, run, lookback_days=lookback_days)
    folder = interval_path(workspace.figures, figures.run)
    state = workspace.run_state(figures.key)
    # What an earlier attempt set aside is void until this validation says otherwise.
    (state / SET_ASIDE_FILE).unlink(missing_ok=True)

    def table(name: str) -> DataFrame:
        return _sized(figures.table(spark, name), [folder / f"{name}.parquet"])

    samples = [
        interval_path(workspace.figures, i) / "throughput.parquet" for i, _ in figures.history
    ]
    frames = {"throughput": _sized(figures.throughput(spark), samples), "topics": table("topics")}
    frames.update({name: table(name) for name in _OPTIONAL_INPUTS if figures.has(name)})
    # The broker count the sizing job uses (distinct broker ids), so the suite's
    # replication-factor bound and the job's agree.
    brokers = figures.brokers()
    parameters: dict[str, dict[str, Any]] = {
        "topics": {"broker_count": brokers, "min_coverage": min_coverage}
    }
    with _small_data(spark, [folder / f"{name}.parquet" for name in frames] + samples):
        reports = [
            validate(frame, f"{name}.input", **parameters.get(name, {}))
            for name, frame in frames.items()
        ]
    manifests = [interval_path(workspace.figures, i) / MANIFEST for i, _ in figures.history]
    run_manifest = interval_path(workspace.figures, figures.run) / MANIFEST
    files = sorted({run_manifest, *manifests})
    checked = _Checked(reports, files, workspace.figures)
    missing = _missing_columns(
        [folder / f"{name}.parquet" for name in frames if name != "throughput"] + samples
    )
    set_aside: SetAside | None = None
    stopped: str | None = missing
    if missing is None:
        refused = refused_rows(read_table(workspace.figures, figures.run, "rejected"))
        set_aside, stopped = _set_aside(
            frames,
            reports,
            figures.key,
            figures.tables.get("topics", 0),
            brokers,
            max_bad_share,
            refused,
        )
    result = _stage_result("inputs", figures.key, checked, stopped=stopped, set_aside=set_aside)
    if result.success:
        save_set_aside(state, set_aside or SetAside(figures.key))
    return _finish(workspace, result)


def _missing_columns(files: list[Path]) -> str | None:
    """Which files lack a required column (read from their footers), in words; None: none.

    Spark reads a figures file with the table's schema, so a column a file lacks comes
    back as nulls, and the suites would see a column of null values: row-level
    failures in every row. The file is of another shape: that is a run-level failure.
    """
    import pyarrow.parquet as pq

    from planner.figures.schema import TABLES

    problems = []
    for file in files:
        table = TABLES[file.stem]
        have = set(pq.read_schema(file).names)
        lost = [c for c in table.required if c not in have]
        if lost:
            problems.append(
                f"{file} lacks the required column{'s' if len(lost) > 1 else ''} {', '.join(lost)}"
            )
    return "; ".join(problems) or None


def _set_aside(
    frames: dict[str, DataFrame],
    reports: list[Any],
    run_key: str,
    topics_listed: int,
    brokers: int,
    max_bad_share: float,
    refused: Refused,
) -> tuple[SetAside | None, str | None]:
    """What row-level failures set aside, or why the run stops instead (both None: a
    run-level expectation failed, which the suites' message says). Rows `refused` at
    collection count as bad rows of their tables."""
    from planner.pipeline.row_checks import RunLevelFailure, TableCheck, set_aside_rows

    failures = [o for r in reports for o in r.failures]
    if any(o.level != "row" for o in failures):
        return None, None
    if not failures and not refused.rows:
        return SetAside(run_key), None
    checks = [
        TableCheck(name, frame, report)
        for (name, frame), report in zip(frames.items(), reports, strict=True)
    ]
    try:
        found = set_aside_rows(
            checks,
            run_key=run_key,
            topics_listed=topics_listed,
            brokers=brokers,
            max_bad_share=max_bad_share,
            refused=refused,
        )
    except RunLevelFailure as exc:
        return None, str(exc)
    return found, None


def output_files(workspace: Workspace, run_key: str) -> list[Path]:
    """Every data file of the run's three datasets."""
    from spark_jobs.outputs import run_path

    files: list[Path] = []
    for dataset in OUTPUT_DATASETS:
        files += dataset_files(run_path(workspace.datasets, dataset, run_key))
    return files


def validate_outputs(spark: SparkSession, workspace: Workspace, run_key: str) -> StageResult:
    """Validate the run's `sizing`, `simulations` and `recommendations` datasets.

    Raises:
        ValidationStageFailed: a suite failed (its result is saved too).
        FileNotFoundError: a dataset of the run was never written.
    """
    from expectations import validate
    from spark_jobs import schemas
    from spark_jobs.outputs import run_path

    reports = []
    folders = [run_path(workspace.datasets, dataset, run_key) for dataset in OUTPUT_DATASETS]
    for dataset, folder in zip(OUTPUT_DATASETS, folders, strict=True):
        if not dataset_files(folder):
            raise FileNotFoundError(
                f"{folder}: the {dataset} dataset of run {run_key} was not written; "
                "run the Spark jobs for this interval first"
            )
    with _small_data(spark, output_files(workspace, run_key)):
        for dataset, folder in zip(OUTPUT_DATASETS, folders, strict=True):
            frame = spark.read.schema(getattr(schemas, dataset.upper())).parquet(str(folder))
            reports.append(validate(_sized(frame, dataset_files(folder)), f"{dataset}.output"))
    checked = _Checked(reports, output_files(workspace, run_key), workspace.datasets)
    return _finish(workspace, _stage_result("outputs", run_key, checked))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="planner-validate",
        description="Validate one run's figures (inputs) or datasets (outputs) with the "
        "Great Expectations suites; exit 1 naming the failures.",
    )
    p.add_argument("stage", choices=("inputs", "outputs"))
    p.add_argument("--interval", required=True, help="the run: an interval key or a UTC day")
    p.add_argument("--config", type=Path, help="the planner config file")
    p.add_argument("--figures", type=Path, help="the figures folder (overrides the config)")
    p.add_argument("--work", type=Path, help="the work folder (overrides the config)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run one validation stage as a Spark application; returns the exit code."""
    import dataclasses

    from planner.config import ConfigError, load_config, observe_settings
    from spark_jobs.figures import MissingFigures
    from spark_jobs.session import build_session, stop_session
    from spark_jobs.settings import SettingsError, load_settings

    args = _parser().parse_args(argv)
    prog = f"planner-validate {args.stage}"
    try:
        config = load_config(args.config)
        settings = load_settings(args.config)
    except (ConfigError, SettingsError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    workspace = Workspace.from_config(config)
    if args.figures:
        workspace = dataclasses.replace(workspace, figures=args.figures)
    if args.work:
        workspace = dataclasses.replace(workspace, work=args.work)
    spark = build_session(settings.spark, prog)
    try:
        if args.stage == "inputs":
            result = validate_inputs(
                spark,
                workspace,
                args.interval,
                lookback_days=settings.lookback_days,
                max_bad_share=config.max_bad_row_share,
                min_coverage=observe_settings(config).min_coverage,
            )
        else:
            result = validate_outputs(spark, workspace, jobs.run_key(args.interval))
    except ValidationStageFailed as exc:
        print(f"{prog}: failed:\n{exc}", file=sys.stderr)
        return 1
    except (MissingFigures, FileNotFoundError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    finally:
        stop_session(spark)
    print(result.message)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
