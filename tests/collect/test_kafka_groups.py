"""planner.collect.kafka_groups: described groups -> `groups` rows, on plain values.

What a real Apache Kafka 4.4.0 reports for live groups of every kind, and that `described`
reads confluent-kafka's descriptions of them right, is checked in `test_kafka_admin.py`.
Here are the cases a live broker gives only by chance (a group caught mid-rebalance, a
Kafka Streams assignor, a description that contradicts itself), built as values.
"""

from __future__ import annotations

import pytest

from planner.collect.kafka_groups import (
    DescribedGroup,
    DescribedMember,
    described,
    group_rows,
)


def _member(
    member_id: str, topics: dict[str, list[int]], *, target: bool = False
) -> DescribedMember:
    owned = tuple(sorted((t, p) for t, ps in topics.items() for p in ps))
    if target:  # KIP-848: the member still reconciles towards its target
        return DescribedMember(member_id, "client", None, (), target_assignment=owned)
    return DescribedMember(member_id, "client", None, owned)


def _group(
    group_id: str,
    assignor: str,
    members: list[DescribedMember],
    *,
    state: str = "STABLE",
    protocol: str = "classic",
    simple: bool = False,
) -> DescribedGroup:
    return DescribedGroup(group_id, protocol, state, assignor, simple, tuple(members))


def test_group_rows_from_described_groups() -> None:
    asked: list[str] = []

    def committed(group_id: str) -> set[str]:
        asked.append(group_id)
        return {"audit", "__consumer_offsets"} if group_id == "rebalanced" else set()

    groups = [
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
        _group(
            "mobile", "uniform", [_member("m-6", {"views": [0]}, target=True)], protocol="consumer"
        ),
        _group("streams-app", "stream", [_member("m-7", {"orders": [0]})]),
        _group("custom", "my-assignor", [_member("m-11", {"orders": [0]})]),
        _group("joining", "", [_member("m-8", {})], state="PREPARING_REBALANCING"),
        _group("rebalanced", "roundrobin", [_member("m-9", {})]),
        _group("lost", "sticky", [_member("m-10", {})]),
        _group("idle", "", [], state="EMPTY"),
        _group("manual", "", [], simple=True),
    ]
    scan = group_rows(groups, committed)

    assert sorted(
        (r["group_id"], r["topic"], r["protocol"], r["strategy"], r["members"]) for r in scan.rows
    ) == [
        ("billing", "orders", "classic", "range", 2),
        ("billing", "refunds", "classic", "range", 2),
        # The broker's own names, from the target assignment; not a classic stand-in.
        ("mobile", "views", "consumer", "uniform", 1),
        ("rebalanced", "audit", "classic", "roundrobin", 1),  # internal topic left out
        ("search", "clicks", "classic", "cooperative-sticky", 3),  # members without partitions
        ("streams-app", "orders", "classic", "stream", 1),  # Kafka Streams' task assignor
    ]
    rejected = {group: (field, value, reason) for group, field, value, reason in scan.rejected}
    assert set(rejected) == {"custom", "joining", "lost"}
    assert rejected["custom"][:2] == ("strategy", "my-assignor")
    assert "cannot simulate" in rejected["custom"][2]
    assert rejected["joining"][:2] == ("strategy", None)
    assert "rebalancing" in rejected["joining"][2]
    assert rejected["lost"][0] == "topic" and "unknown" in rejected["lost"][2]
    assert scan.empty == ["idle"] and scan.simple == ["manual"]
    assert scan.from_offsets == ["rebalanced"]
    assert asked == ["rebalanced", "lost"]  # only groups whose members hold nothing


def test_a_consumer_protocol_assignor_the_broker_may_add_is_rejected_by_name() -> None:
    scan = group_rows([_group("g", "sticky", [_member("m", {"t": [0]})], protocol="consumer")], set)
    [(group, field, value, reason)] = scan.rejected
    assert (group, field, value) == ("g", "strategy", "sticky")
    assert "it knows uniform, range" in reason


