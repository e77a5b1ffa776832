"""Kafka 4.4.0's own classes as the differential oracle of ``planner.assignors`` and murmur2.

Every test sends the same input to Kafka's classes (one JVM for the session, see
``tests/oracle``) and to the planner, and compares. Kafka's assignors run exactly as the
consumer group leader runs them: ``assign(Cluster, GroupSubscription)`` on a HashMap of
Subscriptions filled in the order ``subscriptions`` lists the members, previous ownership
carried as each protocol carries it (user data for ``sticky``, ownedPartitions and the
generation for ``cooperative-sticky``), every member of ``previous`` in generation 1.

The sticky assignors follow Java's hash iteration orders in two places; the planner
emulates them (``planner.assignors._java_hashing``), so results are compared exactly. The
one input the planner cannot know, the JoinGroup order of member ids sharing a hash
bucket, is the order of ``subscriptions`` on both sides; how much a different order can
change is checked separately (same moves, same counts).

Claims on partition numbers beyond a topic's partition count are compared on their own:
Kafka 4.4.0 keeps them and then assigns non-existent or duplicate partitions or throws.

Run more examples with ``KAFKA_ORACLE_SCALE=<factor>`` (see ``docs/testing.md``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.assignors import TopicPartition, assign
from planner.assignors._java_hashing import (
    JavaHashTable,
    hash_map_order,
    string_hash,
    topic_partition_hash,
)
from planner.partitioners import murmur2, partition_for_key, partitions_for_keys
from tests.assignors.strategies import (
    MEMBER_IDS,
    Group,
    Plain,
    changed_groups,
    examples,
    groups,
    has_vanished_claims,
    plain,
    skewed_groups,
    vanished_groups,
)
from tests.oracle.java_oracle import JavaOracle, KafkaRejected


def moved(previous: Mapping[str, Sequence[tuple[str, int]]] | None, result: Plain) -> int:
    """Partitions now on a member other than the one that last claimed them."""
    owner = {(t, p): m for m, tps in (previous or {}).items() for t, p in tps}
    return sum(1 for m, tps in result.items() for tp in tps if owner.get(tp, m) != m)


def kafka(oracle: JavaOracle, strategy: str, group: Group) -> Plain:
    java = oracle.assign(strategy, group.partitions_per_topic, group.subscriptions, group.previous)
    if strategy in ("sticky", "cooperative-sticky"):
        assert java.general == (not group.identical), "Kafka took the other sticky path"
    return plain(java.assignment)


def ours(strategy: str, group: Group) -> Plain:
    return plain(assign(strategy, group.partitions_per_topic, group.subscriptions, group.previous))


# --- range and roundrobin: exactly Kafka's, on any subscriptions and member ids ---------


@examples(400)
@given(
    group=groups(ids=MEMBER_IDS, with_previous=False),
    strategy=st.sampled_from(["range", "roundrobin"]),
)
def test_range_and_roundrobin_equal_kafka(
    kafka_oracle: JavaOracle, group: Group, strategy: str
) -> None:
    assert ours(strategy, group) == kafka(kafka_oracle, strategy, group)


@examples(200)
@given(
    group=groups(with_previous=False),
    strategy=st.sampled_from(["range", "roundrobin", "sticky"]),
    static=st.data(),
)
def test_static_members_come_first_ordered_by_group_instance_id(
    kafka_oracle: JavaOracle, group: Group, strategy: str, static: st.DataObject
) -> None:
    """What ``docs/assignors.md`` says of static membership (KIP-345), checked on Kafka:
    ``range`` and ``roundrobin`` order the static members first, by ``group.instance.id``,
    then the dynamic ones by member id; ``sticky`` ignores instance ids. ``assign`` takes
    member ids only, so the expected order is built by renaming: NUL + instance id for a
    static member, SOH + member id for a dynamic one."""
    members = list(group.subscriptions)
    chosen = static.draw(st.lists(st.sampled_from(members), unique=True))
    names = st.text(alphabet="abz09-", min_size=1, max_size=4)
    instance_ids = dict(
        zip(
            chosen,
            static.draw(st.lists(names, min_size=len(chosen), max_size=len(chosen), unique=True)),
            strict=True,
        )
    )
    java = kafka_oracle.assign(
        strategy,
        group.partitions_per_topic,
        group.subscriptions,
        group_instance_ids=instance_ids,
    )
    if strategy == "sticky":
        assert plain(java.assignment) == ours(strategy, group)
        return
    renamed = {
        m: ("\x00" + instance_ids[m]) if m in instance_ids else ("\x01" + m) for m in members
    }
    expected = assign(
        strategy,
        group.partitions_per_topic,
        {renamed[m]: group.subscriptions[m] for m in members},
    )
    assert plain(java.assignment) == plain({m: expected[renamed[m]] for m in members})


# --- sticky and cooperative-sticky: exactly Kafka's --------------------------------------

STICKY = st.sampled_from(["sticky", "cooperative-sticky"])


@examples(700)
@given(group=groups(ids=MEMBER_IDS, vanished=False), strategy=STICKY)
def test_sticky_equals_kafka_on_messy_previous_assignments(
    kafka_oracle: JavaOracle, group: Group, strategy: str
) -> None:
    """Random topics (0 partitions included), subscriptions with missing topics, previous
    claims by members that left, on topics no longer subscribed, and claimed twice."""
    assert ours(strategy, group) == kafka(kafka_oracle, strategy, group)


@examples(250)
@given(group=skewed_groups(), strategy=STICKY)
def test_sticky_equals_kafka_when_a_few_members_owned_everything(
    kafka_oracle: JavaOracle, group: Group, strategy: str
) -> None:
    """Long balancing runs of the general path: here the planner used to move up to three
    partitions more than Kafka before it reproduced Kafka's PartitionMovements."""
    assert ours(strategy, group) == kafka(kafka_oracle, strategy, group)


