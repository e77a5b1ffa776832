"""Writing a run's datasets: deterministic files, swapped into place whole.

    OUT/
      sizing/run=20261121T0000Z/part-00000.zstd.parquet
      simulations/run=20261121T0000Z/part-00000.zstd.parquet  part-00001...
      recommendations/run=20261121T0000Z/part-00000.zstd.parquet

Every file is written by a Spark task running Python, with PyArrow (`TaskFiles`,
`write_task_file`, `parquet_files_udf`): the rows are computed in Python anyway (the
sizing, the grids) or are few, and Spark's own writer cost far more (the 10,000-topic
fleet's 1.2 M grid rows: about 7 JVM CPU-seconds to hand over and encode, against 0.3
for PyArrow; the 10,000 nested sizing rows 0.58 against 0.05). Each task's partition is
one file, `part-NNNNN.zstd.parquet`, NNNNN the partition or a fixed number, and the frame
that writes them decides which rows go where and in what order, so the same input gives
the same files, byte for byte.

The files of a run's dataset go into a hidden staging folder beside its target
(`.staging-run=KEY-TOKEN`, which Spark and PyArrow readers skip), are checked against
what the tasks reported, and only then is the folder renamed into place; an existing
folder for the same run is moved aside first and deleted after. A reader sees the old
run or the new one, never a mix, and other runs are never touched. A failure before the
swap leaves nothing behind; a writer killed between the two renames is repaired by the
next write (the old folder is put back). Paths are POSIX paths the driver and every
executor see (a local disk for `local[*]` or a one-machine cluster, a shared mount
otherwise); see docs/spark-jobs.md.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame

__all__ = [
    "FILES_WRITTEN",
    "TaskFiles",
    "one_sorted_file",
    "parquet_files_udf",
    "run_path",
    "sorted_file",
    "write_run",
    "write_task_file",
]

#: What a task that writes its own file returns (`mapInArrow` schema): one row per file
#: written, its name in the staging folder and its row count.
FILES_WRITTEN = "file string not null, rows long not null"


@dataclass(frozen=True)
class TaskFiles:
    """One dataset of a run whose tasks write its Parquet files themselves.

    Attributes:
        files_in: Staging folder -> a frame whose tasks write the dataset's files into
            it (each with `write_task_file`, so each task's partition is one file, in
            the order it is to be read) and whose rows are `FILES_WRITTEN`; or several
            such frames, computed one after the other in their order (an iterator may
            build each once the one before it is written). The frames decide the layout
            (how many files, which rows where, their order).
        schema: The dataset's Arrow schema (an empty dataset gets one empty file of it).
    """

    files_in: Callable[[str], DataFrame | Iterable[DataFrame]]
    schema: pa.Schema


def run_path(out: str | Path, dataset: str, run: str) -> Path:
    """The folder of one run of one dataset: `OUT/DATASET/run=KEY`."""
    return Path(out) / dataset / f"run={run}"


def _recover(dataset_dir: Path, run: str) -> None:
    # A writer that died between moving the old run aside and moving the new one in
    # left the old one as .replaced-run=KEY-*: put it back. Stale staging folders of this
    # run are leftovers of killed writers (runs of one interval never overlap).
    if not dataset_dir.is_dir():
        return
    target = dataset_dir / f"run={run}"
    for entry in sorted(dataset_dir.iterdir()):
        if entry.name.startswith(f".replaced-run={run}-"):
            if target.exists():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                os.replace(entry, target)
        elif entry.name.startswith(f".staging-run={run}-"):
            shutil.rmtree(entry, ignore_errors=True)


def write_task_file(
    tables: Iterable[pa.Table | pa.RecordBatch],
    folder: str,
    schema: pa.Schema,
    *,
    number: int | None = None,
) -> Iterator[pa.RecordBatch]:
    """In a Python task: write `tables` (in order) as one file of `folder`.

    The file is `part-NNNNN.zstd.parquet`, NNNNN the task's partition as Spark numbers
    its own, or `number` for a frame of one partition whose file has a fixed place (a
    union of such frames may run in one task: Spark zips unions of children partitioned
    alike). Rows whose schema differs from `schema` only in what may be null are cast
    to it (a null where `schema` allows none fails the task). It is written under a
    hidden name of this attempt and renamed once complete:
    a retried or speculative attempt replaces it whole, with the same rows. No rows, no
    file.

    Yields:
        One `FILES_WRITTEN` row for the file written (none for no rows).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark import TaskContext

    context = TaskContext.get()
    if context is None:
        raise RuntimeError("write_task_file runs inside a Spark task")
    name = f"part-{context.partitionId() if number is None else number:05d}.zstd.parquet"
    partial = os.path.join(folder, f".{name}.attempt-{context.taskAttemptId()}")
    writer: pq.ParquetWriter | None = None
    rows = 0
    try:
        for table in tables:
            if table.num_rows == 0:
                continue
            if table.schema != schema:
                # Rows from a Spark expression arrive with every field nullable; the cast
                # restores the dataset's schema and fails on a null where it allows none.
                table = table.cast(schema)
            if writer is None:
                writer = pq.ParquetWriter(partial, schema, compression="zstd")
            if isinstance(table, pa.RecordBatch):
                writer.write_batch(table)
            else:
                writer.write_table(table)
            rows += table.num_rows
        if writer is None:
            return
        writer.close()
        os.replace(partial, os.path.join(folder, name))
    except BaseException:
        if writer is not None:
            writer.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(partial)
        raise
    # The Arrow form of FILES_WRITTEN.
    written = pa.schema([pa.field("file", pa.string(), False), pa.field("rows", pa.int64(), False)])
    yield pa.record_batch([pa.array([name]), pa.array([rows], pa.int64())], schema=written)


