"""The observation suites: what `partition-planner observe` recorded, before it is used.

The observations are the planner's own writing (`planner.observe`), so a failure here
means a bug, a file written by another version, or a dataset tampered with, not a bad
row of a fleet: any failure stops the collection from them, and nothing is written. One
suite per observation table, `<table>.observed`, checked on the rows an interval's
collection reads (`planner.collect.observations`), with GX's pandas engine: they hold no
query rules, and their tables are a collection's, not a fleet's sizing input.

Every row carries its sample's `ts`; each suite checks the columns are there, the row
key is unique, and each value is in its domain (counters and counts never negative, a
record read never more than the offsets read, a hash within 32 bits, a reservoir
record's weight and priority `weight / u` above zero, a topic's replicas in Kafka's
`--replica-assignment` syntax).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from expectations.rules import at_least, columns_present, not_null, topic_name, unique
from planner.observe.tables import TABLES

if TYPE_CHECKING:
    from great_expectations.expectations.expectation import Expectation

__all__ = ["OBSERVED", "ROW_KEYS", "observed_suite"]

#: The columns that identify a row of each observation table.
ROW_KEYS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "sample": ("ts",),
        "partitions": ("ts", "topic", "partition"),
        "topics": ("ts", "topic"),
        "brokers": ("ts", "broker_id"),
        "records": ("ts", "topic"),
        "groups": ("ts", "group_id"),
        "members": ("ts", "group_id", "member_id", "topic", "partition"),
        "committed": ("ts", "group_id", "topic", "partition"),
        # A reservoir row is a record, not a key: the same key may enter it twice.
        "keys": (),
    }
)
_PROTOCOLS = ("classic", "consumer", "share", "streams")


def _between(
    column: str, low: float | None, high: float | None, why: str, *, strict_low: bool = False
) -> Expectation:
    import great_expectations.expectations as gxe

    return gxe.ExpectColumnValuesToBeBetween(
        column=column,
        min_value=low,
        max_value=high,
        strict_min=strict_low,
        description=f"{column} {why}",
    )


def _replicas() -> list[Expectation]:
    # The figures' own rule for `topics.replicas`: the observer writes the text the
    # collection passes on unchanged, so it is held to the same syntax here.
    import great_expectations.expectations as gxe

    from planner.cross_zone import REPLICAS_PATTERN

    return [
        gxe.ExpectColumnValuesToMatchRegex(
            column="replicas",
            regex=REPLICAS_PATTERN,
            description="replicas is broker ids joined by ':' (leader first) per partition, "
            "partitions joined by ',' (null: not known)",
        )
    ]


def _domain(table: str) -> list[Expectation]:
    import great_expectations.expectations as gxe

    if table == "sample":
        return [
            _between("took_s", 0, None, "is zero or more seconds"),
            _between("every_s", 0, None, "is a period in seconds"),
            _between("topics", 0, None, "counts topics"),
            _between("partitions", 0, None, "counts partitions"),
        ]
    if table == "partitions":
        return [
            *topic_name(),
            at_least("partition", 0),
            at_least("end_offset", 0, why="an end offset (null: not read)"),
            at_least("leader", -1, why="a broker id, or -1 for none"),
        ]
    if table == "topics":
        return [
            *topic_name(),
            at_least("partitions", 1),
            at_least("replication_factor", 1),
            at_least("retention_ms", 0, why="retention.ms (null: unlimited or unknown)"),
            *_replicas(),
        ]
    if table == "brokers":
        return [at_least("broker_id", 0)]
    if table == "records":
        counts = ("records_read", "bytes_read", "keyed_read", "offsets_read")
        return [
            *topic_name(),
            *(at_least(c, 0) for c in counts),
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(
                column_A="offsets_read",
                column_B="records_read",
                or_equal=True,
                description="no more records read than the offsets the reads covered",
            ),
            gxe.ExpectColumnPairValuesAToBeGreaterThanB(
                column_A="records_read",
                column_B="keyed_read",
                or_equal=True,
                description="no more keyed records than records read",
            ),
        ]
    if table == "groups":
        return [
            not_null("group_id"),
            at_least("members", 0),
            gxe.ExpectColumnValuesToBeInSet(
                column="protocol",
                value_set=list(_PROTOCOLS),
                description=f"protocol is one of {', '.join(_PROTOCOLS)}",
            ),
        ]
    if table == "members":
        return [not_null("group_id"), at_least("partition", 0)]
    if table == "committed":
        return [*topic_name(), at_least("partition", 0), at_least("offset", 0)]
    if table == "keys":
        hashes = ("murmur2", "crc32", "fnv1a")
        return [
            *topic_name(),
            *(at_least(h, 0, maximum=0xFFFFFFFF, why="a 32-bit hash") for h in hashes),
            _between("weight", 0.0, None, "counts records produced: above zero", strict_low=True),
            _between("priority", 0.0, None, "is weight / u: above zero", strict_low=True),
        ]
    raise KeyError(table)


def observed_suite(table: str) -> list[Expectation]:
    """`<table>.observed`: the columns there, one row per key, each value in its domain."""
    key = ROW_KEYS[table]
    return [
        columns_present(TABLES[table].names),
        not_null("ts"),
        *([unique(key)] if key else []),
        *_domain(table),
    ]


def _builder(table: str) -> Callable[[], list[Expectation]]:
    def build() -> list[Expectation]:
        return observed_suite(table)

    build.__doc__ = (
        f"`{table}.observed`: the observations' {table} rows, one per "
        f"({', '.join(ROW_KEYS[table]) or 'record'}), each value in its domain."
    )
    return build


#: Suite name -> (the observation table, its builder).
OBSERVED: Mapping[str, tuple[str, Callable[[], list[Expectation]]]] = MappingProxyType(
    {f"{t}.observed": (t, _builder(t)) for t in TABLES}
)
