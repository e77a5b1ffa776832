"""Kafka Streams on the classic protocol: ``StreamsPartitionAssignor`` with its default
``HighAvailabilityTaskAssignor``, exactly where the result does not depend on task lags.

A Kafka Streams application on the classic protocol joins one consumer group whose
assignor is ``stream``; each stream thread is one member (a *consumer*), and the threads
of one application instance share a *client* (its ``process.id``, a UUID). Subtopology
``s`` with ``n`` input partitions runs as the tasks ``s_0 .. s_(n-1)``; stateful tasks may
get ``num.standby.replicas`` standby copies, never on the client of their active copy.

The group leader assigns in two stages.

**Tasks to clients** (``HighAvailabilityTaskAssignor``). A client's *capacity* is its
thread count, its *load* its task count (active and standby) over its capacity. Clients
are ordered by process id as Java orders ``UUID``s (signed 64-bit halves, so ``8...`` to
``f...`` sort before ``0...``).

1. The stateful tasks, sorted, are dealt round-robin over the clients in that order.
2. Balance: for each ordered pair (source, destination) of clients, the source's tasks,
   sorted, move one by one to the destination while the source's load exceeds the
   destination's and moving one more task would not reverse or keep the skew.
   This repeats until a whole sweep moves nothing. So actives end up weighted by thread
   count as far as whole moves allow: 2 and 1 threads share 6 stateful tasks 4 and 2,
   but 4 tasks 2 and 2 (3 and 1 would reverse the skew).
3. Standby copies: for each stateful task, sorted, ``num.standby.replicas`` times, the
   least loaded client (ties to the lower process id) that holds no copy of the task yet;
   with too few clients the remaining copies are dropped (Kafka logs a warning). Then the
   standbys are balanced as in step 2.
4. Task movements toward caught-up clients (below); none when lags allow.
5. Stateless tasks, sorted, each to the client of least *active* load (ties to the lower
   process id).

**Tasks to threads** (``StreamsPartitionAssignor.assignTasksToThreads``), per client, three
times, each seeing the thread loads the earlier calls left: stateful actives, standbys,
stateless actives. Threads are taken in member id order. With ``T`` tasks counting the
earlier calls' ones, each thread first gets, up to ``floor(T / threads)``, the stateful
tasks it owned before (its reported task offset sums, least lag first); then the threads
below that floor take the remaining tasks in sorted order, round-robin; the tasks left
over go first to their previous owner if it is still at the floor, then one each to the
threads at the floor, in the order of Java's ``PriorityQueue`` array (its heap layout,
emulated by :mod:`planner.assignors._java_queue`). The stateful and stateless actives
reach that queue through a ``HashSet<TaskId>``, whose order is emulated too.

**What depends on lags.** Each client reports an offset sum per task whose state it has
(``-2`` for a task it runs as active); with the changelogs' end offset sums that gives each
client's lag per stateful task. Step 4 moves an active or standby copy away from a client
that is not caught up (lag above ``acceptable.recovery.lag``, default 10,000, and not
running the task) when another client has a smaller lag, and places a *warm-up* standby on
the intended client (at most ``max.warmup.replicas`` in the group); the leader then
schedules a *probing rebalance* and moves the task once the warm-up caught up. When no
such move exists (a fresh group, every client within the recovery lag, or equal lags) the
result here is Kafka's, to the thread; :attr:`StreamsClassicAssignment.lag_dependent` says
when a move exists: the result is then the assignment the warm-ups work toward, not the
one Kafka hands out in this rebalance.

Not modelled: rack-aware assignment (``rack.aware.assignment.strategy``) and client tags
(``rack.aware.assignment.tags``), custom task assignors, named topologies, and the
cooperative protocol's withholding of a task whose partitions another thread still owns
(it is handed over in the follow-up rebalance, to the thread given here).

Example:
    Two instances, the first with two threads, one stateful subtopology of four tasks and
    one standby replica:

    >>> a, b = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
    >>> result = assign_tasks(
    ...     {a: StreamsClient(("a-1", "a-2")), b: StreamsClient(("b-1",))},
    ...     stateful_tasks=[TaskId(0, p) for p in range(4)],
    ...     num_standby_replicas=1,
    ... )
    >>> [sorted(result.clients[c].active) for c in (a, b)]
    [[TaskId(subtopology=0, partition=0), TaskId(subtopology=0, partition=2)], \
[TaskId(subtopology=0, partition=1), TaskId(subtopology=0, partition=3)]]
    >>> {t: (len(x.active), len(x.standby)) for t, x in result.threads.items()}
    {'a-1': (1, 1), 'a-2': (1, 1), 'b-1': (2, 2)}

Follows Apache Kafka's ``org.apache.kafka.streams.processor.internals
.StreamsPartitionAssignor`` and ``...internals.assignment.HighAvailabilityTaskAssignor``
(KIP-441), ``DefaultStandbyTaskAssignor``, ``ClientState`` and ``TaskMovement``.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from planner.assignors._java_hashing import JavaHashTable
from planner.assignors._java_queue import JavaPriorityQueue

# Task.LATEST_OFFSET: the offset sum a client reports for a task it runs as active.
LATEST_OFFSET = -2
# SubscriptionInfo.UNKNOWN_OFFSET_SUM: a task whose offsets could not be summed.
UNKNOWN_OFFSET_SUM = -3
# StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG's default, in records.
DEFAULT_ACCEPTABLE_RECOVERY_LAG = 10_000

_MASK32 = 0xFFFFFFFF


class TaskId(NamedTuple):
    """A task: a subtopology's number and a partition number (Streams' ``TaskId``,
    printed ``0_3``); tuples order as ``TaskId.compareTo`` does."""

    subtopology: int
    partition: int


@dataclass(frozen=True)
class StreamsClient:
    """One application instance (a ``process.id``) as its threads' subscriptions show it.

    Attributes:
        consumers: The member ids of its stream threads (at least one).
        task_offset_sums: Per thread, the offset sum (records) of each task whose state it
            reported, ``LATEST_OFFSET`` for a task it ran as active; absent: none (a
            fresh thread).
    """

    consumers: tuple[str, ...]
    task_offset_sums: Mapping[str, Mapping[TaskId, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class TaskSets:
    """Active and standby tasks of one client or one thread."""

    active: frozenset[TaskId]
    standby: frozenset[TaskId]


@dataclass(frozen=True)
class StreamsClassicAssignment:
    """The leader's assignment.

    Attributes:
        clients: Process id -> its tasks.
        threads: Consumer (thread member id) -> its tasks.
        lag_dependent: Kafka would move some task toward a more caught-up client this
            rebalance (warm-ups and a probing rebalance): ``clients`` and ``threads`` are
            then what those moves work toward, not this rebalance's hand-out. Cautious:
            a standby move that finds no client to take it moves nothing, and the
            result is then Kafka's all the same.
    """

    clients: dict[str, TaskSets]
    threads: dict[str, TaskSets]
    lag_dependent: bool


def assign_tasks(
    clients: Mapping[str, StreamsClient],
    *,
    stateful_tasks: Iterable[TaskId] = (),
    stateless_tasks: Iterable[TaskId] = (),
    num_standby_replicas: int = 0,
    end_offset_sums: Mapping[TaskId, int] | None = None,
    acceptable_recovery_lag: int = DEFAULT_ACCEPTABLE_RECOVERY_LAG,
) -> StreamsClassicAssignment:
    """Assign tasks to clients and their threads as Kafka 4.4.0's Streams leader does.

    Args:
        clients: Process id (a UUID string) -> the instance.
        stateful_tasks: Tasks with state stores (changelogs).
        stateless_tasks: The other tasks.
        num_standby_replicas: ``num.standby.replicas``.
        end_offset_sums: Per stateful task, its changelogs' end offsets summed (records);
            absent: 0 (empty changelogs, every client caught up).
        acceptable_recovery_lag: ``acceptable.recovery.lag``, in records.

    Raises:
        ValueError: A client without threads, a thread in two clients, a task both
            stateful and stateless, or two threads of one client reporting different
            offset sums for one task (Kafka would keep the one it reads last).
    """
    stateful = sorted(set(stateful_tasks))
    stateless = sorted(set(stateless_tasks))
    if set(stateful) & set(stateless):
        raise ValueError("a task is both stateful and stateless")
    _check_clients(clients)
    order = sorted(clients, key=_process_order)
    states = {p: _ClientState(len(clients[p].consumers)) for p in order}

    _deal_stateful_actives(states, order, stateful)
    if num_standby_replicas > 0:
        _assign_standbys(states, order, stateful, num_standby_replicas)
    ends = end_offset_sums or {}
    lags = {p: _lags(clients[p], stateful, ends) for p in order}
    lag_dependent = _any_task_movement(states, order, lags, acceptable_recovery_lag)
    _assign_stateless(states, order, stateless)

    stateful_set = frozenset(stateful)
    threads: dict[str, TaskSets] = {}
    for p in order:
        threads.update(_threads_of(clients[p], states[p], stateful_set, lags[p]))
    return StreamsClassicAssignment(
        {p: TaskSets(frozenset(s.active), frozenset(s.standby)) for p, s in states.items()},
        threads,
        lag_dependent,
    )


# -- tasks to clients -------------------------------------------------------------------


class _ClientState:
    """The part of Kafka's ``ClientState`` the task assignor reads and writes."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.active: set[TaskId] = set()
        self.standby: set[TaskId] = set()

    def holds(self, task: TaskId) -> bool:
        return task in self.active or task in self.standby

    def load(self) -> float:
        # Kafka divides as doubles; Python's int / int rounds the same way.
        return (len(self.active) + len(self.standby)) / self.capacity

    def active_load(self) -> float:
        return len(self.active) / self.capacity


