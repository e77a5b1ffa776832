"""Cases where the planner differed from Kafka 4.4.0's own assignors, with Kafka's answer.

Each was found by the differential tests (``test_java_oracle.py``), shrunk, and its
expected value is what Kafka 4.4.0's classes returned. They run without a JVM.
"""

from __future__ import annotations

from planner.assignors import assign

Plain = dict[str, list[tuple[str, int]]]


def plain(result: dict[str, list[tuple[str, int]]]) -> Plain:
    return {m: [(t, p) for t, p in tps] for m, tps in result.items()}


def moved(previous: Plain, result: Plain) -> int:
    owner = {tp: m for m, tps in previous.items() for tp in tps}
    return sum(1 for m, tps in result.items() for tp in tps if owner.get(tp, m) != m)


def test_undoing_a_move_takes_the_first_partition_of_javas_hash_set() -> None:
    """General path: which of ``9p17`` and ``9p18`` ``1`` takes from ``0`` follows Kafka's
    record of this rebalance's moves, whose partitions it reads from a Java
    ``HashSet<TopicPartition>``; the planner used to keep the lower-numbered one on ``0``."""
    previous = {"0": [("9", 17), ("9", 18), ("_", 0), ("_", 1)]}
    result = assign(
        "sticky",
        {"9": 19, "00": 7, "_": 2, "0": 10},
        {"0": ["9", "00", "_", "0"], "1": ["9"], "00": ["_"]},
        previous,
    )
    assert plain(result) == {
        "0": [*(("0", p) for p in range(10)), *(("00", p) for p in range(7)), ("9", 18)],
        "1": [("9", p) for p in range(18)],
        "00": [("_", 0), ("_", 1)],
    }


def test_a_partition_that_already_moved_makes_kafka_move_another_one() -> None:
    """General path, long balancing run: when the partition to relieve had itself moved
    in this rebalance, Kafka moves back a partition that went the other way between the
    target and that partition's *original* owner. The planner used to move the partition
    itself, which cost one move more than Kafka (11 instead of 10) here."""
    both = ["0", "9", "00"]
    previous = {
        "0": [("0", 0), ("9", 0), ("9", 1), *(("00", p) for p in (0, 1, 3, 4, 5, 6, 7, 8))],
        "9": [("00", 2), ("00", 9), ("00", 10)],
        "C": [("00", 11)],
    }
    result = plain(
        assign(
            "sticky",
            {"0": 1, "9": 2, "00": 13},
            {
                "0": both,
                "1": ["0"],
                "9": both,
                "00": both,
                "01": ["0"],
                "000": ["0", "9"],
                "0000": ["0", "9"],
                "C": ["00"],
                "a": ["0", "00"],
                "-": both,
            },
            previous,
        )
    )
    assert result == {
        "0": [("00", 0), ("00", 8)],
        "1": [],
        "9": [("00", 9), ("00", 10)],
        "00": [("00", 3), ("00", 7)],
        "01": [("0", 0)],
        "000": [("9", 0)],
        "0000": [("9", 1)],
        "C": [("00", 4), ("00", 11)],
        "a": [("00", 1), ("00", 5)],
        "-": [("00", 2), ("00", 6), ("00", 12)],
    }
    assert moved(previous, result) == 10


def test_extra_slots_go_to_members_in_javas_hash_map_order() -> None:
    """Constrained path: 4 partitions over 3 members leave one slot for 2; both old
    members own 2. Kafka walks a ``HashMap`` of member ids, where ``consumer-10`` comes
    before ``consumer-1``, so ``consumer-10`` keeps both of its partitions."""
    result = assign(
        "sticky",
        {"t": 4},
        {"consumer-1": ["t"], "consumer-10": ["t"], "c": ["t"]},
        {"consumer-1": [("t", 0), ("t", 1)], "consumer-10": [("t", 2), ("t", 3)]},
    )
    assert plain(result) == {
        "consumer-1": [("t", 0)],
        "consumer-10": [("t", 2), ("t", 3)],
        "c": [("t", 1)],
    }


def test_cooperative_general_path_gives_a_doubly_claimed_partition_to_a_claimant() -> None:
    """``a`` and ``b`` both claim ``t0``. With differing subscriptions Kafka compares raw
    ownership: ``t0`` goes to ``a``, which claimed it, in this very rebalance."""
    result = assign(
        "cooperative-sticky",
        {"t": 2, "u": 1},
        {"a": ["t"], "b": ["t", "u"]},
        {"a": [("t", 0)], "b": [("t", 0), ("t", 1)]},
    )
    assert plain(result) == {"a": [("t", 0)], "b": [("t", 1), ("u", 0)]}


def test_a_partition_listed_twice_by_one_member_is_a_double_claim() -> None:
    """Kafka counts each listing as a claim: ``t0`` is dropped from ``a`` and, with
    identical subscriptions, held back for one cooperative round."""
    args = ({"t": 2}, {"a": ["t"], "b": ["t"]}, {"a": [("t", 0), ("t", 0)]})
    assert plain(assign("cooperative-sticky", *args)) == {"a": [], "b": [("t", 1)]}
    assert plain(assign("sticky", *args)) == {"a": [("t", 0)], "b": [("t", 1)]}
