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
   potential member to the least-loaded potential member, unless an earlier move of
   this rebalance can be undone instead (see :class:`_Movements`);
5. keep the result only if it improves the balance score (sum over member pairs of
   the difference in counts) or the group started empty.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from planner.assignors._java_hashing import JavaHashTable, topic_partition_hash
from planner.assignors._members import Assignment, TopicPartition, java_order_key, topic_partitions
from planner.assignors._ownership import Ownership
from planner.assignors._racks import StickyRacks

_Pair = tuple[str, str]


class _Movements:
    """Where each partition moved during this rebalance, as Kafka's PartitionMovements keeps it.

    Kafka records, per moved partition, the member it started on and the member holding
    it now; and per topic, the partitions moved between each (from, to) pair. Before
    moving partition ``p`` to ``to``, it looks for a partition of the same topic that
    already moved from ``to`` to ``p``'s original member (``p``'s current owner if
    ``p`` has not moved yet) and, if there is one, moves that one back instead. That
    partition is the first of a Java ``HashSet``, so its iteration order is emulated.
    When ``p`` had already moved, the partition moved back is held by ``p``'s original
    member, not by ``p``'s owner: Kafka then moves a partition between two members
    other than the one it set out to relieve (and the loop carries on from there).
    """

    def __init__(self) -> None:
        self.pair_of: dict[TopicPartition, _Pair] = {}
        self.by_topic: dict[str, dict[_Pair, JavaHashTable[TopicPartition]]] = {}

    def _add(self, tp: TopicPartition, pair: _Pair) -> None:
        self.pair_of[tp] = pair
        pairs = self.by_topic.setdefault(tp.topic, {})
        if pair not in pairs:
            pairs[pair] = JavaHashTable(topic_partition_hash)
        pairs[pair].add(tp)

    def _remove(self, tp: TopicPartition) -> _Pair:
        pair = self.pair_of.pop(tp)
        pairs = self.by_topic[tp.topic]
        pairs[pair].remove(tp)
        if not len(pairs[pair]):
            del pairs[pair]  # a later move between the pair starts a fresh HashSet
        if not pairs:
            del self.by_topic[tp.topic]
        return pair

    def record(self, tp: TopicPartition, old_owner: str, new_owner: str) -> None:
        if tp in self.pair_of:
            origin, _ = self._remove(tp)
            if origin != new_owner:
                self._add(tp, (origin, new_owner))
        else:
            self._add(tp, (old_owner, new_owner))

    def partition_to_move(self, tp: TopicPartition, owner: str, new_owner: str) -> TopicPartition:
        pairs = self.by_topic.get(tp.topic)
        if pairs is None:
            return tp
        origin = self.pair_of[tp][0] if tp in self.pair_of else owner
        reverse = pairs.get((new_owner, origin))
        return tp if reverse is None else reverse.first()


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
        self.movements = _Movements()
        self.active: set[str] = set(subscriptions)

    def rank(self, member_id: str) -> tuple[int, bytes]:
        return len(self.current[member_id]), self.key[member_id]

    def least_loaded(self, topic: str, eligible: Callable[[str], bool] | None = None) -> str | None:
        candidates = [
            m
            for m in self.members_of[topic]
            if m in self.active and (eligible is None or eligible(m))
        ]
        return min(candidates, key=self.rank, default=None)

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

    def place(self, tp: TopicPartition, racks: StickyRacks | None = None) -> bool:
        """Give an unassigned partition to the least-loaded potential member (with ``racks``,
        the least-loaded one whose rack matches); False if there is none."""
        member_id = self.least_loaded(
            tp.topic, None if racks is None else lambda m: not racks.mismatch(m, tp)
        )
        if member_id is None:
            return False
        self.current[member_id].append(tp)
        self.owner[tp] = member_id
        return True

    def reassign(self, tp: TopicPartition) -> None:
        new_owner = self.least_loaded(tp.topic)
        assert new_owner is not None  # the balancing loop only moves to a potential member
        to_move = self.movements.partition_to_move(tp, self.owner[tp], new_owner)
        old_owner = self.owner[to_move]
        self.movements.record(to_move, old_owner, new_owner)
        self.current[old_owner].remove(to_move)
        self.current[new_owner].append(to_move)
        self.owner[to_move] = new_owner

    def perform_reassignments(self, partitions: list[TopicPartition]) -> bool:
        performed = False
        seen: set[tuple[object, ...]] = set()
        while True:
            modified = False
            state = self.snapshot()
            if state in seen:
                # Every step is deterministic: a state seen before repeats forever.
                raise RuntimeError(
                    "Kafka's general sticky assignment never settles on this input "
                    "(its balancing loop cycles); the Java client would loop forever too"
                )
            seen.add(state)
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

    def snapshot(self) -> tuple[object, ...]:
        """Everything the balancing loop's next pass depends on."""
        moves = self.movements
        return (
            tuple(sorted(self.owner.items())),
            tuple(sorted(moves.pair_of.items())),
            tuple(
                (topic, pair, table.capacity, tuple(table.order()))
                for topic, pairs in sorted(moves.by_topic.items())
                for pair, table in sorted(pairs.items())
            ),
        )

    def balance_score(self) -> int:
        counts = sorted(len(self.current[m]) for m in self.active)
        # sum over pairs |a - b| of sorted counts: each count times (its rank - the ranks above)
        n = len(counts)
        return sum(c * (2 * i - n + 1) for i, c in enumerate(counts))


