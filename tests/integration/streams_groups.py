"""A live Kafka Streams application on the streams protocol, and the planner's view of it.

``StreamsApp.java`` runs the application's instances in one JVM and describes the group
with Admin; :class:`LiveStreamsApp` drives it. :func:`planner_input` turns a description
into what :func:`planner.assignors.streams_sticky.assign_tasks` reads, and
:func:`predictions` computes the planner's assignment for every member order that could
matter (the broker's member map is a hash map the client cannot see into).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.adapters.kraft import KRaftCluster
from planner.assignors._java_hashing import string_hash, table_size_for
from planner.assignors.streams_sticky import (
    StreamsMember,
    Subtopology,
    TaskId,
    assign_tasks,
)
from tests.integration.java_clients import JavaHarness

# Member id -> (active tasks, standby tasks), each a sorted list of (subtopology, partition).
Plain = dict[str, tuple[list[tuple[str, int]], list[tuple[str, int]]]]


class LiveStreamsApp(JavaHarness):
    """Instances of one Kafka Streams application (``StreamsApp.java``), one JVM.

    Args:
        kafka: The broker.
        application_id: ``application.id``, the streams group's id.
        input_topic: The source topic (it must exist).
        standby_replicas: The group's ``streams.num.standby.replicas``, set before any start.
        folder: Where the JVM keeps its log and the instances' state directories.
    """

    def __init__(
        self,
        kafka: KRaftCluster,
        application_id: str,
        input_topic: str,
        standby_replicas: int,
        folder: Path,
    ) -> None:
        self.application_id = application_id
        state = folder / f"{application_id}-state"
        state.mkdir(parents=True, exist_ok=True)
        args = [kafka.bootstrap, application_id, input_topic, str(state), str(standby_replicas)]
        super().__init__(kafka, "StreamsApp", args, application_id, folder)

    def start(self, name: str, threads: int) -> None:
        """Start an instance (``client.id`` ``name``) with ``threads`` stream threads."""
        self.ask({"op": "start", "name": name, "threads": threads}, timeout_s=60)

    def stop(self, name: str) -> None:
        """Close an instance; its stream threads leave the group."""
        self.ask({"op": "stop", "name": name}, timeout_s=60)

    def describe(self) -> dict[str, Any]:
        """The group as Admin's ``describeStreamsGroups`` reports it (see StreamsApp.java)."""
        return self.ask({"op": "describe"}, timeout_s=40)


def settle(
    app: LiveStreamsApp, members: int, *, quiet_s: float = 2.0, timeout_s: float = 60
) -> dict[str, Any]:
    """Wait until the group is STABLE with ``members`` members, each holding exactly its
    target assignment at the group's epoch, and stays so, with the same reported task
    offsets, for ``quiet_s``; the description."""
    deadline = time.monotonic() + timeout_s
    since: float | None = None
    last: dict[str, Any] = {}
    settled_view: str | None = None
    while time.monotonic() < deadline:
        last = app.describe()
        view = json.dumps(
            [assignment(last, "target_assignment"), task_offsets_view(last)], sort_keys=True
        )
        if _settled(last, members):
            if view != settled_view:
                settled_view, since = view, time.monotonic()
            elif since is not None and time.monotonic() - since >= quiet_s:
                return last
        else:
            settled_view, since = None, None
        time.sleep(0.25)
    raise AssertionError(
        f"streams group {app.application_id} did not settle with {members} members in "
        f"{timeout_s} s; last description:\n{json.dumps(last, indent=1)}\n{app.log_tail()}"
    )


def _settled(described: Mapping[str, Any], members: int) -> bool:
    listed = described.get("members", [])
    return (
        str(described.get("state")).upper() == "STABLE"
        and len(listed) == members
        and described.get("target_assignment_epoch") == described.get("group_epoch")
        and all(
            m["member_epoch"] == described["group_epoch"]
            and _tasks(m["assignment"]) == _tasks(m["target_assignment"])
            and not m["assignment"]["warmup"]
            for m in listed
        )
    )


def task_offsets_view(described: Mapping[str, Any]) -> dict[str, list[list[Any]]]:
    """Member id -> its reported task offsets, sorted (comparable between descriptions)."""
    return {m["member_id"]: sorted(m["task_offsets"]) for m in described.get("members", [])}


