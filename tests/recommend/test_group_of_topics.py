"""A consumer group that reads several topics is sized as one group (the core's plan).

The decision on the group's table of candidate sizes, without Spark: members, strategy,
status, and the notes and warnings as codes and parameters. The sizing job's rows
around it (the grid, a group whose topic has no plan) are `tests/spark_jobs/test_groups.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from planner.recommend import GroupInfo, GroupPlan, GroupTopic, PlanSettings, plan_group_of_topics


def _topic(
    name: str, partitions: int, now: float, horizon: float | None = None, *, current: int = 0
) -> GroupTopic:
    # Even partitions; today's count is the recommended one unless `current` says.
    return GroupTopic(name, current or partitions, partitions, now, horizon or now)


def _plan(
    group_id: str, strategy: str, members: int, topics: list[GroupTopic], *, floor: int = 2
) -> GroupPlan:
    settings = PlanSettings(headroom_pct=30.0, min_group_members=floor)
    return plan_group_of_topics(
        GroupInfo(group_id, strategy, members), topics, settings=settings
    ).plan


def _coded(notes: tuple[Any, ...], code: str) -> dict[str, Any]:
    (found,) = [dict(n.params) for n in notes if n.code == code]
    return found


# Topic a: 4 partitions of 0.3 consumers each; topic b: 2 of 0.3.
SIX = [_topic("a", 4, 1.2), _topic("b", 2, 0.6)]


def test_idle_members_make_an_over_provisioned_group() -> None:
    plan = _plan("mixed", "roundrobin", 8, SIX)
    assert (plan.idle_members_now, plan.status) == (2, "over-provisioned")
    assert plan.recommended_members == plan.members_at_horizon == 3
    assert [w.code for w in plan.warnings] == ["idle-members"]
    idle = _coded(plan.warnings, "idle-members")
    assert (idle["topics"], idle["current_members"], idle["idle_members"]) == (["a", "b"], 8, 2)
    assert idle["partitions_planned"] == [4, 2] and idle["idle_members_today"] is None


def test_growth_is_carried_per_topic() -> None:
    # Topic a doubles by the end of the horizon, b does not: today 3 members fit, at the
    # horizon a's partitions weigh 0.6 each and every member needs one to itself (6).
    plan = _plan("grows", "roundrobin", 3, [_topic("a", 4, 1.2, 2.4), _topic("b", 2, 0.6)])
    assert (plan.members_now, plan.members_at_horizon, plan.status) == (3, 6, "ok")


def test_a_quiet_group_keeps_the_floor_s_members() -> None:
    # Two one-partition topics of 0.1 consumers each: one member carries both.
    quiet = [_topic("a", 1, 0.1), _topic("b", 1, 0.1)]
    plan = _plan("quiet", "roundrobin", 3, quiet, floor=2)
    assert (plan.members_now, plan.members_at_horizon) == (2, 2)
    assert (plan.status, plan.recommended_members) == ("over-provisioned", 2)
    assert plan.busiest_utilisation == pytest.approx(0.1)
    floor = _coded(plan.notes, "min-group-size")
    assert (floor["members_by_load"], floor["members"], floor["min_group_members"]) == (1, 2, 2)
    by_load = _plan("quiet", "roundrobin", 3, quiet, floor=1)
    assert (by_load.members_now, by_load.recommended_members) == (1, 1)
    assert by_load.busiest_utilisation == pytest.approx(0.2)
    assert "min-group-size" not in [n.code for n in by_load.notes]


def test_range_is_not_chosen_when_it_cannot_give_the_floor_work() -> None:
    # range cuts each one-partition topic on its own: its second member owns nothing,
    # so a group of two is planned on a strategy that deals both partitions.
    plan = _plan("quiet", "range", 2, [_topic("a", 1, 0.1), _topic("b", 1, 0.1)])
    assert plan.members_now == 2
    assert plan.strategy != "range"
    assert plan.standby_members == 0


def test_a_partition_no_member_can_keep_up_with() -> None:
    # One partition of topic b weighs 0.9 consumers: no group size fits.
    plan = _plan("hot", "range", 2, [_topic("a", 2, 0.2), _topic("b", 1, 0.9)])
    assert plan.fits is False
    assert plan.members_now == 3
    assert plan.notes[0].code == "no-size-fits"
    assert plan.notes[0].params["busiest_utilisation"] == pytest.approx(0.9)


def test_a_streams_group_no_size_fits_gets_as_many_members_as_its_largest_topic() -> None:
    """A multi-topic Kafka Streams application is planned range-shaped (task i reads
    partition i of every input topic), so it can use as many members as its largest
    topic has partitions, not one per partition of all its topics. Here partition i of
    the three topics together weighs 0.3 + 0.3 + 0.3 consumers, over the 0.77 limit at
    any size: the plan asks for 4 members (the largest topic's count), and the note
    says so with a number. It used to ask for 10 and put an infinite load in the note,
    which the report then failed to render (found planning sample fleet seed 3)."""
    topics = [_topic("a", 4, 1.2), _topic("b", 2, 0.6), _topic("c", 4, 1.2)]
    settings = PlanSettings(headroom_pct=30.0, min_group_members=2)
    plan = plan_group_of_topics(
        GroupInfo("app", "sticky", 6, "streams"), topics, settings=settings
    ).plan
    assert plan.fits is False
    assert (plan.members_now, plan.members_at_horizon) == (4, 4)
    found = _coded(plan.notes, "no-size-fits")
    assert (found["members"], found["strategy"]) == (4, "sticky")
    assert found["busiest_utilisation"] == pytest.approx(0.9)
    (sentence,) = [n.text for n in plan.notes if n.code == "no-size-fits"]
    assert sentence.startswith("even 4 members (the most sticky gives partitions to")
    # A strategy that deals every partition still says one per partition.
    dealt = _plan("hot", "range", 2, [_topic("a", 2, 0.2), _topic("b", 1, 0.9)])
    assert "members" not in _coded(dealt.notes, "no-size-fits")


def test_a_large_group_is_sized_without_one_simulation_per_size() -> None:
    # 24 topics of 96 partitions (2,304 in all), each partition 0.05 consumers: a
    # member carries at most 15 of them, so 154 members; found from closed forms in
    # well under a second.
    topics = [_topic(f"t{i:02d}", 96, 96 * 0.05) for i in range(24)]
    plan = _plan("wide", "range", 10, topics)
    assert plan.members_now == -(-2304 // 15)
    assert plan.strategy in ("roundrobin", "sticky", "cooperative-sticky")


def test_a_group_above_one_consumers_capacity_today_is_falling_behind_now() -> None:
    # One member reads all six partitions of 0.3 consumers: 180 % of one consumer.
    plan = _plan("mixed", "roundrobin", 1, SIX)
    assert plan.status == "under-provisioned"
    assert plan.falling_behind is not None and plan.falling_behind in plan.notes
    assert [w.code for w in plan.warnings] == ["falling-behind"]
    behind = dict(plan.falling_behind.params)
    assert behind["busiest_utilisation"] == pytest.approx(1.8)
    assert (behind["members"], behind["members_needed"], behind["on_today"]) == (1, 3, True)
    # Three members carry 0.6 each: short of nothing.
    assert _plan("mixed", "roundrobin", 3, SIX).falling_behind is None


# a has 2 partitions today and 4 recommended (2.4 consumers: 1.2 each today, 0.6 each
# on 4); b keeps its 2 of 0.3.
GROWING_A = [GroupTopic("a", 2, 4, 2.4, 2.4), _topic("b", 2, 0.6)]


def test_falling_behind_is_measured_on_todays_partition_counts() -> None:
    # Four members on today's 4 partitions own one each: a's carry 1.2 (120 %). On the
    # recommended 6 the same four would carry at most 0.9, under one consumer.
    plan = _plan("mixed", "roundrobin", 4, GROWING_A)
    assert plan.falling_behind is not None
    behind = dict(plan.falling_behind.params)
    assert behind["busiest_utilisation"] == pytest.approx(1.2)
    assert (behind["partitions_today"], behind["partitions_planned"]) == ([2, 2], [4, 2])
    assert (behind["on_today"], behind["more_members_help"], behind["members_needed"]) == (
        True,
        False,
        6,
    )


def test_a_keyed_topic_changing_count_is_read_at_the_recommended_counts() -> None:
    # Today's loads of a keyed topic at its current count are not at hand.
    keyed = GroupTopic("a", 2, 4, 1.6, 1.6, np.array([0.6, 0.2, 0.6, 0.2]))
    plan = _plan("g", "range", 1, [keyed, _topic("b", 1, 0.0)])
    assert plan.warnings[0].code == "falling-behind"
    behind = dict(plan.warnings[0].params)
    assert behind["busiest_utilisation"] == pytest.approx(1.6)
    assert (behind["on_today"], behind["partitions_planned"]) == (False, [4, 1])


def test_idle_members_today_and_after_the_increases_are_told_apart() -> None:
    # Eight members: 4 partitions today leave 4 idle; 6 recommended leave 2.
    # (Today a's partitions still need 120 % each: more members do not help.)
    plan = _plan("mixed", "roundrobin", 8, GROWING_A)
    assert plan.idle_members_now == 2
    assert [w.code for w in plan.warnings] == ["falling-behind", "idle-members"]
    idle = _coded(plan.warnings, "idle-members")
    assert (idle["idle_members_today"], idle["idle_members"]) == (4, 2)
    assert (idle["partitions_today"], idle["partitions_planned"]) == ([2, 2], [4, 2])
