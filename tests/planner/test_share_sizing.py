"""Sizing a share group and its topic's partitions (docs/model.md, section 8)."""

from __future__ import annotations

import pytest

from planner.recommend.share import ShareLimits, partition_rate, size_share_group
from planner.sizing import SideCapacity, partitions_for_throughput


def test_worked_example_a_keyless_topic_needs_far_fewer_partitions_as_a_share_group() -> None:
    """10,000 records/s (headroom in), members that take 1.3 ms a record (Tc 769/s).

    A classic group needs a partition per consumer: 10,000 / 769.2 = 13. A share group
    needs 13 members too (10,000 x 1.3 ms), but partitions only for the in-flight cap:
    one partition keeps 2000 / 500 = 4 members busy, 2000 / (500 x 1.3 ms) = 3,077
    records/s, so ceil(10,000 x 500 x 0.0013 / 2000) = ceil(3.25) = 4 partitions.
    """
    tp = SideCapacity(records_per_s=20_000.0)
    member = SideCapacity(records_per_s=1 / 0.0013)
    s = SideCapacity(records_per_s=30_000.0)
    sized = size_share_group({"records_in": 10_000.0}, producer=tp, member=member, share_fetch=s)
    assert partitions_for_throughput(10_000.0, 20_000.0, 1 / 0.0013) == 13
    assert sized.members == 13
    assert sized.partitions == 4
    assert (sized.deciding.bound, sized.deciding.dimension) == ("in-flight", "records_in")
    assert {(b.bound, b.partitions) for b in sized.bounds} == {
        ("producer", 1),
        ("share-fetch", 1),
        ("in-flight", 4),
    }
    assert sized.holding_s == pytest.approx(0.65)
    assert sized.members_per_partition == 4
    assert sized.notes == ()


def test_each_bound_decides_in_its_turn() -> None:
    member = SideCapacity(mib_per_s=2.0, records_per_s=2_000.0)
    # The producer side: a slow producer partition.
    by_tp = size_share_group(
        {"mib_in": 50.0, "records_in": 50_000.0},
        producer=SideCapacity(mib_per_s=5.0),
        member=member,
        share_fetch=SideCapacity(mib_per_s=40.0),
    )
    assert (by_tp.deciding.bound, by_tp.partitions, by_tp.members) == ("producer", 10, 25)
    # The share-fetch side: a broker that share-fetches one partition slowly.
    by_s = size_share_group(
        {"mib_in": 50.0, "records_in": 50_000.0},
        producer=SideCapacity(mib_per_s=50.0),
        member=member,
        share_fetch=SideCapacity(mib_per_s=4.0),
    )
    assert (by_s.deciding.bound, by_s.partitions) == ("share-fetch", 13)
    # Fast members: the in-flight cap (50,000 x 500 / 2000 / 2000 = 6.25 -> 7).
    by_locks = size_share_group(
        {"mib_in": 50.0, "records_in": 50_000.0},
        producer=SideCapacity(mib_per_s=50.0),
        member=member,
        share_fetch=SideCapacity(mib_per_s=40.0),
    )
    assert (by_locks.deciding.bound, by_locks.partitions) == ("in-flight", 7)


def test_a_lower_lock_cap_asks_for_more_partitions_and_a_poll_passes_the_cap() -> None:
    member = SideCapacity(records_per_s=1_000.0)
    at = {
        locks: size_share_group(
            {"records_in": 6_000.0},
            producer=SideCapacity(records_per_s=1e6),
            member=member,
            share_fetch=SideCapacity(records_per_s=1e6),
            limits=ShareLimits(max_record_locks=locks, records_per_poll=500),
        ).partitions
        for locks in (4000, 2000, 1000, 500, 100)
    }
    # R * b * t / max(L, b): 750 / 4000 -> 1, / 2000 -> 1, / 1000 -> 3, / 500 -> 6, and a
    # cap of 100 acts as one whole poll of 500 (6 again).
    assert at == {4000: 1, 2000: 2, 1000: 3, 500: 6, 100: 6}


@pytest.mark.parametrize(
    ("locks", "members", "poll", "t_ms", "predicted"),
    [
        # docs/model.md section 8: measured on Kafka 4.4.0, "predicted" column.
        (2000, 1, 587, 1.42, 706),
        (2000, 2, 580, 1.25, 1_599),
        (2000, 4, 531, 1.30, 2_887),
        (2000, 8, 520, 1.28, 3_011),
        (100, 2, 150, 1.56, 641),
        (100, 4, 150, 1.32, 759),
    ],
)
def test_the_partition_rate_is_the_bound_the_measurements_were_compared_with(
    locks: int, members: int, poll: int, t_ms: float, predicted: float
) -> None:
    rate = partition_rate(
        members,
        seconds_per_record=t_ms / 1000,
        limits=ShareLimits(max_record_locks=locks, records_per_poll=poll),
    )
    # The table's t is rounded to 0.01 ms.
    assert rate == pytest.approx(predicted, rel=0.01)


def test_the_share_fetch_rate_caps_a_partition_when_measured() -> None:
    assert partition_rate(4, seconds_per_record=0.0001, share_fetch_records_per_s=30_000) == 30_000


