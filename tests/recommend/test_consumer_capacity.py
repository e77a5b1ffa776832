"""Each group sized with its own Tc (`Tc_g`), the topic's partitions by the slowest."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from planner.recommend import (
    GroupInfo,
    PlanSettings,
    TopicHistory,
    TopicPlan,
    group_records_per_s,
    load_factor,
    plan_topic,
)
from planner.sizing import SideCapacity

HOUR = 3600.0
#: The topic's Tc, records/s per member.
TOPIC_TC = 1_000.0
SETTINGS = PlanSettings(headroom_pct=0.0, evenness_slack_pct=0.0, min_group_members=1)


def _history(records_per_s: float = 3_000.0, current: int | None = 12) -> TopicHistory:
    ts = np.arange(14 * 24) * HOUR
    return TopicHistory(
        "orders", ts, records_in=np.full(ts.size, records_per_s), current_partitions=current
    )


def _plan(*groups: GroupInfo, tc: float = TOPIC_TC, current: int | None = 12) -> TopicPlan:
    return plan_topic(
        _history(current=current),
        SideCapacity(records_per_s=100_000.0),
        SideCapacity(records_per_s=tc),
        brokers=3,
        groups=groups,
        settings=SETTINGS,
    )


def _own(group_id: str, tc_g: float, source: str, members: int = 2, **kw: object) -> GroupInfo:
    return GroupInfo(
        group_id,
        "cooperative-sticky",
        members,
        capacity_records_per_s=tc_g,
        capacity_source=source,
        **kw,  # type: ignore[arg-type]
    )


def test_the_group_tc_rule() -> None:
    assert group_records_per_s(_own("g", 400.0, "saturation"), TOPIC_TC) == 400.0
    assert group_records_per_s(_own("g", 4_000.0, "given"), TOPIC_TC) == 4_000.0
    # A bound is "at least": never below the topic's Tc, above it when it says more. A
    # busy fraction is one too (Kafka's poll-idle-ratio-avg reads members busier than
    # they are, so the capacity it gives is low).
    for bound in ("lower-bound", "busy-fraction"):
        assert group_records_per_s(_own("g", 400.0, bound), TOPIC_TC) == TOPIC_TC
        assert group_records_per_s(_own("g", 4_000.0, bound), TOPIC_TC) == 4_000.0
    assert group_records_per_s(GroupInfo("g", "range", 2), TOPIC_TC) == TOPIC_TC
    assert load_factor(_own("g", 250.0, "given"), TOPIC_TC) == 4.0
    # Without the topic's Tc in records/s there is nothing to compare with.
    assert load_factor(_own("g", 250.0, "given"), None) == 1.0


def test_two_groups_with_different_tc_get_different_sizes_and_the_slower_sets_partitions() -> None:
    # 3,000 records/s: the topic's Tc asks for 3 partitions, the indexer's (250) for 12.
    archiver = _own("archiver", 2_000.0, "saturation")
    indexer = _own("indexer", 250.0, "given")
    plan = _plan(archiver, indexer, current=None)
    assert plan.sizing.required_partitions == 12
    by_id = {g.group_id: g for g in plan.groups}
    assert by_id["archiver"].members_now < by_id["indexer"].members_now
    # Each is what the topic would give it were the topic's Tc its own Tc_g: a brute
    # force through the plain path, the same group without figures.
    for group, tc_g in ((archiver, 2_000.0), (indexer, 250.0)):
        plain = dataclasses.replace(group, capacity_records_per_s=None, capacity_source=None)
        alone = plan_topic(
            _history(current=None),
            SideCapacity(records_per_s=100_000.0),
            SideCapacity(records_per_s=tc_g),
            brokers=3,
            groups=[plain],
            consuming_groups=2,
            settings=SETTINGS,
        )
        # Planned on the slower group's 12 partitions both ways.
        assert alone.recommended_partitions <= 12
        on_12 = _plan(dataclasses.replace(group, group_id="x"), current=None)
        assert on_12.groups[0].members_now == by_id[group.group_id].members_now
    assert by_id["indexer"].members_now == 12
    assert by_id["archiver"].members_now == 2  # 3,000 / 2,000, rounded up
    assert by_id["indexer"].consumer_capacity is not None
    assert by_id["indexer"].consumer_capacity.source == "given"
    assert by_id["indexer"].consumer_capacity.records_per_s == 250.0
    assert any("'indexer' processes 250 records/s" in r for r in plan.rationale)


def test_a_faster_group_alone_needs_fewer_partitions_than_the_topic_tc_says() -> None:
    fast = _plan(_own("archiver", 3_000.0, "given"), current=None)
    assert fast.sizing.required_partitions == 1
    # Another reader whose Tc_g is not at hand counts at the topic's Tc.
    mixed = plan_topic(
        _history(current=None),
        SideCapacity(records_per_s=100_000.0),
        SideCapacity(records_per_s=TOPIC_TC),
        brokers=3,
        groups=[_own("archiver", 3_000.0, "given")],
        consuming_groups=2,
        settings=SETTINGS,
    )
    assert mixed.sizing.required_partitions == 3


@pytest.mark.parametrize("bound", [100.0, 500.0, 999.0, 1_000.0, 5_000.0])
def test_a_lower_bound_never_raises_members_above_the_topic_tc(bound: float) -> None:
    plain = _plan(GroupInfo("g", "cooperative-sticky", 2))
    bounded = _plan(_own("g", bound, "lower-bound"))
    assert bounded.groups[0].members_now <= plain.groups[0].members_now
    assert bounded.recommended_partitions <= plain.recommended_partitions
    # Nor says "falling behind" where the topic's Tc does not.
    assert bounded.groups[0].falling_behind is None or plain.groups[0].falling_behind is not None
    capacity = bounded.groups[0].consumer_capacity
    assert capacity is not None and capacity.source == "lower-bound"


def test_a_steady_lag_is_not_falling_behind_whatever_tc_says() -> None:
    # 3,000 records/s over 2 members of Tc_g 500 on 12 partitions: 3 consumers' worth
    # each, but its offsets were seen keeping up.
    slow = _own("g", 500.0, "given", members=2)
    assert _plan(slow).groups[0].falling_behind is not None  # never observed: Tc says
    for trend in ("steady", "shrinking"):
        observed = dataclasses.replace(slow, lag_records=7_200.0, lag_seconds=1.8, lag_trend=trend)
        group = _plan(observed).groups[0]
        assert group.falling_behind is None
        assert group.lag is not None and group.lag.trend == trend
        assert "falling-behind" not in {n.code for n in group.warnings}


def test_a_growing_lag_is_falling_behind_even_when_tc_says_it_keeps_up() -> None:
    fast = _own("g", 5_000.0, "given", members=2, lag_records=90_000.0, lag_trend="growing")
    group = _plan(fast).groups[0]
    assert group.falling_behind is not None
    assert group.falling_behind.params["lag_growing"] is True
    assert "its lag grew over the interval (to 90,000 records)" in group.falling_behind.text
    assert "overstates" in group.falling_behind.text


def test_no_group_figures_change_nothing() -> None:
    plain = _plan(GroupInfo("g", "range", 2))
    topic_default = _plan(GroupInfo("g", "range", 2, capacity_source="topic-default"))
    assert topic_default.groups[0].consumer_capacity == plain.groups[0].consumer_capacity
    assert dataclasses.replace(topic_default, grid=plain.grid, key_sample=None).groups == (
        plain.groups
    )
    capacity = plain.groups[0].consumer_capacity
    assert capacity is not None
    assert (capacity.records_per_s, capacity.source) == (TOPIC_TC, "topic-default")
