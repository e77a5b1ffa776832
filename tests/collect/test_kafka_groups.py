"""planner.collect.kafka_groups on confluent-kafka's own description objects.

The test broker (tansu 0.6.0) describes classic groups without assignor, members'
assignments or, through librdkafka, members at all (see test_kafka_admin.py), so the
descriptions Apache Kafka gives are built here with confluent-kafka's classes, filled
as librdkafka fills them from Kafka's answer: the protocol name as the assignor, each
member's decoded assignment, KIP-848 members' target assignments.
"""

from __future__ import annotations

import pytest

from planner.assignors import STRATEGIES
from planner.collect.kafka_groups import group_rows, strategy_for

confluent_kafka = pytest.importorskip("confluent_kafka")


def _member(member_id: str, topics: dict[str, list[int]], *, target: bool = False) -> object:
    from confluent_kafka.admin import MemberAssignment, MemberDescription

    tps = [confluent_kafka.TopicPartition(t, p) for t, ps in topics.items() for p in ps]
    assignment = MemberAssignment(tps)
    if target:  # KIP-848: the member still reconciles towards its target
        return MemberDescription(
            member_id, "client", "/10.0.0.1", MemberAssignment([]), target_assignment=assignment
        )
    return MemberDescription(member_id, "client", "/10.0.0.1", assignment)


def _group(
    group_id: str,
    assignor: str,
    members: list[object],
    *,
    state: str = "STABLE",
    classic: bool = True,
    simple: bool = False,
) -> object:
    from confluent_kafka.admin import ConsumerGroupDescription

    return ConsumerGroupDescription(
        group_id,
        simple,
        members,  # type: ignore[arg-type]
        assignor,
        getattr(confluent_kafka.ConsumerGroupState, state),
        confluent_kafka.Node(1, "broker-1", 9092),
        type=confluent_kafka.ConsumerGroupType.CLASSIC
        if classic
        else confluent_kafka.ConsumerGroupType.CONSUMER,
    )


def test_strategy_names_are_kafkas_own() -> None:
    assert {s: strategy_for(s) for s in STRATEGIES} == {s: s for s in STRATEGIES}
    assert strategy_for("uniform") is None  # only a KIP-848 (server-side) name
    assert strategy_for("uniform", server_side=True) == "cooperative-sticky"
    assert strategy_for("range", server_side=True) == "range"
    assert strategy_for("sticky", server_side=True) is None
    assert strategy_for("stream") is None


def test_group_rows_from_kafka_descriptions() -> None:
    asked: list[str] = []

    def committed(group_id: str) -> set[str]:
        asked.append(group_id)
        return {"audit", "__consumer_offsets"} if group_id == "rebalanced" else set()

    descriptions = [
        _group(
            "billing",
            "range",
            [_member("m-1", {"orders": [0, 1], "refunds": [0]}), _member("m-2", {"orders": [2]})],
        ),
        _group(
            "search",
            "cooperative-sticky",
            [_member("m-3", {"clicks": [0, 1, 2]}), _member("m-4", {}), _member("m-5", {})],
        ),
        _group("mobile", "uniform", [_member("m-6", {"views": [0]}, target=True)], classic=False),
        _group("streams-app", "stream", [_member("m-7", {"orders": [0]})]),
        _group("joining", "", [_member("m-8", {})], state="PREPARING_REBALANCING"),
        _group("rebalanced", "roundrobin", [_member("m-9", {})]),
        _group("lost", "sticky", [_member("m-10", {})]),
        _group("idle", "", [], state="EMPTY"),
        _group("manual", "", [], simple=True),
    ]
    scan = group_rows(descriptions, committed)

    assert sorted((r["group_id"], r["topic"], r["strategy"], r["members"]) for r in scan.rows) == [
        ("billing", "orders", "range", 2),
        ("billing", "refunds", "range", 2),
        ("mobile", "views", "cooperative-sticky", 1),
        ("rebalanced", "audit", "roundrobin", 1),  # internal topic left out
        ("search", "clicks", "cooperative-sticky", 3),  # members without partitions count
    ]
    rejected = {group: (field, value, reason) for group, field, value, reason in scan.rejected}
    assert set(rejected) == {"streams-app", "joining", "lost"}
    assert rejected["streams-app"][:2] == ("strategy", "stream")
    assert "cannot simulate" in rejected["streams-app"][2]
    assert rejected["joining"][:2] == ("strategy", None)
    assert "rebalancing" in rejected["joining"][2]
    assert rejected["lost"][0] == "topic" and "unknown" in rejected["lost"][2]
    assert scan.empty == ["idle"] and scan.simple == ["manual"]
    assert scan.server_mapped == ["mobile (uniform -> cooperative-sticky)"]
    assert scan.from_offsets == ["rebalanced"]
    assert asked == ["rebalanced", "lost"]  # only groups whose members hold nothing


def test_stable_group_without_members_is_not_trusted() -> None:
    scan = group_rows([_group("g", "rdkafka-1234", [], state="STABLE")], lambda _: set())
    assert scan.rows == [] and scan.empty == []
    assert [(g, f, v) for g, f, v, _ in scan.rejected] == [("g", "members", "0")]
