"""The partition cost panel."""

from __future__ import annotations

import pytest

from planner.cost import ClusterShape, CostSettings, partition_cost
from planner.render.text import render_cost


def test_batch_memory_matches_the_domain_figure() -> None:
    cost = partition_cost(10_000, ClusterShape(brokers=6, replication_factor=3))
    assert cost.producer_batch_memory_bytes == 10_000 * 16_384
    assert cost.producer_batch_memory_bytes / 2**20 == 156.25
    assert cost.producer_buffer_share == pytest.approx(156.25 / 32)
    warning = next(w for w in cost.warnings if w.code == "producer-buffer")
    assert warning.params == {
        "partitions": 10_000,
        "batch_memory_bytes": 10_000 * 16_384,
        "buffer_memory_bytes": 32 * 2**20,
    }


def test_broker_figures_for_a_small_topic() -> None:
    cost = partition_cost(12, ClusterShape(brokers=3, replication_factor=3))
    assert cost.replicas_total == 36
    assert cost.replicas_per_broker == 12
    assert cost.latency_rule_limit == 900
    assert cost.leaders_per_broker == 4
    assert cost.election_unavailability_ms == 20.0
    assert cost.consumer_threads == 12
    assert cost.segments_per_replica == 1
    assert cost.file_handles_per_broker == 12 * 3
    assert cost.warnings == ()


def test_uneven_spread_counts_the_busiest_broker() -> None:
    cost = partition_cost(10, ClusterShape(brokers=4, replication_factor=2))
    assert cost.replicas_per_broker == 5  # 20 replicas over 4 brokers
    assert cost.leaders_per_broker == 3


def test_replica_limits_warn() -> None:
    cost = partition_cost(
        2_000, ClusterShape(brokers=3, replication_factor=3, existing_replicas_per_broker=2_500)
    )
    assert cost.replicas_per_broker == 4_500
    by_code = {w.code: w.params for w in cost.warnings}
    assert by_code["replicas-per-broker"] == {"replicas_per_broker": 4_500, "limit": 4_000}
    assert by_code["replication-latency"] == {
        "replicas_per_broker": 4_500,
        "brokers": 3,
        "replication_factor": 3,
        "limit": 900,
    }
    assert "4000 limit" in next(w.text for w in cost.warnings if w.code == "replicas-per-broker")


def test_segments_follow_retention_by_time_and_size() -> None:
    week = 7 * 24 * 3600 * 1000
    by_time = partition_cost(4, ClusterShape(1, 1), retention_ms=2 * week, bytes_in_per_s=None)
    assert by_time.segments_per_replica == 1 + 2
    # 64 MiB/s over 4 partitions for one day = 1350 GiB/partition -> 1350 segments of 1 GiB
    by_size = partition_cost(
        4, ClusterShape(1, 1), retention_ms=24 * 3600 * 1000, bytes_in_per_s=64 * 2**20
    )
    assert by_size.segments_per_replica == 1 + 1350
    assert by_size.file_handles_per_broker == 4 * 1351 * 3


def test_election_time_is_configurable() -> None:
    cost = partition_cost(1_000, ClusterShape(2, 2), CostSettings(election_ms_per_partition=0.5))
    assert cost.leaders_per_broker == 500
    assert cost.election_unavailability_ms == 250.0


def test_replication_factor_1_has_no_leader_to_elect() -> None:
    # One replica: the failed broker's partitions wait for it, no election time applies.
    cost = partition_cost(12, ClusterShape(brokers=3, replication_factor=1))
    assert cost.leaders_per_broker == 4
    assert cost.election_unavailability_ms is None
    (warning,) = cost.warnings
    assert (warning.code, warning.params) == (
        "single-replica",
        {"partitions": 12, "leaders_per_broker": 4},
    )
    assert warning.text == (
        "replication factor 1: a broker failure takes its partitions offline until the "
        "broker returns (up to 4 of this topic's 12 on one broker); there is no other "
        "replica, so no leader can be elected elsewhere, and unclean leader election "
        "cannot help"
    )
    # Two replicas: a follower takes over, and the election time is counted.
    two = partition_cost(12, ClusterShape(brokers=3, replication_factor=2))
    assert two.election_unavailability_ms == 20.0
    assert not any(w.code == "single-replica" for w in two.warnings)


def test_the_cost_panel_text_says_offline_rather_than_a_time_for_one_replica() -> None:
    one = render_cost(partition_cost(12, ClusterShape(brokers=3, replication_factor=1)))
    assert one[3] == (
        "  broker failure         up to 4 partitions offline until the broker returns "
        "(no other replica to elect)"
    )
    assert not any("ms of unavailability" in line for line in one)
    three = render_cost(partition_cost(12, ClusterShape(brokers=3, replication_factor=3)))
    assert three[3] == "  broker failure         4 leaders to elect, about 20 ms of unavailability"


def test_replication_factor_above_brokers_is_refused_as_kafka_does() -> None:
    with pytest.raises(ValueError, match="Replication factor: 3 larger than available brokers: 1"):
        ClusterShape(brokers=1, replication_factor=3)


@pytest.mark.parametrize("bad", [0, -3, 1.5, True])
def test_bad_partition_counts(bad: object) -> None:
    with pytest.raises(ValueError, match="partitions"):
        partition_cost(bad, ClusterShape(1, 1))  # type: ignore[arg-type]


def test_docstring_examples() -> None:
    import doctest

    import planner.cost

    failed, attempted = doctest.testmod(planner.cost)
    assert attempted > 0 and failed == 0
