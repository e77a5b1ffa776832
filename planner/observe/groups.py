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
import os
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future, ProcessPoolExecutor
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
    read = read_groups(calls, admin, others=False)
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


def child_pool() -> ProcessPoolExecutor:
    """A pool of one spawned child that ends when the process that made it is gone."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_exit_with_parent,
        initargs=(os.getpid(),),
    )


def _exit_with_parent(parent: int) -> None:
    """In the child: exit once `parent` is no longer its parent.

    A pool's child waits on a queue whose write end it holds itself, so it never sees
    its parent die: an observer killed with SIGKILL left its child reading the groups
    every period, forever. Its parent gone, the child is re-parented, which this thread
    notices within a second.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


class GroupChild:
    """A child process that reads the groups, kept across samples, replaced when it dies.

    A read runs while the sample reads everything else (`start`), and the sample waits
    for it only until its period would be overrun (`finish`): a group coordinator that
    answers slowly (loading its offsets after a broker restart, say) costs the sample its
    groups, never its end offsets. A read still running when the next sample starts is
    left to finish, and that sample reads no groups (its result would be of the past).
    """

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._running: Future[GroupsObserved] | None = None
        self._deaths = 0

    def start(self, config: Mapping[str, Any], calls: AdminCalls) -> Future[GroupsObserved] | None:
        """Start reading the groups in the child; None while the last read still runs."""
        if self._running is not None and not self._running.done():
            return None
        if self._pool is None:
            self._pool = child_pool()
        self._running = self._pool.submit(read_groups_and_offsets, dict(config), calls)
        return self._running

    def finish(self, read: Future[GroupsObserved], timeout_s: float) -> GroupsObserved:
        """The read's result, waiting at most `timeout_s`.

        Raises:
            TimeoutError: it is still running.
            SourceUnavailable: the cluster could not be reached (raised in the child), or
                the child died (it is replaced for the next read; the message names
                librdkafka's bug).
        """
        try:
            observed = read.result(timeout=max(0.0, timeout_s))
        except BrokenProcessPool:
            self.close()
            self._deaths += 1
            raise SourceUnavailable(
                f"reading the consumer groups crashed the client library ({self._deaths} "
                f"time(s) so far; librdkafka aborts on some failed group describes, "
                f"confluentinc/librdkafka#4605); a new child reads the next sample's"
            ) from None
        return observed

    def close(self) -> None:
        """Stop the child."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self._running = None
