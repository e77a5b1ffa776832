"""One topic end to end: targets, rule, skew, choice, costs, groups, warnings."""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

import numpy as np
import pytest

from planner.cost import ClusterShape
from planner.examples import load_example
from planner.notes import Note, note, pct_apart, texts
from planner.recommend import (
    GroupInfo,
    GroupPlan,
    PlanSettings,
    TopicHistory,
    TopicPlan,
    member_headroom_pct,
    plan_group,
    plan_topic,
    planning_samples,
    skew_requirement,
    topic_cost,
    topic_targets,
)
from planner.recommend.types import PLANNED_GROUP
from planner.simulate import GridResult, TopicLoad, grid_from_loads, partition_loads, simulate_grid
from planner.sizing import SideCapacity

HOUR = 3600.0


def _group_on(
    group: GroupInfo,
    grid: GridResult,
    partitions: int,
    now: float,
    horizon: float,
    settings: PlanSettings,
    **kwargs: Any,
) -> GroupPlan:
    # A one-topic group of the topic "orders" planned on `partitions`.
    return plan_group(
        group,
        grid,
        topic="orders",
        partitions=partitions,
        consumers_now=now,
        consumers_at_horizon=horizon,
        settings=settings,
        **kwargs,
    )


def _flat_history(mib: float, days: int = 14, **kwargs: object) -> TopicHistory:
    ts = np.arange(days * 24) * HOUR
    return TopicHistory("orders", ts, mib_in=np.full(ts.size, mib), **kwargs)  # type: ignore[arg-type]


def test_the_domain_example_through_the_whole_plan() -> None:
    # 20 MiB/s flat, Tp 5, Tc 3, no growth or headroom: 7 partitions (not the seed's 4).
    plan = plan_topic(
        _flat_history(20.0),
        SideCapacity(mib_per_s=5.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        settings=PlanSettings(headroom_pct=0.0, evenness_slack_pct=0.0),
    )
    assert plan.sizing.required_partitions == 7
    assert plan.recommended_partitions == 7
    assert (plan.sizing.deciding_dimension, plan.sizing.deciding_side) == ("mib_in", "consumer")
    assert plan.status == "create"  # no partition count today: a topic to create


def test_a_keyless_topic_read_one_member_per_partition_fits_exactly() -> None:
    # Sized exactly by the rule, P members each carry target/(P x 1.3): within headroom.
    plan = plan_topic(
        _flat_history(26.0, current_partitions=10),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.38),
        brokers=3,
        groups=[GroupInfo("g", "range", 4)],
        settings=PlanSettings(evenness_slack_pct=0.0),
    )
    assert plan.recommended_partitions == 10  # ceil(26 x 1.3 / 3.38) = ceil(10.0)
    group = plan.groups[0]
    assert group.members_now == 10
    assert group.status == "under-provisioned"
    assert group.recommended_members == 10


def test_over_provisioned_groups_and_idle_members() -> None:
    plan = plan_topic(
        _flat_history(2.0, current_partitions=6),
        SideCapacity(mib_per_s=10.0),
        SideCapacity(mib_per_s=1.0),
        brokers=3,
        groups=[GroupInfo("wide", "roundrobin", 9)],
    )
    group = plan.groups[0]
    assert group.idle_members_now == 3
    assert group.status == "over-provisioned"
    assert any("sit idle" in w for w in texts(plan.warnings))


def test_member_headroom_matches_the_target_headroom() -> None:
    assert member_headroom_pct(30.0) == pytest.approx(100 * 0.3 / 1.3)
    assert member_headroom_pct(0.0) == 0.0


def _fan_out_plan(groups: list[GroupInfo], consuming_groups: int | None) -> TopicPlan:
    # 8 MiB/s in, 24 out: three groups' worth of reads. Tc 2 MiB/s, no headroom.
    ts = np.arange(14 * 24) * HOUR
    history = TopicHistory(
        "orders", ts, mib_in=np.full(ts.size, 8.0), mib_out=np.full(ts.size, 24.0)
    )
    return plan_topic(
        history,
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=2.0),
        brokers=3,
        groups=groups,
        consuming_groups=consuming_groups,
        settings=PlanSettings(headroom_pct=0.0, evenness_slack_pct=0.0),
    )


def test_bytes_out_are_one_groups_share_of_every_group_that_reads_them() -> None:
    three = [GroupInfo(g, "range", 2) for g in ("a", "b", "c")]
    by_groups = _fan_out_plan(three, None)
    # One group given, but three fetch the bytes (two also read other topics).
    by_count = _fan_out_plan(three[:1], 3)
    for plan in (by_groups, by_count):
        assert plan.fan_out == 3
        assert plan.targets["mib_out"].peak == pytest.approx(8.0)
        assert (
            "MiB/s out per group: bytes out divided over the 3 consumer groups that read "
            "the topic" in plan.rationale
        )
    # Unaware of the other two, one group would read all 24 MiB/s: 12 partitions, not 4.
    alone = _fan_out_plan(three[:1], None)
    assert alone.fan_out == 1
    assert alone.targets["mib_out"].peak == pytest.approx(24.0)
    assert (alone.sizing.required_partitions, by_count.sizing.required_partitions) == (12, 4)
    assert not any("bytes out" in line for line in alone.rationale)


