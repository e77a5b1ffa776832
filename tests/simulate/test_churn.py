"""Churn per scale event and protocol: the worked example of docs/simulation.md section 4.

12 partitions, a group of 5, one member joins (it sorts last) or the last one leaves,
Kafka 4.4.0's defaults: classic heartbeat 3 s; consumer and share heartbeats 5 s
(half of it waited on average) and assignment intervals 1 s; share lock 30 s and
`max.poll.records` 500.
"""

from __future__ import annotations

import numpy as np
import pytest

from planner.simulate import (
    ALL_STRATEGIES,
    KAFKA_DEFAULTS,
    ProtocolTimings,
    TopicLoad,
    simulate_grid,
)
from planner.simulate.churn import COST_COLUMNS, churn, event_costs
from planner.simulate.multi_topic import group_churn, group_event_costs

# strategy: (grow_moved, grow_revoked, shrink_moved, shrink_revoked, stops_group,
#            grow_rounds, shrink_rounds, grow_paused_partition_s,
#            shrink_paused_partition_s, shrink_locked_record_s)
EXAMPLE = {
    # Eager: all 12 revoked, one stop of the group, 12 x 3 s.
    "range": (9, 12, 3, 12, True, 1, 1, 36.0, 36.0, 0.0),
    "roundrobin": (7, 12, 8, 12, True, 1, 1, 36.0, 36.0, 0.0),
    "sticky": (2, 12, 2, 12, True, 1, 1, 36.0, 36.0, 0.0),
    # Cooperative: two rounds, only the moved partitions pause, about a heartbeat each.
    "cooperative-sticky": (2, 2, 2, 2, False, 2, 2, 6.0, 6.0, 0.0),
    # Consumer protocol: the same cut as range, nothing else stops; a moved partition
    # waits half a heartbeat (2.5 s), a leaver's the assignment interval (1 s) too.
    "consumer:range": (9, 9, 3, 3, False, 1, 1, 22.5, 10.5, 0.0),
    # uniform: the joiner's quota 12 div 6; the last in hash order holds ceil(12 / 5).
    "consumer:uniform": (2, 2, 3, 3, False, 1, 1, 5.0, 10.5, 0.0),
    # simple: at least the joiner's 12 div 6 move; the leaver read 2 alone, which wait
    # 1 + 2.5 s; its 500 in-flight records x 30 s if it stops without closing.
    "share:simple": (2, 2, 2, 2, False, 1, 1, 0.0, 7.0, 15_000.0),
}


@pytest.mark.parametrize("key", ALL_STRATEGIES)
def test_worked_example_per_protocol(key: str) -> None:
    grid = simulate_grid(
        TopicLoad(1.0), consumer_capacity=1.0, partition_counts=[12], strategies=(key,)
    )
    row = grid.where(grid.members == 5).rows()[0]
    names = ("grow_moved", "grow_revoked", "shrink_moved", "shrink_revoked", *COST_COLUMNS)
    assert tuple(row[n] for n in names) == pytest.approx(EXAMPLE[key])
    # The multi-topic table's churn of one topic is the grid's, costs included.
    single = {**group_churn([12], 5, key), **group_event_costs([12], 5, key, KAFKA_DEFAULTS)}
    assert tuple(single[n] for n in names) == pytest.approx(EXAMPLE[key])


def test_the_only_member_leaving_leaves_everything_unowned() -> None:
    for key in ALL_STRATEGIES:
        moved = churn(key, [7, 5], np.array([1, 2, 3]))
        assert int(moved["shrink_moved"][0]) == 12, key


def test_timings_are_keyword_settings_with_kafka_defaults() -> None:
    assert (
        ProtocolTimings(
            classic_heartbeat_interval_ms=3000,
            consumer_heartbeat_interval_ms=5000,
            consumer_assignment_interval_ms=1000,
            share_heartbeat_interval_ms=5000,
            share_assignment_interval_ms=1000,
            share_record_lock_duration_ms=30000,
            share_max_poll_records=500,
        )
        == KAFKA_DEFAULTS
    )
    sizes = np.array([5])
    moved = churn("consumer:uniform", [12], sizes)
    slow = ProtocolTimings(consumer_heartbeat_interval_ms=10_000, consumer_assignment_interval_ms=0)
    costs = event_costs("consumer:uniform", moved, sizes, 12, slow)
    assert costs["grow_paused_partition_s"][0] == pytest.approx(2 * 5.0)
    assert costs["shrink_paused_partition_s"][0] == pytest.approx(3 * 5.0)
    with pytest.raises(ValueError, match="zero or above"):
        ProtocolTimings(share_record_lock_duration_ms=-1)


def test_share_members_beyond_the_partitions_leave_nothing_unread() -> None:
    """With more members than partitions every partition has other readers: a leave
    pauses none of them; only the leaver's locked records count."""
    sizes = np.array([13, 30])
    moved = churn("share:simple", [12], sizes)
    costs = event_costs("share:simple", moved, sizes, 12)
    assert costs["shrink_paused_partition_s"].tolist() == [0.0, 0.0]
    assert costs["shrink_locked_record_s"].tolist() == [15_000.0, 15_000.0]
