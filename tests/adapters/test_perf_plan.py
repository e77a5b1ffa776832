"""Kafka 4.4.0's perf-tool output planned the way `plan` and the DAG plan it.

The captured output (`data/perf/kafka44.*.txt`, see `test_perf_test.py`) goes into a
landing folder's `perf/` under a planned topic's name; the landing collection writes the
figures, and the sizing job (run in-process on the tests' Spark session) sizes the
topic with the Tp and Tc it derived.
"""

from __future__ import annotations

import csv
import math
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from planner.collect.landing import LandingSource
from planner.collect.run import collect_interval
from planner.figures.dataset import DataInterval

# The Spark tests' one local session.

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data" / "perf"
DAY = DataInterval.parse("2026-11-20")
PEAK_MIB_PER_S = 30.0
RECORD_BYTES = 1024
# What the files say: the producer's steady-state summary, the consumer's fetch rates.
TP = (13.54, 13861.792792)
TC = (71.1262, 72833.2119)


def _write_csv(path: Path, rows: list[list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)


def test_a_plan_sizes_a_topic_with_the_tp_and_tc_of_kafka_44_output(
    spark: SparkSession, tmp_path: Path
) -> None:
    from spark_jobs import size_partitions
    from spark_jobs.figures import locate_run
    from spark_jobs.settings import JobSettings

    landing = tmp_path / "landing"
    for kind in ("producer", "consumer"):
        (landing / "perf").mkdir(parents=True, exist_ok=True)
        shutil.copy(DATA / f"kafka44.{kind}.txt", landing / "perf" / f"orders.{kind}.txt")
    _write_csv(
        landing / "topics" / "topics.csv",
        [["topic", "partitions", "replication_factor", "keyed"], ["orders", 1, 1, "false"]],
    )
    _write_csv(landing / "cluster" / "brokers.csv", [["broker_id"], [1]])
    start = datetime(2026, 11, 20, tzinfo=UTC)
    bytes_per_s = PEAK_MIB_PER_S * 2**20
    _write_csv(
        landing / "throughput" / "orders.csv",
        [["topic", "ts", "bytes_in_per_s", "records_in_per_s"]]
        + [
            [
                "orders",
                (start + timedelta(hours=h)).isoformat(),
                bytes_per_s,
                bytes_per_s / RECORD_BYTES,
            ]
            for h in range(24)
        ],
    )
    report = collect_interval([LandingSource(landing)], DAY, tmp_path / "figures")
    assert report.rejected.num_rows == 0, report.rejected.to_pylist()

    figures = locate_run(tmp_path / "figures", "2026-11-20", lookback_days=30)
    (row,) = size_partitions.sizing(spark, figures, JobSettings()).collect()
    # One partition today; the measured Tp asks for more.
    assert (row.topic, row.status) == ("orders", "increase"), row.status_detail
    assert (row.tp_mib_per_s, row.tp_records_per_s) == TP
    assert (row.tc_mib_per_s, row.tc_records_per_s) == TC
    assert row.tp_source == row.tc_source == "topic"
    assert "orders.producer.txt" in row.tp_measured_by
    # The rule divides each target by the Tp and Tc the files gave.
    assert row.mib_in_producer_partitions == math.ceil(row.mib_in_target_per_s / TP[0])
    assert row.mib_in_consumer_partitions == math.ceil(row.mib_in_target_per_s / TC[0])
    assert row.records_in_producer_partitions == math.ceil(row.records_in_target_per_s / TP[1])
    assert row.mib_in_producer_partitions >= 3  # 30 MiB/s plus headroom over 13.54 MiB/s
    assert row.required_partitions_now >= row.mib_in_producer_partitions
    assert row.recommended_partitions >= row.required_partitions_now
