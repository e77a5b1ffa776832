"""A group's own capacity from its windows: saturation, busy fraction, lower bound, lag."""

from __future__ import annotations

import numpy as np
import pytest

from planner.group_capacity import (
    GroupWindows,
    busy_fraction,
    lag_trend,
    learn,
    lower_bound,
    poll_busy_share,
    saturation,
    time_lag,
)


def _windows(
    produced_per_s: list[float],
    capacity_per_member: float,
    members: int,
    *,
    window_s: float = 60.0,
    commit_interval_s: float = 5.0,
    seed: int = 0,
) -> GroupWindows:
    """A group consuming what it can, committing every `commit_interval_s`: the lag read at
    a window's end trails by up to a commit interval's records (the noise)."""
    rng = np.random.default_rng(seed)
    backlog, true_consumed = 0.0, 0.0
    starts, consumed, lag_start, lag_end = [], [], [], []
    committed_before = 0.0
    produced_total = 0.0
    for i, rate in enumerate(produced_per_s):
        can = capacity_per_member * members * window_s
        backlog += rate * window_s
        took = min(can, backlog)
        backlog -= took
        true_consumed += took
        produced_total += rate * window_s
        consumption = took / window_s
        committed = true_consumed - rng.uniform(0, commit_interval_s) * consumption
        starts.append(i * window_s)
        consumed.append(committed - committed_before)
        lag_start.append((produced_total - rate * window_s) - committed_before if i else 0.0)
        lag_end.append(produced_total - committed)
        committed_before = committed
    n = len(produced_per_s)
    return GroupWindows.of(starts, [window_s] * n, consumed, lag_start, lag_end, [members] * n)


def test_a_saturated_group_shows_its_capacity_within_the_commit_noise() -> None:
    # 3 members of 500 records/s each under 2,500 records/s: the lag grows by 1,000/s.
    w = _windows([2_500.0] * 10, 500.0, 3)
    found = saturation(w)
    assert found is not None and found.source == "saturation"
    assert found.records_per_s == pytest.approx(500.0, rel=0.01)
    assert "3 member(s)" in found.evidence and "10 windows" in found.evidence
    assert lag_trend(w)[0] == "growing"


def test_a_group_keeping_up_is_only_a_lower_bound_and_not_behind() -> None:
    w = _windows([600.0] * 10, 500.0, 3)  # 1,500/s of capacity for 600/s
    assert saturation(w) is None
    bound = lower_bound(w)
    assert bound is not None and bound.at_least
    assert bound.records_per_s == pytest.approx(200.0, rel=0.05)  # 600 / 3, not 500
    assert lag_trend(w)[0] == "steady"
    learned = learn(w, topic_default=50.0)
    assert learned is not None and learned.source == "lower-bound"  # never the topic's slow Tc


def test_a_burst_then_catching_up_is_not_saturation_unless_it_lasts() -> None:
    # One window over capacity (a burst), then caught up: one saturated window only.
    w = _windows([600.0, 3_000.0, 600.0, 600.0, 600.0], 500.0, 3)
    assert saturation(w) is None
    assert lag_trend(w)[0] == "steady"


def test_a_rebalance_inside_a_run_splits_it() -> None:
    w = _windows([2_500.0] * 6, 500.0, 3)
    owners = np.array([3, 3, 3, 2, 2, 2])
    changed = GroupWindows.of(w.starts_s, w.lengths_s, w.consumed, w.lag_start, w.lag_end, owners)
    found = saturation(changed)
    # Either run alone is three windows; rates per member of the latest run's owners.
    assert found is not None and found.window_start_s == 180.0


