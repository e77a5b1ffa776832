"""A small fleet of figures, written with `write_interval`, that exercises every path.

Fifteen days of hourly throughput (fourteen history intervals and the run's day). The
run's interval and the day before it (`PREVIOUS_DAY`, a run of its own) also hold the
snapshot tables:

| topic | what it exercises |
| --- | --- |
| `orders` | keyed, a 2,000-key Zipf sample plus a hot key, its own Tp and Tc, group `billing` |
| `clicks` | keyless, bytes out, its own Tc, Tp from `*`; groups `audit` and `analytics` |
| `views` | keyless, its own Tc, Tp from `*`; read only by the two-topic group `analytics` |
| `legacy` | no Tc anywhere (only the `*` Tp): `missing-capacity`; group `legacy-reader` |
| `idle` | in the topics table, no throughput: `no-figures` |
| `ghost` | throughput, not in the topics table: `unknown-topic` |
| `wide` | replication factor 5 on 3 brokers: `plan_topic` refuses it, `error` |

`FLEET` keeps the inputs so that tests can call `plan_topic` on the same figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from planner.figures.dataset import DataInterval, write_interval
from planner.figures.schema import TABLES

RUN_DAY = date(2026, 11, 21)
PREVIOUS_DAY = date(2026, 11, 20)
HISTORY_DAYS = 14
MIB = 2**20


@dataclass(frozen=True)
class TopicSpec:
    """One topic's traffic: MiB/s at the start of the history, daily cycle, growth."""

    name: str
    base_mib: float
    record_bytes: float
    growth_per_day: float
    out_ratio: float | None = None


TOPICS: tuple[TopicSpec, ...] = (
    TopicSpec("orders", 6.0, 500.0, 0.002),
    TopicSpec("clicks", 9.0, 200.0, 0.003, out_ratio=2.0),
    TopicSpec("views", 1.5, 1000.0, 0.0),
    TopicSpec("legacy", 2.0, 800.0, 0.0),
    TopicSpec("ghost", 1.0, 100.0, 0.0),
    TopicSpec("wide", 0.5, 100.0, 0.0),
)

TOPIC_ROWS: tuple[dict[str, Any], ...] = (
    {
        "topic": "orders",
        "partitions": 12,
        "replication_factor": 3,
        "keyed": True,
        "partitioner": "murmur2_random",
        "retention_ms": 604_800_000,
        "source": "test",
    },
    {
        "topic": "clicks",
        "partitions": 6,
        "replication_factor": 3,
        "keyed": False,
        "partitioner": "murmur2_random",
        "retention_ms": 86_400_000,
        "source": "test",
    },
    {
        "topic": "views",
        "partitions": 3,
        "replication_factor": 2,
        "keyed": False,
        "partitioner": None,
        "retention_ms": None,
        "source": "test",
    },
    {
        "topic": "legacy",
        "partitions": 4,
        "replication_factor": 3,
        "keyed": False,
        "partitioner": "murmur2_random",
        "retention_ms": None,
        "source": "test",
    },
    {
        "topic": "idle",
        "partitions": 2,
        "replication_factor": 3,
        "keyed": False,
        "partitioner": "murmur2_random",
        "retention_ms": None,
        "source": "test",
    },
    {
        "topic": "wide",
        "partitions": 2,
        "replication_factor": 5,
        "keyed": False,
        "partitioner": "murmur2_random",
        "retention_ms": None,
        "source": "test",
    },
)

CAPACITY_ROWS: tuple[dict[str, Any], ...] = (
    {
        "topic": "*",
        "producer_mib_per_s": 8.0,
        "producer_records_per_s": 16_000.0,
        "consumer_mib_per_s": None,
        "consumer_records_per_s": None,
        "source": "perf:fleet",
    },
    {
        "topic": "orders",
        "producer_mib_per_s": 10.0,
        "producer_records_per_s": 20_000.0,
        "consumer_mib_per_s": 2.0,
        "consumer_records_per_s": 3_000.0,
        "source": "perf:orders",
    },
    {
        "topic": "clicks",
        "producer_mib_per_s": None,
        "producer_records_per_s": None,
        "consumer_mib_per_s": 3.0,
        "consumer_records_per_s": None,
        "source": "perf:clicks",
    },
    {
        "topic": "views",
        "producer_mib_per_s": None,
        "producer_records_per_s": None,
        "consumer_mib_per_s": 1.0,
        "consumer_records_per_s": 1_500.0,
        "source": "perf:views",
    },
    {
        "topic": "wide",
        "producer_mib_per_s": 5.0,
        "producer_records_per_s": None,
        "consumer_mib_per_s": 1.0,
        "consumer_records_per_s": None,
        "source": "perf:wide",
    },
)

