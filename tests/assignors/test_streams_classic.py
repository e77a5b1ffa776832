"""``planner.assignors.streams_classic`` without Kafka: its docstring example, the
invariants every assignment keeps, the lag guard and the input errors; and the
``java.util.PriorityQueue`` operations it relies on, against a brute force."""

from __future__ import annotations

import doctest
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.assignors import assign, streams_classic
from planner.assignors._java_queue import JavaPriorityQueue, compare_numbers
from planner.assignors.streams_classic import (
    LATEST_OFFSET,
    StreamsClient,
    TaskId,
    assign_tasks,
)
from tests.assignors.streams_classic_groups import (
    ClassicStreamsGroup,
    classic_streams_groups,
)

A = "00000000-0000-0000-0000-00000000000a"
B = "00000000-0000-0000-0000-00000000000b"
# The sign bit set: Java's UUID.compareTo puts it before A and B.
NEGATIVE = "f0000000-0000-0000-0000-000000000000"


def test_docstring_examples() -> None:
    failed, attempted = doctest.testmod(streams_classic)
    assert attempted and not failed


@settings(max_examples=150, deadline=None)
@given(group=classic_streams_groups())
def test_every_assignment_keeps_kafkas_invariants(group: ClassicStreamsGroup) -> None:
    result = group.ours()
    actives = [t for c in result.clients.values() for t in c.active]
    assert sorted(actives) == sorted(group.stateful + group.stateless)
    for process, tasks in result.clients.items():
        # A standby never shares its client with its active, nor with another standby.
        assert not tasks.active & tasks.standby
        assert tasks.standby <= set(group.stateful)
        threads = [result.threads[c] for c in group.clients[process].consumers]
        assert set().union(*(t.active for t in threads)) == tasks.active
        assert set().union(*(t.standby for t in threads)) == tasks.standby
        # Threads of one client end within one task of each other.
        totals = [len(t.active) + len(t.standby) for t in threads]
        assert max(totals) - min(totals) <= 1
    wanted = min(group.standbys, len(group.clients) - 1) * len(group.stateful)
    assert sum(len(c.standby) for c in result.clients.values()) == wanted


def test_actives_are_weighted_by_thread_count() -> None:
    """Two threads against one: six stateful tasks split four and two."""
    result = assign_tasks(
        {A: StreamsClient(("a1", "a2")), B: StreamsClient(("b1",))},
        stateful_tasks=[TaskId(0, p) for p in range(6)],
    )
    assert [len(result.clients[p].active) for p in (A, B)] == [4, 2]
    assert {c: len(t.active) for c, t in result.threads.items()} == {"a1": 2, "a2": 2, "b1": 2}


def test_clients_follow_javas_signed_uuid_order() -> None:
    """The round-robin deal starts at the smallest process id as Java compares UUIDs."""
    result = assign_tasks(
        {A: StreamsClient(("a",)), NEGATIVE: StreamsClient(("n",))},
        stateful_tasks=[TaskId(0, 0)],
    )
    assert result.clients[NEGATIVE].active == {TaskId(0, 0)}


def test_stateless_tasks_go_to_the_least_active_load() -> None:
    """Stateful 0_0 to A (1 thread) and 0_1 to B (3 threads); the stateless tasks go to B
    (load 1/3, then 2/3), then to A on the tie at load 1 (the lower process id), then B."""
    result = assign_tasks(
        {A: StreamsClient(("a",)), B: StreamsClient(("b1", "b2", "b3"))},
        stateful_tasks=[TaskId(0, 0), TaskId(0, 1)],
        stateless_tasks=[TaskId(1, p) for p in range(4)],
    )
    assert [len(result.clients[p].active) for p in (A, B)] == [2, 4]


def test_a_lagging_client_makes_the_result_lag_dependent() -> None:
    """B runs task 0_0 (offset sum -2); the deal gives 0_0 to A, 20,000 records behind:
    Kafka keeps it on B and warms A up, so ours says the result hangs on lags."""
    task = TaskId(0, 0)
    group = {A: StreamsClient(("a",)), B: StreamsClient(("b",), {"b": {task: LATEST_OFFSET}})}
    lagging = assign_tasks(group, stateful_tasks=[task], end_offset_sums={task: 20_000})
    assert lagging.lag_dependent
    assert lagging.clients[A].active == {task}  # the target the warm-up works toward
    within = assign_tasks(group, stateful_tasks=[task], end_offset_sums={task: 9_000})
    assert not within.lag_dependent


def test_threads_take_back_their_previous_tasks_least_lag_first() -> None:
    """One client, two threads, four tasks: a1 reported all four, so it keeps its two
    least-lagging ones (its share), and a2 gets the rest."""
    tasks = [TaskId(0, p) for p in range(4)]
    sums = {"a1": {tasks[0]: 5, tasks[1]: 9, tasks[2]: LATEST_OFFSET, tasks[3]: 7}}
    result = assign_tasks(
        {A: StreamsClient(("a1", "a2"), sums)},
        stateful_tasks=tasks,
        end_offset_sums=dict.fromkeys(tasks, 10),
    )
    assert result.threads["a1"].active == {tasks[2], tasks[1]}
    assert result.threads["a2"].active == {tasks[0], tasks[3]}


