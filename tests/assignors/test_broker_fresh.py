"""The broker-side assignors' closed forms for fresh groups (``planner.assignors._fresh``)
against their general paths.

``assign(..., protocol="consumer" | "share")`` takes a closed form when the group is fresh
(no previous target assignment, no static members) and every member subscribes to the same
topic names; the general path follows Kafka's builders step by step and is itself checked
against Kafka 4.4.0's classes (``test_broker_oracle.py``, whose fresh groups now go through
the closed forms too). Here the two paths must agree exactly on every such group: one topic
(the planning grid's case) and several, up to 300 partitions, with and without topic ids,
member ids that share Java hash buckets and ids outside ASCII.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.assignors import ConsumerRangeAssignor, SimpleAssignor, UniformAssignor, assign
from planner.assignors._fresh import _slots_closed_form, _slots_simulated, fresh_group
from tests.assignors.strategies import (
    ASCII_IDS,
    COLLIDING_IDS,
    COLLIDING_TOPIC_IDS,
    COLLIDING_TOPIC_NAMES,
    TOPIC_IDS,
    TOPIC_NAMES,
    WIDE_IDS,
)

ASSIGNORS = {
    "uniform": ("consumer", UniformAssignor()),
    "range": ("consumer", ConsumerRangeAssignor()),
    "simple": ("share", SimpleAssignor()),
}


@st.composite
def fresh_groups(
    draw: st.DrawFn,
    *,
    max_topics: int = 4,
    max_partitions: int = 64,
    names: st.SearchStrategy[str] = TOPIC_NAMES,
    topic_ids: st.SearchStrategy[str] = TOPIC_IDS,
) -> tuple[dict[str, int], dict[str, list[str]], dict[str, str] | None]:
    topics = draw(st.lists(names, min_size=1, max_size=max_topics, unique=True))
    counts = {t: draw(st.integers(0, max_partitions)) for t in topics}
    members = draw(
        st.lists(
            st.one_of(ASCII_IDS, COLLIDING_IDS, WIDE_IDS), min_size=1, max_size=40, unique=True
        )
    )
    chosen = draw(st.lists(st.sampled_from([*topics, "ghost"]), min_size=1, unique=True))
    ids = None
    if draw(st.booleans()):
        drawn = draw(st.lists(topic_ids, min_size=len(topics), max_size=len(topics), unique=True))
        ids = dict(zip(topics, drawn, strict=True))
    return counts, {m: list(chosen) for m in members}, ids


def _check(
    strategy: str, group: tuple[dict[str, int], dict[str, list[str]], dict[str, str] | None]
) -> None:
    counts, subscriptions, ids = group
    protocol, assignor = ASSIGNORS[strategy]
    assert fresh_group(counts, subscriptions, None, topic_ids=ids, instance_ids=None) is not None
    fast = assign(strategy, counts, subscriptions, protocol=protocol, topic_ids=ids)
    general = assignor.general(counts, subscriptions, topic_ids=ids)
    assert fast == general
    assert list(fast) == list(general)


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
@settings(max_examples=150, deadline=None)
@given(group=fresh_groups())
def test_closed_form_equals_general_path(strategy: str, group: tuple) -> None:  # type: ignore[type-arg]
    _check(strategy, group)


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
@settings(max_examples=40, deadline=None)
@given(group=fresh_groups(max_topics=1, max_partitions=300))
def test_closed_form_equals_general_path_on_one_wide_topic(strategy: str, group: tuple) -> None:  # type: ignore[type-arg]
    _check(strategy, group)


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
@settings(max_examples=60, deadline=None)
@given(
    group=fresh_groups(
        max_topics=14,
        max_partitions=8,
        names=st.one_of(st.sampled_from(COLLIDING_TOPIC_NAMES), TOPIC_NAMES),
        topic_ids=st.one_of(COLLIDING_TOPIC_IDS, TOPIC_IDS),
    )
)
def test_closed_form_equals_general_path_on_crowded_topic_sets(strategy: str, group: tuple) -> None:  # type: ignore[type-arg]
    """Names sharing buckets of the members' set (nine double it), ids sharing buckets."""
    _check(strategy, group)


