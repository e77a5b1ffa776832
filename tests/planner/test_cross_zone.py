"""Cross-zone fetch bytes (``planner.cross_zone``) on cases computed by hand."""

from __future__ import annotations

import dataclasses
import doctest

import pytest

from planner import cross_zone
from planner.cross_zone import (
    GIB,
    RACKS_PATTERN,
    REPLICAS_PATTERN,
    GroupZones,
    ReplicaPlacement,
    TopicZones,
    ZoneSplit,
    advice,
    client_racks,
    cross_zone_fetch,
    cross_zone_record,
    group_cross_zone,
    replica_lists,
)

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


# A planned group on a three-rack cluster (brokers 1, 2, 3 in racks a, b, c), leader first.
BROKER_RACKS = {1: "a", 2: "b", 3: "c"}
FOUR_PARTITIONS = TopicZones(
    "orders",
    replicas=((1, 2), (2, 3), (3, 1), (3, 1)),
    bytes_per_day=(10 * GIB, 20 * GIB, 40 * GIB, 80 * GIB),
)


def test_a_planned_group_on_three_racks_by_hand() -> None:
    # roundrobin ignores racks: consumer-000 (rack a) gets p0 and p2, consumer-001 (b) p1
    # and p3. From leaders: p0 (a) and p1 (b) are local, p2 (leader c) and p3 (leader c)
    # cross: 120 GiB. Follower fetching: p2 has a replica in a (30 + 40 local); p3's
    # replicas are c and a, none in b, so its 80 GiB still cross.
    group = GroupZones("billing", "classic", "roundrobin", 2, ("a", "b"))
    figure = group_cross_zone(group, [FOUR_PARTITIONS], BROKER_RACKS, price_per_gib=0.05)
    assert figure is not None
    assert figure.fetch.from_leaders == ZoneSplit(30 * GIB, 120 * GIB, 0.0)
    assert figure.fetch.follower_fetching == ZoneSplit(70 * GIB, 80 * GIB, 0.0)
    assert figure.bytes_per_day == 150 * GIB
    assert figure.cost_per_day(figure.fetch.from_leaders) == pytest.approx(6.0)
    assert figure.cost_per_day(figure.fetch.follower_fetching) == pytest.approx(4.0)
    (told,) = advice("billing", figure)
    assert told.code == "follower-fetching"
    assert told.params["leader_cross_zone_bytes_per_day"] == 120 * GIB
    assert told.params["follower_cross_zone_bytes_per_day"] == 80 * GIB
    assert "40.00 GiB a day less" in told.text
    assert "RackAwareReplicaSelector" in told.text
    record = cross_zone_record(figure, (told,))
    assert record is not None
    assert record["evidence"]["replicas"] == [
        {"topic": "orders", "partitions": 4, "replicas": "1:2,2:3,3:1,3:1"}
    ]
    assert record["evidence"]["brokers"][2] == {"broker_id": 3, "rack": "c"}


def test_rack_aware_range_uses_the_members_racks() -> None:
    # KIP-881: range with client.rack goes through the partitions in order and gives each
    # to the first member (id order) in one of its replicas' racks with room: p0 (a, b)
    # to consumer-001 (a), p1 (b, c) to consumer-000 (c); p2 (c, a) finds both full and
    # goes to consumer-002 (b). Leaders: p0 local (1), p1 (leader b) and p2 (leader c)
    # cross (6). Follower fetching: p1 read in c, p2 still crosses (4).
    # Without racks, range gives p0, p1, p2 to members c, a, b: everything crosses.
    topic = TopicZones("t", ((1, 2), (2, 3), (3, 1)), (1.0, 2.0, 4.0))
    aware = GroupZones("g", "classic", "range", 3, ("c", "a", "b"))
    figure = group_cross_zone(aware, [topic], BROKER_RACKS)
    assert figure is not None
    assert figure.fetch.from_leaders == ZoneSplit(1.0, 6.0, 0.0)
    assert figure.fetch.follower_fetching == ZoneSplit(3.0, 4.0, 0.0)
    blind = dataclasses.replace(aware, rack_aware=False)
    unaware = group_cross_zone(blind, [topic], BROKER_RACKS)
    assert unaware is not None
    assert unaware.fetch.follower_fetching == ZoneSplit(0.0, 7.0, 0.0)
    # No price: no money figure, in the figure or the advice.
    assert figure.price_per_gib is None and figure.cost_per_day(figure.fetch.from_leaders) is None
    assert all("per GiB" not in n.text for n in advice("g", figure))


