"""Fast paths of ``uniform`` and ``simple`` for a group that has a previous target assignment.

The planning grid's rebalances (a group grown or shrunk by a member) ask the broker-side
assignors again with the previous target as input. Kafka's builders then walk Java hash
tables, whose orders the general path replays entry by entry. Where every member
subscribes to the same topics and the previous target is *clean* (each partition exists,
is subscribed to, and is held once, or for a share group once per member), most of those
orders decide nothing:

* ``uniform``: a member keeps all it held while that fits its quota, whatever the order
  of its ``HashSet``; only a member that gives partitions up needs its replayed order;
* ``simple``: the partition map Kafka walks holds one partition per bucket for most topic
  layouts (then its order is the bucket order, whatever the insertion order); a member's
  own table needs its order only when the member gives partitions up, and that order is
  the bucket order, then the replay order within a bucket (replayed only for members
  whose partitions share a bucket).

``simple`` handles partitions as indices into all the group's partitions in (topic,
partition) order, so each member's list sorts as integers; ``uniform`` keeps the
previous target's TopicPartitions, which most members keep whole. Each function returns
None when a shortcut does not apply; the caller then takes the general path, which the
tests prove gives the same result wherever these apply.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, compress, filterfalse, repeat
from operator import gt, itemgetter, lt, sub

from planner.assignors._java_hashing import (
    JavaHashTable,
    capacity_for_copy,
    capacity_for_expected,
    hash_map_order,
    int_hash,
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
    topic_partitions,
)
from planner.assignors._server_group import (
    clean_targets,
    int_set_order,
    plain_clean_targets,
    subscribed_topics,
)
from planner.assignors._topic_ids import TopicId, TopicIds, resolve_topic_ids

_MASK32 = 0xFFFFFFFF
_INITIAL_CAPACITY = 16
_TREEIFY_CHAIN = 8  # a ninth entry in one bucket of a table under 64 buckets grows it
_PARTITION = itemgetter(1)
_SEQUENCES = {list, tuple}


@dataclass(frozen=True)
class GrownGroup:
    """A group whose members all subscribe to the same topics, with a clean previous target.

    Attributes:
        given: Member ids in the order given (the order of the result).
        members: Member ids in the coordinator's ``HashMap`` iteration order.
        topics: The subscribed topics that exist, in the order of the coordinator's set of
            topic names (:func:`~planner.assignors._server_group.subscribed_order`).
        names: How many topic names each member subscribes to, existing or not.
        partitions: Topic -> partition count (existing topics only).
        ids: Topic -> its id (given or stand-in).
        previous: Member id -> its previous target partitions, in the order given, for
            the members still in the group (all on ``topics``, none twice per member).
        offsets: Topic -> the index of its partition 0 among all the group's partitions
            taken in (topic, partition) order.
        all_partitions: All the group's partitions in that order.
        held_once: No partition is in two members' previous targets.
    """

    given: list[str]
    members: list[str]
    topics: list[str]
    names: int
    partitions: dict[str, int]
    ids: dict[str, TopicId]
    previous: dict[str, list[tuple[str, int]]]
    offsets: dict[str, int]
    all_partitions: tuple[TopicPartition, ...]
    held_once: bool

    def indices(self, owned: list[tuple[str, int]]) -> list[int]:
        """Partitions as indices into :attr:`all_partitions`, in the order given."""
        if len(self.topics) == 1:
            return list(map(_PARTITION, owned))
        offsets = self.offsets
        return [offsets[t] + p for t, p in owned]

    def replayed(self, owned: list[tuple[str, int]]) -> list[int]:
        """A member's partitions (indices) in the order the coordinator's replay of its
        target iterates them: topics in ``HashMap<Uuid, ...>`` order, partitions in
        ``HashSet<Integer>`` order."""
        per_topic: dict[str, list[int]] = {}
        for topic, partition in owned:
            per_topic.setdefault(topic, []).append(partition)
        if len(per_topic) > 1:
            table: JavaHashTable[str] = JavaHashTable(lambda t: self.ids[t].java_hash())
            for topic in per_topic:
                table.add(topic)
            per_topic = {t: per_topic[t] for t in table.order()}
        offsets = self.offsets
        return [offsets[t] + p for t, ps in per_topic.items() for p in int_set_order(ps)]

    def result(self, chosen: Mapping[str, Collection[int]]) -> Assignment:
        """Member -> sorted TopicPartitions, every member in the order given."""
        tps = self.all_partitions
        return {m: [tps[i] for i in sorted(chosen.get(m, ()))] for m in self.given}


def grown_group(
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None,
    *,
    topic_ids: TopicIds | None,
    shared: bool,
) -> GrownGroup | None:
    """The group if a fast path applies, else None (then nothing of the inputs was
    consumed: the previous target must map members to lists or tuples).

    Raises:
        TypeError: Malformed inputs, as the general path raises them.
        ValueError: A negative partition count or a malformed topic id, likewise.
    """
    if not isinstance(previous, Mapping) or not previous:
        return None
    if not set(map(type, previous.values())) <= _SEQUENCES:
        return None  # iterators: read once, by the general path
    # The general path's checks in its order; a failing one raises, or hands over to it.
    check_partitions_per_topic(partitions_per_topic)
    subs = normalise_subscriptions(subscriptions)
    distinct = set(subs.values())
    if len(distinct) != 1:
        return None
    subscribed = distinct.pop()
    topics = subscribed_topics(subscribed, partitions_per_topic)
    positive = {t: partitions_per_topic[t] for t in topics}
    clean = plain_clean_targets(previous, subs, positive, shared=shared)
    if clean is None:  # not plain TopicPartitions (or not clean): checked entry by entry
        _, _, prev = prepare(partitions_per_topic, subscriptions, previous)
        clean = None if prev is None else clean_targets(prev, subs, positive, shared=shared)
        if clean is None:
            return None
    kept, _, held_once = clean
    if topic_ids is not None and not isinstance(topic_ids, Mapping):
        raise TypeError("topic_ids must map topic names to topic ids")
    seen = set(topics)
    known = None if topic_ids is None else {t: i for t, i in topic_ids.items() if t in seen}
    ids = resolve_topic_ids(topics, known)
    offsets: dict[str, int] = {}
    flat: list[TopicPartition] = []
    for topic in sorted(topics):  # Python's order: the order of sorted TopicPartitions
        offsets[topic] = len(flat)
        flat += topic_partitions(topic, positive[topic])
    return GrownGroup(
        given=list(subs),
        members=hash_map_order(subs),
        topics=topics,
        names=len(subscribed),
        partitions=positive,
        ids=ids,
        previous=kept,
        offsets=offsets,
        all_partitions=tuple(flat),
        held_once=held_once,
    )


def uniform(group: GrownGroup) -> Assignment:
    """``uniform``'s homogeneous builder with a clean previous target."""
    if not group.topics:
        return group.result({})
    members = group.members
    topic_order = group.topics
    if len(topic_order) > 1:
        table: JavaHashTable[str] = JavaHashTable(
            lambda t: group.ids[t].java_hash(),
            initial_capacity=capacity_for_copy(group.names),
        )
        for topic in topic_order:
            table.add(topic)
        topic_order = table.order()
    # Partitions as TopicPartitions here (each member's previous target already holds
    # them): most members keep theirs whole, and their lists then need no conversion.
    tps = group.all_partitions
    previous = group.previous
    held = set(group.indices(list(chain.from_iterable(previous.values()))))
    unassigned: list[TopicPartition] = []
    for topic in topic_order:
        start = group.offsets[topic]
        free = filterfalse(held.__contains__, range(start, start + group.partitions[topic]))
        unassigned += map(tps.__getitem__, free)
    quota_min, extra = divmod(len(tps), len(members))
    chosen: dict[str, list[TopicPartition]] = {}
    unfilled: list[tuple[str, int]] = []
    for index, member_id in enumerate(members):
        quota = quota_min + (extra > 0)
        owned = previous.get(member_id)
        if not owned:
            kept: list[TopicPartition] = []
        elif len(owned) <= quota:
            # Every topic's partitions fit: the order Kafka walks them decides nothing.
            quota -= len(owned)
            kept = owned  # type: ignore[assignment]  # TopicPartitions, checked on input
        else:
            replayed = group.replayed(owned)
            if len(group.topics) == 1:
                keep, give_up = replayed[:quota], replayed[quota:]
            else:
                keep, give_up = _cut_by_topic(group, owned, replayed, quota)
            kept = [tps[i] for i in keep]
            unassigned += [tps[i] for i in give_up]
            quota = 0
        quota, extra = uniform_quota_left(quota, extra, len(members) - index)
        if quota > 0:
            unfilled.append((member_id, quota))
        chosen[member_id] = kept
    index = 0
    for member_id, quota in unfilled:
        chosen[member_id] = chosen[member_id] + unassigned[index : index + quota]
        index += quota
    if index < len(unassigned):  # Kafka throws too; the quotas always cover every partition
        raise AssertionError("uniform left partitions unassigned")
    return {m: sorted(chosen[m]) for m in group.given}