def test_the_targets_and_cost_panel_are_the_plans_own_at_any_caller() -> None:
    # The sizing job asks for these apart from plan_topic (a topic without Tc, the cost
    # of every candidate): the same calls give the plan's numbers.
    three = [GroupInfo(g, "range", 2) for g in ("a", "b", "c")]
    plan = _fan_out_plan(three, None)
    ts = np.arange(14 * 24) * HOUR
    history = TopicHistory(
        "orders", ts, mib_in=np.full(ts.size, 8.0), mib_out=np.full(ts.size, 24.0)
    )
    settings = PlanSettings(headroom_pct=0.0, evenness_slack_pct=0.0)
    targets = topic_targets(history, fan_out=plan.fan_out, settings=settings)
    assert targets == plan.targets
    assert planning_samples(history, fan_out=3)["mib_out"][0] == 8.0
    cluster = ClusterShape(3, history.replication_factor)
    at = partial(topic_cost, cluster=cluster, retention_ms=None, targets=targets)
    assert at(plan.recommended_partitions, settings=settings) == plan.cost
    assert at(96, settings=settings).partitions == 96


@pytest.mark.parametrize("consuming", [None, 0])
def test_bytes_out_read_by_no_known_group_count_as_one_groups(consuming: int | None) -> None:
    plan = _fan_out_plan([], consuming)
    assert plan.fan_out == 1
    assert plan.targets["mib_out"].peak == pytest.approx(24.0)
    assert plan.rationale[0] == (
        "MiB/s out per group: no consumer group is known to read the topic, so all of its "
        "bytes out count as one group's read rate"
    )


def test_a_negative_count_of_consuming_groups_is_refused() -> None:
    with pytest.raises(ValueError, match="consuming_groups must be >= 0, got -1"):
        _fan_out_plan([], -1)


def _sample(heavy_share: float, n: int = 5_000) -> TopicLoad:
    keys = [b"heavy", *(f"k{i}".encode() for i in range(n))]
    counts = np.array([heavy_share, *([(1 - heavy_share) / n] * n)])
    return TopicLoad(1.0, keys, counts)


def _skew(sample: TopicLoad) -> object:
    # A target of 10 partitions' worth: Tc 1 MiB/s, target 10 MiB/s.
    return skew_requirement(
        sample,
        {"mib_in": 10.0},
        SideCapacity(mib_per_s=10.0),
        SideCapacity(mib_per_s=1.0),
        start=10,
        bound=400,
    )


def test_skew_asks_for_more_partitions_than_the_rule() -> None:
    # A key with 8 % of the records fits one partition (limit 10 %), but its partition
    # also takes 1/P of the rest: 8 % + 92 % / 10 is far over, so the count must grow.
    skew = _skew(_sample(0.08))
    assert skew.fits and skew.hot_keys == ()
    assert skew.partitions > 10
    assert skew.busiest_share <= 0.1
    assert skew.fits_at(skew.partitions)
    assert not skew.fits_at(skew.partitions - 1)


