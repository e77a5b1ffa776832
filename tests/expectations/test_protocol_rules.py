"""The output suites' rules for group protocols, protocol alternatives and event costs.

The rows are the helpers' of `test_outputs` (consistent by construction) with groups of
every protocol, alternatives in the form the sizing job writes them, and the simulation
core's own grid rows; each bad row breaks one rule.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from expectations.validate import validate
from planner.notes import coded_rows, texts
from planner.simulate import TopicLoad, simulate_grid
from planner.simulate.strategies import ALL_STRATEGIES
from spark_jobs.planning import group_row
from tests.expectations.test_outputs import (
    BETWEEN,
    IN_SET,
    QUERY,
    RUN,
    assigned,
    failed,
    frame,
    group_plan,
    planned,
    recommendation,
    topic_rows,
    unplanned,
)
from tests.support.protocol_plans import ALTERNATIVES, GROUPS, KEYED_ALTERNATIVES

pytestmark = pytest.mark.slow


def _with_protocols(topic: str) -> dict[str, Any]:
    # The hand-built plans of every protocol, as the sizing job writes them.
    groups = [{**group_row(g), "topics": [topic]} for g in GROUPS]
    for g in groups:
        # Within the helper topic's 8 partitions (the group-size rule reads them).
        g.update(recommended_members=4, members_now=4, members_at_horizon=4)
    return planned(
        topic,
        groups=groups,
        alternatives=texts(ALTERNATIVES),
        alternatives_coded=coded_rows(ALTERNATIVES),
    )


def test_groups_of_every_protocol_and_their_alternatives_pass(spark: Any) -> None:
    keyed = planned(
        "keyed",
        keyed=True,
        alternatives=texts(KEYED_ALTERNATIVES),
        alternatives_coded=coded_rows(KEYED_ALTERNATIVES),
    )
    streams = planned(
        "streams",
        groups=[
            group_plan(
                "enricher", 4, ["streams"], **assigned("streams", "sticky", "cooperative-sticky")
            )
        ],
    )
    # A group without a plan keeps its protocol and assignor, and has no planned key.
    share_unplanned = unplanned("no-tc")
    share_unplanned["groups"] = [
        group_plan(
            "thumbnails",
            4,
            ["no-tc"],
            **{**assigned("share", "simple", None), "strategy": None},
            recommended_members=None,
            members_now=None,
            members_at_horizon=None,
            status="unplanned",
        )
    ]
    rows = [_with_protocols("orders"), keyed, streams, share_unplanned]
    report = validate(frame(spark, "sizing", rows), "sizing.output")
    assert report.success, report.message()
    published = [
        recommendation(rows[0], 4, "audit") | {"strategy": "uniform"},
        recommendation(keyed, 4, None),
    ]
    report = validate(frame(spark, "recommendations", published), "recommendations.output")
    assert report.success, report.message()


def test_a_bad_protocol_an_assignor_of_another_protocol_or_bad_alternatives_fail(
    spark: Any,
) -> None:
    def with_group(topic: str, **changes: Any) -> dict[str, Any]:
        return planned(topic, groups=[group_plan("g", 4, [topic], **changes)])

    no_codes = _with_protocols("no-codes")
    no_codes["alternatives_coded"] = no_codes["alternatives_coded"][:1]
    odd_code = _with_protocols("odd-code")
    odd_code["alternatives_coded"] = copy.deepcopy(odd_code["alternatives_coded"])
    odd_code["alternatives_coded"][0]["code"] = "hot-key"
    unplanned_with = unplanned("unplanned-with") | {
        "alternatives": texts(ALTERNATIVES),
        "alternatives_coded": coded_rows(ALTERNATIVES),
    }
    rows = [
        _with_protocols("good"),
        with_group("kip-999", protocol="kip-999"),
        with_group("no-protocol", protocol=None),
        # The classic protocol has no `uniform`; the consumer protocol no `cooperative-sticky`.
        with_group("classic-uniform", current_strategy="uniform"),
        with_group("consumer-cooperative", protocol="consumer", current_strategy="uniform"),
        with_group("share-range", protocol="share", current_strategy="range", strategy="simple"),
        no_codes,
        odd_code,
        unplanned_with,
        planned("null-alternatives", alternatives=None),
    ]
    report = validate(frame(spark, "sizing", rows), "sizing.output")
    assert failed(report) == {(QUERY, "sizing.group_protocol"), (QUERY, "sizing.alternatives")}
    assert set(report[QUERY, "sizing.group_protocol"].topics) == {
        "kip-999",
        "no-protocol",
        "classic-uniform",
        "consumer-cooperative",
        "share-range",
    }
    assert set(report[QUERY, "sizing.alternatives"].topics) == {
        "no-codes",
        "odd-code",
        "unplanned-with",
        "null-alternatives",
    }
    # The topic's strategy is any protocol's assignor, not a name no broker reports.
    published = [recommendation(planned("orders"), 4, "billing") | {"strategy": "consumer:uniform"}]
    report = validate(frame(spark, "recommendations", published), "recommendations.output")
    assert failed(report) == {(IN_SET, "strategy")}


def test_event_costs_that_contradict_the_protocol_fail(spark: Any) -> None:
    good = topic_rows("orders", 1.6, (6,))

    def pick(members: int, strategy: str) -> dict[str, Any]:
        found = next(r for r in good if (r["members"], r["strategy"]) == (members, strategy))
        return copy.deepcopy(found)

    # Keys must stay unique, so each bad row takes another topic's name.
    bad = [
        pick(2, "cooperative-sticky") | {"topic": "coop-stops", "stops_group": True},
        pick(2, "range") | {"topic": "eager-goes-on", "stops_group": False},
        pick(2, "range") | {"topic": "classic-locks", "shrink_locked_record_s": 15_000.0},
        pick(3, "sticky") | {"topic": "eager-two-rounds", "grow_rounds": 2},
        pick(3, "cooperative-sticky") | {"topic": "coop-one-round", "grow_rounds": 1},
        pick(4, "roundrobin") | {"topic": "half-given", "shrink_rounds": None},
        pick(4, "range") | {"topic": "costs-without-churn", "grow_moved": None},
        pick(5, "sticky") | {"topic": "negative-pause", "grow_paused_partition_s": -1.0},
        pick(5, "range") | {"topic": "three-rounds", "shrink_rounds": 3},
    ]
    for row in bad:
        row["topics"] = [row["topic"]]
    report = validate(frame(spark, "simulations", [*good, *bad]), "simulations.output")
    assert failed(report) == {
        (QUERY, "simulations.event_costs"),
        (BETWEEN, "grow_paused_partition_s"),
        (BETWEEN, "shrink_rounds"),
    }
    costs = report[QUERY, "simulations.event_costs"]
    # Every bad row but the negative pause (its own rule); the report shows a few.
    assert costs.unexpected_count == 8
    assert set(costs.topics) <= {
        "coop-stops",
        "eager-goes-on",
        "classic-locks",
        "eager-two-rounds",
        "coop-one-round",
        "half-given",
        "costs-without-churn",
        "three-rounds",
    }
    assert costs.topics


def test_grid_rows_of_every_strategy_key_pass(spark: Any) -> None:
    # The core's grid with the broker's assignors and share groups beyond the partition
    # count: what the simulations dataset holds once the jobs simulate them.
    grid = simulate_grid(
        TopicLoad(1.6),
        consumer_capacity=1.0,
        keep_free_pct=20.0,
        partition_counts=(6, 8),
        strategies=ALL_STRATEGIES,
        extra_members=6,
    )
    rows = [
        {
            **row,
            "run": RUN,
            "scope": "topic",
            "topic": "orders",
            "topics": ["orders"],
            "is_recommended_partitions": row["partitions"] == 8,
            "is_current_partitions": row["partitions"] == 6,
            "load_limit": grid.load_limit,
        }
        for row in grid.rows()
    ]
    assert {r["strategy"] for r in rows} == set(ALL_STRATEGIES)
    report = validate(frame(spark, "simulations", rows), "simulations.output")
    assert report.success, report.message()
