"""kafka-python 3.0.12 as a differential oracle (see ``oracle.py`` for the inputs it avoids)."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings

from planner.assignors import assign
from tests.assignors.oracle import kafka_python_assign
from tests.assignors.strategies import Group, groups

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True, scope="module")
def _quiet_kafka_python() -> None:
    logging.getLogger("kafka").setLevel(logging.CRITICAL)


def plain(result: dict[str, list[tuple[str, int]]]) -> dict[str, list[tuple[str, int]]]:
    return {m: [tuple(tp) for tp in tps] for m, tps in result.items()}  # type: ignore[misc]


def moves(
    previous: dict[str, list[tuple[str, int]]] | None, result: dict[str, list[tuple[str, int]]]
) -> int:
    owner = {tuple(tp): m for m, tps in (previous or {}).items() for tp in tps}
    return sum(1 for m, tps in result.items() for tp in tps if owner.get(tuple(tp), m) != m)


@SETTINGS
@given(group=groups(with_previous=False, messy_previous=False))
def test_range_equals_kafka_python(group: Group) -> None:
    ours = assign("range", group.partitions_per_topic, group.subscriptions)
    assert plain(ours) == kafka_python_assign(
        "range", group.partitions_per_topic, group.subscriptions
    )


@SETTINGS
@given(group=groups(identical=True, with_previous=False, messy_previous=False))
def test_roundrobin_equals_kafka_python_on_identical_subscriptions(group: Group) -> None:
    # kafka-python 3.0.12 raises KeyError on differing subscriptions: not compared there.
    ours = assign("roundrobin", group.partitions_per_topic, group.subscriptions)
    assert plain(ours) == kafka_python_assign(
        "roundrobin", group.partitions_per_topic, group.subscriptions
    )


@SETTINGS
@given(group=groups(identical=True, with_previous=False, messy_previous=False))
def test_fresh_sticky_equals_kafka_python_on_identical_subscriptions(group: Group) -> None:
    ours = assign("sticky", group.partitions_per_topic, group.subscriptions)
    assert plain(ours) == kafka_python_assign(
        "sticky", group.partitions_per_topic, group.subscriptions
    )


@SETTINGS
@given(group=groups(messy_previous=False))
def test_sticky_moves_no_more_than_kafka_python(group: Group) -> None:
    args = (group.partitions_per_topic, group.subscriptions, group.previous)
    ours = assign("sticky", *args)
    theirs = kafka_python_assign("sticky", *args)
    assert moves(group.previous, ours) <= moves(group.previous, theirs)
    # Both are balanced, so they give the same multiset of counts on identical subscriptions.
    if group.identical:
        assert sorted(map(len, ours.values())) == sorted(map(len, theirs.values()))


def test_kafka_python_roundrobin_bug_is_still_there() -> None:
    """If this starts failing, kafka-python fixed round-robin and the oracle can widen."""
    with pytest.raises(KeyError):
        kafka_python_assign("roundrobin", {"t0": 1, "t1": 2}, {"c0": ["t0"], "c1": ["t0", "t1"]})