def test_hot_keys_are_reported_and_left_out_of_the_search() -> None:
    skew = _skew(_sample(0.12))
    assert [h.key for h in skew.hot_keys] == [b"heavy"]
    assert skew.hot_keys[0].rate == pytest.approx(1.2)  # 120 % of one partition's capacity
    assert skew.hot_share == pytest.approx(0.12)
    assert skew.fits and skew.partitions == 10  # the rest spreads evenly enough


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_skew_search_finds_what_trying_every_count_finds(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 4_000
    counts = rng.zipf(1.3 + 0.2 * seed, size=n).astype(np.float64) / 3.0
    sample = TopicLoad(1.0, [f"k{i}".encode() for i in range(n)], counts)
    limit_partitions = float(rng.uniform(4, 40))  # a limit of 1/limit_partitions
    skew = skew_requirement(
        sample,
        {"mib_in": limit_partitions},
        SideCapacity(mib_per_s=10.0),
        SideCapacity(mib_per_s=1.0),
        start=int(limit_partitions),
        bound=600,
    )
    limit = 1.0 / limit_partitions
    for p in range(int(limit_partitions), 601):
        busiest = float(partition_loads(skew.rest, p).max()) if skew.rest.load > 0 else 0.0
        if busiest <= limit * (1 + 1e-9):
            break
    assert (skew.partitions, skew.fits, skew.busiest_share) == (
        p,
        busiest <= limit * (1 + 1e-9),
        busiest,
    )


def test_the_bundled_example_plan() -> None:
    ex = load_example()
    plan = plan_topic(ex.history, ex.producer, ex.consumer, brokers=ex.brokers, groups=ex.groups)
    assert plan.sizing.required_partitions == 10
    assert plan.skew is not None and plan.skew.partitions == 14
    assert plan.recommended_partitions == 16
    assert plan.recommended_partitions >= plan.choice.current  # type: ignore[operator]
    assert any(w.startswith("keyed topic: going from 12 to 16") for w in texts(plan.warnings))
    by_id = {g.group_id: g for g in plan.groups}
    assert by_id["fraud-scoring"].status == "under-provisioned"
    assert by_id["fraud-scoring"].strategy == "cooperative-sticky"
    assert by_id["ledger-writer"].status == "ok"
    # The group sizes it recommends really do fit in the simulation.
    rows = plan.grid.where(
        (plan.grid.partitions == 16) & (plan.grid.strategy == "cooperative-sticky")
    )
    at_horizon = rows.where(rows.members == by_id["fraud-scoring"].members_at_horizon)
    assert bool(at_horizon.within_capacity[0])
    below = rows.where(rows.members == by_id["fraud-scoring"].members_at_horizon - 1)
    assert not bool(below.within_capacity[0])


def test_replication_factor_above_brokers_fails_like_kafka() -> None:
    with pytest.raises(ValueError, match="larger than available brokers"):
        plan_topic(
            _flat_history(1.0, replication_factor=3),
            SideCapacity(mib_per_s=1.0),
            SideCapacity(mib_per_s=1.0),
            brokers=2,
        )


def test_a_key_hot_only_at_the_horizon_never_leaves_today_short() -> None:
    # Tc 1 MiB/s a partition. Today's target is 13 MiB/s (10 + 30 %): one partition may
    # carry 7.7 % of the topic. With 60 % growth over the horizon the target is 20.8: a
    # partition may carry 4.8 %. A key with 6 % of the records is hot at the horizon
    # (left out of that skew search) but must fit, with what shares its partition, today.
    keys = [b"customer-hot", *(f"customer-{i}".encode() for i in range(20_000))]
    counts = np.array([0.06, *([0.94 / 20_000] * 20_000)])
    ts = np.arange(14 * 24) * HOUR
    history = TopicHistory(
        "orders",
        ts,
        mib_in=np.full(ts.size, 10.0),
        current_partitions=12,
        keyed=True,
        keys=keys,
        key_counts=counts,
    )
    settings = PlanSettings(floor_growth_per_year=0.6, horizon_days=365, evenness_slack_pct=0.0)
    plan = plan_topic(
        history,
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=1.0),
        brokers=3,
        settings=settings,
    )
    assert [h.key for h in plan.skew.hot_keys] == [b"customer-hot"] if plan.skew else False
    assert plan.choice.required_now > plan.sizing.required_partitions
    assert plan.recommended_partitions >= plan.choice.required_now
    assert plan.choice.required == plan.choice.required_now
    assert plan.choice.over_provision >= 0
    assert any("hot only at the horizon" in line for line in plan.rationale)


def _light_topic(groups: list[GroupInfo], partitions: int = 6, **settings: Any) -> TopicPlan:
    # 0.5 MiB/s against Tc 10: one member carries the whole topic with room to spare.
    return plan_topic(
        _flat_history(0.5, current_partitions=partitions),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=10.0),
        brokers=3,
        groups=groups,
        settings=PlanSettings(**settings),
    )


def test_a_light_group_is_not_planned_down_to_one_member() -> None:
    plan = _light_topic([GroupInfo("two", "range", 2), GroupInfo("four", "range", 4)])
    two, four = plan.groups
    assert (two.status, two.recommended_members, two.members_now) == ("ok", 2, 2)
    assert (four.status, four.recommended_members) == ("over-provisioned", 2)
    assert four.members_at_horizon == 2
    assert any("needs 1 member; 2 planned" in n for n in texts(two.notes))


def test_a_group_of_one_is_told_to_add_a_member_unless_the_floor_is_one() -> None:
    alone = GroupInfo("alone", "cooperative-sticky", 1)
    group = _light_topic([alone]).groups[0]
    # It keeps up: the floor, not the load, asks for the second member (issue 38).
    assert (group.status, group.recommended_members) == ("no-standby", 2)
    # The load seen by the member is the busiest of two, not of one.
    one = _light_topic([alone], min_group_members=1).groups[0]
    assert (one.status, one.recommended_members, one.members_now) == ("ok", 1, 1)
    assert group.busiest_utilisation < one.busiest_utilisation
    assert not any("planned so that" in n for n in texts(one.notes))


