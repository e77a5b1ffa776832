"""Job 1, `size_partitions`: how many partitions every topic of the fleet needs.

Spark does the data work: the history window, bytes to MiB, each topic's Tp and Tc
(its own or the fleet default `*`), the consumer groups reading it, its key sample,
and the grouping by topic. The planning of each topic is `planner.recommend.plan_topic`,
applied to every topic by an Arrow function over batches of topics (`mapInArrow`; each
row one topic: its samples as a list, its facts and key sample; see
`spark_jobs.planning`). Output: the `sizing` dataset, one row per topic.

    python -m spark_jobs.size_partitions --figures FIGURES --out OUT --interval 2026-11-21
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from planner.figures.dataset import interval_path
from spark_jobs import planning
from spark_jobs.figures import RunFigures
from spark_jobs.outputs import Output, write_run
from spark_jobs.runner import main_for
from spark_jobs.schemas import KEY_UNITS, SIZING
from spark_jobs.settings import JobSettings

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = [
    "capacity_for_topics",
    "group_facts",
    "key_rows",
    "key_units_frame",
    "main",
    "size_topics",
    "sizing",
    "throughput_mib",
    "topic_facts",
    "topic_samples",
]

_MIB = float(2**20)
DEFAULT_TOPIC = "*"


def throughput_mib(throughput: DataFrame) -> DataFrame:
    """Samples in the planner's units: `topic, ts, mib_in, records_in, mib_out`.

    Byte rates in the figures are bytes/s; the planner works in MiB/s (2**20 bytes, the
    unit Kafka's perf tools print as "MB").
    """
    from pyspark.sql import functions as F

    return throughput.select(
        "topic",
        "ts",
        (F.col("bytes_in_per_s") / _MIB).alias("mib_in"),
        F.col("records_in_per_s").alias("records_in"),
        (F.col("bytes_out_per_s") / _MIB).alias("mib_out"),
    )


def _side(own: str, default: str, side: str) -> list[Column]:
    from pyspark.sql import functions as F

    mib, records = f"{side}_mib_per_s", f"{side}_records_per_s"
    has_own = F.col(f"{own}.{mib}").isNotNull() | F.col(f"{own}.{records}").isNotNull()
    has_default = F.col(f"{default}.{mib}").isNotNull() | F.col(f"{default}.{records}").isNotNull()
    short = {"producer": "tp", "consumer": "tc"}[side]
    return [
        F.when(has_own, F.col(f"{own}.{mib}"))
        .otherwise(F.col(f"{default}.{mib}"))
        .alias(f"{short}_mib_per_s"),
        F.when(has_own, F.col(f"{own}.{records}"))
        .otherwise(F.col(f"{default}.{records}"))
        .alias(f"{short}_records_per_s"),
        F.when(has_own, F.lit("topic"))
        .when(has_default, F.lit(DEFAULT_TOPIC))
        .alias(f"{short}_source"),
        F.when(has_own, F.col(f"{own}.source"))
        .when(has_default, F.col(f"{default}.source"))
        .alias(f"{short}_measured_by"),
    ]


def capacity_for_topics(topics: DataFrame, capacity: DataFrame) -> DataFrame:
    """Tp and Tc for every topic, its own or the fleet default `*`, side by side.

    A side is taken whole from one row: if the topic's own capacity row has any
    producer figure (MiB/s or records/s), both producer figures come from it, else both
    from the `*` row; the same for the consumer side. A perf-test run measures one side
    in both units at once, with the topic's record size, so a topic's own records/s is
    never paired with a default MiB/s measured on other records. A side that neither
    row has is null (its source too).

    Returns:
        `topic, tp_mib_per_s, tp_records_per_s, tp_source, tp_measured_by, tc_...`, one
        row per topic of `topics`; `*_source` is `topic`, `*` or null.
    """
    from pyspark.sql import functions as F

    own = capacity.where(F.col("topic") != DEFAULT_TOPIC).alias("own")
    default = capacity.where(F.col("topic") == DEFAULT_TOPIC).drop("topic").alias("fleet")
    joined = (
        topics.select("topic")
        .alias("t")
        .join(own, F.col("t.topic") == F.col("own.topic"), "left")
        .join(F.broadcast(default), F.lit(True), "left")
    )
    return joined.select(
        F.col("t.topic").alias("topic"),
        *_side("own", "fleet", "producer"),
        *_side("own", "fleet", "consumer"),
    )


def group_facts(groups: DataFrame) -> DataFrame:
    """Per topic: the groups that read only it, and how many groups read it at all.

    Returns:
        `topic, groups (array of group_id, strategy, members; by group id),
        consuming_groups, max_members`. Groups that read several topics count in
        `consuming_groups` (they fetch the topic's bytes) but are planned on their own
        by `simulate_assignments`.
    """
    from pyspark.sql import functions as F

    reach = groups.groupBy("group_id").agg(F.countDistinct("topic").alias("group_topics"))
    single = F.when(F.col("group_topics") == 1, F.struct("group_id", "strategy", "members"))
    return (
        groups.join(reach, "group_id")
        .groupBy("topic")
        .agg(
            F.array_sort(F.collect_list(single)).alias("groups"),
            F.countDistinct("group_id").cast("int").alias("consuming_groups"),
            F.max("members").alias("max_members"),
        )
    )


def key_rows(keys: DataFrame) -> DataFrame:
    """Key-sample rows with each key as its bytes: `topic, key (binary), count`.

    A key is `key` as UTF-8, or `key_hex` decoded; neither is the null key. Rows stay
    rows: each keyed topic's sample is assembled (spellings of one key merged, sorted
    by bytes) by the Arrow function that plans it (`spark_jobs.planning.sample_from_rows`),
    which costs a sort of one topic's keys instead of Spark building and sorting arrays
    of millions of structs.
    """
    from pyspark.sql import functions as F

    as_bytes = F.coalesce(F.encode(F.col("key"), "UTF-8"), F.unhex(F.col("key_hex")))
    return keys.select("topic", as_bytes.alias("key"), "count")


def topic_facts(topics: DataFrame, *, capacity: DataFrame, groups: DataFrame) -> DataFrame:
    """One row per topic of the run with everything the planner needs besides figures.

    Returns:
        `topic, partitions, replication_factor, keyed, partitioner, retention_ms`, the
        columns of `capacity_for_topics`, `groups`, `consuming_groups`, `max_members`.
        Small (one row per topic), so the joins here are broadcast.
    """
    from pyspark.sql import functions as F

    empty_groups = F.array().cast("array<struct<group_id:string,strategy:string,members:int>>")
    return (
        topics.select(
            "topic", "partitions", "replication_factor", "keyed", "partitioner", "retention_ms"
        )
        .join(F.broadcast(capacity_for_topics(topics, capacity)), "topic", "left")
        .join(F.broadcast(group_facts(groups)), "topic", "left")
        .select(
            "topic",
            "partitions",
            "replication_factor",
            "keyed",
            F.coalesce("partitioner", F.lit("murmur2_random")).alias("partitioner"),
            "retention_ms",
            "tp_mib_per_s",
            "tp_records_per_s",
            "tp_source",
            "tp_measured_by",
            "tc_mib_per_s",
            "tc_records_per_s",
            "tc_source",
            "tc_measured_by",
            F.coalesce("groups", empty_groups).alias("groups"),
            F.coalesce("consuming_groups", F.lit(0)).alias("consuming_groups"),
            F.coalesce("max_members", F.lit(0)).alias("max_members"),
        )
    )


def topic_samples(throughput: DataFrame) -> DataFrame:
    """Each topic's samples as one list: `topic, samples array<struct<ts, mib_in,
    records_in, mib_out>>` (in no particular order: the planner sorts them by time)."""
    from pyspark.sql import functions as F

    sample = F.struct("ts", "mib_in", "records_in", "mib_out")
    return throughput.groupBy("topic").agg(F.collect_list(sample).alias("samples"))


def key_units_frame(spark: SparkSession, figures: RunFigures, *, units: int) -> DataFrame:
    """The run's keys table cut into units (`spark_jobs.keys.key_units`), one row each.

    Returns:
        `unit, key_parts (array of file, row_group), key_lo, key_hi`: the unit's row
        groups and its topic range (null: open); one unit without parts when the run
        has no keys table.
    """
    from spark_jobs.keys import key_units

    path = (
        interval_path(figures.root, figures.run) / "keys.parquet" if figures.has("keys") else None
    )
    rows = [
        (u.unit, [{"file": f, "row_group": g} for f, g in u.parts], u.lo, u.hi)
        for u in key_units(path, units=units)
    ]
    return spark.createDataFrame(rows, KEY_UNITS)


def size_topics(
    throughput: DataFrame,
    facts: DataFrame,
    key_units: DataFrame,
    *,
    run: str,
    brokers: int,
    settings: JobSettings,
) -> DataFrame:
    """The `sizing` rows: `plan_topic` on every topic.

    Each topic becomes one row (its samples as a list, its facts). Keyless topics are
    planned many per Arrow batch (`mapInArrow`); keyed topics, a few hundred at most,
    go to the key unit whose topic range holds them (`key_units_frame`), and each unit's
    task reads its share of the keys table and plans its topics (`applyInArrow`): the
    20 M key rows of the 10,000-topic fleet never pass through Spark rows.

    Args:
        throughput: Samples in the planner's units (`throughput_mib`), history window.
        facts: `topic_facts`.
        key_units: `key_units_frame`.
        run: The run key, written into every row.
        brokers: Brokers in the cluster.
        settings: The job settings.

    Returns:
        One row per topic found in either input (a topic with figures but no facts row
        is `unknown-topic`, one with facts but no figures `no-figures`), `SIZING` schema.
    """
    from pyspark.sql import functions as F

    # One aggregation and one join for every topic, kept (local checkpoint) for the two
    # halves that split after them: the throughput is scanned once. (Without the
    # checkpoint the optimizer pushes each half's filters into the scans, and the
    # halves no longer share them.)
    known = facts.withColumn("known", F.lit(True))
    topics = topic_samples(throughput).join(known, "topic", "full").localCheckpoint()
    keyless = topics.where(~F.coalesce(F.col("keyed"), F.lit(False))).mapInArrow(
        planning.size_batches_udf(run=run, brokers=brokers, settings=settings), SIZING
    )
    with_samples = topics.where(F.col("keyed"))
    in_unit = (F.col("key_lo").isNull() | (F.col("topic") >= F.col("key_lo"))) & (
        F.col("key_hi").isNull() | (F.col("topic") < F.col("key_hi"))
    )
    with_keys = (
        with_samples.join(F.broadcast(key_units), in_unit, "left")
        .groupBy("unit")
        .applyInArrow(
            planning.size_key_unit_udf(run=run, brokers=brokers, settings=settings), SIZING
        )
    )
    return keyless.unionByName(with_keys)


def sizing(spark: SparkSession, figures: RunFigures, settings: JobSettings) -> DataFrame:
    """Read the run's figures and size every topic (the job without its output)."""
    brokers = figures.brokers()
    facts = topic_facts(
        figures.table(spark, "topics"),
        capacity=figures.table(spark, "capacity"),
        groups=figures.table(spark, "groups"),
    )
    return size_topics(
        figures.throughput(spark).transform(throughput_mib),
        facts,
        key_units_frame(spark, figures, units=2 * settings.spark.shuffle_partitions),
        run=figures.key,
        brokers=brokers,
        settings=settings,
    )


def _body(
    spark: SparkSession, figures: RunFigures, settings: JobSettings, args: argparse.Namespace
) -> dict[str, Path]:
    frame = sizing(spark, figures, settings)
    output = Output(frame, files=1, partition_by=("topic",), sort_by=("topic",))
    return write_run({"sizing": output}, args.out, figures.key)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the job; see `python -m spark_jobs.size_partitions --help`."""
    return main_for(
        "size_partitions",
        "Size the partitions of every topic of a data interval (writes the sizing dataset).",
        _body,
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
