"""Units of `size_partitions`: topic ranges, and the figures each one's task reads.

Planning a topic needs all of its hourly samples of the history window (a percentile
and a growth fit over every one) and, for a keyed topic, its whole key sample. Handing
those rows to Python through Spark costs more than planning them: on the 10,000-topic
fleet (7.2 M samples, 20 M key rows) Spark's row-to-Arrow conversion of the samples
alone took about 15 of the job's 45 CPU-seconds, against under 3 for the tasks reading
the same rows from the Parquet files with PyArrow. So the samples and the key rows are
not scanned by Spark: the driver cuts the fleet into *units*, ranges of topic names of
about equal planning cost, and finds from the Parquet footers (no data read) which row
groups of each file may hold a unit's topics; each unit's task reads those row groups,
keeps its own topics' rows (and, for the samples, only those in the pieces of time its
interval owns: `spark_jobs.figures.history_spans`), and plans its topics. Spark
schedules the units, brings each one its topics' facts, and writes the result.

Every topic belongs to exactly one unit whatever the files' layout: a unit reads every
row group whose topic statistics overlap its range and filters the rows by that range.
A file sorted by topic with small row groups (as `planner.figures.dataset` writes them)
is read about once in all; a layout that would make the units read more than twice the
data in all (statistics that overlap everywhere: not sorted) gets fewer units, down to
one.

The files must be readable at the same POSIX path from the driver and every executor,
which the jobs require of the figures anyway (docs/spark-jobs.md, section 8). Pure:
PyArrow and NumPy, no Spark.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

__all__ = [
    "KEYED_WEIGHT",
    "MAX_UNIT_WEIGHT",
    "RowGroup",
    "SampleFile",
    "TopicSamples",
    "Unit",
    "cut_units",
    "read_samples",
    "row_groups",
]

#: The most planning cost (in keyless topics) one unit takes: a larger fleet gets more
#: units than the few per core it is asked for, so that what one task holds (its topics'
#: samples and key rows, read whole) stays bounded. The 10,000-topic fleet's 8 units weigh
#: about 2,500 each; at 100,000 topics, 8 units held 7.4 GiB in the Python workers, 40
#: units 2.4 GiB (2026-11-26).
MAX_UNIT_WEIGHT = 5_000

#: The planning cost of a keyed topic in keyless topics, for cutting units of equal
#: cost: measured on the 10,000-topic fleet (2026-11-25), a keyless topic costs about
#: 0.5 ms and a keyed one with a 100,000-key sample about 25 ms (reading, ordering,
#: hashing and placing the sample). Units are a few per core, so Spark's scheduling
#: evens out the rest.
KEYED_WEIGHT = 50
# Units may read each file at most this many times over in all (row groups that straddle
# two units are read by both); past it, fewer units.
_MAX_READ_FACTOR = 2.0
_SAMPLE_COLUMNS = [
    "topic",
    "ts",
    "bytes_in_per_s",
    "records_in_per_s",
    "bytes_out_per_s",
    "busiest_group_bytes_out_per_s",
]
_MIB = float(2**20)


@dataclass(frozen=True)
class RowGroup:
    """One row group of a Parquet file and the range of topics its statistics give.

    Attributes:
        file: The file.
        index: Its number in the file.
        rows: Its rows.
        low: The smallest topic in it (None: no statistics, it may hold any topic).
        high: The largest topic in it (None: no statistics).
    """

    file: str
    index: int
    rows: int
    low: str | None
    high: str | None

    def overlaps(self, lo: str | None, hi: str | None) -> bool:
        """Whether it may hold a topic in `[lo, hi)` (None: unbounded)."""
        if self.low is None or self.high is None:
            return True
        return (lo is None or self.high >= lo) and (hi is None or self.low < hi)


def row_groups(path: str | Path) -> list[RowGroup]:
    """The row groups of a Parquet file (or of every file of a folder), from footers."""
    path = Path(path)
    files = (
        sorted(p for p in path.rglob("*.parquet") if not p.name.startswith((".", "_")))
        if path.is_dir()
        else [path]
    )
    out = []
    for file in files:
        meta = pq.ParquetFile(file).metadata
        column = meta.schema.names.index("topic")
        for i in range(meta.num_row_groups):
            group = meta.row_group(i)
            stats = group.column(column).statistics
            known = stats is not None and stats.has_min_max
            out.append(
                RowGroup(
                    str(file),
                    i,
                    group.num_rows,
                    str(stats.min) if known else None,
                    str(stats.max) if known else None,
                )
            )
    return out


@dataclass(frozen=True)
class SampleFile:
    """One interval's throughput file, as a unit reads it.

    Attributes:
        file: The file.
        row_groups: The row groups to read.
        pieces: The `[start, end)` spans of time, microseconds since the epoch (UTC),
            whose samples count from this file (`spark_jobs.figures.history_spans`).
    """

    file: str
    row_groups: tuple[int, ...]
    pieces: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Unit:
    """One task's share of the fleet.

    Attributes:
        unit: Its number.
        lo: The first topic it owns (None: from the first topic on).
        hi: The first topic it no longer owns (None: to the last topic).
        samples: The throughput files and row groups that may hold its topics' samples.
        keys: `(file, row group)` of the keys table that may hold its key rows.
    """

    unit: int
    lo: str | None
    hi: str | None
    samples: tuple[SampleFile, ...]
    keys: tuple[tuple[str, int], ...]

    def owns(self, topic: str) -> bool:
        """Whether `topic` is in this unit's range."""
        return (self.lo is None or topic >= self.lo) and (self.hi is None or topic < self.hi)