def test_on_one_partition_the_floor_keeps_a_standby() -> None:
    # One partition: a second member owns nothing, but takes the partition over when the
    # first fails, which is what min_group_members = 2 asks for.
    plan = _light_topic(
        [
            GroupInfo("three", "range", 3),
            GroupInfo("two", "range", 2),
            GroupInfo("one", "range", 1),
        ],
        partitions=1,
    )
    three, two, one = plan.groups
    assert plan_members(three) == (2, 2)
    assert (three.status, three.recommended_members, three.standby_members) == (
        "over-provisioned",
        2,
        1,
    )
    assert (
        "2 of 3 members would own no partition: a classic group cannot use more members "
        "than the topic's 1 partition (1 kept as a standby: min_group_members = 2)"
    ) in texts(three.notes)
    assert any(
        n.startswith("today's load needs 1 member; 2 planned")
        and n.endswith(
            "the topic has 1 partition, so 1 of them owns none and stands by until a "
            "rebalance hands it the partitions of a member that fails or leaves"
        )
        for n in texts(three.notes)
    )
    assert (two.status, two.recommended_members, two.standby_members) == ("ok", 2, 1)
    assert (one.status, one.recommended_members, one.standby_members) == ("no-standby", 2, 1)
    # The standby is planned, not warned about; the member beyond it is.
    idle = [w for w in texts(plan.warnings) if "sit idle" in w]
    assert idle == [
        "group 'three' has 3 members for 1 partition: 2 sit idle; min_group_members = 2 "
        "asks for 1 standby"
    ]


def test_a_floor_of_one_plans_no_standby() -> None:
    group = _light_topic([GroupInfo("g", "range", 3)], partitions=1, min_group_members=1).groups[0]
    assert plan_members(group) == (1, 1)
    assert (group.recommended_members, group.standby_members) == (1, 0)


def test_a_floor_above_the_grids_default_extras_is_simulated() -> None:
    # Four members past one partition: the grid has to simulate five-member groups.
    plan = _light_topic([GroupInfo("g", "range", 1)], partitions=1, min_group_members=5)
    group = plan.groups[0]
    assert plan_members(group) == (5, 5)
    assert (group.recommended_members, group.standby_members) == (5, 4)
    assert int(plan.grid.members.max()) >= 5
    wide = _light_topic([GroupInfo("g", "range", 5)], partitions=6, min_group_members=4)
    assert plan_members(wide.groups[0]) == (4, 4)
    assert wide.groups[0].standby_members == 0


def test_a_hot_partition_no_size_saves_still_gets_its_standby() -> None:
    # One partition carrying 1.5 consumers' worth: no group size keeps up; the floor
    # still plans a second member to take over.
    grid = grid_from_loads(
        {1: np.array([1.5])},
        consumer_capacity=1.0,
        keep_free_pct=member_headroom_pct(30.0),
        extra_members=4,
    )
    group = _group_on(GroupInfo("g", "range", 1), grid, 1, 1.0, 1.0, PlanSettings())
    assert not group.fits
    assert (group.members_now, group.members_at_horizon, group.recommended_members) == (2, 2, 2)
    assert group.standby_members == 1
    assert any(n.startswith("even 1 member (one per partition) cannot") for n in texts(group.notes))
    assert (
        "2 planned so that a member can take over while another restarts "
        "(min_group_members = 2); the topic has 1 partition, so 1 of them stands by"
    ) in texts(group.notes)
    # A grid that stops short of the floor is refused, not read as "no size fits".
    short = grid_from_loads({1: np.array([0.1])}, consumer_capacity=1.0)
    with pytest.raises(ValueError, match="minimum group size needs 2"):
        _group_on(GroupInfo("g", "range", 1), short, 1, 1.0, 1.0, PlanSettings())


def plan_members(group: GroupPlan) -> tuple[int, int]:
    return group.members_now, group.members_at_horizon


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_a_floor_below_one_or_not_whole_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="min_group_members"):
        PlanSettings(min_group_members=bad)  # type: ignore[arg-type]


def _mib_only_plan(records_per_s: float | None) -> TopicPlan:
    # 10 MiB/s and 100,000 records/s in; Tp and Tc measured in MiB/s (and maybe records/s).
    ts = np.arange(14 * 24) * HOUR
    history = TopicHistory(
        "orders",
        ts,
        mib_in=np.full(ts.size, 10.0),
        records_in=np.full(ts.size, 100_000.0),
        current_partitions=12,
    )
    return plan_topic(
        history,
        SideCapacity(mib_per_s=100.0, records_per_s=records_per_s),
        SideCapacity(mib_per_s=3.0, records_per_s=records_per_s),
        brokers=3,
        groups=[GroupInfo("g", "cooperative-sticky", 12)],
    )


def test_a_dimension_without_capacity_is_a_warning_not_only_a_skip() -> None:
    plan = _mib_only_plan(None)
    assert plan.sizing.skipped == ("records_in: no producer or consumer capacity measured",)
    assert texts(plan.warnings)[0] == (
        "records/s in was not checked: neither Tp nor Tc has a records/s figure, so the "
        "count rests on MiB/s alone; a topic of small records may need more partitions "
        "than its MiB/s shows (measure records/s with the perf-test tools)"
    )
    # Measured, the dimension is sized (and here decides: 130,000 / 5,000 = 26).
    measured = _mib_only_plan(5_000.0)
    assert not any("was not checked" in w for w in texts(measured.warnings))
    assert measured.sizing.deciding_dimension == "records_in"
    assert measured.sizing.required_partitions == 26 > plan.sizing.required_partitions


