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
conformed as collection does, without writing anything).

A run whose sources include a live one (Prometheus, the Kafka admin API) cannot read
its figures without collecting them, and a live source does not always hold yesterday:
Prometheus may have started today or been down, and the admin source reads only the
cluster as it is. So such a run asks each live source, before any step, what it holds
of yesterday (`planner.pipeline.live_days`: for Prometheus one cheap query) and plans
yesterday when one of them, or the landing files among the sources, holds some of it;
the first line says who holds how much. Otherwise it stops at once, naming what each
source holds and how to get the day (for the admin source alone: `partition-planner
observe`, Prometheus or a landing export). It does not fall back to an earlier day, as
a scheduled run against a live cluster would not: the refusal suggests one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from planner.config import PlannerConfig
from planner.figures.dataset import DataInterval
from planner.pipeline.live_days import DayCover, live_covers
from planner.pipeline.sample_days import FLAG, SampleDays

__all__ = [
    "FLAG",
    "DayCover",
    "IntervalChoice",
    "NoFiguresForInterval",
    "SampleDays",
    "choose_interval",
    "landing_days",
]


class NoFiguresForInterval(ValueError):
    """The interval asked for has no throughput in the figures; the message says which
    days have, and the flag to plan one of them."""


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
    live: Sequence[DayCover] | None = None,
) -> IntervalChoice:
    """The interval to plan: the one asked for, else yesterday or the last complete day.

    Decided before any step runs: on landing files only, from their throughput; with
    live sources, yesterday when one of them (or the landing files among them) holds
    it, else a refusal naming what each holds and how to get the day.

    Args:
        config: The run's config (its sources say whether the figures can be looked at
            before collecting).
        asked: `--interval` as given, or None.
        landing: The landing folder replacing the configured one, if any.
        now: The current time (UTC).
        days: The days the landing files hold (default: read from the landing folder
            when the run reads it).
        live: What each live source holds of yesterday (default: asked with
            `planner.pipeline.live_days.live_covers`, only when no `asked`).

    Raises:
        ValueError: `asked` is not a day or an interval.
        NoFiguresForInterval: the interval asked for has no throughput in the figures,
            or, without `asked`, no source holds yesterday.
        SourceUnavailable, FiguresError: a live source could not be asked.
    """
    yesterday = DataInterval.day((now.astimezone(UTC) - timedelta(days=1)).date())
    if "landing" not in config.sources:
        landing = None  # --landing replaces a configured landing source, adds none
    elif landing is None:
        landing = config.resolve(config.source_settings["landing"]["path"])
    if days is None and config.sources == ("landing",):
        assert landing is not None
        days = landing_days(landing)
    if asked is not None:
        interval = DataInterval.parse(asked)
        if days is not None and not days.holds(interval):
            raise NoFiguresForInterval(_missing(f"{FLAG} {asked}", interval, days))
        return IntervalChoice(interval, f"{interval.start.date()} ({FLAG} {asked})")
    if config.sources != ("landing",):
        covers = live_covers(config, yesterday, now) if live is None else list(live)
        return _live_choice(yesterday, covers, landing, days)
    assert days is not None
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


def _live_choice(
    yesterday: DataInterval,
    covers: Sequence[DayCover],
    landing: Path | None,
    days: SampleDays | None,
) -> IntervalChoice:
    """Yesterday when a live source or the landing files hold some of it; else refuse.

    A source holding part of yesterday is enough, as landing files holding part of it
    are on their own: the reason says how much, and `collect` notes the rest. The
    landing folder (when configured) is read only when no live source holds the day.
    """
    day = yesterday.start.date()
    holding = [c.share() for c in covers if c.held]
    files = None
    if not holding and landing is not None:
        files = days if days is not None else landing_days(landing)
        if files.holds(yesterday):
            holding.append(f"the landing files ({landing}) hold throughput for it")
    if holding:
        return IntervalChoice(
            yesterday, f"{day} (no {FLAG} given: yesterday, UTC; {'; '.join(holding)})"
        )
    lines = [f"no {FLAG} given, and no source holds yesterday, {day} (UTC):"]
    lines += [f"- {c.source} {c.holds}; {c.remedy}" for c in covers]
    if files is not None:
        lines.append(
            f"- the landing files ({landing}) hold "
            + (
                f"{files.listing()}; plan one of those days with {FLAG} "
                f"(e.g. {FLAG} {(files.complete or files.days)[-1]})"
                if files.days
                else "no throughput at all"
            )
        )
    raise NoFiguresForInterval("\n".join(lines))


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
