"""The ``roundrobin`` assignor: all partitions dealt to the members in a circle."""

from __future__ import annotations

from planner.assignors._members import (
    Assignment,
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
    TopicPartition,
    eligible_topics,
    empty_assignment,
    prepare,
    sorted_java,
    topic_partitions,
)


class RoundRobinAssignor:
    """Kafka's ``roundrobin`` strategy, across topics.

    All partitions of all subscribed topics, sorted by topic then partition, are dealt
    to the members sorted by member id (Java string order) in a circle; a member not
    subscribed to the partition's topic is skipped, and the circle carries on from
    where the previous partition left it (it does not restart per topic). Balanced
    (counts differ by at most one) when subscriptions are identical. Previous
    ownership is ignored.

    Example:
        With uneven subscriptions the circle skips members, which can leave the
        result unbalanced:

        >>> from planner.assignors.roundrobin import RoundRobinAssignor
        >>> result = RoundRobinAssignor().assign(
        ...     {"t0": 1, "t1": 2, "t2": 3},
        ...     {"c0": ["t0"], "c1": ["t0", "t1"], "c2": ["t0", "t1", "t2"]},
        ... )
        >>> {m: [f"{t}p{p}" for t, p in tps] for m, tps in result.items()}
        {'c0': ['t0p0'], 'c1': ['t1p0'], 'c2': ['t1p1', 't2p0', 't2p1', 't2p2']}
    """

    name = "roundrobin"

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
    ) -> Assignment:
        """Assign partitions; see the class docstring.

        Args:
            partitions_per_topic: Topic -> partition count.
            subscriptions: Member id -> subscribed topics.
            previous: Ignored by this strategy.

        Returns:
            Member id -> partitions, every member present, lists sorted by (topic, partition).
        """
        partitions_per_topic, subscriptions, _ = prepare(partitions_per_topic, subscriptions, None)
        del previous
        assignment = empty_assignment(subscriptions)
        members = sorted_java(subscriptions)
        per_subscription = {
            topics: eligible_topics(partitions_per_topic, topics)
            for topics in set(subscriptions.values())
        }
        eligible = {m: per_subscription[subscriptions[m]] for m in members}
        topics = sorted_java(set().union(*per_subscription.values()))
        all_partitions: list[TopicPartition] = []
        for topic in topics:
            all_partitions.extend(topic_partitions(topic, partitions_per_topic[topic]))
        if not all_partitions:
            return assignment
        n_members = len(members)
        if len(set(per_subscription.values())) == 1:
            # Identical subscriptions: the circle never skips, partition j goes to member j mod C.
            for i, member_id in enumerate(members):
                assignment[member_id] = all_partitions[i::n_members]
            return assignment
        position = 0
        for tp in all_partitions:
            while tp.topic not in eligible[members[position]]:
                position = (position + 1) % n_members
            assignment[members[position]].append(tp)
            position = (position + 1) % n_members
        return assignment


# Follows Apache Kafka's org.apache.kafka.clients.consumer.RoundRobinAssignor, the
# assignor named "roundrobin" of the client-side assignment protocol (Kafka 0.9,
# "Kafka Client-side Assignment Proposal"); member order as Java's String.compareTo.
