"""Reading the canonical figures dataset into Spark, for one run.

A run is one data interval. Its folder holds the snapshot tables (topics, capacity,
groups, keys, cluster) and its throughput; earlier intervals hold the throughput history
the growth fit needs. The driver finds the files with `planner.figures.dataset` (the
manifests say which tables an interval holds); Spark reads them with explicit schemas.

Missing figures stop the run before anything is computed: an interval that was never
written, a required table the run's interval does not hold, an empty throughput or
cluster table. The error names the folder and what is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.figures.dataset import (
    DataInterval,
    interval_path,
    list_intervals,
    read_manifest,
    read_table,
)
from planner.figures.schema import TABLES
from spark_jobs.schemas import figures_schema

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from planner.figures.set_aside import SetAside

__all__ = [
    "OPTIONAL_TABLES",
    "REQUIRED_TABLES",
    "MissingFigures",
    "RunFigures",
    "history_spans",
    "locate_run",
]

#: Tables the run's interval must hold. Without topics there is no fleet, without
#: capacity no rule, without cluster no broker count for the cost panel.
REQUIRED_TABLES: tuple[str, ...] = ("throughput", "topics", "capacity", "cluster")
#: Tables that may be absent: no consumer groups known, no key samples taken.
OPTIONAL_TABLES: tuple[str, ...] = ("groups", "keys")


# The partition column Spark reads from an interval's folder name, `interval=KEY`.
_INTERVAL = "interval"


class MissingFigures(RuntimeError):
    """The figures a run needs are not there; the message says which, and where."""


def _parse_run(text: str) -> DataInterval | str:
    # `20261121T0000Z` is a folder key; anything else is a date or START/END.
    stripped = text.strip()
    try:
        datetime.strptime(stripped, "%Y%m%dT%H%MZ")
    except ValueError:
        return DataInterval.parse(stripped)
    return stripped


@dataclass(frozen=True)
class RunFigures:
    """The figures of one run: where they are, and which intervals feed its history.

    Attributes:
        root: The figures dataset folder.
        run: The run's data interval.
        tables: Row counts of the run interval's tables (from its manifest).
        history: `(interval, pieces)` for every interval whose throughput is read, the
            run's own first; `pieces` are the `[start, end)` spans of it that are used.
        lookback_days: Days of history before the end of the run.
        set_aside: What the run's input validation set aside: every table read through
            `table` and `throughput` comes without those topics' rows (see
            `planner.figures.set_aside`); None: nothing is left out.
    """

    root: Path
    run: DataInterval
    tables: dict[str, int]
    history: tuple[tuple[DataInterval, tuple[tuple[datetime, datetime], ...]], ...]
    lookback_days: float
    set_aside: SetAside | None = None

    def without(self, set_aside: SetAside) -> RunFigures:
        """The same figures, read without what `set_aside` sets aside."""
        return replace(self, set_aside=set_aside)

    @property
    def left_out(self) -> frozenset[str]:
        """Topic names whose rows are left out (set aside, or illegal names)."""
        return frozenset() if self.set_aside is None else self.set_aside.names

    def _dropped(self, name: str) -> tuple[list[str], list[str] | None] | None:
        # The one rule of what a set-aside leaves out of a table, for Spark and PyArrow
        # alike: rows without a topic, or of these topics; for groups also rows without
        # a group id, or of these groups. None: the table is read whole.
        # A set-aside topic's own rows go; the fleet default `*` capacity row is never one
        # (a bad one stops the run). Groups lose the bad groups whole, and keep the other
        # groups' rows of a set-aside topic: a group that also reads other topics must
        # stay one group, to be shown unplanned rather than planned on part of its load.
        if self.set_aside is None or self.set_aside.empty or name == "cluster":
            return None
        if name == "groups":
            return sorted(self.set_aside.dropped), sorted(self.set_aside.groups)
        return sorted(self.left_out), None

    def _kept(self, frame: DataFrame, name: str) -> DataFrame:
        from pyspark.sql import functions as F

        dropped = self._dropped(name)
        if dropped is None:
            return frame
        topics, groups = dropped
        kept = F.col("topic").isNotNull() & ~F.col("topic").isin(topics)
        if groups is not None:
            kept = kept & F.col("group_id").isNotNull() & ~F.col("group_id").isin(groups)
        return frame.where(kept)

    def _kept_rows(self, table: pa.Table, name: str) -> pa.Table:
        import pyarrow as pa
        import pyarrow.compute as pc

        dropped = self._dropped(name)
        if dropped is None:
            return table
        topics, groups = dropped

        def kept_of(column: str, names: list[str]) -> pa.ChunkedArray:
            values = table.column(column)
            listed = pc.is_in(values, pa.array(names, pa.string()))
            return pc.and_(pc.is_valid(values), pc.invert(listed))

        kept = kept_of("topic", topics)
        if groups is not None:
            kept = pc.and_(kept, kept_of("group_id", groups))
        return table.filter(kept)

    @property
    def key(self) -> str:
        """The run key, e.g. `20261121T0000Z`."""
        return self.run.key

    @property
    def window_start(self) -> datetime:
        """The first instant of the history window."""
        return _window_start(self.run, self.lookback_days)

    def has(self, table: str) -> bool:
        """Whether the run's interval holds `table`."""
        return table in self.tables

    def brokers(self) -> int:
        """Brokers in the cluster: distinct `broker_id`s of the run's `cluster` table.

        A table of a few rows, read on the driver: a Spark job for it cost its own
        scheduling and a cold start (about 3 s of a job's start-up, measured).
        """
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        path = interval_path(self.root, self.run) / "cluster.parquet"
        ids = pq.read_table(path, columns=["broker_id"]).column("broker_id")
        # mode="all": a null id counts as one value, as Spark's distinct() does.
        return int(pc.count_distinct(ids, mode="all").as_py())

    def table(self, spark: SparkSession, name: str) -> DataFrame:
        """One snapshot table of the run's interval (empty, with its schema, if absent),
        without what was set aside."""
        schema = figures_schema(name)
        if not self.has(name):
            return spark.createDataFrame([], schema)
        path = interval_path(self.root, self.run) / f"{name}.parquet"
        return self._kept(spark.read.schema(schema).parquet(str(path)), name)

    def snapshot(self, name: str) -> pa.Table:
        """One snapshot table of the run's interval read on the driver with PyArrow, in
        its canonical schema (optional columns the file lacks are null; empty if the
        interval does not hold it), without what was set aside.

        The jobs read the small tables (topics, capacity, groups: a row per topic or per
        group and topic) this way: each Spark job over them cost its own scheduling on a
        cold JVM (13 of them took 3.5 s of the 10,000-topic run).
        """
        table = read_table(self.root, self.run, name)
        if table is None:
            return TABLES[name].schema.empty_table()
        return self._kept_rows(table, name)

    def planned_groups(self) -> pa.Table:
        """The `groups` table as the jobs plan it: every row with its protocol (`classic`
        where the file has none; the column was added after the table). The core maps a
        group's (protocol, assignor) to what it simulates
        (`planner.protocols.planned_strategy`)."""
        import pyarrow.compute as pc

        from planner.protocols import DEFAULT_PROTOCOL

        groups = self.snapshot("groups")
        protocol = pc.fill_null(groups.column("protocol"), DEFAULT_PROTOCOL)
        return groups.set_column(groups.schema.get_field_index("protocol"), "protocol", protocol)

    def planned_groups_frame(self, spark: SparkSession) -> DataFrame:
        """`planned_groups` as a Spark frame (from the driver's table: no file is read)."""
        return spark.createDataFrame(self.planned_groups(), figures_schema("groups"))

    def throughput(self, spark: SparkSession) -> DataFrame:
        """Throughput samples of the history window, each from the interval that owns it.

        One scan over every interval's file; a sample is kept when its time falls in a
        piece of its own interval (see `history_spans`), so the run's own figures win
        over an overlapping interval, and a sample outside its folder's interval (a
        collector bug) is not counted twice. The interval of a sample is its folder's
        `interval=KEY` name, read by Spark as a partition column (one value per file,
        not a string per row: an earlier regular expression on each sample's file name
        cost about 8 of the 14 CPU-seconds of reading 7.2 M samples on two cores).
        """
        from pyspark.sql import functions as F
        from pyspark.sql.types import StringType, StructField, StructType, TimestampType

        paths = [
            str(interval_path(self.root, interval) / "throughput.parquet")
            for interval, _ in self.history
        ]
        spans = [
            (interval.key, start, end) for interval, pieces in self.history for start, end in pieces
        ]
        span_schema = StructType(
            [
                StructField(_INTERVAL, StringType(), False),
                StructField("span_start", TimestampType(), False),
                StructField("span_end", TimestampType(), False),
            ]
        )
        spans_df = spark.createDataFrame(spans, span_schema)
        schema = figures_schema("throughput")
        # The folder name's value, typed here rather than inferred.
        with_folder = StructType([*schema.fields, StructField(_INTERVAL, StringType(), False)])
        samples = spark.read.option("basePath", str(self.root)).schema(with_folder).parquet(*paths)
        joined = samples.join(F.broadcast(spans_df), _INTERVAL)
        kept = joined.where(
            (F.col("ts") >= F.col("span_start")) & (F.col("ts") < F.col("span_end"))
        )
        return self._kept(kept.select(*schema.fieldNames()), "throughput")


