"""librdkafka's sticky assignor, for predicting what a confluent-kafka group hands out.

librdkafka 2.x ports Kafka's older sticky algorithm and has **no constrained path**:
identical subscriptions run the general algorithm too, only with another partition
order. Its choices, as reproduced here (all without generations: every claim in
``previous`` is of the same generation, so no "previous owner" pull-back happens):

1. **Claims.** A partition claimed more than once (by two members, or twice by one) is
   dropped from every claimant. A member keeps its claims on existing partitions of
   topics it still subscribes to; a claim on a topic it left marks the rebalance
   ``revocation_required``.
2. **Partition order.** If every member can take exactly the same partitions, members
   are walked from the most remaining claims (ties: the larger member id by ``strcmp``),
   each time taking that member's lowest remaining (topic, partition); partitions
   nobody claimed follow in reverse metadata order (last topic first, highest
   partition first). If nobody claimed anything, or subscriptions differ, partitions are
   ordered by number of potential members, then (topic, partition).
3. **Unassigned partitions**, in that order, go to the member with the fewest
   partitions (ties: smallest member id) that can take them.
4. **Balancing.** Partitions with one potential member, and members that hold every
   partition they could and none movable, are left out. Then, first over the partitions
   that were unassigned (unless ``revocation_required``), then over all, repeated while
   something moved: walking the list while the assignment is not balanced, a partition
   whose owner has two or more partitions more than some other potential member moves
   to the least-loaded potential member (fewest partitions, then smallest id). If, for
   that topic, some partition had already moved the opposite way between the two
   members in this rebalance, the first such partition moves back instead.
5. The result of the second pass is dropped, and the pre-balancing one kept, when the
   group was not empty before and the balance score (sum of count differences over all
   member pairs) did not improve.

The cooperative protocol (``cooperative-sticky``) then removes from each member's
assignment the partitions that another member still owns: those are revoked by their
owner, and handed over in the follow-up rebalance.
"""

from __future__ import annotations

from bisect import insort
from collections import Counter

from planner.assignors._members import Assignment, TopicPartition, java_order_key


