"""Worked examples (domain brief section 5, seed 004, the class docstrings) and error cases."""

from __future__ import annotations

import doctest

import pytest

import planner.assignors
from planner.assignors import (
    STRATEGIES,
    TopicPartition,
    _java_hashing,
    _server_group,
    assign,
    consumer_range,
    cooperative_sticky,
    java_order_key,
    range,
    roundrobin,
    simple,
    sticky,
    uniform,
)


def short(result: dict[str, list[TopicPartition]]) -> dict[str, list[str]]:
    """``{"c0": ["t0p0", ...]}``: the notation of the domain brief."""
    return {m: [f"{t}p{p}" for t, p in tps] for m, tps in result.items()}


TWO_BY_THREE = ({"t0": 3, "t1": 3}, {"c0": ["t0", "t1"], "c1": ["t0", "t1"]})
UNEVEN = (
    {"t0": 1, "t1": 2, "t2": 3},
    {"c0": ["t0"], "c1": ["t0", "t1"], "c2": ["t0", "t1", "t2"]},
)
# Seed 004: topics t1(5) and t2(7), five members, only the first three subscribe to t1.
SEED_004 = (
    {"t1": 5, "t2": 7},
    {f"consumer{i}": (["t1", "t2"] if i < 3 else ["t2"]) for i in [0, 1, 2, 3, 4]},
)


@pytest.mark.parametrize(
    "module",
    [
        planner.assignors,
        range,
        roundrobin,
        sticky,
        cooperative_sticky,
        _java_hashing,
        _server_group,
        uniform,
        consumer_range,
        simple,
    ],
)
def test_docstring_examples(module: object) -> None:
    failed, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)  # type: ignore[arg-type]
    assert attempted > 0
    assert failed == 0


def test_range_two_members_two_topics() -> None:
    assert short(assign("range", *TWO_BY_THREE)) == {
        "c0": ["t0p0", "t0p1", "t1p0", "t1p1"],
        "c1": ["t0p2", "t1p2"],
    }


def test_roundrobin_two_members_two_topics() -> None:
    # The seed misprints the last partition of c1 as "p1p2".
    assert short(assign("roundrobin", *TWO_BY_THREE)) == {
        "c0": ["t0p0", "t0p2", "t1p1"],
        "c1": ["t0p1", "t1p0", "t1p2"],
    }


def test_roundrobin_uneven_subscriptions() -> None:
    assert short(assign("roundrobin", *UNEVEN)) == {
        "c0": ["t0p0"],
        "c1": ["t1p0"],
        "c2": ["t1p1", "t2p0", "t2p1", "t2p2"],
    }


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
def test_sticky_balances_uneven_subscriptions(strategy: str) -> None:
    assert short(assign(strategy, *UNEVEN)) == {
        "c0": ["t0p0"],
        "c1": ["t1p0", "t1p1"],
        "c2": ["t2p0", "t2p1", "t2p2"],
    }


def test_sticky_keeps_everything_when_c0_leaves_uneven_group() -> None:
    partitions, subscriptions = UNEVEN
    previous = {
        "c0": [("t0", 0)],
        "c1": [("t1", 0), ("t1", 1)],
        "c2": [("t2", i) for i in (0, 1, 2)],
    }
    del subscriptions["c0"]
    assert short(assign("sticky", partitions, subscriptions, previous)) == {
        "c1": ["t0p0", "t1p0", "t1p1"],
        "c2": ["t2p0", "t2p1", "t2p2"],
    }


@pytest.mark.parametrize(
    ("count", "members", "expected"),
    [
        (10, 3, [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]),
        (7, 5, [[0, 1], [2, 3], [4], [5], [6]]),
    ],
)
def test_range_single_topic(count: int, members: int, expected: list[list[int]]) -> None:
    result = assign("range", {"t": count}, {f"c{i}": ["t"] for i in [0, 1, 2, 3, 4][:members]})
    assert [[p for _, p in result[f"c{i}"]] for i in [0, 1, 2, 3, 4][:members]] == expected


def test_roundrobin_single_topic_seed_004() -> None:
    result = assign(
        "roundrobin", {"t": 7}, {"consumer0": ["t"], "consumer1": ["t"], "consumer2": ["t"]}
    )
    assert {m: [p for _, p in tps] for m, tps in result.items()} == {
        "consumer0": [0, 3, 6],
        "consumer1": [1, 4],
        "consumer2": [2, 5],
    }


def test_range_seed_004_table() -> None:
    assert short(assign("range", *SEED_004)) == {
        "consumer0": ["t1p0", "t1p1", "t2p0", "t2p1"],
        "consumer1": ["t1p2", "t1p3", "t2p2", "t2p3"],
        "consumer2": ["t1p4", "t2p4"],
        "consumer3": ["t2p5"],
        "consumer4": ["t2p6"],
    }


def test_roundrobin_seed_004_table_as_kafka_computes_it() -> None:
    # The seed's table restarts the circle at consumer 0 for t2 (t2p0 -> consumer0); Kafka's
    # RoundRobinAssignor, whose code the seed itself quotes, keeps one circle for all
    # partitions, so t2p0 goes to consumer2, the member after the one that took t1p4.
    assert short(assign("roundrobin", *SEED_004)) == {
        "consumer0": ["t1p0", "t1p3", "t2p3"],
        "consumer1": ["t1p1", "t1p4", "t2p4"],
        "consumer2": ["t1p2", "t2p0", "t2p5"],
        "consumer3": ["t2p1", "t2p6"],
        "consumer4": ["t2p2"],
    }


