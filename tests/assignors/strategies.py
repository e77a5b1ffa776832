"""Hypothesis strategies: random groups, subscriptions and previous ownership."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from planner.assignors._topic_ids import TopicId

# Legal Kafka topic characters, so Java and Python agree on topic order.
TOPIC_NAMES = st.text(alphabet="abcxyz.-_09", min_size=1, max_size=3)
# ASCII ids compare the same in Java, librdkafka and kafka-python; the wide alphabet
# brings in ids where Python's code-point order and Java's UTF-16 order disagree.
ASCII_IDS = st.text(alphabet="abcC019-", min_size=1, max_size=4)
WIDE_IDS = st.text(alphabet="ab1\u00e9\ue000\uffff\U0001f600\U00010000", min_size=1, max_size=3)
# Characters a JSON or shell layer could trip on (quote, backslash, NUL, line separator).
ODD_IDS = st.text(alphabet=' \t"\\\x00\u00df\u2028-.:/', min_size=1, max_size=4)
# Java String.hashCode collisions ("Aa" and "BB" both hash to 2112) and ids whose Java
# HashMap order differs from their sorted order: they share buckets in Kafka's HashMaps.
COLLIDING_IDS = st.sampled_from(
    ["Aa", "BB", "AaAa", "AaBB", "BBAa", "BBBB", "consumer-1", "consumer-10", "consumer-2"]
)
MEMBER_IDS = st.one_of(ASCII_IDS, WIDE_IDS, ODD_IDS, COLLIDING_IDS)
BROKER_MEMBER_IDS = st.one_of(ASCII_IDS, COLLIDING_IDS)
# Topic names whose Java hashes share bucket 0 of a 16-bucket HashSet<String>, four from each
# bucket of a 64-bucket one (Java's String.hashCode, spread as HashMap spreads it): nine of
# them in one set double it (a chain of nine in a table under 64 buckets), twice if they
# still share a bucket, and the grown table's order is not their sorted order. "zz" (bucket
# 0) and "b" (bucket 2) differ from sorted order without a collision.
COLLIDING_TOPIC_NAMES = [
    *("orders-bp", "orders-b0", "orders-dr", "orders-d2"),  # bucket 0 of 64
    *("orders-db", "orders-fd", "orders-hf", "orders-jh"),  # bucket 16
    *("orders-ao", "orders-cq", "orders-c1", "orders-es"),  # bucket 32
    *("orders-ca", "orders-ec", "orders-ge", "orders-ig"),  # bucket 48
    "zz",
    "b",
]
TOPIC_IDS = st.binary(min_size=16, max_size=16).map(lambda raw: str(TopicId.from_bytes(raw)))
# Topic ids whose Uuid.hashCode() is 16 * k: all in bucket 0 of a 16-bucket HashSet<Uuid>,
# so the order the set is filled in decides their order (k > 0: Kafka reserves 0 and 1).
COLLIDING_TOPIC_IDS = st.integers(1, 4095).map(lambda k: str(TopicId(0, 16 * k)))


@dataclass(frozen=True)
class Group:
    partitions_per_topic: dict[str, int]
    subscriptions: dict[str, list[str]]
    previous: dict[str, list[tuple[str, int]]] | None

    @property
    def identical(self) -> bool:
        return len({frozenset(t) for t in self.subscriptions.values()}) <= 1


#: `KAFKA_ORACLE_SCALE=N` runs N times the examples of every differential test.
SCALE = max(1, int(os.environ.get("KAFKA_ORACLE_SCALE", "1")))

Plain = dict[str, list[tuple[str, int]]]


def examples(count: int) -> settings:
    """Hypothesis settings for `count` examples (times `SCALE`), no deadline: a JVM
    round trip per example."""
    return settings(
        max_examples=count * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def plain(result: Mapping[str, Sequence[tuple[str, int]]]) -> Plain:
    """Member -> sorted ``(topic, partition)`` tuples, comparable across both sides."""
    return {m: sorted((t, p) for t, p in tps) for m, tps in result.items()}


@st.composite
def groups(
    draw: st.DrawFn,
    *,
    ids: st.SearchStrategy[str] = ASCII_IDS,
    identical: bool | None = None,
    with_previous: bool = True,
    messy_previous: bool = True,
    vanished: bool = True,
    max_members: int = 7,
    max_partitions: int = 9,
) -> Group:
    """A random group.

    Args:
        draw: Hypothesis draw function.
        ids: Member id strategy.
        identical: Force identical (True) or let subscriptions vary (None); False asks
            for at least two different subscriptions.
        with_previous: Draw a previous assignment.
        messy_previous: Let it hold invalid claims (double claims, gone partitions,
            members that left, topics no longer subscribed).
        vanished: With ``messy_previous``, also claims on a partition number beyond its
            topic's partition count (claims on topics with 0 partitions are kept either way).
        max_members: Largest group size.
        max_partitions: Largest partition count of a topic.
    """
    topics = draw(st.lists(TOPIC_NAMES, min_size=1, max_size=4, unique=True))
    partitions = {t: draw(st.integers(0 if messy_previous else 1, max_partitions)) for t in topics}
    members = draw(st.lists(ids, min_size=1, max_size=max_members, unique=True))
    pool = [*topics, "ghost"] if messy_previous else topics
    if identical:
        shared = draw(st.lists(st.sampled_from(pool), min_size=1, unique=True))
        subscriptions = {m: list(shared) for m in members}
    else:
        subscriptions = {
            m: draw(st.lists(st.sampled_from(pool), min_size=1, unique=True)) for m in members
        }
        if identical is False and len({frozenset(s) for s in subscriptions.values()}) < 2:
            subscriptions[members[0]] = (
                [pool[0]] if subscriptions[members[0]] != [pool[0]] else pool[:]
            )
            if len({frozenset(s) for s in subscriptions.values()}) < 2:
                subscriptions["extra-member"] = ["ghost-2"]
    previous: dict[str, list[tuple[str, int]]] | None = None
    if with_previous and draw(st.booleans()):
        owners = [*members, "left-member"] if messy_previous else list(members)
        previous = {}
        for topic in topics:
            beyond = messy_previous and (vanished or not partitions[topic])
            for partition in range(partitions[topic] + (1 if beyond else 0)):
                n_claims = draw(st.sampled_from([0, 1, 1, 1, 2] if messy_previous else [0, 1, 1]))
                n_claims = min(n_claims, len(owners))
                claimants = draw(
                    st.lists(
                        st.sampled_from(owners), min_size=n_claims, max_size=n_claims, unique=True
                    )
                )
                for owner in claimants:
                    previous.setdefault(owner, []).append((topic, partition))
    return Group(partitions, subscriptions, previous)


def has_vanished_claims(group: Group) -> bool:
    """Some claim names a partition number beyond its (existing) topic's partition count."""
    return any(
        partition >= group.partitions_per_topic.get(topic, 0) > 0
        for claims in (group.previous or {}).values()
        for topic, partition in claims
    )