def test_what_was_assumed_or_is_wrong_is_said_with_codes() -> None:
    slow = size_share_group(
        {"records_in": 100_000.0},
        producer=SideCapacity(records_per_s=50_000.0),
        member=SideCapacity(records_per_s=10.0),  # 100 ms a record
    )
    codes = {n.code: n.params for n in slow.notes}
    assert set(codes) == {"share-fetch-assumed", "share-lock-expiry", "share-group-size"}
    # A poll of 500 records held 50 s, past the 30 s lock: keep b * t near 15 s.
    assert codes["share-lock-expiry"]["holding_s"] == pytest.approx(50.0)
    assert codes["share-lock-expiry"]["max_poll_records"] == 150
    assert codes["share-group-size"] == {"members": 10_000, "max_size": 200}
    assert slow.members == 10_000
    # Only MiB/s known for the members, and no record size: the cap cannot be checked.
    blind = size_share_group(
        {"mib_in": 10.0, "records_in": 10_000.0},
        producer=SideCapacity(mib_per_s=20.0),
        member=SideCapacity(mib_per_s=1.0),
        share_fetch=SideCapacity(mib_per_s=30.0),
    )
    assert [n.code for n in blind.notes] == ["share-in-flight-unchecked"]
    assert blind.holding_s is None
    assert (blind.members, blind.partitions) == (10, 1)
    # With the record size the members' records/s follow from their MiB/s.
    sized = size_share_group(
        {"mib_in": 10.0, "records_in": 10_000.0},
        producer=SideCapacity(mib_per_s=20.0),
        member=SideCapacity(mib_per_s=1.0, record_bytes=1024.0),
        share_fetch=SideCapacity(mib_per_s=30.0),
    )
    assert sized.notes == ()
    assert sized.holding_s == pytest.approx(500 / 1024)


def test_bad_settings_and_nothing_to_size_on_are_refused() -> None:
    with pytest.raises(ValueError, match="max_record_locks"):
        ShareLimits(max_record_locks=0)
    with pytest.raises(ValueError, match="nothing to size the share group on"):
        size_share_group(
            {"mib_in": 1.0},
            producer=SideCapacity(mib_per_s=1.0),
            member=SideCapacity(records_per_s=5.0),
        )


# --- the share-group alternative of a classic plan -------------------------------------


def _alternative(**overrides: object) -> object:
    from planner.cost import ClusterShape, partition_cost
    from planner.recommend.share import share_alternative

    cluster = ClusterShape(brokers=3, replication_factor=3)
    args: dict[str, object] = {
        "keyed": False,
        "consumer_decides": True,
        "current_partitions": None,
        "classic_cost": partition_cost(13, cluster),
        "cost_of": lambda p: partition_cost(p, cluster),
        "targets": {"records_in": 10_000.0},
        "producer": SideCapacity(records_per_s=20_000.0),
        "member": SideCapacity(records_per_s=1 / 0.0013),
        "share_fetch": SideCapacity(records_per_s=30_000.0),
    }
    args.update(overrides)
    return share_alternative(**args)  # type: ignore[arg-type]


def test_a_keyless_topic_the_consumers_size_gets_the_share_alternative_with_its_savings() -> None:
    from planner.recommend.share import ShareAlternative

    found = _alternative()
    assert isinstance(found, ShareAlternative)
    assert (found.partitions, found.classic_partitions, found.members) == (4, 13, 13)
    params = found.note.params
    assert found.note.code == "share-alternative"
    # 9 partitions fewer x replication factor 3; 9 x 16 KiB of producer batches.
    assert params["replicas_saved"] == 27
    assert params["batch_memory_saved_bytes"] == 9 * 16_384
    assert params["file_handles_saved"] == (
        found.classic_cost.file_handles_per_broker - found.cost.file_handles_per_broker
    )
    assert params["bound"] == "in-flight"


def test_a_saving_that_is_a_cost_is_said_as_more_not_as_negative_fewer() -> None:
    from planner.notes import render
    from planner.recommend.share import ShareAlternative

    found = _alternative()
    assert isinstance(found, ShareAlternative)
    # Fewer partitions, each rolling more segments: more open files, as measured.
    params = {**found.note.params, "file_handles_saved": -642, "batch_memory_saved_bytes": -(2**20)}
    text = render(found.note.code, params)
    assert "642 more open files on the busiest broker" in text and "-642" not in text
    assert "1.00 MiB more producer batch memory" in text
    assert "27 fewer replicas" in text


def test_an_existing_topic_keeps_its_partitions_in_the_alternative() -> None:
    from planner.recommend.share import ShareAlternative

    found = _alternative(current_partitions=8)
    assert isinstance(found, ShareAlternative)
    assert found.partitions == 8  # Kafka cannot shrink a topic; the model asked for 4
    assert found.note.params["bound_partitions"] == 4
    assert "Kafka cannot shrink a topic" in found.note.text
    # Already at or above the classic count: nothing to save.
    assert _alternative(current_partitions=13) is None


def test_no_alternative_where_it_saves_nothing_and_a_reason_for_a_keyed_topic() -> None:
    assert _alternative(consumer_decides=False) is None
    refused = _alternative(keyed=True)
    assert getattr(refused, "code", None) == "share-not-for-keyed"
    # Members so slow that the in-flight cap needs more partitions than the classic plan.
    assert _alternative(member=SideCapacity(records_per_s=20.0)) is None