@examples(300)
@given(group=changed_groups(), strategy=STICKY)
def test_sticky_equals_kafka_after_members_join_leave_or_topics_grow(
    kafka_oracle: JavaOracle, group: Group, strategy: str
) -> None:
    assert ours(strategy, group) == kafka(kafka_oracle, strategy, group)


@examples(200)
@given(group=changed_groups(identical=True, max_members=12, max_partitions=24))
def test_cooperative_rounds_equal_kafka_until_settled(
    kafka_oracle: JavaOracle, group: Group
) -> None:
    """Each rebalance of a cooperative group starts from what the last one handed out."""
    previous: Plain | None = group.previous
    for _ in range(4):
        step = Group(group.partitions_per_topic, group.subscriptions, previous)
        expected = kafka(kafka_oracle, "cooperative-sticky", step)
        assert ours("cooperative-sticky", step) == expected
        if expected == previous:
            break
        previous = expected


@examples(150)
@given(group=changed_groups(max_members=12), strategy=STICKY, seed=st.integers(0, 2**32 - 1))
def test_the_join_order_changes_neither_moves_nor_counts(
    kafka_oracle: JavaOracle, group: Group, strategy: str, seed: int
) -> None:
    """The JoinGroup order is the one input the planner cannot know: it decides the order
    of member ids sharing a bucket of Kafka's HashMap. In another order both sides still
    agree exactly, and the number of moved partitions and the counts stay the same."""
    members = list(group.subscriptions)
    random.Random(seed).shuffle(members)
    shuffled = Group(
        group.partitions_per_topic, {m: group.subscriptions[m] for m in members}, group.previous
    )
    first, second = ours(strategy, group), ours(strategy, shuffled)
    assert second == kafka(kafka_oracle, strategy, shuffled)
    assert moved(group.previous, first) == moved(group.previous, second)
    assert sorted(map(len, first.values())) == sorted(map(len, second.values()))


# --- claims on partitions that no longer exist: Kafka 4.4.0 keeps them -------------------


def invalid(group: Group, result: Plain) -> bool:
    """Some partition does not exist or is assigned twice."""
    seen = Counter(tp for tps in result.values() for tp in tps)
    return any(n > 1 for n in seen.values()) or any(
        not 0 <= p < group.partitions_per_topic.get(t, 0) for t, p in seen
    )


@examples(300)
@given(group=vanished_groups(), strategy=STICKY)
def test_beyond_the_partition_count_kafka_is_either_equal_or_invalid(
    kafka_oracle: JavaOracle, group: Group, strategy: str
) -> None:
    """A claim on partition ``n`` of a topic with ``n`` partitions (a topic deleted and
    recreated smaller). Kafka keeps it when the owner still subscribes to the topic; its
    assignment is then either the planner's or broken: a partition that does not exist, a
    partition twice, or an IllegalStateException. The planner drops the claim."""
    ours_result = ours(strategy, group)
    assert not invalid(group, ours_result)
    try:
        theirs = kafka(kafka_oracle, strategy, group)
    except KafkaRejected as rejected:
        assert "IllegalStateException" in str(rejected)
        return
    assert has_vanished_claims(group)
    assert ours_result == theirs or invalid(group, theirs)


