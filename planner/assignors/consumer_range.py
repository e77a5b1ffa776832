"""The consumer protocol's ``range`` assignor (KIP-848), computed as the broker does."""

from __future__ import annotations

from planner.assignors import _fresh
from planner.assignors._fresh import fresh_group
from planner.assignors._members import (
    Assignment,
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
    java_order_key,
)
from planner.assignors._server_group import InstanceIds, as_assignment, server_group
from planner.assignors._topic_ids import TopicIds


class ConsumerRangeAssignor:
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

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        topic_ids: TopicIds | None = None,
        instance_ids: InstanceIds | None = None,
    ) -> Assignment:
        """Assign partitions; see the class docstring.

        Args:
            partitions_per_topic: Topic -> partition count.
            subscriptions: Member id -> subscribed topics.
            previous: Checked, then ignored: Kafka 4.4.0's ``range`` is not sticky.
            topic_ids: Checked, then ignored (the cut does not depend on them).
            instance_ids: Member id -> ``group.instance.id`` of static members.

        Returns:
            Member id -> partitions, every member present, lists sorted.
        """
        fresh = fresh_group(
            partitions_per_topic,
            subscriptions,
            previous,
            topic_ids=topic_ids,
            instance_ids=instance_ids,
            reads_previous=False,
        )
        if fresh is not None:
            return _fresh.consumer_range(fresh)
        return self.general(
            partitions_per_topic,
            subscriptions,
            previous,
            topic_ids=topic_ids,
            instance_ids=instance_ids,
        )

    def general(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        topic_ids: TopicIds | None = None,
        instance_ids: InstanceIds | None = None,
    ) -> Assignment:
        """The general path: :meth:`assign` takes it unless the group is fresh with
        identical subscriptions (then :mod:`planner.assignors._fresh`'s closed form, which
        the tests prove equal to this).

        Args:
            partitions_per_topic: As for :meth:`assign`.
            subscriptions: As for :meth:`assign`.
            previous: As for :meth:`assign`.
            topic_ids: As for :meth:`assign`.
            instance_ids: As for :meth:`assign`.

        Returns:
            The same assignment as :meth:`assign`.
        """
        group = server_group(
            partitions_per_topic,
            subscriptions,
            previous,
            topic_ids=topic_ids,
            instance_ids=instance_ids,
            shared=False,
        )
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
