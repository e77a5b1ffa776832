"""The consumer groups read in a child process, so a crash of the client library costs a retry.

librdkafka 2.16 can abort the whole process (an assertion in
`rd_kafka_enq_once_del_source_return`, confluentinc/librdkafka#4605, open) when a group
describe fails or times out, for instance while a broker is shutting down. An abort is
not an exception: in the collector's own process it would end `partition-planner plan`
or the Airflow task with SIGABRT and no message. So the group calls (list, describe,
committed offsets of groups without assignments) run in a child process of their own
(``spawn``: a fresh interpreter, no state of ours shared with the library), which returns
plain, picklable values. A child that dies is replaced once; a second death raises
`SourceUnavailable` naming the library's bug: planning every topic as if no group read
it would be wrong, so the run stops and keeps the last good results.

The child costs a process start (about half a second, importing confluent-kafka), paid
once per collection inside the throughput sample's window.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from planner.collect.base import SourceUnavailable
from planner.collect.kafka_admin.calls import AdminCalls
from planner.collect.kafka_admin.consumer_groups import GroupsRead, committed_topics, read_groups
from planner.collect.kafka_groups import GroupScan, group_rows

__all__ = ["CHILD_ATTEMPTS", "GroupReader", "read_groups_isolated", "read_in_child"]

CHILD_ATTEMPTS = 2

GroupReader = Callable[[Mapping[str, Any], AdminCalls], tuple[GroupsRead, GroupScan]]


def read_in_child(config: Mapping[str, Any], calls: AdminCalls) -> tuple[GroupsRead, GroupScan]:
    """What the child runs: its own admin client, the groups read and turned into rows."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient(dict(config))
    read = read_groups(calls, admin)
    scan = group_rows(read.described, lambda group_id: committed_topics(calls, admin, group_id))
    return read, scan


def read_groups_isolated(
    config: Mapping[str, Any],
    calls: AdminCalls,
    *,
    reader: GroupReader = read_in_child,
    attempts: int = CHILD_ATTEMPTS,
) -> tuple[GroupsRead, GroupScan]:
    """Read the cluster's consumer groups in a child process.

    Args:
        config: The librdkafka settings of the admin client (picklable values only).
        calls: Time-outs and retries for the admin calls.
        reader: The function the child runs (a module-level function; tests pass one
            that crashes).
        attempts: Children started before giving up on crashes.

    Returns:
        The groups read and their rows, as `read_groups` and `group_rows` give them.

    Raises:
        SourceUnavailable: The cluster could not be reached (raised in the child), or
            every child died.
    """
    context = multiprocessing.get_context("spawn")
    for _ in range(attempts):
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            try:
                return pool.submit(reader, dict(config), calls).result()
            except BrokenProcessPool:
                continue
    raise SourceUnavailable(
        f"{calls.where}: reading the consumer groups crashed the client library "
        f"{attempts} times (librdkafka aborts on some failed group describes, "
        f"confluentinc/librdkafka#4605); the groups were not collected, so nothing was planned"
    )
