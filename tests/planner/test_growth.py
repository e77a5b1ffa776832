"""The growth fit: its fast paths against the general ones, to the bit."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from planner.growth import fit_growth


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=200))
def test_median_is_numpys_median(values: list[float]) -> None:
    from planner.growth import _median

    array = np.array(values)
    assert _median(array.copy()) == float(np.median(array))


def test_growth_fit_is_the_same_for_sorted_and_shuffled_hourly_samples() -> None:
    # Sorted hourly samples take the one-sample-per-hour path; shuffled ones the general
    # one. Both must give the same fit, to the bit.
    rng = np.random.default_rng(4)
    hours = np.arange(24 * 30)
    ts = 1_700_000_000.0 - 1_700_000_000.0 % 3600 + hours * 3600.0
    rates = np.exp(0.002 * hours / 24) * (1 + 0.3 * np.sin(hours / 24 * 2 * np.pi))
    rates *= rng.lognormal(0, 0.1, size=hours.size)
    order = rng.permutation(hours.size)
    for model in ("exponential", "linear"):
        fast = fit_growth(ts, rates, model=model)  # type: ignore[arg-type]
        slow = fit_growth(ts[order], rates[order], model=model)  # type: ignore[arg-type]
        assert fast == slow
        assert fast.per_day > 0


def _grid_week_slope(hours: np.ndarray, y: np.ndarray) -> tuple[float, int]:
    # The week-grid Theil-Sen of `_week_matched_slope`, for any hours.
    from planner.growth import _median

    week, slot = (hours - hours.min()) // 168, (hours - hours.min()) % 168
    weeks = int(week.max()) + 1
    grid = np.full((weeks, 168), np.nan)
    grid[week, slot] = y
    if weeks < 2:
        return 0.0, 0
    slopes = np.concatenate(
        [((grid[lag:] - grid[:-lag]) / (7.0 * lag)).ravel() for lag in range(1, weeks)]
    )
    finite = np.isfinite(slopes)
    return (_median(slopes[finite]) if finite.any() else 0.0), int(finite.sum())


def test_contiguous_week_slope_is_the_grid_s() -> None:
    from planner.growth import _week_matched_slope

    rng = np.random.default_rng(23)
    for n in (1, 167, 168, 169, 336, 337, 500, 720, 721, 2_000):
        for kind in ("noise", "ties", "huge"):
            if kind == "noise":
                y = rng.normal(size=n)
            elif kind == "ties":
                y = rng.integers(-2, 3, size=n).astype(float) * 0.0  # signed zeros
                y[rng.random(n) < 0.5] = -0.0
            else:
                y = rng.choice([1e308, -1e308, 1.0], size=n)
            hours = 480_000 + np.arange(n, dtype=np.int64)
            # Huge levels overflow to inf on purpose: both ways must drop the same pairs.
            with np.errstate(over="ignore"):
                got = _week_matched_slope(hours, y)
                want = _grid_week_slope(hours, y)
            assert got[1] == want[1]
            assert np.array_equal(np.array([got[0]]), np.array([want[0]]), equal_nan=True)
            assert math.copysign(1.0, got[0]) == math.copysign(1.0, want[0])