def _process_order(process_id: str) -> tuple[int, int]:
    """``UUID.compareTo``: the most, then the least significant 64 bits, each signed."""
    bits = uuid.UUID(process_id).int
    return _signed64(bits >> 64), _signed64(bits & (1 << 64) - 1)


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _check_clients(clients: Mapping[str, StreamsClient]) -> None:
    seen: set[str] = set()
    for process_id, client in clients.items():
        if not client.consumers:
            raise ValueError(f"client {process_id} has no stream threads")
        if seen & set(client.consumers) or len(set(client.consumers)) < len(client.consumers):
            raise ValueError(f"client {process_id} repeats a thread's member id")
        seen.update(client.consumers)
        reported: dict[TaskId, int] = {}
        for sums in client.task_offset_sums.values():
            for task, offset_sum in sums.items():
                if reported.setdefault(task, offset_sum) != offset_sum:
                    raise ValueError(
                        f"two threads of client {process_id} report different offset sums "
                        f"for task {task.subtopology}_{task.partition}"
                    )


def _deal_stateful_actives(
    states: Mapping[str, _ClientState], order: Sequence[str], stateful: Sequence[TaskId]
) -> None:
    for i, task in enumerate(stateful):
        states[order[i % len(order)]].active.add(task)
    _balance(states, order, standby=False)