GROUP_ROWS: tuple[dict[str, Any], ...] = (
    {"group_id": "billing", "topic": "orders", "strategy": "range", "members": 4},
    {"group_id": "audit", "topic": "clicks", "strategy": "cooperative-sticky", "members": 2},
    {"group_id": "analytics", "topic": "clicks", "strategy": "roundrobin", "members": 3},
    {"group_id": "analytics", "topic": "views", "strategy": "roundrobin", "members": 3},
    {"group_id": "legacy-reader", "topic": "legacy", "strategy": "range", "members": 2},
)

HOT_KEY = "customer-hot"


def _table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    schema = TABLES[name].schema
    full = [{f.name: row.get(f.name) for f in schema} for row in rows]
    return pa.Table.from_pylist(full, schema=schema)


def key_rows() -> list[dict[str, Any]]:
    """A 2,000-key Zipf sample on `orders`, one hot key, one key given in hex."""
    ranks = np.arange(1, 2_001, dtype=np.float64)
    counts = np.round(50_000 / ranks**1.05)
    rows = [
        {"topic": "orders", "key": f"customer-{i:05d}", "count": float(c)}
        for i, c in enumerate(counts)
    ]
    rows.append({"topic": "orders", "key": HOT_KEY, "count": 40_000.0})
    rows.append({"topic": "orders", "key_hex": "00ff10", "count": 77.0})
    for row in rows:
        row["source"] = "test"
    return rows


def _hours(day: date) -> list[datetime]:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return [start + timedelta(hours=h) for h in range(24)]


def throughput_rows(day: date, topics: tuple[TopicSpec, ...] = TOPICS) -> pa.Table:
    """One day of hourly samples for `topics`: a daily cycle on an exponential trend."""
    first = RUN_DAY - timedelta(days=HISTORY_DAYS)
    cols: dict[str, list[Any]] = {
        "topic": [],
        "ts": [],
        "bytes_in_per_s": [],
        "records_in_per_s": [],
        "bytes_out_per_s": [],
        "source": [],
    }
    hours = _hours(day)
    for spec in topics:
        days = (day - first).days + np.arange(24) / 24.0
        cycle = 1.0 + 0.5 * np.sin(2 * np.pi * (np.arange(24) - 6) / 24.0)
        mib = spec.base_mib * (1.0 + spec.growth_per_day) ** days * cycle
        cols["topic"] += [spec.name] * 24
        cols["ts"] += hours
        cols["bytes_in_per_s"] += (mib * MIB).tolist()
        cols["records_in_per_s"] += (mib * MIB / spec.record_bytes).tolist()
        out = None if spec.out_ratio is None else (mib * MIB * spec.out_ratio).tolist()
        cols["bytes_out_per_s"] += out if out is not None else [None] * 24
        cols["source"] += ["test"] * 24
    cols["busiest_group_bytes_out_per_s"] = [None] * len(cols["topic"])
    return pa.Table.from_pydict(
        {**cols, "ts": pa.array(cols["ts"], pa.timestamp("us", tz="UTC"))},
        schema=TABLES["throughput"].schema,
    )


@dataclass
class Fleet:
    """Where the fleet was written, and its run."""

    root: Path
    run: DataInterval
    history: list[DataInterval] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.run.key


def snapshot_tables() -> dict[str, pa.Table]:
    """The run's snapshot tables."""
    return {
        "topics": _table("topics", list(TOPIC_ROWS)),
        "capacity": _table("capacity", list(CAPACITY_ROWS)),
        "groups": _table("groups", [{**r, "source": "test"} for r in GROUP_ROWS]),
        "keys": _table("keys", key_rows()),
        "cluster": _table(
            "cluster", [{"broker_id": i, "rack": f"r{i % 2}", "source": "test"} for i in (1, 2, 3)]
        ),
    }


def write_fleet(root: Path, *, days: int = HISTORY_DAYS) -> Fleet:
    """Write the fleet: `days` history intervals with throughput, then the run's day."""
    fleet = Fleet(root, DataInterval.day(RUN_DAY))
    for back in range(days, 0, -1):
        day = RUN_DAY - timedelta(days=back)
        interval = DataInterval.day(day)
        tables = {"throughput": throughput_rows(day)}
        if day == PREVIOUS_DAY:
            tables.update(snapshot_tables())
        write_interval(root, interval, tables, sources=["test"])
        fleet.history.append(interval)
    write_interval(
        root,
        fleet.run,
        {"throughput": throughput_rows(RUN_DAY), **snapshot_tables()},
        sources=["test"],
    )
    return fleet