@pytest.mark.parametrize(
    ("clients", "message"),
    [
        ({A: StreamsClient(())}, "no stream threads"),
        ({A: StreamsClient(("x",)), B: StreamsClient(("x",))}, "repeats"),
        (
            {A: StreamsClient(("x", "y"), {"x": {TaskId(0, 0): 1}, "y": {TaskId(0, 0): 2}})},
            "different offset sums",
        ),
    ],
)
def test_rejects_inputs_kafka_would_take_otherwise(
    clients: dict[str, StreamsClient], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        assign_tasks(clients, stateful_tasks=[TaskId(0, 0)])


def test_rejects_a_task_both_stateful_and_stateless() -> None:
    with pytest.raises(ValueError, match="both"):
        assign_tasks(
            {A: StreamsClient(("a",))},
            stateful_tasks=[TaskId(0, 0)],
            stateless_tasks=[TaskId(0, 0)],
        )


# -- java.util.PriorityQueue ------------------------------------------------------------


def _is_heap(items: list[int]) -> bool:
    return all(items[(k - 1) >> 1] <= items[k] for k in range(1, len(items)))


def test_heapify_sifts_parents_down_last_first() -> None:
    """Java's heapify of [5, 4, 3, 2, 1]: slot 1 first (4 swaps with 1), then slot 0."""
    queue = JavaPriorityQueue.heapified([5, 4, 3, 2, 1], compare_numbers)
    assert list(queue) == [1, 2, 3, 5, 4]


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(st.integers(0, 50), unique=True, max_size=20),
    removals=st.lists(st.integers(0, 50), max_size=10),
)
def test_removals_keep_a_heap_and_poll_sorted(items: list[int], removals: list[int]) -> None:
    queue = JavaPriorityQueue.heapified(items, compare_numbers)
    assert _is_heap(list(queue))
    left = set(items)
    for value in removals:
        assert queue.remove(value) == (value in left)
        left.discard(value)
        assert _is_heap(list(queue)) and sorted(queue) == sorted(left)
    assert [queue.poll() for _ in range(len(left))] == sorted(left)


def test_remove_sifts_down_then_up_as_java_does() -> None:
    """``removeAt``: the last entry fills the freed slot, sinks if it can, else rises."""
    queue = JavaPriorityQueue.heapified([1, 5, 2, 6, 7, 3], compare_numbers)
    assert queue.remove(5)
    # 3 fills the slot of 5 and stays: not greater than 6 or 7, not less than 1.
    assert list(queue) == [1, 3, 2, 6, 7]
    queue = JavaPriorityQueue.heapified([1, 10, 2, 11, 12, 3, 4], compare_numbers)
    # 4 fills the slot of 11, a leaf, and rises above 10.
    assert queue.remove(11)
    assert list(queue) == [1, 4, 2, 10, 12, 3]


def test_heap_array_differs_from_sorted_order() -> None:
    """What Kafka's leftover loop walks is the array, not the sorted order."""
    rng = random.Random(7)
    items = rng.sample(range(100), 12)
    queue = JavaPriorityQueue.heapified(items, compare_numbers)
    assert list(queue) != sorted(items)


# -- the planner's stand-in -------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    processes=st.lists(st.uuids().map(str), min_size=1, max_size=9, unique=True),
    tasks=st.integers(0, 40),
    stateful=st.booleans(),
    standbys=st.integers(0, 2),
)
def test_one_thread_instances_on_one_topic_get_the_stand_ins_cut(
    processes: list[str], tasks: int, stateful: bool, standbys: int
) -> None:
    """Why the planner may keep planning a fresh classic Streams group over one input topic
    as a fresh ``cooperative-sticky`` group: with one stream thread per instance, task
    ``i`` goes to the ``i``-th instance in process-id order, which is how the stand-in
    deals partition ``i`` to the ``i``-th member, whether the tasks are stateful or not."""
    ordered = sorted(processes, key=streams_classic._process_order)
    member = {p: f"m{i:02d}" for i, p in enumerate(ordered)}  # member order = process order
    result = assign_tasks(
        {p: StreamsClient((member[p],)) for p in processes},
        stateful_tasks=[TaskId(0, p) for p in range(tasks)] if stateful else [],
        stateless_tasks=[] if stateful else [TaskId(0, p) for p in range(tasks)],
        num_standby_replicas=standbys,
    )
    stand_in = assign("cooperative-sticky", {"t": tasks}, {member[p]: ["t"] for p in ordered})
    ours = {m: sorted(t.partition for t in x.active) for m, x in result.threads.items()}
    assert ours == {m: sorted(tp.partition for tp in tps) for m, tps in stand_in.items()}
