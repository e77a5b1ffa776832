"""The Spark benchmark's references compute what they say they compute.

`benchmarks/spark_bench.py` measures the jobs beside a bare job (each topic's maximum
rates in the JVM) and the same maxima from the samples as the sizing job's unit tasks
read them; the second is only a fair floor if it gives the same answer, nulls included.
It also runs the two jobs as one application and checks that they wrote what the two
applications wrote.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession
from pyspark.testing import assertDataFrameEqual

from benchmarks.spark_bench import max_rates, max_rates_by_units, same_outputs
from planner.figures.dataset import DataInterval, write_interval
from planner.figures.schema import TABLES
from spark_jobs.figures import locate_run
from spark_jobs.schemas import figures_schema
from spark_jobs.settings import JobSettings, SparkSettings
from spark_jobs.size_partitions import units_of
from tests.spark_jobs.fleet import snapshot_tables

TS = datetime(2026, 11, 21, tzinfo=UTC)


def test_the_unit_reference_gives_the_jvm_reference_s_maxima(
    spark: SparkSession, tmp_path: Path
) -> None:
    rows = []
    for hour in range(30):
        ts = TS + timedelta(hours=hour)
        # a: every rate measured; b: bytes out never measured (null: no maximum);
        # c: one sample only.
        rows.append(("a", ts, 100.0 + (hour * 7) % 31, 10.0 * (hour % 5), float(hour), "s"))
        rows.append(("b", ts, 50.0 - hour, 1.0 + hour, None, "s"))
    rows.append(("c", TS, 3.5, 1.0, 2.0, "s"))
    rows = [(*r, None) for r in rows]  # busiest_group_bytes_out_per_s: not observed
    schema = TABLES["throughput"].schema
    throughput = pa.Table.from_pylist(
        [dict(zip(schema.names, r, strict=True)) for r in rows], schema
    )
    topics = pa.Table.from_pylist(
        [{"topic": t, "partitions": 3, "replication_factor": 1, "keyed": False} for t in "abc"],
        TABLES["topics"].schema,
    )
    tables = {"throughput": throughput, **snapshot_tables(), "topics": topics}
    write_interval(tmp_path, DataInterval(TS, TS + timedelta(days=2)), tables)
    run = locate_run(tmp_path, "20261121T0000Z", lookback_days=2)
    units = units_of(run, JobSettings(spark=SparkSettings(shuffle_partitions=2)))
    assert len(units) == 3
    df = spark.createDataFrame(rows, figures_schema("throughput")).repartition(3)
    expected = spark.createDataFrame(
        [("a", 130.0, 40.0, 29.0), ("b", 50.0, 30.0, None), ("c", 3.5, 1.0, 2.0)],
        "topic string, bytes_in_per_s double, records_in_per_s double, bytes_out_per_s double",
    )
    assertDataFrameEqual(max_rates(df), expected)
    assertDataFrameEqual(max_rates_by_units(spark, units), expected)


def _write_outputs(root: Path, key: str, simulations: list[int]) -> None:
    for name, values in (("sizing", [1]), ("simulations", simulations), ("recommendations", [2])):
        folder = root / name / f"run={key}"
        folder.mkdir(parents=True)
        pq.write_table(
            pa.table({"topic": [f"t{v}" for v in values], "n": values}), folder / "part-0.parquet"
        )


def test_the_output_comparison_fails_on_one_differing_dataset(tmp_path: Path) -> None:
    key = "20261122T0000Z"
    _write_outputs(tmp_path / "a", key, [1, 2, 3])
    _write_outputs(tmp_path / "b", key, [1, 2, 3])
    _write_outputs(tmp_path / "c", key, [1, 2, 4])
    same_outputs(tmp_path / "a", tmp_path / "b", key)
    with pytest.raises(RuntimeError, match="simulations"):
        same_outputs(tmp_path / "a", tmp_path / "c", key)
