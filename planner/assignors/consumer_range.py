"""The consumer protocol's ``range`` assignor (KIP-848), computed as the broker does."""

from __future__ import annotations

from planner.assignors import _fresh
from planner.assignors._fresh import FreshGroup
from planner.assignors._members import (
    Assignment,
    java_order_key,
)
from planner.assignors._server_assignor import ServerAssignor
from planner.assignors._server_group import ServerGroup, as_assignment


class ConsumerRangeAssignor(ServerAssignor):
    """Kafka's broker-side ``range`` assignor (``group.remote.assignor=range``).

    Members are sorted: static members first, by ``group.instance.id``, then the others by
    member id (Java string order). Each topic is then cut, in partition order, into
    consecutive ranges over its subscribers in that order: ``P div S`` partitions each and
    one more for the first ``P mod S``. The same cut for every topic keeps equal partition
    numbers of co-partitioned topics on one member.

    In Kafka 4.4.0 it does **not** read the current assignment: the result depends only
    on the sorted members and the partition counts (neither topic ids nor hash order), so
    a join or a leave moves whatever the new cut moves. Static members keep their ranges
    across restarts because their instance ids, not their new member ids, sort them.

    Example:
        >>> from planner.assignors.consumer_range import ConsumerRangeAssignor
        >>> members = {"m-b": ["t0", "t1"], "m-a": ["t0", "t1"], "m-c": ["t0", "t1"]}
        >>> result = ConsumerRangeAssignor().assign(
        ...     {"t0": 4, "t1": 4}, members, instance_ids={"m-c": "i0"}
        ... )
        >>> {m: [f"{t}-{p}" for t, p in tps] for m, tps in result.items()}
        {'m-b': ['t0-3', 't1-3'], 'm-a': ['t0-2', 't1-2'], 'm-c': ['t0-0', 't0-1', 't1-0', 't1-1']}
    """

    name = "range"
    # Static members sort first; the previous target is checked, then ignored.
    reads_instance_ids = True
    reads_previous = False

    def closed_form(self, fresh: FreshGroup) -> Assignment:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        return _fresh.consumer_range(fresh)

    def build(self, group: ServerGroup) -> Assignment:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        statics = group.instance_ids

        def order(member_id: str) -> tuple[int, bytes]:
            instance = statics.get(member_id)
            if instance is not None:
                return (0, java_order_key(instance))
            return (1, java_order_key(member_id))

        members = sorted(group.members, key=order)
        subscribers: dict[str, list[str]] = {}
        for member_id in members:
            for topic in group.topics[member_id]:
                subscribers.setdefault(topic, []).append(member_id)
        chosen: dict[str, dict[str, range]] = {m: {} for m in members}
        for topic, topic_members in subscribers.items():
            count = group.partitions[topic]
            per_member, extra = divmod(count, len(topic_members))
            start = 0
            for i, member_id in enumerate(topic_members):
                end = min(start + per_member + (i < extra), count)
                if start < end:
                    chosen[member_id][topic] = range(start, end)
                start = end
        return as_assignment(group.given, chosen)


# Follows Apache Kafka 4.4.0's org.apache.kafka.coordinator.group.assignor.RangeAssignor
# (the broker-side range of KIP-848, not the client's RangeAssignor of the classic protocol).
