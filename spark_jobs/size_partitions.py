"""Job 1, `size_partitions`: how many partitions every topic of the fleet needs.

The driver works out every topic's facts from the run's small snapshot tables (its Tp
and Tc, its own or the fleet default `*`, and the consumer groups reading it:
`spark_jobs.facts`) and cuts the fleet into units, ranges of topic names of about equal
planning cost (`spark_jobs.units`). Spark runs one task per unit, with the unit's facts;
the task reads its topics' samples and key rows from the figures' Parquet files, which
costs a fraction of handing them over as Spark rows, and plans every topic with
`planner.recommend.plan_topic` (`mapInArrow`; see `spark_jobs.planning`). Output: the
`sizing` dataset, one row per topic.

    python -m spark_jobs.size_partitions --figures FIGURES --out OUT --interval 2026-11-21
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.figures.dataset import interval_path
from spark_jobs import planning
from spark_jobs.facts import by_unit, changelog_topics, topic_facts
from spark_jobs.figures import RunFigures
from spark_jobs.outputs import TaskFiles, one_sorted_file, write_run
from spark_jobs.runner import main_for
from spark_jobs.schemas import SIZING, arrow_schema
from spark_jobs.settings import JobSettings
from spark_jobs.units import Unit, cut_units

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "changelog_rates",
    "key_rows",
    "main",
    "run",
    "size_topics",
    "sizing",
    "sizing_output",
    "throughput_mib",
    "units_of",
]

_MIB = float(2**20)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def throughput_mib(throughput: DataFrame) -> DataFrame:
    """Samples in the planner's units: `topic, ts, mib_in, records_in, mib_out,
    mib_out_busiest`.

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
        (F.col("busiest_group_bytes_out_per_s") / _MIB).alias("mib_out_busiest"),
    )


def key_rows(keys: DataFrame) -> DataFrame:
    """Key-sample rows with each key as its bytes: `topic, key (binary), count`.

    A key is `key` as UTF-8, or `key_hex` decoded; neither is the null key. The job's
    tasks read the key rows with PyArrow (`spark_jobs.keys.read_key_rows`); this is the
    same decoding in Spark, which the tests hold that reading to.
    """
    from pyspark.sql import functions as F

    as_bytes = F.coalesce(F.encode(F.col("key"), "UTF-8"), F.unhex(F.col("key_hex")))
    return keys.select("topic", as_bytes.alias("key"), "count")


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


def changelog_rates(figures: RunFigures, topics: Sequence[str]) -> dict[str, tuple[float, int]]:
    """The mean bytes in per second of each of `topics` (Kafka Streams changelogs), and
    over how many samples: their rows of the run's throughput, in its data window.

    Read on the driver with PyArrow and a filter on the topic: a few topics' rows, for
    their applications' standby cost (`planner.standbys`). A topic without a sample
    with bytes in is left out (its rate is unknown, not 0).
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if not topics:
        return {}
    sums: dict[str, tuple[float, int]] = {}
    for interval, pieces in figures.history:
        rows = pq.read_table(
            interval_path(figures.root, interval) / "throughput.parquet",
            columns=["topic", "ts", "bytes_in_per_s"],
            filters=[("topic", "in", list(topics))],
        )
        ts = np.asarray(rows.column("ts").cast(pa.int64()).to_numpy(), dtype=np.int64)
        keep = np.zeros(ts.size, dtype=bool)
        for start, end in pieces:
            keep |= (ts >= _micros(start)) & (ts < _micros(end))
        rows = rows.filter(pa.array(keep)).filter(pc.is_valid(rows.column("bytes_in_per_s")))
        for topic, rate in zip(
            rows.column("topic").to_pylist(), rows.column("bytes_in_per_s").to_pylist(), strict=True
        ):
            total, n = sums.get(topic, (0.0, 0))
            sums[topic] = (total + rate, n + 1)
    return {t: (total / n, n) for t, (total, n) in sums.items() if n}


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // timedelta(microseconds=1)


def size_topics(
    spark: SparkSession,
    facts: Sequence[Mapping[str, Any]],
    units: Sequence[Unit],
    *,
    run: str,
    brokers: int,
    settings: JobSettings,
    left_out: frozenset[str] = frozenset(),
) -> DataFrame:
    """The `sizing` rows: `plan_topic` on every topic, one task per unit.

    Partition i holds unit i alone, in unit order; its task gets the unit's facts rows
    (`spark_jobs.facts.by_unit`, inside the task's function: no join, no shuffle) and
    reads its topics' samples and key rows itself (`spark_jobs.planning.size_units`).
    Units are of about equal cost, so the tasks fill the cores evenly
    (hash-partitioning units over the shuffle partitions put up to three on one task
    and none on another: 2 s of one idle core on the 10,000-topic fleet).

    Args:
        spark: The session.
        facts: `spark_jobs.facts.topic_facts`.
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

    slots = spark.range(0, len(units), 1, numPartitions=len(units))
    return slots.select(F.col("id").cast("int").alias("unit")).mapInArrow(
        planning.size_units_udf(
            units,
            by_unit(facts, units),
            run=run,
            brokers=brokers,
            settings=settings,
            left_out=left_out,
        ),
        SIZING,
    )


def sizing(spark: SparkSession, figures: RunFigures, settings: JobSettings) -> DataFrame:
    """Read the run's facts and size every topic (the job without its output).

    A topic the input validation set aside gets one row of status `invalid-figures`,
    its reason in `status_detail`, and none of its figures is read.
    """
    topics, groups = figures.snapshot("topics"), figures.planned_groups()
    facts = topic_facts(
        topics,
        capacity=figures.snapshot("capacity"),
        groups=groups,
        cluster=figures.snapshot("cluster"),
        changelog_rates=changelog_rates(figures, changelog_topics(topics, groups)),
    )
    brokers = figures.brokers()
    sized = size_topics(
        spark,
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