def test_stable_group_without_members_is_not_trusted() -> None:
    scan = group_rows([_group("g", "rdkafka-1234", [], state="STABLE")], lambda _: set())
    assert scan.rows == [] and scan.empty == []
    assert [(g, f, v) for g, f, v, _ in scan.rejected] == [("g", "members", "0")]


def test_described_reads_confluent_kafkas_description() -> None:
    """confluent-kafka's own classes, filled as librdkafka fills them (a description
    whose type librdkafka does not know is a classic one)."""
    confluent_kafka = pytest.importorskip("confluent_kafka")
    from confluent_kafka.admin import (
        ConsumerGroupDescription,
        MemberAssignment,
        MemberDescription,
    )

    def tps(*pairs: tuple[str, int]) -> MemberAssignment:
        return MemberAssignment([confluent_kafka.TopicPartition(t, p) for t, p in pairs])

    node = confluent_kafka.Node(1, "broker-1", 9092)
    consumer = ConsumerGroupDescription(
        "mobile",
        False,
        [
            MemberDescription(
                "b", "app", "/10.0.0.2", tps(("views", 1)), target_assignment=tps(("views", 1))
            ),
            MemberDescription(
                "a", "app", "/10.0.0.1", tps(("views", 2), ("views", 0)), "static-1", tps()
            ),
        ],
        "uniform",
        confluent_kafka.ConsumerGroupState.STABLE,
        node,
        type=confluent_kafka.ConsumerGroupType.CONSUMER,
    )
    assert described(consumer) == DescribedGroup(
        "mobile",
        "consumer",
        "STABLE",
        "uniform",
        False,
        (
            DescribedMember("a", "app", "static-1", (("views", 0), ("views", 2)), ()),
            DescribedMember("b", "app", None, (("views", 1),), (("views", 1),)),
        ),
    )
    unknown = ConsumerGroupDescription(
        "old", True, [], "", confluent_kafka.ConsumerGroupState.EMPTY, node
    )
    assert described(unknown) == DescribedGroup("old", "classic", "EMPTY", "", True, ())


def test_a_bare_kafka_error_is_taken_as_it_is() -> None:
    # A listing's partial `errors` holds KafkaError values, not exceptions: reading one
    # during a broker restart ended an observer with an AttributeError.
    from confluent_kafka import KafkaError, KafkaException

    from planner.collect.kafka_admin.calls import error_text, kafka_error

    bare = KafkaError(KafkaError._TRANSPORT, "broker down")
    assert kafka_error(bare) is bare
    assert kafka_error(KafkaException(bare)) == bare
    assert "broker down" in error_text(kafka_error(bare))


def test_a_streams_applications_threads_per_instance_come_from_its_client_ids() -> None:
    # Two instances of 2 threads each, as Kafka Streams names its threads' consumers
    # (`<application.id>-<process UUID>-StreamThread-<n>-consumer`).
    threads = [
        DescribedMember(
            f"m-{p}-{t}", f"wc-{p}-StreamThread-{t}-consumer", None, (("orders", 2 * t + len(p)),)
        )
        for p in ("1f0c", "9a2b7")
        for t in (1, 2)
    ]
    uneven = [*threads[:3]]  # one instance runs 2 threads, the other 1: not said
    plain = [DescribedMember("m-x", "wc-1f0c-StreamThread-1-consumer", None, (("orders", 0),))]
    scan = group_rows(
        [
            _group("wc", "stream", threads),
            _group("wc-uneven", "stream", uneven),
            # A plain group whose client id looks like a stream thread's is not one.
            _group("billing", "range", plain),
        ],
        lambda _: set(),
    )
    by_group = {r["group_id"]: r["stream_threads"] for r in scan.rows}
    assert by_group == {"wc": 2, "wc-uneven": None, "billing": None}
