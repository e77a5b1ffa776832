"""The ``cooperative-sticky`` assignor: sticky's target, reached in incremental rebalances."""

from __future__ import annotations

from planner.assignors._members import (
    Assignment,
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
    prepare,
)
from planner.assignors._ownership import clean_ownership
from planner.assignors._racks import Racks
from planner.assignors._sticky_librdkafka import librdkafka_cooperative
from planner.assignors.sticky import check_client, check_racks, sticky_target


class CooperativeStickyAssignor:
    """Kafka's ``cooperative-sticky`` strategy (KIP-429): what *this* rebalance hands out.

    The leader computes the ``sticky`` target. A partition whose target owner differs
    from a member still in the group that claimed it in ``previous`` is left out of
    this round's result: that member revokes it now (it is simply missing from its
    list), and the new owner receives it in the follow-up rebalance, which is
    ``assign(..., previous=<this result>)``. Partitions that nobody in the group owned
    (new partitions, or those of members that left) are handed out at once. Members
    keep consuming the partitions they keep throughout.

    A partition claimed twice by live members is held back for one round when
    subscriptions are identical (Kafka's constrained path); otherwise (Kafka's general
    path) it goes at once to its new owner if that owner was one of the claimants, and
    is held back only if it was not.

    ``client="librdkafka"`` reproduces a librdkafka leader: its sticky target
    (:mod:`planner.assignors._sticky_librdkafka`), then the same revocation rule.

    Example:
        ``c1`` joins ``c0``, which owned all four partitions. Round one only revokes;
        round two hands the revoked partitions to ``c1``.

        >>> from planner.assignors.cooperative_sticky import CooperativeStickyAssignor
        >>> subs = {"c0": ["t"], "c1": ["t"]}
        >>> round1 = CooperativeStickyAssignor().assign(
        ...     {"t": 4}, subs, previous={"c0": [("t", p) for p in range(4)]}
        ... )
        >>> {m: [p for _, p in tps] for m, tps in round1.items()}
        {'c0': [0, 1], 'c1': []}
        >>> round2 = CooperativeStickyAssignor().assign({"t": 4}, subs, previous=round1)
        >>> {m: [p for _, p in tps] for m, tps in round2.items()}
        {'c0': [0, 1], 'c1': [2, 3]}
    """

    name = "cooperative-sticky"

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        client: str = "java",
        racks: Racks | None = None,
    ) -> Assignment:
        """Assign partitions for this rebalance; see the class docstring.

        Args:
            partitions_per_topic: Topic -> partition count.
            subscriptions: Member id -> subscribed topics.
            previous: Member id -> partitions owned when this rebalance started, or None
                for a fresh group.
            client: ``"java"`` (Kafka's Java client) or ``"librdkafka"``.
            racks: Members' ``client.rack`` and replicas' racks, or None (Java client only).
                A partition a member loses for being off its rack is revoked like any
                other that moves.

        Returns:
            Member id -> partitions for this round, every member present, lists sorted
            by (topic, partition).

        Raises:
            ValueError: Unknown client, or racks with ``client="librdkafka"``.
        """
        check_client(client)
        check_racks(client, racks)
        ppt, subs, prev = prepare(partitions_per_topic, subscriptions, previous)
        if client == "librdkafka":
            return librdkafka_cooperative(ppt, subs, prev)
        target = sticky_target(ppt, subs, prev, racks)
        if not prev:
            return target
        topic_sets = set(subs.values())
        subscribed = frozenset(t for topics in topic_sets for t in topics if ppt.get(t, 0) > 0)
        claimants = clean_ownership(ppt, subs, prev, subscribed).claimants
        held_back = _held_back_constrained if len(topic_sets) == 1 else _held_back_general
        return {
            member_id: [tp for tp in partitions if not held_back(claimants(tp), member_id)]
            for member_id, partitions in target.items()
        }


def _held_back_constrained(claims: tuple[str, ...], new_owner: str) -> bool:
    # Kafka's constrained path marks as transferring every partition it hands to a member
    # other than the one that kept a valid claim on it, and every partition claimed twice.
    return len(claims) > 1 or any(claimant != new_owner for claimant in claims)


def _held_back_general(claims: tuple[str, ...], new_owner: str) -> bool:
    # The general path compares raw ownership instead: a partition is held back when its
    # new owner did not claim it and another live member did, so of a doubly claimed
    # partition a claimant receives it at once.
    return bool(claims) and new_owner not in claims


# Follows Apache Kafka's org.apache.kafka.clients.consumer.CooperativeStickyAssignor
# (KIP-429 "Kafka Consumer Incremental Rebalance Protocol"), built on the same
# AbstractStickyAssignor as the eager "sticky" strategy (KIP-54).