def test_member_ids_sort_as_java_strings() -> None:
    result = assign(
        "range", {"t": 3}, {"consumer2": ["t"], "consumer10": ["t"], "consumer1": ["t"]}
    )
    assert [p for _, p in result["consumer1"]] == [0]
    assert [p for _, p in result["consumer10"]] == [1]
    assert [p for _, p in result["consumer2"]] == [2]


def test_member_ids_above_u_ffff_sort_as_utf16() -> None:
    # Java: U+1F600 is the surrogate pair D83D DE00, which sorts before U+E000.
    # Python's code-point order says the opposite.
    emoji, private_use = "m\U0001f600", "m\ue000"
    assert java_order_key(emoji) < java_order_key(private_use)
    assert sorted([emoji, private_use]) == [private_use, emoji]
    result = assign("roundrobin", {"t": 2}, {private_use: ["t"], emoji: ["t"]})
    assert result[emoji] == [("t", 0)]
    assert result[private_use] == [("t", 1)]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_idle_members_and_ignored_topics(strategy: str) -> None:
    result = assign(
        strategy,
        {"t": 2, "empty": 0, "unsubscribed": 4},
        {"a": ["t", "ghost", "empty"], "b": ["t"], "c": ["t"], "d": ["ghost"]},
    )
    assert set(result) == {"a", "b", "c", "d"}
    assert result["d"] == []
    assert sorted(tp for tps in result.values() for tp in tps) == [("t", 0), ("t", 1)]
    assert sum(1 for tps in result.values() if not tps) == 2


def test_topic_partition_compares_equal_to_tuple() -> None:
    assert TopicPartition("t", 1) == ("t", 1)
    assert assign("range", {"t": 1}, {"a": ["t"]}) == {"a": [("t", 0)]}


def test_strategies_are_kafkas_names() -> None:
    assert STRATEGIES == ("range", "roundrobin", "sticky", "cooperative-sticky")


def test_empty_group() -> None:
    for strategy in STRATEGIES:
        assert assign(strategy, {"t": 3}, {}) == {}


def test_unknown_strategy_names_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="range, roundrobin, sticky, cooperative-sticky"):
        assign("uniform", {"t": 1}, {"a": ["t"]})


@pytest.mark.parametrize(
    ("partitions", "subscriptions", "previous", "error"),
    [
        ({"t": -1}, {"a": ["t"]}, None, ValueError),
        ({"t": 1.5}, {"a": ["t"]}, None, TypeError),
        ({"t": True}, {"a": ["t"]}, None, TypeError),
        ({"t": 1}, {"a": "t"}, None, TypeError),
        ({"t": 1}, {1: ["t"]}, None, TypeError),
        ({"t": 1}, {"a": [1]}, None, TypeError),
        ({"t": 1}, {"a": ["t"]}, {"a": [("t", "0")]}, TypeError),
        ({"t": 1}, {"a": ["t"]}, {"a": "t0"}, TypeError),
    ],
)
def test_malformed_input(
    partitions: object, subscriptions: object, previous: object, error: type
) -> None:
    for strategy in ("range", "sticky", "cooperative-sticky"):
        if previous is not None and strategy == "range":
            continue
        with pytest.raises(error):
            assign(strategy, partitions, subscriptions, previous)  # type: ignore[arg-type]


def test_sticky_invalid_claims() -> None:
    partitions = {"t": 4, "u": 2}
    subscriptions = {"a": ["t"], "b": ["t"], "c": ["t", "u"]}
    previous = {
        "a": [("t", 0), ("t", 1), ("t", 9), ("u", 0)],  # t9 gone; a left u
        "b": [("t", 1), ("t", 2)],  # t1 claimed by a and b: dropped from both
        "gone": [("t", 3), ("u", 1)],  # member left
    }
    result = assign("sticky", partitions, subscriptions, previous)
    owner = {tp: m for m, tps in result.items() for tp in tps}
    assert owner[("t", 0)] == "a"
    assert owner[("t", 2)] == "b"
    assert sorted(owner) == [("t", i) for i in [0, 1, 2, 3]] + [("u", 0), ("u", 1)]
    assert sorted(len(tps) for tps in result.values()) == [2, 2, 2]


def test_cooperative_round_one_revokes_then_round_two_hands_over() -> None:
    members = {"a": ["t"], "b": ["t"], "c": ["t"]}
    previous = {"a": [("t", p) for p in [0, 1, 2, 3, 4, 5]], "gone": [("t", 6), ("t", 7), ("t", 8)]}
    round1 = assign("cooperative-sticky", {"t": 9}, members, previous)
    # Target: a keeps its three lowest; t3..t8 are dealt to b and c in turn. In round one
    # the leaver's partitions go out at once, a's revoked t3, t4, t5 wait.
    target = {"a": [0, 1, 2], "b": [3, 5, 7], "c": [4, 6, 8]}
    assert {m: [p for _, p in tps] for m, tps in round1.items()} == {
        "a": [0, 1, 2],
        "b": [7],
        "c": [6, 8],
    }
    round2 = assign("cooperative-sticky", {"t": 9}, members, round1)
    assert round2 == assign("sticky", {"t": 9}, members, previous)
    assert {m: [p for _, p in tps] for m, tps in round2.items()} == target