def _window_start(run: DataInterval, lookback_days: float) -> datetime:
    # The run's own interval is always read whole, even if longer than the lookback.
    return min(run.start, run.end - timedelta(days=lookback_days))


def _subtract(
    pieces: list[tuple[datetime, datetime]], cut: DataInterval
) -> list[tuple[datetime, datetime]]:
    out: list[tuple[datetime, datetime]] = []
    for start, end in pieces:
        if cut.end <= start or cut.start >= end:
            out.append((start, end))
            continue
        if start < cut.start:
            out.append((start, cut.start))
        if cut.end < end:
            out.append((cut.end, end))
    return out


def history_spans(
    run: DataInterval, intervals: Sequence[DataInterval], lookback_days: float
) -> list[tuple[DataInterval, tuple[tuple[datetime, datetime], ...]]]:
    """Which part of each interval's throughput a run's history uses.

    The window is the `lookback_days` before the end of the run, and at least the run's
    own interval. Where intervals
    overlap (a rerun over a different span, an hourly backfill inside a daily one), a
    moment's figures come from one interval only: the run's own first, then the one that
    starts later (the more recent collection). Intervals after the run's end are never
    read, so a backfill gives the same answer whatever was collected since.

    Returns:
        `(interval, pieces)` for every interval with a non-empty piece in the window, the
        run first, then by start time.
    """
    window_start = _window_start(run, lookback_days)
    others = sorted((i for i in intervals if i != run), key=lambda i: i.start)
    order = [run, *sorted(others, key=lambda i: i.start, reverse=True)]
    out: dict[DataInterval, tuple[tuple[datetime, datetime], ...]] = {}
    for rank, interval in enumerate(order):
        start, end = max(interval.start, window_start), min(interval.end, run.end)
        if start >= end:
            continue
        pieces = [(start, end)]
        for winner in order[:rank]:
            pieces = _subtract(pieces, winner)
        if pieces:
            out[interval] = tuple(pieces)
    ordered = [run] if run in out else []
    ordered += [i for i in others if i in out]
    return [(i, out[i]) for i in ordered]


