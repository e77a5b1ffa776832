"""A fleet of good topics and, for every row-level input rule, one topic that breaks it.

Written straight into the figures dataset with `write_interval`, as a collector with a
bug (or a hand-made export that bypassed collection) would: collection itself keeps
most of these rows out. Three days of hourly throughput; the run is the last day.

Each bad topic breaks exactly one rule, in one row, so its reason must name that rule
and that value. Besides:

- `multi-reader`, a consumer group reading the good topic `good-01` and the bad topic
  `rf-too-many`: it must come out `unplanned`, naming `rf-too-many`, while `good-01`
  is planned and still counts it among the groups fetching its bytes;
- `mixed`, a group listed with two strategies on `grp-mixed-a` and `grp-mixed-b`: a
  group-level rule, which sets aside both of its topics;
- rows that name no legal topic (null, `..`, `bad topic!`): dropped and counted, never
  shown as topics.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from planner.figures.dataset import MANIFEST, DataInterval, interval_path
from planner.figures.schema import TABLES

RUN_DAY = date(2026, 11, 21)
DAYS = 3
RUN_KEY = "20261121T0000Z"
MIB = 2**20
GOOD = tuple(f"good-{i:02d}" for i in range(12))


@dataclass(frozen=True)
class Case:
    """One bad topic: the table and row it breaks, the rule, and words its reason has."""

    topic: str
    table: str
    change: dict[str, Any]
    rule: str
    says: tuple[str, ...]


def _case(topic: str, table: str, rule: str, *says: str, **change: Any) -> Case:
    return Case(topic, table, change, rule, says)


NAN, INF = math.nan, math.inf
BETWEEN = "expect_column_values_to_be_between"
NOT_NULL = "expect_column_values_to_not_be_null"

#: Every row-level rule that a row of a legal topic can break (the topic-name rules are
#: the `UNNAMED` rows below).
CASES: tuple[Case, ...] = (
    _case(
        "tp-nan-bytes",
        "throughput",
        f"{BETWEEN} on bytes_in_per_s",
        "bytes_in_per_s = nan",
        bytes_in_per_s=NAN,
    ),
    _case(
        "tp-inf-records",
        "throughput",
        f"{BETWEEN} on records_in_per_s",
        "records_in_per_s = inf",
        records_in_per_s=INF,
    ),
    _case(
        "tp-neg-out",
        "throughput",
        f"{BETWEEN} on bytes_out_per_s",
        "bytes_out_per_s = -1.0",
        bytes_out_per_s=-1.0,
    ),
    _case(
        "tp-null-bytes",
        "throughput",
        f"{NOT_NULL} on bytes_in_per_s",
        "bytes_in_per_s = None",
        bytes_in_per_s=None,
    ),
    _case(
        "tp-null-records",
        "throughput",
        f"{NOT_NULL} on records_in_per_s",
        "records_in_per_s = None",
        records_in_per_s=None,
    ),
    _case("tp-null-source", "throughput", f"{NOT_NULL} on source", "source = None", source=None),
    _case("zero-partitions", "topics", f"{BETWEEN} on partitions", "partitions = 0", partitions=0),
    _case(
        "rf-too-many",
        "topics",
        f"{BETWEEN} on replication_factor",
        "3 brokers listed, the topic has 4 replicas: a broker down or missing from the figures?",
        replication_factor=4,
    ),
    _case(
        "rf-zero",
        "topics",
        f"{BETWEEN} on replication_factor",
        "replication_factor = 0",
        replication_factor=0,
    ),
    _case(
        "rf-null",
        "topics",
        f"{NOT_NULL} on replication_factor",
        "replication_factor = None",
        replication_factor=None,
    ),
    _case("keyed-null", "topics", f"{NOT_NULL} on keyed", "keyed = None", keyed=None),
    _case(
        "bad-partitioner",
        "topics",
        "expect_column_values_to_be_in_set on partitioner",
        "partitioner = 'sticky_random'",
        partitioner="sticky_random",
    ),
    _case(
        "neg-retention",
        "topics",
        f"{BETWEEN} on retention_ms",
        "retention_ms = -5",
        retention_ms=-5,
    ),
    _case(
        "cap-neg-tp",
        "capacity",
        f"{BETWEEN} on producer_mib_per_s",
        "producer_mib_per_s = -1.0",
        producer_mib_per_s=-1.0,
    ),
    _case(
        "cap-zero-tp-records",
        "capacity",
        f"{BETWEEN} on producer_records_per_s",
        "producer_records_per_s = 0.0",
        producer_records_per_s=0.0,
    ),
    _case(
        "cap-nan-tc",
        "capacity",
        f"{BETWEEN} on consumer_mib_per_s",
        "consumer_mib_per_s = nan",
        consumer_mib_per_s=NAN,
    ),
    _case(
        "cap-inf-tc-records",
        "capacity",
        f"{BETWEEN} on consumer_records_per_s",
        "consumer_records_per_s = inf",
        consumer_records_per_s=INF,
    ),
    _case(
        "cap-neg-record-bytes",
        "capacity",
        f"{BETWEEN} on record_bytes",
        "record_bytes = -10.0",
        record_bytes=-10.0,
    ),
    _case("cap-null-source", "capacity", f"{NOT_NULL} on source", "source = None", source=None),
    _case(
        "cap-no-figure",
        "capacity",
        "unexpected_rows_expectation on capacity.has_figure",
        "every capacity row gives at least one of Tp or Tc",
        producer_mib_per_s=None,
        producer_records_per_s=None,
        consumer_mib_per_s=None,
        consumer_records_per_s=None,
    ),
    _case(
        "grp-empty-id",
        "groups",
        "expect_column_value_lengths_to_be_between on group_id",
        "group_id = ''",
        group_id="",
    ),
    _case("grp-null-id", "groups", f"{NOT_NULL} on group_id", "group_id = None", group_id=None),
    _case(
        "grp-null-strategy", "groups", f"{NOT_NULL} on strategy", "strategy = None", strategy=None
    ),
    _case(
        "grp-bad-strategy",
        "groups",
        "expect_column_values_to_be_in_set on strategy",
        "strategy = 'sticky-ish'",
        strategy="sticky-ish",
    ),
    _case("grp-null-members", "groups", f"{NOT_NULL} on members", "members = None", members=None),
    _case("grp-neg-members", "groups", f"{BETWEEN} on members", "members = -1", members=-1),
    _case(
        "key-bad-hex",
        "keys",
        "expect_column_values_to_match_regex on key_hex",
        "key_hex = 'zz'",
        key=None,
        key_hex="zz",
    ),
    _case("key-nan-count", "keys", f"{BETWEEN} on count", "count = nan", count=NAN),
    _case("key-null-count", "keys", f"{NOT_NULL} on count", "count = None", count=None),
    _case(
        "key-both",
        "keys",
        "unexpected_rows_expectation on keys.text_or_hex",
        "a key is given as text or as hex bytes, not both",
        key_hex="6b",
    ),
)
#: The group-level rule: one group, two strategies, two topics set aside.
MIXED = ("grp-mixed-a", "grp-mixed-b")
#: Rows that name no legal topic, by table: dropped and counted.
UNNAMED = {
    "throughput": [None, "..", "bad topic!"],
    "topics": [None, "bad topic!"],
    "capacity": [None, "."],
    "keys": ["bad topic!"],
}
BAD = tuple(c.topic for c in CASES) + MIXED


def _hours(day: date) -> list[datetime]:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return [start + timedelta(hours=h) for h in range(24)]


def _samples(topic: str, day: date, mib: float) -> list[dict[str, Any]]:
    return [
        {
            "topic": topic,
            "ts": ts,
            "bytes_in_per_s": mib * MIB * (1.0 + 0.3 * math.sin(h / 4)),
            "records_in_per_s": mib * MIB / 400.0,
            "bytes_out_per_s": 2 * mib * MIB,
            "source": "test",
        }
        for h, ts in enumerate(_hours(day))
    ]


def _table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    schema = TABLES[name].schema
    # Every column nullable: the figures reach the suites as a bypassed collector wrote them.
    loose = pa.schema([f.with_nullable(True) for f in schema], metadata=schema.metadata)
    table = pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], loose)
    return table


def _topic_row(topic: str) -> dict[str, Any]:
    return {
        "topic": topic,
        "partitions": 4,
        "replication_factor": 3,
        "keyed": topic.startswith("key-"),
        "partitioner": "murmur2_random",
        "retention_ms": 86_400_000,
        "source": "test",
    }


def tables(day: date) -> dict[str, pa.Table]:
    """One day's figures: throughput for every topic, the snapshot tables on the run day."""
    topics = (*GOOD, *BAD)
    throughput: list[dict[str, Any]] = []
    for i, topic in enumerate(topics):
        throughput += _samples(topic, day, 1.0 + i % 4)
    for topic in UNNAMED["throughput"]:
        throughput += _samples(topic, day, 1.0)[:2]  # type: ignore[arg-type]
    out = {"throughput": throughput}
    if day != RUN_DAY:
        return {"throughput": _table("throughput", throughput)}
    topic_rows = [_topic_row(t) for t in topics]
    topic_rows += [{**_topic_row("x"), "topic": t} for t in UNNAMED["topics"]]
    capacity = [
        {
            "topic": "*",
            "producer_mib_per_s": 10.0,
            "producer_records_per_s": 20_000.0,
            "consumer_mib_per_s": 4.0,
            "consumer_records_per_s": 8_000.0,
            "source": "perf:fleet",
        }
    ]
    capacity += [
        {"topic": t, "consumer_mib_per_s": 5.0, "source": "perf"} for t in UNNAMED["capacity"]
    ]
    groups = [
        {"group_id": "good-reader", "topic": "good-00", "strategy": "range", "members": 2},
        {"group_id": "multi-reader", "topic": "good-01", "strategy": "roundrobin", "members": 3},
        {
            "group_id": "multi-reader",
            "topic": "rf-too-many",
            "strategy": "roundrobin",
            "members": 3,
        },
        {"group_id": "mixed", "topic": MIXED[0], "strategy": "range", "members": 2},
        {"group_id": "mixed", "topic": MIXED[1], "strategy": "roundrobin", "members": 2},
    ]
    keys = [{"topic": t, "key": "k", "count": 1.0} for t in UNNAMED["keys"]]
    for case in CASES:
        if case.table == "throughput":
            row = next(r for r in throughput if r["topic"] == case.topic and r["ts"].hour == 5)
            row.update(case.change)
        elif case.table == "topics":
            next(r for r in topic_rows if r["topic"] == case.topic).update(case.change)
        elif case.table == "capacity":
            capacity.append(
                {
                    "topic": case.topic,
                    "producer_mib_per_s": 10.0,
                    "producer_records_per_s": 20_000.0,
                    "consumer_mib_per_s": 4.0,
                    "consumer_records_per_s": 8_000.0,
                    "record_bytes": 400.0,
                    "source": "perf",
                    **case.change,
                }
            )
        elif case.table == "groups":
            row = {"group_id": case.topic, "topic": case.topic, "strategy": "range", "members": 2}
            groups.append({**row, **case.change})
        else:
            good = [{"topic": case.topic, "key": f"k{i}", "count": 10.0 + i} for i in range(20)]
            good[3].update(case.change)
            keys += good
    for row in (*groups, *keys, *capacity, *topic_rows):
        row.setdefault("source", "test")
    out.update(
        topics=topic_rows,
        capacity=capacity,
        groups=groups,
        keys=keys,
        cluster=[{"broker_id": b, "rack": "r", "source": "test"} for b in (1, 2, 3)],
    )
    # The nulls of the cases above were set after setdefault: put them back.
    for case in CASES:
        if "source" in case.change and case.table in ("capacity",):
            next(r for r in capacity if r["topic"] == case.topic)["source"] = None
    return {name: _table(name, rows) for name, rows in out.items()}


def _write(root: Path, interval: DataInterval, figures: dict[str, pa.Table]) -> None:
    """An interval as `write_interval` lays it out, nulls in required columns and all
    (`write_interval` refuses them: it writes the canonical schema)."""
    folder = interval_path(root, interval)
    folder.mkdir(parents=True)
    for name, table in figures.items():
        if "topic" in table.column_names:
            order = [("topic", "ascending")] + (
                [("ts", "ascending")] if name == "throughput" else []
            )
            table = table.sort_by(order)
        pq.write_table(table, folder / f"{name}.parquet", row_group_size=64)
    manifest = {
        "interval": {"start": interval.start.isoformat(), "end": interval.end.isoformat()},
        "key": interval.key,
        "tables": {name: t.num_rows for name, t in figures.items()},
        "sources": ["test"],
        "written_at": datetime.now(UTC).isoformat(),
        "notes": {"kind": "test"},
    }
    (folder / MANIFEST).write_text(json.dumps(manifest))


def write_broken(root: Path) -> Path:
    """Write the fleet's figures under `root` (the run's day last); returns `root`."""
    for back in range(DAYS - 1, -1, -1):
        day = RUN_DAY - timedelta(days=back)
        _write(root, DataInterval.day(day), tables(day))
    return root
