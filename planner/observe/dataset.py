"""The observations dataset on disk: append-only samples, crash-safe, bounded in days.

    OBSERVATIONS/
      .observer.lock                     held by the one observer writing here
      day=2026-11-27/
        s=20261127T102000.123456Z/       one sample: a Parquet file per table
          sample.parquet  partitions.parquet  topics.parquet  records.parquet ...
        s=20261127T102100.117002Z/
        ...
      day=2026-11-26/
        compacted/                       the closed day's samples, one file per table
          _samples.json                  the sample folders it holds
          sample.parquet  partitions.parquet ...

**Append-only and crash-safe.** A sample is written into a hidden folder beside its
day (`.s=...tmp-<uuid>`), each file flushed to disk, and renamed into place whole: a
reader sees the whole sample or none of it. An observer killed (even with SIGKILL) in
the middle of a write leaves only a hidden folder, which no reader looks at and the
next observer removes: it loses the sample in flight and nothing that was there.

**Compaction.** A day has up to 1,440 samples at the default period (8,640 at 10 s),
each a handful of small files. Once a day is over, the observer rewrites its samples as
one file per table (`compacted/`, again written hidden and renamed into place), then
removes the sample folders it holds. `compacted/_samples.json` names them, so a reader
that finds both reads each sample once; one that finds a sample folder gone between
listing and reading (compaction finished meanwhile) reads the day again.

**Bounded.** Days older than the retention (35 days by default) are removed, renamed
away first so that a reader never sees half a day.

Only one observer writes a dataset at a time (`writer`, an advisory lock); any number
of collections read it meanwhile.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from planner.figures.schema import TIMESTAMP
from planner.observe.tables import SAMPLE_TABLE, TABLES, empty_table

__all__ = ["ObservationsDataset", "ObserverRunning", "sample_folder_name"]

_DAY = re.compile(r"day=(\d{4}-\d{2}-\d{2})")
_SAMPLE = re.compile(r"s=(\d{8}T\d{6}\.\d{6})Z")
_SAMPLE_FORMAT = "%Y%m%dT%H%M%S.%f"
_COMPACTED = "compacted"
_COMPACTED_LIST = "_samples.json"
_LOCK = ".observer.lock"
_READ_ATTEMPTS = 3


class ObserverRunning(RuntimeError):
    """Another observer holds the dataset's writer lock."""


def sample_folder_name(ts: datetime) -> str:
    """The folder name of the sample taken at `ts` (UTC, microseconds)."""
    return f"s={ts.astimezone(UTC).strftime(_SAMPLE_FORMAT)}Z"


def _sample_time(name: str) -> datetime | None:
    match = _SAMPLE.fullmatch(name)
    if match is None:
        return None
    return datetime.strptime(match.group(1), _SAMPLE_FORMAT).replace(tzinfo=UTC)