def test_busy_fraction_and_the_order_of_sources() -> None:
    # Busy 40 % of the time: Kafka's ratio reads 0.6 / (1 + 0.6) = 0.375 (see below).
    busy = busy_fraction([200.0, 190.0, 210.0], [0.375, 0.39, 0.36])
    assert busy is not None and busy.records_per_s == pytest.approx(500.0, rel=0.02)
    assert busy_fraction([3.0], [0.49]) is None  # busy 2 %: says nothing
    keeping_up = _windows([600.0] * 5, 500.0, 3)
    # Both "at least": the busy fraction (500) is the tighter bound than the highest
    # per-member rate kept up at (200), and a tighter lower bound wins over it.
    assert busy.at_least and busy.evidence.endswith("so its capacity is at least that")
    assert learn(keeping_up, busy=busy) is busy
    faster = _windows([1_800.0] * 5, 1_800.0, 3)  # kept up at 600 a member
    bound = learn(faster, busy=busy)
    assert bound is not None and bound.source == "lower-bound"
    assert bound.records_per_s == pytest.approx(600.0, rel=0.1)
    assert learn(keeping_up, given=123.0).source == "given"  # curated wins
    saturated = _windows([2_500.0] * 5, 500.0, 3)
    assert learn(saturated, busy=busy).source == "saturation"
    assert learn(None) is None
    default = learn(None, topic_default=80.0)
    assert default is not None and default.source == "topic-default"


def test_the_poll_ratio_is_read_as_kafka_computes_it() -> None:
    # Polls alike, each waiting w ms and then processing p ms: Kafka records each poll's
    # w over w plus the time since the previous poll *started* (w + p).
    for w, p in [(12.0, 8.0), (1.0, 99.0), (50.0, 0.0), (30.0, 30.0)]:
        kafka_ratio = w / (w + (w + p))
        assert poll_busy_share([kafka_ratio])[0] == pytest.approx(p / (w + p))
    # Entries with no usable reading are left out, and the window is the used entries'.
    found = busy_fraction(
        [200.0, float("nan"), 100.0, 0.0, 200.0],
        [0.375, 0.375, float("nan"), 0.2, 0.375],
        times_s=[10.0, 5.0, 1.0, 40.0, 20.0],
    )
    assert found is not None and found.records_per_s == pytest.approx(500.0)
    assert (found.window_start_s, found.window_end_s) == (10.0, 20.0)
    assert found.evidence.startswith("2 member reading(s)")


def test_time_lag_is_when_the_end_offset_was_at_the_committed_offset() -> None:
    times, ends = [0.0, 10.0, 20.0, 30.0], [0.0, 100.0, 300.0, 600.0]
    assert time_lag(600.0, times, ends, now_s=30.0) == 0.0
    assert time_lag(200.0, times, ends, now_s=30.0) == pytest.approx(15.0)
    assert time_lag(-1.0, times, ends, now_s=30.0) is None  # older than the history


def test_windows_need_columns_of_one_length() -> None:
    with pytest.raises(ValueError, match="same length"):
        GroupWindows.of([0.0], [60.0, 60.0], [1.0], [0.0], [0.0], [1])


def test_a_lag_growing_over_the_interval_gives_no_lower_bound() -> None:
    # Each 10 s window's growth (3 x 10 records/s short: 300) is within its noise
    # (2 x 5 s x 1,470 records/s = 14,700), but over 20 windows the lag grew by 6,000
    # records, beyond it: the group did not keep up, so no window says it did.
    n = 20
    consumed = np.full(n, 14_700.0)
    lag = np.arange(n + 1) * 300.0 + 50.0
    w = GroupWindows.of(
        np.arange(n) * 10.0, np.full(n, 10.0), consumed, lag[:-1], lag[1:], np.full(n, 3)
    )
    assert lag_trend(w)[0] == "steady"  # the last window's noise: 14,700 > 6,000
    assert lower_bound(w) is not None
    growing = GroupWindows.of(
        np.arange(n) * 10.0, np.full(n, 10.0), consumed, lag[:-1] * 3, lag[1:] * 3, np.full(n, 3)
    )
    assert lag_trend(growing)[0] == "growing"  # 18,000 beyond the noise
    assert lower_bound(growing) is None
    assert learn(growing) is None
