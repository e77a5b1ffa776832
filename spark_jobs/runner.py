"""The command line both jobs share, and the run around a job's body.

    python -m spark_jobs.size_partitions --figures DIR --out DIR --interval 2026-11-21
    spark-submit --master spark://host:7077 spark_jobs/simulate_assignments.py \\
        --figures DIR --out DIR --interval 20261121T0000Z

Exit codes: 0 done, 1 the run's figures or settings cannot be used, or its
`--set-aside` file is missing (nothing written), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from planner.figures.dataset import DataInterval
from spark_jobs.figures import MissingFigures, RunFigures, locate_run
from spark_jobs.session import build_session, stop_session
from spark_jobs.settings import JobSettings, SettingsError, load_settings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["JobError", "main_for"]

Body = Callable[["SparkSession", RunFigures, JobSettings, argparse.Namespace], dict[str, Path]]


class JobError(RuntimeError):
    """A run that cannot go ahead; the message says why. Nothing has been written."""


def _run_argument(text: str) -> str:
    try:
        datetime.strptime(text.strip(), "%Y%m%dT%H%MZ")
    except ValueError:
        try:
            DataInterval.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(
                f"{exc}; or give an interval key such as 20261121T0000Z"
            ) from None
    return text.strip()


def _days(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of days, zero or above: {text!r}")
    return value


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument("--figures", required=True, type=Path, help="the figures dataset folder")
    p.add_argument("--out", required=True, type=Path, help="where the datasets are written")
    p.add_argument(
        "--interval",
        required=True,
        type=_run_argument,
        help="the run's data interval: its key (20261121T0000Z), a UTC day (2026-11-21) "
        "or START/END in ISO 8601",
    )
    p.add_argument(
        "--master",
        help=(
            "Spark master URL when run directly (default: the settings file's, else "
            "local[2]); under spark-submit, its --master applies"
        ),
    )
    p.add_argument(
        "--lookback-days",
        type=_days,
        help="days of throughput history before the end of the interval (default: the "
        "config's [figures] history_days, else 30; the interval itself is always read)",
    )
    p.add_argument("--config", type=Path, help="a TOML settings file (see docs/spark-jobs.md)")
    p.add_argument(
        "--set-aside",
        type=Path,
        help="the run's set_aside.json from validate_inputs: those topics' rows are not "
        "read, and each becomes a sizing row of status invalid-figures (the pipeline "
        "always passes it; the job refuses to run if the file is missing)",
    )
    return p


def _with_set_aside(figures: RunFigures, path: Path | None) -> RunFigures:
    from planner.figures.set_aside import load_set_aside

    if path is None:
        return figures
    try:
        set_aside = load_set_aside(path)
    except FileNotFoundError:
        raise JobError(
            f"{path}: missing: the run's inputs were not validated, or did not pass; run "
            "validate_inputs for this interval first"
        ) from None
    except ValueError as exc:
        raise JobError(str(exc)) from None
    if set_aside.run_key != figures.key:
        raise JobError(f"{path} is run {set_aside.run_key}'s, not run {figures.key}'s")
    return figures.without(set_aside)


def main_for(prog: str, description: str, body: Body, argv: Sequence[str] | None = None) -> int:
    """Parse the arguments, find the run's figures, start Spark, run `body`, report.

    The figures are located and checked before Spark starts, so a missing interval or
    table fails in a second with nothing written. A session that was already running
    (a test's, a notebook's) is used and left running; one started here is stopped.
    """
    from pyspark.sql import SparkSession

    args = _parser(prog, description).parse_args(argv)
    try:
        settings = load_settings(args.config).with_overrides(
            master=args.master, lookback_days=args.lookback_days
        )
        figures = locate_run(args.figures, args.interval, lookback_days=settings.lookback_days)
        figures = _with_set_aside(figures, args.set_aside)
    except (SettingsError, MissingFigures, JobError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    existing = SparkSession.getActiveSession()
    spark = build_session(settings.spark, prog)
    try:
        written = body(spark, figures, settings, args)
    except (JobError, MissingFigures) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    finally:
        if existing is None:
            stop_session(spark)
    for name, path in written.items():
        print(f"{prog}: run {figures.key}: {name} -> {path}")
    return 0
