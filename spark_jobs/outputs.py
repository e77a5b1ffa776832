"""Writing a run's datasets: deterministic files, swapped into place whole.

    OUT/
      sizing/run=20261121T0000Z/part-00000.zstd.parquet
      simulations/run=20261121T0000Z/part-00000.zstd.parquet  part-00001...
      recommendations/run=20261121T0000Z/part-00000.zstd.parquet

Each dataset of a run is written by Spark into a hidden staging folder beside its target
(`.staging-run=KEY-TOKEN`, which Spark and PyArrow readers skip), tidied (Spark's
random part-file names become `part-NNNNN`, checksum and marker files go), and only then
renamed into place; an existing folder for the same run is moved aside first and deleted
after. A reader sees the old run or the new one, never a mix, and other runs are never
touched. A failure before the swap leaves nothing behind; a writer killed between the two
renames is repaired by the next write (the old folder is put back).

Rows are hash-partitioned into a fixed number of files and sorted within each file, so
the same input gives the same files, row for row. (Not always byte for byte across
processes: Parquet's footer lists each column's encodings in an order that can differ
from one JVM to the next.) A frame whose partitions are already laid out that way (a
fixed number of them, each sorted) is written as it is (`Output.arranged`). Paths are
POSIX paths the driver and every executor see (a local disk for `local[*]` or a
one-machine cluster, a shared mount otherwise); see docs/spark-jobs.md.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["Output", "run_path", "write_run"]

_PART = re.compile(r"part-(\d{5})-.*?(\.[a-z0-9]+)?\.parquet$")


@dataclass(frozen=True)
class Output:
    """One dataset of a run and how its files are laid out.

    Attributes:
        frame: The rows.
        files: Parquet files to write (rows are hash-partitioned over them by
            `partition_by`; one file when 1).
        partition_by: Columns whose hash picks a row's file.
        sort_by: Columns the rows of each file are sorted by (a total order: with ties
            the file would not be the same from one run to the next).
        arranged: The frame's partitions are the files already, each sorted by
            `sort_by`, and which row lands in which partition is fixed by the input:
            written as they are, without a shuffle and a sort (`files` and
            `partition_by` then describe the layout, for the reader).
    """

    frame: DataFrame
    files: int
    partition_by: Sequence[str]
    sort_by: Sequence[str]
    arranged: bool = False


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


def _tidy(folder: Path) -> None:
    # Spark names part files part-NNNNN-<random uuid>-c000.<codec>.parquet and adds
    # .crc checksums and a _SUCCESS marker; keep the data under stable names only.
    for entry in sorted(folder.iterdir()):
        match = _PART.match(entry.name)
        if match:
            entry.rename(folder / f"part-{match.group(1)}{match.group(2) or ''}.parquet")
        elif entry.name.endswith(".crc") or entry.name == "_SUCCESS":
            entry.unlink()


def _stage(output: Output, staging: Path) -> None:
    frame = output.frame
    if not output.arranged:
        if output.files == 1:
            frame = frame.repartition(1)
        else:
            frame = frame.repartition(output.files, *output.partition_by)
        frame = frame.sortWithinPartitions(*output.sort_by)
    frame.write.option("compression", "zstd").mode("errorifexists").parquet(str(staging))
    _tidy(staging)


def write_run(outputs: Mapping[str, Output], out: str | Path, run: str) -> dict[str, Path]:
    """Write the datasets of one run and swap each into place.

    Every dataset is computed and staged before any is swapped in, so a failure while
    computing any of them leaves every dataset as it was.

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
        for name, output in outputs.items():
            dataset_dir = out / name
            for folder in (out, dataset_dir):
                if not folder.exists():
                    folder.mkdir(parents=True)
                    created.append(folder)
            _recover(dataset_dir, run)
            staging = dataset_dir / f".staging-run={run}-{token}"
            staged[name] = staging
            _stage(output, staging)
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
