"""Closed forms of the broker-side assignors for a fresh group with identical subscriptions.

The planning grid asks ``uniform``, the consumer protocol's ``range`` and ``simple`` for
every candidate group size of a fresh group whose members all read the same topics. There
the coordinator's tables hold nothing yet, and each assignor reduces to a formula over the
members in hash order (or Java order) and the partitions in the order Kafka walks them:

* ``uniform``: consecutive slices of the partitions (topics in ``HashSet<Uuid>`` order, ids
  sharing a bucket in the order of the members' ``HashSet`` of topic names),
  the last ``T mod M`` members in hash order one partition more;
* ``range``: each topic cut into consecutive ranges over the members in Java order;
* ``simple``: one pass over the partitions in the order of a ``HashMap`` filled with
  ``computeIfAbsent``, handing each to ``sharing`` members short of partitions, cycling.

Each function returns None when its shortcut does not apply (a previous assignment, static
members, different subscriptions); the caller then takes the general path, which the tests
prove gives the same result wherever the shortcut applies.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, compress, repeat
from operator import sub

from planner.assignors._java_hashing import (
    JavaHashTable,
    capacity_for_copy,
    capacity_for_expected,
    hash_map_order,
    table_size_for,
)
from planner.assignors._members import (
    Assignment,
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
    TopicPartition,
    check_partitions_per_topic,
    normalise_subscriptions,
    prepare,
    sorted_java,
    topic_partitions,
)
from planner.assignors._server_group import kept_targets, plain_clean_targets, subscribed_topics
from planner.assignors._topic_ids import TopicId, TopicIds, resolve_topic_ids

_MASK32 = 0xFFFFFFFF
_TREEIFY_CHAIN = 8


@dataclass(frozen=True)
class FreshGroup:
    """A fresh group whose members all subscribe to the same topic names.

    Attributes:
        given: Member ids in the order given (the order of the result).
        topics: The subscribed topics that exist, in the order of the coordinator's set of
            topic names (:func:`~planner.assignors._server_group.subscribed_order`).
        names: How many topic names each member subscribes to, existing or not.
        partitions: Topic -> partition count (existing topics only).
        ids: Topic -> its id (given or stand-in) for each topic of ``topics``.
    """

    given: list[str]
    topics: list[str]
    names: int
    partitions: dict[str, int]
    ids: dict[str, TopicId]

    def empty(self) -> Assignment:
        """Every member without partitions."""
        return {m: [] for m in self.given}


def fresh_group(
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None,
    *,
    topic_ids: TopicIds | None,
    instance_ids: Mapping[str, str] | None,
    reads_previous: bool = True,
) -> FreshGroup | None:
    """The group if the shortcut applies, else None (the inputs are checked either way
    by the general path's rules).

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics.
        previous: The previous target assignment; the shortcut needs none unless
            ``reads_previous`` is False (the broker's ``range``, which only checks it).
        topic_ids: Topic -> Kafka topic id.
        instance_ids: Static members; the shortcut needs none.
        reads_previous: Whether the assignor reads the previous target.

    Raises:
        TypeError: Malformed inputs.
        ValueError: A negative partition count, a malformed topic id, (consumer protocol)
            a partition in two members' previous targets.
    """
    given_previous = previous is not None and not (isinstance(previous, Mapping) and not previous)
    if given_previous and reads_previous:
        return None
    if instance_ids is not None and not (isinstance(instance_ids, Mapping) and not instance_ids):
        return None
    # The general path's checks in its order; it takes over where they do not pass.
    check_partitions_per_topic(partitions_per_topic)
    subs = normalise_subscriptions(subscriptions)
    distinct = set(subs.values())
    if len(distinct) != 1:
        return None
    counts = dict(partitions_per_topic)
    subscribed = distinct.pop()
    existing = subscribed_topics(subscribed, counts)
    seen = set(existing)
    if given_previous:  # checked as the general path checks it, then not read
        positive = {t: n for t, n in counts.items() if n > 0}
        clean = plain_clean_targets(previous, subs, positive, shared=False)  # type: ignore[arg-type]
        if clean is None:
            _, _, prev = prepare(partitions_per_topic, subscriptions, previous)
            kept = kept_targets(prev or {}, subs, positive, shared=False)
            seen.update(t for per_topic in kept.values() for t in per_topic)
        else:
            seen.update(clean[1])
    if topic_ids is not None and not isinstance(topic_ids, Mapping):
        raise TypeError("topic_ids must map topic names to topic ids")
    known = None if topic_ids is None else {t: i for t, i in topic_ids.items() if t in seen}
    return FreshGroup(
        given=list(subs),
        topics=existing,
        names=len(subscribed),
        partitions={t: counts[t] for t in existing},
        ids=resolve_topic_ids(sorted_java(seen), known),
    )


def _sorted_lists(
    given: list[str], chosen: dict[str, list[TopicPartition]], *, several_topics: bool
) -> Assignment:
    if several_topics:
        return {m: sorted(chosen.get(m, ())) for m in given}
    return dict(zip(given, map(chosen.__getitem__, given), strict=True))  # all members have one


def uniform(group: FreshGroup) -> Assignment:
    """``uniform``'s homogeneous builder on a fresh group."""
    if not group.topics:
        return group.empty()
    members = hash_map_order(group.given)
    if len(group.topics) == 1:
        flat = topic_partitions(group.topics[0], group.partitions[group.topics[0]])
    else:
        table: JavaHashTable[str] = JavaHashTable(
            lambda t: group.ids[t].java_hash(),
            initial_capacity=capacity_for_copy(group.names),
        )
        for topic in group.topics:
            table.add(topic)
        flat = tuple(tp for t in table.order() for tp in topic_partitions(t, group.partitions[t]))
    quota, extra = divmod(len(flat), len(members))
    # The first M - extra members in hash order get `quota` partitions, the rest one more:
    # consecutive slices, cut at C speed.
    bounds = list(accumulate(chain(repeat(quota, len(members) - extra), repeat(quota + 1, extra))))
    partitions = list(flat)
    slices = map(partitions.__getitem__, map(slice, [0, *bounds], bounds))
    chosen = dict(zip(members, slices, strict=True))
    return _sorted_lists(group.given, chosen, several_topics=len(group.topics) > 1)


def consumer_range(group: FreshGroup) -> Assignment:
    """The broker's ``range`` without static members: each topic cut over the members in
    Java order, the first ``P mod M`` one partition more."""
    members = sorted_java(group.given)
    if len(group.topics) == 1:  # the planning grid's case: slices cut at C speed
        partitions = list(topic_partitions(group.topics[0], group.partitions[group.topics[0]]))
        per_member, extra = divmod(len(partitions), len(members))
        sizes = chain(repeat(per_member + 1, extra), repeat(per_member, len(members) - extra))
        bounds = list(accumulate(sizes))
        slices = map(partitions.__getitem__, map(slice, [0, *bounds], bounds))
        return _sorted_lists(
            group.given, dict(zip(members, slices, strict=True)), several_topics=False
        )
    chosen: dict[str, list[TopicPartition]] = {m: [] for m in members}
    for topic in group.topics:
        tps = topic_partitions(topic, group.partitions[topic])
        per_member, extra = divmod(len(tps), len(members))
        for i, member_id in enumerate(members[: len(tps)]):
            start = per_member * i + min(i, extra)
            chosen[member_id] += tps[start : start + per_member + (i < extra)]
    return _sorted_lists(group.given, chosen, several_topics=len(group.topics) > 1)


def simple(group: FreshGroup) -> Assignment:
    """``simple``'s homogeneous builder on a fresh group."""
    targets = [tp for t in group.topics for tp in topic_partitions(t, group.partitions[t])]
    if not targets:
        return group.empty()
    members = hash_map_order(group.given)
    count = len(members)
    sharing = -(-count // len(targets))
    precise = sharing * len(targets) / count  # Kafka's double arithmetic
    ceilings = list(map(math.ceil, map(precise.__mul__, range(count + 1))))
    desired = list(map(sub, ceilings[1:], ceilings))
    walk = _walk(targets, group)
    held = _slots_closed_form(walk, sharing, desired)
    if held is None:
        held = _slots_simulated(walk, sharing, desired)
    chosen = {members[m]: [targets[i] for i in sorted(held[m])] for m in range(count)}
    return _sorted_lists(group.given, chosen, several_topics=len(group.topics) > 1)


def _slots_closed_form(
    walk: tuple[int, ...], sharing: int, desired: list[int]
) -> list[list[int]] | None:
    """Each member's partitions (indices of the targets) handed out by Kafka's pass over
    a fresh group, when no partition is handed to one member twice; else None.

    The pass walks the partitions, ``sharing`` slots each, and fills the slots from the
    members in index order, cycling; a member leaves the cycle once it holds its desired
    count. With desired counts ``lo`` or ``lo + 1`` the slots read ``0..M-1`` ``lo`` times,
    then the members desiring ``lo + 1``: slot ``p`` belongs to partition ``p // sharing``
    of the walk. Only the window of slots straddling the two parts can name one member
    twice (then Kafka gives the partition once and the sequence shifts).
    """
    count = len(desired)
    lo = min(desired)
    if lo < 1 or max(desired) > lo + 1:
        return None
    extras = list(compress(range(count), map(lo.__lt__, desired)))
    slots = sharing * len(walk)
    boundary = lo * count
    if boundary % sharing and boundary < slots:
        start = boundary - boundary % sharing
        window = [m % count for m in range(start, boundary)]
        window += extras[: min(start + sharing, slots) - boundary]
        if len(set(window)) != len(window):
            return None
    # Slot p belongs to partition p // sharing of the walk; member m takes slots m,
    # m + M, ... below the boundary (cut at C speed).
    owner = (
        list(walk)
        if sharing == 1
        else list(chain.from_iterable(zip(*[walk] * sharing, strict=True)))
    )
    held = list(map(owner.__getitem__, map(slice, range(count), repeat(boundary), repeat(count))))
    for rank, member in enumerate(extras):
        if boundary + rank < slots:
            held[member].append(owner[boundary + rank])
    return held


def _slots_simulated(walk: tuple[int, ...], sharing: int, desired: list[int]) -> list[list[int]]:
    """Kafka's pass over a fresh group, slot by slot (see :func:`_slots_closed_form`)."""
    count = len(desired)
    held: list[list[int]] = [[] for _ in range(count)]
    # A fresh group's partitions are all short of `sharing` members, and every member
    # short of at least one partition. Kafka checks who holds a partition against the
    # holders from before this pass (none), so a member cycled to twice for one partition
    # just takes it once: only the partition it took last can repeat.
    live = [desired[m] > 0 for m in range(count)]
    left = sum(live)
    snapshot = [m for m in range(count) if live[m]]
    position = 0
    assigned_this_cycle = False
    for key in walk:
        to_make = sharing
        while to_make > 0:
            if position >= len(snapshot):
                if not assigned_this_cycle:
                    break
                snapshot = [m for m in snapshot if live[m]]  # still in index order
                position = 0
                assigned_this_cycle = False
            member = snapshot[position]
            position += 1
            mine = held[member]
            if not mine or mine[-1] != key:
                mine.append(key)
            to_make -= 1
            assigned_this_cycle = True
            if live[member] and len(mine) >= desired[member]:
                live[member] = False
                left -= 1
        if not left:
            break
    return held


def _walk(targets: list[TopicPartition], group: FreshGroup) -> tuple[int, ...]:
    """Indices of ``targets`` in the iteration order of Kafka's partition map: a
    ``HashMap<TopicIdPartition, ...>`` sized for them and filled in target order with
    ``computeIfAbsent``, which links each new key at the head of its bucket."""
    key = tuple((group.ids[t].java_hash(), group.partitions[t]) for t in group.topics)
    return _walk_order(key)


@lru_cache(maxsize=1024)  # a planning grid walks the same topics for every group size
def _walk_order(topics: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """The walk of :func:`_walk` for topics given as (topic-id hash, partition count)."""
    hashes = [(31 * h + p) & _MASK32 for h, count in topics for p in range(count)]
    capacity = table_size_for(capacity_for_expected(len(hashes)))
    mask = capacity - 1
    buckets = [(h ^ (h >> 16)) & mask for h in hashes]
    # The table is sized so it never grows with its size; only a chain of 8 in a table of
    # fewer than 64 buckets would grow it (or turn it into a tree): replay Java's table then.
    if len(topics) > 1 and max(Counter(buckets).values()) >= _TREEIFY_CHAIN:
        table: JavaHashTable[int] = JavaHashTable(
            hashes.__getitem__, initial_capacity=capacity_for_expected(len(hashes))
        )
        for k in range(len(hashes)):
            table.compute_if_absent(k)
        return tuple(table.order())
    return tuple(sorted(range(len(hashes)), key=lambda k: (buckets[k], -k)))


# Follows Apache Kafka 4.4.0's org.apache.kafka.coordinator.group.assignor
# UniformHomogeneousAssignmentBuilder, RangeAssignor (KIP-848) and
# SimpleHomogeneousAssignmentBuilder (KIP-932) on a group without a previous target.