def _balance(states: Mapping[str, _ClientState], order: Sequence[str], *, standby: bool) -> None:
    """``balanceTasksOverThreads``: sweep every ordered pair of clients until none moves."""
    moved = True
    while moved:
        moved = False
        for source in order:
            for destination in order:
                if source == destination:
                    continue
                src, dst = states[source], states[destination]
                tasks = src.standby if standby else src.active
                for task in sorted(tasks):  # a snapshot: Kafka iterates a copy
                    if not _should_move_a_task(src, dst):
                        break
                    if not dst.holds(task):
                        tasks.discard(task)
                        (dst.standby if standby else dst.active).add(task)
                        moved = True


def _should_move_a_task(source: _ClientState, destination: _ClientState) -> bool:
    skew = source.load() - destination.load()
    if skew <= 0:
        return False
    source_count = len(source.active) + len(source.standby)
    destination_count = len(destination.active) + len(destination.standby)
    proposed_skew = (source_count - 1.0) / source.capacity - (
        destination_count + 1.0
    ) / destination.capacity
    # A move that reverses the skew, or leaves it as large, is not worth making.
    return 0 <= proposed_skew < skew


def _assign_standbys(
    states: Mapping[str, _ClientState],
    order: Sequence[str],
    stateful: Sequence[TaskId],
    replicas: int,
) -> None:
    # Kafka's ConstrainedPrioritySet polls the least (load, process id) client that passes
    # the constraint; every load changes only while its client is out of the queue, so
    # the minimum over the clients is exactly what the heap yields.
    rank = {p: i for i, p in enumerate(order)}
    for task in stateful:
        for _ in range(replicas):
            free = [p for p in order if not states[p].holds(task)]
            if not free:
                break  # Kafka warns that the remaining copies have no client
            chosen = min(free, key=lambda p: (states[p].load(), rank[p]))
            states[chosen].standby.add(task)
    _balance(states, order, standby=True)