def parquet_files_udf(
    folder: str, schema: pa.Schema, *, number: int | None = None
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """A `mapInArrow` function writing each partition's rows (`schema`) as its file.

    `number`: as for `write_task_file` (the file of a frame of one partition).
    """

    def apply(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return write_task_file(batches, folder, schema, number=number)

    return apply


def sorted_file(
    frame: DataFrame, folder: str, schema: pa.Schema, *, sort_by: Sequence[str], number: int
) -> DataFrame:
    """A frame whose one task writes every row of `frame`, sorted, as file `number`.

    Args:
        frame: The rows (columns as `schema`; Spark's looser nullability is fine).
        folder: The staging folder.
        schema: The dataset's Arrow schema.
        sort_by: Columns giving the rows a total order.
        number: The file's number (`part-NNNNN`).

    Returns:
        One `FILES_WRITTEN` row (none for no rows); computing it writes the file.
    """
    return (
        frame.repartition(1)
        .sortWithinPartitions(*sort_by)
        .mapInArrow(parquet_files_udf(folder, schema, number=number), FILES_WRITTEN)
    )


def one_sorted_file(frame: DataFrame, schema: pa.Schema, *, sort_by: Sequence[str]) -> TaskFiles:
    """A dataset of one file, `part-00000`: every row of `frame` in one task, sorted."""
    return TaskFiles(
        lambda folder: sorted_file(frame, folder, schema, sort_by=sort_by, number=0),
        schema=schema,
    )


def _stage(output: TaskFiles, staging: Path) -> None:
    import pyarrow.parquet as pq
    from pyspark.sql import DataFrame

    staging.mkdir()
    frames = output.files_in(str(staging))
    # Each frame's job starts as soon as the frame is made, while the next one is being
    # made (it may wait for another job's results): a frame that is ready does not wait
    # for the one before it to be written.
    with ThreadPoolExecutor(thread_name_prefix="files") as pool:
        jobs = [
            pool.submit(_collect, frame, f"{staging.parent.name}: files of {staging.name}")
            for frame in ([frames] if isinstance(frames, DataFrame) else frames)
        ]
    written = [row["file"] for job in jobs for row in job.result()]
    if len(set(written)) != len(written):
        raise RuntimeError(f"{staging}: two tasks wrote one file: {sorted(written)}")
    for entry in staging.iterdir():
        # Attempts that failed or lost a race leave their hidden partial files.
        if entry.name.startswith("."):
            entry.unlink()
    found = sorted(entry.name for entry in staging.iterdir())
    if found != sorted(written):
        raise RuntimeError(f"{staging}: tasks reported {sorted(written)}, found {found}")
    if not written:
        # No rows at all: one empty file, so that readers still find the columns.
        pq.write_table(
            output.schema.empty_table(), staging / "part-00000.zstd.parquet", compression="zstd"
        )


def _collect(frame: DataFrame, description: str) -> list[Any]:
    # Named for the Spark UI and event log, which would otherwise show this thread's
    # call site (concurrent.futures) for every dataset's jobs.
    frame.sparkSession.sparkContext.setJobDescription(description)
    return frame.collect()


def _stage_all(work: Mapping[str, tuple[TaskFiles, Path]]) -> None:
    # Every dataset's Spark job at once, one driver thread each: a job whose stage runs
    # fewer tasks than there are cores (a dataset written by one sorted task, a small
    # join) leaves cores to the other's tasks. The files do not depend on it: each
    # dataset's frames decide which rows go into which of its files. Waits for all;
    # the first failure, in the datasets' order, is raised.
    if len(work) < 2:
        for output, staging in work.values():
            _stage(output, staging)
        return
    with ThreadPoolExecutor(max_workers=len(work), thread_name_prefix="stage") as pool:
        futures = [pool.submit(_stage, output, staging) for output, staging in work.values()]
        wait(futures)
    for future in futures:
        error = future.exception()
        if error is not None:
            raise error


def write_run(outputs: Mapping[str, TaskFiles], out: str | Path, run: str) -> dict[str, Path]:
    """Write the datasets of one run and swap each into place.

    Every dataset is computed and staged before any is swapped in, so a failure while
    computing any of them leaves every dataset as it was. The datasets' Spark jobs run
    side by side (`_stage_all`).

    Args:
        outputs: Dataset name -> what to write.
        out: The output root.
        run: The run key (the data interval's key).

    Returns:
        Dataset name -> its run folder.
    """
    out = Path(out)
    token = uuid.uuid4().hex[:12]
    staged: dict[str, Path] = {}
    created: list[Path] = []
    try:
        for name in outputs:
            dataset_dir = out / name
            for folder in (out, dataset_dir):
                if not folder.exists():
                    folder.mkdir(parents=True)
                    created.append(folder)
            _recover(dataset_dir, run)
            staged[name] = dataset_dir / f".staging-run={run}-{token}"
        _stage_all({name: (outputs[name], staging) for name, staging in staged.items()})
    except BaseException:
        for staging in staged.values():
            shutil.rmtree(staging, ignore_errors=True)
        for folder in reversed(created):
            # Only what this call created, and only if still empty.
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    done: dict[str, Path] = {}
    for name, staging in staged.items():
        target = run_path(out, name, run)
        aside = target.parent / f".replaced-run={run}-{token}"
        if target.exists():
            os.replace(target, aside)
        os.replace(staging, target)
        shutil.rmtree(aside, ignore_errors=True)
        done[name] = target
    return done
