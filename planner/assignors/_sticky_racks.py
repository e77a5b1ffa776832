"""Kafka's constrained sticky path (identical subscriptions) when rack-aware assignment applies.

Without racks the constrained path has closed forms (:mod:`planner.assignors.sticky`). With
racks (KIP-881) Kafka's ConstrainedAssignmentBuilder changes three steps, and the order it
walks its lists in starts to matter, so this module follows the builder step by step:

1. a member keeps only the owned partitions with a replica on its rack (a member without a
   rack keeps all), up to its quota as before;
2. the free partitions, sorted by (topic, partition) and then, stably, by how many members
   sit on the racks of their replicas (fewest first), go round the members still under
   their minimum quota to the next member whose rack holds a replica; a partition no such
   member matches goes to the first matching member at exactly the minimum that may still
   take one more;
3. what is left is dealt round-robin as without racks.
"""

from __future__ import annotations

from collections import deque

from planner.assignors._java_hashing import hash_map_order
from planner.assignors._members import (
    Assignment,
    TopicPartition,
    java_order_key,
    sorted_java,
    topic_partitions,
)
from planner.assignors._ownership import Ownership
from planner.assignors._racks import StickyRacks


class _Builder:
    """The lists Kafka's builder keeps while it fills the members up to their quotas."""

    def __init__(self, members: list[str], n_partitions: int) -> None:
        self.min_quota, self.expected_over = divmod(n_partitions, len(members))
        self.max_quota = self.min_quota + (1 if self.expected_over else 0)
        self.over = 0
        self.under_min: list[str] = []
        self.exactly_min: deque[str] = deque()
        self.assignment: Assignment = {m: [] for m in members}

    def keep_owned(self, member_id: str, owned: list[TopicPartition]) -> list[TopicPartition]:
        if len(owned) < self.min_quota:
            kept = owned
            self.under_min.append(member_id)
        elif len(owned) >= self.max_quota and self.over < self.expected_over:
            kept = owned[: self.max_quota]
            self.over += 1
            if self.over == self.expected_over:
                self.exactly_min.clear()
        else:
            kept = owned[: self.min_quota]
            if self.over < self.expected_over:
                self.exactly_min.append(member_id)
        self.assignment[member_id] = list(kept)
        return kept

    def rack_round_robin(self, free: list[TopicPartition], racks: StickyRacks) -> None:
        """Step 2: hand out the partitions a member's rack matches, within the quotas."""
        position = 0
        for tp in list(free):
            chosen = None
            index = racks.next_rack_member(tp, self.under_min, position)
            if index >= 0:
                chosen = self.under_min[index]
                count = len(self.assignment[chosen]) + 1
                if count >= self.min_quota:
                    del self.under_min[index]  # the next member slides into `index`
                    if count < self.max_quota and self.over < self.expected_over:
                        self.exactly_min.append(chosen)
                else:
                    index += 1
                position = index % len(self.under_min) if self.under_min else 0
            elif self.exactly_min:
                index = racks.next_rack_member(tp, list(self.exactly_min), 0)
                if index >= 0:
                    chosen = self.exactly_min[index]
                    if len(self.assignment[chosen]) + 1 == self.max_quota:
                        del self.exactly_min[index]
                        self.over += 1
                        if self.over == self.expected_over:
                            self.exactly_min.clear()
            if chosen is not None:
                self.assignment[chosen].append(tp)
                free.remove(tp)

    def round_robin(self, free: list[TopicPartition]) -> None:
        """Step 3: Kafka's plain round-robin, an iterator over the members under the minimum
        that restarts from the first when it runs out."""
        cursor = 0
        for tp in free:
            from_iterator = False
            if cursor < len(self.under_min):
                chosen = self.under_min[cursor]
                cursor += 1
                from_iterator = True
            elif not self.under_min and not self.exactly_min:
                raise AssertionError(f"no member left to take {tp}")  # quotas add up
            elif not self.under_min:
                chosen = self.exactly_min.popleft()
            else:
                chosen = self.under_min[0]
                cursor = 1
                from_iterator = True
            bucket = self.assignment[chosen]
            bucket.append(tp)
            if len(bucket) == self.min_quota:
                if from_iterator:
                    cursor -= 1
                    del self.under_min[cursor]
                self.exactly_min.append(chosen)
            elif len(bucket) == self.max_quota:
                self.over += 1


def constrained_with_racks(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    ownership: Ownership,
    subscribed: frozenset[str],
    racks: StickyRacks,
) -> Assignment:
    """Kafka's constrained path with rack matching; lists sorted by (topic, partition).

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics (all the same).
        ownership: Valid previous claims (see ``clean_ownership``).
        subscribed: The subscribed topics that exist.
        racks: The group's racks, rack-aware assignment applying.
    """
    topics = sorted_java(subscribed)
    topic_key = {t: java_order_key(t) for t in topics}
    all_partitions = [tp for t in topics for tp in topic_partitions(t, partitions_per_topic[t])]
    builder = _Builder(sorted_java(subscriptions), len(all_partitions))
    assigned: set[TopicPartition] = set()
    # Kafka walks its HashMap of owned partitions, filled from the leader's HashMap of
    # Subscriptions: the order decides who keeps min_quota + 1 when slots run short.
    for member_id in hash_map_order(hash_map_order(subscriptions)):
        owned = sorted(
            (tp for tp in ownership.owned[member_id] if not racks.mismatch(member_id, tp)),
            key=lambda tp: (tp.partition, topic_key[tp.topic]),
        )
        assigned.update(builder.keep_owned(member_id, owned))
    builder.under_min = sorted_java(builder.under_min)
    builder.exactly_min = deque(sorted_java(builder.exactly_min))
    free = [tp for tp in all_partitions if tp not in assigned]
    free.sort(key=racks.rack_consumers.__getitem__)  # stable, as Java's List.sort
    builder.rack_round_robin(free, racks)
    builder.round_robin(free)
    for partitions in builder.assignment.values():
        partitions.sort(key=lambda tp: (topic_key[tp.topic], tp.partition))
    return builder.assignment


# Follows the constrained path of Apache Kafka's
# org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor with KIP-881 rack
# awareness (its assignOwnedPartitions, assignRackAwareRoundRobin and assignRoundRobin).