def _cut_by_topic(
    group: GrownGroup, owned: list[tuple[str, int]], replayed: list[int], quota: int
) -> tuple[list[int], list[int]]:
    """Kafka keeps a topic's partitions whole while they fit the quota, cuts the first
    topic that does not fit, and gives up every later one."""
    topic_of = {group.offsets[t] + p: t for t, p in owned}
    kept: list[int] = []
    given_up: list[int] = []
    run: list[int] = []
    for position, index in enumerate(replayed):
        run.append(index)
        last = position + 1 == len(replayed) or topic_of[replayed[position + 1]] != topic_of[index]
        if last:
            if len(run) <= quota:
                quota -= len(run)
                kept += run
            else:
                kept += run[:quota]
                given_up += run[quota:]
                quota = 0
            run = []
    return kept, given_up


def simple(group: GrownGroup) -> Assignment | None:
    """``simple``'s homogeneous builder with a clean previous target, or None where the
    partition map's order would depend on the order partitions entered it."""
    total = len(group.all_partitions)
    if not total:
        return group.result({})
    layout = _layout(
        tuple(
            (group.ids[t].java_hash(), group.offsets[t], group.partitions[t]) for t in group.topics
        )
    )
    if layout is None:
        return None
    spreads, walk = layout
    members = group.members
    count = len(members)
    sharing = -(-count // total)
    precise = sharing * total / count  # Kafka's double arithmetic
    ceilings = list(map(math.ceil, map(precise.__mul__, range(count + 1))))
    desired = list(map(sub, ceilings[1:], ceilings))
    previous = group.previous.get
    if len(group.topics) == 1:
        indices_of = [list(map(_PARTITION, previous(m, ()))) for m in members]
    else:
        indices_of = [group.indices(previous(m) or []) for m in members]
    sizes = list(map(len, indices_of))
    # Partition index -> the members holding it, in member order; none: no entry.
    holders: dict[int, tuple[int, ...]] = {}
    if group.held_once:
        for member, indices in enumerate(indices_of):
            holders.update(zip(indices, repeat((member,))))
    else:
        lists: dict[int, list[int]] = {}
        for member, indices in enumerate(indices_of):
            for index in indices:
                lists.setdefault(index, []).append(member)
        holders = {i: tuple(ms) for i, ms in lists.items()}
    over_shared = {} if group.held_once else {i: h for i, h in holders.items() if len(h) > sharing}
    unfilled = set(compress(range(count), map(lt, sizes, desired)))
    holdings: dict[int, set[int]] = {}  # the members whose partitions changed

    def holding(member: int) -> set[int]:
        mine = holdings.get(member)
        if mine is None:
            mine = holdings[member] = set(indices_of[member])
        return mine

    for member in compress(range(count), map(gt, sizes, desired)):  # index order
        surplus = sizes[member] - desired[member]
        owned = group.previous[members[member]]
        for index in _member_order(group, owned, spreads)[:surplus]:
            holding(member).discard(index)
            _drop(holders, index, member)
    if over_shared:
        rank = {index: position for position, index in enumerate(walk)}
        for index in sorted(over_shared, key=rank.__getitem__):
            current = holders.get(index, ())
            if len(current) <= sharing:
                continue
            table: JavaHashTable[int] = JavaHashTable(int_hash)
            for member in over_shared[index]:  # as Kafka filled the partition's member set
                table.add(member)
            for member in [m for m in table.order() if m in current][: len(current) - sharing]:
                _drop(holders, index, member)
                holding(member).discard(index)
                unfilled.add(member)
    if unfilled:
        _assign_short(walk, holders, holding, sharing, unfilled, desired)
    chosen: dict[str, Collection[int]] = dict(zip(members, indices_of, strict=True))
    for member, mine in holdings.items():
        chosen[members[member]] = mine
    return group.result(chosen)


def _drop(holders: dict[int, tuple[int, ...]], index: int, member: int) -> None:
    rest = tuple(m for m in holders[index] if m != member)
    if rest:
        holders[index] = rest
    else:
        del holders[index]


def _member_order(
    group: GrownGroup, owned: list[tuple[str, int]], spreads: tuple[int, ...]
) -> list[int]:
    """The iteration order of the member's own ``HashMap<TopicIdPartition, ...>`` (default
    capacity) filled with its previous target in replay order."""
    indices = group.indices(owned)
    capacity = _INITIAL_CAPACITY
    while len(indices) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1
    buckets = [spreads[i] & mask for i in indices]
    # No bucket of a table under 64 buckets can hold the 9 entries that would grow it
    # early: the capacity is the size-given one, and the order is bucket order, then
    # insertion (replay) order within a bucket, which only matters where two share one.
    if len(indices) <= _TREEIFY_CHAIN or all(
        max(Counter(b & (small - 1) for b in buckets).values()) <= _TREEIFY_CHAIN
        for small in (_INITIAL_CAPACITY, 2 * _INITIAL_CAPACITY)
        if small <= capacity
    ):
        if len(set(buckets)) == len(buckets):
            return [i for _, i in sorted(zip(buckets, indices, strict=True))]
        return sorted(group.replayed(owned), key=lambda i: spreads[i] & mask)  # stable
    table: JavaHashTable[int] = JavaHashTable(lambda i: _unspread(spreads[i]))
    for index in group.replayed(owned):
        table.add(index)
    return table.order()


def _unspread(spread: int) -> int:
    """A hash code with the given spread (``h ^ (h >>> 16)`` is its own inverse)."""
    return spread ^ (spread >> 16)


def _assign_short(
    walk: tuple[int, ...],
    holders: dict[int, tuple[int, ...]],
    holding: Callable[[int], set[int]],
    sharing: int,
    unfilled: set[int],
    desired: list[int],
) -> None:
    """Kafka's ``assignRemainingPartitions`` (see :func:`planner.assignors.simple`'s
    general path), cycling over the members short of partitions in index order."""
    snapshot = sorted(unfilled)
    position = 0
    assigned_this_cycle = False
    # With one member per partition wanted, only the partitions nobody holds are short.
    short = filterfalse(holders.__contains__, walk) if sharing == 1 else walk
    for index in short:
        before = holders.get(index, ())
        to_make = sharing - len(before)
        while to_make > 0:
            if position >= len(snapshot):
                if not assigned_this_cycle:
                    break
                snapshot = sorted(unfilled)
                position = 0
                assigned_this_cycle = False
            member = snapshot[position]
            position += 1
            # Kafka checks the partition's holders as they were before this pass.
            if member not in before:
                mine = holding(member)
                mine.add(index)
                to_make -= 1
                assigned_this_cycle = True
                if len(mine) >= desired[member]:
                    unfilled.discard(member)
        if not unfilled:
            break


@lru_cache(maxsize=1024)  # a planning grid walks the same topics for every group size
def _layout(
    topics: tuple[tuple[int, int, int], ...],
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """For topics as (topic-id hash, offset, partition count), in any order: each
    partition's spread hash (by index), and the walk of Kafka's partition map (sized for
    all partitions, never grown) when each bucket holds one partition, else None."""
    total = sum(count for _, _, count in topics)
    spreads = [0] * total
    for topic_hash, offset, count in topics:
        for partition in range(count):
            h = (31 * topic_hash + partition) & _MASK32
            spreads[offset + partition] = h ^ (h >> 16)
    mask = table_size_for(capacity_for_expected(total)) - 1
    buckets = [s & mask for s in spreads]
    if max(Counter(buckets).values()) > 1:
        return None
    return tuple(spreads), tuple(sorted(range(total), key=buckets.__getitem__))


# Follows Apache Kafka 4.4.0's org.apache.kafka.coordinator.group.assignor
# UniformHomogeneousAssignmentBuilder (KIP-848) and SimpleHomogeneousAssignmentBuilder
# (KIP-932) on a group with a current target assignment.


def uniform_quota_left(quota: int, extra: int, members_left: int) -> tuple[int, int]:
    """`uniform`'s rule after a member kept what it could of its previous target: what
    it still takes from the unassigned partitions, and the extra partitions left.

    A member's quota is the minimum share plus one while extra partitions remain. One
    that kept fewer than that leaves its extra partition to the members after it, as
    long as enough of them remain (`members_left`, itself included) to take all the
    extra ones.

    Args:
        quota: Partitions the member may still take.
        extra: Extra partitions (one each above the minimum share) not yet given.
        members_left: Members from this one to the last.
    """
    took_extra = extra > 0
    if quota > 0 and took_extra and members_left > extra:
        quota -= 1
        took_extra = False
    return quota, extra - took_extra
