"""A group that reads several topics: the sizing job's rows around the core's plan.

The plan's `GROUP_PLAN` row, its simulation rows (the grid) and a group whose topic has
no plan. The decision itself, without Spark, is
`tests/recommend/test_group_of_topics.py`; the multi-topic grid's math is
`tests/planner/test_multi_topic.py`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from planner.fit import member_headroom_pct
from planner.simulate import simulate_group
from spark_jobs.groups import GroupTopic, plan_group_of_topics

LIMIT = 1 - member_headroom_pct(30.0) / 100  # 0.769: a member may carry 2 x 0.3, not 3


def _topic(name: str, partitions: int, now: float, horizon: float | None = None) -> GroupTopic:
    return GroupTopic(name, "ok", partitions, partitions, now, horizon if horizon else now)


def _six_even_partitions(members: int, strategy: str = "roundrobin") -> object:
    # Topic a: 4 partitions of 0.3 consumers each; topic b: 2 of 0.3.
    return plan_group_of_topics(
        "mixed",
        strategy,
        members,
        [_topic("a", 4, 1.2), _topic("b", 2, 0.6)],
        headroom_pct=30.0,
    )


def test_the_group_needs_three_members_dealt_together_and_four_cut_per_topic() -> None:
    # roundrobin deals all six partitions: 3 members own 2 each (0.6 <= 0.769). range
    # cuts each topic on its own: a = [2, 1, 1], b = [1, 1, 0], so with 3 members the
    # first owns 3 partitions (0.9): range needs 4.
    result = _six_even_partitions(2)
    plan = result.plan
    assert (plan["members_now"], plan["members_at_horizon"]) == (3, 3)
    # Three strategies need 3 at the same load; cooperative-sticky revokes the fewest
    # partitions when a member joins (the eager ones revoke all 6).
    assert plan["strategy"] == "cooperative-sticky"
    assert plan["busiest_utilisation"] == pytest.approx(0.6)
    assert plan["status"] == "under-provisioned"
    assert plan["recommended_members"] == 3
    fits = {(r["strategy"], r["members"]): r["within_capacity"] for r in result.grid}
    assert fits[("range", 3)] is False
    assert fits[("range", 4)] is True
    assert fits[("roundrobin", 3)] is True
    assert plan["topics"] == ["a", "b"]


def test_grid_rows_are_simulate_group_on_the_group_s_topics() -> None:
    result = _six_even_partitions(2)
    row = next(r for r in result.grid if (r["strategy"], r["members"]) == ("range", 3))
    direct = simulate_group(
        {"a": np.full(4, 0.3), "b": np.full(2, 0.3)},
        {m: ["a", "b"] for m in ("consumer-000", "consumer-001", "consumer-002")},
        "range",
        consumer_capacity=1.0,
        keep_free_pct=member_headroom_pct(30.0),
    )
    assert row["max_load"] == pytest.approx(direct.max_load)
    assert row["max_member_partitions"] == 3
    assert row["partitions"] == 6
    assert row["load_limit"] == pytest.approx(LIMIT)
    chosen = next(
        r for r in result.grid if (r["strategy"], r["members"]) == ("cooperative-sticky", 3)
    )
    assert chosen["grow_revoked"] is not None and chosen["grow_revoked"] < 6
    eager = next(r for r in result.grid if (r["strategy"], r["members"]) == ("roundrobin", 3))
    assert eager["grow_revoked"] == 6


def _quiet_pair(members: int, strategy: str, floor: int) -> Any:
    # Two one-partition topics of 0.1 consumers each: one member carries both.
    return plan_group_of_topics(
        "quiet",
        strategy,
        members,
        [_topic("a", 1, 0.1), _topic("b", 1, 0.1)],
        headroom_pct=30.0,
        min_group_members=floor,
    )


def test_a_floor_above_the_partitions_plans_standbys() -> None:
    # Two partitions in all, a floor of four: two members own one each, two stand by.
    result = _quiet_pair(5, "roundrobin", 4)
    plan = result.plan
    assert (plan["members_now"], plan["members_at_horizon"]) == (4, 4)
    assert (plan["status"], plan["recommended_members"], plan["standby_members"]) == (
        "over-provisioned",
        4,
        2,
    )
    assert any(
        n.endswith(
            "its topics have 2 partitions, so 2 of them own none and stand by until a "
            "rebalance hands them the partitions of a member that fails or leaves"
        )
        for n in plan["notes"]
    )
    assert (
        "3 of 5 members would own no partition of its topics (2 kept as a standby: "
        "min_group_members = 4)"
    ) in plan["notes"]
    # Its simulation rows reach the planned size, whose row carries the churn of a
    # member joining a group of that size (and no other row does).
    rows = [r for r in result.grid if r["strategy"] == plan["strategy"]]
    assert max(r["members"] for r in rows) >= 4
    churn = [r for r in rows if r["grow_moved"] is not None]
    assert [r["members"] for r in churn] == [4]
    assert next(r for r in rows if r["members"] == 4)["idle_members"] == 2
    assert result.warnings == [
        "group 'quiet' reads a, b with 5 members for 2 partitions in all: 3 sit idle; "
        "min_group_members = 4 asks for 2 standbys"
    ]
    # Today's five: one more than the floor keeps; warned about, with the standbys named.
    idle = _quiet_pair(5, "roundrobin", 2)
    assert idle.plan["standby_members"] == 0
    assert any("5 members for 2 partitions in all: 3 sit idle" in w for w in idle.warnings)


def test_a_topic_without_a_plan_leaves_the_group_unplanned() -> None:
    missing = GroupTopic("legacy", "missing-capacity", 4, None, None, None)
    result = plan_group_of_topics(
        "g", "range", 2, [_topic("a", 4, 1.2), missing], headroom_pct=30.0
    )
    assert result.plan["status"] == "unplanned"
    assert result.plan["recommended_members"] is None
    assert result.plan["notes"] == [
        "not planned: the group also reads topics without a plan: legacy (missing-capacity)"
    ]
    assert result.grid == []


def _keyed(name: str, loads: list[float], current: int | None = None) -> GroupTopic:
    # A topic with planned partition loads (consumers at the horizon = today).
    weights = np.array(loads)
    total = float(weights.sum())
    count = weights.size
    return GroupTopic(name, "ok", current or count, count, total, total, weights)


def test_at_the_same_size_the_strategy_revoking_fewer_partitions_wins() -> None:
    # a = 0.3, 0.1, 0.3 and b = 0.1. Two members: range cuts a into [a0 a1] [a2] and b
    # into [b0] [], so 0.5 and 0.3; the others deal a0 a1 a2 b0 in turn, 0.6 and 0.2.
    # Both fit (limit 0.769), one member (0.8) does not. range's lower load buys
    # nothing; it revokes all 4 partitions when a member joins, cooperative-sticky 1.
    result = plan_group_of_topics(
        "g", "range", 2, [_keyed("a", [0.3, 0.1, 0.3]), _keyed("b", [0.1])], headroom_pct=30.0
    )
    plan = result.plan
    assert (plan["members_now"], plan["strategy"]) == (2, "cooperative-sticky")
    assert plan["busiest_utilisation"] == pytest.approx(0.6)
    range_row = next(r for r in result.grid if (r["strategy"], r["members"]) == ("range", 2))
    assert range_row["max_load"] == pytest.approx(0.5)
    # Besides the consumer-protocol alternative every running classic group is offered.
    decided = [
        n["text"] for n in plan["notes_coded"] if n["code"] != "consumer-protocol-alternative"
    ]
    assert decided == [
        "cooperative-sticky instead of range: both fit with 2 members, and when a member "
        "joins it revokes 1 partition against 4 with range (only those that move), so the "
        "rest of the group keeps consuming through a rebalance; switching from the eager "
        "range takes two rolling bounces (KIP-429): first every member with "
        "partition.assignment.strategy = [cooperative-sticky, range], then again with range "
        "removed"
    ]


def test_the_floor_is_met_by_a_size_that_fits_not_by_the_floor_itself() -> None:
    # Issue 23's bug: the multi-topic path took max(first size that fits, floor) as
    # members_now. Dealt loads are not monotone in the group size: here 3 members fit
    # (busiest 0.56 today), 4 do not (0.80 > 0.77), 5 do. With min_group_members = 4 the
    # old plan recommended 4 members whose busiest one misses the headroom; the one
    # decision takes the smallest size of at least the floor that fits, as a one-topic
    # group always did.
    a = GroupTopic("a", "ok", 4, 4, 0.96, 1.2, np.array([0.1, 0.1, 0.7, 0.3]))
    b = GroupTopic("b", "ok", 3, 3, 0.68, 0.85, np.array([0.45, 0.1, 0.3]))
    result = plan_group_of_topics("g", "sticky", 0, [a, b], headroom_pct=30.0, min_group_members=4)
    plan = result.plan
    assert (plan["members_now"], plan["recommended_members"]) == (5, 5)
    assert plan["busiest_utilisation"] == pytest.approx(0.56)
    assert plan["busiest_utilisation"] <= LIMIT
    today = {r["members"]: r for r in result.grid if r["strategy"] == "cooperative-sticky"}
    assert today[4]["max_load"] * 0.8 > LIMIT  # the floor itself misses the headroom
    assert [n["code"] for n in plan["notes_coded"]][:2] == ["min-group-size", "under-provisioned"]


def _group_rows(capacity: dict[str, tuple[float | None, str | None]]) -> Any:
    # The `plan_groups` input of a group reading topics a (4 partitions, 1.2 consumers)
    # and b (2 partitions, 0.6), each at a topic Tc of 1,000 records/s, with the group's
    # own Tc per topic as `capacity` gives it.
    import pyarrow as pa

    rows = [
        {
            "group_id": "mixed",
            "topic": topic,
            "strategy": "roundrobin",
            "members": 3,
            "protocol": "classic",
            "consumer_records_per_s": capacity.get(topic, (None, None))[0],
            "capacity_source": capacity.get(topic, (None, None))[1],
            "status": "ok",
            "current_partitions": partitions,
            "recommended_partitions": partitions,
            "consumers_now": load,
            "consumers_at_horizon": load,
            "topic_tc_records_per_s": 1_000.0,
            "loads": None,
        }
        for topic, partitions, load in (("a", 4, 1.2), ("b", 2, 0.6))
    ]
    return pa.Table.from_pylist(rows)


def _members_now(capacity: dict[str, tuple[float | None, str | None]]) -> int:
    import pyarrow as pa

    from spark_jobs.simulation import plan_groups

    out = plan_groups(
        [pa.scalar("mixed")], _group_rows(capacity), run="r", headroom_pct=30.0, min_group_members=2
    )
    return int(out.to_pylist()[0]["plan"]["members_now"])


def test_a_multi_topic_groups_own_tc_scales_its_loads_per_topic() -> None:
    from planner.recommend import GroupInfo, PlanSettings
    from planner.recommend import GroupTopic as SizedTopic
    from planner.recommend import plan_group_of_topics as in_core

    def core(factor_a: float) -> int:
        topics = [
            SizedTopic("a", 4, 4, 1.2, 1.2, load_factor=factor_a),
            SizedTopic("b", 2, 2, 0.6, 0.6),
        ]
        plan = in_core(
            GroupInfo("mixed", "roundrobin", 3), topics, settings=PlanSettings(headroom_pct=30.0)
        ).plan
        assert plan.members_now is not None
        return plan.members_now

    plain = _members_now({})
    assert plain == core(1.0) == 3  # six partitions of 0.3: two per member
    # Saturated at 500 records/s on topic a: each of a's partitions weighs 0.6 in the
    # group's own consumers, so one per member on a: more members.
    slow = _members_now({"a": (500.0, "saturation")})
    assert slow == core(2.0) > plain
    # A lower bound below the topic's Tc never slows the group; one above it speeds it.
    assert _members_now({"a": (500.0, "lower-bound")}) == plain
    assert _members_now({"a": (4_000.0, "lower-bound")}) == core(0.25) <= plain
    # A figure given as the topic's own default is the topic's Tc.
    assert _members_now({"a": (500.0, "topic-default")}) == plain
