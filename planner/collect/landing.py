"""Landing files: the figures teams export, as CSV, JSON lines or Parquet.

    LANDING/
      throughput/  *.csv | *.jsonl | *.parquet   topic, ts, bytes_in_per_s, records_in_per_s,
                                                 [bytes_out_per_s], [unit]
      topics/      ...                           topic, partitions, replication_factor, keyed,
                                                 [partitioner], [retention_ms], [replicas]
      capacity/    ...                           topic or *, producer_/consumer_/share_fetch_
                                                 mib/records, [group_id]
      groups/      ...                           group_id, topic, strategy, members, [protocol],
                                                 [consumer_records_per_s, capacity_source,
                                                 capacity_evidence, lag_records, lag_seconds,
                                                 lag_trend], [client_rack],
                                                 [stream_threads], [standby_replicas]
      keys/        ...                           topic, key or key_hex, count
      cluster/     ...                           broker_id, [rack], [live]
      perf/        NAME.producer.txt, NAME.consumer.txt, NAME.share.txt,
                   *.txt with `# topic: NAME`

The columns are the canonical ones (`planner.figures.schema`); a throughput file may add
a `unit` column for its byte rates. Files are read in name order, folders in the order
above; when two rows share a key, the first one read wins and the other is rejected.
Capacity rows from `capacity/` come before those measured from `perf/`, so a curated
figure overrides a measurement. A capacity row with a `group_id` is that group's own Tc
on the topic (records/s); it wins over the groups file's and any learned figure
(`planner.collect.consumption.with_given`). A groups row with `consumer_records_per_s`
and no `capacity_source` is curated: `given`.

A row that breaks a rule goes to the `rejected` table with its file, row and field; a
file that cannot be read at all (not CSV, a required column missing) raises
`FiguresError` and the collection stops, since a half-read export is worse than none.
Row numbers are line numbers for CSV (the header is line 1) and JSON lines, and row
positions from 1 for Parquet.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from planner.adapters.perf_test import read_perf_test
from planner.collect.base import Collected
from planner.figures.conform import FiguresError, conform, rejections
from planner.figures.dataset import DataInterval
from planner.figures.schema import TABLES
from planner.partition_capacity import PerfRun, PerfTestError, partition_capacity

__all__ = ["FORMATS", "LandingSource", "read_landing_file"]

FORMATS = (".csv", ".jsonl", ".parquet")
_FOLDERS = ("throughput", "topics", "capacity", "groups", "keys", "cluster")


def _read_csv(path: Path, label: str) -> tuple[pa.Table, list[tuple[int | None, str]]]:
    """Every column as text (the conform step parses), and the rows of the wrong width."""
    with path.open("rb") as handle:
        header = handle.readline().decode("utf-8-sig", errors="replace").strip()
    if not header:
        raise FiguresError(f"{label}: row 1: the file is empty (a CSV header is needed)")
    columns = [c.strip() for c in next(csv.reader([header]))]
    bad: list[tuple[int | None, str]] = []

    def on_invalid(row: pacsv.InvalidRow) -> str:
        bad.append(
            (
                row.number,
                f"expected {row.expected_columns} fields, got {row.actual_columns}: "
                f"{row.text[:120]!r}",
            )
        )
        return "skip"

    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(use_threads=False, column_names=columns, skip_rows=1),
            parse_options=pacsv.ParseOptions(invalid_row_handler=on_invalid),
            convert_options=pacsv.ConvertOptions(
                column_types={c: pa.string() for c in columns},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        raise FiguresError(f"{label}: not a readable CSV file: {exc}") from None
    return table, bad


def _read_jsonl(path: Path, label: str) -> pa.Table:
    try:
        return pajson.read_json(path)
    except pa.ArrowInvalid:
        pass
    # Find the line Arrow choked on, so the error can name it.
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise FiguresError(f"{label}: row {number}: not JSON: {exc.msg}") from None
            if not isinstance(value, dict):
                raise FiguresError(f"{label}: row {number}: not a JSON object")
    # Valid JSON objects whose types Arrow cannot unify: read as text, let conform judge.
    rows = [
        json.loads(line)
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
        if line.strip()
    ]
    keys = sorted({k for row in rows for k in row})
    return pa.table(
        {
            k: pa.array(
                [None if row.get(k) is None else json.dumps(row[k]).strip('"') for row in rows],
                pa.string(),
            )
            for k in keys
        }
    )


def read_landing_file(
    path: Path, label: str
) -> tuple[pa.Table, np.ndarray, list[tuple[int | None, str]]]:
    """Read one landing file as raw columns.

    Returns:
        The raw table, each row's number in the file, and rows that could not be split
        into fields (CSV only) as (row number, reason).

    Raises:
        FiguresError: the file cannot be read as its extension says.
    """
    suffix = path.suffix.lower()
    if suffix == ".csv":
        table, bad = _read_csv(path, label)
        skipped = np.array(sorted(n for n, _ in bad if n is not None), dtype=np.int64)
        lines = np.arange(2, 2 + table.num_rows + skipped.size, dtype=np.int64)
        return table, np.setdiff1d(lines, skipped, assume_unique=True), bad
    if suffix == ".jsonl":
        table = _read_jsonl(path, label)
        return table, np.arange(1, table.num_rows + 1, dtype=np.int64), []
    if suffix == ".parquet":
        try:
            table = pq.read_table(path)
            return table, np.arange(1, table.num_rows + 1, dtype=np.int64), []
        except (pa.ArrowInvalid, OSError) as exc:
            raise FiguresError(f"{label}: not a readable Parquet file: {exc}") from None
    raise FiguresError(f"{label}: unknown file type (expected {', '.join(FORMATS)})")


class LandingSource:
    """Figures from a landing folder (see the module docstring for the layout)."""

    def __init__(self, root: str | Path, *, name: str = "landing") -> None:
        self.root = Path(root)
        self.name = name

    def _files(self, folder: str) -> list[Path]:
        base = self.root / folder
        if not base.is_dir():
            return []
        return sorted(
            p for p in base.iterdir() if p.is_file() and not p.name.startswith((".", "_"))
        )

    def collect(self, interval: DataInterval, *, run: DataInterval | None = None) -> Collected:
        """Read every landing file; throughput rows outside `interval` are left out.

        Raises:
            FiguresError: the landing folder is missing, or a file cannot be read.
        """
        if not self.root.is_dir():
            raise FiguresError(f"{self.name}: landing folder {self.root} does not exist")
        out = Collected()
        outside = 0
        for folder in _FOLDERS:
            for path in self._files(folder):
                label = f"{self.name}:{path}"
                if path.suffix.lower() not in FORMATS:
                    out.notes.append(f"{label}: ignored (not {', '.join(FORMATS)})")
                    continue
                raw, numbers, unsplit = read_landing_file(path, label)
                if unsplit:
                    out.rejected.append(
                        rejections(
                            folder,
                            label,
                            [n for n, _ in unsplit],
                            [None] * len(unsplit),
                            [None] * len(unsplit),
                            [reason for _, reason in unsplit],
                        )
                    )
                conformed = conform(folder, raw, source=label, row_numbers=numbers)
                if folder == "throughput" and conformed.table.num_rows:
                    ts = conformed.table.column("ts")
                    inside = pc.and_(
                        pc.greater_equal(ts, pa.scalar(interval.start, ts.type)),
                        pc.less(ts, pa.scalar(interval.end, ts.type)),
                    )
                    kept = conformed.table.filter(inside)
                    outside += conformed.table.num_rows - kept.num_rows
                    rows = conformed.rows.filter(inside) if conformed.rows is not None else None
                    conformed = type(conformed)(kept, conformed.rejected, rows)
                out.add(folder, conformed)
        if outside:
            out.notes.append(f"{self.name}: {outside} throughput rows outside {interval} left out")
        self._collect_perf(out)
        return out

    def _collect_perf(self, out: Collected) -> None:
        """Capacity rows measured by Kafka's perf tools (`perf/`), one per topic."""
        runs: dict[str, list[PerfRun]] = defaultdict(list)
        files: dict[str, list[str]] = defaultdict(list)
        for path in self._files("perf"):
            label = f"{self.name}:{path}"
            try:
                found = read_perf_test(path)
            except PerfTestError as exc:
                out.rejected.append(
                    rejections("capacity", label, [_line_of(str(exc))], [None], [None], [str(exc)])
                )
                continue
            for run in found:
                runs[run.topic].append(run)
                files[run.topic].append(path.name)
        if not runs:
            return
        rows: dict[str, list[object]] = {c.name: [] for c in TABLES["capacity"].columns}
        for topic in sorted(runs):
            capacity = partition_capacity(runs[topic], topic)
            rows["topic"].append(topic)
            rows["producer_mib_per_s"].append(capacity.tp_mib_per_s)
            rows["producer_records_per_s"].append(capacity.tp_records_per_s)
            rows["consumer_mib_per_s"].append(capacity.tc_mib_per_s)
            rows["consumer_records_per_s"].append(capacity.tc_records_per_s)
            rows["share_fetch_mib_per_s"].append(capacity.share_fetch_mib_per_s)
            rows["share_fetch_records_per_s"].append(capacity.share_fetch_records_per_s)
            rows["record_bytes"].append(None)
            rows["source"].append(f"{self.name}:perf:{'+'.join(sorted(set(files[topic])))}")
            rows["measured_at"].append(None)
            rows["group_id"].append(None)  # a perf test measures the topic, not a group
            out.notes.extend(f"perf {topic}: {note}" for note in capacity.notes)
        raw = pa.table(rows, schema=TABLES["capacity"].schema)
        out.add("capacity", conform("capacity", raw, source=f"{self.name}:perf"))


def _line_of(message: str) -> int | None:
    """The line number a `PerfTestError` message names (`...: line N: ...`), if any."""
    marker = ": line "
    if marker not in message:
        return None
    digits = message.split(marker, 1)[1].split(":", 1)[0]
    return int(digits) if digits.isdigit() else None
