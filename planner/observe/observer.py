"""The observer's loop: a sample every period, appended; closed days compacted; old ones dropped.

`run` takes a sample every `every_s` seconds (on a fixed schedule: a sample that took
long delays the next one only if it overran the period, and a missed tick is skipped,
not made up), appends it to the dataset, and once a day compacts the days that are over
and removes those past the retention. It stops when `stop` is set (the command sets it
on SIGINT or SIGTERM: the sample in flight is finished and written first) or after
`duration_s`.

A sample that fails (the cluster unreachable within the retries) is logged and skipped:
the next one reads the window from the last sample written, since end offsets are
cumulative, so no record goes uncounted; only the time resolution suffers, and the
collection's coverage says so.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import pyarrow.compute as pc

from planner.collect.base import SourceUnavailable
from planner.observe.dataset import ObservationsDataset
from planner.observe.sampler import ClusterSampler, Sample

__all__ = ["ObserveReport", "run"]

_LOG = logging.getLogger("planner.observe")


@dataclass
class ObserveReport:
    """What one run of the observer did.

    Attributes:
        samples: Samples written.
        failed: Samples that could not be taken (with why, in `errors`).
        errors: The failures' messages, the last few.
        compacted: Days compacted.
        pruned: Days removed past the retention.
    """

    samples: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    compacted: list[date] = field(default_factory=list)
    pruned: list[date] = field(default_factory=list)


def run(
    sampler: ClusterSampler,
    dataset: ObservationsDataset,
    *,
    every_s: float,
    retention_days: int,
    stop: threading.Event,
    duration_s: float | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    say: Callable[[str], None] = _LOG.info,
) -> ObserveReport:
    """Observe until `stop` is set or `duration_s` has passed.

    Args:
        sampler: Takes the samples.
        dataset: Where they go (its writer lock is held for the whole run).
        every_s: Seconds between samples.
        retention_days: Days of samples kept.
        stop: Set to end the run after the sample in flight.
        duration_s: Seconds to run for (None: until stopped).
        now: The wall clock (UTC).
        say: Where one line per sample goes.

    Raises:
        ObserverRunning: another observer writes `dataset`.
    """
    report = ObserveReport()
    started = time.monotonic()
    deadline = started + duration_s if duration_s is not None else None
    with dataset.writer():
        _restore_keys(sampler, dataset, now())
        _housekeeping(dataset, now(), every_s, retention_days, report, say)
        previous: Sample | None = None
        housekept = now().date()
        tick = started
        while not stop.is_set():
            try:
                sample = sampler.sample(previous)
            except SourceUnavailable as exc:
                report.failed += 1
                report.errors = [*report.errors[-9:], str(exc)]
                say(f"sample failed, the next one covers its window: {exc}")
            else:
                dataset.append(sample.ts, sample.tables)
                previous = sample
                report.samples += 1
                say(_line(sample))
            today = now().date()
            if today != housekept:
                _housekeeping(dataset, now(), every_s, retention_days, report, say)
                housekept = today
            tick += every_s
            moment = time.monotonic()
            if tick < moment:  # the sample overran its period: skip the missed ticks
                tick += every_s * ((moment - tick) // every_s + 1)
            if deadline is not None and tick > deadline:
                break
            stop.wait(tick - time.monotonic())
    return report


def _line(sample: Sample) -> str:
    info = sample.tables["sample"].to_pylist()[0]
    groups = sample.tables["groups"].num_rows
    text = (
        f"sample {sample.ts.isoformat(timespec='seconds')}: {info['topics']} topic(s), "
        f"{info['partitions']} partition(s), {groups} group(s), took {info['took_s']:.1f} s"
    )
    if sample.notes:
        text += f"; {len(sample.notes)} note(s), e.g. {sample.notes[0]}"
    return text


def _restore_keys(sampler: ClusterSampler, dataset: ObservationsDataset, moment: datetime) -> None:
    """Give the key reservoir the priorities today's samples already wrote."""
    day = moment.astimezone(UTC).date()
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    keys = dataset.read("keys", start, start + timedelta(days=1))
    if not keys.num_rows:
        return
    for topic in pc.unique(keys.column("topic")).to_pylist():
        rows = keys.filter(pc.equal(keys.column("topic"), topic))
        sampler.reservoir.restore(topic, day, rows.column("priority").to_numpy())


def _housekeeping(
    dataset: ObservationsDataset,
    moment: datetime,
    every_s: float,
    retention_days: int,
    report: ObserveReport,
    say: Callable[[str], None],
) -> None:
    """Compact the days that are over; remove those past the retention."""
    # A sample dated just before midnight may be written a moment after it.
    closed_before = (moment - timedelta(seconds=2 * every_s)).astimezone(UTC).date()
    for day in dataset.days():
        if day < closed_before and dataset.compact(day):
            report.compacted.append(day)
            say(f"compacted {day}")
    removed = dataset.prune(keep_days=retention_days, now=moment)
    report.pruned += removed
    if removed:
        say(f"removed {len(removed)} day(s) past the {retention_days}-day retention")
