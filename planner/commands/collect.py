"""`partition-planner collect`: one data interval's figures into the canonical dataset."""

from __future__ import annotations

import argparse
from typing import Any

from planner.commands import common


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "collect",
        help="gather one data interval's figures from the configured sources",
        description=(
            "Read the configured sources (landing files and perf-tool output, Prometheus, "
            "the Kafka admin API), check every row, and write the data interval to the "
            "figures dataset, replacing an earlier write of the same interval. Bad rows "
            "are listed and kept in the interval's rejected table; a file or source that "
            "cannot be used stops the collection and nothing is written."
        ),
    )
    p.add_argument("--config", metavar="FILE", help="planner config file (TOML)")
    p.add_argument("--landing", metavar="DIR", help="landing folder (overrides the config)")
    p.add_argument("--figures", metavar="DIR", help="figures dataset (overrides the config)")
    p.add_argument(
        "--interval",
        required=True,
        metavar="DATE|START/END",
        help="data interval: a UTC day (2026-11-21) or START/END in ISO 8601",
    )
    p.add_argument(
        "--history-days",
        type=common.whole(0),
        metavar="N",
        help="also collect the missing days of throughput history (default: the config's)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.collect.base import SourceUnavailable
    from planner.collect.run import collect_interval
    from planner.collect.sources import build_sources
    from planner.config import ConfigError, load_config
    from planner.figures import DataInterval, FiguresError

    try:
        interval = DataInterval.parse(args.interval)
    except ValueError as exc:
        raise common.UsageError(f"--interval: {exc}") from None
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        raise common.UsageError(str(exc)) from None
    figures = args.figures or config.figures_root
    history = config.history_days if args.history_days is None else args.history_days
    try:
        sources = build_sources(config, landing=args.landing)
        report = collect_interval(sources, interval, figures, history_days=history)
    except (FiguresError, SourceUnavailable, ConfigError) as exc:
        raise common.Failed(str(exc)) from None
    if args.json:
        common.print_json(
            {
                "interval": {"start": interval.start, "end": interval.end},
                "path": str(report.path),
                "rows": report.rows,
                "rejected": report.rejected.to_pylist(),
                "history": [str(h) for h in report.history],
                "notes": list(report.notes),
            }
        )
    else:
        print(report.summary())
    return 0
