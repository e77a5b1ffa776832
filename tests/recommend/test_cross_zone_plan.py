"""A topic plan's groups located by rack (`planner.recommend.cross_zone.with_cross_zone`)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.cross_zone import client_racks, replica_lists
from planner.recommend import GroupInfo, PlanSettings, TopicHistory, TopicPlan, plan_topic
from planner.recommend.cross_zone import daily_read_bytes, with_cross_zone
from planner.sizing import SideCapacity

HOUR = 3600.0
MIB = 2**20
RACKS = {1: "a", 2: "b", 3: "c"}
# p2 is led by broker 3 (rack c) with a follower on broker 1 (rack a).
REPLICAS = replica_lists("1:2,2:3,3:1,1:2,2:3,3:1")


def _keyed_plan(groups: list[GroupInfo]) -> tuple[TopicPlan, TopicHistory]:
    # One key, b"123456789", under librdkafka's consistent partitioner: crc32 is the
    # CRC-32 check value 0xCBF43926, and 0xCBF43926 % 6 == 2, so every byte is in p2.
    ts = np.arange(14 * 24) * HOUR
    history = TopicHistory(
        "orders",
        ts,
        mib_in=np.full(ts.size, 0.5),
        current_partitions=6,
        replication_factor=2,
        keyed=True,
        partitioner="consistent",
        keys=[b"123456789"],
        key_counts=np.array([1.0]),
    )
    plan = plan_topic(
        history,
        SideCapacity(mib_per_s=10.0),
        SideCapacity(mib_per_s=5.0),
        brokers=3,
        groups=groups,
        settings=PlanSettings(),
    )
    assert plan.recommended_partitions == 6
    return plan, history


def test_a_keyed_topics_bytes_follow_its_keys_to_their_partition() -> None:
    groups = [
        GroupInfo("near", "range", 2, client_racks=client_racks("a")),
        GroupInfo("far", "range", 2, client_racks=client_racks("b")),
    ]
    plan, history = _keyed_plan(groups)
    located = with_cross_zone(
        plan, history, groups, replicas=REPLICAS, broker_racks=RACKS, price_per_gib=None
    )
    by_id = {g.group_id: g.cross_zone for g in located.groups}
    daily = 0.5 * MIB * 86_400  # no bytes out: the group reads what is produced
    assert daily_read_bytes(history, fan_out=plan.fan_out) == pytest.approx(daily)
    near, far = by_id["near"], by_id["far"]
    assert near is not None and far is not None
    # p2's leader is in c: both groups fetch it across zones from the leader; with
    # follower fetching rack a reads its follower on broker 1, rack b has no replica.
    assert near.fetch.from_leaders.cross_zone_bytes_per_day == pytest.approx(daily)
    assert near.fetch.follower_fetching.cross_zone_bytes_per_day == pytest.approx(0.0, abs=1e-6)
    assert far.fetch.follower_fetching.cross_zone_bytes_per_day == pytest.approx(daily)
    advised = {g.group_id: [n.code for n in g.cross_zone_advice] for g in located.groups}
    assert advised == {"near": ["follower-fetching"], "far": []}


def test_without_replicas_the_plan_is_unchanged() -> None:
    groups = [GroupInfo("near", "range", 2, client_racks=("a",))]
    plan, history = _keyed_plan(groups)
    same = with_cross_zone(
        plan, history, groups, replicas=None, broker_racks=RACKS, price_per_gib=1.0
    )
    assert same is plan
