"""`partition-planner show TOPIC`: a topic's latest published recommendation, from the store."""

from __future__ import annotations

import argparse
from typing import Any

from planner.commands import common


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "show",
        help="print a topic's latest published recommendation from the store",
        description=(
            "Read the recommendation store and print the topic's recommendation from the "
            "newest published data interval: the numbers, the deciding side and dimension, "
            "the consumer groups, the warnings and the arithmetic behind it."
        ),
    )
    p.add_argument("topic", help="the topic name")
    p.add_argument("--config", metavar="FILE", help="planner config file (TOML)")
    p.add_argument("--store", metavar="URL", help="store URL (overrides the config)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from planner.config import ConfigError, load_config
    from planner.store import RecommendationStore, StoreUnavailable, render_latest

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        raise common.UsageError(str(exc)) from None
    url = args.store or config.store_url
    try:
        store = RecommendationStore(url)
        if args.json:
            found = store.latest(args.topic)
            if found is None:
                raise LookupError(f"no published recommendation for topic {args.topic!r}")
            common.print_json(asdict(found))
        else:
            print(render_latest(store, args.topic))
    except (LookupError, StoreUnavailable) as exc:
        raise common.Failed(str(exc).strip("'\"")) from None
    return 0