def _unread(groups: list[GroupInfo], consuming: int | None, **history: Any) -> TopicPlan:
    # 10 MiB/s in against Tp 5 and Tc 3 (30 % headroom): producers need 3, consumers 5.
    ts = np.arange(14 * 24) * HOUR
    return plan_topic(
        TopicHistory("orders", ts, mib_in=np.full(ts.size, 10.0), **history),
        SideCapacity(mib_per_s=5.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        groups=groups,
        consuming_groups=consuming,
    )


@pytest.mark.parametrize("consuming", [None, 0])
def test_a_topic_nobody_reads_says_its_consumer_requirement_is_for_no_one_yet(
    consuming: int | None,
) -> None:
    plan = _unread([], consuming, current_partitions=4)
    read = _unread([GroupInfo("g", "cooperative-sticky", 6)], None, current_partitions=4)
    # The number is kept: it is the conservative answer.
    assert plan.recommended_partitions == read.recommended_partitions == 6
    assert (plan.sizing.deciding_side, plan.sizing.required_partitions) == ("consumer", 5)
    assert texts(plan.warnings)[-1] == (
        "no consumer group reads this topic in the figures, yet the consumer side decides "
        "its count (5 partitions for MiB/s in; producers alone need 3): that requirement is "
        "for a consumer that does not exist yet. The number stays, since partitions are hard "
        "to add later, but the increase from 4 is not urgent for today's traffic unless a "
        "consumer is about to be deployed"
    )
    assert not any("no consumer group reads" in w for w in texts(read.warnings))


def test_a_topic_read_only_by_multi_topic_groups_is_read() -> None:
    # plan_topic is given no one-topic group, but two groups reading other topics too
    # fetch it: consuming_groups says so.
    plan = _unread([], 2, current_partitions=4)
    assert not any("no consumer group reads" in w for w in texts(plan.warnings))


def test_an_unread_topic_whose_producers_need_more_today_says_that_part_is_due() -> None:
    # Producers need ceil(13 / 5) = 3 today, more than the 2 partitions it has.
    plan = _unread([], 0, current_partitions=2)
    assert texts(plan.warnings)[-1].endswith(
        "unless a consumer is about to be deployed; the producer side alone needs 3 today, "
        "more than the 2 it has, so an increase to 3 is due now"
    )


def test_an_unread_topic_with_bytes_out_has_a_reader_outside_any_group() -> None:
    ts = np.arange(14 * 24) * HOUR
    plan = _unread([], 0, current_partitions=4, mib_out=np.full(ts.size, 10.0))
    assert texts(plan.warnings)[-1].endswith(
        "and it has bytes out (10.00 MiB/s at the peak): something reads it outside any "
        "known group (a consumer using assign(), or a group the figures left out), so the "
        "requirement is for a real reader; find it"
    )
    assert not any("does not exist yet" in w for w in texts(plan.warnings))


def test_an_unread_topic_sized_by_its_producers_has_no_such_warning() -> None:
    ts = np.arange(14 * 24) * HOUR
    plan = plan_topic(
        TopicHistory("orders", ts, mib_in=np.full(ts.size, 10.0), current_partitions=2),
        SideCapacity(mib_per_s=2.0),
        SideCapacity(mib_per_s=30.0),
        brokers=3,
    )
    assert plan.sizing.deciding_side == "producer"
    assert not any("no consumer group reads" in w for w in texts(plan.warnings))


def _idle_plan(current: int, members: int = 4, tc: float = 1.5, **settings: Any) -> TopicPlan:
    # 2 MiB/s against Tc 1.5: 2 partitions (ceil(2.6 / 1.5)); a group of 4 members.
    return plan_topic(
        _flat_history(2.0, current_partitions=current),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=tc),
        brokers=3,
        groups=[GroupInfo("g", "cooperative-sticky", members)],
        settings=PlanSettings(**settings),
    )


def test_idle_members_today_and_after_the_increase_are_told_apart() -> None:
    plan = _idle_plan(1)
    assert plan.recommended_partitions == 2
    assert plan.groups[0].idle_members_now == 2  # at the recommended count
    assert (
        "group 'g': of its 4 members, 3 own no partition today (1 partition) and 2 will "
        "after the increase to 2 partitions"
    ) in texts(plan.warnings)
    assert not any("sit idle" in w for w in texts(plan.warnings))
    # The count does not change: one statement, about today.
    same = _idle_plan(2)
    assert "group 'g' has 4 members for 2 partitions: 2 sit idle" in texts(same.warnings)


def test_idle_members_only_today_are_said_to_go_away_with_the_increase() -> None:
    # Against Tc 0.5: at least 6 partitions, where 4 are today.
    plan = _idle_plan(4, members=6, tc=0.5)
    assert plan.recommended_partitions >= 6
    assert plan.groups[0].idle_members_now == 0
    assert (
        f"group 'g': of its 6 members, 2 own no partition today (4 partitions); after the "
        f"increase to {plan.recommended_partitions} partitions every member owns at least one"
    ) in texts(plan.warnings)


