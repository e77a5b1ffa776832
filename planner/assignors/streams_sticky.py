"""The broker's Kafka Streams task assignor ``sticky`` (KIP-1071 streams groups), exactly.

A Kafka Streams application cuts its topology into subtopologies; subtopology ``s`` with
``n`` input partitions (the largest partition count among its source topics) runs as the
tasks ``s_0 .. s_(n-1)``. In a streams group the broker assigns these tasks to the group's
members (one member per stream thread); members of one application instance share a
*process* (``process.id``), and a stateful task may also get ``num.standby.replicas``
standby copies that keep its state stores warm, never in the process of its active copy.

How the broker assigns (its ``StickyTaskAssignor``):

**Quotas.** With ``A`` tasks, ``S`` standby copies to place (standby replicas times the
tasks of stateful subtopologies) and ``M`` members, a member's active quota starts at
``ceil(A / M)`` and its total quota at ``ceil((A + S) / M)``. Each time a member's task
count reaches a quota exactly, that member and its tasks leave the quota's sums and the
quota is recomputed from what is left; so once the members that rounded up are full, the
others stop one lower. A process's *load* is its task count (active and standby) over its
member count.

**Active tasks**, in three passes over the tasks, each over what the earlier ones left:

1. in order of (partition, subtopology): the task goes back to the member that held it as
   active before, if that member is below the active quota;
2. same order: among the members that held it as a standby (most caught-up first, see
   below), the first one whose process load *and* member task count are both below those
   of the best so far; it takes the task if below the active quota;
3. in order of (subtopology, partition): the least loaded process, from a queue ordered by
   load alone, and within it the member with the fewest tasks, from a queue ordered by
   task count alone (no quota check).

**Standby tasks**, only for stateful subtopologies, in order of partition descending then
subtopology descending, one replica at a time: the task's previous active member if its
process does not hold the task yet and it is below the total quota; else the previous
standby holder chosen as in pass 2, skipping processes that hold the task, if below the
total quota; else the task's remaining replicas wait. The waiting tasks then go, in order
of subtopology descending then partition descending, replica by replica, to the least
loaded process that does not hold the task yet (its least loaded member), from a queue by
load: processes polled on the way are put back afterwards. With fewer processes than
copies, the replicas that find no process are dropped (Kafka logs a warning).

**Previous standby holders** of a task: the members that held it as a standby, then those
that only report an offset sum for it (state on local disk); each group ordered by offset
sum descending (a standby without a reported offset counts as 0), ties in member order.

**Where Java's iteration order decides** (emulated, so ties fall as on the broker):

* the members, in the order of the coordinator's ``HashMap`` of member ids (filled in the
  order given here), decide which member wins a task two members claim as previous active
  (the last one) and the order of a task's previous standby holders (ties in pass 2 and
  in the standby steps go to the earliest);
* the processes enter the load queues in the order of ``new HashMap<>(members)`` filled
  with ``computeIfAbsent(process id)`` in member order; ``java.util.PriorityQueue`` breaks
  load ties by its heap layout (:mod:`planner.assignors._java_queue`);
* each process's members enter its member queue in the order of its ``HashMap`` of member
  ids; the queue is rebuilt after a task is given to a named member of the process.

The task passes sort by task id, so the order of the subtopologies given does not matter.
Subtopology ids are compared as Java compares strings (UTF-16 code units): keep them in
the Basic Multilingual Plane, where that is Python's order too.

Example:
    Two instances of two threads each (members ``a1, a2`` on process ``A``, ``b1, b2``
    on ``B``), one stateful subtopology of 4 tasks and one standby replica, a fresh group:

    >>> from planner.assignors.streams_sticky import (
    ...     StreamsMember, Subtopology, assign_tasks)
    >>> result = assign_tasks(
    ...     {m: StreamsMember(m[0].upper()) for m in ["a1", "a2", "b1", "b2"]},
    ...     {"0": Subtopology(4)},
    ...     num_standby_replicas=1,
    ... )
    >>> {m: (sorted(t.partition for t in r.active), sorted(t.partition for t in r.standby))
    ...  for m, r in result.items()}
    {'a1': ([0], [3]), 'a2': ([2], [1]), 'b1': ([3], [0]), 'b2': ([1], [2])}

    The processes alternate (equal loads: the heap's order), and within ``B`` the member
    heap of two idle members polls ``b2`` first. The standbys go out from task 3 down, each
    to the least loaded process without the task's active copy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from planner.assignors._java_hashing import JavaHashTable, string_hash
from planner.assignors._java_queue import JavaPriorityQueue, compare_numbers

NAME = "sticky"


@dataclass(frozen=True, order=True)
class TaskId:
    """A task: one partition number of one subtopology (Kafka's ``TaskId``).

    Attributes:
        subtopology_id: The subtopology's id (Kafka Streams numbers them ``"0"``, ``"1"``...).
        partition: The partition number, from 0.
    """

    subtopology_id: str
    partition: int


@dataclass(frozen=True)
class Subtopology:
    """What the assignor reads of a subtopology (Kafka's ``TopologyDescriber``).

    Attributes:
        task_count: Its tasks: the largest partition count of its source topics.
        stateful: Whether it has state stores, so its tasks get standby replicas.
    """

    task_count: int
    stateful: bool = True


@dataclass(frozen=True)
class StreamsMember:
    """A streams group member (one stream thread) as the assignor sees it.

    Attributes:
        process_id: Its application instance (``process.id``); members of one process
            never hold a task's active and a standby copy, nor two copies.
        active_tasks: The active tasks it holds now (its previous assignment).
        standby_tasks: The standby tasks it holds now.
        task_offsets: Offset sums it reports per task whose state it has on disk (the
            sum of its changelog offsets); a larger sum is more caught up.
    """

    process_id: str
    active_tasks: frozenset[TaskId] = frozenset()
    standby_tasks: frozenset[TaskId] = frozenset()
    task_offsets: Mapping[TaskId, int] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamsTasks:
    """One member's assignment.

    Attributes:
        active: Its active tasks.
        standby: Its standby tasks.
    """

    active: frozenset[TaskId]
    standby: frozenset[TaskId]


class _Member(NamedTuple):
    process_id: str
    member_id: str


class _Entry:
    """A member in its process's load queue (Kafka keeps a mutable map entry)."""

    __slots__ = ("count", "member_id")

    def __init__(self, member_id: str, count: int) -> None:
        self.member_id = member_id
        self.count = count


class _Process:
    """One process's tasks and load (Kafka's ``ProcessState``)."""

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id
        self.counts: dict[str, int] = {}  # member -> tasks (active and standby)
        self.member_table: JavaHashTable[str] = JavaHashTable(string_hash)
        self.task_count = 0
        self.load = 0.0
        self.tasks: set[TaskId] = set()
        self.active: dict[str, set[TaskId]] = {}
        self.standby: dict[str, set[TaskId]] = {}
        self._by_load: JavaPriorityQueue[_Entry] | None = None

    def add_member(self, member_id: str) -> None:
        self.counts[member_id] = 0
        self.member_table.add(member_id)
        self.load = self.task_count / len(self.counts)

    def add_task(self, member_id: str, task: TaskId, active: bool) -> int:
        """Give ``task`` to a named member; returns the member's new task count."""
        count = self._add(member_id, task, active)
        # Kafka cannot reorder one member inside its heap, so it drops the heap.
        self._by_load = None
        return count

    def add_task_to_least_loaded_member(self, task: TaskId, active: bool) -> int:
        if len(self.counts) == 1:
            return self._add(next(iter(self.counts)), task, active)
        if self._by_load is None:
            self._by_load = JavaPriorityQueue(lambda x, y: compare_numbers(x.count, y.count))
            for member_id in self.member_table.order():
                self._by_load.add(_Entry(member_id, self.counts[member_id]))
        entry = self._by_load.poll()
        assert entry is not None  # a process has at least one member
        entry.count = self._add(entry.member_id, task, active)
        self._by_load.add(entry)
        return entry.count

    def _add(self, member_id: str, task: TaskId, active: bool) -> int:
        self.task_count += 1
        self.tasks.add(task)
        (self.active if active else self.standby).setdefault(member_id, set()).add(task)
        self.counts[member_id] += 1
        self.load = self.task_count / len(self.counts)
        return self.counts[member_id]


def _tasks_per_member(tasks: int, members: int) -> int:
    """``ceil(tasks / members)`` in Java's int arithmetic (truncating), 0 without members."""
    if members == 0:
        return 0
    quotient = abs(tasks) // abs(members)
    if (tasks < 0) != (members < 0):
        quotient = -quotient
    return quotient + 1 if tasks - quotient * members > 0 else quotient


class _Quota:
    """A per-member quota that shrinks as members fill it (Kafka's ``maybeUpdate...``)."""

    def __init__(self, tasks: int, members: int) -> None:
        self.tasks = tasks
        self.members = members
        self.per_member = _tasks_per_member(tasks, members)

    def reached(self, count: int) -> None:
        if count == self.per_member:
            self.members -= 1
            self.tasks -= count
            self.per_member = _tasks_per_member(self.tasks, self.members)


class _State:
    def __init__(
        self,
        members: Mapping[str, StreamsMember],
        subtopologies: Mapping[str, Subtopology],
        num_standby_replicas: int,
    ) -> None:
        self.replicas = num_standby_replicas
        active_total = sum(s.task_count for s in subtopologies.values())
        standby_total = sum(s.task_count for s in subtopologies.values() if s.stateful)
        self.active_quota = _Quota(active_total, len(members))
        self.total_quota = _Quota(active_total + standby_total * num_standby_replicas, len(members))

        member_table: JavaHashTable[str] = JavaHashTable(string_hash)
        for member_id in members:
            member_table.add(member_id)
        self.member_order = member_table.order()

        process_table: JavaHashTable[str] = JavaHashTable(
            string_hash, initial_capacity=len(members)
        )
        self.processes: dict[str, _Process] = {}
        self.prev_active: dict[TaskId, _Member] = {}
        candidates: dict[TaskId, list[tuple[int, int, _Member]]] = {}
        for member_id in self.member_order:
            spec = members[member_id]
            process_table.compute_if_absent(spec.process_id)
            self.processes.setdefault(spec.process_id, _Process(spec.process_id)).add_member(
                member_id
            )
            member = _Member(spec.process_id, member_id)
            for task in spec.active_tasks:
                self.prev_active[task] = member  # a second claimant (in member order) wins
            for task in spec.standby_tasks:
                offset = spec.task_offsets.get(task, 0)
                candidates.setdefault(task, []).append((0, -offset, member))
            for task, offset in spec.task_offsets.items():
                if task not in spec.standby_tasks:
                    candidates.setdefault(task, []).append((1, -offset, member))
        self.process_order = [self.processes[p] for p in process_table.order()]
        # Standbys first, most caught up first; a stable sort keeps member order on ties.
        self.prev_standbys = {
            task: [m for *_, m in sorted(ranked, key=lambda c: (c[0], c[1]))]
            for task, ranked in candidates.items()
        }

    def process_queue(self) -> JavaPriorityQueue[_Process]:
        queue: JavaPriorityQueue[_Process] = JavaPriorityQueue(
            lambda x, y: compare_numbers(x.load, y.load)
        )
        for process in self.process_order:
            queue.add(process)
        return queue

    def best_prev_standby(self, task: TaskId, *, skip_holders: bool) -> _Member | None:
        """The previous standby holder to prefer (Kafka's ``findPrevMemberWithLeastLoad``).

        A later holder replaces the best so far only when its process load and its own
        task count are both strictly lower, so ties stay with the earlier one.
        """
        best: _Member | None = None
        best_load = best_count = 0.0
        for member in self.prev_standbys.get(task, ()):
            process = self.processes[member.process_id]
            if skip_holders and task in process.tasks:
                continue
            count = process.counts[member.member_id]
            if best is None or (process.load < best_load and count < best_count):
                best, best_load, best_count = member, process.load, count
        return best


def assign_tasks(
    members: Mapping[str, StreamsMember],
    subtopologies: Mapping[str, Subtopology],
    *,
    num_standby_replicas: int = 0,
) -> dict[str, StreamsTasks]:
    """The streams group's target assignment, as the broker's ``sticky`` assignor computes it.

    Args:
        members: Member id -> member, in the order of the coordinator's member map.
        subtopologies: Subtopology id -> its task count and statefulness.
        num_standby_replicas: ``num.standby.replicas``: standby copies per stateful task.

    Returns:
        Member id -> its active and standby tasks, for every member, in ``members``' order.

    Raises:
        ValueError: There are tasks but no members (Kafka's ``TaskAssignorException``).
    """
    state = _State(members, subtopologies, num_standby_replicas)
    all_tasks = [TaskId(s, p) for s, sub in subtopologies.items() for p in range(sub.task_count)]
    _assign_active(state, all_tasks)
    if num_standby_replicas > 0:
        stateful = [t for t in all_tasks if subtopologies[t.subtopology_id].stateful]
        _assign_standby(state, stateful)
    result = {}
    for member_id, spec in members.items():
        process = state.processes[spec.process_id]
        result[member_id] = StreamsTasks(
            frozenset(process.active.get(member_id, ())),
            frozenset(process.standby.get(member_id, ())),
        )
    return result


def _give(state: _State, member: _Member, task: TaskId, *, active: bool) -> None:
    count = state.processes[member.process_id].add_task(member.member_id, task, active)
    if active:
        state.active_quota.reached(count)
    state.total_quota.reached(count)


def _assign_active(state: _State, tasks: list[TaskId]) -> None:
    # Previous owners first, by partition then subtopology: Kafka assumes an earlier
    # assignment pairs the same partitions of different subtopologies.
    left = sorted(tasks, key=lambda t: (t.partition, t.subtopology_id))
    rest = []
    for task in left:
        member = state.prev_active.get(task)
        if member is not None and _below(state, member, state.active_quota):
            _give(state, member, task, active=True)
        else:
            rest.append(task)
    left, rest = rest, []
    for task in left:
        member = state.best_prev_standby(task, skip_holders=False)
        if member is not None and _below(state, member, state.active_quota):
            _give(state, member, task, active=True)
        else:
            rest.append(task)
    # The rest by subtopology then partition, so a fresh group gets ranges of partitions.
    rest.sort(key=lambda t: (t.subtopology_id, t.partition))
    if rest and not state.processes:
        raise ValueError(f"No process available to assign active task {rest[0]}.")
    queue = state.process_queue()
    for task in rest:
        process = queue.poll()
        assert process is not None
        count = process.add_task_to_least_loaded_member(task, True)
        state.active_quota.reached(count)
        state.total_quota.reached(count)
        queue.add(process)


def _below(state: _State, member: _Member, quota: _Quota) -> bool:
    return state.processes[member.process_id].counts[member.member_id] < quota.per_member


def _assign_standby(state: _State, tasks: list[TaskId]) -> None:
    waiting: list[tuple[TaskId, int]] = []
    for task in sorted(tasks, key=lambda t: (t.partition, t.subtopology_id), reverse=True):
        for placed in range(state.replicas):
            member = state.prev_active.get(task)
            if (
                member is not None
                and task not in state.processes[member.process_id].tasks
                and _below(state, member, state.total_quota)
            ):
                _give(state, member, task, active=False)
                continue
            member = state.best_prev_standby(task, skip_holders=True)
            if member is not None and _below(state, member, state.total_quota):
                _give(state, member, task, active=False)
                continue
            waiting.append((task, state.replicas - placed))
            break
    waiting.sort(key=lambda w: (w[0].subtopology_id, w[0].partition), reverse=True)
    queue = state.process_queue()
    for task, replicas in waiting:
        for _ in range(replicas):
            if not _standby_to_least_loaded(state, queue, task):
                break  # no process without a copy of the task is left


def _standby_to_least_loaded(
    state: _State, queue: JavaPriorityQueue[_Process], task: TaskId
) -> bool:
    """The least loaded process without the task takes it; the ones polled before it go
    back into the queue after it, the latest polled first (Kafka recurses)."""
    polled: list[_Process] = []
    found = False
    while (process := queue.poll()) is not None:
        polled.append(process)
        if task not in process.tasks:
            state.total_quota.reached(process.add_task_to_least_loaded_member(task, False))
            found = True
            break
    for process in reversed(polled):
        queue.add(process)
    return found


# Follows Apache Kafka 4.4.0's
# org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor (and ProcessState),
# KIP-1071 (streams rebalance protocol).
