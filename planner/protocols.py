"""A consumer group's protocol and assignor, as the `groups` table names them.

Kafka 4 runs four kinds of groups, and the broker reports each with its own assignor
names (`describeConsumerGroups`, `describeShareGroups`, `describeStreamsGroups`):

* `classic`: the client assigns with `partition.assignment.strategy` (`range`,
  `roundrobin`, `sticky`, `cooperative-sticky`); a Kafka Streams application on the
  classic protocol reports its task assignor, `stream`.
* `consumer` (KIP-848, GA in Kafka 4.0): the broker assigns with `uniform` or `range`
  (`group.consumer.assignors`).
* `share` (KIP-932, GA in 4.2): the broker assigns with `simple`
  (`group.share.assignors`); a partition may have several members.
* `streams` (KIP-1071, GA in 4.2 with limits): the broker assigns tasks with its
  `sticky` task assignor (`group.streams.assignors`).

This module is the one list of which (protocol, assignor) pairs a `groups` row may hold,
the one rule of how the planning simulates each (`planned_strategy`) and of which
assignors a group may be planned with instead (`candidate_strategies`). It is
standard library only, so the DAGs' forms and the expectations can take their choices
from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

__all__ = [
    "DEFAULT_PROTOCOL",
    "GROUP_STRATEGIES",
    "PROTOCOLS",
    "assignor_of",
    "candidate_strategies",
    "check_group_strategy",
    "is_streams",
    "planned_strategy",
    "simulation_key",
]

PROTOCOLS: Final[tuple[str, ...]] = ("classic", "consumer", "share", "streams")
"""Group protocols (Kafka's group types), as the `groups` table's `protocol` column names them."""

DEFAULT_PROTOCOL: Final[str] = "classic"
"""What a `groups` row without a protocol runs (the column was added after the table)."""

GROUP_STRATEGIES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "classic": ("range", "roundrobin", "sticky", "cooperative-sticky", "stream"),
        "consumer": ("uniform", "range"),
        "share": ("simple",),
        "streams": ("sticky",),
    }
)
"""Protocol -> the assignor names a broker reports for its groups (Kafka 4.4.0's)."""

# A Kafka Streams application works in tasks, one per partition number of its
# co-partitioned input topics, spread by count and stickily over its stream threads.
# Over one input topic the tasks are that topic's partitions: cooperative-sticky, as the
# threads rebalance cooperatively (since Kafka 2.4); with one thread per instance a fresh
# group's cut is exactly Kafka's (planner.assignors.streams_classic, tested). Over
# several, task i reads partition i of every input topic, so one thread gets the same
# partition numbers of each and a thread beyond the task count is idle: the classic
# range's counts per member, though Kafka deals the task numbers where range cuts
# consecutive blocks (and range's churn, all revoked, overstates a cooperative
# rebalance). docs/assignors.md, "Kafka Streams on the classic protocol", says more.
_STREAMS: Final[frozenset[tuple[str, str]]] = frozenset(
    {("classic", "stream"), ("streams", "sticky")}
)


def check_group_strategy(protocol: str | None, strategy: str | None) -> str | None:
    """Why a (protocol, assignor) pair cannot be a `groups` row, or None when it can.

    Args:
        protocol: One of `PROTOCOLS`; None or "" means `DEFAULT_PROTOCOL`.
        strategy: The assignor name the broker reports.
    """
    protocol = protocol or DEFAULT_PROTOCOL
    known = GROUP_STRATEGIES.get(protocol)
    if known is None:
        return f"unknown group protocol {protocol!r} (one of {', '.join(PROTOCOLS)})"
    if strategy not in known:
        return f"{protocol} groups use the assignors {', '.join(known)}, not {strategy!r}"
    return None


def simulation_key(protocol: str | None, assignor: str) -> str:
    """How the simulation names an assignor of a protocol: a classic strategy by its bare
    name (`range`), any other as `protocol:assignor` (`consumer:range`, `share:simple`);
    `planner.simulate.strategies` lists the keys it simulates."""
    protocol = protocol or DEFAULT_PROTOCOL
    return assignor if protocol == DEFAULT_PROTOCOL else f"{protocol}:{assignor}"


def is_streams(protocol: str | None, strategy: str | None) -> bool:
    """Whether a group is a Kafka Streams application (classic `stream`, or KIP-1071)."""
    return (protocol or DEFAULT_PROTOCOL, strategy or "") in _STREAMS


def planned_strategy(protocol: str | None, strategy: str, *, topics: int = 1) -> str:
    """The strategy key the planning simulates a group with.

    A classic group, a consumer-protocol group and a share group are simulated with
    their own assignor (`simulation_key`). A Kafka Streams application assigns tasks,
    not partitions: it is planned as the classic strategy that cuts them alike (see
    `_STREAMS`'s comment).

    Args:
        protocol: The group's protocol (None or "" means `DEFAULT_PROTOCOL`).
        strategy: Its assignor, valid for the protocol (see `check_group_strategy`).
        topics: How many topics the group reads (a Kafka Streams application's input
            topics are planned as co-partitioned when there are several).

    Raises:
        ValueError: The pair is not a valid `groups` row.
    """
    protocol = protocol or DEFAULT_PROTOCOL
    why = check_group_strategy(protocol, strategy)
    if why is not None:
        raise ValueError(why)
    if (protocol, strategy) in _STREAMS:
        return "cooperative-sticky" if topics <= 1 else "range"
    return simulation_key(protocol, strategy)


def candidate_strategies(
    protocol: str | None, strategy: str, *, topics: int = 1
) -> tuple[str, ...]:
    """The strategy keys a group may be planned with: the assignors of its own protocol.

    A group can change assignor within its protocol by configuration (a classic
    group's `partition.assignment.strategy`, a consumer-protocol group's
    `group.remote.assignor`); a change of protocol is an alternative the plan states
    apart (`planner.recommend.alternatives`). A share group has one assignor, and a Kafka
    Streams application's task assignor is not the consumers' to choose: one candidate.

    Raises:
        ValueError: The pair is not a valid `groups` row.
    """
    planned = planned_strategy(protocol, strategy, topics=topics)
    protocol = protocol or DEFAULT_PROTOCOL
    if (protocol, strategy) in _STREAMS:
        return (planned,)
    return tuple(
        simulation_key(protocol, name)
        for name in GROUP_STRATEGIES[protocol]
        if (protocol, name) not in _STREAMS
    )


def assignor_of(protocol: str | None, strategy: str, key: str) -> str:
    """The assignor, as the broker names it, a group of (protocol, strategy) runs when
    planned with the simulation key `key` (one of its `candidate_strategies`): the key's
    assignor, or a Kafka Streams application's own."""
    if is_streams(protocol, strategy):
        return strategy
    return key.rpartition(":")[2]