def test_the_keyed_increase_says_how_to_keep_each_keys_order() -> None:
    ex = load_example()
    plan = plan_topic(ex.history, ex.producer, ex.consumer, brokers=ex.brokers, groups=ex.groups)
    keyed = next(
        w for w in texts(plan.warnings) if w.startswith("keyed topic: going from 12 to 16")
    )
    assert "drain or pause" not in keyed
    assert keyed.endswith(
        "so it happens once. To keep each key's order: stop the producers, wait until every "
        "consumer group's lag on the topic is 0, alter the partition count, then restart the "
        "producers (a producer reads the new count when it starts; one left running keeps "
        "the old count until its next metadata refresh, metadata.max.age.ms, 5 minutes by "
        "default). Restart them once the groups own the new partitions (they too notice them "
        "within metadata.max.age.ms): a group with auto.offset.reset=latest skips what is "
        "written to a partition before it owns it"
    )


def _uneven_grid() -> Any:
    # Four partitions of 0.3, 0.1, 0.3, 0.1 consumers at the horizon. Two members: range
    # gives each a block of 0.4; the dealt strategies give the first 0.3 + 0.3 = 0.6.
    # Both are within the 0.769 limit, and one member (0.8) is not.
    return grid_from_loads(
        {4: np.array([0.3, 0.1, 0.3, 0.1])},
        consumer_capacity=1.0,
        keep_free_pct=member_headroom_pct(30.0),
    )


def _decided(group: GroupPlan) -> tuple[Note, ...]:
    # A group's notes but the consumer-protocol alternative every running classic group
    # gets (tests/recommend/test_alternatives.py checks it).
    return tuple(n for n in group.notes if n.code != "consumer-protocol-alternative")


def test_at_the_same_size_the_strategy_revoking_fewer_partitions_wins() -> None:
    group = _group_on(GroupInfo("g", "range", 2), _uneven_grid(), 4, 1.0, 1.0, PlanSettings())
    # A lower load below the limit buys nothing; range revokes all 4 partitions when a
    # member joins, cooperative-sticky only the one that moves.
    assert (group.members_now, group.strategy) == (2, "cooperative-sticky")
    assert group.busiest_utilisation == pytest.approx(0.6)
    assert tuple(texts(_decided(group))) == (
        "cooperative-sticky instead of range: both fit with 2 members, and when a member "
        "joins it revokes 1 partition against 4 with range (only those that move), so the "
        "rest of the group keeps consuming through a rebalance; switching from the eager "
        "range takes two rolling bounces (KIP-429): first every member with "
        "partition.assignment.strategy = [cooperative-sticky, range], then again with range "
        "removed",
    )
    # A group already on cooperative-sticky is told nothing about its strategy.
    kept = _group_on(
        GroupInfo("g", "cooperative-sticky", 2), _uneven_grid(), 4, 1.0, 1.0, PlanSettings()
    )
    assert kept.strategy == "cooperative-sticky" and tuple(texts(_decided(kept))) == ()


def test_fewer_members_still_come_before_fewer_revocations() -> None:
    # Horizon loads 0.4, 0.1, 0.4, 0.1: at two members range (0.5 each) fits, the dealt
    # strategies (0.4 + 0.4) do not, and need three (0.4 + 0.1, 0.1, 0.4).
    grid = grid_from_loads(
        {4: np.array([0.4, 0.1, 0.4, 0.1])},
        consumer_capacity=1.0,
        keep_free_pct=member_headroom_pct(30.0),
    )
    group = _group_on(GroupInfo("g", "roundrobin", 2), grid, 4, 1.0, 1.0, PlanSettings())
    assert (group.members_now, group.strategy) == (2, "range")
    assert tuple(texts(_decided(group))) == (
        "range instead of roundrobin: it needs 2 members where roundrobin needs 3",
    )
    switch = note(
        "strategy-switch",
        group_id="g",
        topics=["orders"],
        current_strategy="range",
        strategy="cooperative-sticky",
        members=3,
        revoked=1,
        busiest_utilisation=0.5,
        current_key=None,
        current_simulated=True,
        two_bounces=True,
    )
    assert switch.text.startswith(
        "cooperative-sticky instead of range: no group size with range keeps the busiest "
        "member within the limit; switching from the eager range takes two rolling bounces"
    )


def _behind(mib: float, current: int, group: GroupInfo, tc: float = 3.0) -> TopicPlan:
    return plan_topic(
        _flat_history(mib, current_partitions=current),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=tc),
        brokers=3,
        groups=[group],
    )


