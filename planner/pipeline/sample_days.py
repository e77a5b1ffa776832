"""The UTC days a source holds throughput for, and the flag that plans one of them.

Shared by the interval choice (`planner.pipeline.interval`) and the live sources'
answers about what they hold (`planner.pipeline.live_days`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from planner.figures.dataset import DataInterval

__all__ = ["FLAG", "SampleDays", "day_start"]

#: The flag that picks the interval, named in every message that suggests one.
FLAG = "--interval"
# A day whose figures reach its last hour is complete (hourly samples start at 23:00).
_LAST_HOUR = timedelta(hours=23)


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
            if i + 1 < len(days) or latest[d] >= day_start(d) + _LAST_HOUR
        )
        return cls(tuple(days), complete)

    def holds(self, interval: DataInterval) -> bool:
        """Whether any day with samples overlaps `interval`."""
        return any(
            day_start(d) < interval.end and interval.start < day_start(d) + timedelta(days=1)
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


def day_start(day: date) -> datetime:
    """The first instant of the UTC day `day`."""
    return datetime(day.year, day.month, day.day, tzinfo=UTC)
