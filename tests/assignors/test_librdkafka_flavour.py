"""The librdkafka flavour of the sticky assignors (``client="librdkafka"``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from planner.assignors import CLIENTS, StickyAssignor, assign
from tests.assignors.strategies import Group, groups
from tests.assignors.test_properties import check_valid

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

T1_T3 = {"t1": 5, "t3": 3}


def short(result: dict[str, list[tuple[str, int]]]) -> dict[str, list[str]]:
    return {m: [f"{t}p{p}" for t, p in tps] for m, tps in result.items()}


def moved(previous: dict[str, list[tuple[str, int]]], result: dict[str, list]) -> int:
    return sum(len(set(owned) - set(result.get(m, []))) for m, owned in previous.items())


def test_clients() -> None:
    assert CLIENTS == ("java", "librdkafka")
    with pytest.raises(ValueError, match="librdkafka"):
        assign("sticky", {"t": 1}, {"c0": ["t"]}, client="kafka-python")
    with pytest.raises(ValueError, match="unknown client"):
        StickyAssignor().assign({"t": 1}, {"c0": ["t"]}, client="JAVA")


@pytest.mark.parametrize("strategy", ["range", "roundrobin"])
def test_eager_strategies_are_the_same_for_both_clients(strategy: str) -> None:
    ppt = {"t0": 1, "t1": 2, "t2": 3}
    subs = {"c0": ["t0"], "c1": ["t0", "t1"], "c2": ["t0", "t1", "t2"]}
    assert assign(strategy, ppt, subs, client="librdkafka") == assign(strategy, ppt, subs)


def test_worked_example_second_then_third_member() -> None:
    """Derived by hand from librdkafka's rules (module docstring of ``_sticky_librdkafka``).

    ``a`` owns all 8 partitions of t1(5), t3(3); ``b`` joins. Identical subscriptions:
    the partition order walks ``a``'s sorted list (only ``a`` owns anything), so it is
    t1p0..t1p4, t3p0..t3p2. Balancing walks that order, moving each partition of ``a``
    (8 > 0 + 1, then 7 > 1 + 1, ...) to ``b`` until counts are 4 and 4: ``b`` takes
    t1p0..t1p3. Cooperative round one only revokes them; round two finds them unowned
    and hands all four to ``b``, the least-loaded member.

    Then ``c`` joins. ``a`` and ``b`` own 4 each; the order alternates from the member
    with most remaining claims (``b`` on ties: larger id): t1p0 (b), t1p4 (a), t1p1 (b),
    t3p0 (a), ... Balancing moves t1p0 from ``b`` to ``c`` (4 > 0 + 1), then t1p4 from
    ``a`` (4 > 1 + 1), and stops at 3/3/2. The Java flavour keeps each member's lowest
    partition numbers instead and gives ``c`` t1p3 and t1p4.
    """
    subs = {"a": ["t1", "t3"], "b": ["t1", "t3"]}
    everything = [("t1", p) for p in range(5)] + [("t3", p) for p in range(3)]
    round1 = assign("cooperative-sticky", T1_T3, subs, {"a": everything}, client="librdkafka")
    assert short(round1) == {"a": ["t1p4", "t3p0", "t3p1", "t3p2"], "b": []}
    round2 = assign("cooperative-sticky", T1_T3, subs, round1, client="librdkafka")
    assert short(round2) == {
        "a": ["t1p4", "t3p0", "t3p1", "t3p2"],
        "b": ["t1p0", "t1p1", "t1p2", "t1p3"],
    }
    java = assign("sticky", T1_T3, subs, {"a": everything})
    assert short(java)["b"] == ["t1p2", "t1p3", "t1p4", "t3p2"]

    subs["c"] = ["t1", "t3"]
    target = assign("sticky", T1_T3, subs, round2, client="librdkafka")
    assert short(target) == {
        "a": ["t3p0", "t3p1", "t3p2"],
        "b": ["t1p1", "t1p2", "t1p3"],
        "c": ["t1p0", "t1p4"],
    }
    assert short(assign("sticky", T1_T3, subs, round2))["c"] == ["t1p3", "t1p4"]
    round3 = assign("cooperative-sticky", T1_T3, subs, round2, client="librdkafka")
    assert round3 == {**target, "c": []}
    assert assign("cooperative-sticky", T1_T3, subs, round3, client="librdkafka") == target


def test_member_leaving_hands_out_highest_partitions_first() -> None:
    """Unowned partitions follow the owned ones in reverse order (last topic, highest first).

    ``c`` leaves a settled group of three on t(6); its partitions t4 and t5 are dealt in
    the order t5, t4 to the least-loaded member each time: ``a`` (ties: smaller id),
    then ``b``.
    """
    previous = {"a": [("t", 0), ("t", 3)], "b": [("t", 1)], "c": [("t", 4), ("t", 5)]}
    previous["b"].append(("t", 2))
    result = assign("sticky", {"t": 6}, {"a": ["t"], "b": ["t"]}, previous, client="librdkafka")
    assert short(result) == {"a": ["tp0", "tp3", "tp5"], "b": ["tp1", "tp2", "tp4"]}


def test_fresh_group_equals_java() -> None:
    ppt = {"t0": 4, "t1": 3}
    subs = {m: ["t0", "t1"] for m in ("c0", "c1", "c2")}
    assert assign("sticky", ppt, subs, client="librdkafka") == assign("sticky", ppt, subs)


def test_uneven_example_is_balanced() -> None:
    result = assign(
        "sticky",
        {"t0": 1, "t1": 2, "t2": 3},
        {"c0": ["t0"], "c1": ["t0", "t1"], "c2": ["t0", "t1", "t2"]},
        client="librdkafka",
    )
    assert short(result) == {"c0": ["t0p0"], "c1": ["t1p0", "t1p1"], "c2": ["t2p0", "t2p1", "t2p2"]}


@SETTINGS
@given(groups())
def test_valid_and_balanced(group: Group) -> None:
    result = assign(
        "sticky",
        group.partitions_per_topic,
        group.subscriptions,
        group.previous,
        client="librdkafka",
    )
    check_valid(group, result)
    if group.identical:
        counts = [len(tps) for tps in result.values()]
        assert max(counts) - min(counts) <= 1


@SETTINGS
@given(groups(identical=True, messy_previous=False))
def test_identical_subscriptions_same_counts_and_churn_as_java(group: Group) -> None:
    args = (group.partitions_per_topic, group.subscriptions, group.previous)
    ours = assign("sticky", *args, client="librdkafka")
    java = assign("sticky", *args)
    assert sorted(len(tps) for tps in ours.values()) == sorted(len(tps) for tps in java.values())
    previous = group.previous or {}
    assert moved(previous, ours) == moved(previous, java)


@SETTINGS
@given(groups())
def test_cooperative_rounds_never_hand_out_a_partition_someone_else_owns(group: Group) -> None:
    args = (group.partitions_per_topic, group.subscriptions)
    round1 = assign("cooperative-sticky", *args, group.previous, client="librdkafka")
    check_valid(group, round1, complete=False)
    owners: dict[tuple[str, int], set[str]] = {}
    for member, owned in (group.previous or {}).items():
        if member in group.subscriptions:
            for tp in owned:
                owners.setdefault(tuple(tp), set()).add(member)  # type: ignore[arg-type]
    for member, tps in round1.items():
        for tp in tps:
            assert tp not in owners or member in owners[tp], f"{tp} owned by {owners[tp]}"
    state = round1
    for _ in range(4):
        following = assign("cooperative-sticky", *args, state, client="librdkafka")
        if following == state:
            break
        state = following
    check_valid(group, state)