def test_a_group_above_one_consumers_capacity_today_is_falling_behind_now() -> None:
    # 10 MiB/s against Tc 3: 3.33 consumers' worth; 6 partitions today and recommended.
    # Two range members own 3 partitions each: 1.67 consumers' worth, 167 %.
    plan = _behind(10.0, 6, GroupInfo("g", "range", 2))
    assert plan.recommended_partitions == 6
    g = plan.groups[0]
    assert g.busiest_utilisation_current == pytest.approx(10 / 3 / 2)
    note = (
        "group 'g' is falling behind now: its busiest member needs 167% of one consumer's "
        "capacity at today's peak with 2 members; add members (6 needed)"
    )
    assert g.falling_behind.text == note
    assert note in texts(g.notes) and note in texts(plan.warnings)
    assert g.status == "under-provisioned"  # no new status: the note says how bad


def test_a_group_within_capacity_but_short_of_headroom_is_not_falling_behind() -> None:
    # Four members own 2, 2, 1, 1 partitions: the busiest carries 1.11 consumers' worth
    # of 10 MiB/s... at Tc 4.5 that is 0.74: under 100 %, over nothing, no note.
    plan = _behind(10.0, 6, GroupInfo("g", "range", 4), tc=4.5)
    g = plan.groups[0]
    assert g.busiest_utilisation_current == pytest.approx(10 / 4.5 / 6 * 2)
    assert g.falling_behind is None
    assert not any("falling behind" in w for w in texts(plan.warnings))


def test_falling_behind_is_measured_on_todays_partition_count() -> None:
    # Today 2 partitions, 4 members: two own one partition of 5 MiB/s each (167 % of Tc
    # 3); the others own nothing. On the recommended 6 the same 4 would carry 111 %.
    plan = _behind(10.0, 2, GroupInfo("g", "range", 4))
    assert plan.recommended_partitions == 6
    g = plan.groups[0]
    assert g.busiest_utilisation_current == pytest.approx(5 / 3)
    assert g.falling_behind.text == (
        "group 'g' is falling behind now: its busiest member needs 167% of one consumer's "
        "capacity at today's peak with 4 members on today's 2 partitions; more members "
        "would own no partition until the increase to the recommended 6 partitions; then 6 "
        "are needed"
    )
    one = _behind(10.0, 2, GroupInfo("g", "range", 1)).groups[0]
    assert one.falling_behind is not None and one.falling_behind.text.endswith(
        "with 1 member on today's 2 partitions; add members (6 needed on the recommended 6 "
        "partitions)"
    )


def test_a_keyed_groups_load_today_is_its_key_sample_on_todays_count() -> None:
    ex = load_example()
    plan = plan_topic(ex.history, ex.producer, ex.consumer, brokers=ex.brokers, groups=ex.groups)
    current = ex.history.current_partitions
    assert current is not None and current != plan.recommended_partitions
    today = simulate_grid(
        TopicLoad(
            plan.utilisation_now, ex.history.keys, ex.history.key_counts, ex.history.partitioner
        ),
        consumer_capacity=1.0,
        partition_counts=[current],
        extra_members=max(g.members for g in ex.groups),
    )
    for info, g in zip(ex.groups, plan.groups, strict=True):
        row = today.where((today.members == info.members) & (today.strategy == info.strategy))
        assert g.busiest_utilisation_current == pytest.approx(float(row.max_load[0]), rel=1e-9)
        assert (g.falling_behind is not None) == (float(row.max_load[0]) > 1.0)


def test_a_group_with_no_members_or_a_new_topic_has_no_load_today() -> None:
    planned = _behind(10.0, 6, PLANNED_GROUP).groups[0]
    assert planned.busiest_utilisation_current is None and planned.falling_behind is None
    new = plan_topic(
        _flat_history(10.0),
        SideCapacity(mib_per_s=100.0),
        SideCapacity(mib_per_s=3.0),
        brokers=3,
        groups=[GroupInfo("g", "range", 1)],
    )
    assert new.groups[0].busiest_utilisation_current is None
    assert not any("falling behind" in w for w in texts(new.warnings))


def test_falling_behind_read_at_the_recommended_count_says_so() -> None:
    # plan_group without today's load on a count that changes reads the grid at p.
    group = _group_on(
        GroupInfo("g", "range", 1),
        _uneven_grid(),
        4,
        1.0,
        1.0,
        PlanSettings(),
        current_partitions=2,
    )
    assert group.busiest_utilisation_current == pytest.approx(0.8)
    assert group.falling_behind is None
    # Twice the load: one member carries 1.6 consumers' worth.
    heavy_grid = grid_from_loads(
        {4: np.array([0.6, 0.2, 0.6, 0.2])},
        consumer_capacity=1.0,
        keep_free_pct=member_headroom_pct(30.0),
    )
    heavy = _group_on(
        GroupInfo("g", "range", 1),
        heavy_grid,
        4,
        1.0,
        1.0,
        PlanSettings(),
        current_partitions=2,
    )
    assert heavy.falling_behind is not None
    assert heavy.falling_behind.text.startswith(
        "group 'g' is falling behind now: its busiest member needs 160% of one consumer's "
        "capacity at today's peak with 1 member (read at the recommended 4 partitions: its "
        "load on today's 2 was not computed)"
    )


