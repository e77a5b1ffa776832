"""One decision sizes every consumer group: a one-topic and a multi-topic table agree."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from planner.notes import CODES, note, render
from planner.recommend import (
    GroupInfo,
    GroupPlan,
    GroupTopic,
    PlanSettings,
    TopicHistory,
    plan_group_of_topics,
    plan_topic,
)
from planner.simulate import partition_loads
from planner.sizing import SideCapacity

HOUR = 3600.0


def _history(mib: float, current: int | None, *, growth: float = 0.0) -> TopicHistory:
    ts = np.arange(14 * 24) * HOUR
    mib_in = np.full(ts.size, mib) * (1 + growth * np.arange(ts.size) / ts.size)
    return TopicHistory("orders", ts, mib_in=mib_in, current_partitions=current)


CASES = [
    # (MiB/s in, partitions today, the group today, growth over the history)
    (10.0, 4, GroupInfo("g", "range", 2), 0.0),
    (10.0, 2, GroupInfo("g", "range", 4), 0.0),
    (10.0, 2, GroupInfo("g", "roundrobin", 1), 0.3),
    (3.0, 12, GroupInfo("g", "cooperative-sticky", 16), 0.0),
    (25.0, 6, GroupInfo("g", "sticky", 3), 0.5),
    (0.5, 1, GroupInfo("g", "range", 1), 0.0),
    (40.0, None, GroupInfo("g", "range", 0), 0.2),
    # Kafka 4's protocols: planned with their own assignors (a share group past P).
    (10.0, 4, GroupInfo("g", "uniform", 2, "consumer"), 0.0),
    (10.0, 4, GroupInfo("g", "range", 5, "consumer"), 0.3),
    (10.0, 2, GroupInfo("g", "simple", 6, "share"), 0.0),
    (25.0, 2, GroupInfo("g", "simple", 1, "share"), 0.5),
    (10.0, 4, GroupInfo("g", "stream", 3), 0.0),
    (10.0, 4, GroupInfo("g", "sticky", 3, "streams"), 0.0),
]


@pytest.mark.parametrize(("mib", "current", "group", "growth"), CASES)
@pytest.mark.parametrize("min_group_members", [1, 2, 5])
def test_a_one_topic_group_through_the_multi_topic_path_is_the_one_topic_plan(
    mib: float, current: int | None, group: GroupInfo, growth: float, min_group_members: int
) -> None:
    settings = PlanSettings(min_group_members=min_group_members)
    plan = plan_topic(
        _history(mib, current, growth=growth),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        groups=[group],
        settings=settings,
    )
    (one_topic,) = plan.groups
    topic = GroupTopic(
        topic="orders",
        current_partitions=current,
        partitions=plan.recommended_partitions,
        consumers_now=plan.utilisation_now,
        consumers_at_horizon=plan.utilisation_at_horizon,
    )
    multi = plan_group_of_topics(group, [topic], settings=settings).plan
    # The one-topic plan also states the Tc it was sized with and the group's lag, and a
    # Kafka Streams group's threads for this topic's tasks and its standbys; a multi-topic
    # plan has a Tc and tasks per topic, so it states none of them: every decision is the
    # same.
    notes = tuple(
        n for n in one_topic.notes if n.code not in ("streams-threads", "streams-standbys")
    )
    assert multi == dataclasses.replace(
        one_topic, consumer_capacity=None, lag=None, notes=notes, standbys=None
    )


def test_every_note_of_a_group_has_a_code_and_renders_from_its_parameters() -> None:
    plan = plan_topic(
        _history(10.0, 2),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        groups=[GroupInfo("g", "range", 4)],
    )
    (g,) = plan.groups
    codes = [n.code for n in g.notes]
    assert codes == [
        "under-provisioned",
        "strategy-switch",
        "falling-behind",
        "consumer-protocol-alternative",
    ]
    assert [n.code for n in g.warnings] == ["falling-behind", "idle-members"]
    assert g.falling_behind is not None
    assert g.falling_behind.params["busiest_utilisation"] == pytest.approx(5 / 3)
    assert g.falling_behind.params["partitions_today"] == [2]
    assert g.falling_behind.params["partitions_planned"] == [6]
    assert g.falling_behind.params["on_today"] is True
    idle = g.warnings[1]
    assert idle.params["idle_members_today"] == 2 and idle.params["idle_members"] == 0
    for n in (*g.notes, *plan.warnings):
        assert n.code in CODES
        assert render(n.code, n.params) == n.text
        assert note(n.code, **n.params) == n


def test_a_topic_s_warnings_carry_codes_and_parameters() -> None:
    keyed = TopicHistory(
        "orders",
        np.arange(14 * 24) * HOUR,
        mib_in=np.full(14 * 24, 30.0),
        current_partitions=4,
        keyed=True,
        replication_factor=1,
    )
    plan = plan_topic(keyed, SideCapacity(mib_per_s=100.0), SideCapacity(mib_per_s=3.0), brokers=3)
    by_code = {w.code: w for w in plan.warnings}
    assert set(by_code) >= {"keyed-remap", "single-replica", "unread-topic"}
    assert by_code["keyed-remap"].params == {
        "current_partitions": 4,
        "recommended_partitions": plan.recommended_partitions,
        "required_now": plan.choice.required_now,
    }
    assert by_code["single-replica"].params["partitions"] == plan.recommended_partitions
    assert by_code["keyed-remap"].severity == "warning"
    assert by_code["unread-topic"].params["dimension"] == "mib_in"


@pytest.mark.parametrize("group", [GroupInfo("g", "range", 3), GroupInfo("g", "sticky", 9)])
def test_a_keyed_one_topic_group_through_the_multi_topic_path_is_the_one_topic_plan(
    group: GroupInfo,
) -> None:
    # Zipf-like keys: the partitions are unevenly loaded, read from the key sample.
    rng = np.random.default_rng(7)
    keys = [f"k{i}".encode() for i in range(400)]
    counts = np.maximum(1, (2000 / np.arange(1, 401) ** 1.1 * rng.uniform(0.8, 1.2, 400)))
    ts = np.arange(14 * 24) * HOUR
    history = TopicHistory(
        "orders",
        ts,
        mib_in=np.full(ts.size, 12.0),
        current_partitions=12,
        keyed=True,
        keys=keys,
        key_counts=counts.astype(np.int64),
    )
    settings = PlanSettings()
    plan = plan_topic(
        history,
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        groups=[group],
        settings=settings,
    )
    assert plan.recommended_partitions == 12 and plan.key_sample is not None
    loads = partition_loads(plan.key_sample.with_load(plan.utilisation_at_horizon), 12)
    topic = GroupTopic(
        topic="orders",
        current_partitions=12,
        partitions=12,
        consumers_now=plan.utilisation_now,
        consumers_at_horizon=plan.utilisation_at_horizon,
        loads=loads,
    )
    multi = plan_group_of_topics(group, [topic], settings=settings).plan
    one = plan.groups[0]
    # The two grids sum a member's partitions in another order (the one-topic grid from
    # cumulative sums, the multi-topic one bin by bin): loads agree to the last bits,
    # every decision and sentence exactly.
    assert multi.busiest_utilisation == pytest.approx(one.busiest_utilisation, rel=1e-12)
    assert [n.text for n in multi.notes] == [n.text for n in one.notes]
    assert [n.text for n in multi.warnings] == [n.text for n in one.warnings]
    same = {"busiest_utilisation", "busiest_utilisation_current", "notes", "warnings"}
    # The Tc and lag the one-topic plan states (a multi-topic plan has one per topic).
    same |= {"consumer_capacity", "lag"}
    assert {k: v for k, v in vars(multi).items() if k not in same | {"falling_behind"}} == {
        k: v for k, v in vars(one).items() if k not in same | {"falling_behind"}
    }


def test_the_plan_carries_what_one_group_reading_only_the_topic_would_need() -> None:
    # 10 MiB/s against Tc 3 MiB/s on 6 partitions: 0.56 of a consumer each, so a member
    # keeps its headroom (at most 0.77) with one partition only: 6 members.
    plan = plan_topic(
        _history(10.0, 6),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        groups=[GroupInfo("g", "range", 2)],
    )
    one = plan.one_group
    assert one is not None and one not in plan.groups
    assert (one.current_members, one.members_now, one.strategy) == (0, 6, "cooperative-sticky")
    # It runs no member yet: under-provisioned, no switch, nothing falling behind.
    assert [n.code for n in one.notes] == ["under-provisioned"]
    assert one.warnings == () and one.falling_behind is None


def test_a_group_keeping_up_below_the_floor_lacks_a_standby_not_members_for_its_load() -> None:
    # 0.5 MiB/s on one partition, Tc 3: one member carries it with room to spare; the
    # two-member floor (min_group_members = 2) alone asks for a second.
    def plan(group: GroupInfo, mib: float = 0.5) -> GroupPlan:
        topic = plan_topic(
            _history(mib, 1),
            SideCapacity(mib_per_s=100.0),
            SideCapacity(mib_per_s=3.0),
            brokers=3,
            groups=[group],
        )
        (g,) = topic.groups
        return g

    classic = plan(GroupInfo("g", "range", 1))
    assert (classic.status, classic.recommended_members) == ("no-standby", 2)
    [floor] = [n for n in classic.notes if n.code == "no-standby"]
    assert floor.severity == "warning"
    assert floor.text == (
        "no standby member: 1 member keeps up with today's peak (1 needed for the load), "
        "and none can take over while it restarts; min_group_members = 2 plans 2 (the "
        "topic has 1 partition, so 1 of them owns none and stands by)"
    )
    codes = [n.code for n in classic.notes]
    assert "under-provisioned" not in codes and "min-group-size" not in codes
    # A share group's members share the partition: the second owns it too.
    share = plan(GroupInfo("s", "simple", 1, "share"))
    assert share.status == "no-standby"
    [floor] = [n for n in share.notes if n.code == "no-standby"]
    assert "needed for today's peak" not in floor.text and "stands by" not in floor.text
    # Too few for the load is still that: a group of one that cannot keep up.
    short = plan(GroupInfo("g", "range", 1), mib=20.0)
    assert short.status == "under-provisioned"
