"""The share groups' ``simple`` assignor (KIP-932), computed as the broker does.

A share group's members read the same partitions cooperatively, so ``simple`` may give one
partition to several members: with more members than partitions, each partition goes to
``ceil(members / partitions)`` of them (its *sharing*).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

from planner.assignors import _fresh, _grown
from planner.assignors._fresh import FreshGroup
from planner.assignors._grown import GrownGroup
from planner.assignors._java_hashing import (
    JavaHashTable,
    capacity_for_expected,
    int_hash,
)
from planner.assignors._members import (
    Assignment,
)
from planner.assignors._server_assignor import ServerAssignor
from planner.assignors._server_group import ServerGroup, as_assignment
from planner.assignors._topic_ids import topic_partition_hash

K = TypeVar("K", bound=Hashable)
Chosen = dict[int, dict[str, set[int]]]


class SimpleAssignor(ServerAssignor):
    """Kafka's broker-side ``simple`` assignor of share groups.

    **Same topics for every member.** With ``T`` partitions and ``M`` members the desired
    sharing is ``ceil(M / T)`` members per partition, and member ``i`` (in the order of
    the coordinator's member ``HashMap``) should hold ``ceil(x (i + 1)) - ceil(x i)``
    partitions with ``x = sharing * T / M``. Each member keeps its previous target
    partitions; a member above its count gives up the first ones in its ``HashSet``
    order; a partition shared by more members than desired loses the first ones in
    its member-set order; then, walking the partitions in ``HashMap`` order (hash of
    topic id and partition; within a bucket, last linked first, the partitions having been
    listed topic by topic in the order of the first member's ``HashSet`` of topic names),
    each partition short of members goes to the next member short of partitions (member
    order, cycling).

    **Different topics.** The same, topic by topic, over the topic's subscribers only:
    each topic is balanced on its own, and the results are merged. A member's previous
    partitions of a topic nobody subscribes to any more stay in its target assignment, as
    in Kafka 4.4.0.

    Example:
        Two partitions, three members: each partition goes to two of them (sharing 2),
        the first member in hash order taking both.

        >>> from planner.assignors.simple import SimpleAssignor
        >>> members = {"m0": ["t"], "m1": ["t"], "m2": ["t"]}
        >>> ids = {"t": "2i5pS0Q3T3anZrJ3rBNdaA"}
        >>> result = SimpleAssignor().assign({"t": 2}, members, topic_ids=ids)
        >>> {m: [p for _, p in tps] for m, tps in result.items()}
        {'m0': [0, 1], 'm1': [0], 'm2': [1]}
    """

    name = "simple"
    shared = True

    def closed_form(self, fresh: FreshGroup) -> Assignment:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        return _fresh.simple(fresh)

    def grown_form(self, grown: GrownGroup) -> Assignment | None:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        return _grown.simple(grown)

    def build(self, group: ServerGroup) -> Assignment:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        if not group.members:
            return {}
        old = [group.previous.get(m, {}) for m in group.members]
        topics = _subscribed_topics(group)
        if not topics:
            return as_assignment(group.given, {})  # Kafka returns an empty assignment
        new: Chosen = {}
        if group.homogeneous:
            new = _Homogeneous(group, old, group.topics[group.members[0]]).build()
        else:
            for topic in topics:
                _HeterogeneousTopic(group, old, new, topic).build()
        chosen = {
            member_id: new[i] if i in new else {t: set(ps) for t, ps in old[i].items()}
            for i, member_id in enumerate(group.members)
        }
        return as_assignment(group.given, chosen)


def _subscribed_topics(group: ServerGroup) -> list[str]:
    seen: dict[str, None] = {}
    for member_id in group.members:
        seen.update(dict.fromkeys(group.topics[member_id]))
    return list(seen)


def _desired_counts(sharing: int, partitions: int, members: int) -> list[int]:
    """Each member's desired partition count, spreading ``sharing * partitions`` over
    ``members`` with Kafka's double arithmetic."""
    precise = sharing * partitions / members
    return [math.ceil(precise * (i + 1)) - math.ceil(precise * i) for i in range(members)]


def _copy(old: dict[str, list[int]]) -> dict[str, set[int]]:
    return {t: set(ps) for t, ps in old.items()}


class _Cycler:
    """``unfilledMembers.iterator()`` over a set of member indices whose ``HashSet``
    iterates in index order (Kafka sizes it above the member count), restartable."""

    def __init__(self, members: set[int]) -> None:
        self.members = members
        self.restart()

    def restart(self) -> None:
        self.snapshot = sorted(self.members)
        self.position = 0

    def has_next(self) -> bool:
        return self.position < len(self.snapshot)

    def next(self) -> int:
        self.position += 1
        return self.snapshot[self.position - 1]

    def remove_current(self) -> None:
        self.members.discard(self.snapshot[self.position - 1])


def _assign_short(
    partitions: Iterable[K],
    holders: Callable[[K], JavaHashTable[int]],
    sharing: int,
    unfilled: set[int],
    give: Callable[[int, K], int],
    desired: list[int],
) -> None:
    """Kafka's ``assignRemainingPartitions``: one pass over the partitions, cycling over
    the members short of partitions; ``give`` returns the member's new count."""
    if not unfilled:
        return
    cycler = _Cycler(unfilled)
    assigned_this_cycle = False
    for key in partitions:
        members_assigned = holders(key)
        if len(members_assigned) < sharing:
            to_make = sharing - len(members_assigned)
            while to_make > 0:
                if not cycler.has_next():
                    if not assigned_this_cycle:
                        break
                    cycler.restart()
                    assigned_this_cycle = False
                member = cycler.next()
                # Kafka checks the partition's holders as they were before this pass.
                if member not in members_assigned:
                    count = give(member, key)
                    to_make -= 1
                    assigned_this_cycle = True
                    if count >= desired[member]:
                        cycler.remove_current()
        if not unfilled:
            break


class _Homogeneous:
    """SimpleHomogeneousAssignmentBuilder's state."""

    def __init__(
        self, group: ServerGroup, old: list[dict[str, list[int]]], subscribed: list[str]
    ) -> None:
        self.group = group
        self.old = old
        self.subscribed = set(subscribed)
        # Listed topic by topic as the first member's TopicIds iterates them (its HashSet of
        # names): the order they are linked into a bucket of the partition map.
        self.targets = [(t, p) for t in subscribed for p in range(group.partitions[t])]
        members = len(group.members)
        self.sharing = 0 if not self.targets else -(-members // len(self.targets))
        self.desired = _desired_counts(self.sharing, len(self.targets), members)
        hashes = {t: group.topic_hash(t) for t in group.ids}
        self.tp_hash: Callable[[tuple[str, int]], int] = lambda tp: topic_partition_hash(
            hashes[tp[0]], tp[1]
        )
        self.by_partition: JavaHashTable[tuple[str, int]] = JavaHashTable(
            self.tp_hash, initial_capacity=capacity_for_expected(len(self.targets))
        )
        self.holders: dict[tuple[str, int], JavaHashTable[int]] = {}
        self.by_member: dict[int, JavaHashTable[tuple[str, int]]] = {}
        self.new: Chosen = {}
        self.unfilled: set[int] = set()
        self.overfilled: set[int] = set()

    def _holders(self, tp: tuple[str, int]) -> JavaHashTable[int]:
        if tp not in self.holders:
            self.holders[tp] = JavaHashTable(int_hash)
            # Kafka fills this map with computeIfAbsent: head of the chain, not its tail.
            self.by_partition.compute_if_absent(tp)
        return self.holders[tp]

    def _member(self, member: int) -> JavaHashTable[tuple[str, int]]:
        if member not in self.by_member:
            self.by_member[member] = JavaHashTable(self.tp_hash)
        return self.by_member[member]

    def _new(self, member: int) -> dict[str, set[int]]:
        if member not in self.new:
            self.new[member] = _copy(self.old[member])
        return self.new[member]

    def build(self) -> Chosen:
        for member, old in enumerate(self.old):
            held = 0
            for topic, partitions in old.items():
                if topic in self.subscribed:
                    for partition in partitions:
                        held += 1
                        self._holders((topic, partition)).add(member)
                        self._member(member).add((topic, partition))
                        if held >= self.desired[member]:
                            self._new(member)
                else:
                    self._new(member).pop(topic, None)
            if held < self.desired[member]:
                self.unfilled.add(member)
            elif held > self.desired[member]:
                self.overfilled.add(member)
        for member in sorted(self.overfilled):
            mine = self.by_member[member]
            if len(mine) > self.desired[member]:
                for tp in mine.order():
                    self.new[member][tp[0]].discard(tp[1])
                    self.holders[tp].remove(member)
                    mine.remove(tp)
                    if len(mine) == self.desired[member]:
                        break
        for tp in self.by_partition.order():
            members = self.holders[tp]
            count = len(members)
            if count > self.sharing:
                for member in members.order():
                    kept = self._new(member).get(tp[0])
                    if kept is not None and tp[1] in kept:
                        kept.discard(tp[1])
                        count -= 1
                        members.remove(member)
                        self.by_member[member].remove(tp)
                        self.unfilled.add(member)
                    if count <= self.sharing:
                        break
        for tp in self.targets:
            self._holders(tp)

        def give(member: int, tp: tuple[str, int]) -> int:
            self._new(member).setdefault(tp[0], set()).add(tp[1])
            mine = self._member(member)
            mine.add(tp)
            return len(mine)

        _assign_short(
            self.by_partition.order(),
            self.holders.__getitem__,
            self.sharing,
            self.unfilled,
            give,
            self.desired,
        )
        return self.new


class _HeterogeneousTopic:
    """SimpleHeterogeneousAssignmentBuilder's per-topic builder (TopicAssignmentPartialBuilder)."""

    def __init__(
        self, group: ServerGroup, old: list[dict[str, list[int]]], new: Chosen, topic: str
    ) -> None:
        self.old = old
        self.new = new
        self.topic = topic
        self.count = group.partitions[topic]
        self.subscribers = [i for i, m in enumerate(group.members) if topic in group.topics[m]]
        members = len(group.members)
        self.sharing = 0 if self.count == 0 else -(-len(self.subscribers) // self.count)
        self.desired = [0] * members
        for k, count in enumerate(_desired_counts(self.sharing, self.count, len(self.subscribers))):
            self.desired[self.subscribers[k]] = count
        self.holders: dict[int, JavaHashTable[int]] = {}  # keys iterate in partition order
        self.by_member: JavaHashTable[int] = JavaHashTable(
            int_hash, initial_capacity=capacity_for_expected(len(self.subscribers))
        )
        self.member_partitions: dict[int, JavaHashTable[int]] = {}

    def _new(self, member: int) -> dict[str, set[int]]:
        if member not in self.new:
            self.new[member] = _copy(self.old[member])
        return self.new[member]

    def _member(self, member: int) -> JavaHashTable[int]:
        if member not in self.member_partitions:
            self.member_partitions[member] = JavaHashTable(int_hash)
            self.by_member.compute_if_absent(member)
        return self.member_partitions[member]

    def build(self) -> None:
        topic = self.topic
        for member, old in enumerate(self.old):
            for partition in old.get(topic, ()):
                self.holders.setdefault(partition, JavaHashTable(int_hash)).add(member)
                self._member(member).add(partition)
        for member in self.by_member.order():
            mine = self.member_partitions[member]
            if len(mine) > self.desired[member]:
                for partition in mine.order():
                    if len(mine) <= self.desired[member]:
                        break
                    self.holders[partition].remove(member)
                    mine.remove(partition)
                    self._new(member)[topic].discard(partition)
        for partition in sorted(self.holders):
            members = self.holders[partition]
            count = len(members)
            if count > self.sharing:
                for member in members.order():
                    partitions = self._new(member).get(topic)
                    if partitions is not None and partition in partitions:
                        partitions.discard(partition)
                        count -= 1
                        members.remove(member)
                        self.member_partitions[member].remove(partition)
                    if count <= self.sharing:
                        break
        for partition in range(self.count):
            if partition not in self.holders:
                self.holders[partition] = JavaHashTable(
                    int_hash, initial_capacity=capacity_for_expected(len(self.subscribers))
                )
        unfilled = {
            m
            for m in self.subscribers
            if (len(self.member_partitions[m]) if m in self.member_partitions else 0)
            < self.desired[m]
        }

        def give(member: int, partition: int) -> int:
            self._new(member).setdefault(topic, set()).add(partition)
            mine = self._member(member)
            mine.add(partition)
            return len(mine)

        # The per-topic partition map is sized above the partition count: partition order.
        _assign_short(
            sorted(self.holders),
            self.holders.__getitem__,
            self.sharing,
            unfilled,
            give,
            self.desired,
        )


# Follows Apache Kafka 4.4.0's org.apache.kafka.coordinator.group.assignor.SimpleAssignor
# (SimpleHomogeneousAssignmentBuilder and SimpleHeterogeneousAssignmentBuilder), KIP-932.