def _tasks(tasks: Mapping[str, Any]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    return (
        sorted((s, p) for s, p in tasks["active"]),
        sorted((s, p) for s, p in tasks["standby"]),
    )


def assignment(described: Mapping[str, Any], key: str = "assignment") -> Plain:
    """Member id -> (active, standby) of a description's current (or target) assignment."""
    return {m["member_id"]: _tasks(m[key]) for m in described["members"]}


@dataclass(frozen=True)
class PlannerInput:
    """What the broker's assignor saw, in the planner's terms (member order aside)."""

    members: dict[str, StreamsMember]
    subtopologies: dict[str, Subtopology]


def subtopologies(
    described: Mapping[str, Any], source_partitions: Mapping[str, int]
) -> dict[str, Subtopology]:
    """Subtopology id -> its task count (the largest partition count of its source topics:
    ``source_partitions`` for the user's, the description's for repartition topics) and
    whether it is stateful (it has changelog topics), from the group's description."""
    result = {}
    for sub in described["subtopologies"]:
        counts = list(sub["repartition_source_topics"].values()) + [
            source_partitions[t]
            for t in sub["source_topics"]
            if t not in sub["repartition_source_topics"]
        ]
        result[sub["id"]] = Subtopology(max(counts), stateful=bool(sub["state_changelog_topics"]))
    return result


def _task_set(pairs: Sequence[Sequence[Any]]) -> frozenset[TaskId]:
    return frozenset(TaskId(s, p) for s, p in pairs)


def planner_input(
    processes: Mapping[str, str],
    subtopologies: Mapping[str, Subtopology],
    previous: Plain | None = None,
    task_offsets: Mapping[str, Mapping[TaskId, int]] | None = None,
) -> PlannerInput:
    """The members (member id -> process id) with their ``previous`` target assignment and
    reported ``task_offsets``, where they had any."""
    previous = previous or {}
    task_offsets = task_offsets or {}
    members = {}
    for member_id, process_id in processes.items():
        active, standby = previous.get(member_id, ([], []))
        members[member_id] = StreamsMember(
            process_id,
            active_tasks=_task_set(active),
            standby_tasks=_task_set(standby),
            task_offsets=dict(task_offsets.get(member_id, {})),
        )
    return PlannerInput(members, dict(subtopologies))


def processes(described: Mapping[str, Any]) -> dict[str, str]:
    """Member id -> process id, of a description."""
    return {m["member_id"]: m["process_id"] for m in described["members"]}


def task_offsets(described: Mapping[str, Any]) -> dict[str, dict[TaskId, int]]:
    """Member id -> the task offset sums it reported, of a description."""
    return {
        m["member_id"]: {TaskId(s, p): o for s, p, o in m["task_offsets"]}
        for m in described["members"]
    }


def step_input(
    before: Mapping[str, Any], after: Mapping[str, Any], source_partitions: Mapping[str, int]
) -> PlannerInput:
    """What the broker's assignor saw when members joined or left the settled group
    ``before``, giving ``after``: ``after``'s members, with ``before``'s settled assignment
    (there each member's current assignment is its target, which Kafka 4.4.0's streams
    ``TargetAssignmentBuilder`` reads as the previous one: ``StreamsGroupMember.assignedTasks``)
    and reported task offsets; new members start empty.

    This is one assignment computed after the whole change, true when one member joins or
    leaves. The threads of one instance heartbeat one by one, and the broker may compute a
    target between them, from members' current assignments half-way through
    reconciliation: a client cannot see that history.
    """
    return planner_input(
        processes(after),
        subtopologies(before, source_partitions),
        assignment(before, "target_assignment"),
        task_offsets(before),
    )


def predictions(given: PlannerInput, standby_replicas: int) -> list[Plain]:
    """The planner's assignment for every member order the broker's hash maps could tell
    apart, without repeats.

    ``assign_tasks`` reads the members in the coordinator's member-map order, which a
    client cannot see; that order reaches the result only through Java ``HashMap``s keyed
    by member id (16 buckets or more) and by process id (at least as many buckets as
    members): ids in different buckets of the smallest table are met in bucket order
    whatever the insertion order. So only the relative order of member ids sharing a
    bucket mod 16, and of processes (by first member) sharing a bucket of the process
    table, can change the result: one order per distinct pair of those is computed.
    """
    member_ids = list(given.members)
    process_buckets = table_size_for(len(member_ids)) - 1

    def spread(text: str) -> int:  # HashMap.hash
        h = string_hash(text)
        return h ^ (h >> 16)

    def key(order: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        # sorted() is stable: ids sharing a bucket keep their order of arrival.
        members = sorted(order, key=lambda m: spread(m) & 15)
        first = dict.fromkeys(given.members[m].process_id for m in order)
        processes = sorted(first, key=lambda p: spread(p) & process_buckets)
        return tuple(members), tuple(processes)

    seen: list[Plain] = []
    keys: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for order in itertools.permutations(member_ids):
        k = key(order)
        if k in keys:
            continue
        keys.add(k)
        result = assign_tasks(
            {m: given.members[m] for m in order},
            given.subtopologies,
            num_standby_replicas=standby_replicas,
        )
        plain: Plain = {
            m: (
                sorted((t.subtopology_id, t.partition) for t in r.active),
                sorted((t.subtopology_id, t.partition) for t in r.standby),
            )
            for m, r in result.items()
        }
        if plain not in seen:
            seen.append(plain)
    return seen