def _sized_records(record_bytes: float, tp: float | None, tc: float | None) -> TopicPlan:
    # 20 MiB/s of records of `record_bytes` bytes, flat.
    ts = np.arange(14 * 24) * HOUR
    mib = np.full(ts.size, 20.0)
    history = TopicHistory(
        "orders", ts, mib_in=mib, records_in=mib * 2**20 / record_bytes, current_partitions=12
    )
    return plan_topic(
        history,
        SideCapacity(10.0, 20_000.0, tp),
        SideCapacity(4.0, 8_000.0, tc),
        brokers=3,
        groups=[GroupInfo("g", "cooperative-sticky", 4)],
    )


def test_capacities_measured_on_records_of_another_size_are_a_warning() -> None:
    from planner.recommend import mean_record_bytes

    # Both sides from one perf run on 1,024-byte records; the topic's are 110 bytes.
    plan = _sized_records(110.0, 1024.0, 1024.0)
    (line,) = [w for w in texts(plan.warnings) if "-byte records" in w]
    assert line.startswith(
        "Tp and Tc were measured with 1,024-byte records, and this topic's records average "
        "110 bytes (9.3x smaller)"
    )
    assert "kafka-producer-perf-test --record-size 110" in line
    # Sides measured on different sizes are named apart; only the one off by 2x or more.
    apart = texts(_sized_records(110.0, 150.0, 4096.0).warnings)
    sized = [w for w in apart if "-byte records" in w]
    assert len(sized) == 1 and sized[0].startswith("Tc was measured with 4,096-byte records")
    assert "(37.2x smaller)" in sized[0]
    # Close enough, or unknown: nothing said.
    assert not any(
        "-byte records" in w for w in texts(_sized_records(700.0, 1024.0, 1024.0).warnings)
    )
    assert not any("-byte records" in w for w in texts(_sized_records(110.0, None, None).warnings))
    history = _flat_history(5.0)
    assert mean_record_bytes(history) is None  # no records/s figures


@pytest.mark.parametrize(
    ("value", "reference", "shown"),
    [
        (1.004, 1.0, ("100.4%", "100.0%")),  # behind, though "100%" would read as keeping up
        (1.6, 1.0, ("160%", "100%")),
        (0.77, 0.7692, ("77.0%", "76.9%")),  # above the limit by a hair
        (1.00004, 1.0, ("100.004%", "100.000%")),
        (1.0, 1.0, ("100%", "100%")),
    ],
)
def test_percentages_are_shown_apart_from_what_they_are_compared_with(
    value: float, reference: float, shown: tuple[str, str]
) -> None:
    assert pct_apart(value, reference) == shown


def test_a_group_a_hair_over_one_consumer_is_not_said_to_need_100_percent() -> None:
    grid = grid_from_loads(
        {2: np.array([0.5020, 0.5020])},
        consumer_capacity=1.0,
        keep_free_pct=member_headroom_pct(30.0),
        extra_members=4,
    )
    group = _group_on(
        GroupInfo("g", "range", 1), grid, 2, 1.0, 1.0, PlanSettings(), current_partitions=2
    )
    assert group.falling_behind is not None
    assert "its busiest member needs 100.4% of one consumer's capacity" in group.falling_behind.text


def test_one_idle_member_and_a_one_partition_rule_read_in_the_singular() -> None:
    # 1 partition today, 2 recommended; 2 members, no standby asked for.
    plan = _idle_plan(1, members=2, min_group_members=1)
    assert (
        "group 'g': of its 2 members, 1 owns no partition today (1 partition); after the "
        "increase to 2 partitions every member owns at least one"
    ) in texts(plan.warnings)
    light = _light_topic([], partitions=1)
    assert "the rule asks for 1 partition, decided by MiB/s in on both sides (a tie)" in (
        light.rationale
    )


def test_an_observed_busiest_group_is_planned_instead_of_today_s_groups_dividing_the_past() -> None:
    # Two groups read 24 MiB/s in all today, but for the first week only one existed and
    # read it all: dividing the past by today's two halves it. Where the busiest group's
    # own read rate was observed it is planned as it is; elsewhere the division stands.
    ts = np.arange(14 * 24) * HOUR
    busiest = np.where(ts < 7 * 24 * HOUR, 24.0, 12.0)
    busiest[:24] = np.nan  # the first day was not observed
    history = TopicHistory(
        "orders",
        ts,
        mib_in=np.full(ts.size, 24.0),
        mib_out=np.full(ts.size, 24.0),
        mib_out_busiest_group=busiest,
    )
    out = planning_samples(history, fan_out=2)["mib_out"]
    assert out[:24].tolist() == [12.0] * 24
    assert out[24 : 7 * 24].tolist() == [24.0] * (6 * 24)
    assert out[7 * 24 :].tolist() == [12.0] * (7 * 24)
    # With no bytes-out total at all, the observed samples alone are planned.
    alone = planning_samples(dataclasses.replace(history, mib_out=None), fan_out=2)["mib_out"]
    assert np.isnan(alone[:24]).all() and alone[24:].tolist() == busiest[24:].tolist()
