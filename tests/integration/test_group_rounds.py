"""The live tests' own predictions (``group_rounds``), on groups written by hand: no broker."""

from __future__ import annotations

import pytest

from tests.integration.group_rounds import (
    Round,
    check_chain,
    check_tied_round,
    java_tie,
    rounds_from_events,
    settled_states_with_missed_rounds,
    settling_rounds,
)

T = "t"
SIX = {T: 6}
BOTH = {"a": [T], "b": [T]}


def parts(*numbers: int) -> list[tuple[str, int]]:
    return [(T, n) for n in numbers]


def test_a_cooperative_join_settles_in_two_predicted_rounds() -> None:
    rounds = settling_rounds(
        "cooperative-sticky", SIX, BOTH, {"a": parts(0, 1, 2, 3, 4, 5)}, client="java"
    )
    assert rounds == [
        {"a": parts(0, 1, 2), "b": []},  # a revokes 3, 4, 5
        {"a": parts(0, 1, 2), "b": parts(3, 4, 5)},
    ]


def test_every_round_is_predicted_from_the_one_before() -> None:
    observed = [
        Round(2, {"a": parts(0, 1, 2), "b": []}),
        Round(3, {"a": parts(0, 1, 2), "b": parts(3, 4, 5)}),
    ]
    chain = check_chain("cooperative-sticky", SIX, BOTH, observed, {"a": parts(0, 1, 2, 3, 4, 5)})
    assert (chain.ties, chain.missed) == (0, {})
    wrong = [observed[0], Round(3, {"a": parts(0, 1, 2), "b": parts(2, 3, 4)})]
    with pytest.raises(AssertionError, match="generation 3"):
        check_chain("cooperative-sticky", SIX, BOTH, wrong, {"a": parts(0, 1, 2, 3, 4, 5)})


def test_a_member_that_missed_a_round_is_predicted_but_not_compared() -> None:
    # b's SyncGroup for generation 2 lost the race with a's rejoin: b never saw round one.
    observed = [
        Round(2, {"a": parts(0, 1, 2)}),
        Round(3, {"a": parts(0, 1, 2), "b": parts(3, 4, 5)}),
    ]
    chain = check_chain(
        "cooperative-sticky",
        SIX,
        BOTH,
        observed,
        {"a": parts(0, 1, 2, 3, 4, 5)},
        members={"a", "b"},
    )
    assert chain.missed == {"b": [2]}
    # Without knowing b was in the group, round one would be a alone, keeping all six.
    with pytest.raises(AssertionError, match="generation 2"):
        check_chain("cooperative-sticky", SIX, BOTH, observed, {"a": parts(0, 1, 2, 3, 4, 5)})


def test_rounds_come_from_the_assigned_events_by_generation() -> None:
    events = [
        {"kind": "assigned", "generation": 1, "member_id": "a", "assignment": [[T, 1], [T, 0]]},
        {"kind": "revoked", "generation": 1, "member_id": "a", "assignment": []},
        {"kind": "assigned", "generation": 2, "member_id": "b", "assignment": [[T, 2]]},
        {"kind": "assigned", "generation": 2, "member_id": "a", "assignment": []},
    ]
    assert rounds_from_events(events) == [
        Round(1, {"a": parts(0, 1)}),
        Round(2, {"b": parts(2), "a": []}),
    ]
    assert rounds_from_events(events, after=1) == [Round(2, {"b": parts(2), "a": []})]


def test_java_ties_when_more_members_own_q_plus_one_than_there_are_slots() -> None:
    eight = {T: 8}
    five = {m: [T] for m in "abcde"}
    owning_two = {"a": parts(0, 1), "b": parts(2, 3), "c": parts(4, 5), "d": parts(6, 7)}
    assert java_tie(eight, five, owning_two)  # q = 1, r = 3, four own 2
    four = {m: [T] for m in "abcd"}
    owning_three = {"a": parts(0, 1, 2), "b": parts(3, 4, 5), "c": parts(6, 7)}
    assert not java_tie(eight, four, owning_three)  # q = 2, r = 0
    assert not java_tie(eight, {"a": [T], "b": ["u"]}, owning_two)  # differing subscriptions


def test_a_tied_round_must_keep_prefixes_counts_and_moves() -> None:
    before = {"a": parts(0, 1), "b": parts(2, 3), "c": parts(4, 5), "d": parts(6, 7)}
    predicted = {"a": parts(0, 1), "b": parts(2, 3), "c": parts(4, 5), "d": parts(6), "e": []}
    # Another member may win the tie: d keeps 2, c keeps only its lowest.
    check_tied_round(
        {"a": parts(0, 1), "b": parts(2, 3), "c": parts(4), "d": parts(6, 7), "e": []},
        predicted,
        before,
    )
    with pytest.raises(AssertionError, match="prefix"):
        check_tied_round(
            {"a": parts(0, 1), "b": parts(2, 3), "c": parts(5), "d": parts(6, 7), "e": []},
            predicted,
            before,
        )


def test_a_member_missing_round_one_can_change_where_the_group_settles() -> None:
    """The librdkafka case seen live: c kept t1p0 because it never saw round one."""
    partitions = {"t1": 5, "t2": 7, "t3": 3}
    subscriptions = {
        "a": ["t1", "t2"],
        "b": ["t1", "t2", "t3"],
        "c": ["t1", "t2"],
        "d": ["t2"],
        "e": ["t2", "t3"],
    }
    before = {
        "a": [("t2", 3), ("t2", 4), ("t2", 5), ("t2", 6)],
        "b": [("t1", 3), ("t3", 0), ("t3", 1), ("t3", 2)],
        "c": [("t1", 0), ("t1", 1), ("t1", 2), ("t1", 4)],
        "d": [("t2", 0), ("t2", 1), ("t2", 2)],
    }
    possible = settled_states_with_missed_rounds(
        "cooperative-sticky", partitions, subscriptions, before, client="librdkafka"
    )
    composed = settling_rounds(
        "cooperative-sticky", partitions, subscriptions, before, client="librdkafka"
    )
    assert possible[0] == composed[-1]
    seen_live = {
        "a": [("t2", 4), ("t2", 5), ("t2", 6)],
        "b": [("t1", 3), ("t2", 3), ("t3", 2)],
        "c": [("t1", 0), ("t1", 1), ("t1", 2), ("t1", 4)],
        "d": [("t2", 0), ("t2", 1), ("t2", 2)],
        "e": [("t3", 0), ("t3", 1)],
    }
    assert seen_live != composed[-1]
    assert seen_live in possible
