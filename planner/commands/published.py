"""The published run `export` and `apply` read: their shared flags and the reading.

`--run KEY|latest` (the store's fleet run) or `--recommendations FILE`, `--config`,
`--store`, `--topic`; bad flags and unknown topics are usage errors (exit 2), a run that
cannot be read a failure (exit 1).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from planner.commands import common


def add_published_run_arguments(p: argparse.ArgumentParser) -> None:
    """`--run`, `--recommendations`, `--config`, `--store`, `--topic` (export and apply)."""
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--run",
        dest="run_key",
        metavar="KEY",
        default=None,
        help="the store's published fleet run (its key, e.g. 20261120T0000Z, or latest; "
        "default latest)",
    )
    source.add_argument(
        "--recommendations",
        metavar="FILE",
        type=Path,
        help="a published recommendations.json instead of the store",
    )
    p.add_argument("--config", metavar="FILE", help="planner config file (TOML)")
    p.add_argument("--store", metavar="URL", help="store URL (overrides the config)")
    p.add_argument(
        "--topic",
        action="append",
        metavar="TOPIC",
        help="only this topic and the groups reading it (repeat for more)",
    )


def published_run(args: argparse.Namespace) -> tuple[Any, Any]:
    """The run the arguments name, and the config (export and apply)."""
    from planner.adapters.published_run import LATEST, RunNotFound, from_file, from_store
    from planner.config import ConfigError, load_config
    from planner.store import StoreError, StoreUnavailable

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        raise common.UsageError(str(exc)) from None
    try:
        if args.recommendations is not None:
            return from_file(args.recommendations), config
        return from_store(args.store or config.store_url, args.run_key or LATEST), config
    except (RunNotFound, StoreUnavailable, StoreError) as exc:
        raise common.Failed(str(exc).strip("'\"")) from None


def changes_of(args: argparse.Namespace, published: Any) -> Any:
    """The change list of the run, for the topics asked for."""
    from planner.changes import UnknownTopics, change_list

    try:
        return change_list(published.topics, topics=args.topic)
    except UnknownTopics as exc:
        raise common.UsageError(f"--topic: {exc}") from None
