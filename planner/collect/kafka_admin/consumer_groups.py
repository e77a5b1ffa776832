"""The cluster's consumer groups, as far as confluent-kafka 2.16 can list and describe them.

Every group of `list_consumer_groups` is described with `describe_consumer_groups`
(librdkafka asks the KIP-848 `ConsumerGroupDescribe` first and falls back to the
classic `DescribeGroups` when the broker says the group is a classic one); the
committed offsets are read only for a group whose members hold no assignment. How a
description becomes rows: `planner.collect.kafka_groups`.

What the client library cannot do, found against Apache Kafka 4.4.0:

- Share groups (KIP-932). confluent-kafka 2.16.1 has a share *consumer*
  (`confluent_kafka.ShareConsumer`), but its admin client has no call that describes a
  share group, `ConsumerGroupType` has no share type, and `list_consumer_groups` leaves
  share groups out. Asked to describe one, `describe_consumer_groups` answers a classic
  group in state `DEAD` with no members, the same as for a group that does not exist.
  Only the deprecated `list_groups` (ListGroups on every broker, then the classic
  DescribeGroups of every group it found) names them, with their protocol type. So a
  share group's members and their assignments cannot be read here; Kafka's own
  `kafka-share-groups` reads them (`group_tools`), and a share group it lists no member
  of is an empty one.
- Kafka Streams groups of the broker's `streams` protocol (KIP-1071) likewise come from
  `kafka-streams-groups`; whatever else `list_groups` lists beyond the consumer groups
  (Kafka Connect workers' groups) is named in a note by its protocol type
  (`other_group_notes`).
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from planner.collect.base import SourceUnavailable
from planner.collect.kafka_admin.calls import (
    AdminCalls,
    Refused,
    error_text,
    is_transient,
    kafka_error,
    names,
)
from planner.collect.kafka_admin.findings import Bad
from planner.collect.kafka_groups import DescribedGroup, described

__all__ = ["GroupsRead", "committed_topics", "other_group_notes", "read_groups"]

_CHUNK = 500  # groups per describe call


@dataclass
class GroupsRead:
    """The groups of the cluster as the client library sees them.

    Attributes:
        described: Every consumer group (classic or consumer protocol), described.
        failures: Groups that could not be described: (group, field, value, reason).
        others: Groups ListGroups names that are not consumer groups (share groups,
            Streams groups, Connect workers...): (group id, protocol type; empty when
            the broker gave none).
        notes: What could not be listed.
    """

    described: list[DescribedGroup] = field(default_factory=list)
    failures: list[Bad] = field(default_factory=list)
    others: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_groups(calls: AdminCalls, admin: Any, *, others: bool = True) -> GroupsRead:
    """List and describe every consumer group; name the groups of other kinds.

    Args:
        calls: Time-outs and retries.
        admin: The admin client.
        others: Also name the groups of other kinds (ListGroups on every broker and a
            classic describe of each group: a request per group, which the observer,
            reading groups every sample and naming none of those, does without).

    Raises:
        SourceUnavailable: the groups could not be listed or described within the retries.
    """
    read = GroupsRead()
    listing = calls.must(
        "list consumer groups",
        lambda: calls.result(admin.list_consumer_groups(request_timeout=calls.timeout_s)),
    )
    for error in listing.errors or ():
        read.notes.append(
            f"some consumer groups could not be listed: {error_text(kafka_error(error))}"
        )
    group_ids = sorted({g.group_id for g in listing.valid})
    for start in range(0, len(group_ids), _CHUNK):
        chunk = group_ids[start : start + _CHUNK]
        got, lost = calls.must("describe consumer groups", partial(_describe, calls, admin, chunk))
        read.described.extend(got)
        read.failures.extend(lost)
    if others:
        _other_groups(calls, admin, set(group_ids), read)
    return read


def _describe(
    calls: AdminCalls, admin: Any, group_ids: list[str]
) -> tuple[list[DescribedGroup], list[Bad]]:
    """Describe `group_ids`; a curable error of any group fails (and retries) all."""
    from confluent_kafka import KafkaException

    futures = admin.describe_consumer_groups(group_ids, request_timeout=calls.timeout_s)
    got: list[DescribedGroup] = []
    lost: list[Bad] = []
    for group_id, future in futures.items():
        try:
            got.append(described(calls.result(future)))
        except KafkaException as exc:
            error = kafka_error(exc)
            if is_transient(error):
                raise
            lost.append(
                (
                    group_id,
                    "group_id",
                    group_id,
                    f"cannot describe group {group_id!r}: {error_text(error)}",
                )
            )
    return got, lost


def _other_groups(calls: AdminCalls, admin: Any, consumer_ids: set[str], read: GroupsRead) -> None:
    """Name the groups ListGroups lists beyond the consumer groups (share, streams...).

    Best effort: they are not collected, so a failure here only costs a note.
    """

    def listed() -> list[Any]:
        # The deprecated `list_groups` is the only call of confluent-kafka 2.16 that
        # lists every group type (it sends ListGroups without a type filter).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return list(admin.list_groups(timeout=calls.timeout_s))

    try:
        groups = calls.call("list groups of every type", listed)
    except (Refused, SourceUnavailable) as exc:  # they stay unnamed, nothing more
        read.notes.append(f"groups other than consumer groups could not be listed: {exc}")
        return
    for group in sorted(groups, key=lambda g: str(g.id)):
        group_id = str(group.id)
        kind = str(group.protocol_type or "")
        # A classic consumer group that appeared after the first listing says so.
        if group_id in consumer_ids or kind == "consumer":
            continue
        read.others.append((group_id, kind))


#: The group kinds Kafka's own tools describe (`group_tools`), by protocol type.
_TOOL_KINDS = ("share", "streams")


def other_group_notes(others: Sequence[tuple[str, str]], described: Collection[str]) -> list[str]:
    """The notes naming the groups left of `others` once Kafka's tools described theirs.

    Args:
        others: (group id, protocol type) of each group that is no consumer group, and
            that no tool described with members.
        described: The kinds (`share`, `streams`) whose tool ran and was read: a group of
            such a kind left here has no member (the tools list members), so it is an
            empty group, not one nobody could describe.
    """
    by_kind: dict[str, list[str]] = {}
    for group_id, kind in others:
        by_kind.setdefault(kind, []).append(group_id)
    notes = []
    for kind, ids in sorted(by_kind.items()):
        if kind in _TOOL_KINDS and kind in described:
            what = f"empty {kind} group(s) (kafka-{kind}-groups lists no member) skipped"
        elif kind in _TOOL_KINDS:
            what = f"{kind} group(s) skipped, not described (Kafka's tools did not run, above)"
        else:
            shown = f"protocol type {kind}" if kind else "no protocol type given"
            what = (
                f"group(s) of another kind ({shown}: not consumer, share or streams groups, "
                "e.g. Kafka Connect workers) skipped"
            )
        notes.append(f"{len(ids)} {what}: {names(ids)}")
    return notes


def committed_topics(calls: AdminCalls, admin: Any, group_id: str) -> set[str]:
    """The topics `group_id` committed offsets for; empty when they cannot be read."""
    from confluent_kafka import ConsumerGroupTopicPartitions

    def read() -> set[str]:
        futures = admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(group_id)], request_timeout=calls.timeout_s
        )
        answer = calls.result(futures[group_id])
        return {tp.topic for tp in answer.topic_partitions or () if tp.offset >= 0}

    try:
        return calls.call(f"read committed offsets of group {group_id!r}", read)
    except Refused:
        return set()
