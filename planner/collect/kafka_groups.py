"""Consumer groups as Kafka's admin API describes them -> rows of the `groups` table.

Two steps, kept apart from the admin source because they are what a broker answers
most differently:

1. `described` turns one of confluent-kafka's `ConsumerGroupDescription`s into a
   `DescribedGroup`, a plain record of what the broker reported: the group's protocol
   (`classic` or `consumer`), state, assignor, and every member with its assignment
   (and, for the consumer protocol, its target assignment). It is what a later reader
   of group protocols builds on; the live tests compare it with what Kafka's own Java
   `Admin` reports for the same groups.
2. `group_rows` maps described groups to rows, on plain values only.

What a real Apache Kafka 4.4.0 reports (checked live, `tests/collect/test_kafka_admin.py`):

- Classic groups (`group.protocol=classic`): protocol `classic`, the assignor is the
  protocol name the members agreed on (`range`, `roundrobin`, `sticky`,
  `cooperative-sticky`; the Java client's and librdkafka's names are the same), and each
  member's assignment is decoded from the group's state; no target assignment.
- Consumer-protocol groups (KIP-848, `group.protocol=consumer`): protocol `consumer`,
  the assignor is the broker's (`uniform` unless a member asked for another with
  `group.remote.assignor`; the broker offers `uniform,range`), and each member has its
  current and its target assignment.
- Share groups (KIP-932) and other non-consumer groups are not described here:
  confluent-kafka 2.16 cannot (see `planner.collect.kafka_admin.consumer_groups`).

A group's topics are those of its members' assignments (and target assignments); a
group whose members hold no assignment (it is rebalancing) falls back to the topics it
has committed offsets for. Each row keeps the group's protocol and its assignor as the
broker names them (`planner.protocols.GROUP_STRATEGIES`): a KIP-848 group is
`consumer`/`uniform`, not a classic stand-in; how the planner simulates each pair is
decided once, in `planner.protocols.planned_strategy`. A Kafka Streams application on
the classic protocol reports its task assignor, `stream`, and is kept. Any other
assignor (a custom one), a group with members but no assignor (mid-rebalance) and a
description that contradicts itself (a non-empty state with no members) are rejected
with the reason. Empty groups (no members, so no assignor) and simple groups (consumers
that `assign()` partitions themselves and only commit) are set aside: neither shares
partitions among members.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from planner.protocols import GROUP_STRATEGIES, check_group_strategy, is_streams
from planner.streams import threads_per_instance

__all__ = [
    "INTERNAL_PREFIX",
    "DescribedGroup",
    "DescribedMember",
    "GroupScan",
    "described",
    "group_rows",
]

INTERNAL_PREFIX = "__"
"""Kafka's internal topics (`__consumer_offsets`, `__transaction_state`...) start so."""
TopicPartitions = tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class DescribedMember:
    """One member of a described group.

    Attributes:
        member_id: The member id the broker gave (classic: `<client id>-<uuid>`;
            consumer protocol: a base64 UUID the client chose).
        client_id: The member's `client.id`.
        group_instance_id: Its `group.instance.id` (static membership), or None.
        assignment: The (topic, partition)s it owns now, sorted.
        target_assignment: The consumer protocol's target it reconciles towards, sorted;
            None for a classic group.
    """

    member_id: str
    client_id: str
    group_instance_id: str | None
    assignment: TopicPartitions
    target_assignment: TopicPartitions | None = None


@dataclass(frozen=True)
class DescribedGroup:
    """What the broker reported about one consumer group.

    Attributes:
        group_id: The group id.
        protocol: `classic` or `consumer` (KIP-848).
        state: librdkafka's name of the group state: `STABLE`, `EMPTY`, `DEAD`,
            `PREPARING_REBALANCING`, `COMPLETING_REBALANCING` or `UNKNOWN`.
        assignor: The partition assignor (classic: the protocol name the members chose;
            consumer protocol: the broker's assignor); "" when none.
        simple: A group of consumers that assign partitions themselves and only commit.
        members: Its members, sorted by member id.
    """

    group_id: str
    protocol: str
    state: str
    assignor: str
    simple: bool = False
    members: tuple[DescribedMember, ...] = ()

    @property
    def topics(self) -> set[str]:
        """Every topic a member owns or is to own."""
        found: set[str] = set()
        for member in self.members:
            for assignment in (member.assignment, member.target_assignment or ()):
                found.update(topic for topic, _ in assignment)
        return found