@pytest.mark.parametrize("strategy", sorted(ASSIGNORS))
def test_planning_grid_sizes(strategy: str) -> None:
    """Every group size of the benchmark's smaller topics, one topic, stand-in ids."""
    for partitions in (1, 7, 12, 24):
        for size in range(1, 2 * partitions + 2):
            members = {f"consumer-{i}": ["t"] for i in range(size)}
            _check(strategy, ({"t": partitions}, members, None))


def test_not_taken_when_the_group_is_not_fresh() -> None:
    members = {"a": ["t"], "b": ["t"]}
    assert (
        fresh_group({"t": 2}, members, {"a": [("t", 0)]}, topic_ids=None, instance_ids=None) is None
    )
    assert fresh_group({"t": 2}, members, None, topic_ids=None, instance_ids={"a": "i"}) is None
    assert (
        fresh_group({"t": 2}, {"a": ["t"], "b": ["u"]}, None, topic_ids=None, instance_ids=None)
        is None
    )
    assert fresh_group({"t": 2}, {}, None, topic_ids=None, instance_ids=None) is None
    assert fresh_group({"t": 2}, members, {}, topic_ids=None, instance_ids={}) is not None


def test_inputs_checked_as_on_the_general_path() -> None:
    with pytest.raises(TypeError):
        assign("uniform", {"t": 2}, {"a": "t"}, protocol="consumer")
    with pytest.raises(ValueError):
        assign("simple", {"t": -1}, {"a": ["t"]}, protocol="share")
    with pytest.raises(ValueError):
        assign("uniform", {"t": 2}, {"a": ["t"]}, protocol="consumer", topic_ids={"t": "nope"})
    with pytest.raises(TypeError):
        assign("range", {"t": 2}, {"a": ["t"]}, protocol="consumer", topic_ids=["t"])  # type: ignore[arg-type]


def test_simple_slots_closed_form_equals_the_simulated_pass() -> None:
    """``simple``'s slot formula against the slot-by-slot pass it replaces, on every
    sharing pattern of up to 40 partitions and 120 members (walks in random orders)."""
    rng = random.Random(24)
    for partitions in range(1, 41):
        for members in range(1, 121):
            sharing = -(-members // partitions)
            precise = sharing * partitions / members
            ceilings = [math.ceil(precise * i) for i in range(members + 1)]
            desired = [ceilings[i + 1] - ceilings[i] for i in range(members)]
            walk = tuple(rng.sample(range(partitions), partitions))
            closed = _slots_closed_form(walk, sharing, desired)
            assert closed is not None
            simulated = _slots_simulated(walk, sharing, desired)
            assert [sorted(h) for h in closed] == [sorted(h) for h in simulated]


@settings(max_examples=60, deadline=None)
@given(group=fresh_groups(), data=st.data())
def test_consumer_range_with_a_previous_target_equals_general_path(
    group: tuple,  # type: ignore[type-arg]
    data: st.DataObject,
) -> None:
    """The broker's ``range`` only checks the previous target: the shortcut takes it too,
    and must raise where the general path raises (a partition claimed twice)."""
    counts, subscriptions, ids = group
    owners = [*subscriptions, "left-member"]
    previous: dict[str, list[tuple[str, int]]] = {}
    for topic, count in {**counts, "gone": 2}.items():
        for partition in range(count + 1):  # one past the count too
            for owner in data.draw(st.lists(st.sampled_from(owners), max_size=2)):
                previous.setdefault(owner, []).append((topic, partition))
    assert fresh_group(
        counts, subscriptions, None, topic_ids=ids, instance_ids=None, reads_previous=False
    )
    try:
        general = ConsumerRangeAssignor().general(counts, subscriptions, previous, topic_ids=ids)
    except ValueError as error:
        with pytest.raises(ValueError, match="previous target assignment") as caught:
            assign("range", counts, subscriptions, previous, protocol="consumer", topic_ids=ids)
        assert str(caught.value) == str(error)
        return
    fast = assign("range", counts, subscriptions, previous, protocol="consumer", topic_ids=ids)
    assert fast == general
