"""Kafka 4.4.0's broker-side assignors as the differential oracle of the consumer and share
protocols (``assign(..., protocol="consumer" | "share")``).

The oracle (``tests/oracle/java/BrokerAssignors.java``) builds the group coordinator's
GroupSpec from the same input: members in a HashMap filled in ``subscriptions``' order,
topic ids, each member's target assignment as the coordinator's record replay builds it.

* Given the topic ids, the planner must equal Kafka exactly (both sides see what the broker
  sees).
* Without them (stand-in ids on the planner's side, random real ids on Kafka's), the
  planner must give the same balance (the same multiset of per-member counts, and for
  share groups the same sharing) and move no more partitions than Kafka.

Run more examples with ``KAFKA_ORACLE_SCALE=<factor>``.
"""

from __future__ import annotations

import os
from collections import Counter

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from planner.assignors import assign
from planner.assignors._java_hashing import JavaHashTable, int_hash
from planner.assignors._server_group import subscribed_topics
from planner.assignors._topic_ids import TopicId
from tests.assignors.strategies import (
    COLLIDING_TOPIC_IDS,
    COLLIDING_TOPIC_NAMES,
    TOPIC_IDS,
    TOPIC_NAMES,
    broker_groups,
)
from tests.oracle.java_oracle import JavaOracle

SCALE = max(1, int(os.environ.get("KAFKA_ORACLE_SCALE", "1")))
# Topics whose names share buckets of the members' HashSet<String> (nine or more double it),
# with ids that often share a bucket of the HashSet<Uuid> uniform copies them into.
CROWDED_NAMES = st.one_of(st.sampled_from(COLLIDING_TOPIC_NAMES), TOPIC_NAMES)
CROWDED_IDS = st.one_of(COLLIDING_TOPIC_IDS, TOPIC_IDS)
PROTOCOL_OF = {"uniform": "consumer", "range": "consumer", "simple": "share"}

Plain = dict[str, list[tuple[str, int]]]