def _partitions(assignment: Any) -> TopicPartitions:
    if assignment is None:
        return ()
    return tuple(
        sorted((str(tp.topic), int(tp.partition)) for tp in assignment.topic_partitions or ())
    )


def described(description: Any) -> DescribedGroup:
    """A confluent-kafka `ConsumerGroupDescription` as a `DescribedGroup`.

    librdkafka asks the KIP-848 `ConsumerGroupDescribe` first and falls back to the
    classic `DescribeGroups` when the broker says the group is not a consumer-protocol
    group; a description whose type is not `CONSUMER` is a classic one.
    """
    kind = getattr(getattr(description, "type", None), "name", "")
    state = description.state
    members = []
    for member in description.members or ():
        target = getattr(member, "target_assignment", None)
        members.append(
            DescribedMember(
                member_id=str(member.member_id),
                client_id=str(member.client_id or ""),
                group_instance_id=member.group_instance_id or None,
                assignment=_partitions(member.assignment),
                target_assignment=None if target is None else _partitions(target),
            )
        )
    return DescribedGroup(
        group_id=str(description.group_id),
        protocol="consumer" if kind == "CONSUMER" else "classic",
        state=str(getattr(state, "name", state)),
        assignor=str(description.partition_assignor or ""),
        simple=bool(description.is_simple_consumer_group),
        members=tuple(sorted(members, key=lambda m: m.member_id)),
    )


@dataclass
class GroupScan:
    """Group rows and what was set aside, from `group_rows`."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[tuple[str, str, str | None, str]] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    simple: list[str] = field(default_factory=list)
    from_offsets: list[str] = field(default_factory=list)


def _unplannable(group: DescribedGroup) -> tuple[str, str | None, str] | None:
    """(field, value, reason) of a group with members but no assignor the planner knows."""
    if not group.assignor:
        return (
            "strategy",
            None,
            f"the broker reports no partition assignor for group {group.group_id!r} "
            f"(state {group.state}; a group that is rebalancing has none yet)",
        )
    why = check_group_strategy(group.protocol, group.assignor)
    if why is None:
        return None
    known = ", ".join(GROUP_STRATEGIES.get(group.protocol, ()))
    return (
        "strategy",
        group.assignor,
        f"group {group.group_id!r} ({group.protocol} protocol) uses the partition assignor "
        f"{group.assignor!r}, which the planner cannot simulate (it knows {known})",
    )


def group_rows(
    groups: Iterable[DescribedGroup], committed_topics: Callable[[str], set[str]]
) -> GroupScan:
    """Turn described groups into `groups` rows.

    Args:
        groups: The groups as the broker described them.
        committed_topics: Group id -> the topics it committed offsets for; asked only for
            groups whose members hold no assignment.

    Returns:
        The rows, and per group set aside why: rejected (group, field, value, reason),
        empty, simple; and the groups whose topics came from committed offsets.
    """
    scan = GroupScan()
    for group in groups:
        group_id = group.group_id
        if group.simple:
            scan.simple.append(group_id)
            continue
        if not group.members:
            if group.state in ("EMPTY", "DEAD"):
                scan.empty.append(group_id)
            else:
                scan.rejected.append(
                    (
                        group_id,
                        "members",
                        "0",
                        f"the broker describes group {group_id!r} as {group.state} but lists "
                        f"no members, so its size and topics are unknown",
                    )
                )
            continue
        unplannable = _unplannable(group)
        if unplannable is not None:
            scan.rejected.append((group_id, *unplannable))
            continue
        topics = group.topics
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
        # A Kafka Streams application's threads per instance, where its members'
        # client ids name them (`planner.streams.threads_per_instance`).
        threads = (
            threads_per_instance(m.client_id for m in group.members)
            if is_streams(group.protocol, group.assignor)
            else None
        )
        scan.rows.extend(
            {
                "group_id": group_id,
                "topic": t,
                "protocol": group.protocol,
                "strategy": group.assignor,
                "members": len(group.members),
                "stream_threads": threads,
            }
            for t in sorted(topics)
        )
    return scan