def _bounds(topics: Sequence[str], weights: Sequence[float], units: int) -> list[str]:
    # Unit starts (the first unit's excepted), so that each unit holds about an equal
    # share of the weight; topics sorted and distinct.
    total = float(sum(weights))
    bounds: list[str] = []
    seen = 0.0
    for topic, weight in zip(topics, weights, strict=True):
        # `seen` > 0: the first topic never starts a unit (it is the first unit's).
        if seen and len(bounds) < units - 1 and seen >= (len(bounds) + 1) * total / units:
            bounds.append(topic)
        seen += weight
    return bounds


def _cut(
    bounds: Sequence[str],
    samples: Sequence[tuple[Sequence[RowGroup], tuple[tuple[int, int], ...]]],
    keys: Sequence[RowGroup],
) -> list[Unit]:
    edges: list[str | None] = [None, *bounds, None]
    out = []
    for i, (lo, hi) in enumerate(pairwise(edges)):
        files = []
        for groups, pieces in samples:
            mine = tuple(g.index for g in groups if g.overlaps(lo, hi))
            if mine:
                files.append(SampleFile(groups[0].file, mine, pieces))
        parts = tuple((g.file, g.index) for g in keys if g.overlaps(lo, hi))
        out.append(Unit(i, lo, hi, tuple(files), parts))
    return out


def _read_factor(
    units: Sequence[Unit],
    samples: Sequence[tuple[Sequence[RowGroup], tuple[tuple[int, int], ...]]],
    keys: Sequence[RowGroup],
) -> float:
    rows = {(g.file, g.index): g.rows for groups, _ in samples for g in groups}
    rows.update({(g.file, g.index): g.rows for g in keys})
    total = sum(rows.values())
    read = sum(rows[(f.file, i)] for u in units for f in u.samples for i in f.row_groups)
    read += sum(rows[part] for u in units for part in u.keys)
    return read / total if total else 1.0


def cut_units(
    topics: Sequence[str],
    keyed: Sequence[bool],
    samples: Iterable[tuple[str | Path, Sequence[tuple[int, int]]]],
    keys: str | Path | None,
    *,
    units: int,
    max_weight: float = MAX_UNIT_WEIGHT,
) -> list[Unit]:
    """Cut the fleet into about `units` units of about equal planning cost, more if
    each would weigh more than `max_weight`.

    Args:
        topics: The run's topics (its topics table), any order.
        keyed: Whether each topic is keyed (a keyed topic weighs `KEYED_WEIGHT`).
        samples: Each throughput file of the history window with the `[start, end)`
            pieces of time (microseconds since the epoch, UTC) whose samples count
            from it.
        keys: The run's keys table (a file or a folder), None or missing: none.
        units: How many units to aim for (a few per core).
        max_weight: The most a unit should weigh (a keyless topic weighs 1): a fleet
            heavier than `units` such units gets as many more as it needs.

    Returns:
        The units, ranges ascending and covering every topic name, even names the
        topics table does not list (their samples still need a unit: they are reported
        as unknown topics).
    """
    weight: dict[str, float] = {}
    for topic, is_keyed in zip(topics, keyed, strict=True):
        weight[topic] = max(weight.get(topic, 0.0), KEYED_WEIGHT if is_keyed else 1.0)
    names = sorted(weight)
    sample_groups = [
        (groups, tuple(pieces)) for path, pieces in samples if (groups := row_groups(path))
    ]
    key_groups = row_groups(keys) if keys is not None and Path(keys).exists() else []
    total = sum(weight.values())
    count = max(1, min(max(units, math.ceil(total / max_weight)), len(names)))
    while True:
        bounds = _bounds(names, [weight[n] for n in names], count)
        cut = _cut(bounds, sample_groups, key_groups)
        if count == 1 or _read_factor(cut, sample_groups, key_groups) <= _MAX_READ_FACTOR:
            return cut
        count //= 2


