"""Kafka's general sticky path, for groups whose subscriptions differ.

The steps are Kafka's (AbstractStickyAssignor's general assignment builder):

1. keep every valid previous claim;
2. give each unassigned partition, in the order "topics with fewer potential members
   first, then topic name, then partition", to the potential member with the fewest
   partitions (ties: member id in Java order);
3. leave out of balancing the topics with a single potential member and the members
   that already hold everything they could hold;
4. while the balance rule is broken, walk the partitions (first the newly assigned
   ones, unless a member had to give up a partition of a topic it left, then all) and
   move a partition whose owner has two or more partitions more than some other
   potential member to the least-loaded potential member; if this round already moved
   a partition of the same topic the opposite way between the same two members, that
   move is undone instead, so partitions do not swap places;
5. keep the result only if it improves the balance score (sum over member pairs of
   the difference in counts) or the group started empty.
"""

from __future__ import annotations

from planner.assignors._members import Assignment, TopicPartition, java_order_key, topic_partitions
from planner.assignors._ownership import Ownership


class _State:
    """Assignment under construction, with the lookups the balancing loop needs."""

    def __init__(
        self,
        partitions_per_topic: dict[str, int],
        subscriptions: dict[str, frozenset[str]],
        ownership: Ownership,
        subscribed: frozenset[str],
    ) -> None:
        self.partitions_per_topic = partitions_per_topic
        self.key = {m: java_order_key(m) for m in subscriptions}
        self.topics_of = {
            m: frozenset(t for t in subscriptions[m] if t in subscribed) for m in subscriptions
        }
        self.members_of: dict[str, list[str]] = {t: [] for t in subscribed}
        for member_id in sorted(subscriptions, key=java_order_key):
            for topic in self.topics_of[member_id]:
                self.members_of[topic].append(member_id)
        self.max_size = {
            m: sum(partitions_per_topic[t] for t in topics) for m, topics in self.topics_of.items()
        }
        self.current: dict[str, list[TopicPartition]] = {
            m: list(ownership.owned[m]) for m in subscriptions
        }
        self.owner: dict[TopicPartition, str] = {
            tp: m for m, tps in self.current.items() for tp in tps
        }
        # (topic, src, dst) -> partitions moved from src to dst during this rebalance
        self.moves_by_pair: dict[tuple[str, str, str], list[TopicPartition]] = {}
        self.moved_from: dict[TopicPartition, str] = {}
        self.active: set[str] = set(subscriptions)

    def rank(self, member_id: str) -> tuple[int, bytes]:
        return len(self.current[member_id]), self.key[member_id]

    def least_loaded(self, topic: str) -> str:
        candidates = [m for m in self.members_of[topic] if m in self.active]
        return min(candidates, key=self.rank)

    def is_balanced(self) -> bool:
        counts = [len(self.current[m]) for m in self.active]
        if not counts or min(counts) >= max(counts) - 1:
            return True
        for member_id in self.active:
            count = len(self.current[member_id])
            if count == self.max_size[member_id]:
                continue
            for topic in self.topics_of[member_id]:
                for tp in topic_partitions(topic, self.partitions_per_topic[topic]):
                    other = self.owner.get(tp)
                    if (
                        other is not None
                        and other != member_id
                        and len(self.current[other]) > count + 1
                    ):
                        return False
        return True

    def move(self, tp: TopicPartition, new_owner: str) -> None:
        old_owner = self.owner[tp]
        origin = self.moved_from.pop(tp, None)
        if origin is not None:
            self.moves_by_pair[(tp.topic, origin, old_owner)].remove(tp)
        else:
            origin = old_owner
        if origin != new_owner:
            self.moved_from[tp] = origin
            self.moves_by_pair.setdefault((tp.topic, origin, new_owner), []).append(tp)
        self.current[old_owner].remove(tp)
        self.current[new_owner].append(tp)
        self.owner[tp] = new_owner

    def reassign(self, tp: TopicPartition) -> None:
        owner = self.owner[tp]
        new_owner = self.least_loaded(tp.topic)
        to_move = tp
        if tp not in self.moved_from:
            # Undo an earlier opposite move of the same topic rather than swap partitions.
            reverse = self.moves_by_pair.get((tp.topic, new_owner, owner))
            if reverse:
                to_move = min(reverse, key=lambda p: p.partition)
        self.move(to_move, new_owner)

    def perform_reassignments(self, partitions: list[TopicPartition]) -> bool:
        performed = False
        while True:
            modified = False
            for tp in partitions:
                if self.is_balanced():
                    break
                owner = self.owner[tp]
                count = len(self.current[owner])
                if any(
                    count > len(self.current[other]) + 1
                    for other in self.members_of[tp.topic]
                    if other in self.active
                ):
                    self.reassign(tp)
                    performed = modified = True
            if not modified:
                return performed

    def balance_score(self) -> int:
        counts = sorted(len(self.current[m]) for m in self.active)
        # sum over pairs |a - b| of sorted counts: each count times (its rank - the ranks above)
        n = len(counts)
        return sum(c * (2 * i - n + 1) for i, c in enumerate(counts))


def general_assign(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    ownership: Ownership,
    subscribed: frozenset[str],
) -> Assignment:
    """Run Kafka's general sticky path on cleaned ownership.

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics.
        ownership: Valid previous claims (see ``clean_ownership``).
        subscribed: Topics some member subscribes to that exist.

    Returns:
        Member id -> partitions (unsorted).
    """
    state = _State(partitions_per_topic, subscriptions, ownership, subscribed)
    topic_order = sorted(subscribed, key=lambda t: (len(state.members_of[t]), java_order_key(t)))
    sorted_all = [tp for t in topic_order for tp in topic_partitions(t, partitions_per_topic[t])]
    unassigned = [tp for tp in sorted_all if tp not in state.owner]
    initializing = all(not tps for tps in state.current.values())

    for tp in unassigned:
        member_id = state.least_loaded(tp.topic)
        state.current[member_id].append(tp)
        state.owner[tp] = member_id

    movable_topics = {t for t in subscribed if len(state.members_of[t]) >= 2}
    sorted_all = [tp for tp in sorted_all if tp.topic in movable_topics]
    unassigned = [tp for tp in unassigned if tp.topic in movable_topics]
    for member_id in subscriptions:
        held = state.current[member_id]
        if len(held) >= state.max_size[member_id] and not any(
            tp.topic in movable_topics for tp in held
        ):
            state.active.discard(member_id)

    before = {m: list(tps) for m, tps in state.current.items()}
    before_score = state.balance_score()
    if not ownership.revocation_required:
        state.perform_reassignments(unassigned)
    performed = state.perform_reassignments(sorted_all)
    if not initializing and performed and state.balance_score() >= before_score:
        return before
    return state.current


# Follows the general path of Apache Kafka's
# org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor (KIP-54), which
# librdkafka's rdkafka_sticky_assignor.c also mirrors, without rack awareness (KIP-881).