def _rack_matched(ownership: Ownership, racks: StickyRacks) -> Ownership:
    """Ownership without the claims whose partition has no replica on the owner's rack."""
    owned = {
        m: [tp for tp in tps if not racks.mismatch(m, tp)] for m, tps in ownership.owned.items()
    }
    dropped = any(len(owned[m]) != len(tps) for m, tps in ownership.owned.items())
    return replace(
        ownership, owned=owned, revocation_required=ownership.revocation_required or dropped
    )


def general_assign(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    ownership: Ownership,
    subscribed: frozenset[str],
    racks: StickyRacks | None = None,
) -> Assignment:
    """Run Kafka's general sticky path on cleaned ownership.

    With ``racks`` (rack-aware assignment applying, KIP-881) a member keeps only the owned
    partitions with a replica on its rack, dropping any other counts as a revocation, and
    each free partition goes first to the least-loaded potential member whose rack matches
    (a member without a rack matches all), then, if none does, as without racks. Kafka's
    balancing loop looks for a member on a matching rack first, but moves the partition to
    the least-loaded potential member either way, so it is unchanged.

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics.
        ownership: Valid previous claims (see ``clean_ownership``).
        subscribed: Topics some member subscribes to that exist.
        racks: The group's racks when rack-aware assignment applies, else None.

    Returns:
        Member id -> partitions (unsorted).
    """
    if racks is not None:
        ownership = _rack_matched(ownership, racks)
    state = _State(partitions_per_topic, subscriptions, ownership, subscribed)
    topic_order = sorted(subscribed, key=lambda t: (len(state.members_of[t]), java_order_key(t)))
    sorted_all = [tp for t in topic_order for tp in topic_partitions(t, partitions_per_topic[t])]
    unassigned = [tp for tp in sorted_all if tp not in state.owner]
    initializing = all(not tps for tps in state.current.values())

    left = unassigned
    if racks is not None:
        # Kafka's first pass gives every partition it can to a member on a matching rack;
        # only then does a second pass place the rest.
        left = [tp for tp in unassigned if not state.place(tp, racks)]
    for tp in left:
        state.place(tp)

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
# librdkafka's rdkafka_sticky_assignor.c also mirrors, with KIP-881 rack awareness (the
# Java client's; librdkafka's rack-aware variant is not modelled).
