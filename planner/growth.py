"""Growth fitted on a topic's history: how fast its traffic grows, robustly.

`fit_growth` reduces the samples to one mean level per hour and takes the median slope
between the same hour of the week, whole weeks apart (Theil-Sen on week-matched pairs),
so the daily and weekly cycles cancel out and a burst moves only the pairs it is part of;
with less than two weeks, the median slope between daily levels. `planner.sizing` grows
a topic's observed peak with it to the end of the planning horizon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = ["GrowthFit", "GrowthModel", "SampleTimes", "fit_growth"]

GrowthModel = Literal["exponential", "linear", "none"]

_SECONDS_PER_DAY = 86_400.0
_SECONDS_PER_HOUR = 3_600.0
_HOURS_PER_WEEK = 168
# Fewer week-matched pairs than this (less than about two weeks of hourly figures) and
# the fit falls back to daily levels.
_MIN_WEEK_PAIRS = 24


@dataclass(frozen=True)
class GrowthFit:
    """Growth fitted on history.

    Attributes:
        model: `exponential` (a rate per day, compounding), `linear` (units per day) or
            `none` (no fit: too little history, or growth disabled).
        per_day: Fractional growth per day (exponential) or units per day (linear).
        days_of_history: Distinct days the fit used.
        reason: Why the model is what it is, in plain words.
    """

    model: GrowthModel
    per_day: float
    days_of_history: int
    reason: str

    @property
    def per_year(self) -> float:
        """Exponential growth as a yearly fraction (0.5 = +50 %/year); linear: units/year."""
        if self.model == "exponential":
            return float(math.expm1(365.0 * math.log1p(self.per_day)))
        return self.per_day * 365.0


def _distinct(values: npt.NDArray[np.float64]) -> int:
    # Distinct values; samples usually arrive in time order, which needs no sort.
    steps = np.diff(values)
    if (steps >= 0).all():
        return int(values.size and 1 + np.count_nonzero(steps))
    return int(np.unique(values).size)


def _median_slope(dx: npt.NDArray[np.float64], dy: npt.NDArray[np.float64]) -> float:
    keep = np.isfinite(dy) & (dx != 0)
    return _median(dy[keep] / dx[keep])


def _median(values: npt.NDArray[np.float64]) -> float:
    # np.median to the bit (the middle order statistic, or the mean of the two middle
    # ones as (a + b) / 2), without its generic axis handling: fits run three times per
    # topic, for every topic of a fleet. The values here are finite.
    n = values.size
    if n == 0:
        return float(np.median(values))
    half = n // 2
    if n % 2:
        return float(np.partition(values, half)[half])
    low, high = np.partition(values, (half - 1, half))[half - 1 : half + 1]
    return float((low + high) / 2)


class SampleTimes:
    """What a growth fit needs of its sample times, worked out once for them.

    A topic's dimensions are fitted on the same times (when none of their samples is
    left out), so `planner.sizing.targets_from_history` shares one of these between them.
    """

    def __init__(self, t: npt.NDArray[np.float64]) -> None:
        self.t = t

    @cached_property
    def days(self) -> int:
        """Distinct days (UTC) among the times."""
        return _distinct(np.floor(self.t / _SECONDS_PER_DAY))

    @cached_property
    def hours(self) -> npt.NDArray[np.int64]:
        """Each time's hour since the epoch."""
        return np.floor(self.t / _SECONDS_PER_HOUR).astype(np.int64)

    @cached_property
    def one_per_hour(self) -> bool:
        """Whether the hours ascend strictly: one sample per hour, in order."""
        hours = self.hours
        return bool(hours.size and (np.diff(hours) > 0).all())


