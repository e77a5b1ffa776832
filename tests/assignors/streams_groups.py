"""Hypothesis strategies for streams groups: members on processes, subtopologies, and the
previous assignment a broker would hold."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from planner.assignors.streams_sticky import (
    StreamsMember,
    StreamsTasks,
    Subtopology,
    TaskId,
    assign_tasks,
)
from tests.assignors.strategies import ASCII_IDS, COLLIDING_IDS

# Kafka Streams numbers subtopologies "0", "1", ...; "10" sorts before "2" as a string.
SUBTOPOLOGY_IDS = st.sampled_from(["0", "1", "2", "3", "10", "a"])
# Streams process ids are UUIDs; short and colliding ids share buckets of the small
# process map (sized to the member count) and of each process's member map.
PROCESS_IDS = st.one_of(
    st.uuids().map(str), st.sampled_from(["p0", "p1", "p2", "p3"]), COLLIDING_IDS
)
MEMBER_IDS = st.one_of(ASCII_IDS, COLLIDING_IDS, st.uuids().map(str))


@dataclass(frozen=True)
class StreamsGroup:
    members: dict[str, StreamsMember]
    subtopologies: dict[str, Subtopology]
    standbys: int


@st.composite
def topologies(draw: st.DrawFn, *, max_tasks: int = 8) -> dict[str, Subtopology]:
    ids = draw(st.lists(SUBTOPOLOGY_IDS, min_size=1, max_size=4, unique=True))
    return {s: Subtopology(draw(st.integers(0, max_tasks)), draw(st.booleans())) for s in ids}


@st.composite
def _membership(draw: st.DrawFn, *, max_members: int) -> dict[str, str]:
    """Member id -> process id, several members per process; members are dealt to the
    processes in turn unless a draw moves one, so most groups span several processes."""
    # Hypothesis favours small draws; sampled sizes keep most groups on several processes.
    count = draw(st.sampled_from([4, 2, 6, 3, 1, max_members]))
    ids = draw(st.lists(MEMBER_IDS, min_size=count, max_size=count, unique=True))
    count = min(len(ids), draw(st.sampled_from([2, 3, 4, 1])))
    processes = draw(st.lists(PROCESS_IDS, min_size=count, max_size=count, unique=True))
    dealt = len(processes)
    return {
        m: processes[draw(st.sampled_from([i % dealt, *range(dealt)]))] for i, m in enumerate(ids)
    }


@st.composite
def _random_previous(
    draw: st.DrawFn, membership: dict[str, str], tasks: list[TaskId], standbys: int
) -> dict[str, StreamsMember]:
    """A valid previous assignment drawn at random: each task active on at most one
    member, its standbys on other processes than its active and than each other."""
    active: dict[str, set[TaskId]] = {m: set() for m in membership}
    standby: dict[str, set[TaskId]] = {m: set() for m in membership}
    members = list(membership)
    for task in tasks:
        holders: set[str] = set()
        owner = draw(st.one_of(st.sampled_from(members), st.none()))
        if owner is not None:
            active[owner].add(task)
            holders.add(membership[owner])
        for _ in range(draw(st.integers(0, standbys))):
            free = [m for m in members if membership[m] not in holders]
            if not free:
                break
            copy = draw(st.sampled_from(free))
            standby[copy].add(task)
            holders.add(membership[copy])
    offsets = draw(st.booleans())
    out = {}
    for m, process in membership.items():
        reported: dict[TaskId, int] = {}
        if offsets:
            for task in draw(st.lists(st.sampled_from(tasks), max_size=4)) if tasks else []:
                reported[task] = draw(st.integers(0, 50))
        out[m] = StreamsMember(process, frozenset(active[m]), frozenset(standby[m]), reported)
    return out


def _tasks(subtopologies: dict[str, Subtopology]) -> list[TaskId]:
    return [TaskId(s, p) for s, sub in subtopologies.items() for p in range(sub.task_count)]


@st.composite
def streams_groups(draw: st.DrawFn, *, max_members: int = 8) -> StreamsGroup:
    """A group in one of three states: fresh; holding what the assignor gave an earlier
    group (members left and joined, tasks grew or shrank since); or holding a random valid
    assignment with reported task offsets."""
    subtopologies = draw(topologies())
    standbys = draw(st.integers(0, 3))
    membership = draw(_membership(max_members=max_members))
    kind = draw(st.sampled_from(["settled", "random", "fresh"]))
    if kind == "fresh":
        members = {m: StreamsMember(p) for m, p in membership.items()}
    elif kind == "settled":
        earlier_membership = dict(membership)
        joined = draw(st.lists(st.sampled_from(list(membership)), unique=True))
        joined = joined[: len(membership) - 1]  # someone stays
        for m in joined:
            del earlier_membership[m]  # joined since
        for i in range(draw(st.integers(0, 2))):
            earlier_membership[f"gone-{i}"] = draw(PROCESS_IDS)  # left since
        earlier_topology = {
            s: Subtopology(max(0, sub.task_count + draw(st.integers(-2, 2))), sub.stateful)
            for s, sub in subtopologies.items()
        }
        held: dict[str, StreamsTasks] = {}
        if earlier_membership:
            held = assign_tasks(
                {m: StreamsMember(p) for m, p in earlier_membership.items()},
                earlier_topology,
                num_standby_replicas=standbys,
            )
        empty = StreamsTasks(frozenset(), frozenset())
        tasks = _tasks(subtopologies)
        members = {}
        for m, p in membership.items():
            # A member that joined may be a restarted thread with state on disk: it has a
            # new member id and reports offset sums for the tasks whose state it has.
            reported = {}
            if m in joined and tasks:
                for task in draw(st.lists(st.sampled_from(tasks), max_size=3)):
                    reported[task] = draw(st.integers(0, 50))
            members[m] = StreamsMember(
                p, held.get(m, empty).active, held.get(m, empty).standby, reported
            )
    else:
        members = draw(_random_previous(membership, _tasks(subtopologies), standbys))
    return StreamsGroup(members, subtopologies, standbys)
