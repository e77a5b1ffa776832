"""Consumer groups and their committed offsets, read each sample in a long-lived child.

The collector reads groups in a child process (`planner.collect.kafka_admin.isolated`):
librdkafka 2.16 can abort the process on a failed group describe
(confluentinc/librdkafka#4605). An observer reads them every sample, so it keeps one
child alive across samples (a `spawn` costs about half a second of CPU, most of it
importing the client library) and replaces it when it dies; a sample whose child died
twice records that its groups were not read, and the observer goes on.

Committed offsets are read for every group (one `OffsetFetch` per group: confluent-kafka
2.16 takes one group per request, so they are all sent at once and then awaited).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from planner.collect.base import SourceUnavailable
from planner.collect.kafka_admin.calls import AdminCalls, error_text, kafka_error
from planner.collect.kafka_admin.consumer_groups import GroupsRead, read_groups

__all__ = ["GroupChild", "GroupsObserved", "read_groups_and_offsets"]

# (topic, partition, committed offset)
Committed = list[tuple[str, int, int]]


@dataclass
class GroupsObserved:
    """The consumer groups of one sample.

    Attributes:
        read: The groups as described (classic and consumer protocol).
        committed: Per group, its committed offsets (partitions it never committed to
            are absent).
        notes: What could not be read.
    """

    read: GroupsRead
    committed: dict[str, Committed] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


_ADMINS: dict[str, Any] = {}


def _admin(config: Mapping[str, Any]) -> Any:
    # One client per child for its whole life: a new one per sample would reconnect.
    from confluent_kafka.admin import AdminClient

    key = repr(sorted((k, repr(v)) for k, v in config.items()))
    if key not in _ADMINS:
        _ADMINS[key] = AdminClient(dict(config))
    return _ADMINS[key]


def read_groups_and_offsets(config: Mapping[str, Any], calls: AdminCalls) -> GroupsObserved:
    """What the child runs: every group described, and its committed offsets."""
    from confluent_kafka import ConsumerGroupTopicPartitions, KafkaException

    admin = _admin(config)
    read = read_groups(calls, admin)
    observed = GroupsObserved(read, notes=list(read.notes))
    futures = {
        g.group_id: admin.list_consumer_group_offsets(
            [ConsumerGroupTopicPartitions(g.group_id)], request_timeout=calls.timeout_s
        )[g.group_id]
        for g in read.described
    }
    for group_id, future in futures.items():
        try:
            answer = calls.result(future)
        except KafkaException as exc:
            observed.notes.append(
                f"committed offsets of group {group_id!r} not read: {error_text(kafka_error(exc))}"
            )
            continue
        except TimeoutError:
            observed.notes.append(f"committed offsets of group {group_id!r} timed out")
            continue
        observed.committed[group_id] = [
            (str(tp.topic), int(tp.partition), int(tp.offset))
            for tp in answer.topic_partitions or ()
            if tp.offset >= 0
        ]
    return observed


class GroupChild:
    """A child process that reads the groups, kept across samples, replaced when it dies."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    def read(self, config: Mapping[str, Any], calls: AdminCalls) -> GroupsObserved:
        """Read the groups in the child.

        Raises:
            SourceUnavailable: the cluster could not be reached, or two children died.
        """
        for _ in range(2):
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn")
                )
            try:
                return self._pool.submit(read_groups_and_offsets, dict(config), calls).result()
            except BrokenProcessPool:
                self.close()
        raise SourceUnavailable(
            f"{calls.where}: reading the consumer groups crashed the client library twice "
            f"(librdkafka aborts on some failed group describes, confluentinc/librdkafka#4605)"
        )

    def close(self) -> None:
        """Stop the child."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
