"""Cross-zone fetch bytes (``planner.cross_zone``) on cases computed by hand."""

from __future__ import annotations

import doctest

import pytest

from planner import cross_zone
from planner.cross_zone import GIB, ReplicaPlacement, ZoneSplit, cross_zone_fetch

# Three partitions of `orders`, replication factor 2 over zones a, b, c; leader first.
THREE_RACKS_SKEWED = {
    ("orders", 0): ReplicaPlacement.of("a", ["a", "b"]),
    ("orders", 1): ReplicaPlacement.of("b", ["b", "c"]),
    ("orders", 2): ReplicaPlacement.of("c", ["c", "a"]),
}
DAILY = {("orders", 0): 10 * GIB, ("orders", 1): 20 * GIB, ("orders", 2): 40 * GIB}


def test_from_leaders_and_with_follower_fetching() -> None:
    # c-a reads p0 (leader a: local) and p1 (leader b: cross; no replica in a: cross still);
    # c-b reads p2 (leader c: cross; replicas c, a: no b, cross still).
    # c-c reads nothing.
    assignment = {"c-a": [("orders", 0), ("orders", 1)], "c-b": [("orders", 2)], "c-c": []}
    fetch = cross_zone_fetch(
        assignment, {"c-a": "a", "c-b": "b", "c-c": "c"}, THREE_RACKS_SKEWED, DAILY
    )
    assert fetch.from_leaders == ZoneSplit(10 * GIB, 60 * GIB, 0.0)
    assert fetch.follower_fetching == ZoneSplit(10 * GIB, 60 * GIB, 0.0)
    assert fetch.saved_bytes_per_day == 0


def test_follower_fetching_reads_the_replica_in_the_consumers_zone() -> None:
    # c-b reads p0 (leader a, replica b: 10 GiB saved) and p2 (replicas c, a: cross);
    # c-c reads p1 (leader b, replica c: 20 GiB saved).
    assignment = {"c-b": [("orders", 0), ("orders", 2)], "c-c": [("orders", 1)]}
    fetch = cross_zone_fetch(assignment, {"c-b": "b", "c-c": "c"}, THREE_RACKS_SKEWED, DAILY)
    assert fetch.from_leaders == ZoneSplit(0.0, 70 * GIB, 0.0)
    assert fetch.follower_fetching == ZoneSplit(30 * GIB, 40 * GIB, 0.0)
    assert fetch.saved_bytes_per_day == 30 * GIB
    # 40 GiB at 0.02 per GiB; 70 GiB from leaders.
    assert fetch.follower_fetching.cross_zone_cost_per_day(0.02) == pytest.approx(0.8)
    assert fetch.from_leaders.cross_zone_cost_per_day(0.02) == pytest.approx(1.4)


def test_unknown_racks_are_kept_apart() -> None:
    placements = {
        ("t", 0): ReplicaPlacement.of(None, [None, "a"]),  # leader's broker without a rack
        ("t", 1): ReplicaPlacement.of("b", ["b"]),
    }
    daily = {("t", 0): 3.0, ("t", 1): 5.0}
    # m1 has no client.rack: both of its partitions are unknown either way.
    fetch = cross_zone_fetch({"m1": [("t", 0), ("t", 1)]}, {"m1": ""}, placements, daily)
    assert fetch.from_leaders == ZoneSplit(0.0, 0.0, 8.0)
    assert fetch.follower_fetching == ZoneSplit(0.0, 0.0, 8.0)
    # m2 in rack a: p0's leader zone is unknown, but follower fetching reads the replica in a.
    fetch = cross_zone_fetch({"m2": [("t", 0), ("t", 1)]}, {"m2": "a"}, placements, daily)
    assert fetch.from_leaders == ZoneSplit(0.0, 5.0, 3.0)
    assert fetch.follower_fetching == ZoneSplit(3.0, 5.0, 0.0)


def test_the_price_is_per_gib_and_has_no_default() -> None:
    split = ZoneSplit(cross_zone_bytes_per_day=512 * 1024**2)
    assert split.cross_zone_cost_per_day(0.01) == pytest.approx(0.005)
    with pytest.raises(TypeError):
        split.cross_zone_cost_per_day()  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="price per GiB"):
        split.cross_zone_cost_per_day(-1.0)


def test_inputs_that_cannot_be_counted_raise() -> None:
    with pytest.raises(ValueError, match="no replica placement for partition orders-9"):
        cross_zone_fetch({"m": [("orders", 9)]}, {}, THREE_RACKS_SKEWED, DAILY)
    with pytest.raises(ValueError, match="bytes per day of orders-0"):
        cross_zone_fetch({"m": [("orders", 0)]}, {}, THREE_RACKS_SKEWED, {})
    with pytest.raises(ValueError, match="not among the replicas"):
        ReplicaPlacement.of("c", ["a", "b"])


def test_docstring_example() -> None:
    failed, attempted = doctest.testmod(cross_zone)
    assert attempted > 0
    assert failed == 0
