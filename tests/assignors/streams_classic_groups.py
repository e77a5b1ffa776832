"""Hypothesis strategies for Kafka Streams applications on the classic protocol: instances
(process ids) with their stream threads, stateful and stateless tasks, and the task offset
sums threads report after an earlier generation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from planner.assignors.streams_classic import (
    LATEST_OFFSET,
    UNKNOWN_OFFSET_SUM,
    StreamsClassicAssignment,
    StreamsClient,
    TaskId,
    assign_tasks,
)
from tests.assignors.strategies import ASCII_IDS, COLLIDING_IDS

# UUIDs whose halves have the sign bit set sort first in Java (signed compare), and ids
# differing only in the least significant half test the second comparison.
EDGE_PROCESS_IDS = st.sampled_from(
    [
        "00000000-0000-0000-0000-000000000001",
        "00000000-0000-0000-8000-000000000000",
        "7fffffff-ffff-ffff-ffff-ffffffffffff",
        "80000000-0000-0000-0000-000000000000",
        "ffffffff-ffff-ffff-ffff-ffffffffffff",
        "ffffffff-ffff-ffff-0000-000000000000",
    ]
)
PROCESS_IDS = st.one_of(st.uuids().map(str), EDGE_PROCESS_IDS)
THREAD_IDS = st.one_of(ASCII_IDS, COLLIDING_IDS, st.uuids().map(str))


@dataclass(frozen=True)
class ClassicStreamsGroup:
    clients: dict[str, StreamsClient]
    stateful: list[TaskId]
    stateless: list[TaskId]
    standbys: int
    end_offset_sums: dict[TaskId, int] = field(default_factory=dict)
    acceptable_recovery_lag: int = 10_000

    def ours(self) -> StreamsClassicAssignment:
        return assign_tasks(
            self.clients,
            stateful_tasks=self.stateful,
            stateless_tasks=self.stateless,
            num_standby_replicas=self.standbys,
            end_offset_sums=self.end_offset_sums,
            acceptable_recovery_lag=self.acceptable_recovery_lag,
        )

    def request(self) -> dict[str, Any]:
        """The oracle's ``streams_classic_assign`` request for this group."""
        return {
            "op": "streams_classic_assign",
            "clients": [
                {
                    "process": p,
                    "consumers": [
                        {
                            "id": c,
                            "offsets": [
                                [t.subtopology, t.partition, s]
                                for t, s in client.task_offset_sums.get(c, {}).items()
                            ],
                        }
                        for c in client.consumers
                    ],
                }
                for p, client in self.clients.items()
            ],
            "stateful": [list(t) for t in self.stateful],
            "stateless": [list(t) for t in self.stateless],
            "endOffsets": [
                [t.subtopology, t.partition, s] for t, s in self.end_offset_sums.items()
            ],
            "standbys": self.standbys,
            "acceptableRecoveryLag": self.acceptable_recovery_lag,
        }


@st.composite
def _tasks(draw: st.DrawFn, *, max_tasks: int) -> tuple[list[TaskId], list[TaskId]]:
    subtopologies = draw(st.lists(st.integers(0, 12), min_size=1, max_size=4, unique=True))
    stateful: list[TaskId] = []
    stateless: list[TaskId] = []
    for s in subtopologies:
        tasks = [TaskId(s, p) for p in range(draw(st.integers(0, max_tasks)))]
        (stateful if draw(st.booleans()) else stateless).extend(tasks)
    return stateful, stateless


@st.composite
def _threads(draw: st.DrawFn, *, max_clients: int, max_threads: int) -> dict[str, list[str]]:
    processes = draw(st.lists(PROCESS_IDS, min_size=1, max_size=max_clients, unique=True))
    counts = [draw(st.integers(1, max_threads)) for _ in processes]
    ids = draw(st.lists(THREAD_IDS, min_size=sum(counts), max_size=sum(counts), unique=True))
    out: dict[str, list[str]] = {}
    for p, n in zip(processes, counts, strict=True):
        out[p], ids = ids[:n], ids[n:]
    return out


@st.composite
def classic_streams_groups(
    draw: st.DrawFn,
    *,
    max_clients: int = 5,
    max_threads: int = 4,
    max_tasks: int = 8,
    kinds: tuple[str, ...] = ("fresh", "caught_up", "lagging"),
) -> ClassicStreamsGroup:
    """A group in one of these states (``kinds``): fresh (nothing reported, empty
    changelogs); after a generation with every client caught up (threads report their
    tasks, lags within ``acceptable.recovery.lag``); with arbitrary offset and end offset
    sums (lags that may make Kafka move tasks toward caught-up clients); or ``behind``:
    as lagging, but every changelog holds more than the recovery lag, so a client that
    reports nothing for a task is not caught up on it."""
    stateful, stateless = draw(_tasks(max_tasks=max_tasks))
    threads = draw(_threads(max_clients=max_clients, max_threads=max_threads))
    standbys = draw(st.integers(0, 3))
    kind = draw(st.sampled_from(kinds))
    if kind == "fresh" or not stateful:
        clients = {p: StreamsClient(tuple(cs)) for p, cs in threads.items()}
        return ClassicStreamsGroup(clients, stateful, stateless, standbys)
    least_end = 10_001 if kind == "behind" else 0
    end_offsets = {t: draw(st.integers(least_end, 30_000)) for t in stateful}
    lag = 10_000
    clients = {}
    for p, consumers in threads.items():
        # A task's state lives in one thread's report per instance: different sums from two
        # threads of one instance would make Kafka's result hang on the JoinGroup order.
        owner_of = {
            t: draw(st.sampled_from([None, *consumers]))
            for t in draw(st.lists(st.sampled_from(stateful), unique=True))
        }
        sums: dict[str, dict[TaskId, int]] = {c: {} for c in consumers}
        for task, owner in owner_of.items():
            if owner is None:
                continue
            if kind == "caught_up":
                low = max(0, end_offsets[task] - lag)
                offset = draw(
                    st.one_of(st.just(LATEST_OFFSET), st.integers(low, end_offsets[task]))
                )
            else:
                # UNKNOWN_OFFSET_SUM: a lag below every other, yet never caught up.
                special = st.sampled_from([LATEST_OFFSET, UNKNOWN_OFFSET_SUM])
                offset = draw(st.one_of(special, st.integers(0, 32_000)))
            sums[owner][task] = offset
        clients[p] = StreamsClient(tuple(consumers), sums)
    if kind == "caught_up":
        # Every client that reports nothing for a task has lag = its end offset sum.
        end_offsets = {t: min(e, lag) for t, e in end_offsets.items()}
        clients = {
            p: StreamsClient(
                c.consumers,
                {
                    thread: {t: min(v, end_offsets[t]) if v >= 0 else v for t, v in sums.items()}
                    for thread, sums in c.task_offset_sums.items()
                },
            )
            for p, c in clients.items()
        }
    return ClassicStreamsGroup(clients, stateful, stateless, standbys, end_offsets, lag)
