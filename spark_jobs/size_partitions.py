"""Job 1, `size_partitions`: how many partitions every topic of the fleet needs.

Spark does the data work on the facts (each topic's Tp and Tc, its own or the fleet
default `*`, and the consumer groups reading it) and the parallelism: the fleet is cut
into units, ranges of topic names of about equal planning cost (`spark_jobs.units`),
each unit a partition of its own with its topics' facts; its task reads its topics'
samples and key rows from the figures' Parquet files, which costs a fraction of handing
them over as Spark rows, and plans every topic with `planner.recommend.plan_topic`
(`mapInArrow`; see `spark_jobs.planning`). Output: the `sizing` dataset, one row per
topic.

    python -m spark_jobs.size_partitions --figures FIGURES --out OUT --interval 2026-11-21
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from planner.figures.dataset import interval_path
from spark_jobs import planning
from spark_jobs.figures import RunFigures
from spark_jobs.outputs import TaskFiles, one_sorted_file, write_run
from spark_jobs.runner import main_for
from spark_jobs.schemas import SIZING, UNIT_RANGES, arrow_schema
from spark_jobs.settings import JobSettings
from spark_jobs.units import Unit, cut_units

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = [
    "capacity_for_topics",
    "group_facts",
    "key_rows",
    "main",
    "run",
    "size_topics",
    "sizing",
    "sizing_output",
    "throughput_mib",
    "topic_facts",
    "units_of",
]

_MIB = float(2**20)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DEFAULT_TOPIC = "*"


def throughput_mib(throughput: DataFrame) -> DataFrame:
    """Samples in the planner's units: `topic, ts, mib_in, records_in, mib_out`.

    Byte rates in the figures are bytes/s; the planner works in MiB/s (2**20 bytes, the
    unit Kafka's perf tools print as "MB"). The job's tasks read the samples with PyArrow
    (`spark_jobs.units.read_samples`); this is the same conversion in Spark, which the
    tests hold that reading to.
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
    short = {"producer": "tp", "consumer": "tc", "share_fetch": "sf"}[side]
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
        F.when(has_own, F.col(f"{own}.record_bytes"))
        .when(has_default, F.col(f"{default}.record_bytes"))
        .alias(f"{short}_record_bytes"),
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
        `topic, tp_mib_per_s, tp_records_per_s, tp_source, tp_measured_by,
        tp_record_bytes, tc_..., sf_mib_per_s, sf_records_per_s` (one partition's
        share-fetch throughput, taken whole from one row as a side is), one row per
        topic of `topics`; `*_source` is `topic`, `*` or null; `*_record_bytes` the
        record size the side was measured with, from the same row.
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
        *_side("own", "fleet", "share_fetch")[:2],
    )


def group_facts(groups: DataFrame) -> DataFrame:
    """Per topic: the groups that read only it, and how many groups read it at all.

    Args:
        groups: The run's groups, with their protocol (`RunFigures.planned_groups`).

    Returns:
        `topic, groups (array of group_id, strategy, members, protocol; by group id),
        consuming_groups, share_groups, max_members`. Groups that read several topics
        count in `consuming_groups` (they fetch the topic's bytes) and, for share groups,
        in `share_groups` (their members are not capped by the partitions), but are
        planned on their own by `simulate_assignments`.
    """
    from pyspark.sql import functions as F

    reach = groups.groupBy("group_id").agg(F.countDistinct("topic").alias("group_topics"))
    single = F.when(
        F.col("group_topics") == 1, F.struct("group_id", "strategy", "members", "protocol")
    )
    share = F.when(F.col("protocol") == "share", F.col("group_id"))
    joined = (
        groups.join(reach, "group_id")
        .groupBy("topic")
        .agg(
            F.array_sort(F.collect_list(single)).alias("groups"),
            F.countDistinct("group_id").cast("int").alias("consuming_groups"),
            F.countDistinct(share).cast("int").alias("share_groups"),
            F.max("members").alias("max_members"),
        )
    )
    return joined.select("topic", "groups", "consuming_groups", "share_groups", "max_members")


def key_rows(keys: DataFrame) -> DataFrame:
    """Key-sample rows with each key as its bytes: `topic, key (binary), count`.

    A key is `key` as UTF-8, or `key_hex` decoded; neither is the null key. The job's
    tasks read the key rows with PyArrow (`spark_jobs.keys.read_key_rows`); this is the
    same decoding in Spark, which the tests hold that reading to.
    """
    from pyspark.sql import functions as F

    as_bytes = F.coalesce(F.encode(F.col("key"), "UTF-8"), F.unhex(F.col("key_hex")))
    return keys.select("topic", as_bytes.alias("key"), "count")


def topic_facts(topics: DataFrame, *, capacity: DataFrame, groups: DataFrame) -> DataFrame:
    """One row per topic of the run with everything the planner needs besides figures.

    `groups` are the run's groups with their protocol; every group that reads a topic
    counts in the fan-out its bytes out are divided by.

    Returns:
        `topic, partitions, replication_factor, keyed, partitioner, retention_ms`, the
        columns of `capacity_for_topics`, `groups`, `consuming_groups`, `share_groups`,
        `max_members`. Small (one row per topic), so the joins here are broadcast.
    """
    from pyspark.sql import functions as F

    empty_groups = F.array().cast(
        "array<struct<group_id:string,strategy:string,members:int,protocol:string>>"
    )
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
            "tp_record_bytes",
            "tc_mib_per_s",
            "tc_records_per_s",
            "tc_source",
            "tc_measured_by",
            "tc_record_bytes",
            "sf_mib_per_s",
            "sf_records_per_s",
            F.coalesce("groups", empty_groups).alias("groups"),
            F.coalesce("consuming_groups", F.lit(0)).alias("consuming_groups"),
            F.coalesce("share_groups", F.lit(0)).alias("share_groups"),
            F.coalesce("max_members", F.lit(0)).alias("max_members"),
        )
    )


