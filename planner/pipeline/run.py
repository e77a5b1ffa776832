"""The whole pipeline in one process: what `partition-planner plan` runs.

    collect figures -> validate inputs -> size partitions -> simulate assignments
        -> validate outputs -> publish

The steps are the ones the Airflow DAG runs as tasks (the same functions, the same
Spark applications' `main`), here in one SparkSession so a run pays for one JVM. A
step that fails stops the run: nothing is published, the failure is recorded in the
store (when the interval was collected), and the last good report and rows stay.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

from planner.config import PlannerConfig, observe_settings
from planner.figures.dataset import DataInterval
from planner.pipeline.workspace import Workspace

if TYPE_CHECKING:
    from planner.collect.run import CollectionReport
    from planner.pipeline.publish import PublishResult

__all__ = ["PipelineFailed", "PlanRun", "collect_figures", "run_pipeline"]

_T = TypeVar("_T")


class PipelineFailed(RuntimeError):
    """A step failed; the message says which and why. Nothing was published."""

    def __init__(self, step: str, message: str) -> None:
        super().__init__(f"{step}: {message}")
        self.step = step


@dataclass
class PlanRun:
    """What a pipeline run did.

    Attributes:
        interval: The data interval.
        collection: The collection report (None if figures were already collected).
        seconds: Wall time per step.
        published: The publish result.
    """

    interval: DataInterval
    collection: CollectionReport | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    published: PublishResult | None = None


def collect_figures(
    config: PlannerConfig,
    workspace: Workspace,
    interval: DataInterval,
    *,
    landing: Path | None = None,
) -> CollectionReport:
    """Collect `interval` (and the missing history days) from the configured sources.

    Raises:
        planner.figures.FiguresError: a source's input cannot be used (nothing written).
        planner.collect.base.SourceUnavailable: a source could not be reached.
    """
    from planner.collect.run import collect_interval
    from planner.collect.sources import build_sources

    sources = build_sources(config, landing=landing)
    return collect_interval(sources, interval, workspace.figures, history_days=config.history_days)


def _job(main: Callable[[list[str]], int], name: str, args: list[str]) -> None:
    code = main(args)
    if code != 0:
        raise PipelineFailed(name, f"the Spark job exited with code {code} (see its message above)")


def run_pipeline(
    config: PlannerConfig,
    workspace: Workspace,
    interval: DataInterval,
    *,
    landing: Path | None = None,
    log: TextIO = sys.stderr,
    durable: bool = True,
    accept_degraded: bool = False,
) -> PlanRun:
    """Run every step for one data interval and publish the result.

    Args:
        config: The planner config (its file is what the Spark jobs read).
        workspace: Where figures, datasets, the store and the site live.
        interval: The data interval.
        landing: A landing folder replacing the configured one.
        log: Where progress lines go.
        durable: Flush the site release to disk before switching it in.
        accept_degraded: Publish even if the publish guard would hold the run
            (`planner.guard`: it newly leaves too much of the fleet unsized).

    Raises:
        PipelineFailed: a step failed, or the publish guard held the run; it is recorded
            in the store when possible, and nothing is published.
    """
    from planner.pipeline import jobs
    from planner.pipeline.publish import NotPublishable, publish_run, record_failed_run
    from planner.pipeline.state import clear_stages
    from planner.pipeline.validation import (
        ValidationStageFailed,
        validate_inputs,
        validate_outputs,
    )

    started = datetime.now(UTC)
    result = PlanRun(interval)
    key = interval.key

    @contextmanager
    def step(name: str) -> Iterator[None]:
        print(f"[plan] {name} ...", file=log, flush=True)
        began = time.perf_counter()
        yield
        result.seconds[name] = time.perf_counter() - began
        print(f"[plan] {name}: done in {result.seconds[name]:.1f} s", file=log, flush=True)

    def fail(name: str, message: str) -> PipelineFailed:
        print(f"[plan] {name}: FAILED", file=log, flush=True)
        try:
            record_failed_run(
                workspace, key, f"{name}: {message}", config=config, started_at=started
            )
        except Exception as exc:  # the failure itself is what the caller must see
            print(f"[plan] could not record the failure in the store: {exc}", file=log)
        return PipelineFailed(name, message)

    def attempt(name: str, action: Callable[[], _T], *errors: type[BaseException]) -> _T:
        with step(name):
            try:
                return action()
            except errors as exc:
                raise fail(name, str(exc)) from None
            except PipelineFailed as exc:
                raise fail(name, str(exc).split(": ", 1)[1]) from None

    from planner.collect.base import SourceUnavailable
    from planner.figures import FiguresError

    result.collection = attempt(
        "collect_figures",
        lambda: collect_figures(config, workspace, interval, landing=landing),
        FiguresError,
        SourceUnavailable,
    )
    print(result.collection.summary(), file=log, flush=True)
    clear_stages(workspace.run_state(key))

    from pyspark.sql import SparkSession

    from spark_jobs import simulate_assignments, size_partitions
    from spark_jobs.figures import MissingFigures
    from spark_jobs.session import build_session, stop_session
    from spark_jobs.settings import load_settings

    settings = load_settings(config.path)
    # A session already running (a notebook's, a test's) is used and left running.
    existing = SparkSession.getActiveSession()
    spark = build_session(settings.spark, "partition-planner plan")
    try:
        checked = attempt(
            "validate_inputs",
            lambda: validate_inputs(
                spark,
                workspace,
                key,
                lookback_days=settings.lookback_days,
                max_bad_share=config.max_bad_row_share,
                min_coverage=observe_settings(config).min_coverage,
            ),
            ValidationStageFailed,
            MissingFigures,
        )
        if checked.set_aside.get("topics") or checked.set_aside.get("unnamed_rows"):
            # Row-level failures: the run goes on without those topics, and says so.
            print(checked.message, file=log, flush=True)
        args = jobs.job_arguments(workspace, str(interval), config.path)
        attempt("size_partitions", lambda: _job(size_partitions.main, "size_partitions", args))
        attempt(
            "simulate_assignments",
            lambda: _job(simulate_assignments.main, "simulate_assignments", args),
        )
        attempt(
            "validate_outputs",
            lambda: validate_outputs(spark, workspace, key),
            ValidationStageFailed,
            FileNotFoundError,
        )
    finally:
        if existing is None:
            stop_session(spark)
    from planner.store import StoreError

    result.published = attempt(
        "publish",
        lambda: publish_run(
            workspace,
            key,
            config=config,
            lookback_days=settings.lookback_days,
            started_at=started,
            durable=durable,
            accept_degraded=accept_degraded,
        ),
        NotPublishable,
        StoreError,
    )
    if result.published.accepted_degraded is not None:
        print(
            "[plan] published with --accept-degraded, although "
            f"{result.published.accepted_degraded}",
            file=log,
            flush=True,
        )
    return result
