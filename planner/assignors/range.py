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
    java_order_key,
    prepare,
    sorted_java,
    topic_partitions,
)
from planner.assignors._racks import Racks, use_rack_aware


class RangeAssignor:
    """Kafka's ``range`` strategy, topic by topic.

    For each topic, its partitions in numeric order are cut into consecutive ranges
    for the members subscribed to it, sorted by member id (Java string order): each
    gets ``P div C`` partitions and the first ``P mod C`` members one more. Since every
    topic is cut separately, the first members get the extra partition of *every*
    topic. Previous ownership is ignored (range is not sticky).

    With ``racks`` (KIP-881), when some topic needs them (Kafka's condition, per topic),
    members take the partitions with a replica on their rack first, within the same
    per-topic counts; topics with the same members and partition count are walked
    together by partition number to keep co-partitioning (``docs/assignors.md``).

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
        *,
        racks: Racks | None = None,
    ) -> Assignment:
        """Assign partitions; see the class docstring.

        Args:
            partitions_per_topic: Topic -> partition count.
            subscriptions: Member id -> subscribed topics.
            previous: Ignored by this strategy.
            racks: Members' ``client.rack`` and replicas' racks (KIP-881), or None.

        Returns:
            Member id -> partitions, every member present, lists sorted by (topic, partition).
        """
        partitions_per_topic, subscriptions, _ = prepare(partitions_per_topic, subscriptions, None)
        del previous
        assignment = empty_assignment(subscriptions)
        members = sorted_java(subscriptions)
        distinct = set(subscriptions.values())
        if racks is not None:
            if not isinstance(racks, Racks):
                raise TypeError(
                    f"racks must be a planner.assignors.Racks, got {type(racks).__name__}"
                )
            rack_aware = _rack_aware_topics(partitions_per_topic, subscriptions, members, racks)
            if rack_aware is not None:
                _assign_with_racks(rack_aware, assignment)
                return assignment
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


class _TopicState:
    """One topic's cut in progress (Kafka's TopicAssignmentState): its members in order, its
    unassigned partitions in order, and how many each member may still take."""

    def __init__(
        self, topic: str, count: int, members: list[str], racks: Racks, has_rack: bool
    ) -> None:
        self.topic = topic
        self.members = members
        self.member_rack = {m: racks.member_rack(m) for m in members}
        self.unassigned = dict.fromkeys(topic_partitions(topic, count))
        self.assigned = dict.fromkeys(members, 0)
        self.per_member, self.with_extra = divmod(count, len(members))
        # Kafka reads replica racks only when one of the topic's members has a rack.
        self.partition_racks = (
            {tp: racks.partition_racks(topic, tp.partition) for tp in self.unassigned}
            if has_rack
            else {}
        )
        member_racks = {r for r in self.member_rack.values() if r is not None}
        self.needs_racks = use_rack_aware(member_racks, self.partition_racks)

    def racks_match(self, member_id: str, tp: TopicPartition) -> bool:
        rack = self.member_rack[member_id]
        return rack is None or rack in self.partition_racks.get(tp, ())

    def max_assignable(self, member_id: str) -> int:
        quota = self.per_member + (1 if self.with_extra > 0 else 0)
        return max(0, quota - self.assigned[member_id])

    def give(self, member_id: str, tps: list[TopicPartition], assignment: Assignment) -> None:
        assignment[member_id] += tps
        self.assigned[member_id] += len(tps)
        # One call takes a member past its share at most once: one extra slot used.
        if self.assigned[member_id] > self.per_member:
            self.with_extra -= 1
        for tp in tps:
            del self.unassigned[tp]

    def cut(self, assignment: Assignment, *, match_racks: bool) -> None:
        """Each member in order takes the first unassigned partitions it may take."""
        for member_id in self.members:
            if not self.unassigned:
                break
            limit = self.max_assignable(member_id)
            taken = [
                tp for tp in self.unassigned if not match_racks or self.racks_match(member_id, tp)
            ][:limit]
            if taken:
                self.give(member_id, taken, assignment)


def _rack_aware_topics(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    members: list[str],
    racks: Racks,
) -> list[_TopicState] | None:
    """Every subscribed topic's state if some topic needs rack-aware assignment, else None."""
    members_per_topic: dict[str, list[str]] = {}
    for member_id in members:
        for topic in eligible_topics(partitions_per_topic, subscriptions[member_id]):
            members_per_topic.setdefault(topic, []).append(member_id)
    states = []
    for topic in sorted_java(members_per_topic):
        topic_members = members_per_topic[topic]
        has_rack = any(racks.member_rack(m) is not None for m in topic_members)
        states.append(
            _TopicState(topic, partitions_per_topic[topic], topic_members, racks, has_rack)
        )
    return states if any(s.needs_racks for s in states) else None


def _assign_with_racks(states: list[_TopicState], assignment: Assignment) -> None:
    """Kafka's rack-aware range: rack-matched partitions first, within each topic's quotas,
    then the plain cut for what is left; the lists are sorted at the end, as Kafka does."""
    groups: dict[tuple[tuple[str, ...], int], list[_TopicState]] = {}
    for state in states:
        # Topics with the same members and the same partition count (as Kafka counts it:
        # 0 when no member has a rack) are cut together to keep co-partitioning.
        key = (tuple(state.members), len(state.partition_racks))
        groups.setdefault(key, []).append(state)
    for (members, count), together in groups.items():
        if len(together) > 1:
            _co_partitioned(list(members), count, together, assignment)
        elif together[0].needs_racks:
            together[0].cut(assignment, match_racks=True)
    for state in states:
        state.cut(assignment, match_racks=False)
    for member_id in assignment:
        assignment[member_id].sort(key=lambda tp: (java_order_key(tp.topic), tp.partition))


def _co_partitioned(
    members: list[str], count: int, states: list[_TopicState], assignment: Assignment
) -> None:
    """Partition ``p`` of every topic of the set goes to the first member whose rack holds a
    replica of each and that may still take one of each; else it waits for the plain cut.
    Kafka does this even when none of the topics would need racks on its own."""
    remaining = list(members)
    for p in range(count):
        chosen = next(
            (
                m
                for m in remaining
                if all(
                    s.racks_match(m, TopicPartition(s.topic, p)) and s.max_assignable(m) > 0
                    for s in states
                )
            ),
            None,
        )
        if chosen is None:
            continue
        for state in states:
            state.give(chosen, [TopicPartition(state.topic, p)], assignment)
        if not any(s.max_assignable(chosen) > 0 for s in states):
            remaining.remove(chosen)
            if not remaining:
                break


# Follows Apache Kafka's org.apache.kafka.clients.consumer.RangeAssignor, the assignor named
# "range" since the 0.9 consumer (KIP-62 era client-side assignment, "Kafka Client-side
# Assignment Proposal"), with its KIP-881 rack-aware variant ("Rack-aware Partition
# Assignment for Kafka Consumers").
