"""Creation plans: a topic that does not exist yet is created, its groups deployed."""

from __future__ import annotations

import doctest

import numpy as np

from planner.recommend import GroupInfo, PlanSettings, TopicHistory, creation, plan_topic
from planner.sizing import SideCapacity

HOUR = 3600.0


def _day(mib: float, current_partitions: int | None) -> TopicHistory:
    ts = np.arange(24) * HOUR
    return TopicHistory(
        "payments.v2",
        ts,
        mib_in=np.full(ts.size, mib),
        current_partitions=current_partitions,
        replication_factor=3,
    )


def _plan(current_partitions: int | None, members: int) -> object:
    return plan_topic(
        _day(40.0, current_partitions),
        SideCapacity(mib_per_s=10.0),
        SideCapacity(mib_per_s=4.0),
        brokers=3,
        groups=[GroupInfo("ledger", "cooperative-sticky", members)],
        settings=PlanSettings(evenness_slack_pct=0.0),
    )


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(creation).failed == 0


def test_a_topic_without_a_partition_count_is_created_and_its_new_group_deployed() -> None:
    plan = _plan(None, 0)
    assert plan.status == "create"  # type: ignore[attr-defined]
    (group,) = plan.groups  # type: ignore[attr-defined]
    assert group.status == "deploy"
    # 40 MiB/s x 1.3 / 4 = 13 partitions; one member per partition at most 77 % of Tc.
    assert plan.recommended_partitions == 13  # type: ignore[attr-defined]
    assert group.recommended_members == group.members_now >= 2
    (deploy,) = (n for n in group.notes if n.code == "deploy")
    assert deploy.params["members_now"] == group.members_now
    assert deploy.text.startswith(f"a new group: deploy {group.members_now} members")


def test_an_existing_topic_short_of_partitions_is_increased_and_its_group_resized() -> None:
    plan = _plan(4, 0)
    assert plan.status == "increase"  # type: ignore[attr-defined]
    # A group with no member on an existing topic is short of members, not new.
    assert plan.groups[0].status == "under-provisioned"  # type: ignore[attr-defined]


def test_a_group_that_already_runs_members_is_not_deployed_again() -> None:
    assert creation.group_status("ok", current_members=3, creating=True) == "ok"
    assert creation.group_status("ok", current_members=0, creating=False) == "ok"
    assert creation.group_status("under-provisioned", current_members=0, creating=True) == "deploy"


def test_the_create_command_quotes_a_name_the_shell_would_split() -> None:
    command = creation.create_command("a b", partitions=2, replication_factor=None)
    assert command.endswith("--topic 'a b' --partitions 2")


def test_the_request_is_told_in_the_order_a_reader_asks() -> None:
    text = creation.request_summary(
        {
            "topic": "payments.v2",
            "tc_mib_per_s": 4,
            "peak_mib_per_s": 40,
            "growth_per_year": 0.5,
            "keyed": True,
            "consumer_groups": ["ledger"],
            "figures_file": None,
        }
    )
    assert text == "peak MiB/s 40 · growth/year +50% · keyed yes · Tc MiB/s 4 · groups ledger"


def test_tp_and_tc_are_described_by_their_source() -> None:
    both = creation.capacity_source(
        tp_numbers=True, tc_numbers=True, producer_perf_file=None, consumer_perf_file=None
    )
    assert both == "Tp and Tc given in the request"
    mixed = creation.capacity_source(
        tp_numbers=False,
        tc_numbers=True,
        producer_perf_file="/perf/orders.producer.txt",
        consumer_perf_file=None,
    )
    assert mixed == (
        "Tp read from kafka-producer-perf-test output /perf/orders.producer.txt; "
        "Tc given in the request"
    )