def test_kafka_assigns_a_partition_that_does_not_exist(kafka_oracle: JavaOracle) -> None:
    group = Group({"t": 4}, {"c0": ["t"]}, {"c0": [("t", 4)]})
    assert kafka(kafka_oracle, "sticky", group) == {"c0": [("t", p) for p in range(5)]}
    assert ours("sticky", group) == {"c0": [("t", p) for p in range(4)]}


def test_kafka_throws_on_a_claim_beyond_the_count(kafka_oracle: JavaOracle) -> None:
    group = Group({"t": 3}, {"c0": ["t"]}, {"c0": [("t", 0), ("t", 1), ("t", 3)]})
    with pytest.raises(KafkaRejected, match="IllegalStateException"):
        kafka(kafka_oracle, "sticky", group)
    assert ours("sticky", group) == {"c0": [("t", 0), ("t", 1), ("t", 2)]}


# --- Java's hash orders, as the planner emulates them -------------------------------------


@examples(150)
@given(ids=st.lists(MEMBER_IDS, max_size=60, unique=True))
def test_hash_map_order_is_javas(kafka_oracle: JavaOracle, ids: list[str]) -> None:
    assert hash_map_order(ids) == kafka_oracle.string_map_order(ids)


def test_colliding_ids_keep_their_insertion_order(kafka_oracle: JavaOracle) -> None:
    assert string_hash("Aa") == string_hash("BB") == 2112
    for ids in (["BB", "Aa"], ["Aa", "BB"], ["BBBB", "AaAa", "AaBB", "BBAa"]):
        assert hash_map_order(ids) == kafka_oracle.string_map_order(ids) == ids


@examples(150)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["add", "add", "remove"]),
            st.sampled_from(["t", "orders", "x.y"]),
            st.integers(0, 200),
        ),
        max_size=80,
    )
)
def test_topic_partition_set_order_is_javas(
    kafka_oracle: JavaOracle, steps: list[tuple[str, str, int]]
) -> None:
    table: JavaHashTable[TopicPartition] = JavaHashTable(topic_partition_hash)
    for op, topic, partition in steps:
        (table.add if op == "add" else table.remove)(TopicPartition(topic, partition))
    assert not table.treeified
    assert table.order() == kafka_oracle.partition_set_order(steps)


def test_a_long_bucket_grows_a_small_table_as_java_does(kafka_oracle: JavaOracle) -> None:
    # Partitions 16 apart share a bucket of 16: the ninth makes Java double the table.
    steps = [("add", "t", 16 * i) for i in range(10)] + [("add", "t", 3), ("remove", "t", 32)]
    table: JavaHashTable[TopicPartition] = JavaHashTable(topic_partition_hash)
    for op, topic, partition in steps:
        (table.add if op == "add" else table.remove)(TopicPartition(topic, partition))
    assert table.capacity == 32
    assert table.order() == kafka_oracle.partition_set_order(steps)


# --- murmur2 and the producer's keyed partition choice -------------------------------------

KEYS = st.one_of(
    st.binary(max_size=64),
    st.binary(min_size=200, max_size=3000),
    st.text(max_size=40).map(lambda s: s.encode("utf-8")),
    st.just(b""),
)


@examples(250)
@given(
    keys=st.lists(KEYS, min_size=1, max_size=40),
    counts=st.lists(st.integers(1, 100_000), min_size=1, max_size=4),
)
def test_murmur2_and_keyed_partition_equal_javas(
    kafka_oracle: JavaOracle, keys: list[bytes], counts: list[int]
) -> None:
    """``Utils.murmur2`` and ``BuiltInPartitioner.partitionForKey`` (what KafkaProducer
    uses for a keyed record without a custom partitioner), on empty, long, binary and
    non-ASCII UTF-8 keys."""
    hashes, chosen = kafka_oracle.murmur2(keys, counts)
    assert [murmur2(k) for k in keys] == hashes
    for i, key in enumerate(keys):
        assert [partition_for_key(key, n, "murmur2_random") for n in counts] == chosen[i]
    for j, n in enumerate(counts):
        assert partitions_for_keys(keys, n).tolist() == [row[j] for row in chosen]