def examples(count: int) -> settings:
    return settings(
        max_examples=count * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _moves(previous: Plain | None, result: Plain) -> int:
    before = {(m, tp) for m, tps in (previous or {}).items() for tp in tps}
    return sum(1 for m, tps in result.items() for tp in tps if (m, tuple(tp)) not in before)


def _check_exact(oracle: JavaOracle, strategy: str, group: tuple) -> None:  # type: ignore[type-arg]
    counts, subscriptions, previous, ids = group
    ours = assign(
        strategy, counts, subscriptions, previous, protocol=PROTOCOL_OF[strategy], topic_ids=ids
    )
    theirs = oracle.server_assign(strategy, counts, subscriptions, previous, topic_ids=ids)
    assert {m: [tuple(tp) for tp in tps] for m, tps in ours.items()} == theirs


@examples(150)
@given(group=broker_groups(shared=False))
def test_uniform_equals_kafka(kafka_oracle: JavaOracle, group: tuple) -> None:  # type: ignore[type-arg]
    _check_exact(kafka_oracle, "uniform", group)


@examples(60)
@given(group=broker_groups(shared=False), statics=st.data())
def test_consumer_range_equals_kafka(
    kafka_oracle: JavaOracle, group: tuple, statics: st.DataObject
) -> None:  # type: ignore[type-arg]
    counts, subscriptions, previous, ids = group
    members = list(subscriptions)
    static = statics.draw(st.lists(st.sampled_from(members), unique=True))
    instance_ids = {m: f"instance-{len(members) - i}" for i, m in enumerate(static)}
    ours = assign(
        "range", counts, subscriptions, previous, protocol="consumer", instance_ids=instance_ids
    )
    theirs = kafka_oracle.server_assign(
        "range", counts, subscriptions, previous, topic_ids=ids, instance_ids=instance_ids
    )
    assert {m: [tuple(tp) for tp in tps] for m, tps in ours.items()} == theirs


@examples(150)
@given(group=broker_groups(shared=True))
def test_simple_equals_kafka(kafka_oracle: JavaOracle, group: tuple) -> None:  # type: ignore[type-arg]
    _check_exact(kafka_oracle, "simple", group)


@examples(40)
@given(group=broker_groups(shared=True, identical=True, max_partitions=200))
def test_simple_equals_kafka_on_wide_topics(kafka_oracle: JavaOracle, group: tuple) -> None:  # type: ignore[type-arg]
    """Partition numbers beyond 16 share buckets of the default-sized Java sets, and
    several topics' partitions share buckets of the partition map."""
    _check_exact(kafka_oracle, "simple", group)


def test_simple_with_two_topics_follows_compute_if_absent(kafka_oracle: JavaOracle) -> None:
    """The smallest case where two topics' partitions share a bucket: t (1 partition, id
    hash 0) and u (2, id hash 1), two members. t-0 (hash 0) and u-1 (hash 32) share bucket
    0 of the 8-bucket partition map; Kafka fills it with ``computeIfAbsent``, which links
    u-1 *before* t-0, so the walk is u-1, t-0, u-0 and a (2 partitions wanted) gets u-1
    and u-0. Appending, as ``put`` does, would give a t-0 and u-0."""
    group = (
        {"t": 1, "u": 2},
        {"a": ["t", "u"], "b": ["t", "u"]},
        None,
        {"t": "AAAAAAAAAAAAAAAAAAAAAA", "u": "AAAAAAAAAAAAAAAAAAAAAQ"},
    )
    ours = assign("simple", *group[:3], protocol="share", topic_ids=group[3])
    assert ours == {"a": [("u", 0), ("u", 1)], "b": [("t", 0)]}
    _check_exact(kafka_oracle, "simple", group)


@examples(40)
@given(group=broker_groups(shared=False, identical=True, max_partitions=200))
def test_uniform_equals_kafka_on_wide_topics(kafka_oracle: JavaOracle, group: tuple) -> None:  # type: ignore[type-arg]
    _check_exact(kafka_oracle, "uniform", group)


@examples(60)
@given(
    names=st.lists(CROWDED_NAMES, min_size=1, max_size=18, unique=True),
    assignor=st.sampled_from(["uniform", "simple"]),
    data=st.data(),
)
def test_subscribed_topics_in_kafkas_order(
    kafka_oracle: JavaOracle, names: list[str], assignor: str, data: st.DataObject
) -> None:
    """A member's topics in the order Kafka's ``TopicIds`` iterates them: its set of names
    built by Kafka's own member class and replayed from its subscription record, names
    without a topic skipped. Names share buckets and make the set double."""
    existing = data.draw(st.lists(st.sampled_from(names), unique=True))
    counts = {t: 1 for t in existing}
    ids = {t: str(TopicId(0, 16 * (i + 1))) for i, t in enumerate(existing)}
    listed = data.draw(st.permutations(names))  # the heartbeat's order: replayed away
    theirs = kafka_oracle.server_topics(assignor, counts, {"m": listed}, topic_ids=ids)
    assert subscribed_topics(frozenset(names), counts) == theirs["m"]


def test_uniform_walks_ids_sharing_a_bucket_in_name_set_order(kafka_oracle: JavaOracle) -> None:
    """Topic ids of ``b`` and ``zz`` share bucket 0 of uniform's ``HashSet<Uuid>``, so the
    order the set is filled in decides which topic's partitions come first: the order of
    the member's ``HashSet<String>``, where ``zz`` (bucket 0) precedes ``b`` (bucket 2).
    Sorting the names instead (as the planner did) gives ``m0`` the partition of ``b``."""
    group = (
        {"b": 1, "zz": 1},
        {"m0": ["b", "zz"], "m1": ["b", "zz"]},
        None,
        {"b": str(TopicId(0, 16)), "zz": str(TopicId(0, 32))},
    )
    ours = assign("uniform", *group[:3], protocol="consumer", topic_ids=group[3])
    assert ours == {"m0": [("zz", 0)], "m1": [("b", 0)]}
    _check_exact(kafka_oracle, "uniform", group)


def test_simple_fills_its_partition_map_in_name_set_order(kafka_oracle: JavaOracle) -> None:
    """``simple`` lists the target partitions topic by topic in the member's name-set order
    (``zz`` before ``b``) and links each into its partition map with ``computeIfAbsent``,
    at the head of its bucket: ``zz-0`` and ``b-0`` (topic-id hashes 16 and 8) share bucket
    0 of the 8-bucket partition map, so ``b-0``, linked last, is walked first and goes to
    ``m0``. Sorting the names instead gives ``m0`` the partition of ``zz``."""
    group = (
        {"b": 1, "zz": 1},
        {"m0": ["b", "zz"], "m1": ["b", "zz"]},
        None,
        {"b": str(TopicId(0, 8)), "zz": str(TopicId(0, 16))},
    )
    ours = assign("simple", *group[:3], protocol="share", topic_ids=group[3])
    assert ours == {"m0": [("b", 0)], "m1": [("zz", 0)]}
    _check_exact(kafka_oracle, "simple", group)


@examples(100)
@given(
    group=broker_groups(
        shared=False, max_topics=14, max_partitions=6, names=CROWDED_NAMES, topic_ids=CROWDED_IDS
    )
)
def test_uniform_equals_kafka_on_crowded_topic_sets(kafka_oracle: JavaOracle, group: tuple) -> None:  # type: ignore[type-arg]
    _check_exact(kafka_oracle, "uniform", group)


@examples(100)
@given(
    group=broker_groups(
        shared=True, max_topics=14, max_partitions=6, names=CROWDED_NAMES, topic_ids=CROWDED_IDS
    )
)
def test_simple_equals_kafka_on_crowded_topic_sets(kafka_oracle: JavaOracle, group: tuple) -> None:  # type: ignore[type-arg]
    _check_exact(kafka_oracle, "simple", group)


def test_a_heartbeat_order_is_not_followed(kafka_oracle: JavaOracle) -> None:
    """The documented limit: for the member whose heartbeat Kafka is handling, its set is
    built from the heartbeat's list, and names sharing a bucket keep that list's order.
    ``orders-bp`` and ``orders-dr`` share bucket 0 of the names' set and their ids share a
    bucket of uniform's ``HashSet<Uuid>``: listed in reverse, the heartbeat's set walks
    ``orders-dr`` first; the replayed set (and the planner) walk ``orders-bp`` first, and
    the first member gets the partition of the topic walked first."""
    counts = {"orders-bp": 1, "orders-dr": 1}
    ids = {"orders-bp": str(TopicId(0, 16)), "orders-dr": str(TopicId(0, 32))}
    members = {"m0": ["orders-dr", "orders-bp"], "m1": ["orders-dr", "orders-bp"]}
    replayed = kafka_oracle.server_topics("uniform", counts, members, topic_ids=ids)
    heartbeat = kafka_oracle.server_topics(
        "uniform", counts, members, topic_ids=ids, heartbeat=True
    )
    assert replayed["m0"] == ["orders-bp", "orders-dr"]
    assert heartbeat["m0"] == ["orders-dr", "orders-bp"]
    assert subscribed_topics(frozenset(members["m0"]), counts) == replayed["m0"]
    ours = assign("uniform", counts, members, protocol="consumer", topic_ids=ids)
    assert ours == {"m0": [("orders-bp", 0)], "m1": [("orders-dr", 0)]}
    assert ours == kafka_oracle.server_assign("uniform", counts, members, topic_ids=ids)
    assert kafka_oracle.server_assign(
        "uniform", counts, members, topic_ids=ids, heartbeat=True
    ) == {"m0": [("orders-dr", 0)], "m1": [("orders-bp", 0)]}


@examples(80)
@given(
    group=broker_groups(shared=False, identical=True),
    strategy=st.sampled_from(["uniform", "range"]),
)
def test_without_topic_ids_same_balance_no_more_moves(
    kafka_oracle: JavaOracle,
    group: tuple,  # type: ignore[type-arg]
    strategy: str,
) -> None:
    """Without the broker's topic ids (stand-ins from the names), on identical
    subscriptions: the same counts per member and no more partitions moved.

    Not claimed for different subscriptions: there Kafka's own `uniform` walks the
    topics in topic-id order and its balance depends on that order, so the same group
    under other ids may come out less even (Hypothesis found one: 9 members over topics
    of 9, 11 and 9 partitions, one member left without a partition by our stand-in order
    where Kafka's real ids gave everyone one). Equality given the ids is checked above.
    """
    counts, subscriptions, previous, ids = group
    ours = assign(strategy, counts, subscriptions, previous, protocol=PROTOCOL_OF[strategy])
    theirs = kafka_oracle.server_assign(strategy, counts, subscriptions, previous, topic_ids=ids)
    assert sorted(Counter({m: len(t) for m, t in ours.items()}).values()) == sorted(
        Counter({m: len(t) for m, t in theirs.items()}).values()
    )
    assert _moves(previous, ours) <= _moves(previous, theirs)


@examples(150)
@given(
    capacity=st.sampled_from([1, 4, 6, 16, 27, 64]),
    steps=st.lists(
        st.tuples(
            st.sampled_from(["put", "compute", "compute", "remove"]),
            st.one_of(
                st.integers(0, 300),
                st.integers(0, 40).map(lambda i: 16 * i),  # one bucket of a small table
                st.integers(-(2**31), 2**31 - 1),
            ),
        ),
        max_size=120,
    ),
)
@example(capacity=1, steps=[("put", 0), ("compute", 2), ("compute", 0)])  # grows, key present
def test_hash_table_with_compute_if_absent_is_javas(
    kafka_oracle: JavaOracle, capacity: int, steps: list[tuple[str, int]]
) -> None:
    """``JavaHashTable`` against ``java.util.HashMap<Integer, ?>``: ``put`` appends to a
    bucket's chain, ``computeIfAbsent`` links at its head and grows a table at another
    moment; long chains grow small tables (trees in large ones are not emulated)."""
    table: JavaHashTable[int] = JavaHashTable(int_hash, initial_capacity=capacity)
    for op, key in steps:
        {"put": table.add, "compute": table.compute_if_absent, "remove": table.remove}[op](key)
    assume(not table.treeified)
    assert table.order() == kafka_oracle.int_map_order(steps, capacity=capacity)
