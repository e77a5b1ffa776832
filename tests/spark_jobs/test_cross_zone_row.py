"""Each group's cross-zone figure on the sizing row, from the facts' racks and replicas."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from planner.recommend import PlanSettings
from spark_jobs.facts import topic_facts
from spark_jobs.planning import sizing_row
from spark_jobs.settings import JobSettings
from tests.spark_jobs import arrow_inputs as ai

GIB = 2**30
MIB = 2**20
# Twelve partitions, two replicas each, leaders in turn on brokers 1, 2, 3 (racks a, b,
# c): p % 3 == 0 is led in a with a follower in b, 1 in b (follower c), 2 in c (follower a).
REPLICAS = ",".join(["1:2", "2:3", "3:1"] * 4)
CLUSTER = pa.table({"broker_id": pa.array([1, 2, 3], pa.int32()), "rack": ["a", "b", "c"]})


def _facts(
    client_rack: str | None, *, cluster: pa.Table = CLUSTER, replicas: Any = REPLICAS
) -> Any:
    topics = pa.table(
        {
            "topic": ["orders"],
            "partitions": pa.array([12], pa.int32()),
            "replication_factor": pa.array([2], pa.int32()),
            "keyed": [False],
            "partitioner": pa.array([None], pa.string()),
            "retention_ms": pa.array([604_800_000], pa.int64()),
            "replicas": pa.array([replicas], pa.string()),
        }
    )
    capacity = pa.table(
        {
            "topic": ["*"],
            "producer_mib_per_s": [10.0],
            "producer_records_per_s": [20_000.0],
            "consumer_mib_per_s": [2.0],
            "consumer_records_per_s": [4_000.0],
            "share_fetch_mib_per_s": pa.array([None], pa.float64()),
            "share_fetch_records_per_s": pa.array([None], pa.float64()),
            "record_bytes": pa.array([None], pa.float64()),
            "source": ["test"],
            "group_id": pa.array([None], pa.string()),
        }
    )
    groups = pa.table(
        {
            "group_id": ["billing"],
            "topic": ["orders"],
            "strategy": ["range"],
            "members": pa.array([3], pa.int32()),
            "protocol": ["classic"],
            "client_rack": pa.array([client_rack], pa.string()),
        }
    )
    (row,) = topic_facts(topics, capacity=capacity, groups=groups, cluster=cluster)
    return pa.Table.from_pylist([row])


def _billing(facts: Any, price: float | None = None) -> dict[str, Any]:
    settings = JobSettings(planning=PlanSettings(cross_zone_price_per_gib=price))
    row = sizing_row(
        "orders", ai.hourly(mib=1.0), facts, run="20261115T0000Z", brokers=3, settings=settings
    )
    assert row["status"] in ("ok", "plan-increase", "increase"), row["status_detail"]
    assert row["recommended_partitions"] == 12
    (group,) = [g for g in row["groups"] if g["group_id"] == "billing"]
    return group


def _daily_bytes() -> float:
    # What the group reads a day: no bytes-out figure, so every byte produced, at the
    # mean rate of the samples.
    return float(np.mean(ai.hourly(mib=1.0).column("mib_in").to_numpy())) * MIB * 86_400


def test_members_in_one_rack_by_hand() -> None:
    # All members in rack a, whatever the assignment: from leaders the 8 partitions led in
    # b or c cross (2/3 of the bytes); with follower fetching only the 4 led in b with a
    # follower in c (p % 3 == 1) have no replica in a (1/3).
    group = _billing(_facts("a"), price=0.02)
    cz = group["cross_zone"]
    daily = _daily_bytes()
    assert cz["bytes_per_day"] == pytest.approx(daily, rel=1e-12)
    assert cz["from_leaders"]["cross_zone_bytes_per_day"] == pytest.approx(daily * 2 / 3)
    assert cz["from_leaders"]["same_zone_bytes_per_day"] == pytest.approx(daily / 3)
    assert cz["follower_fetching"]["cross_zone_bytes_per_day"] == pytest.approx(daily / 3)
    assert cz["leader_cost_per_day"] == pytest.approx(daily * 2 / 3 / GIB * 0.02)
    assert cz["follower_cost_per_day"] == pytest.approx(daily / 3 / GIB * 0.02)
    assert cz["evidence"]["replicas"] == [
        {"topic": "orders", "partitions": 12, "replicas": REPLICAS}
    ]
    assert [b["rack"] for b in cz["evidence"]["brokers"]] == ["a", "b", "c"]
    assert cz["evidence"]["member_racks"] == ["a"]
    (advice,) = cz["advice"]
    assert advice["code"] == "follower-fetching"


def test_no_price_gives_bytes_only() -> None:
    cz = _billing(_facts("a"))["cross_zone"]
    assert cz["price_per_gib"] is None
    assert cz["leader_cost_per_day"] is None and cz["follower_cost_per_day"] is None
    assert "per GiB" not in cz["advice"][0]["text"]


def test_unknown_member_racks_ask_for_client_rack() -> None:
    cz = _billing(_facts(None))["cross_zone"]
    assert cz["from_leaders"]["unknown_bytes_per_day"] == pytest.approx(_daily_bytes())
    assert cz["from_leaders"]["cross_zone_bytes_per_day"] == 0.0
    assert [a["code"] for a in cz["advice"]] == ["client-rack"]


def test_a_fleet_without_racks_has_no_figure() -> None:
    no_racks = CLUSTER.set_column(1, "rack", pa.array([None, None, None], pa.string()))
    assert _billing(_facts("a", cluster=no_racks))["cross_zone"] is None
    assert _billing(_facts("a", replicas=None))["cross_zone"] is None


def test_the_figure_fits_the_sizing_dataset_schema() -> None:
    from spark_jobs.schemas import arrow_schema

    facts = _facts("a,b,c")
    row = sizing_row(
        "orders", ai.hourly(mib=1.0), facts, run="20261115T0000Z", brokers=3, settings=JobSettings()
    )
    table = pa.Table.from_pylist([row], schema=arrow_schema("sizing"))
    (group,) = [g for g in table.column("groups")[0].as_py() if g["group_id"] == "billing"]
    assert group["cross_zone"]["evidence"]["member_racks"] == ["a", "b", "c"]
    assert (
        group["cross_zone"]["follower_fetching"]["cross_zone_bytes_per_day"]
        <= (group["cross_zone"]["from_leaders"]["cross_zone_bytes_per_day"])
    )
