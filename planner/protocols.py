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
and the one rule of how the planning grid plans each today (`planned_strategy`). It is
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
    "check_group_strategy",
    "planned_strategy",
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

# How the planning grid plans a group whose assignor it does not simulate itself yet:
# the classic strategy that assigns the same counts per member and revokes the same way.
# `uniform` balances counts and moves only what must move (cooperative-sticky does the
# same on a fresh or grown group); the broker's `range` cuts each topic as the classic
# range does. Share groups are not in this table: no classic strategy gives a partition
# to several members.
_PLANNED_AS: Final[Mapping[tuple[str, str], str]] = MappingProxyType(
    {
        ("consumer", "uniform"): "cooperative-sticky",
        ("consumer", "range"): "range",
    }
)
# A Kafka Streams application works in tasks, one per partition number of its
# co-partitioned input topics, spread by count and stickily over its stream threads.
# Over one input topic the tasks are that topic's partitions: cooperative-sticky, as the
# threads rebalance cooperatively (since Kafka 2.4). Over several, task i reads partition
# i of every input topic, so one thread gets the same partition numbers of each and a
# thread beyond the task count is idle: that is the classic range's cut (its churn, all
# revoked, overstates a cooperative rebalance).
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


def planned_strategy(protocol: str | None, strategy: str, *, topics: int = 1) -> str | None:
    """The classic strategy the planning grid simulates for a group, or None for none.

    The grid simulates the four classic client strategies. A group on another protocol
    (or a Streams application) is planned as the classic strategy whose assignment has
    the same member counts and whose rebalances revoke the same way; share groups have
    no such strategy (None).

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
    if protocol == "share":
        return None
    if (protocol, strategy) in _STREAMS:
        return "cooperative-sticky" if topics <= 1 else "range"
    return _PLANNED_AS.get((protocol, strategy), strategy)
