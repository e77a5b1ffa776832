"""A run's datasets appear whole, under stable names, or not at all."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_jobs.outputs import (
    FILES_WRITTEN,
    TaskFiles,
    one_sorted_file,
    parquet_files_udf,
    run_path,
    write_run,
    write_task_file,
)

_ROWS = pa.schema([pa.field("id", pa.int32(), False), pa.field("topic", pa.string())])


def _rows(spark: SparkSession, n: int = 10) -> DataFrame:
    return spark.range(n).select(
        F.col("id").cast("int").alias("id"), (F.col("id") % 3).cast("string").alias("topic")
    )


def _one_file(spark: SparkSession, n: int = 10) -> TaskFiles:
    return one_sorted_file(_rows(spark, n), _ROWS, sort_by=("id",))


def _failing(spark: SparkSession) -> TaskFiles:
    # ANSI SQL (Spark 4's default) fails the task when it computes the division.
    boom = spark.range(3).select((F.col("id") / F.lit(0)).alias("boom"))
    return one_sorted_file(boom, pa.schema([("boom", pa.float64())]), sort_by=("boom",))


def test_files_get_stable_names_and_nothing_else(spark: SparkSession, tmp_path: Path) -> None:
    done = write_run(
        {"sizing": _one_file(spark), "simulations": _task_files(spark, 10, 2)},
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
                "sizing": _one_file(spark),
                "recommendations": _failing(spark),
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
            "a": _one_file(spark, 4),
            "b": _one_file(spark, 5),
        },
        tmp_path,
        key,
    )
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        write_run(
            {
                "a": _one_file(spark, 7),
                "b": _failing(spark),
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
    write_run({"a": _one_file(spark, 4)}, tmp_path, key)
    # The state a writer leaves when killed between its two renames, plus its staging.
    target = run_path(tmp_path, "a", key)
    target.rename(tmp_path / "a" / f".replaced-run={key}-dead")
    (tmp_path / "a" / f".staging-run={key}-dead").mkdir()
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        write_run({"a": _failing(spark)}, tmp_path, key)
    assert pq.read_table(target).num_rows == 4
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [f"run={key}"]


def _task_files(spark: SparkSession, n: int, files: int) -> TaskFiles:
    def frame(folder: str) -> DataFrame:
        rows = _rows(spark, n).repartition(files, "topic").sortWithinPartitions("id")
        return rows.mapInArrow(parquet_files_udf(folder, _ROWS), FILES_WRITTEN)

    return TaskFiles(frame, schema=_ROWS)


def test_task_written_files_are_each_partition_s_rows_under_spark_s_names(
    spark: SparkSession, tmp_path: Path
) -> None:
    key = "20261121T0000Z"
    done = write_run({"simulations": _task_files(spark, 30, 2)}, tmp_path, key)
    folder = done["simulations"]
    # Three topics hashed over two partitions: both get rows, each file is sorted.
    assert sorted(p.name for p in folder.iterdir()) == [
        "part-00000.zstd.parquet",
        "part-00001.zstd.parquet",
    ]
    parts = [pq.read_table(p) for p in sorted(folder.iterdir())]
    for part in parts:
        assert part.schema == _ROWS
        assert part.column("id").to_pylist() == sorted(part.column("id").to_pylist())
    footer = pq.ParquetFile(folder / "part-00000.zstd.parquet").metadata
    assert footer.row_group(0).column(0).compression == "ZSTD"
    topics = [set(p.column("topic").to_pylist()) for p in parts]
    assert not topics[0] & topics[1]
    assert sorted(pq.read_table(folder).column("id").to_pylist()) == list(range(30))
    # What Spark itself reads from them.
    assert sorted(r.id for r in spark.read.parquet(str(folder)).collect()) == list(range(30))


def test_task_files_with_no_rows_leave_one_empty_file_of_the_schema(
    spark: SparkSession, tmp_path: Path
) -> None:
    done = write_run({"a": _task_files(spark, 0, 2)}, tmp_path, "20261121T0000Z")
    assert [p.name for p in done["a"].iterdir()] == ["part-00000.zstd.parquet"]
    empty = pq.read_table(done["a"])
    assert empty.num_rows == 0
    assert empty.schema == _ROWS


def _with_dead_attempt(
    folder: str,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def apply(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        # What an attempt killed mid-write leaves beside the file.
        Path(folder, ".part-00000.zstd.parquet.attempt-99").write_bytes(b"PAR1 half")
        return write_task_file(batches, folder, _ROWS)

    return apply


def test_partial_files_of_dead_attempts_are_not_committed(
    spark: SparkSession, tmp_path: Path
) -> None:
    def frame(folder: str) -> DataFrame:
        body = _with_dead_attempt(folder)
        return _rows(spark, 5).repartition(1).mapInArrow(body, FILES_WRITTEN)

    output = TaskFiles(frame, schema=_ROWS)
    done = write_run({"a": output}, tmp_path, "20261121T0000Z")
    assert [p.name for p in done["a"].iterdir()] == ["part-00000.zstd.parquet"]
    assert pq.read_table(done["a"]).num_rows == 5


def test_a_failing_task_writer_keeps_the_previous_run(spark: SparkSession, tmp_path: Path) -> None:
    key = "20261121T0000Z"
    write_run({"a": _task_files(spark, 4, 1)}, tmp_path, key)

    def frame(folder: str) -> DataFrame:
        bad = _rows(spark, 3).select(
            (F.col("id") / F.lit(0)).cast("int").alias("id"), F.col("topic")
        )
        return bad.mapInArrow(parquet_files_udf(folder, _ROWS), FILES_WRITTEN)

    failing = TaskFiles(frame, schema=_ROWS)
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        write_run({"a": failing}, tmp_path, key)
    assert pq.read_table(run_path(tmp_path, "a", key)).num_rows == 4
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [f"run={key}"]


def _nullable_rows(spark: SparkSession, frame: DataFrame, folder: str) -> DataFrame:
    # A Spark expression that can give null makes the column nullable, as `recommend`'s
    # casts do to every column of the recommendations.
    loose = frame.select(
        F.when(F.col("id") >= 0, F.col("id")).alias("id"), F.col("topic")
    ).repartition(1)
    assert loose.schema["id"].nullable
    return loose.mapInArrow(parquet_files_udf(folder, _ROWS), FILES_WRITTEN)


def test_rows_spark_made_nullable_are_written_with_the_dataset_s_schema(
    spark: SparkSession, tmp_path: Path
) -> None:
    output = TaskFiles(lambda folder: _nullable_rows(spark, _rows(spark, 6), folder), _ROWS)
    done = write_run({"a": output}, tmp_path, "20261121T0000Z")
    table = pq.read_table(done["a"])
    assert table.schema == _ROWS
    assert sorted(table.column("id").to_pylist()) == list(range(6))


def test_a_null_where_the_dataset_allows_none_fails_and_keeps_the_previous_run(
    spark: SparkSession, tmp_path: Path
) -> None:
    key = "20261121T0000Z"
    write_run({"a": _task_files(spark, 4, 1)}, tmp_path, key)
    with_null = _rows(spark, 3).select(
        F.when(F.col("id") != 1, F.col("id")).alias("id"), F.col("topic")
    )
    output = TaskFiles(lambda folder: _nullable_rows(spark, with_null, folder), _ROWS)
    with pytest.raises(Exception, match="Casting field 'id' with null values to non-nullable"):
        write_run({"a": output}, tmp_path, key)
    assert pq.read_table(run_path(tmp_path, "a", key)).num_rows == 4


def test_write_task_file_needs_a_task(tmp_path: Path) -> None:
    table = pa.table({"id": pa.array([1], pa.int32()), "topic": ["t"]}, schema=_ROWS)
    with pytest.raises(RuntimeError, match="inside a Spark task"):
        list(write_task_file([table], str(tmp_path), _ROWS))


def test_a_dataset_may_be_written_by_several_frames_each_started_once_made(
    spark: SparkSession, tmp_path: Path
) -> None:
    from spark_jobs.outputs import parquet_files_udf, sorted_file

    made = tmp_path / "second-frame-made"

    def first(folder: str) -> DataFrame:
        # Its task writes only once the second frame has been made: were the frames
        # run in turn, it would wait for itself (and fail after a minute).
        write = parquet_files_udf(folder, _ROWS, number=0)

        def after_second(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            import time

            deadline = time.monotonic() + 60
            while not made.exists():
                if time.monotonic() > deadline:
                    raise TimeoutError("the second frame was not made while this one ran")
                time.sleep(0.05)
            return write(batches)

        return _rows(spark, 4).repartition(1).mapInArrow(after_second, FILES_WRITTEN)

    def frames(folder: str) -> Iterator[DataFrame]:
        # The second frame is made while the first is written (as the simulations'
        # groups file, which waits for the groups' plans, while the topic grids are).
        yield first(folder)
        made.touch()
        yield sorted_file(_rows(spark, 6), folder, _ROWS, sort_by=("id",), number=1)

    done = write_run(
        {"simulations": TaskFiles(frames, schema=_ROWS), "sizing": _one_file(spark, 3)},
        tmp_path,
        "20261121T0000Z",
    )
    folder = done["simulations"]
    assert sorted(p.name for p in folder.iterdir()) == [
        "part-00000.zstd.parquet",
        "part-00001.zstd.parquet",
    ]
    assert pq.read_table(folder / "part-00000.zstd.parquet").num_rows == 4
    assert pq.read_table(folder / "part-00001.zstd.parquet").num_rows == 6
    assert pq.read_table(done["sizing"]).num_rows == 3
