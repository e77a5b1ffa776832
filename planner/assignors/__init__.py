"""Kafka's group assignment strategies, exactly as Kafka computes them.

Use :func:`assign` with a strategy name, the partition count of each topic, each member's
Subscription and what each member held before. Three protocols:

* ``classic`` (the default): the client-side ``range``, ``roundrobin``, ``sticky`` and
  ``cooperative-sticky``, as the Java client (or librdkafka) computes them;
* ``consumer`` (KIP-848): the broker-side ``uniform`` and ``range``;
* ``share`` (KIP-932): the broker-side ``simple``, which may give a partition to several
  members.

See ``docs/assignors.md`` for the rules, tie-breaking and how they were verified.
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
from planner.assignors._racks import Racks
from planner.assignors._server_assignor import ServerAssignor
from planner.assignors._server_group import InstanceIds
from planner.assignors._topic_ids import TopicIds
from planner.assignors.consumer_range import ConsumerRangeAssignor
from planner.assignors.cooperative_sticky import CooperativeStickyAssignor
from planner.assignors.range import RangeAssignor
from planner.assignors.roundrobin import RoundRobinAssignor
from planner.assignors.simple import SimpleAssignor
from planner.assignors.sticky import CLIENTS, StickyAssignor, check_client, check_racks
from planner.assignors.uniform import UniformAssignor

__all__ = [
    "CLIENTS",
    "PROTOCOLS",
    "PROTOCOL_STRATEGIES",
    "STRATEGIES",
    "Assignment",
    "ConsumerRangeAssignor",
    "CooperativeStickyAssignor",
    "InstanceIds",
    "PartitionsPerTopic",
    "PreviousAssignment",
    "Racks",
    "RangeAssignor",
    "RoundRobinAssignor",
    "SimpleAssignor",
    "StickyAssignor",
    "Subscription",
    "Subscriptions",
    "TopicIds",
    "TopicPartition",
    "UniformAssignor",
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


class _RackAwareAssignor(Protocol):
    name: str

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        racks: Racks | None = None,
    ) -> Assignment: ...


# KIP-881 made these three rack-aware; Kafka's RoundRobinAssignor ignores racks.
_RACK_AWARE: dict[str, _RackAwareAssignor] = {
    a.name: a for a in (RangeAssignor(), StickyAssignor(), CooperativeStickyAssignor())
}

_ASSIGNORS: dict[str, _Assignor] = {
    a.name: a
    for a in (RangeAssignor(), RoundRobinAssignor(), StickyAssignor(), CooperativeStickyAssignor())
}

STRATEGIES: tuple[str, ...] = tuple(_ASSIGNORS)
"""The classic protocol's strategy names, as ``partition.assignment.strategy`` spells them."""


_SERVER_ASSIGNORS: dict[str, dict[str, ServerAssignor]] = {
    "consumer": {a.name: a for a in (UniformAssignor(), ConsumerRangeAssignor())},
    "share": {a.name: a for a in (SimpleAssignor(),)},
}

PROTOCOLS: tuple[str, ...] = ("classic", "consumer", "share")
"""The group protocols: ``classic``, ``consumer`` (KIP-848) and ``share`` (KIP-932)."""

PROTOCOL_STRATEGIES: dict[str, tuple[str, ...]] = {
    "classic": STRATEGIES,
    **{protocol: tuple(assignors) for protocol, assignors in _SERVER_ASSIGNORS.items()},
}
"""Protocol -> its strategy names (the broker's ``group.consumer.assignors`` names for
``consumer``, ``group.share.assignors`` for ``share``)."""


