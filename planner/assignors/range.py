"""The ``range`` assignor: each topic is cut into consecutive ranges, one per subscriber."""

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


class RangeAssignor:
    """Kafka's ``range`` strategy, topic by topic.

    For each topic, its partitions in numeric order are cut into consecutive ranges
    for the members subscribed to it, sorted by member id (Java string order): each
    gets ``P div C`` partitions and the first ``P mod C`` members one more. Since every
    topic is cut separately, the first members get the extra partition of *every*
    topic. Previous ownership is ignored (range is not sticky).

    Example:
        >>> from planner.assignors.range import RangeAssignor
        >>> RangeAssignor().assign({"t0": 3, "t1": 3}, {"c0": ["t0", "t1"], "c1": ["t0", "t1"]})
        ... # doctest: +NORMALIZE_WHITESPACE
        {'c0': [TopicPartition(topic='t0', partition=0), TopicPartition(topic='t0', partition=1),
                TopicPartition(topic='t1', partition=0), TopicPartition(topic='t1', partition=1)],
         'c1': [TopicPartition(topic='t0', partition=2), TopicPartition(topic='t1', partition=2)]}
    """

    name = "range"

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
        distinct = set(subscriptions.values())
        if len(distinct) == 1:
            # Identical subscriptions: every topic is cut over the same sorted members.
            for topic in sorted_java(eligible_topics(partitions_per_topic, distinct.pop())):
                _cut(topic_partitions(topic, partitions_per_topic[topic]), members, assignment)
            return assignment
        eligible: dict[frozenset[str], frozenset[str]] = {}
        members_per_topic: dict[str, list[str]] = {}
        for member_id in members:  # in Java order, so each topic's list is sorted too
            topics = subscriptions[member_id]
            if topics not in eligible:
                eligible[topics] = eligible_topics(partitions_per_topic, topics)
            for topic in eligible[topics]:
                members_per_topic.setdefault(topic, []).append(member_id)
        for topic in sorted_java(members_per_topic):
            topic_members = members_per_topic[topic]
            _cut(topic_partitions(topic, partitions_per_topic[topic]), topic_members, assignment)
        return assignment


def _cut(tps: tuple[TopicPartition, ...], members: list[str], assignment: Assignment) -> None:
    per_member, with_extra = divmod(len(tps), len(members))
    # Member i starts at per_member * i + min(i, with_extra); the first with_extra get one more.
    for i, member_id in enumerate(members[: len(tps)]):
        start = per_member * i + min(i, with_extra)
        assignment[member_id] += tps[start : start + per_member + (i < with_extra)]


# Follows Apache Kafka's org.apache.kafka.clients.consumer.RangeAssignor (without the
# KIP-881 rack-aware variant), the assignor named "range" since the 0.9 consumer
# (KIP-62 era client-side assignment, "Kafka Client-side Assignment Proposal").
