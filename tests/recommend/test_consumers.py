"""A topic's consumers: the largest group with a plan sets them, else one group alone."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from planner.recommend import GroupInfo, choose_consumers, plan_topic
from planner.recommend.types import TopicHistory
from planner.sizing import SideCapacity


class _Group(NamedTuple):
    group_id: str
    recommended_members: int | None
    strategy: str | None = "range"
    standby_members: int | None = 0


_ALONE = _Group("", 3, "cooperative-sticky", 0)


def test_the_largest_recommendation_wins_and_a_tie_goes_to_the_smaller_id() -> None:
    groups = [_Group("b", 6, "sticky"), _Group("a", 6, "roundrobin"), _Group("c", 9)]
    choice = choose_consumers(groups, one_group=_ALONE)
    assert choice is not None
    assert (choice.members, choice.group_id, choice.strategy) == (9, "c", "range")
    tie = choose_consumers(groups[:2], one_group=_ALONE)
    assert tie is not None and (tie.group_id, tie.strategy, tie.groups_with_plan) == (
        "a",
        "roundrobin",
        2,
    )


def test_groups_without_a_plan_are_left_out_and_one_group_alone_is_the_fallback() -> None:
    choice = choose_consumers([_Group("x", None, None, None)], one_group=_ALONE)
    assert choice is not None
    assert (choice.members, choice.group_id, choice.strategy, choice.groups_with_plan) == (
        3,
        None,
        "cooperative-sticky",
        0,
    )
    assert choose_consumers([_Group("x", None, None, None)], one_group=None) is None


@pytest.mark.parametrize(
    ("groups", "standby", "reason"),
    [
        (
            [_Group("g", 4)],
            0,
            "consumers: 4, the recommended size of group 'g' (range), the only group with a "
            "plan that reads the topic",
        ),
        (
            [_Group("g", 4), _Group("h", 2)],
            0,
            "consumers: 4, the recommended size of group 'g' (range), the largest of the 2 "
            "groups with a plan that read the topic",
        ),
        (
            [],
            1,
            "consumers: no consumer group with a plan reads the topic; one group reading only "
            "it would need 3 members today (cooperative-sticky); 1 of them owns no partition "
            "and stands by to take over from a member that fails (min_group_members)",
        ),
    ],
)
def test_the_reason_names_the_group_and_its_standbys(
    groups: list[_Group], standby: int, reason: str
) -> None:
    # The sentence the job appends to the rationale (the `recommendations` dataset).
    choice = choose_consumers(groups, one_group=_ALONE._replace(standby_members=standby))
    assert choice is not None and choice.reason == reason


def test_plan_topic_carries_the_choice_among_its_groups() -> None:
    ts = np.arange(14 * 24) * 3600.0
    plan = plan_topic(
        TopicHistory("orders", ts, mib_in=np.full(ts.size, 10.0), current_partitions=6),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        groups=[GroupInfo("small", "range", 1), GroupInfo("big", "range", 9)],
    )
    choice = plan.consumers
    assert choice is not None
    by_size = min(plan.groups, key=lambda g: (-g.recommended_members, g.group_id))
    assert (choice.group_id, choice.members) == (by_size.group_id, by_size.recommended_members)
    assert choice.groups_with_plan == 2
    alone = plan_topic(
        TopicHistory("orders", ts, mib_in=np.full(ts.size, 10.0), current_partitions=6),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
    ).consumers
    assert alone is not None and plan.one_group is not None
    assert (alone.group_id, alone.members) == (None, plan.one_group.members_now)


def test_a_topic_no_group_reads_gets_what_its_load_needs_and_no_standby() -> None:
    # 0.5 MiB/s on one partition, Tc 3: one member carries it. With no group reading it,
    # there is no running group to keep a standby for (min_group_members = 2 is a floor
    # for those), so not "2 consumers, 1 standing by".
    ts = np.arange(14 * 24) * 3600.0

    def plan(*groups: GroupInfo) -> tuple[int, int | None, int]:
        topic = plan_topic(
            TopicHistory("audit", ts, mib_in=np.full(ts.size, 0.5), current_partitions=1),
            SideCapacity(mib_per_s=100.0),
            SideCapacity(mib_per_s=3.0),
            brokers=3,
            groups=list(groups),
        )
        assert topic.consumers is not None and topic.one_group is not None
        return topic.consumers.members, topic.consumers.standby_members, topic.one_group.members_now

    assert plan() == (1, 0, 1)
    # A topic a group reads keeps the floor, for the group and for one group alone.
    assert plan(GroupInfo("g", "range", 2)) == (2, 1, 2)