def _run_interval(root: Path, text: str) -> tuple[DataInterval, dict[str, Any]]:
    wanted = _parse_run(text)
    key = wanted if isinstance(wanted, str) else wanted.key
    manifest = read_manifest(root, key)
    if manifest is None:
        known = [i.key for i in list_intervals(root)]
        have = ", ".join(known[-5:]) if known else "none"
        raise MissingFigures(
            f"figures {root}: no interval {key} (no {interval_path(root, key).name}/ with a "
            f"manifest); latest intervals there: {have}"
        )
    span = manifest["interval"]
    interval = DataInterval(
        datetime.fromisoformat(span["start"]), datetime.fromisoformat(span["end"])
    )
    if not isinstance(wanted, str) and wanted != interval:
        raise MissingFigures(
            f"figures {root}: interval {key} spans {interval}, not the {wanted} asked for"
        )
    return interval, manifest


def locate_run(root: str | Path, run: str, *, lookback_days: float) -> RunFigures:
    """Find the run's interval and its history, and check the required tables are there.

    Args:
        root: The figures dataset folder.
        run: The run: an interval key (`20261121T0000Z`), a UTC day (`2026-11-21`) or
            `START/END` in ISO 8601.
        lookback_days: Days of throughput history before the end of the run.

    Raises:
        MissingFigures: no such interval, or a required table missing or empty.
        ValueError: `run` is not a key, a date or an interval.
    """
    root = Path(root)
    interval, manifest = _run_interval(root, run)
    tables: dict[str, int] = {str(k): int(v) for k, v in manifest["tables"].items()}
    folder = interval_path(root, interval)
    missing = [t for t in REQUIRED_TABLES if t not in tables]
    if missing:
        raise MissingFigures(
            f"figures {folder}: the run's interval has no {', '.join(missing)} "
            f"table{'s' if len(missing) > 1 else ''} (it holds: "
            f"{', '.join(sorted(tables)) or 'nothing'}); collect them for this interval first"
        )
    for name in ("throughput", "topics", "cluster"):
        if tables[name] == 0:
            raise MissingFigures(
                f"figures {folder}: the {name} table is empty: nothing to size "
                + ("(no brokers, so no cost panel)" if name == "cluster" else "")
            )
    with_throughput = [
        other
        for other in list_intervals(root)
        if other == interval
        or ((m := read_manifest(root, other)) is not None and m["tables"].get("throughput", 0))
    ]
    history = history_spans(interval, with_throughput, lookback_days)
    return RunFigures(root, interval, tables, tuple(history), lookback_days)
