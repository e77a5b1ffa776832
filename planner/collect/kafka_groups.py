"""Consumer groups as Kafka's admin API describes them -> rows of the `groups` table.

Kept apart from the admin source because it is the part a broker answers most
differently: the mapping works on confluent-kafka's `ConsumerGroupDescription` objects
only, so it is tested on descriptions filled the way Apache Kafka fills them, while the
source is tested against whatever broker is at hand.

A group's topics are those of its members' assignments (and target assignments, for
KIP-848 groups); a group whose members hold no assignment (it is rebalancing) falls
back to the topics it has committed offsets for. Assignor names map to
`planner.assignors.STRATEGIES` unchanged for the classic protocol, where the clients
compute the assignment (`range`, `roundrobin`, `sticky`, `cooperative-sticky`). KIP-848
groups are assigned by the broker: its `range` assignor maps to `range` and its
`uniform` assignor, balanced and incremental, to `cooperative-sticky`. Any other
assignor (Kafka Streams' `stream`, a custom one), a group with members but no assignor
(mid-rebalance) and a description that contradicts itself (a non-empty state with no
members) are rejected with the reason. Empty groups (no members, so no assignor) and
simple groups (consumers that `assign()` partitions themselves and only commit) are set
aside: neither shares partitions among members.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.assignors import STRATEGIES

__all__ = [
    "CLASSIC_ASSIGNORS",
    "INTERNAL_PREFIX",
    "SERVER_ASSIGNORS",
    "GroupScan",
    "group_rows",
    "strategy_for",
]

INTERNAL_PREFIX = "__"
"""Kafka's internal topics (`__consumer_offsets`, `__transaction_state`...) start so."""
CLASSIC_ASSIGNORS: Mapping[str, str] = {name: name for name in STRATEGIES}
"""Classic-protocol assignor (protocol) names -> planner strategy: Kafka's own names."""
SERVER_ASSIGNORS: Mapping[str, str] = {"range": "range", "uniform": "cooperative-sticky"}
"""KIP-848 broker-side assignors -> the planner strategy that assigns most like them."""


def strategy_for(assignor: str, *, server_side: bool = False) -> str | None:
    """The planner strategy for a group's partition assignor, or None when it has none.

    Args:
        assignor: The assignor (protocol) name the broker reports for the group.
        server_side: The group uses the KIP-848 consumer protocol (the broker assigns).

    Returns:
        One of `planner.assignors.STRATEGIES`, or None for an assignor the planner
        cannot simulate (Kafka Streams' `stream`, a custom assignor, an empty name).
    """
    table = SERVER_ASSIGNORS if server_side else CLASSIC_ASSIGNORS
    return table.get(assignor)


@dataclass
class GroupScan:
    """Group rows and what was set aside, from `group_rows`."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[tuple[str, str, str | None, str]] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    simple: list[str] = field(default_factory=list)
    server_mapped: list[str] = field(default_factory=list)
    from_offsets: list[str] = field(default_factory=list)


def _assigned_topics(member: Any) -> set[str]:
    topics: set[str] = set()
    for assignment in (member.assignment, getattr(member, "target_assignment", None)):
        if assignment is not None:
            topics.update(tp.topic for tp in assignment.topic_partitions or ())
    return topics


def group_rows(
    descriptions: Iterable[Any], committed_topics: Callable[[str], set[str]]
) -> GroupScan:
    """Turn confluent-kafka `ConsumerGroupDescription`s into `groups` rows.

    Args:
        descriptions: The groups as `describe_consumer_groups` gave them.
        committed_topics: Group id -> the topics it committed offsets for; asked only for
            groups whose members hold no assignment.

    Returns:
        The rows, and per group set aside why: rejected (group, field, value, reason),
        empty, simple; and the groups mapped from a KIP-848 assignor or whose topics came
        from committed offsets.
    """
    from confluent_kafka import ConsumerGroupState, ConsumerGroupType

    scan = GroupScan()
    for group in descriptions:
        group_id = str(group.group_id)
        if group.is_simple_consumer_group:
            scan.simple.append(group_id)
            continue
        members = list(group.members or ())
        state = group.state
        state_name = getattr(state, "name", str(state))
        if not members:
            if state in (ConsumerGroupState.EMPTY, ConsumerGroupState.DEAD):
                scan.empty.append(group_id)
            else:
                scan.rejected.append(
                    (
                        group_id,
                        "members",
                        "0",
                        f"the broker describes group {group_id!r} as {state_name} but lists "
                        f"no members, so its size and topics are unknown",
                    )
                )
            continue
        assignor = str(group.partition_assignor or "")
        server_side = getattr(group, "type", None) == ConsumerGroupType.CONSUMER
        strategy = strategy_for(assignor, server_side=server_side)
        if strategy is None:
            if assignor:
                known = SERVER_ASSIGNORS if server_side else CLASSIC_ASSIGNORS
                reason = (
                    f"group {group_id!r} uses the partition assignor {assignor!r}, which the "
                    f"planner cannot simulate (it knows {', '.join(known)})"
                )
            else:
                reason = (
                    f"the broker reports no partition assignor for group {group_id!r} "
                    f"(state {state_name}; a group that is rebalancing has none yet)"
                )
            scan.rejected.append((group_id, "strategy", assignor or None, reason))
            continue
        if server_side and assignor != strategy:
            scan.server_mapped.append(f"{group_id} ({assignor} -> {strategy})")
        topics = set().union(*(_assigned_topics(m) for m in members))
        if not topics:
            topics = committed_topics(group_id)
            if topics:
                scan.from_offsets.append(group_id)
        topics = {t for t in topics if not t.startswith(INTERNAL_PREFIX)}
        if not topics:
            scan.rejected.append(
                (
                    group_id,
                    "topic",
                    None,
                    f"no member of group {group_id!r} holds an assignment and it has "
                    f"committed no offsets, so the topics it subscribes to are unknown",
                )
            )
            continue
        scan.rows.extend(
            {"group_id": group_id, "topic": t, "strategy": strategy, "members": len(members)}
            for t in sorted(topics)
        )
    return scan
