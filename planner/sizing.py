"""The sizing rule: how many partitions a topic needs for its planned throughput.

A topic needs enough partitions for *both* sides of the log:

    partitions >= max(Tt / Tp, Tt / Tc) = Tt / min(Tp, Tc)        (rounded up)

with `Tt` the planned (target) throughput of the topic, `Tp` what one producer can write
into one partition and `Tc` what one consumer, including the application's processing,
can read from one partition. The rule is applied to every measured dimension (MiB/s in,
records/s in, MiB/s out per consuming group) and the largest requirement wins.

The planning target is not the mean: it is an observed peak (a percentile of the
per-sample rates), grown to the end of a planning horizon, plus headroom, because
partitions are hard to add later (and breaking for keyed topics).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

import numpy as np
import numpy.typing as npt

from planner.growth import GrowthFit, GrowthModel, SampleTimes, fit_growth

__all__ = [
    "DEFAULT_HEADROOM_PCT",
    "DEFAULT_HORIZON_DAYS",
    "DIMENSIONS",
    "DIMENSION_LABELS",
    "DimensionRequirement",
    "PlanningTarget",
    "SideCapacity",
    "SizingResult",
    "growth_factor",
    "observed_peak",
    "partitions_for_throughput",
    "planning_target",
    "side_words",
    "size_topic",
    "targets_from_history",
    "years_to_grow",
]

Side = Literal["producer", "consumer", "both"]


def side_words(side: str) -> str:
    """The deciding side in words: `producer side`, `consumer side`, or `both sides`
    (producers and consumers need the same count: a tie)."""
    return "both sides" if side == "both" else f"{side} side"


#: The dimensions the rule is applied to. `mib_out` is the read rate of one consuming
#: group (broker bytes out divided by the number of groups), so catch-up reads count.
DIMENSIONS: tuple[str, ...] = ("mib_in", "records_in", "mib_out")
#: Each dimension in words, as every report, note and command prints it.
DIMENSION_LABELS: dict[str, str] = {
    "mib_in": "MiB/s in",
    "records_in": "records/s in",
    "mib_out": "MiB/s out per group",
}

#: The planning headroom (%) a topic's target adds above its grown peak, by default.
DEFAULT_HEADROOM_PCT = 30.0
#: How far ahead (days) the growth is projected, by default.
DEFAULT_HORIZON_DAYS = 180.0

_RELATIVE_SLACK = Decimal("1e-9")


def _exact(value: float) -> Decimal:
    # Floats are read as the shortest decimal that round-trips, i.e. what a person typed:
    # 1.1 / 0.1 is 11.000000000000002 in binary floating point, and ceil() would then say
    # 12 partitions where the arithmetic a person checks by hand says 11.
    return Decimal(repr(float(value)))


def _check_capacity(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number above zero, got {value!r}")


def _check_target(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number, zero or above, got {value!r}")


# The float quotient decides `_ceil_ratio` alone when it is this far from an integer (and
# below _FAST_BELOW, with both figures normal floats): the shortest decimals of the two
# figures are each within half an ulp of them, so the exact quotient of those decimals
# is within a relative 4e-16 of the float one, under 5e-10 there, far inside the margin.
_FAST_BELOW = float(2**20)
_FAST_MARGIN = 1e-6
_FLOAT_SLACK = float(_RELATIVE_SLACK)


def _ceil_ratio(numerator: float, denominator: float) -> int:
    # Both figures are finite, the numerator zero or above, the denominator above zero.
    n, d = float(numerator), float(denominator)
    if n >= sys.float_info.min and d >= sys.float_info.min:
        q = n / d
        if q < _FAST_BELOW:
            below = math.floor(q)
            share = q - below
            # Well inside (below, below + 1), and past the slack band above `below`:
            # the exact path's answer is below + 1 (about 2.5 us saved per call).
            if _FAST_MARGIN + _FLOAT_SLACK * (below + 1) < share < 1.0 - _FAST_MARGIN:
                return below + 1
    quotient = _exact(numerator) / _exact(denominator)
    ceiling = int(quotient.to_integral_value(rounding="ROUND_CEILING"))
    # A computed target (peak x 1.3) carries float noise of its own: 26 x 1.3 is
    # 33.800000000000004, and 33.800000000000004 / 3.38 must not become 11 partitions.
    # One part in a billion of a partition's capacity is no reason for another partition.
    if ceiling - quotient > 1 - _RELATIVE_SLACK * max(1, ceiling):
        ceiling -= 1
    return ceiling


def partitions_for_throughput(
    target: float, producer_per_partition: float, consumer_per_partition: float
) -> int:
    """Partitions a topic needs so that neither producers nor consumers fall behind.

    `ceil(max(target / producer_per_partition, target / consumer_per_partition))`, at
    least 1. All three figures in one consistent unit (MiB/s, or records/s).

    The seed article translated from Jun Rao's guidance writes `Tt / max(Tp, Tc)`. That
    expression is the *smaller* of the two requirements: it sizes for the faster side and
    leaves the slower one (usually the consumers) short. The original guidance is
    `max(Tt / Tp, Tt / Tc)`.

    Example:
        >>> partitions_for_throughput(20, 5, 3)  # max(4, 6.67) -> 7; Tt/max(Tp,Tc) says 4
        7

    Args:
        target: Planned throughput of the topic (`Tt`), zero or above.
        producer_per_partition: What one producer writes into one partition (`Tp`).
        consumer_per_partition: What one consumer, processing included, reads from one
            partition (`Tc`).

    Returns:
        The number of partitions, at least 1.

    Raises:
        ValueError: a capacity that is zero, negative, NaN or infinite, or a target that
            is negative, NaN or infinite.
    """
    _check_target("target", target)
    _check_capacity("producer_per_partition", producer_per_partition)
    _check_capacity("consumer_per_partition", consumer_per_partition)
    return max(
        1,
        _ceil_ratio(target, producer_per_partition),
        _ceil_ratio(target, consumer_per_partition),
    )


# ---------------------------------------------------------------------------------------
# The planning target: peak, growth, headroom


def observed_peak(rates: npt.ArrayLike, percentile: float = 99.0) -> float:
    """The observed peak of a window: a percentile of its per-sample rates.

    A percentile rather than the maximum, so one scrape glitch or a single replayed
    minute does not size the topic; the 99th by default.

    Args:
        rates: Per-sample (per-minute, per-hour) rates, in one unit; NaNs are ignored.
        percentile: Which percentile, in (0, 100].

    Raises:
        ValueError: no finite samples, a negative sample, or a percentile outside (0, 100].
    """
    if not 0 < percentile <= 100:
        raise ValueError(f"percentile must be in (0, 100], got {percentile!r}")
    values = np.asarray(rates, dtype=np.float64)
    if not np.isfinite(values).all():
        values = values[~np.isnan(values)]
        if np.isinf(values).any():
            raise ValueError("rates must be finite and zero or above")
    if values.size == 0:
        raise ValueError("no samples to take a peak of")
    if (values < 0).any():
        raise ValueError("rates must be finite and zero or above")
    # Nearest rank (the smallest sample with at least `percentile` % of samples at or
    # below it): an observed sample, never an interpolation, and what Spark's
    # percentile_approx converges to, so the core and the Spark jobs agree. This is
    # NumPy's `percentile(..., method="inverted_cdf")` to the bit (the same rank, from
    # the same float arithmetic), found by one partial sort: a peak is taken three
    # times per topic, for every topic of a fleet.
    rank = values.size * (percentile / 100) - 1
    below = math.floor(rank)
    k = max(0, below if rank == below else below + 1)
    return float(np.partition(values, k)[k])


@dataclass(frozen=True)
class PlanningTarget:
    """A planned throughput and how it was reached (one dimension, one unit).

    Attributes:
        peak: The observed peak.
        growth_factor: Multiplier from the peak to the end of the horizon (>= 1 with the
            default floor of 0 %/year).
        growth_per_year: The growth applied, as a yearly fraction.
        growth_source: `fitted` or `floor` (the fit was below the floor, or missing).
        horizon_days: Length of the planning horizon.
        grown: The peak grown to the end of the horizon.
        headroom_pct: Headroom added on top, in percent.
        target: `grown x (1 + headroom_pct / 100)`.
    """

    peak: float
    growth_factor: float
    growth_per_year: float
    growth_source: Literal["fitted", "floor"]
    horizon_days: float
    grown: float
    headroom_pct: float
    target: float


def growth_factor(per_year: float, years: float, *, linear: bool) -> float:
    """What a peak is multiplied by after `years`: growing by `per_year` of itself a
    year (a linear fit), or compounding at `per_year` (any other growth)."""
    return 1.0 + per_year * years if linear else (1.0 + per_year) ** years


def years_to_grow(ratio: float, per_year: float, *, linear: bool) -> float | None:
    """The inverse of `growth_factor`: years until the factor reaches `ratio` (>= 1).

    None when it never does (no growth, or a shrinking peak).
    """
    if ratio <= 1.0:
        return 0.0
    if per_year <= 0:
        return None
    return (ratio - 1.0) / per_year if linear else math.log(ratio) / math.log1p(per_year)


def planning_target(
    peak: float,
    growth: GrowthFit,
    *,
    horizon_days: float = DEFAULT_HORIZON_DAYS,
    floor_growth_per_year: float = 0.0,
    headroom_pct: float = DEFAULT_HEADROOM_PCT,
) -> PlanningTarget:
    """Grow an observed peak to the end of the horizon and add headroom.

    The fitted growth is used unless it is below `floor_growth_per_year`, in which case
    the floor is (a shrinking topic is, by default, planned at its current peak, never
    below). Linear fits are converted to the equivalent yearly fraction of the peak.

    Args:
        peak: Observed peak, one unit (>= 0).
        growth: The fitted growth (see `fit_growth`).
        horizon_days: Days from now to the end of the planning horizon (>= 0).
        floor_growth_per_year: Minimum yearly growth as a fraction (0.1 = 10 %/year);
            may be negative to allow planning below the peak.
        headroom_pct: Percent added on top of the grown peak (>= 0).
    """
    _check_target("peak", peak)
    if not math.isfinite(horizon_days) or horizon_days < 0:
        raise ValueError(f"horizon_days must be zero or above, got {horizon_days!r}")
    if not math.isfinite(headroom_pct) or headroom_pct < 0:
        raise ValueError(f"headroom_pct must be zero or above, got {headroom_pct!r}")
    if not math.isfinite(floor_growth_per_year) or floor_growth_per_year <= -1:
        raise ValueError(f"floor_growth_per_year must be above -1, got {floor_growth_per_year!r}")

    years = horizon_days / 365.0
    if growth.model == "exponential":
        fitted_per_year = growth.per_year
    elif growth.model == "linear" and peak > 0:
        fitted_per_year = growth.per_day * 365.0 / peak
    else:
        fitted_per_year = None

    if fitted_per_year is None or fitted_per_year < floor_growth_per_year:
        per_year, source = floor_growth_per_year, "floor"
    else:
        per_year, source = fitted_per_year, "fitted"

    factor = growth_factor(per_year, years, linear=growth.model == "linear" and source == "fitted")
    grown = peak * factor
    target = grown * (1.0 + headroom_pct / 100.0)
    return PlanningTarget(
        peak=float(peak),
        growth_factor=float(factor),
        growth_per_year=float(per_year),
        growth_source=source,  # type: ignore[arg-type]
        horizon_days=float(horizon_days),
        grown=float(grown),
        headroom_pct=float(headroom_pct),
        target=float(target),
    )


# ---------------------------------------------------------------------------------------
# The rule over every dimension


@dataclass(frozen=True)
class SideCapacity:
    """Single-partition throughput of one side (Tp or Tc) in each dimension it was measured.

    Attributes:
        mib_per_s: MiB/s through one partition, or None if not measured.
        records_per_s: Records/s through one partition, or None if not measured.
        record_bytes: The record size it was measured with, bytes (None: unknown). A
            partition's MiB/s and records/s both depend on it.
    """

    mib_per_s: float | None = None
    records_per_s: float | None = None
    record_bytes: float | None = None

    def for_dimension(self, dimension: str) -> float | None:
        """The capacity that bounds a dimension (`mib_*` -> MiB/s, `records_*` -> records/s)."""
        return self.mib_per_s if dimension.startswith("mib") else self.records_per_s


@dataclass(frozen=True)
class DimensionRequirement:
    """What one dimension asks for.

    Attributes:
        dimension: `mib_in`, `records_in` or `mib_out`.
        target: Planned throughput in the dimension's unit.
        producer_capacity: Tp in that unit, or None (not measured, or `mib_out`).
        consumer_capacity: Tc in that unit, or None.
        producer_partitions: `ceil(target / Tp)` (at least 1), or None.
        consumer_partitions: `ceil(target / Tc)` (at least 1), or None.
        required: The larger of the two.
        side: Which side needs `required`: `producer`, `consumer`, or `both` on a tie.
    """

    dimension: str
    target: float
    producer_capacity: float | None
    consumer_capacity: float | None
    producer_partitions: int | None
    consumer_partitions: int | None
    required: int
    side: Side


@dataclass(frozen=True)
class SizingResult:
    """The rule applied to every dimension, and which one decided.

    Attributes:
        requirements: One entry per dimension that had both a target and a capacity.
        required_partitions: The largest requirement (at least 1).
        deciding_dimension: The dimension with the largest requirement (the first in
            `DIMENSIONS` order on a tie).
        deciding_side: The side that decided in that dimension.
        skipped: Dimensions with a target but no capacity on either side, with why.
    """

    requirements: tuple[DimensionRequirement, ...]
    required_partitions: int
    deciding_dimension: str
    deciding_side: Side
    skipped: tuple[str, ...]


def size_topic(
    targets: Mapping[str, float],
    producer: SideCapacity,
    consumer: SideCapacity,
) -> SizingResult:
    """Apply the rule to every dimension with a target and keep the largest requirement.

    Args:
        targets: Planned throughput per dimension (`mib_in`, `records_in`, `mib_out`),
            in MiB/s or records/s. `mib_out` is one consuming group's read rate; only
            the consumer side applies to it.
        producer: Tp, the single-partition producer throughput.
        consumer: Tc, the single-partition consumer throughput, processing included.

    Raises:
        ValueError: an unknown dimension, a bad number, or no dimension that has both a
            target and a capacity (nothing to size on).
    """
    requirements: list[DimensionRequirement] = []
    skipped: list[str] = []
    for dimension in sorted(targets, key=_dimension_order):
        target = targets[dimension]
        _check_target(f"target {dimension}", target)
        tp = None if dimension == "mib_out" else producer.for_dimension(dimension)
        tc = consumer.for_dimension(dimension)
        if tp is None and tc is None:
            skipped.append(f"{dimension}: no producer or consumer capacity measured")
            continue
        need_p = None
        need_c = None
        if tp is not None:
            _check_capacity(f"producer capacity ({dimension})", tp)
            need_p = max(1, _ceil_ratio(target, tp))
        if tc is not None:
            _check_capacity(f"consumer capacity ({dimension})", tc)
            need_c = max(1, _ceil_ratio(target, tc))
        required = max(n for n in (need_p, need_c) if n is not None)
        side: Side
        if need_p is not None and need_c is not None and need_p == need_c:
            side = "both"
        elif need_c is not None and need_c == required:
            side = "consumer"
        else:
            side = "producer"
        requirements.append(
            DimensionRequirement(dimension, float(target), tp, tc, need_p, need_c, required, side)
        )
    if not requirements:
        reason = "; ".join(skipped) if skipped else "no targets given"
        raise ValueError(f"nothing to size on: {reason}")
    deciding = max(requirements, key=lambda r: r.required)  # first wins on a tie
    return SizingResult(
        requirements=tuple(requirements),
        required_partitions=deciding.required,
        deciding_dimension=deciding.dimension,
        deciding_side=deciding.side,
        skipped=tuple(skipped),
    )


def _dimension_order(dimension: str) -> int:
    if dimension not in DIMENSIONS:
        raise ValueError(f"unknown dimension {dimension!r}: use one of {', '.join(DIMENSIONS)}")
    return DIMENSIONS.index(dimension)


def targets_from_history(
    samples: Mapping[str, Sequence[float] | npt.NDArray[np.float64]],
    ts_s: npt.ArrayLike,
    *,
    percentile: float = 99.0,
    growth_model: GrowthModel = "exponential",
    min_growth_days: int = 7,
    horizon_days: float = DEFAULT_HORIZON_DAYS,
    floor_growth_per_year: float = 0.0,
    headroom_pct: float = DEFAULT_HEADROOM_PCT,
) -> dict[str, PlanningTarget]:
    """Planning targets for every dimension of one topic from its history.

    Args:
        samples: Per-sample rates per dimension (`mib_in`, `records_in`, `mib_out`),
            aligned with `ts_s`; a dimension that is all NaN is left out.
        ts_s: Sample times, seconds since the epoch (UTC).
        percentile, growth_model, min_growth_days, horizon_days, floor_growth_per_year,
        headroom_pct: As in `observed_peak`, `fit_growth` and `planning_target`.
    """
    out: dict[str, PlanningTarget] = {}
    t = np.asarray(ts_s, dtype=np.float64)
    times = SampleTimes(t)
    for dimension in sorted(samples, key=_dimension_order):
        values = np.asarray(samples[dimension], dtype=np.float64)
        if values.size == 0 or np.isnan(values).all():
            continue
        peak = observed_peak(values, percentile)
        fit = fit_growth(t, values, model=growth_model, min_days=min_growth_days, times=times)
        out[dimension] = planning_target(
            peak,
            fit,
            horizon_days=horizon_days,
            floor_growth_per_year=floor_growth_per_year,
            headroom_pct=headroom_pct,
        )
    return out


# Follows: Jun Rao, "How to choose the number of topics/partitions in a Kafka cluster?"
# (Confluent, 2015): partitions >= max(t/p, t/c).
