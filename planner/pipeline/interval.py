"""Which data interval `partition-planner plan` plans when it is not told, and why.

A scheduled run plans its own data interval (the DAGs, `planner.pipeline.tasks`): it
must never plan another day without saying so. A person running `plan` by hand on an
export is in another position: the export ends when it was taken, often days ago, and
"yesterday" then holds nothing to size. So, without `--interval`:

- yesterday (UTC) when the figures hold throughput for it;
- else the last *complete* day they hold, and the first lines of the run say which day
  and why;
- else (no throughput at all, or no complete day) the run stops before collecting
  anything, naming the days the figures hold and the flag.

A day is complete when the figures hold a sample in its last hour (23:00 UTC on), or a
sample of a later day (the export was taken after the day ended): the last day of an
export taken at noon is half a day, and planning its peak would understate it.

With `--interval` for a day the figures hold no throughput for, the run stops before
collecting anything and names the days they do hold, and the flag.

"The figures" are what the run would collect: the landing files' throughput (read and
conformed as collection does, without writing anything). A run whose sources include
Prometheus or the Kafka admin API reads a live cluster, which holds yesterday: those
runs plan yesterday, as a scheduled one would.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from planner.config import PlannerConfig
from planner.figures.dataset import DataInterval

__all__ = [
    "FLAG",
    "IntervalChoice",
    "NoFiguresForInterval",
    "SampleDays",
    "choose_interval",
    "landing_days",
]

#: The flag that picks the interval, named in every message that suggests one.
FLAG = "--interval"
# A day whose figures reach its last hour is complete (hourly samples start at 23:00).
_LAST_HOUR = timedelta(hours=23)


class NoFiguresForInterval(ValueError):
    """The interval asked for has no throughput in the figures; the message says which
    days have, and the flag to plan one of them."""


@dataclass(frozen=True)
class SampleDays:
    """The UTC days the figures hold throughput for.

    Attributes:
        days: Every day with at least one sample, oldest first.
        complete: Those that are complete (see the module docstring), oldest first.
    """

    days: tuple[date, ...]
    complete: tuple[date, ...]

    @classmethod
    def of(cls, timestamps: Iterable[datetime]) -> SampleDays:
        """The days of sample times (time-zone aware, any order)."""
        latest: dict[date, datetime] = {}
        for moment in timestamps:
            day = moment.astimezone(UTC).date()
            if day not in latest or moment > latest[day]:
                latest[day] = moment
        days = sorted(latest)
        complete = tuple(
            d
            for i, d in enumerate(days)
            if i + 1 < len(days) or latest[d] >= _start(d) + _LAST_HOUR
        )
        return cls(tuple(days), complete)

    def holds(self, interval: DataInterval) -> bool:
        """Whether any day with samples overlaps `interval`."""
        return any(
            _start(d) < interval.end and interval.start < _start(d) + timedelta(days=1)
            for d in self.days
        )

    def listing(self) -> str:
        """The days in a few words: `2026-11-01 .. 2026-11-14 (14 days)`, gaps shown."""
        if not self.days:
            return "no day at all"
        runs: list[tuple[date, date]] = []
        for d in self.days:
            if runs and d - runs[-1][1] == timedelta(days=1):
                runs[-1] = (runs[-1][0], d)
            else:
                runs.append((d, d))
        shown = [f"{a}" if a == b else f"{a} .. {b}" for a, b in runs]
        if len(shown) > 4:
            shown = [*shown[:2], "...", *shown[-2:]]
        count = len(self.days)
        return f"{', '.join(shown)} ({count} day{'s' if count != 1 else ''})"


def _start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


@dataclass(frozen=True)
class IntervalChoice:
    """The interval a `plan` run plans, and the lines that say why.

    Attributes:
        interval: The data interval.
        reason: Why this one, in a sentence (printed first by `plan`).
    """

    interval: DataInterval
    reason: str


def landing_days(root: str | Path) -> SampleDays:
    """The days a landing folder's throughput files hold samples for.

    Each file is read and conformed as collection reads it; rows collection would
    reject are left out, and a file collection cannot read is skipped (collection
    then stops on it, with its own message).
    """
    from planner.collect.landing import FORMATS, read_landing_file
    from planner.figures.conform import FiguresError, conform

    folder = Path(root) / "throughput"
    files = (
        sorted(
            p
            for p in folder.iterdir()
            if p.is_file() and not p.name.startswith((".", "_")) and p.suffix.lower() in FORMATS
        )
        if folder.is_dir()
        else []
    )
    moments: list[datetime] = []
    for path in files:
        try:
            raw, numbers, _ = read_landing_file(path, str(path))
            table = conform("throughput", raw, source=str(path), row_numbers=numbers).table
        except FiguresError:
            continue
        moments += _day_extremes(table.column("ts"))
    return SampleDays.of(moments)


def _day_extremes(ts: pa.ChunkedArray) -> list[datetime]:
    """The latest sample of each UTC day in `ts` (enough to tell days and completeness)."""
    if len(ts) == 0:
        return []
    micros = np.asarray(pc.cast(ts, pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)
    day_us = 86_400 * 1_000_000
    days = micros // day_us
    order = np.lexsort((micros, days))
    last = np.flatnonzero(np.append(np.diff(days[order]) != 0, True))
    return [
        datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(v))
        for v in micros[order][last]
    ]


def choose_interval(
    config: PlannerConfig,
    *,
    asked: str | None,
    landing: Path | None,
    now: datetime,
    days: SampleDays | None = None,
) -> IntervalChoice:
    """The interval to plan: the one asked for, else yesterday or the last complete day.

    Args:
        config: The run's config (its sources say whether the figures can be looked at
            before collecting).
        asked: `--interval` as given, or None.
        landing: The landing folder replacing the configured one, if any.
        now: The current time (UTC).
        days: The days the figures hold (default: read from the landing folder when
            the run reads landing files only).

    Raises:
        ValueError: `asked` is not a day or an interval.
        NoFiguresForInterval: the interval asked for has no throughput in the figures.
    """
    yesterday = DataInterval.day((now.astimezone(UTC) - timedelta(days=1)).date())
    if days is None and config.sources == ("landing",):
        days = landing_days(landing or config.resolve(config.source_settings["landing"]["path"]))
    if asked is not None:
        interval = DataInterval.parse(asked)
        if days is not None and not days.holds(interval):
            raise NoFiguresForInterval(_missing(f"{FLAG} {asked}", interval, days))
        return IntervalChoice(interval, f"{interval.start.date()} ({FLAG} {asked})")
    if days is None:
        return IntervalChoice(
            yesterday,
            f"{yesterday.start.date()} (no {FLAG} given: yesterday, UTC; the live sources hold it)",
        )
    if days.holds(yesterday):
        return IntervalChoice(
            yesterday, f"{yesterday.start.date()} (no {FLAG} given: yesterday, UTC)"
        )
    if not days.complete:
        raise NoFiguresForInterval(
            _missing(f"no {FLAG} given, and yesterday", yesterday, days)
            + ("" if not days.days else "; none of those days is complete (see --help)")
        )
    chosen = days.complete[-1]
    return IntervalChoice(
        DataInterval.day(chosen),
        f"{chosen} (no {FLAG} given, and yesterday, {yesterday.start.date()}, has no "
        f"throughput in the figures: they hold {days.listing()}, and {chosen} is the last "
        f"complete day; plan another with {FLAG} DAY)",
    )


def _missing(what: str, interval: DataInterval, days: SampleDays) -> str:
    span = (
        f"{interval.start.date()}"
        if interval.days == 1 and interval.start.hour == 0 and interval.start.minute == 0
        else str(interval)
    )
    if not days.days:
        return f"{what}: the figures hold no throughput at all, for {span} or any other day"
    suggest = (days.complete or days.days)[-1]
    return (
        f"{what}: the figures hold no throughput for {span}; they hold {days.listing()}; "
        f"plan one of those days with {FLAG} (e.g. {FLAG} {suggest})"
    )
