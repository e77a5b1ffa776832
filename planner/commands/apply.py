"""`partition-planner apply`: a published run's partition changes, made on the cluster."""

from __future__ import annotations

import argparse
import getpass
import socket
import sys
from typing import Any

from planner.commands import common
from planner.commands.published import add_published_run_arguments, changes_of, published_run


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "apply",
        help="add the partitions a published run recommends (a dry run unless --execute)",
        description=(
            "Against the cluster of the config's [sources.kafka]: for each topic the run "
            "changes, read its partition count, then (a dry run, the default) ask the broker "
            "to validate the change, or (--execute) make it and verify it, one topic at a "
            "time. A keyed topic is refused without --allow-key-remap; a topic whose count "
            "is not the one the plan saw is refused (plan again); one at its planned count "
            "already is left alone; nothing is ever decreased. Every attempt is recorded in "
            "the store (`show TOPIC` prints them). Exit 0 when every topic is (or would be) "
            "at its planned count, 1 otherwise."
        ),
    )
    add_published_run_arguments(p)
    p.add_argument("--execute", action="store_true", help="make the changes (default: dry run)")
    p.add_argument(
        "--allow-key-remap",
        action="store_true",
        help="change keyed topics too: most of their keys move to another partition",
    )
    p.add_argument("--who", metavar="NAME", help="who applies, for the audit (default: user@host)")
    p.add_argument(
        "--timeout-s",
        type=common.positive,
        default=None,
        metavar="S",
        help="seconds one admin request may take (default: [sources.kafka] request_timeout_s)",
    )
    p.add_argument(
        "--verify-timeout-s",
        type=common.positive,
        default=30.0,
        metavar="S",
        help="seconds to wait for a change to show in the topic's metadata (default 30)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.apply.report import render_report
    from planner.apply.session import apply_published
    from planner.collect.sources import build_kafka_source
    from planner.config import ConfigError
    from planner.store import StoreError, StoreUnavailable

    published, config = published_run(args)
    changes = changes_of(args, published)
    try:
        source = build_kafka_source(config)
    except (ConfigError, ValueError) as exc:
        raise common.UsageError(f"--config: {exc} (apply changes the cluster it names)") from None
    who = args.who or f"{getpass.getuser()}@{socket.gethostname()}"
    try:
        report = apply_published(
            changes,
            source,
            store_url=args.store or config.store_url,
            source_text=published.source,
            who=who,
            execute=args.execute,
            allow_key_remap=args.allow_key_remap,
            timeout_s=args.timeout_s,
            verify_timeout_s=args.verify_timeout_s,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except (StoreUnavailable, StoreError) as exc:
        raise common.Failed(f"{exc}: no change is made without its audit row") from None
    print(render_report(report, changes))
    return 0 if report.ok else common.EXIT_FAILED