class _Balancer:
    """The assignment under construction, with librdkafka's bookkeeping."""

    def __init__(
        self,
        members: list[str],
        potential: dict[str, set[TopicPartition]],
        potential_members: dict[TopicPartition, list[str]],
        kept: dict[str, list[TopicPartition]],
    ) -> None:
        self.potential = potential
        self.potential_members = potential_members
        self.current: dict[str, list[TopicPartition]] = {m: list(kept[m]) for m in members}
        self.owner: dict[TopicPartition, str] = {
            tp: m for m, tps in self.current.items() for tp in tps
        }
        # Members ordered as librdkafka's sortedCurrentSubscriptions: (count, member id).
        self.order: list[tuple[int, str]] = sorted((len(self.current[m]), m) for m in members)
        # Partition -> (origin, current owner) of its move in this rebalance, and per
        # topic and (origin, owner) the moved partitions, first moved first.
        self.moved: dict[TopicPartition, tuple[str, str]] = {}
        self.moves_by_topic: dict[str, dict[tuple[str, str], list[TopicPartition]]] = {}

    def count(self, member_id: str) -> int:
        return len(self.current[member_id])

    def _reorder(self, member_id: str, old_count: int) -> None:
        self.order.remove((old_count, member_id))
        insort(self.order, (self.count(member_id), member_id))

    def least_loaded_for(self, tp: TopicPartition) -> str | None:
        for _, member_id in self.order:
            if tp in self.potential[member_id]:
                return member_id
        return None

    def give(self, tp: TopicPartition, member_id: str) -> None:
        self.current[member_id].append(tp)
        self.owner[tp] = member_id
        self._reorder(member_id, self.count(member_id) - 1)

    def is_balanced(self) -> bool:
        if not self.order or self.order[0][0] >= self.order[-1][0] - 1:
            return True
        for count, member_id in self.order:
            if count == len(self.potential[member_id]):
                continue
            holds = set(self.current[member_id])
            for tp in self.potential[member_id]:
                if tp not in holds and count < self.count(self.owner[tp]):
                    return False
        return True

    def score(self) -> int:
        counts = sorted(count for count, _ in self.order)
        return sum(c * (2 * i - len(counts) + 1) for i, c in enumerate(counts))

    def reassign(self, tp: TopicPartition, new_owner: str) -> None:
        """Move ``tp`` to ``new_owner``, or undo an opposite move of the same topic."""
        old_owner = self.owner[tp]
        by_pair = self.moves_by_topic.get(tp.topic)
        if by_pair is not None:
            origin = self.moved[tp][0] if tp in self.moved else old_owner
            opposite = by_pair.get((new_owner, origin))
            if opposite:
                tp = opposite[0]
        self._move(tp, new_owner)

    def _move(self, tp: TopicPartition, new_owner: str) -> None:
        old_owner = self.owner[tp]
        previous_move = self.moved.pop(tp, None)
        if previous_move is not None:
            by_pair = self.moves_by_topic[tp.topic]
            by_pair[previous_move].remove(tp)
            if not by_pair[previous_move]:
                del by_pair[previous_move]
            if not by_pair:
                del self.moves_by_topic[tp.topic]
            origin = previous_move[0]
        else:
            origin = old_owner
        if origin != new_owner:
            self.moved[tp] = (origin, new_owner)
            self.moves_by_topic.setdefault(tp.topic, {}).setdefault((origin, new_owner), [])
            self.moves_by_topic[tp.topic][(origin, new_owner)].append(tp)
        self.current[old_owner].remove(tp)
        self.current[new_owner].append(tp)
        self.owner[tp] = new_owner
        self._reorder(old_owner, self.count(old_owner) + 1)
        self._reorder(new_owner, self.count(new_owner) - 1)

    def perform_reassignments(self, partitions: list[TopicPartition]) -> bool:
        performed = False
        modified = True
        while modified:
            modified = False
            for tp in partitions:
                if self.is_balanced():
                    break
                owner = self.owner[tp]
                owner_count = self.count(owner)
                if any(
                    owner_count > self.count(other) + 1
                    for other in self.potential_members[tp]
                    if other != owner
                ):
                    new_owner = self.least_loaded_for(tp)
                    if new_owner is None:  # unreachable: another potential member exists
                        raise AssertionError(f"no member can take {tp}")
                    self.reassign(tp, new_owner)
                    performed = modified = True
        return performed


def librdkafka_sticky_target(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    previous: dict[str, list[tuple[str, int]]] | None,
) -> Assignment:
    """librdkafka's sticky assignment of normalised inputs (see the module docstring).

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics.
        previous: Member id -> partitions owned when the rebalance started, or None.

    Returns:
        Member id -> partitions, every member present, lists sorted by (topic, partition).
    """
    if not subscriptions:
        return {}
    # librdkafka compares member ids and topics with strcmp: UTF-8 byte order, which is
    # Python's code-point order.
    members = sorted(subscriptions)
    topics = sorted(
        {t for ts in set(subscriptions.values()) for t in ts if partitions_per_topic.get(t, 0) > 0}
    )
    all_partitions = [TopicPartition(t, p) for t in topics for p in range(partitions_per_topic[t])]
    potential: dict[str, set[TopicPartition]] = {m: set() for m in members}
    potential_members: dict[TopicPartition, list[str]] = {tp: [] for tp in all_partitions}
    for tp in all_partitions:
        for member_id in members:
            if tp.topic in subscriptions[member_id]:
                potential[member_id].add(tp)
                potential_members[tp].append(member_id)

    claims: dict[str, list[TopicPartition]] = {m: [] for m in members}
    if previous:
        counts = Counter(
            TopicPartition(t, p)
            for member_id, owned in previous.items()
            if member_id in subscriptions
            for t, p in owned
        )
        for member_id, owned in previous.items():
            if member_id in subscriptions:
                claims[member_id] = [
                    TopicPartition(t, p) for t, p in owned if counts[TopicPartition(t, p)] == 1
                ]
    kept = {m: [tp for tp in claims[m] if tp in potential[m]] for m in members}
    revocation_required = any(
        tp in potential_members and tp not in potential[m] for m in members for tp in claims[m]
    )

    identical = len({frozenset(p) for p in potential.values()}) <= 1
    ordered = _partition_order(
        partitions_per_topic, members, topics, all_partitions, potential_members, claims, identical
    )
    owned_now = {tp for tps in kept.values() for tp in tps}
    unassigned = [tp for tp in ordered if tp not in owned_now]

    state = _Balancer(members, potential, potential_members, kept)
    initializing = all(not tps for tps in kept.values())
    for tp in unassigned:
        taker = state.least_loaded_for(tp)
        if taker is not None:
            state.give(tp, taker)

    movable = {tp for tp in all_partitions if len(potential_members[tp]) >= 2}
    fixed = {
        m
        for m in members
        if state.count(m) == len(potential[m]) and not any(tp in movable for tp in state.current[m])
    }
    state.order = [(c, m) for c, m in state.order if m not in fixed]
    fixed_assignment = {m: state.current[m] for m in fixed}
    before = {m: list(tps) for m, tps in state.current.items() if m not in fixed}
    before_score = state.score()

    new_partitions = [tp for tp in unassigned if tp in movable]
    if not revocation_required and new_partitions:
        state.perform_reassignments(new_partitions)
    performed = state.perform_reassignments([tp for tp in ordered if tp in movable])
    if not initializing and performed and state.score() >= before_score:
        state.current = {**before, **fixed_assignment}

    return {
        m: sorted(state.current[m], key=lambda tp: (java_order_key(tp.topic), tp.partition))
        for m in subscriptions
    }


