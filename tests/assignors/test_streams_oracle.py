"""Kafka 4.4.0's broker-side Kafka Streams task assignor (``StickyTaskAssignor``) as the
differential oracle of ``planner.assignors.streams_sticky``.

The oracle (``tests/oracle/java/StreamsAssignor.java``) builds the coordinator's GroupSpec
from the same input: members in a HashMap filled in the members' order, each with its
process id, current active and standby tasks and reported task offsets. Every case must
equal Kafka's assignment exactly, standbys included.

Run more examples with ``KAFKA_ORACLE_SCALE=<factor>``.
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, given, settings

from planner.assignors.streams_sticky import (
    StreamsMember,
    Subtopology,
    TaskId,
    assign_tasks,
)
from tests.assignors.streams_groups import StreamsGroup, streams_groups
from tests.oracle.java_oracle import JavaOracle

SCALE = max(1, int(os.environ.get("KAFKA_ORACLE_SCALE", "1")))

Plain = dict[str, dict[str, set[tuple[str, int]]]]


def examples(count: int) -> settings:
    return settings(
        max_examples=count * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _grouped(tasks: frozenset[TaskId]) -> list[list[Any]]:
    by_subtopology: dict[str, list[int]] = {}
    for task in sorted(tasks):
        by_subtopology.setdefault(task.subtopology_id, []).append(task.partition)
    return [[s, ps] for s, ps in by_subtopology.items()]


def kafka_assign(oracle: JavaOracle, group: StreamsGroup) -> Plain:
    """Kafka's ``StickyTaskAssignor`` on the group (request ``streams_assign``)."""
    reply = oracle.request(
        {
            "op": "streams_assign",
            "members": [
                {
                    "id": m,
                    "process": spec.process_id,
                    "active": _grouped(spec.active_tasks),
                    "standby": _grouped(spec.standby_tasks),
                    "offsets": [
                        [t.subtopology_id, t.partition, o] for t, o in spec.task_offsets.items()
                    ],
                }
                for m, spec in group.members.items()
            ],
            "subtopologies": [
                {"id": s, "tasks": sub.task_count, "stateful": sub.stateful}
                for s, sub in group.subtopologies.items()
            ],
            "standbys": group.standbys,
        }
    )
    return {
        m: {kind: {(s, p) for s, p in tasks[kind]} for kind in ("active", "standby")}
        for m, tasks in reply["assignment"].items()
    }


def ours(group: StreamsGroup) -> Plain:
    result = assign_tasks(group.members, group.subtopologies, num_standby_replicas=group.standbys)
    return {
        m: {
            "active": {(t.subtopology_id, t.partition) for t in r.active},
            "standby": {(t.subtopology_id, t.partition) for t in r.standby},
        }
        for m, r in result.items()
    }


@examples(300)
@given(group=streams_groups())
def test_streams_sticky_equals_kafka(kafka_oracle: JavaOracle, group: StreamsGroup) -> None:
    assert ours(group) == kafka_assign(kafka_oracle, group)


@examples(60)
@given(group=streams_groups(max_members=24))
def test_streams_sticky_equals_kafka_on_larger_groups(
    kafka_oracle: JavaOracle, group: StreamsGroup
) -> None:
    """More members than the process map's first table holds, and up to 24 members on
    few processes: long chains in the per-process member maps and deep load queues."""
    assert ours(group) == kafka_assign(kafka_oracle, group)


def test_docstring_example_equals_kafka(kafka_oracle: JavaOracle) -> None:
    group = StreamsGroup(
        {m: StreamsMember(m[0].upper()) for m in ["a1", "a2", "b1", "b2"]},
        {"0": Subtopology(4)},
        1,
    )
    assert ours(group) == kafka_assign(kafka_oracle, group)


def test_more_standbys_than_processes_equals_kafka(kafka_oracle: JavaOracle) -> None:
    """Two processes cannot hold three copies of a task: one standby each, the rest dropped."""
    group = StreamsGroup(
        {"a": StreamsMember("A"), "b": StreamsMember("B"), "c": StreamsMember("B")},
        {"0": Subtopology(3), "1": Subtopology(2, stateful=False)},
        3,
    )
    result = ours(group)
    assert result == kafka_assign(kafka_oracle, group)
    assert sum(len(r["standby"]) for r in result.values()) == 3
