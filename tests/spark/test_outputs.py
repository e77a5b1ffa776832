"""A run's datasets appear whole, under stable names, or not at all."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_jobs.outputs import Output, run_path, write_run


def _rows(spark: SparkSession, n: int = 10) -> DataFrame:
    return spark.range(n).select(
        F.col("id").cast("int").alias("id"), (F.col("id") % 3).cast("string").alias("topic")
    )


def _failing(spark: SparkSession) -> DataFrame:
    # ANSI SQL (Spark 4's default) fails the task when it computes the division.
    return spark.range(3).select((F.col("id") / F.lit(0)).alias("boom"))


def test_files_get_stable_names_and_nothing_else(spark: SparkSession, tmp_path: Path) -> None:
    done = write_run(
        {
            "sizing": Output(_rows(spark), files=1, partition_by=("topic",), sort_by=("id",)),
            "simulations": Output(
                _rows(spark), files=2, partition_by=("topic",), sort_by=("topic", "id")
            ),
        },
        tmp_path,
        "20261121T0000Z",
    )
    assert done["sizing"] == run_path(tmp_path, "sizing", "20261121T0000Z")
    assert sorted(p.name for p in done["sizing"].iterdir()) == ["part-00000.zstd.parquet"]
    assert sorted(p.name for p in done["simulations"].iterdir()) == [
        "part-00000.zstd.parquet",
        "part-00001.zstd.parquet",
    ]
    assert pq.read_table(done["sizing"]).column("id").to_pylist() == list(range(10))
    assert sorted(p.name for p in (tmp_path / "sizing").iterdir()) == ["run=20261121T0000Z"]


def test_a_failure_writes_nothing_and_creates_no_folder(
    spark: SparkSession, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        write_run(
            {
                "sizing": Output(_rows(spark), 1, ("topic",), ("id",)),
                "recommendations": Output(_failing(spark), 1, ("boom",), ("boom",)),
            },
            out,
            "20261121T0000Z",
        )
    assert not out.exists()


def test_a_failed_rerun_keeps_the_previous_run_of_every_dataset(
    spark: SparkSession, tmp_path: Path
) -> None:
    key = "20261121T0000Z"
    write_run(
        {
            "a": Output(_rows(spark, 4), 1, ("topic",), ("id",)),
            "b": Output(_rows(spark, 5), 1, ("topic",), ("id",)),
        },
        tmp_path,
        key,
    )
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        write_run(
            {
                "a": Output(_rows(spark, 7), 1, ("topic",), ("id",)),
                "b": Output(_failing(spark), 1, ("boom",), ("boom",)),
            },
            tmp_path,
            key,
        )
    assert pq.read_table(run_path(tmp_path, "a", key)).num_rows == 4
    assert pq.read_table(run_path(tmp_path, "b", key)).num_rows == 5
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [f"run={key}"]


def test_a_writer_killed_mid_swap_is_repaired_by_the_next_write(
    spark: SparkSession, tmp_path: Path
) -> None:
    key = "20261121T0000Z"
    write_run({"a": Output(_rows(spark, 4), 1, ("topic",), ("id",))}, tmp_path, key)
    # The state a writer leaves when killed between its two renames, plus its staging.
    target = run_path(tmp_path, "a", key)
    target.rename(tmp_path / "a" / f".replaced-run={key}-dead")
    (tmp_path / "a" / f".staging-run={key}-dead").mkdir()
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        write_run({"a": Output(_failing(spark), 1, ("boom",), ("boom",))}, tmp_path, key)
    assert pq.read_table(target).num_rows == 4
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [f"run={key}"]
