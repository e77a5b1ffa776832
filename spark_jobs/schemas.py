"""Explicit Spark schemas: the figures the jobs read and the three datasets they write.

Inputs are converted from the canonical Arrow schemas in `planner.figures.schema`, so the
jobs and the collectors can never disagree on a column. Outputs are spelled out here
once, and `docs/spark-jobs.md` describes every column with its unit.

Units in the outputs: `mib_in_*` and `mib_out_*` rates are MiB/s (`mib_out` is the read
rate of one consuming group), `records_in_*` rates are records/s, Tp and Tc are per
partition, and simulated loads are in consumers (1.0 = one consumer's whole capacity Tc,
the tightest of MiB/s and records/s).
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any

import pyarrow as pa
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    DataType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from planner import cost as cost_fields
from planner.cost import PartitionCost
from planner.figures.schema import TABLES

__all__ = [
    "CANDIDATE",
    "CONSUMER_CAPACITY",
    "COST_FIELDS",
    "CROSS_ZONE",
    "DIMENSIONS",
    "GROUP_LAG",
    "GROUP_PLAN",
    "GROUP_RESULT",
    "HOT_KEY",
    "NOTE",
    "PARTITION_LOADS",
    "RECOMMENDATIONS",
    "SIMULATIONS",
    "SIZING",
    "STANDBYS",
    "arrow_schema",
    "figures_schema",
    "relaxed",
]

#: Planner dimensions, in the core's order, and the unit of their rates.
DIMENSIONS: tuple[str, ...] = ("mib_in", "records_in", "mib_out")
DIMENSION_UNITS = {"mib_in": "MiB/s", "records_in": "records/s", "mib_out": "MiB/s per group"}

_ARROW_TO_SPARK: dict[pa.DataType, DataType] = {
    pa.string(): StringType(),
    pa.float64(): DoubleType(),
    pa.int32(): IntegerType(),
    pa.int64(): LongType(),
    pa.bool_(): BooleanType(),
    pa.binary(): BinaryType(),
}


def figures_schema(table: str) -> StructType:
    """The Spark schema of a canonical figures table (`throughput`, `topics`, ...).

    Raises:
        KeyError: an unknown table.
        TypeError: a column type with no Spark counterpart here (a schema change that
            must be looked at, not guessed).
    """
    fields = []
    for field in TABLES[table].schema:
        if pa.types.is_timestamp(field.type):
            if field.type.tz != "UTC":
                raise TypeError(f"{table}.{field.name}: timestamps must be UTC, got {field.type}")
            spark_type: DataType = TimestampType()
        else:
            try:
                spark_type = _ARROW_TO_SPARK[field.type]
            except KeyError:
                raise TypeError(f"{table}.{field.name}: no Spark type for {field.type}") from None
        fields.append(StructField(field.name, spark_type, nullable=field.nullable))
    return StructType(fields)


def _f(name: str, data_type: DataType, nullable: bool = True) -> StructField:
    return StructField(name, data_type, nullable=nullable)


_S, _D, _I, _L, _B = StringType(), DoubleType(), IntegerType(), LongType(), BooleanType()
_TEXTS = ArrayType(_S, containsNull=False)
#: A warning or note in its coded form (`planner.notes.Note.as_row`): `params` is the
#: parameters as JSON text; `text` the sentence also in the `warnings`/`notes` beside.
NOTE = StructType(
    [
        _f("code", _S, False),
        _f("severity", _S, False),
        _f("params", _S, False),
        _f("text", _S, False),
    ]
)
_NOTES = ArrayType(NOTE, containsNull=False)

#: Spark types of the cost panel's figures where a whole number may pass 2^31 (bytes, and
#: file handles summed over a broker's replicas); the others follow their Python type.
_WIDE_COST_FIELDS = frozenset({"producer_batch_memory_bytes", "file_handles_per_broker"})


def _cost_type(name: str) -> Any:
    kind = {f.name: f.type for f in fields(PartitionCost)}[name]
    if "float" in str(kind):
        return _D
    return _L if name in _WIDE_COST_FIELDS else _I


#: The cost panel of one partition count (`planner.cost.PartitionCost`), without warnings.
COST_FIELDS: tuple[StructField, ...] = tuple(
    _f(name, _cost_type(name)) for name in cost_fields.COST_FIELDS
)

#: One candidate partition count, why it is a candidate, and what it costs.
CANDIDATE = StructType(
    [
        _f("partitions", _I, False),
        _f("is_current", _B, False),
        _f("is_required_now", _B, False),
        _f("is_required", _B, False),
        _f("is_recommended", _B, False),
        _f("considered", _B, False),
        _f("simulated", _B, False),
        _f("even_group_sizes", ArrayType(_I, containsNull=False)),
        *COST_FIELDS,
        _f("cost_warnings", _TEXTS),
    ]
)

#: A key above one partition's capacity by itself.
HOT_KEY = StructType(
    [
        _f("key", _S),
        _f("key_hex", _S),
        _f("share", _D, False),
        _f("partitions_worth", _D, False),
        # g(key) under the topic's partitioner, for a key known only by its hashes.
        _f("hash", _L),
    ]
)

#: A keyed topic's load on each partition at one simulated count, from its key sample.
PARTITION_LOADS = StructType(
    [
        _f("partitions", _I, False),
        _f("loads", ArrayType(_D, containsNull=False)),
    ]
)

#: One member's capacity as a group's plan states it (`planner.recommend.ConsumerCapacity`):
#: records/s, MiB/s at the topic's mean record size (null when unknown), the source
#: (`planner.group_capacity.CAPACITY_SOURCES`) and the evidence in a sentence.
CONSUMER_CAPACITY = StructType(
    [
        _f("records_per_s", _D),
        _f("mib_per_s", _D),
        # Nullable: a null struct's children are null in Arrow.
        _f("source", _S),
        _f("evidence", _S),
        # What today's load would need at the topic's Tc (null: the same Tc).
        _f("members_now_at_topic_tc", _I),
    ]
)
#: A group's observed lag (`planner.recommend.GroupLag`): records, seconds, trend.
GROUP_LAG = StructType([_f("records", _D), _f("seconds", _D), _f("trend", _S)])

#: A broker and its `broker.rack` (null: none set).
BROKER_RACK = StructType([_f("broker_id", _I), _f("rack", _S)])
#: Bytes per day by zone (`planner.cross_zone.ZoneSplit`).
ZONE_SPLIT = StructType(
    [
        _f("same_zone_bytes_per_day", _D),
        _f("cross_zone_bytes_per_day", _D),
        _f("unknown_bytes_per_day", _D),
    ]
)
#: A group's fetches by zone under its planned assignment (`planner.cross_zone.cross_zone_record`):
#: every child nullable, as Arrow reads the children of a null struct.
CROSS_ZONE = StructType(
    [
        _f("bytes_per_day", _D),
        _f("from_leaders", ZONE_SPLIT),
        _f("follower_fetching", ZONE_SPLIT),
        # The configured price per GiB and the costs at it; null without a price.
        _f("price_per_gib", _D),
        _f("leader_cost_per_day", _D),
        _f("follower_cost_per_day", _D),
        _f(
            "evidence",
            StructType(
                [
                    _f("brokers", ArrayType(BROKER_RACK, containsNull=False)),
                    _f(
                        "replicas",
                        ArrayType(
                            StructType([_f("topic", _S), _f("partitions", _I), _f("replicas", _S)]),
                            containsNull=False,
                        ),
                    ),
                    _f("member_racks", _TEXTS),
                    _f("members", _I),
                    _f("strategy", _S),
                    _f("new_partitions", _I),
                ]
            ),
        ),
        _f("advice", _NOTES),
    ]
)

#: A Kafka Streams application's standbys and what they cost (`planner.standbys.standby_record`):
#: each figure with its evidence (given, observed, bound, unknown).
STANDBYS = StructType(
    [
        _f("standby_replicas", _I),
        _f("standby_replicas_evidence", _S),
        _f("config", _S),
        _f(
            "changelog_topics",
            ArrayType(
                StructType(
                    [
                        _f("topic", _S),
                        _f("partitions", _I),
                        _f("bytes_in_per_s", _D),
                        _f("samples", _I),
                    ]
                ),
                containsNull=False,
            ),
        ),
        _f("stateful_tasks_min", _I),
        _f("stateful_tasks_max", _I),
        _f("stateful_tasks_evidence", _S),
        _f("standby_tasks_min", _I),
        _f("standby_tasks_max", _I),
        _f("changelog_bytes_in_per_s", _D),
        _f("changelog_evidence", _S),
        _f("standby_read_bytes_per_s", _D),
        _f("state_bytes", _D),
        _f("standby_state_bytes", _D),
        _f("state_evidence", _S),
        _f("min_instances", _I),
    ]
)

#: The plan of one consumer group reading the topic.
GROUP_PLAN = StructType(
    [
        _f("group_id", _S, False),
        _f("topics", _TEXTS),
        _f("current_strategy", _S),
        _f("strategy", _S),
        # The group's protocol (`planner.protocols.PROTOCOLS`); both strategies are
        # assignors of it, as the broker names them.
        _f("protocol", _S),
        # The simulation's strategy key the plan used (`planner.simulate.strategies`):
        # the assignor's own, or for Kafka Streams the classic one that cuts its tasks
        # alike; null for a group without a plan.
        _f("planned_as", _S),
        _f("current_members", _I),
        _f("recommended_members", _I),
        _f("members_now", _I),
        _f("members_at_horizon", _I),
        _f("busiest_utilisation", _D),
        _f("idle_members_now", _I),
        _f("standby_members", _I),
        _f("fits", _B),
        _f("status", _S, False),
        _f("notes", _TEXTS),
        _f("notes_coded", _NOTES),
        # The Tc the group's members were sized with (`planner.recommend.consumer_capacity`):
        # its own Tc_g, or the topic's (`topic-default`); null for a group of several
        # topics (a Tc per topic) or without a plan.
        _f("consumer_capacity", CONSUMER_CAPACITY),
        # Its lag on the topic at the figures' interval end; null where not observed.
        _f("lag", GROUP_LAG),
        # Its fetches by zone; null where brokers' racks or replica lists are unknown.
        _f("cross_zone", CROSS_ZONE),
        # A Kafka Streams application's standbys, planned on one topic; null otherwise.
        _f("standbys", STANDBYS),
    ]
)


def _dimension_fields() -> list[StructField]:
    fields: list[StructField] = []
    for dim in DIMENSIONS:
        fields += [
            _f(f"{dim}_peak_per_s", _D),
            _f(f"{dim}_growth_per_year", _D),
            _f(f"{dim}_growth_source", _S),
            _f(f"{dim}_growth_factor", _D),
            _f(f"{dim}_grown_per_s", _D),
            _f(f"{dim}_target_per_s", _D),
            _f(f"{dim}_producer_partitions", _I),
            _f(f"{dim}_consumer_partitions", _I),
            _f(f"{dim}_consumer_capacity", _D),
            _f(f"{dim}_required_partitions", _I),
            _f(f"{dim}_side", _S),
        ]
    return fields


_TOPIC_FIELDS: list[StructField] = [
    _f("run", _S, False),
    _f("topic", _S, False),
    _f("status", _S, False),
    _f("status_detail", _S),
    _f("current_partitions", _I),
    _f("replication_factor", _I),
    _f("keyed", _B),
    _f("partitioner", _S),
    _f("retention_ms", _L),
    _f("brokers", _I, False),
    _f("consuming_groups", _I, False),
    _f("samples", _L, False),
    _f("history_days", _I, False),
    _f("tp_mib_per_s", _D),
    _f("tp_records_per_s", _D),
    _f("tc_mib_per_s", _D),
    _f("tc_records_per_s", _D),
    _f("tp_source", _S),
    _f("tc_source", _S),
    _f("tp_measured_by", _S),
    _f("tc_measured_by", _S),
    # The topic's Tc in records/s that groups' own Tc are compared with (`TopicPlan.
    # topic_tc_records_per_s`): what multi-topic groups are scaled against.
    _f("topic_tc_records_per_s", _D),
    *_dimension_fields(),
    _f("rule_partitions", _I),
    _f("skew_partitions", _I),
    # Share groups (KIP-932) among the readers, and the share model's requirement
    # (`TopicPlan.share`: its largest bound and which); when every reader is a share
    # group, the requirement is the share model's, not the rule's.
    _f("share_groups", _I),
    _f("share_partitions", _I),
    _f("share_bound", _S),
    _f("required_partitions_now", _I),
    _f("required_partitions", _I),
    _f("recommended_partitions", _I),
    _f("over_provision", _I),
    _f("deciding_dimension", _S),
    _f("deciding_side", _S),
    _f("choice_reason", _S),
    _f("skipped_dimensions", _TEXTS),
    _f("consumers_now", _D),
    _f("consumers_at_horizon", _D),
    _f("key_sample_keys", _L),
    _f("busiest_partition_share", _D),
    _f("hot_key_share", _D),
    _f("hot_keys", ArrayType(HOT_KEY, containsNull=False)),
    _f("partition_loads", ArrayType(PARTITION_LOADS, containsNull=False)),
    *(_f(f"cost_{f.name}", f.dataType) for f in COST_FIELDS),
    _f("cost_warnings", _TEXTS),
    _f("candidates", ArrayType(CANDIDATE, containsNull=False)),
    # What a multi-topic group's cross-zone figure needs of each topic it reads
    # (`planner.recommend.cross_zone.topic_zones`): the replicas text (leader first), the
    # racks of the brokers it names, and what one group reads of the topic a day.
    _f("replicas", _S),
    _f("broker_racks", ArrayType(BROKER_RACK, containsNull=False)),
    _f("group_read_bytes_per_day", _D),
]

_PLAN_FIELDS: list[StructField] = [
    _f("one_group_members", _I),
    _f("one_group_strategy", _S),
    _f("one_group_standby", _I),
    _f("groups", ArrayType(GROUP_PLAN, containsNull=False)),
    _f("warnings", _TEXTS),
    _f("warnings_coded", _NOTES),
    _f("rationale", _TEXTS),
    # Other group protocols for the topic's classic groups, with numbers
    # (`TopicPlan.alternatives`), as sentences and in their coded form.
    _f("alternatives", _TEXTS),
    _f("alternatives_coded", _NOTES),
]

#: `sizing`: one row per topic, what `plan_topic` decided about its partitions.
SIZING = StructType(_TOPIC_FIELDS + _PLAN_FIELDS)

#: `simulations`: one row per (topic or multi-topic group, partitions, members, strategy).
SIMULATIONS = StructType(
    [
        _f("run", _S, False),
        _f("scope", _S, False),
        _f("topic", _S),
        _f("group_id", _S),
        _f("topics", _TEXTS),
        _f("partitions", _I, False),
        _f("members", _I, False),
        _f("strategy", _S, False),
        _f("is_recommended_partitions", _B, False),
        _f("is_current_partitions", _B, False),
        _f("max_member_partitions", _I, False),
        _f("min_member_partitions", _I, False),
        _f("max_load", _D, False),
        _f("min_load", _D, False),
        _f("mean_load", _D, False),
        _f("imbalance", _D, False),
        _f("idle_members", _I, False),
        _f("load_limit", _D, False),
        _f("within_capacity", _B, False),
        _f("max_partition_load", _D, False),
        _f("hot_partition", _B, False),
        _f("grow_moved", _I),
        _f("grow_revoked", _I),
        _f("shrink_moved", _I),
        _f("shrink_revoked", _I),
        # What one join and one leave cost (`planner.simulate.churn.COST_COLUMNS`),
        # given where the churn columns are.
        _f("stops_group", _B),
        _f("grow_rounds", _I),
        _f("shrink_rounds", _I),
        _f("grow_paused_partition_s", _D),
        _f("shrink_paused_partition_s", _D),
        _f("shrink_locked_record_s", _D),
    ]
)

#: `recommendations`: one row per topic, the published answer.
RECOMMENDATIONS = StructType(
    [
        *_TOPIC_FIELDS[:4],
        _f("recommended_consumers", _I),
        _f("standby_consumers", _I),
        _f("consumers_group_id", _S),
        _f("strategy", _S),
        *_TOPIC_FIELDS[4:],
        *_PLAN_FIELDS,
    ]
)


#: Internal, between the two halves of `simulate_assignments`: one multi-topic group's
#: plan, the warnings for its topics, and its simulation rows.
GROUP_RESULT = StructType(
    [
        _f("group_id", _S, False),
        _f("plan", GROUP_PLAN, False),
        _f("warnings", _TEXTS),
        _f("warnings_coded", _NOTES),
        _f("grid", ArrayType(SIMULATIONS, containsNull=False)),
    ]
)


@cache
def _arrow_schema_cached(name: str) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    schema: pa.Schema = to_arrow_schema(_BY_NAME[name], prefers_large_types=False)
    return schema


_BY_NAME: dict[str, StructType] = {
    "sizing": SIZING,
    "simulations": SIMULATIONS,
    "recommendations": RECOMMENDATIONS,
    "group_result": GROUP_RESULT,
}


def arrow_schema(name: str) -> pa.Schema:
    """The Arrow schema of output dataset `name`, as Spark's Arrow UDFs expect it."""
    return _arrow_schema_cached(name)


def relaxed(data_type: DataType) -> DataType:
    """`data_type` with every field and element nullable.

    What Spark makes of a schema once it has been through a Parquet file, and the form a
    cast may target (Spark refuses to cast to a non-nullable element type).
    """
    if isinstance(data_type, StructType):
        return StructType(
            [StructField(f.name, relaxed(f.dataType), nullable=True) for f in data_type.fields]
        )
    if isinstance(data_type, ArrayType):
        return ArrayType(relaxed(data_type.elementType), containsNull=True)
    return data_type


def field_names(schema: StructType) -> list[str]:
    """Column names of a Spark schema, in order."""
    return [f.name for f in schema.fields]


def empty_row(schema: StructType) -> dict[str, Any]:
    """A row of `schema` with every column None (filled in by the caller)."""
    return dict.fromkeys(field_names(schema))