@st.composite
def vanished_groups(draw: st.DrawFn, *, ids: st.SearchStrategy[str] = MEMBER_IDS) -> Group:
    """A messy group where some member claims a partition number beyond its topic's count
    (a topic deleted and recreated with fewer partitions)."""
    group = draw(groups(ids=ids))
    partitions = dict(group.partitions_per_topic)
    topic = draw(st.sampled_from(sorted(partitions)))
    partitions[topic] = max(partitions[topic], 1)
    previous = {m: list(tps) for m, tps in (group.previous or {}).items()}
    claimant = draw(st.sampled_from([*group.subscriptions, "left-member"]))
    beyond = partitions[topic] + draw(st.integers(0, 2))
    previous.setdefault(claimant, []).append((topic, beyond))
    return Group(partitions, group.subscriptions, previous)


@st.composite
def skewed_groups(
    draw: st.DrawFn,
    *,
    ids: st.SearchStrategy[str] = MEMBER_IDS,
    max_members: int = 14,
    max_partitions: int = 24,
) -> Group:
    """A group whose previous owners are a few heavy members: long balancing runs.

    Subscriptions differ at random; most partitions were owned by one to three members,
    some by anyone (including a member that left), some by nobody.
    """
    topics = draw(st.lists(TOPIC_NAMES, min_size=2, max_size=5, unique=True))
    partitions = {t: draw(st.integers(1, max_partitions)) for t in topics}
    members = draw(st.lists(ids, min_size=3, max_size=max_members, unique=True))
    subscriptions = {
        m: draw(st.lists(st.sampled_from(topics), min_size=1, unique=True)) for m in members
    }
    heavy = draw(st.lists(st.sampled_from(members), min_size=1, max_size=3, unique=True))
    previous: dict[str, list[tuple[str, int]]] = {}
    for topic in topics:
        for partition in range(partitions[topic]):
            roll = draw(st.integers(0, 9))
            if roll == 9:
                continue
            pool = heavy if roll < 6 else [*members, "left-member"]
            previous.setdefault(draw(st.sampled_from(pool)), []).append((topic, partition))
    return Group(partitions, subscriptions, previous)


