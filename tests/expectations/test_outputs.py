"""The output suites on real Spark frames in the jobs' schemas (`spark_jobs.schemas`).

Good rows are consistent by construction: the sizing rule's numbers are worked out here
from Tp, Tc and the targets, and the simulation rows come from the simulation core itself
(`planner.simulate`). Each bad frame breaks one rule per row, and the test asserts that
exactly those expectations fail.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest

from expectations.validate import ValidationReport, validate
from planner.simulate import TopicLoad, simulate_grid, simulate_group
from planner.simulate.churn import COST_COLUMNS

# Each module starts a Spark session (about 10 s) before its first validation.
pytestmark = pytest.mark.slow

RUN = "20261121T0000Z"
QUERY = "unexpected_rows_expectation"
PAIR = "expect_column_pair_values_a_to_be_greater_than_b"
BETWEEN = "expect_column_values_to_be_between"
IN_SET = "expect_column_values_to_be_in_set"
COMPOUND_UNIQUE = "expect_compound_columns_to_be_unique"


def failed(report: ValidationReport) -> set[tuple[str, str]]:
    return {o.key for o in report.failures}


def frame(spark: Any, dataset: str, rows: list[dict[str, Any]]) -> Any:
    from spark_jobs import schemas

    schema = {
        "sizing": schemas.SIZING,
        "simulations": schemas.SIMULATIONS,
        "recommendations": schemas.RECOMMENDATIONS,
    }[dataset]
    names = [f.name for f in schema.fields]
    unknown = {k for row in rows for k in row} - set(names)
    assert not unknown, f"columns not in {dataset}: {unknown}"
    return spark.createDataFrame([tuple(row.get(n) for n in names) for row in rows], schema)


# --- sizing and recommendations: one topic, worked through the rule ---------------------

TP_MIB, TP_RECORDS, TC_MIB, TC_RECORDS = 10.0, 10_000.0, 5.0, 5_000.0
TARGETS = {"mib_in": 32.5, "records_in": 30_000.0, "mib_out": 30.0}


def _dimension(row: dict[str, Any], dim: str, target: float) -> None:
    mib = dim.startswith("mib")
    tp = None if dim == "mib_out" else (TP_MIB if mib else TP_RECORDS)
    tc = TC_MIB if mib else TC_RECORDS
    producer = None if tp is None else max(1, math.ceil(target / tp))
    consumer = max(1, math.ceil(target / tc))
    row.update(
        {
            f"{dim}_peak_per_s": target / 1.3,
            f"{dim}_growth_per_year": 0.1,
            f"{dim}_growth_source": "fit",
            f"{dim}_growth_factor": 1.0,
            f"{dim}_grown_per_s": target / 1.3,
            f"{dim}_target_per_s": target,
            f"{dim}_producer_partitions": producer,
            f"{dim}_consumer_partitions": consumer,
            f"{dim}_consumer_capacity": tc,
            f"{dim}_required_partitions": max(consumer, producer or 0),
            f"{dim}_side": "consumer" if consumer >= (producer or 0) else "producer",
        }
    )


def candidate(partitions: int, *, recommended: bool = False, current: bool = False) -> dict:
    return {
        "partitions": partitions,
        "is_current": current,
        "is_required_now": False,
        "is_required": partitions == 7,
        "is_recommended": recommended,
        "considered": True,
        "simulated": True,
        "even_group_sizes": [g for g in range(1, partitions + 1) if partitions % g == 0],
        "cost_warnings": [],
    }


def group_plan(
    group_id: str, members: int, topics: list[str], standby: int = 0, **overrides: Any
) -> dict[str, Any]:
    return {
        "group_id": group_id,
        "topics": topics,
        "current_strategy": "range",
        "strategy": "cooperative-sticky",
        "current_members": 3,
        "recommended_members": members,
        "members_now": members,
        "members_at_horizon": members,
        "busiest_utilisation": 0.6,
        "idle_members_now": 0,
        "standby_members": standby,
        "fits": True,
        "status": "ok",
        "notes": [],
        "protocol": "classic",
        "planned_as": "cooperative-sticky",
        **overrides,
    }


def assigned(protocol: str, assignor: str | None, planned_as: str | None) -> dict[str, Any]:
    """`group_plan` overrides for a group of another protocol: its assignor as today and
    as planned (the same), and the key it is simulated by."""
    return {
        "protocol": protocol,
        "current_strategy": assignor,
        "strategy": assignor,
        "planned_as": planned_as,
    }


def planned(topic: str, **overrides: Any) -> dict[str, Any]:
    """A topic that needs 7 partitions (mib_in, consumer side), has 6, gets 8."""
    row: dict[str, Any] = {
        "run": RUN,
        "topic": topic,
        "status": "plan-increase",
        "current_partitions": 6,
        "replication_factor": 3,
        "keyed": False,
        "partitioner": "murmur2_random",
        "brokers": 3,
        "consuming_groups": 1,
        "samples": 720,
        "history_days": 30,
        "tp_mib_per_s": TP_MIB,
        "tp_records_per_s": TP_RECORDS,
        "tc_mib_per_s": TC_MIB,
        "tc_records_per_s": TC_RECORDS,
        "tp_source": "topic",
        "tc_source": "*",
        "rule_partitions": 7,
        "required_partitions_now": 6,
        "required_partitions": 7,
        "recommended_partitions": 8,
        "over_provision": 2,
        "deciding_dimension": "mib_in",
        "deciding_side": "consumer",
        "choice_reason": "8 rather than the required 7: it splits evenly over more groups",
        "candidates": [candidate(6, current=True), candidate(7), candidate(8, recommended=True)],
        "groups": [group_plan("billing", 4, [topic])],
        "one_group_members": 4,
        "one_group_strategy": "cooperative-sticky",
        "warnings": [],
        "rationale": ["Tp 10 MiB/s, Tc 5 MiB/s per partition"],
        "alternatives": [],
        "alternatives_coded": [],
    }
    for dim, target in TARGETS.items():
        _dimension(row, dim, target)
    return {**row, **overrides}


def unplanned(topic: str, status: str = "missing-capacity") -> dict[str, Any]:
    return {
        "run": RUN,
        "topic": topic,
        "status": status,
        "status_detail": "no consumer capacity (Tc) for this topic",
        "current_partitions": 3,
        "replication_factor": 2,
        "brokers": 3,
        "consuming_groups": 0,
        "samples": 720,
        "history_days": 30,
        "tp_mib_per_s": TP_MIB,
        "candidates": [],
        "groups": [],
        "warnings": ["no consumer capacity (Tc) for this topic"],
        "alternatives": [],
        "alternatives_coded": [],
    }


def recommendation(
    row: dict[str, Any], consumers: int | None, group: str | None, standby: int = 0
) -> dict:
    strategy = "cooperative-sticky" if consumers is not None else None
    return {
        **row,
        "recommended_consumers": consumers,
        "standby_consumers": standby if consumers is not None else None,
        "consumers_group_id": group,
        "strategy": strategy,
    }


def test_sizing_good_passes(spark: Any) -> None:
    rows = [
        planned("orders"),
        # A new topic: no current count, so nothing to compare it with; it is created.
        planned("orders.v2", current_partitions=None, status="create"),
        planned("ok-as-is", current_partitions=12, recommended_partitions=12, status="ok"),
        unplanned("no-tc"),
        unplanned("gone", status="unknown-topic"),
        # Cannot be planned on 3 brokers; the row says so instead of a number.
        {**unplanned("wide", status="error"), "replication_factor": 5},
    ]
    rows[2]["candidates"] = [candidate(12, recommended=True, current=True)]
    # Eight partitions, each with an owner, and a standby the minimum group size asks for.
    rows[0]["groups"] = [group_plan("billing", 9, ["orders"], standby=1)]
    # The new topic's group has no member yet: it is deployed.
    rows[1]["groups"] = [group_plan("ledger", 8, ["orders.v2"], current_members=0, status="deploy")]
    report = validate(frame(spark, "sizing", rows), "sizing.output")
    assert report.success, report.message()


def test_sizing_bad_fails_on_exactly_the_broken_rules(spark: Any) -> None:
    rule_broken = planned("rule-broken", mib_in_consumer_partitions=5)
    two = planned("two-recommended")
    two["candidates"] = [candidate(7, recommended=True), candidate(8, recommended=True)]
    group_too_big = planned("group-too-big")
    group_too_big["groups"] = [group_plan("billing", 9, ["group-too-big"])]
    # The same cap for the broker's assignors; a share group's members share partitions.
    uniform_too_big = planned("uniform-too-big")
    uniform_too_big["groups"] = [
        group_plan(
            "kip848", 9, ["uniform-too-big"], **assigned("consumer", "uniform", "consumer:uniform")
        ),
        group_plan("queue", 30, ["uniform-too-big"], **assigned("share", "simple", "share:simple")),
    ]
    # A standby while a partition has no owner; a standby in a size the load chose.
    early_standby = planned("early-standby")
    early_standby["groups"] = [group_plan("billing", 5, ["early-standby"], standby=1)]
    load_standby = planned("load-standby")
    load_standby["groups"] = [
        group_plan("billing", 9, ["load-standby"], standby=1, members_at_horizon=10)
    ]
    # A group deployed on a topic that exists, or that already has members; a status
    # no plan gives.
    deploy_existing = planned("deploy-existing")
    deploy_existing["groups"] = [
        group_plan("billing", 8, ["deploy-existing"], current_members=0, status="deploy")
    ]
    odd_group = planned("odd-group-status")
    odd_group["groups"] = [group_plan("billing", 8, ["odd-group-status"], status="resize")]
    rows = [
        planned("shrink", current_partitions=12),
        planned("short", required_partitions=9),
        # Created although it exists; increased although it does not.
        planned("create-existing", status="create"),
        planned("increase-new", current_partitions=None, status="increase"),
        deploy_existing,
        odd_group,
        rule_broken,
        planned("too-many-replicas", replication_factor=4),
        planned("no-number", status="ok", required_partitions=None, recommended_partitions=None),
        two,
        planned("twice"),
        planned("twice"),
        unplanned("odd-status", status="skipped"),
        planned("nan-peak", mib_in_peak_per_s=float("nan")),
        group_too_big,
        uniform_too_big,
        early_standby,
        load_standby,
        planned("largest-not-taken", rule_partitions=6),
    ]
    report = validate(frame(spark, "sizing", rows), "sizing.output")
    assert failed(report) == {
        (PAIR, "recommended_partitions,current_partitions"),
        (PAIR, "recommended_partitions,required_partitions"),
        (QUERY, "sizing.rule.mib_in"),
        (QUERY, "sizing.replicas_within_brokers"),
        (QUERY, "sizing.planned_has_numbers"),
        (QUERY, "sizing.one_recommended_candidate"),
        (COMPOUND_UNIQUE, "run,topic"),
        (IN_SET, "status"),
        (BETWEEN, "mib_in_peak_per_s"),
        (QUERY, "sizing.group_members"),
        (QUERY, "sizing.rule.largest_dimension"),
        (QUERY, "sizing.created_when_new"),
        (QUERY, "sizing.group_status"),
    }
    assert set(report[QUERY, "sizing.created_when_new"].topics) == {
        "create-existing",
        "increase-new",
    }
    assert set(report[QUERY, "sizing.group_status"].topics) == {
        "deploy-existing",
        "odd-group-status",
    }
    # The message names the topics and the expectations that failed.
    message = report.message()
    assert "sizing.rule.mib_in" in message and "'rule-broken'" in message
    assert {"shrink", "short", "rule-broken", "no-number", "group-too-big"} <= set(report.topics)
    assert set(report[QUERY, "sizing.group_members"].topics) == {
        "early-standby",
        "group-too-big",
        "uniform-too-big",
        "load-standby",
    }
    # The share group on the same topic is not among the rows found.
    assert {e["group_id"] for e in report[QUERY, "sizing.group_members"].examples} >= {"kip848"}
    assert "queue" not in {e["group_id"] for e in report[QUERY, "sizing.group_members"].examples}
    assert report[QUERY, "sizing.rule.mib_in"].examples == (
        {
            "topic": "rule-broken",
            "mib_in_target_per_s": 32.5,
            "tp_mib_per_s": TP_MIB,
            "mib_in_producer_partitions": 4,
            "tc_mib_per_s": TC_MIB,
            "mib_in_consumer_capacity": TC_MIB,
            "mib_in_consumer_partitions": 5,
        },
    )


def test_recommendations_good_passes(spark: Any) -> None:
    multi = planned("shared")
    # A group that reads two topics may use more members than one topic's partitions.
    multi["groups"] = [group_plan("fan-in", 12, ["shared", "other"])]
    rows = [
        recommendation(planned("orders"), 4, "billing"),
        recommendation(planned("quiet", groups=[]), 1, None),
        # Every one of the 8 partitions owned, and one member standing by.
        recommendation(planned("standby", groups=[]), 9, None, standby=1),
        recommendation(multi, 12, "fan-in"),
        recommendation(unplanned("no-tc"), None, None),
    ]
    report = validate(frame(spark, "recommendations", rows), "recommendations.output")
    assert report.success, report.message()


def test_recommendations_bad_fails_on_exactly_the_broken_rules(spark: Any) -> None:
    rows = [
        recommendation(planned("more-consumers", groups=[]), 9, None),
        recommendation(planned("standby-too-soon", groups=[]), 7, None, standby=1),
        recommendation(planned("zero-consumers", groups=[]), 0, None),
        recommendation(planned("no-consumers"), None, None),
        recommendation(planned("twice"), 4, "billing"),
        recommendation(planned("twice"), 4, "billing"),
        # A simulation key, not an assignor name a broker reports.
        {**recommendation(planned("new-protocol"), 4, "billing"), "strategy": "consumer:uniform"},
        recommendation(planned("shrink", current_partitions=12), 4, "billing"),
    ]
    report = validate(frame(spark, "recommendations", rows), "recommendations.output")
    assert failed(report) == {
        (QUERY, "recommendations.consumers_within_partitions"),
        (BETWEEN, "recommended_consumers"),
        (QUERY, "recommendations.planned_has_consumers"),
        (COMPOUND_UNIQUE, "run,topic"),
        (IN_SET, "strategy"),
        (PAIR, "recommended_partitions,current_partitions"),
    }
    assert report[QUERY, "recommendations.consumers_within_partitions"].topics == (
        "more-consumers",
        "standby-too-soon",
    )
    assert report[PAIR, "recommended_partitions,current_partitions"].examples[0] == {
        "run": RUN,
        "topic": "shrink",
        "recommended_partitions": 8,
        "current_partitions": 12,
    }
    assert "topics involved: " in report.message()


# --- simulations: rows from the simulation core -------------------------------------


def topic_rows(topic: str, load: float, counts: tuple[int, ...]) -> list[dict[str, Any]]:
    grid = simulate_grid(
        TopicLoad(load),
        consumer_capacity=1.0,
        keep_free_pct=20.0,
        partition_counts=counts,
        extra_members=2,
    )
    out = []
    for row in grid.rows():
        # Every column of the grid's rows, the scale-event costs included.
        assert set(COST_COLUMNS) <= set(row)
        out.append(
            {
                **row,
                "run": RUN,
                "scope": "topic",
                "topic": topic,
                "topics": [topic],
                "is_recommended_partitions": row["partitions"] == counts[-1],
                "is_current_partitions": row["partitions"] == counts[0],
                "load_limit": grid.load_limit,
            }
        )
    return out


def group_rows(group_id: str) -> list[dict[str, Any]]:
    loads = {"clicks": np.full(3, 0.2), "views": np.full(5, 0.1)}
    out = []
    for strategy in ("range", "roundrobin"):
        for members in (2, 3, 4):
            subscriptions = {f"consumer-{i}": ["clicks", "views"] for i in range(members)}
            r = simulate_group(
                loads, subscriptions, strategy, consumer_capacity=1.0, keep_free_pct=20.0
            )
            out.append(
                {
                    "run": RUN,
                    "scope": "group",
                    "group_id": group_id,
                    "topics": ["clicks", "views"],
                    "partitions": 8,
                    "members": members,
                    "strategy": strategy,
                    "is_recommended_partitions": True,
                    "is_current_partitions": True,
                    "max_member_partitions": int(r.member_partitions.max()),
                    "min_member_partitions": int(r.member_partitions.min()),
                    "max_load": r.max_load,
                    "min_load": r.min_load,
                    "mean_load": r.mean_load,
                    "imbalance": r.imbalance,
                    "idle_members": r.idle_members,
                    "load_limit": r.load_limit,
                    "within_capacity": r.within_capacity,
                    "max_partition_load": r.max_partition_load,
                    "hot_partition": r.max_partition_load > 1.0,
                }
            )
    return out


@pytest.fixture(scope="module")
def good_simulations() -> list[dict[str, Any]]:
    # orders: 1.6 consumers of load on 6 or 8 partitions; hot: one partition above 1.0.
    return [
        *topic_rows("orders", 1.6, (6, 8)),
        *topic_rows("hot", 1.5, (1,)),
        *group_rows("fan-in"),
    ]


def test_simulations_good_passes(spark: Any, good_simulations: list[dict[str, Any]]) -> None:
    assert any(r["hot_partition"] for r in good_simulations)
    assert any(r["idle_members"] for r in good_simulations)
    report = validate(frame(spark, "simulations", good_simulations), "simulations.output")
    assert report.success, report.message()


def test_simulations_bad_fails_on_exactly_the_broken_rules(
    spark: Any, good_simulations: list[dict[str, Any]]
) -> None:

    def pick(partitions: int, members: int, strategy: str = "range") -> dict[str, Any]:
        for row in good_simulations:
            if (row["scope"], row["topic"]) == ("topic", "orders") and (
                row["partitions"],
                row["members"],
                row["strategy"],
            ) == (partitions, members, strategy):
                return copy.deepcopy(row)
        raise LookupError((partitions, members, strategy))

    uncovered = pick(8, 2)
    # Two members holding 3 each cannot hold 8 partitions.
    uncovered["max_member_partitions"] = uncovered["min_member_partitions"] = 3
    heavier = pick(8, 3)
    heavier["mean_load"] *= 1.01  # the members' loads no longer add up to the topic's
    flag = pick(6, 1)
    flag["within_capacity"] = not flag["within_capacity"]
    new_protocol = pick(6, 2)
    new_protocol["strategy"] = "uniform"
    stray = pick(6, 3, "sticky")
    stray["group_id"] = "billing"
    below_one = pick(6, 4, "roundrobin")
    below_one["imbalance"] = 0.9

    def relabel(row: dict[str, Any], strategy: str) -> dict[str, Any]:
        # A strategy no protocol has: its event costs would break their own rule.
        return row | {"strategy": strategy} | dict.fromkeys(COST_COLUMNS)

    rows = [
        *good_simulations,
        relabel(uncovered, "bad-cover"),
        relabel(heavier, "bad-load"),
        relabel(flag, "bad-flag"),
        relabel(new_protocol, new_protocol["strategy"]),
        stray,
        pick(8, 4),
        relabel(below_one, "bad-imbalance"),
    ]
    report = validate(frame(spark, "simulations", rows), "simulations.output")
    assert failed(report) == {
        (QUERY, "simulations.each_partition_once"),
        (QUERY, "simulations.load_adds_up"),
        (QUERY, "simulations.capacity_flags"),
        (IN_SET, "strategy"),
        (QUERY, "simulations.scope_keys"),
        (COMPOUND_UNIQUE, "run,scope,topic,group_id,partitions,members,strategy"),
        (BETWEEN, "imbalance"),
    }
    assert report[QUERY, "simulations.load_adds_up"].examples[0]["topic"] == "orders"
    cover = report[QUERY, "simulations.each_partition_once"]
    assert [e["strategy"] for e in cover.examples] == ["bad-cover"]


def test_a_groups_capacity_and_lag_are_checked(spark: Any) -> None:
    def with_group(topic: str, **overrides: Any) -> dict[str, Any]:
        row = planned(topic)
        row["groups"] = [group_plan("billing", 4, [topic], **overrides)]
        return recommendation(row, 4, "billing")

    def capacity(
        records: float | None, source: str | None, at_topic_tc: int | None = None
    ) -> dict[str, Any]:
        return {
            "records_per_s": records,
            "mib_per_s": None,
            "source": source,
            "evidence": "x",
            "members_now_at_topic_tc": at_topic_tc,
        }

    good = [
        with_group("learned", consumer_capacity=capacity(500.0, "saturation", 3)),
        with_group("observed", lag={"records": 0.0, "seconds": 0.0, "trend": "steady"}),
        with_group("neither"),
    ]
    report = validate(frame(spark, "recommendations", good), "recommendations.output")
    assert report.success, report.message()

    bad = [
        with_group("nan-capacity", consumer_capacity=capacity(math.nan, "saturation")),
        with_group("unknown-source", consumer_capacity=capacity(500.0, "guessed")),
        with_group("no-figure", consumer_capacity=capacity(None, "given")),
        with_group("negative-lag", lag={"records": -1.0, "seconds": 0.0, "trend": "steady"}),
        with_group("no-trend", lag={"records": 10.0, "seconds": 1.0, "trend": None}),
        with_group("zero-at-topic-tc", consumer_capacity=capacity(500.0, "given", 0)),
        with_group("topic-tc-compared", consumer_capacity=capacity(500.0, "topic-default", 2)),
        with_group("fine", consumer_capacity=capacity(500.0, "lower-bound")),
    ]
    report = validate(frame(spark, "recommendations", bad), "recommendations.output", examples=10)
    assert failed(report) == {(QUERY, "recommendations.group_capacity_and_lag")}
    assert report[QUERY, "recommendations.group_capacity_and_lag"].topics == (
        "nan-capacity",
        "unknown-source",
        "no-figure",
        "negative-lag",
        "no-trend",
        "zero-at-topic-tc",
        "topic-tc-compared",
    )


def test_a_groups_cross_zone_figure_is_checked(spark: Any) -> None:
    from planner.cross_zone import (
        GIB,
        GroupZones,
        TopicZones,
        advice,
        cross_zone_record,
        group_cross_zone,
    )

    # A real figure from the core: 2 members in racks a and b, roundrobin over 4
    # partitions of a three-rack cluster (tests/planner/test_cross_zone.py works it out).
    figure = group_cross_zone(
        GroupZones("billing", "classic", "roundrobin", 2, ("a", "b")),
        [
            TopicZones(
                "t", ((1, 2), (2, 3), (3, 1), (3, 1)), (10 * GIB, 20 * GIB, 40 * GIB, 80 * GIB)
            )
        ],
        {1: "a", 2: "b", 3: "c"},
        price_per_gib=0.05,
    )
    assert figure is not None
    record = cross_zone_record(figure, advice("billing", figure))
    assert record is not None

    def with_figure(topic: str, change: Any = None) -> dict[str, Any]:
        cross_zone = copy.deepcopy(record)
        if change is not None:
            change(cross_zone)
        row = planned(topic)
        row["groups"] = [group_plan("billing", 4, [topic], cross_zone=cross_zone)]
        return recommendation(row, 4, "billing")

    def unpriced(cz: dict[str, Any]) -> None:
        cz.update(price_per_gib=None, leader_cost_per_day=None, follower_cost_per_day=None)

    good = [with_figure("priced"), with_figure("unpriced", unpriced), with_figure("none")]
    good[2]["groups"][0]["cross_zone"] = None
    report = validate(frame(spark, "recommendations", good), "recommendations.output")
    assert report.success, report.message()

    def nan(cz: dict[str, Any]) -> None:
        cz["from_leaders"]["cross_zone_bytes_per_day"] = math.nan

    def negative(cz: dict[str, Any]) -> None:
        cz["follower_fetching"]["same_zone_bytes_per_day"] = -1.0

    def follower_above(cz: dict[str, Any]) -> None:
        # Moves bytes so each mode still adds up, but follower fetching crosses more.
        cz["follower_fetching"]["same_zone_bytes_per_day"] = 0.0
        cz["follower_fetching"]["cross_zone_bytes_per_day"] = 150.0 * GIB

    def cost_without_price(cz: dict[str, Any]) -> None:
        cz["price_per_gib"] = None

    def not_adding_up(cz: dict[str, Any]) -> None:
        cz["bytes_per_day"] = 1.0

    bad = [
        with_figure("nan", nan),
        with_figure("negative", negative),
        with_figure("follower-above", follower_above),
        with_figure("cost-without-price", cost_without_price),
        with_figure("not-adding-up", not_adding_up),
        with_figure("fine"),
    ]
    report = validate(frame(spark, "recommendations", bad), "recommendations.output")
    assert failed(report) == {(QUERY, "recommendations.group_cross_zone")}
    assert report[QUERY, "recommendations.group_cross_zone"].topics == (
        "nan",
        "negative",
        "follower-above",
        "cost-without-price",
        "not-adding-up",
    )


def test_a_streams_groups_standbys_are_checked(spark: Any) -> None:
    from planner.standbys import Changelog, standby_cost, standby_record

    logs = (Changelog("wc-a-changelog", 6, 2e6, 24), Changelog("wc-b-changelog", 3))
    given = standby_record(standby_cost("wc", "classic", 2, logs))
    unknown = standby_record(standby_cost("wc", "streams", None, logs))
    assert given is not None and unknown is not None

    def with_standbys(topic: str, record: dict[str, Any], **change: Any) -> dict[str, Any]:
        row = planned(topic)
        standbys = {**copy.deepcopy(record), **change}
        row["groups"] = [group_plan("wc", 4, [topic], standbys=standbys)]
        return recommendation(row, 4, "wc")

    good = [with_standbys("given", given), with_standbys("unknown", unknown)]
    report = validate(frame(spark, "recommendations", good), "recommendations.output")
    assert report.success, report.message()
    bad = [
        # S taken as Kafka's default without saying so, instances below S + 1, a
        # changelog read that is not S times the bytes in, an evidence word unknown.
        with_standbys("silent-zero", unknown, standby_replicas=0),
        with_standbys("too-few", given, min_instances=2),
        with_standbys("reads", given, standby_read_bytes_per_s=1.0),
        with_standbys("evidence", given, state_evidence="guessed"),
        with_standbys("fine", given),
    ]
    report = validate(frame(spark, "recommendations", bad), "recommendations.output")
    assert failed(report) == {(QUERY, "recommendations.group_standbys")}
    assert report[QUERY, "recommendations.group_standbys"].topics == (
        "silent-zero",
        "too-few",
        "reads",
        "evidence",
    )
