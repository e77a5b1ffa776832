"""The observations dataset's tables: what one sample of a live cluster records.

`partition-planner observe` samples the cluster every `observe_every_s` and appends one
*sample* to the observations dataset (`planner.observe.dataset`). A sample is a set of
small tables, each row stamped with the sample's `ts` (the middle of its end-offset
read, UTC):

- `sample`: one row, the sample itself: when, how long it took, what could be read.
  Its presence is what makes the other tables of the sample count (they are written
  together and renamed into place at once, see the dataset).
- `partitions`: every partition's end offset (high watermark) and leader. Offsets are
  cumulative, so the records produced between any two samples are their difference,
  whatever happened in between (an observer down for an hour loses time resolution,
  not records).
- `topics`, `brokers`: the cluster's shape as it was at `ts`: a topic's replicas (leader
  first) and the brokers' racks are what the cross-zone figure places fetches with.
- `records`: per topic, what a bounded read of the records appended since the previous
  sample found: how many records, their key + value + header bytes, how many carried a
  key, how many offsets the reads covered (records and transaction markers).
- `groups`, `members`, `committed`: every consumer group as described at `ts`, each
  member's assignment, and each group's committed offset per partition.
- `keys`: entries of the day's key reservoir (a bounded, weighted sample of the keyed
  records produced): the key's hashes as each partitioner computes them, never the key,
  and the record's weight and priority.

Row timestamps are UTC microseconds, like the figures dataset's.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

import pyarrow as pa

from planner.figures.schema import TIMESTAMP

__all__ = ["SAMPLE_TABLE", "TABLES", "empty_table", "sample_rows"]

_TS = pa.field("ts", TIMESTAMP, nullable=False)

TABLES: Mapping[str, pa.Schema] = MappingProxyType(
    {
        "sample": pa.schema(
            [
                _TS,
                pa.field("observer", pa.string()),  # host and process id of the observer
                pa.field("bootstrap", pa.string()),
                pa.field("took_s", pa.float64()),  # wall time the sample took
                pa.field("every_s", pa.float64()),  # the observer's sampling period
                pa.field("previous_ts", TIMESTAMP),  # this observer's sample before, if any
                pa.field("topics", pa.int32()),
                pa.field("partitions", pa.int32()),
                pa.field("groups_read", pa.bool_()),  # classic and consumer groups described
                pa.field("tools_read", pa.bool_()),  # share and streams groups described
                pa.field("notes", pa.string()),  # what could not be read, one per line
            ]
        ),
        "partitions": pa.schema(
            [
                _TS,
                pa.field("topic", pa.string(), nullable=False),
                pa.field("partition", pa.int32(), nullable=False),
                pa.field("end_offset", pa.int64()),  # null: unreadable (no leader, error)
                pa.field("leader", pa.int32()),  # -1: none
            ]
        ),
        "topics": pa.schema(
            [
                _TS,
                pa.field("topic", pa.string(), nullable=False),
                pa.field("partitions", pa.int32(), nullable=False),
                pa.field("replication_factor", pa.int32(), nullable=False),
                pa.field("retention_ms", pa.int64()),  # null: unlimited or unknown
                # Each partition's replicas, current leader first, as the Kafka admin
                # collector writes `topics.replicas`; null: a partition without a leader,
                # replica counts that differ (a reassignment), or written before the column.
                pa.field("replicas", pa.string()),
            ]
        ),
        "brokers": pa.schema(
            [
                _TS,
                pa.field("broker_id", pa.int32(), nullable=False),
                pa.field("rack", pa.string()),
                pa.field("live", pa.bool_()),
            ]
        ),
        "records": pa.schema(
            [
                _TS,
                pa.field("topic", pa.string(), nullable=False),
                pa.field("window_start", TIMESTAMP),  # the sample the read starts from
                pa.field("records_read", pa.int64()),
                pa.field("bytes_read", pa.int64()),  # key + value + header bytes
                pa.field("keyed_read", pa.int64()),  # records read that carried a key
                pa.field("offsets_read", pa.int64()),  # offsets covered: records + markers
                pa.field("partitions_grown", pa.int32()),
                pa.field("partitions_read", pa.int32()),
                pa.field("error", pa.string()),
            ]
        ),
        "groups": pa.schema(
            [
                _TS,
                pa.field("group_id", pa.string(), nullable=False),
                pa.field("protocol", pa.string()),  # classic, consumer, share, streams
                pa.field("assignor", pa.string()),
                pa.field("state", pa.string()),
                pa.field("members", pa.int32()),
                pa.field("simple", pa.bool_()),  # members assign partitions themselves
            ]
        ),
        "members": pa.schema(
            [
                _TS,
                pa.field("group_id", pa.string(), nullable=False),
                pa.field("member_id", pa.string(), nullable=False),
                pa.field("client_id", pa.string()),
                pa.field("topic", pa.string()),  # null: a member that owns nothing
                pa.field("partition", pa.int32()),
            ]
        ),
        "committed": pa.schema(
            [
                _TS,
                pa.field("group_id", pa.string(), nullable=False),
                pa.field("topic", pa.string(), nullable=False),
                pa.field("partition", pa.int32(), nullable=False),
                pa.field("offset", pa.int64(), nullable=False),
            ]
        ),
        "keys": pa.schema(
            [
                _TS,
                pa.field("topic", pa.string(), nullable=False),
                pa.field("day", pa.date32(), nullable=False),  # the reservoir's UTC day
                # g(key) as each partitioner takes its modulo (planner.partitioners.KeyHashes)
                pa.field("murmur2", pa.uint32(), nullable=False),
                pa.field("crc32", pa.uint32(), nullable=False),
                pa.field("fnv1a", pa.uint32(), nullable=False),
                pa.field("empty", pa.bool_(), nullable=False),  # a zero-length key
                # records produced this one stands for, and weight / u (planner.observe.reservoir)
                pa.field("weight", pa.float64(), nullable=False),
                pa.field("priority", pa.float64(), nullable=False),
            ]
        ),
    }
)
"""Every table of a sample and its schema."""

SAMPLE_TABLE = "sample"


def empty_table(name: str) -> pa.Table:
    """An empty table `name` with its schema."""
    return TABLES[name].empty_table()


def sample_rows(name: str, ts: datetime, **columns: list[Any]) -> pa.Table:
    """Table `name` of the sample taken at `ts`: `columns`, every row stamped `ts`.

    Columns not given are null; the `ts` column is filled in.
    """
    schema = TABLES[name]
    rows = len(next(iter(columns.values()))) if columns else 0
    arrays = []
    for f in schema:
        if f.name == "ts":
            arrays.append(pa.array([ts] * rows, TIMESTAMP))
        elif f.name in columns:
            arrays.append(pa.array(columns[f.name], f.type))
        else:
            arrays.append(pa.nulls(rows, f.type))
    return pa.Table.from_arrays(arrays, schema=schema)
