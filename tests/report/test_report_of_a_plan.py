"""The report says what the core planned, and its charts agree.

The fleet's reports are the core's plans taken through the pipeline's path
(`tests.support.report_path`: the jobs' rows, then `planner.report.from_outputs`).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from planner.examples import load_example
from planner.partitioners import partition_for_key
from planner.recommend import GroupInfo, plan_topic
from planner.report import FleetReport, TopicReport
from planner.simulate import EAGER_STRATEGIES, STRATEGIES
from tests.report.fleets import EXAMPLE_TOPIC, HOT_TOPIC
from tests.store.rows import facts_row
from tests.support.report_path import topic_report_of


def _topic(fleet: FleetReport, name: str) -> TopicReport:
    return next(t for t in fleet.topics if t.topic == name)


def test_the_example_topic_carries_the_plans_numbers(planned_fleet: FleetReport) -> None:
    ex = load_example()
    plan = plan_topic(ex.history, ex.producer, ex.consumer, brokers=ex.brokers, groups=ex.groups)
    t = _topic(planned_fleet, EXAMPLE_TOPIC)
    assert t.status == plan.status
    assert t.recommended_partitions == plan.recommended_partitions
    assert t.required_partitions == plan.choice.required
    # The sizing job says first where Tp and Tc come from, the recommendations last
    # which group sets the consumers; between them, the core's arithmetic.
    assert t.rationale[0].startswith("Tp ") and t.rationale[-1].startswith("consumers: ")
    assert t.rationale[1:-1] == plan.rationale
    assert t.warnings == tuple(w.text for w in plan.warnings)
    assert [(w.code, json.loads(w.params)) for w in t.warnings_coded] == [
        (w.code, w.as_dict()["params"]) for w in plan.warnings
    ]
    assert [d.dimension for d in t.dimensions] == list(plan.targets)
    for d in t.dimensions:
        target = plan.targets[d.dimension]
        assert (d.peak, d.target, d.growth_factor) == (
            target.peak,
            target.target,
            target.growth_factor,
        )
        # The row keeps the growth source and the days of samples, not the fit's details.
        assert d.growth_method == "fitted (exponential) on 30 days of samples"
    rules = {r.dimension: r for r in plan.sizing.requirements}
    assert all(d.required == rules[d.dimension].required for d in t.dimensions)
    assert [c.partitions for c in t.candidates if c.chosen] == [plan.recommended_partitions]
    assert t.cost is not None
    assert t.cost.file_handles_per_broker == plan.cost.file_handles_per_broker


def test_recommended_consumers_are_the_largest_groups(planned_fleet: FleetReport) -> None:
    # The topic's figure is the largest planned group's recommended size, as the job's
    # recommendations say; the one-group figure uses the core's own group logic on a
    # planned group: every one-topic group the core planned needs the same number today.
    checked = 0
    for t in planned_fleet.topics:
        if t.groups:
            largest = max(t.groups, key=lambda g: (g.recommended_members or 0, g.group_id))
            top = [g for g in t.groups if g.recommended_members == largest.recommended_members]
            pick = min(top, key=lambda g: g.group_id)
            assert (t.recommended_consumers, t.strategy, t.consumers_group) == (
                pick.recommended_members,
                pick.strategy,
                pick.group_id,
            ), t.topic
            assert t.groups_with_plan == len(t.groups)
            checked += 1
        elif t.planned:
            assert t.consumers_group is None and t.groups_with_plan == 0
            assert t.recommended_consumers == t.one_group_consumers
        for g in t.groups:
            assert g.members_now == t.one_group_consumers, t.topic
    assert checked


def test_the_member_load_curves_agree_with_the_recommendation(planned_fleet: FleetReport) -> None:
    t = _topic(planned_fleet, EXAMPLE_TOPIC)
    m = t.member_load
    assert m is not None and t.one_group_consumers is not None
    assert [c.strategy for c in m.curves] == list(STRATEGIES)
    chosen = next(c for c in m.curves if c.strategy == t.strategy)
    at = {size: load for size, load in zip(chosen.members, chosen.busiest_load, strict=True)}
    n = t.one_group_consumers
    assert at[n] <= m.load_limit * (1 + 1e-9)
    # One member fewer does not fit with any strategy: n is the smallest.
    for curve in m.curves:
        loads = dict(zip(curve.members, curve.busiest_load, strict=True))
        assert loads[n - 1] > m.load_limit
    # With one member per partition, the busiest member is the busiest partition.
    p = t.partition_load
    assert p is not None and len(p.loads) == t.recommended_partitions
    assert at[m.partitions] == pytest.approx(max(p.loads))


def test_partition_loads_add_up_to_the_topic_and_mark_the_hot_key(
    planned_fleet: FleetReport,
) -> None:
    t = _topic(planned_fleet, HOT_TOPIC)
    p = t.partition_load
    assert p is not None and t.member_load is not None
    curve = t.member_load.curves[0]
    single = dict(zip(curve.members, curve.busiest_load, strict=True))
    assert sum(p.loads) == pytest.approx(single[1])  # one member reads the whole topic
    (hot,) = p.hot_keys
    assert hot.key == "user-celebrity" and hot.share == pytest.approx(0.4)
    assert hot.partition == partition_for_key(b"user-celebrity", len(p.loads), t.partitioner)
    assert p.hot_partitions == {hot.partition}
    busiest = int(np.argmax(p.loads))
    assert busiest == hot.partition
    hot_keys = [json.loads(w.params) for w in t.warnings_coded if w.code == "hot-key"]
    assert [w["key"] for w in hot_keys] == ["user-celebrity"]


def test_churn_is_eager_or_cooperative(planned_fleet: FleetReport) -> None:
    t = _topic(planned_fleet, EXAMPLE_TOPIC)
    c = t.churn
    assert c is not None and c.members == t.one_group_consumers
    assert c.partitions == t.recommended_partitions
    for row in c.rows:
        if row.strategy in EAGER_STRATEGIES:
            assert row.join_revoked == row.leave_revoked == c.partitions
        else:
            assert (row.join_revoked, row.leave_revoked) == (row.join_moved, row.leave_moved)
        assert 0 < row.join_moved <= c.partitions


def test_a_keyless_topic_has_no_partition_chart(planned_fleet: FleetReport) -> None:
    t = _topic(planned_fleet, "orders.created")
    assert t.partition_load is None and not t.keyed
    assert t.history is not None and len(t.history.ts_s) == len(t.history.mib_in) == 720


def test_a_plan_without_groups_still_recommends_consumers() -> None:
    ex = load_example()
    facts = facts_row(ex.history, ex.producer, ex.consumer)
    plan = plan_topic(ex.history, ex.producer, ex.consumer, brokers=ex.brokers)
    t = topic_report_of(plan, ex.history, facts, brokers=ex.brokers)
    # A capacity row that names no source is said to be one.
    assert t.groups == () and t.capacity_source == "an unnamed source"
    assert t.dimensions[0].capacity_scope == "topic"
    # What the core says for a planned group (no members yet) on the same topic.
    planned = plan_topic(
        ex.history,
        ex.producer,
        ex.consumer,
        brokers=ex.brokers,
        groups=[GroupInfo("new-service", "range", 0)],
    ).groups[0]
    assert (t.recommended_consumers, t.strategy) == (planned.members_now, planned.strategy)
    assert t.one_group_consumers == planned.members_now and t.consumers_group is None
