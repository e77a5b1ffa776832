"""Racks as the classic client assignors read them (KIP-881): ``client.rack`` and replica racks.

A member's rack is its ``client.rack`` (sent in its Subscription); a partition's racks are
the ``broker.rack`` of every broker holding a replica of it, offline and out-of-sync replicas
included, as the leader's cluster metadata lists them. Kafka's assignors use racks only when
:func:`use_rack_aware` holds; otherwise they assign exactly as without racks.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from planner.assignors._members import TopicPartition, topic_partitions


@dataclass(frozen=True)
class Racks:
    """The racks of a group's members and of its topics' replicas.

    Attributes:
        members: Member id -> its ``client.rack``. A member absent here, or with an empty
            rack, has no rack (Kafka ignores an empty ``client.rack``).
        replicas: Topic -> one entry per partition number, the racks of that partition's
            replicas (one per replica; ``None`` for a broker without ``broker.rack``).
            A topic or partition absent here is held by brokers without racks, which is
            what Kafka sees then (it is *not* "unknown, so ignore it").
    """

    members: Mapping[str, str] = field(default_factory=dict)
    replicas: Mapping[str, Sequence[Collection[str | None]]] = field(default_factory=dict)

    def member_rack(self, member_id: str) -> str | None:
        """The member's rack, or None when it has none."""
        rack = self.members.get(member_id)
        if rack is not None and not isinstance(rack, str):
            raise TypeError(f"rack of member {member_id!r} must be str, got {rack!r}")
        return rack or None

    def partition_racks(self, topic: str, partition: int) -> frozenset[str]:
        """The distinct racks of the partition's replicas (brokers without a rack left out)."""
        per_partition = self.replicas.get(topic, ())
        if partition >= len(per_partition):
            return frozenset()
        replicas = per_partition[partition]
        if isinstance(replicas, str):
            raise TypeError(
                f"replica racks of {topic}-{partition} must be a collection of racks, "
                f"got the string {replicas!r}"
            )
        return frozenset(r for r in replicas if r is not None)


def use_rack_aware(
    consumer_racks: Collection[str], partition_racks: Mapping[TopicPartition, frozenset[str]]
) -> bool:
    """Kafka's condition for rack-aware assignment (useRackAwareAssignment).

    Some consumer has a rack, one of those racks holds a replica of some partition, and not
    every partition has replicas on the same set of racks (the union over all partitions):
    when every partition is on every rack, matching racks cannot change anything.
    """
    if not consumer_racks:
        return False
    union: set[str] = set()
    for racks in partition_racks.values():
        union.update(racks)
    if union.isdisjoint(consumer_racks):
        return False
    return any(racks != union for racks in partition_racks.values())


@dataclass(frozen=True)
class StickyRacks:
    """What the sticky assignors keep of the racks when rack-aware assignment applies.

    Attributes:
        consumer: Member id -> rack, for the members with a rack.
        partition: Every subscribed partition -> the racks of its replicas.
        rack_consumers: Every subscribed partition -> how many members have a rack among its
            replicas' racks (Kafka hands out the partitions with the fewest first).
    """

    consumer: dict[str, str]
    partition: dict[TopicPartition, frozenset[str]]
    rack_consumers: dict[TopicPartition, int]

    def mismatch(self, member_id: str, tp: TopicPartition) -> bool:
        """The member has a rack and no replica of ``tp`` is on it (a member without a rack
        matches every partition)."""
        rack = self.consumer.get(member_id)
        return rack is not None and rack not in self.partition[tp]

    def next_rack_member(self, tp: TopicPartition, members: Sequence[str], first: int) -> int:
        """Index of the first member, from ``first`` on round the list, whose rack holds a
        replica of ``tp``; -1 if none."""
        racks = self.partition[tp]
        if not racks:
            return -1
        n = len(members)
        for step in range(n):
            index = (first + step) % n
            if self.consumer.get(members[index]) in racks:
                return index
        return -1


def sticky_racks(
    partitions_per_topic: Mapping[str, int],
    member_ids: Iterable[str],
    subscribed: Iterable[str],
    racks: Racks | None,
) -> StickyRacks | None:
    """The sticky assignors' rack view of the group, or None when Kafka would not use racks.

    The condition is evaluated once for the whole group (AbstractStickyAssignor's RackInfo):
    every member's rack against every partition of every subscribed topic.
    """
    if racks is None:
        return None
    consumer = {m: r for m in member_ids if (r := racks.member_rack(m)) is not None}
    if not consumer:
        return None
    partition = {
        tp: racks.partition_racks(topic, tp.partition)
        for topic in subscribed
        for tp in topic_partitions(topic, partitions_per_topic[topic])
    }
    if not use_rack_aware(set(consumer.values()), partition):
        return None
    per_rack: dict[str, int] = {}
    for rack in consumer.values():
        per_rack[rack] = per_rack.get(rack, 0) + 1
    rack_consumers = {
        tp: sum(per_rack.get(r, 0) for r in tp_racks) for tp, tp_racks in partition.items()
    }
    return StickyRacks(consumer, partition, rack_consumers)


# Follows Apache Kafka's KIP-881 ("Rack-aware Partition Assignment for Kafka Consumers"):
# AbstractPartitionAssignor.useRackAwareAssignment and AbstractStickyAssignor's RackInfo.