def _hourly_levels(
    times: SampleTimes, r: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    # Per-minute Prometheus samples and hourly landing files alike become one mean level
    # per hour, so the fit costs the same whatever the scrape interval.
    hours = times.hours
    if times.one_per_hour:
        # One sample per hour, in order (hourly figures, sorted): each level is its one
        # sample, with the same float operations as the general case (0.0 + r, / 1).
        return hours, (r + 0.0) / 1.0
    unique_hours, index = np.unique(hours, return_inverse=True)
    sums = np.bincount(index, weights=r)
    counts = np.bincount(index)
    return unique_hours, sums / counts


def _week_matched_slope(
    hours: npt.NDArray[np.int64], y: npt.NDArray[np.float64]
) -> tuple[float, int]:
    # Theil-Sen restricted to pairs of the same hour of the week, whole weeks apart: the
    # daily and weekly cycles cancel out of every pair, and the median ignores bursts.
    # `hours` ascend strictly (`_hourly_levels`).
    if hours.size and int(hours[-1] - hours[0]) == hours.size - 1:
        return _contiguous_week_slope(y)
    first = int(hours.min())
    week = (hours - first) // _HOURS_PER_WEEK
    slot = (hours - first) % _HOURS_PER_WEEK
    weeks = int(week.max()) + 1
    grid = np.full((weeks, _HOURS_PER_WEEK), np.nan)
    grid[week, slot] = y
    if weeks < 2:
        return 0.0, 0
    # Each pair's slope, (y_later - y_earlier) / days apart; a pair with a missing hour
    # is NaN and left out (the quotient of a finite difference by 7, 14, ... days is
    # finite exactly when the difference is).
    slopes = np.concatenate(
        [((grid[lag:] - grid[:-lag]) / (7.0 * lag)).ravel() for lag in range(1, weeks)]
    )
    finite = np.isfinite(slopes)
    pairs = int(np.count_nonzero(finite))
    return (_median(slopes[finite]) if pairs else 0.0), pairs


def _contiguous_week_slope(y: npt.NDArray[np.float64]) -> tuple[float, int]:
    # `_week_matched_slope` when no hour is missing (hourly figures, the usual case):
    # the pair of hours i and i + 168 x lag is y's own elements, so the slopes are taken
    # from y directly instead of from a NaN-padded week grid, the same values (the same
    # subtraction and division) in the same order (by lag, then hour), so the median is
    # the grid's to the bit. A third of the grid's cost.
    weeks = (y.size - 1) // _HOURS_PER_WEEK + 1
    if weeks < 2:
        return 0.0, 0
    slopes = np.concatenate(
        [
            (y[lag * _HOURS_PER_WEEK :] - y[: y.size - lag * _HOURS_PER_WEEK]) / (7.0 * lag)
            for lag in range(1, weeks)
        ]
    )
    finite = np.isfinite(slopes)
    if not finite.all():
        slopes = slopes[finite]
    return (_median(slopes) if slopes.size else 0.0), int(slopes.size)


def _daily_slope(t: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> tuple[float, int]:
    # Fallback for less than two weeks: Theil-Sen over the daily mean levels.
    days = np.floor(t / _SECONDS_PER_DAY)
    unique_days, index = np.unique(days, return_inverse=True)
    levels = np.bincount(index, weights=y) / np.bincount(index)
    i, j = np.triu_indices(unique_days.size, k=1)
    return _median_slope(unique_days[j] - unique_days[i], levels[j] - levels[i]), int(i.size)


def fit_growth(
    ts_s: npt.ArrayLike,
    rates: npt.ArrayLike,
    *,
    model: GrowthModel = "exponential",
    min_days: int = 7,
    times: SampleTimes | None = None,
) -> GrowthFit:
    """Fit a growth trend on a topic's history, robustly.

    The samples are reduced to one mean level per hour. With two weeks or more, the
    slope is the median of the slopes between the same hour of the week, whole weeks
    apart (Theil-Sen on week-matched pairs): the daily and weekly cycles cancel out,
    and a burst or an outage moves only the few pairs it is part of. With less, the
    median of pairwise slopes between daily mean levels is used. The fit is on the
    logarithm of the levels for `exponential` (hours with no traffic are left out), on
    the levels for `linear`. The peak is assumed to grow with the level.

    Args:
        ts_s: Sample times, seconds since the epoch (UTC).
        rates: Per-sample rates, one unit.
        model: `exponential`, `linear` or `none`.
        min_days: Fewer distinct days than this and no trend is fitted (`none`).
        times: `ts_s` as `SampleTimes`, to share their days and hours between the fits
            of several series on the same times (used when no sample is left out).
    """
    if model == "none":
        return GrowthFit("none", 0.0, 0, "growth fitting disabled in the configuration")
    if model not in ("exponential", "linear"):
        raise ValueError(f"unknown growth model {model!r}: use exponential, linear or none")
    return _fit_growth(
        np.asarray(ts_s, dtype=np.float64),
        np.asarray(rates, dtype=np.float64),
        model=model,
        min_days=min_days,
        times=times,
    )


def _fit_growth(
    t: npt.NDArray[np.float64],
    r: npt.NDArray[np.float64],
    *,
    model: GrowthModel,
    min_days: int,
    times: SampleTimes | None,
) -> GrowthFit:
    # fit_growth on arrays, `model` checked; `times`: the same times as `t`, their days
    # and hours perhaps already worked out (used when no sample is left out).
    if t.shape != r.shape:
        raise ValueError("timestamps and rates must have the same length")
    ok = np.isfinite(t) & np.isfinite(r)
    if model == "exponential":
        ok &= r > 0
    if times is None or not ok.all():
        t, r = t[ok], r[ok]
        times = SampleTimes(t)
    n_days = times.days
    if n_days < max(2, min_days):
        return GrowthFit(
            "none",
            0.0,
            n_days,
            f"{n_days} day(s) of history with traffic, fewer than the {min_days} needed to fit",
        )
    y = np.log(r) if model == "exponential" else r
    hours, levels = _hourly_levels(times, y)
    slope, pairs = _week_matched_slope(hours, levels)
    method = f"median slope of {pairs:,} same-hour-of-week pairs over {n_days} days"
    if pairs < _MIN_WEEK_PAIRS:
        slope, pairs = _daily_slope(t, y)
        method = f"median slope of {pairs:,} pairs of daily levels over {n_days} days"
    if model == "exponential":
        return GrowthFit("exponential", float(math.expm1(slope)), n_days, f"{method} (log)")
    return GrowthFit("linear", slope, n_days, method)