def _day_start(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _write_parquet_synced(table: pa.Table, path: Path) -> None:
    with open(path, "wb") as out:
        pq.write_table(table, out, compression="zstd")
        out.flush()
        os.fsync(out.fileno())


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ObservationsDataset:
    """One observations folder: samples appended by an observer, read by collections.

    Attributes:
        root: The dataset's folder.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    # --- writing (the observer, holding `writer`) ------------------------------------------

    @contextlib.contextmanager
    def writer(self) -> Iterator[None]:
        """Hold the dataset's writer lock for the `with` block, or fail at once.

        The kernel releases the lock when its holder dies, so a killed observer never
        leaves the dataset locked. On entry, what a killed writer left half-written is
        removed.

        Raises:
            ObserverRunning: another process holds the lock.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ObserverRunning(
                    f"{self.root}: another observer is writing here (it holds {_LOCK}); "
                    f"stop it first, or give this one another folder"
                ) from None
            self.remove_unfinished()
            yield
        finally:
            os.close(fd)

    def remove_unfinished(self) -> list[Path]:
        """Remove the hidden folders a killed writer left (call only as the writer)."""
        gone: list[Path] = []
        if not self.root.is_dir():
            return gone
        folders = [self.root, *self._day_folders().values()]
        for folder in folders:
            for entry in folder.iterdir():
                if entry.name.startswith(".") and entry.name != _LOCK and entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
                    gone.append(entry)
        return gone

    def append(self, ts: datetime, tables: Mapping[str, pa.Table]) -> Path:
        """Write one sample, whole.

        Args:
            ts: The sample's time (UTC); every row of every table carries it.
            tables: The sample's tables by name (`planner.observe.tables.TABLES`); a
                table not given is written empty. `sample` must have its one row.

        Returns:
            The sample's folder.
        """
        if tables.get(SAMPLE_TABLE) is None or tables[SAMPLE_TABLE].num_rows != 1:
            raise ValueError("a sample needs its one `sample` row")
        unknown = set(tables) - set(TABLES)
        if unknown:
            raise ValueError(f"unknown observation table(s): {', '.join(sorted(unknown))}")
        day = self.root / f"day={ts.astimezone(UTC).date().isoformat()}"
        day.mkdir(parents=True, exist_ok=True)
        name = sample_folder_name(ts)
        staging = day / f".{name}.tmp-{uuid.uuid4().hex[:8]}"
        staging.mkdir()
        try:
            for table_name, schema in TABLES.items():
                table = tables.get(table_name)
                table = empty_table(table_name) if table is None else table.cast(schema)
                _write_parquet_synced(table, staging / f"{table_name}.parquet")
            _sync_folder(staging)
            target = day / name
            os.rename(staging, target)  # a folder's rename is atomic
            _sync_folder(day)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return target

    def compact(self, day: date) -> bool:
        """Rewrite a closed day's samples as one file per table (call only as the writer).

        Returns:
            Whether there was anything to compact.
        """
        folder = self.root / f"day={day.isoformat()}"
        if not folder.is_dir() or (folder / _COMPACTED).exists():
            return False
        samples = self._sample_folders(folder)
        if not samples:
            return False
        staging = folder / f".{_COMPACTED}.tmp-{uuid.uuid4().hex[:8]}"
        staging.mkdir()
        try:
            for name in TABLES:
                table = _read_files([s / f"{name}.parquet" for s in samples.values()], name)
                _write_parquet_synced(table, staging / f"{name}.parquet")
            listing = staging / _COMPACTED_LIST
            listing.write_text(json.dumps(sorted(samples)), encoding="utf-8")
            _sync_folder(staging)
            os.rename(staging, folder / _COMPACTED)
            _sync_folder(folder)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        for sample in samples.values():
            shutil.rmtree(sample, ignore_errors=True)
        return True

    def prune(self, *, keep_days: int, now: datetime) -> list[date]:
        """Remove the days that ended more than `keep_days` days before `now`.

        Returns:
            The days removed.
        """
        cutoff = now.astimezone(UTC) - timedelta(days=keep_days)
        removed: list[date] = []
        for day, folder in self._day_folders().items():
            if _day_start(day) + timedelta(days=1) <= cutoff:
                doomed = self.root / f".expired-{folder.name}-{uuid.uuid4().hex[:8]}"
                os.rename(folder, doomed)
                shutil.rmtree(doomed, ignore_errors=True)
                removed.append(day)
        return removed

    # --- reading ---------------------------------------------------------------------------

    def days(self) -> list[date]:
        """The days holding samples, oldest first."""
        return sorted(self._day_folders())

    def read(self, name: str, start: datetime, end: datetime) -> pa.Table:
        """The rows of table `name` of every sample taken in `[start, end)`, by time.

        Samples are read whole or not at all: a sample being written is not seen.
        """
        if name not in TABLES:
            raise ValueError(f"unknown observation table {name!r}")
        start, end = start.astimezone(UTC), end.astimezone(UTC)
        pieces: list[pa.Table] = []
        for day, folder in self._day_folders().items():
            if _day_start(day) >= end or _day_start(day) + timedelta(days=1) <= start:
                continue
            pieces.append(self._read_day(folder, name, start, end))
        if not pieces:
            return empty_table(name)
        table = pa.concat_tables(pieces)
        return table.take(pc.sort_indices(table, sort_keys=[("ts", "ascending")]))

    def sample_times(self, start: datetime, end: datetime) -> list[datetime]:
        """When the samples in `[start, end)` were taken, oldest first."""
        return list(self.read(SAMPLE_TABLE, start, end).column("ts").to_pylist())

    def _day_folders(self) -> dict[date, Path]:
        if not self.root.is_dir():
            return {}
        found: dict[date, Path] = {}
        for entry in self.root.iterdir():
            match = _DAY.fullmatch(entry.name)
            if match and entry.is_dir():
                found[date.fromisoformat(match.group(1))] = entry
        return dict(sorted(found.items()))

    @staticmethod
    def _sample_folders(folder: Path) -> dict[str, Path]:
        return {
            entry.name: entry
            for entry in sorted(folder.iterdir())
            if _sample_time(entry.name) is not None and entry.is_dir()
        }

    def _read_day(self, folder: Path, name: str, start: datetime, end: datetime) -> pa.Table:
        for attempt in range(_READ_ATTEMPTS):
            try:
                return self._read_day_once(folder, name, start, end)
            except FileNotFoundError:
                # Compaction moved the samples while they were read; retention may have
                # removed the whole day: either way, what is there now is read again.
                if attempt == _READ_ATTEMPTS - 1 or not folder.is_dir():
                    if not folder.is_dir():
                        return empty_table(name)
                    raise
        raise AssertionError("unreachable")

    def _read_day_once(self, folder: Path, name: str, start: datetime, end: datetime) -> pa.Table:
        files: list[Path] = []
        compacted = folder / _COMPACTED
        held: set[str] = set()
        if compacted.is_dir():
            held = set(json.loads((compacted / _COMPACTED_LIST).read_text(encoding="utf-8")))
            files.append(compacted / f"{name}.parquet")
        for sample_name, sample in self._sample_folders(folder).items():
            moment = _sample_time(sample_name)
            if sample_name in held or moment is None or not start <= moment < end:
                continue
            files.append(sample / f"{name}.parquet")
        table = _read_files(files, name)
        if compacted.is_dir() and table.num_rows:
            ts = table.column("ts")
            keep = pc.and_(
                pc.greater_equal(ts, pa.scalar(start, TIMESTAMP)),
                pc.less(ts, pa.scalar(end, TIMESTAMP)),
            )
            table = table.filter(keep)
        return table


def _read_files(files: Sequence[Path], name: str) -> pa.Table:
    """The rows of `files` (Parquet, table `name`), in the table's current schema.

    A file written before a column existed reads it as null.
    """
    if not files:
        return empty_table(name)
    schema = TABLES[name]
    dataset = ds.dataset([str(f) for f in files], format="parquet", schema=schema)
    return dataset.to_table()
