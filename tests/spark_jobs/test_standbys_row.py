"""A Kafka Streams group's standbys on the sizing row, from the facts' changelogs."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from planner.figures.schema import TABLES
from spark_jobs.facts import topic_facts
from spark_jobs.planning import sizing_row
from spark_jobs.schemas import GROUP_PLAN
from spark_jobs.settings import JobSettings
from tests.spark_jobs import arrow_inputs as ai


def _table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    schema = TABLES[name].schema
    return pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema)


def _groups(by_id: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    topics = _table(
        "topics",
        [
            {"topic": "orders", "partitions": 12, "replication_factor": 2, "keyed": False},
            {"topic": "wc-counts-changelog", "partitions": 12, "replication_factor": 2},
        ],
    )
    capacity = _table(
        "capacity",
        [
            {
                "topic": "*",
                "producer_mib_per_s": 10.0,
                "consumer_mib_per_s": 2.0,
                "source": "test",
            }
        ],
    )
    groups = _table(
        "groups",
        [{"topic": "orders", "members": 3, **g, "group_id": i} for i, g in by_id.items()],
    )
    facts = topic_facts(
        topics,
        capacity=capacity,
        groups=groups,
        changelog_rates={"wc-counts-changelog": (3 * 2**20, 24)},
    )
    row = sizing_row(
        "orders",
        ai.hourly(mib=1.0),
        pa.Table.from_pylist([f for f in facts if f["topic"] == "orders"]),
        run="20261115T0000Z",
        brokers=3,
        settings=JobSettings(),
    )
    return {g["group_id"]: g for g in row["groups"]}


def test_the_group_row_carries_the_standbys_with_their_evidence() -> None:
    groups = _groups(
        {
            "wc": {"strategy": "stream", "stream_threads": 8, "standby_replicas": 2},
            "fresh": {"strategy": "sticky", "protocol": "streams"},
            "audit": {"strategy": "range"},
        }
    )
    wc = groups["wc"]["standbys"]
    assert wc["standby_replicas"] == 2 and wc["standby_replicas_evidence"] == "given"
    assert wc["config"] == "num.standby.replicas"
    assert wc["stateful_tasks_min"] == wc["stateful_tasks_max"] == 12
    assert wc["standby_tasks_min"] == 24
    assert wc["standby_read_bytes_per_s"] == 6 * 2**20
    assert wc["changelog_evidence"] == "observed"
    assert wc["state_bytes"] is None and wc["state_evidence"] == "unknown"
    assert wc["min_instances"] == 3
    codes = [n["code"] for n in groups["wc"]["notes_coded"]]
    assert "streams-standbys" in codes
    fresh = groups["fresh"]["standbys"]
    assert fresh["standby_replicas"] is None and fresh["min_instances"] is None
    assert fresh["config"] == "streams.num.standby.replicas"
    assert groups["audit"]["standbys"] is None
    # The row fits the dataset's struct.
    fields = {f.name for f in GROUP_PLAN.fields}
    assert set(groups["wc"]) == fields
    (standbys,) = [f.dataType for f in GROUP_PLAN.fields if f.name == "standbys"]
    assert set(wc) == set(standbys.fieldNames())  # type: ignore[attr-defined]
