"""The figures dataset on disk: one folder per data interval, replaced whole.

    FIGURES/
      interval=20261121T0000Z/          the interval [2026-11-21 00:00, 2026-11-22 00:00) UTC
        _manifest.json                  interval, tables and row counts, sources, written_at
        throughput.parquet
        topics.parquet  capacity.parquet  groups.parquet  keys.parquet  cluster.parquet
        rejected.parquet
      interval=20261122T0000Z/
        ...

The two large tables are written sorted by topic (`throughput` by topic, then time;
`keys` by topic, each topic's rows in the order they arrived; a table that arrives
sorted is not sorted again), and every table in row groups of about 1/128 of its rows
(at least 4,096), so that a reader wanting a range of topics finds from the footers'
statistics which few row groups to read: the sizing job's tasks read their own topics'
samples and key rows that way (`spark_jobs.units`).

A write goes to a staging folder beside the target and is renamed into place only once
every file and the manifest are complete, so a reader (or a rerun, or an Airflow
backfill of the same interval) sees either the old interval or the new one, never a
mix. A folder without a manifest is not an interval. If a writer dies between moving
the old folder aside and moving the new one in, the next write or read puts the old one
back.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from planner.figures.conform import unified_codes
from planner.figures.schema import REJECTED, TABLES

__all__ = [
    "MANIFEST",
    "DataInterval",
    "interval_path",
    "list_intervals",
    "read_manifest",
    "read_table",
    "remove_staging",
    "write_interval",
]

MANIFEST = "_manifest.json"
_KEY_FORMAT = "%Y%m%dT%H%MZ"
_FOLDER = re.compile(r"interval=(\d{8}T\d{4}Z)")


@dataclass(frozen=True, order=True)
class DataInterval:
    """A half-open span of time [start, end) in UTC that a run's figures belong to.

    Attributes:
        start: First instant, UTC.
        end: First instant after the interval, UTC.
    """

    start: datetime
    end: datetime

    def __post_init__(self) -> None:
        for moment in (self.start, self.end):
            if moment.tzinfo is None:
                raise ValueError(f"interval bounds must carry a time zone, got {moment}")
        object.__setattr__(self, "start", self.start.astimezone(UTC))
        object.__setattr__(self, "end", self.end.astimezone(UTC))
        if self.end <= self.start:
            raise ValueError(f"interval end {self.end} is not after its start {self.start}")
        if self.start.second or self.start.microsecond:
            raise ValueError(f"interval start {self.start} must be a whole minute")

    @classmethod
    def day(cls, day: date) -> DataInterval:
        """The UTC day `day`."""
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        return cls(start, start + timedelta(days=1))

    @classmethod
    def parse(cls, text: str) -> DataInterval:
        """`2026-11-21` (that UTC day) or `START/END` in ISO 8601 (UTC unless stated)."""
        text = text.strip()
        try:
            if "/" not in text:
                return cls.day(date.fromisoformat(text))
            first, last = (cls._moment(part) for part in text.split("/", 1))
        except ValueError as exc:
            raise ValueError(
                f"data interval {text!r}: expected YYYY-MM-DD or START/END in ISO 8601 ({exc})"
            ) from None
        return cls(first, last)

    @staticmethod
    def _moment(text: str) -> datetime:
        moment = datetime.fromisoformat(text.strip())
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

    @property
    def key(self) -> str:
        """The folder key: its start, e.g. `20261121T0000Z`."""
        return self.start.strftime(_KEY_FORMAT)

    @property
    def days(self) -> float:
        """Its length in days."""
        return (self.end - self.start).total_seconds() / 86_400

    def __str__(self) -> str:
        return f"{self.start.isoformat()}/{self.end.isoformat()}"

    def split_days(self) -> list[DataInterval]:
        """The UTC days this interval covers, each clipped to the interval."""
        out: list[DataInterval] = []
        cursor = self.start
        while cursor < self.end:
            midnight = datetime(cursor.year, cursor.month, cursor.day, tzinfo=UTC)
            nxt = min(midnight + timedelta(days=1), self.end)
            out.append(DataInterval(cursor, nxt))
            cursor = nxt
        return out


def interval_path(root: str | Path, interval: DataInterval | str) -> Path:
    """The folder of `interval` (or of an interval key) under `root`."""
    key = interval if isinstance(interval, str) else interval.key
    return Path(root) / f"interval={key}"


def _recover(root: Path) -> None:
    """Undo what a writer that died half-way left behind."""
    if not root.is_dir():
        return
    for entry in root.iterdir():
        name = entry.name
        if name.startswith(".replaced-"):
            key = name.split("-", 2)[1]
            target = interval_path(root, key)
            if target.exists():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                os.replace(entry, target)


def remove_staging(root: str | Path) -> list[Path]:
    """Remove the staging folders writers killed half-way left under `root`.

    Only for a caller that holds the folder's collection lock (`planner.collect.run`):
    a staging folder is then no live writer's.

    Returns:
        The folders removed.
    """
    root = Path(root)
    if not root.is_dir():
        return []
    stale = [entry for entry in root.iterdir() if entry.name.startswith(".staging-")]
    for entry in stale:
        shutil.rmtree(entry, ignore_errors=True)
    return stale


# Row groups: about this many per file, of at least _MIN_GROUP_ROWS rows each.
_GROUPS_PER_FILE = 128
_MIN_GROUP_ROWS = 4_096


def _row_group_rows(rows: int) -> int:
    return max(_MIN_GROUP_ROWS, -(-rows // _GROUPS_PER_FILE))


# The tables written sorted, and their sort keys.
_SORTED_BY: Mapping[str, tuple[str, ...]] = {"throughput": ("topic", "ts"), "keys": ("topic",)}


def _sort_column(column: pa.ChunkedArray) -> pa.ChunkedArray | pa.Array:
    # Arrow sorts no dictionary-encoded column, and comparing one decodes it: each code
    # becomes its value's rank instead.
    if not pa.types.is_dictionary(column.type):
        return column
    codes, values = unified_codes(column)
    rank = np.empty(len(values), dtype=np.int64)
    rank[pc.sort_indices(values).to_numpy()] = np.arange(len(values))
    return pa.array(rank[codes])


def _in_order(by: pa.Table) -> bool:
    # Whether every row is at or after the one before it, comparing the columns in turn.
    keys = by.column_names
    head, tail = by.slice(0, by.num_rows - 1), by.slice(1)
    after = pc.greater_equal(tail.column(keys[-1]), head.column(keys[-1]))
    for key in reversed(keys[:-1]):
        before, now = head.column(key), tail.column(key)
        after = pc.or_(pc.greater(now, before), pc.and_(pc.equal(now, before), after))
    return bool(pc.all(after).as_py())


def _sorted(name: str, table: pa.Table) -> pa.Table:
    # Checking costs a comparison per row; sorting 20 M key rows takes seconds, and the
    # sample fleet and the Prometheus source give sorted tables already.
    keys = _SORTED_BY.get(name)
    if keys is None or table.num_rows < 2:
        return table
    by = pa.table({k: _sort_column(table.column(k)) for k in keys})
    if _in_order(by):
        return table
    return table.take(pc.sort_indices(by, sort_keys=[(k, "ascending") for k in keys]))


def _as_written(schema: pa.Schema) -> pa.Schema:
    # Dictionary-encoded columns (collection keeps `source` and `topic` so) are written as
    # their values.
    return pa.schema(
        [f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema],
        metadata=schema.metadata,
    )


def _write_table(table: pa.Table, path: Path) -> None:
    # Row group by row group, so a dictionary-encoded column is turned back into text a
    # group at a time rather than for the whole table at once.
    schema = _as_written(table.schema)
    rows = _row_group_rows(table.num_rows)
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        # An empty table still gets its one (empty) row group.
        for start in range(0, max(table.num_rows, 1), rows):
            writer.write_table(table.slice(start, rows).cast(schema), row_group_size=rows)


def write_interval(
    root: str | Path,
    interval: DataInterval,
    tables: Mapping[str, pa.Table],
    *,
    sources: Iterable[str] = (),
    notes: Mapping[str, Any] | None = None,
) -> Path:
    """Write (or replace) the figures of one interval, all at once.

    Args:
        root: The dataset folder (created if missing).
        interval: The data interval.
        tables: Canonical tables by name; `rejected` too. Tables not given are absent
            from the interval (a history interval may hold only `throughput`).
        sources: The sources the figures came from, for the manifest.
        notes: More facts for the manifest (counts per source, warnings).

    Returns:
        The interval's folder.
    """
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    _recover(root)
    for name, table in tables.items():
        spec = REJECTED if name == "rejected" else TABLES.get(name)
        if spec is None:
            raise ValueError(f"unknown figures table {name!r}")
        if not _as_written(table.schema).equals(spec.schema):
            raise ValueError(f"table {name!r} does not have the canonical schema: {table.schema}")
    token = uuid.uuid4().hex[:12]
    staging = root / f".staging-{interval.key}-{token}"
    staging.mkdir()
    try:
        counts = {}
        for name, table in tables.items():
            _write_table(_sorted(name, table), staging / f"{name}.parquet")
            counts[name] = table.num_rows
        manifest = {
            "interval": {"start": interval.start.isoformat(), "end": interval.end.isoformat()},
            "key": interval.key,
            "tables": counts,
            "sources": sorted(set(sources)),
            "written_at": datetime.now(UTC).isoformat(),
            "notes": dict(notes or {}),
        }
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
        target = interval_path(root, interval)
        aside = root / f".replaced-{interval.key}-{token}"
        if target.exists():
            os.replace(target, aside)
        os.replace(staging, target)
        shutil.rmtree(aside, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        _recover(root)
        raise
    return target


def read_manifest(root: str | Path, interval: DataInterval | str) -> dict[str, Any] | None:
    """The manifest of an interval, or None when the interval was never written."""
    path = interval_path(root, interval) / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    return manifest


def list_intervals(root: str | Path) -> list[DataInterval]:
    """Every complete interval under `root`, oldest first."""
    root = Path(root)
    _recover(root)
    found: list[DataInterval] = []
    if not root.is_dir():
        return found
    for entry in root.iterdir():
        if not _FOLDER.fullmatch(entry.name):
            continue
        manifest = read_manifest(root, entry.name.split("=", 1)[1])
        if manifest is None:
            continue
        span = manifest["interval"]
        found.append(
            DataInterval(datetime.fromisoformat(span["start"]), datetime.fromisoformat(span["end"]))
        )
    return sorted(found)


def read_table(root: str | Path, interval: DataInterval | str, name: str) -> pa.Table | None:
    """One table of one interval, or None when that interval does not hold it."""
    manifest = read_manifest(root, interval)
    if manifest is None or name not in manifest["tables"]:
        return None
    spec = REJECTED if name == "rejected" else TABLES[name]
    table: pa.Table = pq.read_table(
        interval_path(root, interval) / f"{name}.parquet", schema=spec.schema
    )
    return table