def _partition_order(
    partitions_per_topic: dict[str, int],
    members: list[str],
    topics: list[str],
    all_partitions: list[TopicPartition],
    potential_members: dict[TopicPartition, list[str]],
    claims: dict[str, list[TopicPartition]],
    identical: bool,
) -> list[TopicPartition]:
    """The order in which librdkafka hands out and then rebalances partitions."""
    if not identical:
        return sorted(all_partitions, key=lambda tp: (len(potential_members[tp]), tp))
    remaining = {
        m: sorted(tp for tp in claims[m] if tp in potential_members) for m in members if claims[m]
    }
    remaining = {m: tps for m, tps in remaining.items() if tps}
    ordered: list[TopicPartition] = []
    while remaining:
        # The member with the most remaining claims, the larger id among equals.
        member_id = max(remaining, key=lambda m: (len(remaining[m]), m))
        ordered.append(remaining[member_id].pop(0))
        if not remaining[member_id]:
            del remaining[member_id]
    if not ordered:
        return list(all_partitions)
    listed = set(ordered)
    # The rest in librdkafka's hash-map iteration order: newest entry first, i.e. the
    # last topic of the metadata (assumed sorted by name) and its highest partition.
    ordered.extend(
        TopicPartition(t, p)
        for t in reversed(topics)
        for p in reversed(range(partitions_per_topic[t]))
        if TopicPartition(t, p) not in listed
    )
    return ordered


def librdkafka_cooperative(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    previous: dict[str, list[tuple[str, int]]] | None,
) -> Assignment:
    """What a librdkafka leader hands out in one ``cooperative-sticky`` rebalance.

    The sticky target, minus each partition that a live member other than its target
    owner claims: the claimant revokes it now, the follow-up rebalance hands it over.
    When several live members claim a partition, the last claimant in ``previous``
    order counts as its owner (librdkafka keeps the last one in JoinGroup member order).

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics.
        previous: Member id -> partitions owned when the rebalance started, or None.

    Returns:
        Member id -> partitions handed out in this round, lists sorted.
    """
    target = librdkafka_sticky_target(partitions_per_topic, subscriptions, previous)
    if not previous:
        return target
    owner: dict[tuple[str, int], str] = {}
    for member_id, owned in previous.items():
        if member_id in subscriptions:
            for topic, partition in owned:
                owner[(topic, partition)] = member_id
    return {
        member_id: [tp for tp in partitions if owner.get(tp, member_id) == member_id]
        for member_id, partitions in target.items()
    }


# Follows librdkafka's src/rdkafka_sticky_assignor.c (its port of Kafka's KIP-54 sticky
# assignor, general path only, rack awareness off) and the COOPERATIVE adjustment of its
# group leader in src/rdkafka_cgrp.c (KIP-429).