def test_without_broker_racks_there_is_no_figure() -> None:
    group = GroupZones("g", "classic", "range", 2, ("a",))
    assert group_cross_zone(group, [FOUR_PARTITIONS], {1: None, 2: None, 3: None}) is None
    assert group_cross_zone(group, [FOUR_PARTITIONS], {}) is None
    share = GroupZones("s", "share", "simple", 2, ("a",))
    assert group_cross_zone(share, [FOUR_PARTITIONS], BROKER_RACKS) is None


def test_unknown_member_racks_give_unknown_bytes_and_the_client_rack_advice() -> None:
    group = GroupZones("g", "classic", "range", 2)
    figure = group_cross_zone(group, [FOUR_PARTITIONS], BROKER_RACKS)
    assert figure is not None and not figure.racks_known
    assert figure.fetch.from_leaders == ZoneSplit(0.0, 0.0, 150 * GIB)
    (told,) = advice("g", figure)
    assert told.code == "client-rack"
    assert told.params["broker_racks"] == ["a", "b", "c"]
    assert "150 GiB a day" in told.text


def test_a_member_rack_no_broker_names_fetches_across_zones_either_way() -> None:
    # Kafka takes any client.rack; a zone without brokers reads everything from afar.
    group = GroupZones("g", "classic", "range", 1, ("z",))
    figure = group_cross_zone(group, [FOUR_PARTITIONS], BROKER_RACKS)
    assert figure is not None
    assert figure.fetch.from_leaders == ZoneSplit(0.0, 150 * GIB, 0.0)
    assert figure.fetch.follower_fetching == figure.fetch.from_leaders
    assert advice("g", figure) == ()


def test_partitions_to_be_created_count_as_unknown() -> None:
    # Planned at 6 partitions where 4 exist: the 2 new ones have no replicas yet.
    topic = TopicZones(
        "orders", FOUR_PARTITIONS.replicas, (*FOUR_PARTITIONS.bytes_per_day, 1.0, 2.0)
    )
    group = GroupZones("g", "classic", "roundrobin", 2, ("a", "b"))
    figure = group_cross_zone(group, [topic], BROKER_RACKS)
    assert figure is not None
    assert figure.evidence.new_partitions == 2
    assert figure.fetch.from_leaders.unknown_bytes_per_day == 3.0
    assert figure.fetch.follower_fetching.unknown_bytes_per_day == 3.0


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1:2,,3", "partition 1"),
        ("1:x", "not broker ids"),
        ("1:1", "named twice"),
        ("-1:2", "not broker ids"),
    ],
)
def test_replica_lists_refuse_bad_text(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        replica_lists(text)


def test_client_racks_in_turn_and_blank_refused() -> None:
    assert client_racks("eu-1a, eu-1b") == ("eu-1a", "eu-1b")
    group = GroupZones("g", "classic", "range", 3, client_racks("a,b"))
    assert group.member_racks() == {"consumer-000": "a", "consumer-001": "b", "consumer-002": "a"}
    for blank in (" ", "a,,b", "a, "):
        with pytest.raises(ValueError, match="blank rack"):
            client_racks(blank)


@pytest.mark.parametrize(
    "text", ["1", "1:2:3,2:3:1", "10:2", "1:2,,3", "1:x", "-1:2", "1:2,", ":1", "1;2", "1, 2"]
)
def test_the_input_suites_pattern_agrees_with_the_parser(text: str) -> None:
    import re

    try:
        replica_lists(text)
        parsed = True
    except ValueError:
        parsed = False
    assert bool(re.fullmatch(REPLICAS_PATTERN, text)) is parsed


@pytest.mark.parametrize("text", ["a", "a,b", "eu west 1a", " ", "a,,b", "a, ", ",a"])
def test_the_racks_pattern_agrees_with_the_parser(text: str) -> None:
    import re

    try:
        client_racks(text)
        parsed = True
    except ValueError:
        parsed = False
    assert bool(re.fullmatch(RACKS_PATTERN, text)) is parsed


def test_the_consumer_protocols_range_ignores_racks_as_the_broker_does() -> None:
    # Kafka 4.4.0's broker-side range reads no client.rack: consumer-000 (rack a) gets
    # p0 and p1, consumer-001 (b) p2. From leaders p1 (b) and p2 (c) cross: 6. Follower
    # fetching finds no replica in a for p1 (b, c) nor in b for p2 (c, a): still 6.
    topic = TopicZones("t", ((1, 2), (2, 3), (3, 1)), (1.0, 2.0, 4.0))
    group = GroupZones("g", "consumer", "range", 2, ("a", "b"))
    figure = group_cross_zone(group, [topic], BROKER_RACKS)
    assert figure is not None
    assert figure.fetch.from_leaders == ZoneSplit(1.0, 6.0, 0.0)
    assert figure.fetch.follower_fetching == ZoneSplit(1.0, 6.0, 0.0)
    assert advice("g", figure) == ()
