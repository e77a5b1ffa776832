"""``planner.assignors.streams_sticky`` without Kafka: its docstring example, the rules every
streams assignment keeps, and a worked sticky case. Exactness against Kafka's own class is
``test_streams_oracle.py``."""

from __future__ import annotations

import doctest
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from planner.assignors import streams_sticky
from planner.assignors.streams_sticky import (
    StreamsMember,
    Subtopology,
    TaskId,
    assign_tasks,
)
from tests.assignors.streams_groups import StreamsGroup, streams_groups


def test_docstring_example() -> None:
    failures, tried = doctest.testmod(streams_sticky, raise_on_error=False)
    assert tried > 0 and failures == 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(group=streams_groups(max_members=12))
def test_every_task_active_once_and_standbys_on_other_processes(group: StreamsGroup) -> None:
    result = assign_tasks(group.members, group.subtopologies, num_standby_replicas=group.standbys)
    assert list(result) == list(group.members)
    tasks = {TaskId(s, p) for s, sub in group.subtopologies.items() for p in range(sub.task_count)}
    actives = Counter(t for r in result.values() for t in r.active)
    assert actives == Counter(tasks)  # each task active exactly once

    processes = {m.process_id for m in group.members.values()}
    copies: dict[TaskId, list[str]] = {}
    for member_id, r in result.items():
        process = group.members[member_id].process_id
        for task in r.active | r.standby:
            copies.setdefault(task, []).append(process)
    for task in tasks:
        holders = copies[task]
        assert len(holders) == len(set(holders)), f"two copies of {task} on one process"
        stateful = group.subtopologies[task.subtopology_id].stateful
        # Every copy the processes can hold is placed; the rest are dropped.
        wanted = min(group.standbys, len(processes) - 1) if stateful else 0
        assert len(holders) == 1 + wanted


def test_previous_owners_keep_their_tasks() -> None:
    """A settled group keeps everything: each active stays, each standby stays."""
    members = {m: StreamsMember(m[0].upper()) for m in ["a1", "a2", "b1", "b2"]}
    topology = {"0": Subtopology(4), "1": Subtopology(2, stateful=False)}
    first = assign_tasks(members, topology, num_standby_replicas=1)
    settled = {
        m: StreamsMember(spec.process_id, first[m].active, first[m].standby)
        for m, spec in members.items()
    }
    assert assign_tasks(settled, topology, num_standby_replicas=1) == first


def test_no_members_with_tasks_is_rejected() -> None:
    with pytest.raises(ValueError, match="No process available"):
        assign_tasks({}, {"0": Subtopology(1)})
    assert assign_tasks({}, {"0": Subtopology(0)}) == {}