def assign(
    strategy: str,
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None = None,
    *,
    client: str = "java",
    protocol: str = "classic",
    topic_ids: TopicIds | None = None,
    instance_ids: InstanceIds | None = None,
    racks: Racks | None = None,
) -> Assignment:
    """Assign the partitions of the subscribed topics to the members of a group.

    Args:
        strategy: One of ``PROTOCOL_STRATEGIES[protocol]``: :data:`STRATEGIES` for the
            classic protocol, ``"uniform"`` or ``"range"`` for the consumer protocol,
            ``"simple"`` for share groups.
        partitions_per_topic: Topic -> partition count. Topics nobody subscribes to,
            and topics with 0 partitions, are ignored.
        subscriptions: Member id -> the topics it subscribes to (its Subscription).
            Topics missing from ``partitions_per_topic`` are ignored. The order of the
            members stands for the JoinGroup response's order, which the sticky
            strategies' Java hash tables follow for member ids sharing a bucket.
        previous: Member id -> the partitions it owned in the last generation, or None
            for a fresh group. Of the classic strategies only the sticky ones read it.
            For the consumer and share protocols it is each member's current *target*
            assignment (what the coordinator last decided); ``uniform`` and ``simple``
            read it, the broker's ``range`` does not.
        client: Whose assignor to reproduce, one of :data:`CLIENTS`: ``"java"``
            (Kafka's Java client) or ``"librdkafka"`` (confluent-kafka and other
            librdkafka-based clients). Only the classic sticky strategies differ:
            librdkafka gives the same counts with identical subscriptions, but moves
            other partitions. The consumer and share protocols assign on the broker,
            whatever the client.
        protocol: One of :data:`PROTOCOLS`.
        topic_ids: Consumer and share protocols: topic -> Kafka topic id (the base64
            form Kafka prints, or a ``uuid.UUID``). The broker's assignors hash and sort
            topic ids; without them stand-in ids are used, which gives the same counts
            per member but possibly other partitions than the broker's.
        instance_ids: Consumer protocol's ``range``: member id -> ``group.instance.id``
            of static members (sorted first, by instance id).
        racks: Members' ``client.rack`` and the racks of the partitions' replicas
            (KIP-881). The classic ``range``, ``sticky`` and ``cooperative-sticky`` of the
            Java client use them when Kafka's condition holds (some member has a rack that
            holds a replica, and not every partition is on the same set of racks);
            ``roundrobin`` ignores them, as do the consumer and share protocols' assignors
            in Kafka 4.4.0. None (the default) gives exactly the result without racks.

    Returns:
        Member id -> its partitions as ``TopicPartition(topic, partition)`` (equal to a
        ``(topic, partition)`` tuple), every member present (an idle one with an empty
        list), each list sorted by (topic, partition).

    Raises:
        ValueError: Unknown strategy or client, a negative partition count, or racks
            with ``client="librdkafka"`` (its rack-aware variant is not modelled).
        TypeError: Malformed inputs (e.g. a bare string as a Subscription).

    Example:
        >>> from planner.assignors import assign
        >>> members = {"c0": ["t"], "c1": ["t"], "c2": ["t"], "c3": ["t"], "c4": ["t"]}
        >>> result = assign("range", {"t": 7}, members)
        >>> {m: [p for _, p in tps] for m, tps in result.items()}
        {'c0': [0, 1], 'c1': [2, 3], 'c2': [4], 'c3': [5], 'c4': [6]}
    """
    check_racks(client if protocol == "classic" else "java", racks)
    if protocol != "classic":
        # Kafka 4.4.0's broker-side assignors read neither member racks nor
        # racksForPartition (docs/assignors.md), so racks change nothing there.
        return _assign_on_broker(
            strategy,
            partitions_per_topic,
            subscriptions,
            previous,
            client=client,
            protocol=protocol,
            topic_ids=topic_ids,
            instance_ids=instance_ids,
        )
    if topic_ids is not None or instance_ids is not None:
        raise ValueError("topic_ids and instance_ids are for the consumer and share protocols")
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
    if racks is not None:
        rack_aware = _RACK_AWARE.get(strategy)
        if rack_aware is not None:
            return rack_aware.assign(partitions_per_topic, subscriptions, previous, racks=racks)
    return assignor.assign(partitions_per_topic, subscriptions, previous)


def _assign_on_broker(
    strategy: str,
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None,
    *,
    client: str,
    protocol: str,
    topic_ids: TopicIds | None,
    instance_ids: InstanceIds | None,
) -> Assignment:
    assignors = _SERVER_ASSIGNORS.get(protocol) if isinstance(protocol, str) else None
    if assignors is None:
        raise ValueError(
            f"unknown group protocol {protocol!r}; valid protocols: {', '.join(PROTOCOLS)}"
        )
    assignor = assignors.get(strategy) if isinstance(strategy, str) else None
    if assignor is None:
        raise ValueError(
            f"unknown {protocol} protocol assignor {strategy!r}; valid: {', '.join(assignors)}"
        )
    check_client(client)  # valid, but the broker assigns whatever the client
    return assignor.assign(
        partitions_per_topic,
        subscriptions,
        previous,
        topic_ids=topic_ids,
        instance_ids=instance_ids,
    )
