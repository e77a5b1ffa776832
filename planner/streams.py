"""Kafka Streams applications and the topics they own: what a partition change does to them.

A Kafka Streams application (`application.id`, which is also its consumer or streams
group id) cuts its topology into subtopologies; a subtopology runs one task per
partition of its input topics (the largest count among them), and keeps two kinds of
internal topics named after the application:

- `<application.id>-<name>-repartition`: written by one subtopology, read by the next,
  created by Kafka Streams with the partition count of the subtopology that reads it;
- `<application.id>-<name>-changelog`: a state store's backup, one partition per task of
  the subtopology that owns the store, read back when a task's state is restored.

So the partition counts of an application's inputs, its repartition topics and its
changelogs are one decision. Adding partitions to an input gives its subtopology more
tasks while the existing internal topics keep theirs, and Kafka Streams refuses to run
on the mismatch (checked on Kafka 4.4.0: on the classic protocol `InternalTopicManager`
throws "Existing internal topic ... has invalid partitions: expected: M; actual: N. Use
'org.apache.kafka.tools.StreamsResetter' tool to clean up invalid topics before
processing."; on the streams protocol, KIP-1071, the group coordinator answers
`INCORRECTLY_PARTITIONED_TOPICS`, "Existing topic ... has different number of
partitions"). State is partitioned like its input, so keys moving to other partitions
also leave their state in another task. The planner therefore says so wherever it would
change such a count (`planner.notes` codes `streams-input-increase` and
`streams-internal-topic`); it does not size the application's threads from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

__all__ = ["INTERNAL_KINDS", "InternalKind", "internal_topic_of"]

InternalKind = Literal["changelog", "repartition"]
#: The suffixes Kafka Streams gives its internal topics, as kinds.
INTERNAL_KINDS: tuple[InternalKind, ...] = ("changelog", "repartition")


def internal_topic_of(topic: str, apps: Iterable[str]) -> tuple[str, InternalKind] | None:
    """The Kafka Streams application whose internal topic `topic` is, and its kind.

    A topic is an application's internal topic when it is named
    `<application.id>-<name>-changelog` or `-repartition` and that application is one of
    `apps` (groups seen as Kafka Streams applications): a name alone is not evidence.
    The longest matching application id wins (`app` and `app-v2` both prefix
    `app-v2-store-changelog`).

    Example:
        >>> internal_topic_of("orders-agg-STATE-STORE-0000000003-changelog", ["orders-agg"])
        ('orders-agg', 'changelog')
        >>> internal_topic_of("orders-agg-STATE-STORE-0000000003-changelog", ["billing"]) is None
        True
    """
    kind: InternalKind | None = next((k for k in INTERNAL_KINDS if topic.endswith(f"-{k}")), None)
    if kind is None:
        return None
    stem = topic[: -len(kind) - 1]
    owners = [a for a in apps if a and stem.startswith(f"{a}-") and len(stem) > len(a) + 1]
    if not owners:
        return None
    return max(owners, key=len), kind
