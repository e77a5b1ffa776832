"""Rack awareness (KIP-881) of the classic assignors: Kafka's condition and worked examples.

The examples are derived by hand from Kafka's rules (docs/assignors.md, "Rack awareness");
``test_rack_oracle.py`` checks the same rules against Kafka's classes on random groups.
"""

from __future__ import annotations

import pytest

from planner.assignors import Racks, TopicPartition, assign
from planner.assignors._racks import use_rack_aware

P0, P1 = TopicPartition("t", 0), TopicPartition("t", 1)


@pytest.mark.parametrize(
    ("consumer_racks", "partition_racks", "expected"),
    [
        (set(), {P0: frozenset("a"), P1: frozenset("b")}, False),  # no member has a rack
        ({"c"}, {P0: frozenset("a"), P1: frozenset("b")}, False),  # no replica on rack c
        ({"a"}, {P0: frozenset("ab"), P1: frozenset("ab")}, False),  # every partition on a, b
        ({"a"}, {P0: frozenset("ab"), P1: frozenset("a")}, True),  # p1 only on a
        ({"a"}, {P0: frozenset("a"), P1: frozenset()}, True),  # p1's brokers have no rack
    ],
)
def test_kafkas_condition(
    consumer_racks: set[str], partition_racks: dict[TopicPartition, frozenset[str]], expected: bool
) -> None:
    assert use_rack_aware(consumer_racks, partition_racks) is expected


def names(result: dict[str, list[TopicPartition]]) -> dict[str, list[str]]:
    return {m: [f"{t}p{p}" for t, p in tps] for m, tps in result.items()}


# Partition 0 of each topic on rack a, partition 1 on rack b; c0 sits on b, c1 on a.
CROSSED = Racks(
    members={"c0": "b", "c1": "a"}, replicas={"t1": [["a"], ["b"]], "t2": [["a"], ["b"]]}
)
BOTH = {"c0": ["t1", "t2"], "c1": ["t1", "t2"]}


def test_range_cuts_co_partitioned_topics_together_by_rack() -> None:
    assert names(assign("range", {"t1": 2, "t2": 2}, BOTH)) == {
        "c0": ["t1p0", "t2p0"],
        "c1": ["t1p1", "t2p1"],
    }
    assert names(assign("range", {"t1": 2, "t2": 2}, BOTH, racks=CROSSED)) == {
        "c0": ["t1p1", "t2p1"],
        "c1": ["t1p0", "t2p0"],
    }


def test_sticky_gives_up_an_owned_partition_off_its_rack() -> None:
    # c0 (rack b) owned t1p0, whose only replica is on rack a: Kafka drops the claim.
    previous = {"c0": [("t1", 0), ("t2", 1)], "c1": [("t1", 1), ("t2", 0)]}
    subs = {"c0": ["t1", "t2"], "c1": ["t1", "t2"]}
    assert names(assign("sticky", {"t1": 2, "t2": 2}, subs, previous, racks=CROSSED)) == {
        "c0": ["t1p1", "t2p1"],
        "c1": ["t1p0", "t2p0"],
    }
    # cooperative: the partitions changing owner are revoked first, handed over next round.
    round1 = assign("cooperative-sticky", {"t1": 2, "t2": 2}, subs, previous, racks=CROSSED)
    assert names(round1) == {"c0": ["t2p1"], "c1": ["t2p0"]}


def test_racks_that_cannot_apply_change_nothing() -> None:
    subs = {"c0": ["t"], "c1": ["t"], "c2": ["t"]}
    previous = {"c0": [("t", 0), ("t", 1), ("t", 2), ("t", 3)]}
    everywhere = Racks(members={"c0": "a", "c1": "b"}, replicas={"t": [["a", "b"]] * 5})
    for strategy in ("range", "sticky", "cooperative-sticky"):
        plain = assign(strategy, {"t": 5}, subs, previous)
        assert assign(strategy, {"t": 5}, subs, previous, racks=Racks()) == plain
        assert assign(strategy, {"t": 5}, subs, previous, racks=everywhere) == plain


def test_roundrobin_and_the_broker_assignors_ignore_racks() -> None:
    subs = {"c0": ["t1", "t2"], "c1": ["t1", "t2"]}
    for strategy, protocol in (
        ("roundrobin", "classic"),
        ("uniform", "consumer"),
        ("range", "consumer"),
    ):
        plain = assign(strategy, {"t1": 2, "t2": 2}, subs, protocol=protocol)
        assert assign(strategy, {"t1": 2, "t2": 2}, subs, protocol=protocol, racks=CROSSED) == plain


def test_malformed_racks_raise() -> None:
    with pytest.raises(TypeError, match="Racks"):
        assign("range", {"t": 1}, {"c0": ["t"]}, racks={"c0": "a"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rack of member 'c0' must be str"):
        assign("sticky", {"t": 2}, {"c0": ["t"], "c1": ["t"]}, racks=Racks(members={"c0": 1}))  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="collection of racks"):
        assign("range", {"t": 1}, {"c0": ["t"]}, racks=Racks({"c0": "a"}, {"t": ["a"]}))
