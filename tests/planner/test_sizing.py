"""The sizing rule, the planning target and the per-dimension decision."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.growth import GrowthFit, fit_growth
from planner.sizing import (
    SideCapacity,
    observed_peak,
    partitions_for_throughput,
    planning_target,
    size_topic,
    targets_from_history,
)

DAY = 86_400


class TestPartitionsForThroughput:
    def test_the_domain_example_sizes_for_the_slower_side(self) -> None:
        # max(20/5, 20/3) = 6.67 -> 7; the seed's Tt/max(Tp, Tc) would say 4.
        assert partitions_for_throughput(20, 5, 3) == 7
        assert partitions_for_throughput(20, 3, 5) == 7

    def test_exact_multiples_do_not_round_up(self) -> None:
        assert partitions_for_throughput(20, 5, 5) == 4
        assert partitions_for_throughput(100, 10, 25) == 10

    def test_decimal_inputs_are_read_as_typed(self) -> None:
        # 1.1 / 0.1 == 11.000000000000002 in binary floating point.
        assert partitions_for_throughput(1.1, 0.1, 0.1) == 11
        assert partitions_for_throughput(0.7, 0.1, 1) == 7

    def test_at_least_one_partition(self) -> None:
        assert partitions_for_throughput(0, 5, 3) == 1
        assert partitions_for_throughput(0.001, 5, 3) == 1

    @pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, -math.inf])
    def test_bad_capacities_raise(self, bad: float) -> None:
        with pytest.raises(ValueError, match="producer_per_partition"):
            partitions_for_throughput(10, bad, 3)
        with pytest.raises(ValueError, match="consumer_per_partition"):
            partitions_for_throughput(10, 5, bad)

    @pytest.mark.parametrize("bad", [-0.5, math.nan, math.inf])
    def test_bad_targets_raise(self, bad: float) -> None:
        with pytest.raises(ValueError, match="target"):
            partitions_for_throughput(bad, 5, 3)

    def test_non_numbers_raise(self) -> None:
        with pytest.raises(ValueError):
            partitions_for_throughput("20", 5, 3)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            partitions_for_throughput(20, True, 3)

    @given(
        target=st.floats(0, 1e7, allow_nan=False),
        tp=st.floats(1e-3, 1e6, allow_nan=False),
        tc=st.floats(1e-3, 1e6, allow_nan=False),
    )
    def test_enough_for_both_sides_and_not_one_more(
        self, target: float, tp: float, tc: float
    ) -> None:
        n = partitions_for_throughput(target, tp, tc)
        slack = 1e-9 * max(1.0, target)
        assert n * min(tp, tc) >= target - slack  # both sides keep up
        if n > 1:  # one partition fewer would leave a side short
            assert (n - 1) * min(tp, tc) < target + slack


class TestPeakAndGrowth:
    def test_peak_is_an_observed_sample_at_the_percentile(self) -> None:
        rates = np.arange(1, 101, dtype=float)  # 1..100
        assert observed_peak(rates, 99) == 99.0
        assert observed_peak(rates, 100) == 100.0
        assert observed_peak(rates, 50) == 50.0  # nearest rank: never an interpolation
        assert observed_peak([3.0, 1.0, 2.0], 99) == 3.0

    def test_one_glitch_does_not_size_the_topic(self) -> None:
        rates = np.full(1000, 10.0)
        rates[17] = 10_000.0
        assert observed_peak(rates) == 10.0

    def test_peak_ignores_nan_and_rejects_bad_values(self) -> None:
        assert observed_peak([1.0, math.nan, 3.0], 100) == 3.0
        with pytest.raises(ValueError, match="no samples"):
            observed_peak([math.nan])
        with pytest.raises(ValueError, match="zero or above"):
            observed_peak([1.0, -2.0])
        with pytest.raises(ValueError, match="percentile"):
            observed_peak([1.0], 0)

    def test_exponential_fit_recovers_a_known_growth(self) -> None:
        days = np.arange(30)
        ts = np.repeat(days * DAY, 24) + np.tile(np.arange(24) * 3600, 30)
        daily_growth = 0.01
        rates = 100 * (1 + daily_growth) ** (ts / DAY)
        fit = fit_growth(ts, rates)
        assert fit.model == "exponential"
        assert fit.days_of_history == 30
        assert fit.per_day == pytest.approx(daily_growth, rel=0.05)

    def test_weekly_cycles_do_not_bias_the_fit(self) -> None:
        # Hourly figures with a daily cycle, quiet weekends, 5 % noise and bursts, growing
        # 4 % a month (61 %/year): the daily-peak fit this replaced said 110 % on such data.
        rng = np.random.default_rng(7)
        hours = np.arange(30 * 24)
        daily = 0.55 + 0.45 * np.sin(2 * np.pi * ((hours % 24) / 24 - 0.3)) ** 2
        weekly = np.where((hours // 24) % 7 >= 5, 0.7, 1.0)
        rates = 100 * daily * weekly * 1.04 ** (hours / 720) * rng.lognormal(0, 0.05, hours.size)
        rates[rng.choice(hours.size, 6, replace=False)] *= 3
        fit = fit_growth(hours * 3600.0, rates)
        assert fit.per_year == pytest.approx(1.04 ** (365 / 30) - 1, abs=0.12)
        assert "same-hour-of-week" in fit.reason

    def test_short_history_falls_back_to_daily_levels(self) -> None:
        hours = np.arange(7 * 24)  # one week: no same-hour-of-week pair yet
        rates = 50 * 1.01 ** (hours / 24)
        fit = fit_growth(hours * 3600.0, rates)
        assert fit.per_day == pytest.approx(0.01, rel=1e-6)
        assert "daily levels" in fit.reason

    def test_a_burst_day_does_not_tilt_the_fit(self) -> None:
        ts = np.arange(30) * DAY
        rates = np.full(30, 50.0)
        rates[-1] = 5_000.0  # one replay on the last day
        assert fit_growth(ts, rates).per_day == pytest.approx(0.0, abs=1e-12)

    def test_linear_fit(self) -> None:
        ts = np.arange(20) * DAY
        rates = 10 + 2.0 * np.arange(20)
        fit = fit_growth(ts, rates, model="linear")
        assert fit.model == "linear"
        assert fit.per_day == pytest.approx(2.0)

    def test_too_little_history_fits_nothing(self) -> None:
        fit = fit_growth(np.arange(3) * DAY, [1.0, 2.0, 3.0])
        assert fit.model == "none"
        assert "3 day(s)" in fit.reason

    def test_growth_to_the_horizon_plus_headroom(self) -> None:
        fit = GrowthFit("exponential", math.expm1(math.log(2) / 365), 30, "test")
        t = planning_target(10.0, fit, horizon_days=365, headroom_pct=30)
        assert t.growth_source == "fitted"
        assert t.growth_per_year == pytest.approx(1.0)  # doubles in a year
        assert t.grown == pytest.approx(20.0)
        assert t.target == pytest.approx(26.0)

    def test_a_shrinking_topic_is_planned_at_its_floor(self) -> None:
        fit = GrowthFit("exponential", -0.01, 30, "test")
        t = planning_target(10.0, fit, horizon_days=180, floor_growth_per_year=0.0)
        assert t.growth_source == "floor"
        assert t.grown == pytest.approx(10.0)
        assert t.target == pytest.approx(13.0)

    def test_a_floor_growth_applies_without_history(self) -> None:
        fit = GrowthFit("none", 0.0, 2, "too little")
        t = planning_target(100.0, fit, horizon_days=365, floor_growth_per_year=0.2, headroom_pct=0)
        assert t.target == pytest.approx(120.0)

    def test_linear_growth_is_linear(self) -> None:
        fit = GrowthFit("linear", 1.0, 30, "test")  # +1 unit per day
        t = planning_target(100.0, fit, horizon_days=100, headroom_pct=0)
        assert t.grown == pytest.approx(200.0)


class TestSizeTopic:
    def test_deciding_dimension_and_side(self) -> None:
        result = size_topic(
            {"mib_in": 20.0, "records_in": 40_000.0},
            SideCapacity(mib_per_s=5.0, records_per_s=50_000.0),
            SideCapacity(mib_per_s=3.0, records_per_s=4_000.0),
        )
        by_dim = {r.dimension: r for r in result.requirements}
        assert by_dim["mib_in"].required == 7 and by_dim["mib_in"].side == "consumer"
        assert by_dim["records_in"].required == 10
        assert result.required_partitions == 10
        assert result.deciding_dimension == "records_in"
        assert result.deciding_side == "consumer"

    def test_producer_side_can_decide(self) -> None:
        result = size_topic(
            {"mib_in": 50.0}, SideCapacity(mib_per_s=5.0), SideCapacity(mib_per_s=25.0)
        )
        assert (result.required_partitions, result.deciding_side) == (10, "producer")

    def test_fan_out_reads_are_sized_on_the_consumer_side_only(self) -> None:
        result = size_topic(
            {"mib_in": 10.0, "mib_out": 30.0},
            SideCapacity(mib_per_s=1.0),
            SideCapacity(mib_per_s=10.0),
        )
        out = next(r for r in result.requirements if r.dimension == "mib_out")
        assert out.producer_partitions is None
        assert out.consumer_partitions == 3
        assert result.deciding_dimension == "mib_in"  # 10 partitions for producers

    def test_a_tie_names_both_sides(self) -> None:
        result = size_topic(
            {"mib_in": 12.0}, SideCapacity(mib_per_s=3.0), SideCapacity(mib_per_s=3.0)
        )
        assert result.deciding_side == "both"

    def test_unmeasured_dimensions_are_skipped_and_said(self) -> None:
        result = size_topic(
            {"mib_in": 12.0, "records_in": 5.0}, SideCapacity(mib_per_s=3.0), SideCapacity()
        )
        assert [r.dimension for r in result.requirements] == ["mib_in"]
        assert result.skipped and "records_in" in result.skipped[0]

    def test_nothing_to_size_on_is_an_error(self) -> None:
        with pytest.raises(ValueError, match="nothing to size on"):
            size_topic({"mib_in": 1.0}, SideCapacity(), SideCapacity())
        with pytest.raises(ValueError, match="unknown dimension"):
            size_topic({"gib_in": 1.0}, SideCapacity(mib_per_s=1.0), SideCapacity())

    def test_bad_capacity_names_the_dimension(self) -> None:
        with pytest.raises(ValueError, match=r"consumer capacity \(records_in\)"):
            size_topic(
                {"records_in": 1.0},
                SideCapacity(records_per_s=1.0),
                SideCapacity(records_per_s=0.0),
            )


def test_targets_from_history_end_to_end() -> None:
    ts = np.arange(0, 30 * DAY, 3600, dtype=float)
    mib = 10 + 5 * np.sin(ts / DAY * 2 * np.pi)  # diurnal, no trend: peak ~15
    records = mib * 1000
    targets = targets_from_history(
        {"mib_in": mib, "records_in": records, "mib_out": np.full(ts.size, np.nan)},
        ts,
        horizon_days=90,
        headroom_pct=30,
    )
    assert set(targets) == {"mib_in", "records_in"}
    assert targets["mib_in"].peak == pytest.approx(15.0, rel=0.01)
    assert targets["mib_in"].growth_factor == pytest.approx(1.0, abs=0.01)
    assert targets["mib_in"].target == pytest.approx(targets["mib_in"].grown * 1.3)


def test_docstring_examples() -> None:
    import doctest

    import planner.sizing

    failed, attempted = doctest.testmod(planner.sizing)
    assert attempted > 0 and failed == 0


# --- The fast paths give NumPy's answers to the bit -------------------------------------


@given(
    st.lists(st.floats(0, 1e9, allow_nan=False), min_size=1, max_size=300),
    st.sampled_from([99.0, 95.0, 50.0, 100.0, 99.9, 0.5, 33.3]),
)
def test_observed_peak_is_numpys_inverted_cdf_percentile(rates: list[float], q: float) -> None:
    expected = float(np.percentile(np.array(rates), q, method="inverted_cdf"))
    assert observed_peak(rates, q) == expected


def test_observed_peak_ignores_nans_and_refuses_infinities() -> None:
    assert observed_peak([np.nan, 3.0, 1.0, np.nan], 50.0) == 1.0
    with pytest.raises(ValueError, match="finite"):
        observed_peak([1.0, np.inf], 99.0)
    with pytest.raises(ValueError, match="no samples"):
        observed_peak([np.nan], 99.0)


@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize("per_year", [0.05, 0.5, 3.0])
def test_years_to_grow_inverts_the_growth_factor(per_year: float, linear: bool) -> None:
    from planner.sizing import growth_factor, years_to_grow

    for years in (0.1, 0.5, 2.0):
        ratio = growth_factor(per_year, years, linear=linear)
        assert years_to_grow(ratio, per_year, linear=linear) == pytest.approx(years)
    assert years_to_grow(1.0, per_year, linear=linear) == 0.0
    assert years_to_grow(2.0, 0.0, linear=linear) is None
    assert years_to_grow(2.0, -0.1, linear=linear) is None


def _exact_ceil_ratio(numerator: float, denominator: float) -> int:
    # `_ceil_ratio` without its float fast path: the decimal arithmetic alone.
    from decimal import Decimal

    quotient = Decimal(repr(float(numerator))) / Decimal(repr(float(denominator)))
    ceiling = int(quotient.to_integral_value(rounding="ROUND_CEILING"))
    if ceiling - quotient > 1 - Decimal("1e-9") * max(1, ceiling):
        ceiling -= 1
    return ceiling


def test_ceil_ratio_fast_path_is_the_exact_one() -> None:
    from planner.sizing import _ceil_ratio

    rng = np.random.default_rng(17)
    pairs = [(26 * 1.3, 3.38), (1.1, 0.1), (0.0, 3.0), (5e-324, 5e-324), (1e300, 1e-300)]
    for _ in range(20_000):
        d = float(10.0 ** rng.uniform(-6, 6))
        q = float(rng.choice([rng.uniform(0, 2_000), rng.integers(0, 2_000)]))
        jitter = float(rng.choice([0.0, 1e-15, -1e-15, 1e-10, -1e-10, 1e-7, -1e-7, 1e-3]))
        pairs.append((max(0.0, (q + jitter * max(1.0, q)) * d), d))
        pairs.append((float(rng.uniform(0, 1e7)), float(rng.uniform(1e-3, 1e3))))
    for n, d in pairs:
        assert _ceil_ratio(n, d) == _exact_ceil_ratio(n, d), (n, d)


@given(
    st.floats(min_value=0, max_value=1e12, allow_nan=False),
    st.floats(min_value=1e-9, max_value=1e9, allow_nan=False),
)
def test_ceil_ratio_fast_path_is_the_exact_one_anywhere(
    numerator: float, denominator: float
) -> None:
    from planner.sizing import _ceil_ratio

    assert _ceil_ratio(numerator, denominator) == _exact_ceil_ratio(numerator, denominator)


@pytest.mark.parametrize("model", ["exponential", "linear"])
def test_targets_fit_every_dimension_as_fit_growth_does_on_its_own(model: str) -> None:
    # Dimensions whose every sample counts share the work on the times; one with a gap
    # (NaN) or idle hours (left out of an exponential fit) is fitted on its own samples.
    hours = np.arange(24 * 21, dtype=np.float64)
    ts = hours * 3600.0
    rng = np.random.default_rng(3)
    level = 5.0 * np.exp(hours / (24 * 365)) * (1.3 + np.sin(hours * 2 * np.pi / 24))
    samples = {
        "mib_in": level,
        "records_in": level * 1000 + rng.random(hours.size),
        "mib_out": level * 2,
    }
    samples["records_in"][7] = np.nan
    samples["mib_out"][::50] = 0.0
    got = targets_from_history(samples, ts, growth_model=model)  # type: ignore[arg-type]
    for dim, values in samples.items():
        fit = fit_growth(ts, values, model=model)  # type: ignore[arg-type]
        assert got[dim] == planning_target(observed_peak(values), fit), dim
