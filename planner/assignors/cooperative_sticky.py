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
from planner.assignors._sticky_librdkafka import librdkafka_cooperative
from planner.assignors.sticky import check_client, sticky_target


class CooperativeStickyAssignor:
    """Kafka's ``cooperative-sticky`` strategy (KIP-429): what *this* rebalance hands out.

    The leader computes the ``sticky`` target. A partition whose target owner differs
    from a member still in the group that claimed it in ``previous`` is left out of
    this round's result: that member revokes it now (it is simply missing from its
    list), and the new owner receives it in the follow-up rebalance, which is
    ``assign(..., previous=<this result>)``. Partitions that nobody in the group owned
    (new partitions, or those of members that left) are handed out at once. Members
    keep consuming the partitions they keep throughout.

    A partition claimed by two live members is also held back for one round, as
    Kafka's constrained path does, so no partition ever has two owners.

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
    ) -> Assignment:
        """Assign partitions for this rebalance; see the class docstring.

        Args:
            partitions_per_topic: Topic -> partition count.
            subscriptions: Member id -> subscribed topics.
            previous: Member id -> partitions owned when this rebalance started, or None
                for a fresh group.
            client: ``"java"`` (Kafka's Java client) or ``"librdkafka"``.

        Returns:
            Member id -> partitions for this round, every member present, lists sorted
            by (topic, partition).

        Raises:
            ValueError: Unknown client.
        """
        check_client(client)
        ppt, subs, prev = prepare(partitions_per_topic, subscriptions, previous)
        if client == "librdkafka":
            return librdkafka_cooperative(ppt, subs, prev)
        target = sticky_target(ppt, subs, prev)
        if not prev:
            return target
        subscribed = frozenset(
            t for topics in set(subs.values()) for t in topics if ppt.get(t, 0) > 0
        )
        claimants = clean_ownership(ppt, subs, prev, subscribed).live_claimants
        return {
            member_id: [
                tp
                for tp in partitions
                if all(claimant == member_id for claimant in claimants.get(tp, ()))
            ]
            for member_id, partitions in target.items()
        }


# Follows Apache Kafka's org.apache.kafka.clients.consumer.CooperativeStickyAssignor
# (KIP-429 "Kafka Consumer Incremental Rebalance Protocol"), built on the same
# AbstractStickyAssignor as the eager "sticky" strategy (KIP-54).
