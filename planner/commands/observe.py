"""`partition-planner observe`: record a live cluster over time, for plans of past intervals."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from typing import Any

from planner.commands import common


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "observe",
        help="sample a live cluster every period into the observations dataset",
        description=(
            "Run in the foreground, sampling the cluster of the config's [sources.kafka] "
            "every observe_every_s seconds: end offsets, topics, brokers, consumer groups "
            "with their members and committed offsets, and a bounded read of the new "
            "records (their size, their keys' hashes). Each sample is appended whole to "
            "the observations dataset ([sources.kafka] observations), which `collect` and "
            "`plan` then read for any interval it covers. SIGINT or SIGTERM ends it after "
            "the sample in flight is written (a second one aborts that sample; nothing "
            "written is lost)."
        ),
    )
    p.add_argument("--config", metavar="FILE", help="planner config file (TOML)")
    p.add_argument(
        "--observations", metavar="DIR", help="observations dataset (overrides the config)"
    )
    p.add_argument(
        "--every", type=common.positive, metavar="SECONDS", help="sampling period (overrides)"
    )
    p.add_argument(
        "--duration", type=common.positive, metavar="SECONDS", help="stop by itself after this long"
    )
    p.add_argument(
        "--status",
        action="store_true",
        help="sample nothing: print when the last sample was taken and exit 0 if it is "
        "younger than three periods, 1 otherwise (a health check)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.collect.base import SourceUnavailable
    from planner.collect.sources import build_kafka_source
    from planner.config import ConfigError, load_config, observe_settings
    from planner.observe.dataset import ObservationsDataset, ObserverRunning
    from planner.observe.observer import run as observe
    from planner.observe.sampler import ClusterSampler

    try:
        config = load_config(Path(args.config).absolute() if args.config else None)
        settings = observe_settings(config)
        source = build_kafka_source(config)
    except (ConfigError, ValueError) as exc:
        raise common.UsageError(str(exc)) from None
    folder = Path(args.observations) if args.observations else settings.observations
    if folder is None:
        raise common.UsageError(
            "no observations folder: give --observations DIR or [sources.kafka] observations"
        )
    every_s = args.every or settings.observe_every_s
    if args.status:
        return _status(ObservationsDataset(folder), every_s)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    stop = threading.Event()

    def on_signal(number: int, _frame: object) -> None:
        if stop.is_set():  # the second one: abort the sample in flight
            raise KeyboardInterrupt
        logging.getLogger("planner.observe").info(
            "%s: stopping after the sample in flight", signal.Signals(number).name
        )
        stop.set()

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, on_signal)
    sampler = ClusterSampler(
        source,
        every_s=every_s,
        observer=f"{socket.gethostname()}:{os.getpid()}",
        key_sample_size=settings.key_sample_size,
        tools_every_s=settings.group_tools_every_s,
        configs_every_s=settings.configs_every_s,
    )
    print(
        f"observing {source.bootstrap_servers} every {every_s:g} s into {folder}",
        file=sys.stderr,
        flush=True,
    )
    try:
        report = observe(
            sampler,
            ObservationsDataset(folder),
            every_s=every_s,
            retention_days=settings.retention_days,
            stop=stop,
            duration_s=args.duration,
        )
    except ObserverRunning as exc:
        raise common.Failed(str(exc)) from None
    except KeyboardInterrupt:
        print("aborted: the sample in flight was not written", file=sys.stderr)
        return 130
    except SourceUnavailable as exc:
        raise common.Failed(str(exc)) from None
    finally:
        sampler.close()
    print(
        f"{report.samples} sample(s) written to {folder}"
        + (f", {report.failed} failed (last: {report.errors[-1]})" if report.failed else "")
    )
    return 0


def _status(dataset: Any, every_s: float) -> int:
    from datetime import UTC, datetime, timedelta

    now = datetime.now(UTC)
    days = dataset.days()
    last = None
    for day in reversed(days[-2:]):
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        times = dataset.sample_times(start, start + timedelta(days=1))
        if times:
            last = times[-1]
            break
    if last is None:
        print(f"no sample in {dataset.root} in the last two days")
        return 1
    age_s = (now - last).total_seconds()
    print(f"last sample {last.isoformat(timespec='seconds')}, {age_s:.0f} s ago")
    return 0 if age_s <= 3 * every_s else 1
