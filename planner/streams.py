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

import math
import re
from collections.abc import Iterable
from typing import Literal

__all__ = [
    "INTERNAL_KINDS",
    "InternalKind",
    "instances_for",
    "internal_topic_of",
    "threads_per_instance",
]

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


# A Kafka Streams thread's main consumer: `<client.id>-StreamThread-<n>-consumer`, where
# `client.id` defaults to `<application.id>-<process UUID>`, one per instance.
_THREAD_CLIENT = re.compile(r"^(?P<instance>.+)-StreamThread-(?P<thread>[0-9]+)-consumer$")


def threads_per_instance(client_ids: Iterable[str]) -> int | None:
    """The stream threads each instance of a Kafka Streams application runs
    (`num.stream.threads`), from its group members' client ids; None when they do not
    say (an id not of a stream thread's consumer, none at all, or instances running
    different counts).

    Example:
        >>> ids = [f"wc-{p}-StreamThread-{t}-consumer" for p in ("a1", "b2") for t in (1, 2)]
        >>> threads_per_instance(ids)
        2
        >>> threads_per_instance(["wc-a1-StreamThread-1-consumer", "audit-1"]) is None
        True
    """
    threads: dict[str, set[int]] = {}
    for client in client_ids:
        found = _THREAD_CLIENT.match(client or "")
        if found is None:
            return None
        threads.setdefault(found["instance"], set()).add(int(found["thread"]))
    counts = {len(t) for t in threads.values()}
    return counts.pop() if len(counts) == 1 else None


def instances_for(threads: int, per_instance: int) -> int:
    """Instances that run `threads` stream threads at `per_instance` each (rounded up).

    Example:
        >>> instances_for(10, 4)
        3
    """
    if per_instance < 1:
        raise ValueError(f"per_instance must be at least 1, got {per_instance}")
    return max(1, math.ceil(threads / per_instance))
