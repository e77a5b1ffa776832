"""`partition-planner plan`: the whole pipeline for one data interval, without Airflow."""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from planner.commands import common


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "plan",
        help="collect, validate, size, simulate, validate and publish one data interval",
        description=(
            "Run the pipeline the Airflow DAG runs, in one process: collect the interval's "
            "figures (and missing history days), validate them with the input suites, run "
            "both Spark jobs, validate their datasets with the output suites, and publish "
            "the store rows, the report site (OUT/report/index.html) and "
            "OUT/recommendations.json. If any step fails, or the run newly leaves more "
            "than [publish] max_new_unsized_share of the fleet unsized (held; see "
            "--accept-degraded), nothing is published and the last good report and rows "
            "stay; the failure is recorded in the store."
        ),
    )
    p.add_argument("--landing", metavar="DIR", help="landing folder (overrides the config)")
    p.add_argument(
        "--out",
        metavar="DIR",
        help="put figures, datasets, the store and the report under DIR "
        "(default: the config's folders)",
    )
    p.add_argument("--config", metavar="FILE", help="planner config file (TOML)")
    p.add_argument(
        "--interval",
        metavar="DATE|START/END",
        help="data interval: a UTC day or START/END in ISO 8601 (default: yesterday, UTC, "
        "or, when the landing files hold no throughput for yesterday, the last complete "
        "day they hold: one with a sample in its last hour, or followed by another day; "
        "with live sources, yesterday when Prometheus or the landing files hold it, "
        "else the run stops at once saying what they hold)",
    )
    p.add_argument(
        "--store", metavar="URL", help="store URL (default: OUT/store.db or the config's)"
    )
    p.add_argument(
        "--accept-degraded",
        action="store_true",
        help="publish even a run the publish guard holds: one that newly leaves more than "
        "[publish] max_new_unsized_share (default 10 %%) of the fleet without a partition "
        "count, compared with the last good run (on a first run: unsized at all)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.collect.base import SourceUnavailable
    from planner.config import ConfigError, load_config
    from planner.figures import DataInterval, FiguresError
    from planner.pipeline.interval import NoFiguresForInterval, choose_interval
    from planner.pipeline.run import PipelineFailed, run_pipeline
    from planner.pipeline.workspace import Workspace

    if args.interval:
        try:
            DataInterval.parse(args.interval)
        except ValueError as exc:
            raise common.UsageError(f"--interval: {exc}") from None
    try:
        config = load_config(Path(args.config).absolute() if args.config else None)
    except ConfigError as exc:
        raise common.UsageError(str(exc)) from None
    if args.landing and not Path(args.landing).is_dir():
        raise common.UsageError(f"--landing: {args.landing} is not a folder")
    landing = Path(args.landing).absolute() if args.landing else None
    try:
        choice = choose_interval(
            config, asked=args.interval, landing=landing, now=datetime.now(UTC)
        )
    except NoFiguresForInterval as exc:
        raise common.Failed(f"{exc}\nnothing was collected or published") from None
    except (SourceUnavailable, FiguresError) as exc:
        raise common.Failed(
            f"cannot tell which day the live sources hold: {exc}\n"
            "give --interval to plan a day without asking; nothing was collected or published"
        ) from None
    # First, so whoever reads the log knows which day the rest is about.
    print(f"[plan] interval: {choice.reason}", file=sys.stderr, flush=True)
    interval = choice.interval
    if args.out:
        workspace = Workspace.under(args.out, store_url=args.store)
    else:
        workspace = Workspace.from_config(config)
        if args.store:
            import dataclasses

            workspace = dataclasses.replace(workspace, store_url=args.store)
    try:
        done = run_pipeline(
            config, workspace, interval, landing=landing, accept_degraded=args.accept_degraded
        )
    except PipelineFailed as exc:
        raise common.Failed(f"{exc}\nnothing was published; the last good report stays") from None
    assert done.published is not None
    print(done.published.summary)
    print(f"report: {done.published.index.absolute()}")
    print(f"recommendations.json: {workspace.recommendations_json.absolute()}")
    steps = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in done.seconds.items())
    print(f"steps: {steps}")
    return 0
