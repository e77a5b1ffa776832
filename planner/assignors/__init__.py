"""Kafka's consumer-group assignment strategies, exactly as the Java client computes them.

Use :func:`assign` with a strategy name (``"range"``, ``"roundrobin"``, ``"sticky"``,
``"cooperative-sticky"``), the partition count of each topic, each member's
Subscription and, for the sticky strategies, what each member owned before. See
``docs/assignors.md`` for the rules, tie-breaking and how they were verified.
"""

from __future__ import annotations

from typing import Protocol

from planner.assignors._members import (
    Assignment,
    PartitionsPerTopic,
    PreviousAssignment,
    Subscription,
    Subscriptions,
    TopicPartition,
    java_order_key,
)
from planner.assignors.cooperative_sticky import CooperativeStickyAssignor
from planner.assignors.range import RangeAssignor
from planner.assignors.roundrobin import RoundRobinAssignor
from planner.assignors.sticky import CLIENTS, StickyAssignor, check_client

__all__ = [
    "CLIENTS",
    "STRATEGIES",
    "Assignment",
    "CooperativeStickyAssignor",
    "PartitionsPerTopic",
    "PreviousAssignment",
    "RangeAssignor",
    "RoundRobinAssignor",
    "StickyAssignor",
    "Subscription",
    "Subscriptions",
    "TopicPartition",
    "assign",
    "java_order_key",
]


class _Assignor(Protocol):
    name: str

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
    ) -> Assignment: ...


class _ClientAwareAssignor(Protocol):
    name: str

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        client: str = "java",
    ) -> Assignment: ...


# The sticky strategies are where Java and librdkafka choose differently.
_CLIENT_AWARE: dict[str, _ClientAwareAssignor] = {
    a.name: a for a in (StickyAssignor(), CooperativeStickyAssignor())
}

_ASSIGNORS: dict[str, _Assignor] = {
    a.name: a
    for a in (RangeAssignor(), RoundRobinAssignor(), StickyAssignor(), CooperativeStickyAssignor())
}

STRATEGIES: tuple[str, ...] = tuple(_ASSIGNORS)
"""The strategy names, as Kafka's ``partition.assignment.strategy`` spells them."""


def assign(
    strategy: str,
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None = None,
    *,
    client: str = "java",
) -> Assignment:
    """Assign the partitions of the subscribed topics to the members of a consumer group.

    Args:
        strategy: One of :data:`STRATEGIES`.
        partitions_per_topic: Topic -> partition count. Topics nobody subscribes to,
            and topics with 0 partitions, are ignored.
        subscriptions: Member id -> the topics it subscribes to (its Subscription).
            Topics missing from ``partitions_per_topic`` are ignored. The order of the
            members stands for the JoinGroup response's order, which the sticky
            strategies' Java hash tables follow for member ids sharing a bucket.
        previous: Member id -> the partitions it owned in the last generation, or None
            for a fresh group. Only the sticky strategies read it.
        client: Whose assignor to reproduce, one of :data:`CLIENTS`: ``"java"``
            (Kafka's Java client) or ``"librdkafka"`` (confluent-kafka and other
            librdkafka-based clients). Only the sticky strategies differ: librdkafka
            gives the same counts with identical subscriptions, but moves other
            partitions. ``range`` and ``roundrobin`` give the same result for both.

    Returns:
        Member id -> its partitions as ``TopicPartition(topic, partition)`` (equal to a
        ``(topic, partition)`` tuple), every member present (an idle one with an empty
        list), each list sorted by (topic, partition).

    Raises:
        ValueError: Unknown strategy or client, or a negative partition count.
        TypeError: Malformed inputs (e.g. a bare string as a Subscription).

    Example:
        >>> from planner.assignors import assign
        >>> members = {"c0": ["t"], "c1": ["t"], "c2": ["t"], "c3": ["t"], "c4": ["t"]}
        >>> result = assign("range", {"t": 7}, members)
        >>> {m: [p for _, p in tps] for m, tps in result.items()}
        {'c0': [0, 1], 'c1': [2, 3], 'c2': [4], 'c3': [5], 'c4': [6]}
    """
    assignor = _ASSIGNORS.get(strategy) if isinstance(strategy, str) else None
    if assignor is None:
        raise ValueError(
            f"unknown assignment strategy {strategy!r}; valid strategies: {', '.join(STRATEGIES)}"
        )
    check_client(client)
    if client != "java":
        client_aware = _CLIENT_AWARE.get(strategy)
        if client_aware is not None:
            return client_aware.assign(partitions_per_topic, subscriptions, previous, client=client)
    return assignor.assign(partitions_per_topic, subscriptions, previous)