def _assign_stateless(
    states: Mapping[str, _ClientState], order: Sequence[str], stateless: Sequence[TaskId]
) -> None:
    rank = {p: i for i, p in enumerate(order)}
    for task in stateless:
        chosen = min(order, key=lambda p: (states[p].active_load(), rank[p]))
        states[chosen].active.add(task)


def _lags(
    client: StreamsClient, stateful: Sequence[TaskId], ends: Mapping[TaskId, int]
) -> dict[TaskId, int]:
    """``ClientState.computeTaskLags``: the client's lag per stateful task, in records."""
    reported: dict[TaskId, int] = {}
    for sums in client.task_offset_sums.values():
        reported.update(sums)
    lags = {}
    for task in stateful:
        end = ends.get(task, 0)
        offset_sum = reported.get(task, 0)
        if offset_sum in (LATEST_OFFSET, UNKNOWN_OFFSET_SUM):
            lags[task] = offset_sum
        elif end < offset_sum:  # corrupted state: it restores from scratch
            lags[task] = end
        else:
            lags[task] = end - offset_sum
    return lags


def _any_task_movement(
    states: Mapping[str, _ClientState],
    order: Sequence[str],
    lags: Mapping[str, Mapping[TaskId, int]],
    acceptable_recovery_lag: int,
) -> bool:
    """Whether ``TaskMovement`` would move an active or standby copy: its client is not
    caught up on it and another client is strictly less behind."""
    for p in order:
        for task in states[p].active | states[p].standby:
            lag = lags[p][task]
            caught_up = (
                lag == LATEST_OFFSET
                or acceptable_recovery_lag == (1 << 63) - 1
                or 0 <= lag <= acceptable_recovery_lag
            )
            if not caught_up and min(lags[q][task] for q in order) < lag:
                return True
    return False


# -- tasks to threads -------------------------------------------------------------------


def _threads_of(
    client: StreamsClient,
    state: _ClientState,
    stateful: frozenset[TaskId],
    lags: Mapping[TaskId, int],
) -> dict[str, TaskSets]:
    # Java compares member ids by UTF-16 code unit, which UTF-16-BE bytes preserve.
    consumers = sorted(client.consumers, key=lambda c: c.encode("utf-16-be", "surrogatepass"))
    previous = {
        c: sorted(
            (t for t in client.task_offset_sums.get(c, {}) if t in stateful),
            key=lambda t: (lags[t], t),
        )
        for c in consumers
    }
    load: dict[str, int] = {}
    stateful_active = _hash_set_order(sorted(t for t in state.active if t in stateful))
    stateless_active = _hash_set_order(sorted(t for t in state.active if t not in stateful))
    actives = _to_threads(_queue(stateful_active), consumers, previous, load)
    # The standbys come from a TreeSet's copy: already sorted, and so already a heap.
    standbys = _to_threads(_queue(sorted(state.standby)), consumers, previous, load)
    no_previous: dict[str, list[TaskId]] = {c: [] for c in consumers}
    for c, tasks in _to_threads(_queue(stateless_active), consumers, no_previous, load).items():
        actives[c].extend(tasks)
    return {c: TaskSets(frozenset(actives[c]), frozenset(standbys[c])) for c in consumers}


def _task_hash(task: TaskId) -> int:
    """``TaskId.hashCode()``: ``Objects.hash(subtopology, partition, null)``, unsigned."""
    return (31 * (31 * (31 + task.subtopology) + task.partition)) & _MASK32