def units_of(figures: RunFigures, settings: JobSettings) -> list[Unit]:
    """The run cut into units (`spark_jobs.units`), a few per task slot.

    The topics table and the files' footers are read on the driver with PyArrow: a few
    thousand rows and some metadata, where a Spark job would cost its own scheduling.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    folder = interval_path(figures.root, figures.run)
    topics = pq.read_table(folder / "topics.parquet", columns=["topic", "keyed"])
    if figures.left_out:
        names = topics.column("topic")
        kept = pc.and_(
            pc.is_valid(names), pc.invert(pc.is_in(names, pa.array(sorted(figures.left_out))))
        )
        topics = topics.filter(kept)
    samples = [
        (
            interval_path(figures.root, interval) / "throughput.parquet",
            [(_micros(start), _micros(end)) for start, end in pieces],
        )
        for interval, pieces in figures.history
    ]
    return cut_units(
        topics.column("topic").to_pylist(),
        pc.fill_null(topics.column("keyed"), False).to_pylist(),
        samples,
        folder / "keys.parquet" if figures.has("keys") else None,
        units=2 * settings.spark.shuffle_partitions,
    )


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


def size_topics(
    facts: DataFrame,
    units: Sequence[Unit],
    *,
    run: str,
    brokers: int,
    settings: JobSettings,
    left_out: frozenset[str] = frozenset(),
) -> DataFrame:
    """The `sizing` rows: `plan_topic` on every topic, one task per unit.

    Each unit (a range of topic names, `units_of`) is one partition of its own, in unit
    order, and gets its topics' facts rows by a broadcast join (no shuffle: the facts
    are a row per topic); its task reads its topics' samples and key rows itself
    (`spark_jobs.planning.size_units`). Units are of about equal cost, so the tasks
    fill the cores evenly (hash-partitioning units over the shuffle partitions put up
    to three on one task and none on another: 2 s of one idle core on the
    10,000-topic fleet).

    Args:
        facts: `topic_facts`.
        units: The run's units (`units_of`).
        run: The run key, written into every row.
        brokers: Brokers in the cluster.
        settings: The job settings.
        left_out: Topics whose samples and key rows the tasks skip (set aside by the
            input validation; `facts` has none of their rows either).

    Returns:
        One row per topic found in the topics table or the samples (a topic with
        samples but no facts row is `unknown-topic`, one with facts but no samples
        `no-figures`), `SIZING` schema.
    """
    from pyspark.sql import functions as F

    spark = facts.sparkSession
    ranges = spark.createDataFrame([(u.unit, u.lo, u.hi) for u in units], UNIT_RANGES)
    in_unit = (F.col("lo").isNull() | (F.col("topic") >= F.col("lo"))) & (
        F.col("hi").isNull() | (F.col("topic") < F.col("hi"))
    )
    placed = facts.join(F.broadcast(ranges), in_unit).drop("lo", "hi")
    # Partition i holds unit i alone; every unit is there, with or without facts rows
    # (its samples may hold unknown topics).
    slots = spark.range(0, len(units), 1, numPartitions=len(units))
    rows = slots.select(F.col("id").cast("int").alias("unit")).join(
        F.broadcast(placed), "unit", "left"
    )
    return rows.mapInArrow(
        planning.size_units_udf(
            units, run=run, brokers=brokers, settings=settings, left_out=left_out
        ),
        SIZING,
    )


def sizing(spark: SparkSession, figures: RunFigures, settings: JobSettings) -> DataFrame:
    """Read the run's facts and size every topic (the job without its output).

    A topic the input validation set aside gets one row of status `invalid-figures`,
    its reason in `status_detail`, and none of its figures is read.
    """
    facts = topic_facts(
        figures.table(spark, "topics"),
        capacity=figures.table(spark, "capacity"),
        groups=figures.planned_groups(spark),
    )
    brokers = figures.brokers()
    sized = size_topics(
        facts,
        units_of(figures, settings),
        run=figures.key,
        brokers=brokers,
        settings=settings,
        left_out=figures.left_out,
    )
    if figures.set_aside is None or not figures.set_aside.topics:
        return sized
    rows = [
        planning.invalid_figures_row(t.topic, t.reason, run=figures.key, brokers=brokers)
        for t in figures.set_aside.topics
    ]
    # Through Arrow, with the dataset's own schema: nested columns as the job writes them.
    import pyarrow as pa

    invalid = spark.createDataFrame(pa.Table.from_pylist(rows, schema=arrow_schema("sizing")))
    return sized.unionByName(invalid)


def sizing_output(frame: DataFrame) -> TaskFiles:
    """The `sizing` dataset for `write_run`: one file, sorted by topic.

    The rows reach one Python task through one shuffle, sorted, and it writes them with
    PyArrow (`outputs.one_sorted_file`).
    """
    return one_sorted_file(frame, arrow_schema("sizing"), sort_by=("topic",))


def run(
    spark: SparkSession, figures: RunFigures, settings: JobSettings, args: argparse.Namespace
) -> dict[str, Path]:
    """The job's body on a running session: size the run, write its `sizing` dataset.

    Returns:
        Dataset name -> its run folder.
    """
    output = sizing_output(sizing(spark, figures, settings))
    return write_run({"sizing": output}, args.out, figures.key)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the job; see `python -m spark_jobs.size_partitions --help`."""
    return main_for(
        "size_partitions",
        "Size the partitions of every topic of a data interval (writes the sizing dataset).",
        run,
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
