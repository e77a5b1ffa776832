"""The broker-side assignors' fast paths for a group with a previous target
(``planner.assignors._grown``) against their general paths.

``assign(..., protocol="consumer" | "share")`` takes a fast path for ``uniform`` and
``simple`` when every member subscribes to the same topic names and the previous target is
clean (each partition exists, is subscribed to and is held once, for a share group once per
member); the general path follows Kafka's builders step by step and is itself checked
against Kafka 4.4.0's classes (``test_broker_oracle.py``, whose groups with a previous
target now go through these fast paths too). Here the two paths must agree exactly, member
order included: random previous targets (clean ones and ones the fast path hands back),
several topics, partitions past the default table sizes, member ids that share Java hash
buckets, and the planning grid's rebalances (a member joins or leaves).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.assignors import SimpleAssignor, UniformAssignor, assign
from planner.assignors._grown import grown_group
from planner.assignors._java_hashing import JavaHashTable, hash_map_order, string_hash
from planner.assignors._members import check_previous
from tests.assignors.strategies import (
    ASCII_IDS,
    COLLIDING_IDS,
    COLLIDING_TOPIC_IDS,
    COLLIDING_TOPIC_NAMES,
    TOPIC_IDS,
    TOPIC_NAMES,
    WIDE_IDS,
)

ASSIGNORS = {"uniform": ("consumer", UniformAssignor()), "simple": ("share", SimpleAssignor())}

Plain = dict[str, list[tuple[str, int]]]
Case = tuple[dict[str, int], dict[str, list[str]], Plain, dict[str, str] | None]


@st.composite
def grown_groups(
    draw: st.DrawFn,
    *,
    shared: bool,
    max_topics: int = 3,
    max_partitions: int = 48,
    max_members: int = 30,
    names: st.SearchStrategy[str] = TOPIC_NAMES,
    topic_ids: st.SearchStrategy[str] = TOPIC_IDS,
) -> Case:
    """A group with identical subscriptions and a previous target: mostly clean (the fast
    path's case), sometimes with a departed member, a ghost topic, a partition past the
    count or held twice (the general path's case)."""
    topics = draw(st.lists(names, min_size=1, max_size=max_topics, unique=True))
    counts = {t: draw(st.integers(0, max_partitions)) for t in topics}
    members = draw(
        st.lists(
            st.one_of(ASCII_IDS, COLLIDING_IDS, WIDE_IDS),
            min_size=1,
            max_size=max_members,
            unique=True,
        )
    )
    chosen = draw(st.lists(st.sampled_from([*topics, "ghost"]), min_size=1, unique=True))
    owners = [*members, *(["left-member"] if draw(st.booleans()) else [])]
    # Plain random draws (seeded by Hypothesis) keep the proportions: Hypothesis itself
    # favours the smallest values, which would leave most previous targets nearly empty.
    rnd = draw(st.randoms(use_true_random=False))
    held = rnd.choice([0.3, 0.8, 1.0])
    previous: Plain = {}
    for topic in chosen if rnd.random() < 0.9 else topics:
        for partition in range(counts.get(topic, 0)):
            if shared:
                holders = rnd.sample(owners, min(len(owners), rnd.choice([0, 1, 1, 2, 3])))
            elif rnd.random() < held:
                # The first member draws more often: it ends above its quota.
                holders = [owners[0] if rnd.random() < 0.4 else rnd.choice(owners)]
            else:
                holders = []
            for owner in holders:
                previous.setdefault(owner, []).append((topic, partition))
    for owned in previous.values():
        rnd.shuffle(owned)
    if rnd.random() < 0.1 and previous:  # a stale entry: past the count, or doubled
        owner = rnd.choice(sorted(previous))
        entry = rnd.choice(previous[owner])
        previous[owner].append(rnd.choice([entry, (entry[0], 10_000)]))
    ids = None
    if draw(st.booleans()):
        drawn = draw(st.lists(topic_ids, min_size=len(topics), max_size=len(topics), unique=True))
        ids = dict(zip(topics, drawn, strict=True))
    return counts, {m: list(chosen) for m in members}, previous, ids


def _check(strategy: str, case: Case) -> None:
    counts, subscriptions, previous, ids = case
    protocol, assignor = ASSIGNORS[strategy]
    try:
        general = assignor.general(counts, subscriptions, previous, topic_ids=ids)
    except ValueError as exc:  # a partition in two members' targets (consumer protocol)
        with pytest.raises(ValueError, match="previous target"):
            assign(strategy, counts, subscriptions, previous, protocol=protocol, topic_ids=ids)
        assert "previous target" in str(exc)
        return
    fast = assign(strategy, counts, subscriptions, previous, protocol=protocol, topic_ids=ids)
    assert fast == general
    assert list(fast) == list(general)
    assert all(type(tp).__name__ == "TopicPartition" for tps in fast.values() for tp in tps)


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fast_path_equals_general_path(strategy: str, data: st.DataObject) -> None:
    _check(strategy, data.draw(grown_groups(shared=strategy == "simple")))


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fast_path_equals_general_path_on_crowded_topic_sets(
    strategy: str, data: st.DataObject
) -> None:
    """Names sharing buckets of the members' set (nine double it), ids sharing buckets."""
    crowded = grown_groups(
        shared=strategy == "simple",
        max_topics=14,
        max_partitions=8,
        names=st.one_of(st.sampled_from(COLLIDING_TOPIC_NAMES), TOPIC_NAMES),
        topic_ids=st.one_of(COLLIDING_TOPIC_IDS, TOPIC_IDS),
    )
    _check(strategy, data.draw(crowded))


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_fast_path_equals_general_path_on_wide_topics(strategy: str, data: st.DataObject) -> None:
    """Partitions beyond the 16 or 32 buckets of a member's default-sized tables, where
    Kafka's order is no longer the partitions' order."""
    _check(
        strategy,
        data.draw(grown_groups(shared=strategy == "simple", max_topics=2, max_partitions=300)),
    )


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fast_path_equals_general_path_with_few_members(strategy: str, data: st.DataObject) -> None:
    """Few members over several topics: members above their quota give up partitions of
    several topics, where the topics' replayed order decides which."""
    _check(
        strategy,
        data.draw(grown_groups(shared=strategy == "simple", max_topics=4, max_members=3)),
    )


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
def test_planning_grid_rebalances(strategy: str) -> None:
    """The benchmark's rebalances on its smaller topics: a member joins a group holding the
    target of the smaller group, and one leaves; with stand-in and real topic ids."""
    protocol, _ = ASSIGNORS[strategy]
    for ids in (None, {"t": "2i5pS0Q3T3anZrJ3rBNdaA"}):
        for partitions in (1, 7, 12, 24, 48):
            for size in range(1, partitions + 2):
                members = [f"consumer-{i}" for i in range(size + 1)]
                smaller = {m: ["t"] for m in members[:size]}
                target = assign(
                    strategy, {"t": partitions}, smaller, protocol=protocol, topic_ids=ids
                )
                grown = {m: ["t"] for m in members}
                _check(strategy, ({"t": partitions}, grown, target, ids))
                shrunk = {m: ["t"] for m in members[1:size]}
                if shrunk:
                    _check(strategy, ({"t": partitions}, shrunk, target, ids))


def test_fast_path_taken_only_for_clean_targets() -> None:
    members = {"a": ["t"], "b": ["t"]}
    clean = {"a": [("t", 0)], "gone": [("t", 1)]}
    assert grown_group({"t": 2}, members, clean, topic_ids=None, shared=False) is not None
    for stale in (
        {"a": [("t", 0)], "b": [("t", 0)]},  # held twice
        {"a": [("t", 0), ("t", 0)]},  # listed twice
        {"a": [("t", 5)]},  # past the count
        {"a": [("u", 0)]},  # a topic nobody subscribes to
    ):
        assert grown_group({"t": 2, "u": 1}, members, stale, topic_ids=None, shared=False) is None
    shared_twice = {"a": [("t", 0)], "b": [("t", 0)]}
    assert grown_group({"t": 2}, members, shared_twice, topic_ids=None, shared=True) is not None
    assert (
        grown_group({"t": 2}, {"a": ["t"], "b": ["u"]}, clean, topic_ids=None, shared=False) is None
    )
    assert grown_group({"t": 2}, members, {}, topic_ids=None, shared=False) is None
    iterators = {"a": iter([("t", 0)])}
    assert grown_group({"t": 2}, members, iterators, topic_ids=None, shared=False) is None


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
def test_edge_cases_equal_the_general_path(strategy: str) -> None:
    """No existing topic, a share group with more members than partitions (some members
    cycle past every partition), and a malformed topic-id map."""
    previous = {"a": [("t", 0)]}
    _check(strategy, ({"t": 0, "u": 1}, {"a": ["t"], "b": ["t"]}, {"a": []}, None))
    _check(strategy, ({"t": 2}, {m: ["t"] for m in "abcdefg"}, previous, None))
    _check(
        strategy,
        (
            {"t": 3},
            {m: ["t"] for m in "abcdefgh"},
            {"a": [("t", 0)], "b": [("t", 0)]} if strategy == "simple" else previous,
            None,
        ),
    )
    # Nobody short of partitions; and members short of partitions that already hold the
    # one partition still short of members (a cycle that assigns nothing).
    two = {"m0": ["t"], "m1": ["t"]}
    _check(strategy, ({"t": 2}, two, {"m0": [("t", 0)], "m1": [("t", 1)]}, None))
    if strategy == "simple":
        three = {**two, "m2": ["t"]}
        held = {"m0": [("t", 0), ("t", 1)], "m1": [("t", 0)], "m2": [("t", 0), ("t", 1)]}
        _check(strategy, ({"t": 2}, three, held, None))
    # A member above its count whose 10 partitions (every 16th) share one bucket of its
    # 16-bucket table: the ninth grows the table early, so bucket order is not enough.
    crowded = {f"m{i:02}": ["t"] for i in range(20)}
    held = {"m00": [("t", 16 * k) for k in range(10)]}
    _check(strategy, ({"t": 160}, crowded, held, {"t": "2i5pS0Q3T3anZrJ3rBNdaA"}))
    protocol, _ = ASSIGNORS[strategy]
    with pytest.raises(TypeError, match="topic_ids"):
        assign(strategy, {"t": 2}, {"a": ["t"]}, previous, protocol=protocol, topic_ids=["t"])  # type: ignore[arg-type]


def test_iterators_are_read_once() -> None:
    """A previous target given as iterators goes straight to the general path."""
    members = {"a": ["t"], "b": ["t"]}
    result = assign(
        "uniform",
        {"t": 4},
        members,
        {"a": iter([("t", 3), ("t", 2), ("t", 1)])},
        protocol="consumer",
    )
    assert sorted(len(tps) for tps in result.values()) == [2, 2]
    assert result == UniformAssignor().general(
        {"t": 4}, members, {"a": [("t", 3), ("t", 2), ("t", 1)]}
    )


@settings(max_examples=200, deadline=None)
@given(
    ids=st.lists(
        st.one_of(
            st.lists(st.sampled_from(["Aa", "BB"]), min_size=1, max_size=6).map("".join),
            st.integers(0, 10**6).map("c-{}".format),
        ),
        max_size=300,
    )
)
def test_member_order_equals_a_replayed_hash_map(ids: list[str]) -> None:
    """``hash_map_order``'s shortcut (capacity from the size, unless a small table grew
    early) against inserting every member id into an emulated ``HashMap``, with many ids
    of one Java hash (long chains in tables of every size)."""
    table: JavaHashTable[str] = JavaHashTable(string_hash)
    for member_id in ids:
        table.add(member_id)
    assert hash_map_order(ids) == table.order()


@pytest.mark.parametrize("strategy", [*sorted(ASSIGNORS), "range"])
@pytest.mark.parametrize(
    "previous",
    [
        [("t", 0)],
        {"a": "t-0"},
        {1: []},
        {"a": [("t", "0")]},
        {"a": [5]},
        {"a": [("t", 0, 1)]},
    ],
)
def test_malformed_targets_fail_as_on_the_general_path(strategy: str, previous: object) -> None:
    """The fast paths' checks at C speed hand malformed inputs to the entry-by-entry
    checks, which raise what they raised before."""
    protocol = "consumer" if strategy != "simple" else "share"
    members = {"a": ["t"], "b": ["t"]}
    with pytest.raises((TypeError, AttributeError)) as fast:
        assign(strategy, {"t": 2}, members, previous, protocol=protocol)  # type: ignore[arg-type]
    with pytest.raises(type(fast.value)) as general:
        check_previous(previous)  # type: ignore[arg-type]
    assert str(fast.value) == str(general.value)