@st.composite
def changed_groups(
    draw: st.DrawFn,
    *,
    identical: bool | None = None,
    ids: st.SearchStrategy[str] = MEMBER_IDS,
    max_members: int = 9,
    max_partitions: int = 16,
) -> Group:
    """A settled group after a change: members joined or left, partitions were added,
    subscriptions changed. ``previous`` is the sticky assignment before the change."""
    from planner.assignors import assign

    before = draw(
        groups(
            ids=ids,
            identical=identical,
            with_previous=False,
            messy_previous=False,
            max_members=max_members,
            max_partitions=max_partitions,
        )
    )
    settled = assign("sticky", before.partitions_per_topic, before.subscriptions)
    previous = {m: [tuple(tp) for tp in tps] for m, tps in settled.items()}
    partitions = dict(before.partitions_per_topic)
    subscriptions = dict(before.subscriptions)
    topics = list(partitions)
    for topic in draw(st.lists(st.sampled_from(topics), unique=True)):
        partitions[topic] += draw(st.integers(1, 4))
    members = list(subscriptions)
    leaving = draw(st.lists(st.sampled_from(members), max_size=len(members) - 1, unique=True))
    for member in leaving:
        del subscriptions[member]
    for joiner in draw(st.lists(ids, max_size=3, unique=True)):
        if joiner in subscriptions or joiner in previous:
            continue
        if identical:
            subscriptions[joiner] = list(next(iter(subscriptions.values())))
        else:
            subscriptions[joiner] = draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
    if not identical and draw(st.booleans()):
        member = draw(st.sampled_from(sorted(subscriptions)))
        subscriptions[member] = draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
    return Group(partitions, subscriptions, previous)  # type: ignore[arg-type]


BrokerGroup = tuple[
    dict[str, int], dict[str, list[str]], dict[str, list[tuple[str, int]]] | None, dict[str, str]
]


@st.composite
def broker_groups(
    draw: st.DrawFn,
    *,
    shared: bool,
    identical: bool | None = None,
    max_partitions: int = 24,
    max_topics: int = 4,
    names: st.SearchStrategy[str] = TOPIC_NAMES,
    topic_ids: st.SearchStrategy[str] = TOPIC_IDS,
) -> BrokerGroup:
    """A group for the broker-side assignors: partition counts, subscriptions (a ``ghost``
    topic among them), the previous target assignment (None: fresh) and real topic ids.

    Args:
        draw: Hypothesis draw function.
        shared: A share group (a partition may be in several members' targets).
        identical: Force identical subscriptions (True), or draw them (None).
        max_partitions: Largest partition count of a topic.
        max_topics: Most topics.
        names: Topic name strategy.
        topic_ids: Topic id strategy (base64), drawn unique.
    """
    topics = draw(st.lists(names, min_size=1, max_size=max_topics, unique=True))
    counts = {t: draw(st.integers(1, max_partitions)) for t in topics}
    ids = dict(
        zip(
            topics,
            draw(st.lists(topic_ids, min_size=len(topics), max_size=len(topics), unique=True)),
            strict=True,
        )
    )
    members = draw(
        st.lists(BROKER_MEMBER_IDS, min_size=1, max_size=9 if not shared else 14, unique=True)
    )
    pool = [*topics, "ghost"]
    if identical if identical is not None else draw(st.booleans()):
        chosen = draw(st.lists(st.sampled_from(pool), min_size=1, unique=True))
        subscriptions = {m: list(chosen) for m in members}
    else:
        subscriptions = {
            m: draw(st.lists(st.sampled_from(pool), min_size=1, unique=True)) for m in members
        }
    previous: dict[str, list[tuple[str, int]]] | None = None
    if draw(st.booleans()):
        owners = [*members, "left-member"]
        previous = {}
        for topic in topics:
            for partition in range(counts[topic]):
                if shared:
                    holders = draw(st.lists(st.sampled_from(owners), max_size=3, unique=True))
                else:
                    holders = draw(st.lists(st.sampled_from(owners), max_size=1))
                for owner in holders:
                    previous.setdefault(owner, []).append((topic, partition))
    return counts, subscriptions, previous, ids