def _hash_set_order(sorted_tasks: Sequence[TaskId]) -> list[TaskId]:
    """The order of the ``HashSet`` that ``Collectors.toSet()`` fills from a sorted set.

    Raises:
        ValueError: A bucket grew into a red-black tree, whose order is not emulated.
    """
    table: JavaHashTable[TaskId] = JavaHashTable(_task_hash)
    for task in sorted_tasks:
        table.add(task)
    if table.treeified:
        raise ValueError("too many tasks share a hash bucket for Java's order to be emulated")
    return table.order()


def _compare_tasks(a: TaskId, b: TaskId) -> int:
    return (a > b) - (a < b)


def _queue(tasks: Sequence[TaskId]) -> JavaPriorityQueue[TaskId]:
    return JavaPriorityQueue.heapified(tasks, _compare_tasks)


def _to_threads(
    unassigned: JavaPriorityQueue[TaskId],
    consumers: Sequence[str],
    previous: Mapping[str, Sequence[TaskId]],
    load: dict[str, int],
) -> dict[str, list[TaskId]]:
    """``assignTasksToThreads`` for one kind of task; ``load`` carries the thread loads
    from one call to the next and is updated."""
    assignment: dict[str, list[TaskId]] = {c: [] for c in consumers}
    total = len(unassigned) + sum(load.values())
    floor = total // len(consumers)
    if len(unassigned):
        to_fill, skipped = _fill_previous_owners(
            unassigned, consumers, previous, load, assignment, floor
        )
        _interleave(unassigned, to_fill, load, assignment, floor)
        if len(unassigned):
            _spread_leftovers(unassigned, consumers, skipped, load, assignment, floor)
    for c in consumers:
        load[c] = load.get(c, 0) + len(assignment[c])
    return assignment


def _fill_previous_owners(
    unassigned: JavaPriorityQueue[TaskId],
    consumers: Sequence[str],
    previous: Mapping[str, Sequence[TaskId]],
    load: Mapping[str, int],
    assignment: dict[str, list[TaskId]],
    floor: int,
) -> tuple[list[str], dict[TaskId, str]]:
    """Each thread takes back its previous tasks up to the floor. Returns the threads
    still below the floor, and each task skipped for lack of room with its previous owner
    (the last one to report it, as Kafka's map keeps)."""
    to_fill: list[str] = []
    skipped: dict[TaskId, str] = {}
    for c in consumers:
        target = floor - load.get(c, 0)
        mine = assignment[c]
        for task in previous[c]:
            if task in unassigned:
                if len(mine) < target:
                    mine.append(task)
                    unassigned.remove(task)
                else:
                    skipped[task] = c
        if len(mine) < target:
            to_fill.append(c)
    return to_fill, skipped


def _interleave(
    unassigned: JavaPriorityQueue[TaskId],
    to_fill: list[str],
    load: Mapping[str, int],
    assignment: dict[str, list[TaskId]],
    floor: int,
) -> None:
    queue: deque[str] = deque(to_fill)
    while queue:
        task = unassigned.poll()
        if task is None:
            raise ValueError("Kafka ran out of tasks before every thread reached its share")
        c = queue.popleft()
        assignment[c].append(task)
        if len(assignment[c]) + load.get(c, 0) < floor:
            queue.append(c)


def _spread_leftovers(
    unassigned: JavaPriorityQueue[TaskId],
    consumers: Sequence[str],
    skipped: Mapping[TaskId, str],
    load: Mapping[str, int],
    assignment: dict[str, list[TaskId]],
    floor: int,
) -> None:
    at_floor = [c for c in consumers if len(assignment[c]) + load.get(c, 0) == floor]
    for task in sorted(skipped):
        owner = skipped[task]
        if owner in at_floor and task in unassigned:
            assignment[owner].append(task)
            unassigned.remove(task)
            at_floor.remove(owner)
    # Java's for-each over a PriorityQueue walks its array: the heap layout decides.
    for task in unassigned:
        if not at_floor:
            raise ValueError("Kafka would hand a task to no thread (a NullPointerException)")
        assignment[at_floor.pop(0)].append(task)
