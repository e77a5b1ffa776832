"""Arrow tables shaped like what Spark hands the jobs' per-topic functions.

`facts` builds the one-row facts table of `size_partitions.topic_facts` with the Arrow
types Spark gives its columns; `hourly` a topic's throughput rows in the planner's units;
`key_rows` a topic's key-sample rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pyarrow as pa

START = datetime(2026, 11, 1, tzinfo=UTC)

GROUP = pa.struct(
    [
        pa.field("group_id", pa.string()),
        pa.field("strategy", pa.string()),
        pa.field("members", pa.int32()),
    ]
)
FACTS = pa.schema(
    [
        pa.field("topic", pa.string()),
        pa.field("partitions", pa.int32()),
        pa.field("replication_factor", pa.int32()),
        pa.field("keyed", pa.bool_()),
        pa.field("partitioner", pa.string()),
        pa.field("retention_ms", pa.int64()),
        pa.field("tp_mib_per_s", pa.float64()),
        pa.field("tp_records_per_s", pa.float64()),
        pa.field("tp_source", pa.string()),
        pa.field("tp_measured_by", pa.string()),
        pa.field("tp_record_bytes", pa.float64()),
        pa.field("tc_mib_per_s", pa.float64()),
        pa.field("tc_records_per_s", pa.float64()),
        pa.field("tc_source", pa.string()),
        pa.field("tc_measured_by", pa.string()),
        pa.field("tc_record_bytes", pa.float64()),
        pa.field("groups", pa.list_(GROUP)),
        pa.field("consuming_groups", pa.int32()),
        pa.field("max_members", pa.int32()),
        pa.field("streams_readers", pa.list_(pa.string())),
        # `(application, kind)`, as a list once it went through Arrow.
        pa.field("streams_internal", pa.list_(pa.string())),
    ]
)
#: A group with its own capacity and lag (figures `groups`' optional columns).
GROUP_WITH_CAPACITY = pa.struct(
    [
        *GROUP,
        pa.field("consumer_records_per_s", pa.float64()),
        pa.field("capacity_source", pa.string()),
        pa.field("capacity_evidence", pa.string()),
        pa.field("lag_records", pa.float64()),
        pa.field("lag_seconds", pa.float64()),
        pa.field("lag_trend", pa.string()),
    ]
)
FACTS_WITH_CAPACITY = FACTS.set(
    FACTS.get_field_index("groups"), pa.field("groups", pa.list_(GROUP_WITH_CAPACITY))
)
THROUGHPUT = pa.schema(
    [
        pa.field("topic", pa.string()),
        pa.field("ts", pa.timestamp("us", tz="UTC")),
        pa.field("mib_in", pa.float64()),
        pa.field("records_in", pa.float64()),
        pa.field("mib_out", pa.float64()),
    ]
)


def facts(topic: str = "orders", **overrides: Any) -> pa.Table:
    """A one-row facts table: 12 partitions, RF 3, keyless, Tp 10/20000, Tc 2/4000."""
    row: dict[str, Any] = {
        "topic": topic,
        "partitions": 12,
        "replication_factor": 3,
        "keyed": False,
        "partitioner": "murmur2_random",
        "retention_ms": 604_800_000,
        "tp_mib_per_s": 10.0,
        "tp_records_per_s": 20_000.0,
        "tp_source": "topic",
        "tp_measured_by": "perf:producer",
        "tp_record_bytes": None,
        "tc_mib_per_s": 2.0,
        "tc_records_per_s": 4_000.0,
        "tc_source": "topic",
        "tc_measured_by": "perf:consumer",
        "tc_record_bytes": None,
        "groups": [],
        "consuming_groups": 0,
        "max_members": 0,
    }
    row.update(overrides)
    row["groups"] = [{"group_id": g, "strategy": s, "members": m} for g, s, m in row["groups"]]
    if "consuming_groups" not in overrides:
        row["consuming_groups"] = len(row["groups"])
    return pa.Table.from_pylist([row], schema=FACTS)


def key_rows(keys: Sequence[bytes | None], counts: Sequence[float]) -> pa.Table:
    """`keys` rows of one topic as Spark hands them over: `topic, key, count`."""
    return pa.table(
        {
            "topic": ["orders"] * len(keys),
            "key": pa.array(list(keys), pa.binary()),
            "count": pa.array([float(c) for c in counts], pa.float64()),
        }
    )


def hourly(
    topic: str = "orders",
    *,
    days: int = 14,
    mib: float = 6.0,
    record_bytes: float = 500.0,
    growth_per_day: float = 0.003,
    out_ratio: float | None = None,
) -> pa.Table:
    """`days` of hourly samples: a daily cycle on an exponential trend."""
    hours = np.arange(days * 24)
    cycle = 1.0 + 0.5 * np.sin(2 * np.pi * (hours % 24 - 6) / 24.0)
    rate = mib * (1.0 + growth_per_day) ** (hours / 24.0) * cycle
    ts = pa.array(
        (np.datetime64(START.replace(tzinfo=None), "us") + hours * np.timedelta64(1, "h")),
        pa.timestamp("us"),
    ).cast(pa.timestamp("us", tz="UTC"))
    return pa.table(
        {
            "topic": [topic] * hours.size,
            "ts": ts,
            "mib_in": rate,
            "records_in": rate * 2**20 / record_bytes,
            "mib_out": rate * out_ratio if out_ratio is not None else pa.nulls(hours.size),
        },
        schema=THROUGHPUT,
    )