@dataclass(frozen=True)
class TopicSamples:
    """The samples of a unit's topics, each topic's rows together, in time order.

    Attributes:
        topics: The topics with at least one sample, sorted.
        starts: Where each topic's rows start (and, last, the row count).
        rows: `ts` (timestamp, UTC), `mib_in` (MiB/s), `records_in` (records/s) and
            `mib_out` (MiB/s, all groups together; null where not measured) and
            `mib_out_busiest` (MiB/s read by the busiest group; null where not observed).
    """

    topics: list[str]
    starts: npt.NDArray[np.int64]
    rows: pa.Table


def _inside(
    ts_us: npt.NDArray[np.int64], pieces: Sequence[tuple[int, int]]
) -> npt.NDArray[np.bool_]:
    keep = np.zeros(ts_us.size, dtype=bool)
    for start, end in pieces:
        keep |= (ts_us >= start) & (ts_us < end)
    return keep


def read_samples(unit: Unit) -> TopicSamples:
    """The unit's samples: its topics' rows of its row groups, in their files' pieces.

    Bytes become MiB (2**20 bytes) as `size_partitions.throughput_mib` does in Spark, by
    one division, so both give the same bits. Rows are ordered by topic, then time
    (stable: rows of one time keep the order of the unit's files).
    """
    tables = []
    for part in unit.samples:
        table = pq.ParquetFile(part.file).read_row_groups(
            list(part.row_groups), columns=_SAMPLE_COLUMNS, use_threads=False
        )
        ts_us = np.asarray(table.column("ts").cast(pa.int64()).to_numpy(), dtype=np.int64)
        keep = _inside(ts_us, part.pieces)
        topic = table.column("topic")
        if topic.null_count:
            # A sample of no topic belongs to no unit (the input validation sets it aside).
            keep &= np.asarray(topic.is_valid(), dtype=bool)
        if unit.lo is not None:
            keep &= np.asarray(pc.fill_null(pc.greater_equal(topic, unit.lo), False), dtype=bool)
        if unit.hi is not None:
            keep &= np.asarray(pc.fill_null(pc.less(topic, unit.hi), False), dtype=bool)
        tables.append(table.filter(pa.array(keep)) if not keep.all() else table)
    if not tables or not sum(t.num_rows for t in tables):
        empty = pa.table(
            {
                "ts": pa.array([], pa.timestamp("us", tz="UTC")),
                "mib_in": pa.array([], pa.float64()),
                "records_in": pa.array([], pa.float64()),
                "mib_out": pa.array([], pa.float64()),
                "mib_out_busiest": pa.array([], pa.float64()),
            }
        )
        return TopicSamples([], np.zeros(1, dtype=np.int64), empty)
    rows = pa.concat_tables(tables)
    topic = rows.column("topic").combine_chunks()
    names = pc.unique(topic).sort()
    code = np.asarray(pc.index_in(topic, value_set=names), dtype=np.int64)
    ts = np.asarray(rows.column("ts").cast(pa.int64()).to_numpy(), dtype=np.int64)
    order = pa.array(np.lexsort((ts, code)))
    # Only the columns kept are gathered: gathering the topic names too cost more than
    # the four numeric columns together.
    ordered = rows.select(_SAMPLE_COLUMNS[1:]).take(order)
    starts = np.searchsorted(code[order.to_numpy()], np.arange(len(names) + 1)).astype(np.int64)
    out = pa.table(
        {
            "ts": ordered.column("ts"),
            "mib_in": pc.divide(ordered.column("bytes_in_per_s"), _MIB),
            "records_in": ordered.column("records_in_per_s"),
            "mib_out": pc.divide(ordered.column("bytes_out_per_s"), _MIB),
            "mib_out_busiest": pc.divide(ordered.column("busiest_group_bytes_out_per_s"), _MIB),
        }
    )
    return TopicSamples(names.to_pylist(), starts, out)
