"""The canonical figures dataset: its tables, columns, types and units.

Every source (landing files, perf-tool output, Prometheus, the Kafka admin API) produces
these tables and nothing else; the Spark jobs and the expectation suites read them. The
layout on disk is in `planner.figures.dataset`, the full description in `docs/figures.md`.

Rates are per second. Byte rates are bytes (`bytes_*_per_s`), capacities are MiB
(`*_mib_per_s`, the unit Kafka's perf tools print), timestamps are UTC.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pyarrow as pa

from planner.choices import DEFAULT_PARTITIONER

__all__ = [
    "BYTE_UNITS",
    "REJECTED",
    "SNAPSHOT_TABLES",
    "TABLES",
    "TIMESTAMP",
    "Column",
    "Table",
]

TIMESTAMP = pa.timestamp("us", tz="UTC")

# Byte-rate units a landing file may declare in a `unit` column (bytes per unit).
BYTE_UNITS: Mapping[str, float] = {
    "B/s": 1.0,
    "KiB/s": 1024.0,
    "MiB/s": 1024.0**2,
    "GiB/s": 1024.0**3,
    "kB/s": 1000.0,
    "KB/s": 1000.0,
    "MB/s": 1000.0**2,
    "GB/s": 1000.0**3,
}


@dataclass(frozen=True)
class Column:
    """One column of a figures table.

    Attributes:
        name: Column name.
        type: Arrow type on disk.
        required: A source must provide it (an optional column may be absent or null).
        check: The domain rule a value must meet: `topic` (Kafka's name rule), `rate`
            (finite, >= 0), `positive` (finite, > 0), `count` (whole, >= 1), `whole`
            (whole, >= 0), `share` (finite, 0 to 1), `hash32` (whole, 0 to 2^32 - 1),
            `partitioner`, `strategy`, `protocol`, `hex`, `capacity_source`, `lag_trend`,
            `replicas` (`planner.cross_zone.replica_lists`), `racks`
            (`planner.cross_zone.client_racks`), or "" for none.
        doc: What it means, with its unit.
        may_be_empty: A required column whose value may still be empty, where empty
            says something (a topic's `partitions`: not created yet). A source must
            provide the column, so a missing column is still an error.
    """

    name: str
    type: pa.DataType
    required: bool
    check: str
    doc: str
    may_be_empty: bool = False

    @property
    def nullable(self) -> bool:
        """Whether a row may leave it null."""
        return not self.required or self.may_be_empty


@dataclass(frozen=True)
class Table:
    """One table of the figures dataset.

    Attributes:
        name: Table name (also its file name in an interval folder).
        columns: Its columns, in order.
        key: Columns whose values must be unique together; later duplicates are rejected.
        doc: What a row is.
    """

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    doc: str

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of the table on disk (every column, optional ones nullable)."""
        return pa.schema([pa.field(c.name, c.type, nullable=c.nullable) for c in self.columns])

    @property
    def required(self) -> tuple[str, ...]:
        """Names of the columns a source must provide."""
        return tuple(c.name for c in self.columns if c.required)

    def column(self, name: str) -> Column:
        """The column called `name`."""
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)


def _c(
    name: str,
    type_: pa.DataType,
    check: str,
    doc: str,
    *,
    required: bool = True,
    may_be_empty: bool = False,
) -> Column:
    return Column(name, type_, required, check, doc, may_be_empty)


_SOURCE = _c("source", pa.string(), "", "where the row came from (adapter and file or URL)")

THROUGHPUT = Table(
    "throughput",
    (
        _c("topic", pa.string(), "topic", "topic name"),
        _c("ts", TIMESTAMP, "", "start of the sample, UTC"),
        _c("bytes_in_per_s", pa.float64(), "rate", "bytes/s produced to the topic"),
        _c("records_in_per_s", pa.float64(), "rate", "records/s produced to the topic"),
        _c(
            "bytes_out_per_s",
            pa.float64(),
            "rate",
            "bytes/s fetched by consumers, all groups together (fan-out)",
            required=False,
        ),
        _SOURCE,
        _c(
            "busiest_group_bytes_out_per_s",
            pa.float64(),
            "rate",
            "bytes/s read by the consumer group that read the most in the sample (from "
            "observations: its committed offsets' advance, catch-up beyond production left "
            "out); planned as one group's read rate instead of bytes_out_per_s / groups",
            required=False,
        ),
    ),
    ("topic", "ts"),
    "one rate sample of one topic",
)

TOPICS = Table(
    "topics",
    (
        _c("topic", pa.string(), "topic", "topic name"),
        _c(
            "partitions",
            pa.int32(),
            "count",
            "current partition count; empty for a topic not created yet (planned as new)",
            may_be_empty=True,
        ),
        _c("replication_factor", pa.int32(), "count", "replicas per partition"),
        _c("keyed", pa.bool_(), "", "producers set a key and rely on per-key order"),
        _c(
            "partitioner",
            pa.string(),
            "partitioner",
            f"producers' partitioner, librdkafka names (default {DEFAULT_PARTITIONER})",
            required=False,
        ),
        _c("retention_ms", pa.int64(), "whole", "retention.ms of the topic", required=False),
        _c("source", pa.string(), "", _SOURCE.doc, required=False),
        _c(
            "observed_share",
            pa.float64(),
            "share",
            "the share of the interval the observations cover for the topic (0 to 1); "
            "empty when its figures are not observations",
            required=False,
        ),
        # Optional and last: datasets and landing files without it read it as null.
        _c(
            "replicas",
            pa.string(),
            "replicas",
            "each partition's replicas, leader first, in Kafka's --replica-assignment "
            "syntax (partitions joined by ',', broker ids by ':'; e.g. 1:2:3,2:3:1); for "
            "the cross-zone figure (planner.cross_zone)",
            required=False,
        ),
    ),
    ("topic",),
    "one topic as it is today",
)

CAPACITY = Table(
    "capacity",
    (
        _c("topic", pa.string(), "topic_or_default", "topic name, or * for the default"),
        _c(
            "producer_mib_per_s",
            pa.float64(),
            "positive",
            "Tp: MiB/s one producer reaches on one partition",
            required=False,
        ),
        _c(
            "producer_records_per_s",
            pa.float64(),
            "positive",
            "Tp in records/s",
            required=False,
        ),
        _c(
            "consumer_mib_per_s",
            pa.float64(),
            "positive",
            "Tc: MiB/s one consumer processes from one partition",
            required=False,
        ),
        _c(
            "consumer_records_per_s",
            pa.float64(),
            "positive",
            "Tc in records/s",
            required=False,
        ),
        _c(
            "share_fetch_mib_per_s",
            pa.float64(),
            "positive",
            "MiB/s the members of one share group (KIP-932) read from one partition "
            "together: the broker's share-fetch throughput; not used in sizing yet",
            required=False,
        ),
        _c(
            "share_fetch_records_per_s",
            pa.float64(),
            "positive",
            "the share-fetch throughput in records/s",
            required=False,
        ),
        _c("record_bytes", pa.float64(), "positive", "record size measured", required=False),
        _SOURCE,
        _c("measured_at", TIMESTAMP, "", "when it was measured, UTC", required=False),
        # Last, and optional: a dataset written before it reads it as null (a topic row).
        _c(
            "group_id",
            pa.string(),
            "",
            "a consumer group: the row gives that group's own Tc on the topic "
            "(consumer_records_per_s, `given`, which wins over a learned one); empty for the "
            "topic's (or *'s) Tp and Tc",
            required=False,
        ),
    ),
    ("topic", "group_id"),
    "single-partition capacities (Tp, Tc, share-fetch) of a topic, or one group's Tc on it",
)

GROUPS = Table(
    "groups",
    (
        _c("group_id", pa.string(), "nonempty", "consumer group id"),
        _c("topic", pa.string(), "topic", "a topic the group subscribes to"),
        _c(
            "strategy",
            pa.string(),
            "strategy",
            "the group's assignor as the broker names it (planner.protocols.GROUP_STRATEGIES)",
        ),
        _c("members", pa.int32(), "whole", "current member count"),
        _c(
            "protocol",
            pa.string(),
            "protocol",
            "group protocol: classic (the default when absent), consumer (KIP-848), "
            "share (KIP-932) or streams (KIP-1071)",
            required=False,
        ),
        _c("source", pa.string(), "", _SOURCE.doc, required=False),
        # A group's own capacity and lag on the topic (planner.group_capacity); optional,
        # so landing files and datasets written before them read them as null.
        _c(
            "consumer_records_per_s",
            pa.float64(),
            "positive",
            "Tc_g: records/s one member of the group processes from the topic (a lower "
            "bound when capacity_source is lower-bound); empty when nothing was learned or "
            "given, and the topic's Tc applies",
            required=False,
        ),
        _c(
            "capacity_source",
            pa.string(),
            "capacity_source",
            "how Tc_g is known: given, saturation, busy-fraction, lower-bound or "
            "topic-default (nothing of the group's own; consumer_records_per_s empty)",
            required=False,
        ),
        _c(
            "capacity_evidence",
            pa.string(),
            "",
            "the windows and facts Tc_g rests on, in a sentence",
            required=False,
        ),
        _c(
            "lag_records",
            pa.int64(),
            "whole",
            "the group's lag on the topic at the interval's end: records between its "
            "committed offsets and the end offsets, summed over the partitions",
            required=False,
        ),
        _c(
            "lag_seconds",
            pa.float64(),
            "rate",
            "the time lag: age (s) of the oldest record not yet consumed, the largest over "
            "the partitions; empty when the end offsets' history does not reach back to it",
            required=False,
        ),
        _c(
            "lag_trend",
            pa.string(),
            "lag_trend",
            "growing, steady or shrinking over the interval, beyond the noise of commits",
            required=False,
        ),
        _c(
            "stream_threads",
            pa.int32(),
            "count",
            "for a Kafka Streams application: the stream threads each instance runs "
            "(num.stream.threads), given or read from its members' client ids; empty: "
            "not known, or not a Kafka Streams application",
            required=False,
        ),
        _c(
            "client_rack",
            pa.string(),
            "racks",
            "the members' client.rack: one rack for all, or several joined by ',' that "
            "the members take in turn (member-id order); empty: not known",
            required=False,
        ),
        # Last, and optional: datasets and landing files without it read it as null.
        _c(
            "standby_replicas",
            pa.int32(),
            "whole",
            "for a Kafka Streams application: its standby replicas per stateful task, "
            "given (streams protocol: the group config streams.num.standby.replicas; "
            "classic: the client's num.standby.replicas; Kafka's default is 0); empty: "
            "not given",
            required=False,
        ),
    ),
    ("group_id", "topic"),
    "one subscription of one consumer group, with its own capacity and lag where known",
)

KEYS = Table(
    "keys",
    (
        _c("topic", pa.string(), "topic", "topic name"),
        _c("key", pa.string(), "", "the key as UTF-8 text", required=False),
        _c("key_hex", pa.string(), "hex", "the key's bytes, hex (binary keys)", required=False),
        _c("count", pa.float64(), "rate", "records (or bytes) seen with this key"),
        _c("source", pa.string(), "", _SOURCE.doc, required=False),
        *(
            _c(
                f"hash_{name}",
                pa.int64(),
                "hash32",
                f"a key known only by its hashes (a live cluster's sample): {doc}",
                required=False,
            )
            for name, doc in (
                ("murmur2", "the Java client's toPositive(murmur2(key))"),
                ("crc32", "librdkafka's crc32(key), unsigned"),
                ("fnv1a", "the sign-folded FNV-1a of Sarama and librdkafka"),
            )
        ),
        _c(
            "key_empty",
            pa.bool_(),
            "",
            "with the hashes: whether the key has zero bytes (consistent_random spreads it)",
            required=False,
        ),
    ),
    ("topic", "key", "key_hex", "hash_murmur2", "hash_crc32", "hash_fnv1a"),
    "how often one key was seen on a keyed topic",
)

CLUSTER = Table(
    "cluster",
    (
        _c("broker_id", pa.int32(), "whole", "broker (node) id"),
        _c("rack", pa.string(), "", "broker.rack", required=False),
        _c(
            "live",
            pa.bool_(),
            "",
            "false: a broker that replicas name but the cluster no longer lists (down); "
            "empty: not known, taken as up",
            required=False,
        ),
        _c("source", pa.string(), "", _SOURCE.doc, required=False),
    ),
    ("broker_id",),
    "one broker of the cluster, up or down",
)

REJECTED = Table(
    "rejected",
    (
        _c("table", pa.string(), "", "the table the row was meant for"),
        _c("source", pa.string(), "", "adapter and file or URL"),
        _c("row", pa.int64(), "", "row number in the file (1 = first data row)", required=False),
        _c("field", pa.string(), "", "the offending field", required=False),
        _c("value", pa.string(), "", "the offending value, as text", required=False),
        _c("reason", pa.string(), "", "why the row was rejected"),
        # Last, and optional: intervals written before it was added read it as null.
        _c(
            "topic",
            pa.string(),
            "",
            "the row's topic as given, when its table has one",
            required=False,
        ),
    ),
    (),
    "one input row that did not meet the rules, and why",
)

TABLES: Mapping[str, Table] = {
    t.name: t for t in (THROUGHPUT, TOPICS, CAPACITY, GROUPS, KEYS, CLUSTER)
}
SNAPSHOT_TABLES = ("topics", "capacity", "groups", "keys", "cluster")
