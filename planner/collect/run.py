"""Collecting one data interval: every configured source, merged, checked, written whole.

Sources are read in the configured order; when two give the same row key (the same
topic and sample time, the same topic's capacity...), the first source wins and the
later row is rejected with a reason naming the winner. Rows that break a rule are kept
out and listed in the interval's `rejected` table; the rest is written.

Cross-table rules checked here (a row is rejected, the rest kept):
- a group or key-sample row for a topic the `topics` table does not list;
- a throughput row for a topic the `topics` table does not list (when there is one).

Then a topic of the `topics` table that no source gave a row for at a window some
source *covered* (saw the whole cluster in: `Collected.covered`) had no traffic there,
and gets a zero-rate row named after that source (`planner.collect.idle`).

History: sizing needs weeks of throughput for the growth fit. With `history_days`, the
days before the interval that the dataset does not have yet are collected in the same
pass and written as throughput-only intervals, so a first run (or a new deployment)
does not need a backfill to plan well.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from planner.collect.base import Collected, Source
from planner.collect.consumption import with_figures_of_later_sources, with_given, with_learned
from planner.collect.idle import add_idle_rows
from planner.figures.conform import Conformed, dedupe, empty, rejections
from planner.figures.dataset import DataInterval, list_intervals, remove_staging, write_interval
from planner.figures.refused import UNLISTED_TOPIC, describe
from planner.figures.schema import SNAPSHOT_TABLES, TABLES
from planner.locks import exclusive

__all__ = ["CollectionReport", "collect_interval", "merge"]


@dataclass(frozen=True)
class CollectionReport:
    """What a collection wrote.

    Attributes:
        interval: The data interval collected.
        path: Its folder in the figures dataset.
        rows: Rows written per table.
        rejected: The rejected rows (the `rejected` table).
        history: History intervals written alongside (throughput only).
        notes: Plain-language notes from the sources and the merge.
    """

    interval: DataInterval
    path: Path
    rows: dict[str, int]
    rejected: pa.Table
    history: tuple[DataInterval, ...] = ()
    notes: tuple[str, ...] = field(default=())

    def summary(self, sample: int = 10) -> str:
        """A few lines for a terminal or a task log."""
        lines = [f"collected {self.interval} -> {self.path}"]
        lines.append(
            "  rows: " + ", ".join(f"{name} {count:,}" for name, count in self.rows.items())
        )
        if self.history:
            lines.append(
                f"  history: {len(self.history)} earlier day(s) of throughput "
                f"({self.history[0].start.date()} .. {self.history[-1].start.date()})"
            )
        lines.append(f"  rejected rows: {self.rejected.num_rows:,}")
        lines.extend(f"    {describe(row)}" for row in self.rejected.slice(0, sample).to_pylist())
        if self.rejected.num_rows > sample:
            lines.append(f"    ... {self.rejected.num_rows - sample:,} more in rejected.parquet")
        lines.extend(f"  note: {note}" for note in self.notes)
        return "\n".join(lines)


def _flat(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    return values


def _concat(pieces: Sequence[Conformed], name: str) -> tuple[pa.Table, pa.Array]:
    tables = [p.table for p in pieces] or [empty(name)]
    rows = [
        _flat(p.rows) if p.rows is not None else pa.nulls(p.table.num_rows, pa.int64())
        for p in pieces
    ]
    table = pa.concat_tables(tables)
    return table, pa.concat_arrays(rows) if rows else pa.array([], pa.int64())


def _listed(topics: pa.ChunkedArray, known: pa.Array) -> np.ndarray:
    """Whether each row's topic is one of `known`.

    A dictionary-encoded column (as `Collected` keeps the large tables) is looked up by
    its dictionaries, so its rows are not decoded into text.
    """
    if not pa.types.is_dictionary(topics.type):
        member = pc.is_in(topics, value_set=known)
        return np.asarray(member.to_numpy(zero_copy_only=False), dtype=bool)
    pieces = [
        np.asarray(pc.is_in(c.dictionary, value_set=known).to_numpy(zero_copy_only=False))[
            c.indices.to_numpy(zero_copy_only=False)
        ]
        for c in topics.chunks
    ]
    return np.concatenate(pieces).astype(bool) if pieces else np.zeros(0, dtype=bool)


def _reject_unknown_topics(
    name: str, table: pa.Table, rows: pa.Array, known: pa.Array
) -> tuple[pa.Table, pa.Array, pa.Table]:
    unknown = ~_listed(table.column("topic"), known)
    if not unknown.any():
        return table, rows, empty("rejected")
    index = pa.array(np.flatnonzero(unknown))
    lost = table.take(index)
    bad = pa.concat_tables(
        [
            rejections(
                name,
                source,
                [r],
                ["topic"],
                [topic],
                [UNLISTED_TOPIC],
                [topic],
            )
            for source, r, topic in zip(
                lost.column("source").to_pylist(),
                rows.take(index).to_pylist(),
                lost.column("topic").to_pylist(),
                strict=True,
            )
        ]
    )
    keep = pa.array(~unknown)
    return table.filter(keep), rows.filter(keep), bad


def merge(collected: Sequence[Collected]) -> tuple[dict[str, pa.Table], pa.Table, list[str]]:
    """Merge what the sources collected, in priority order.

    Rows for topics the `topics` table does not list are rejected; topics it lists
    that have no row at a window a source covered get zero-rate rows
    (`planner.collect.idle`).

    Returns:
        One canonical table per name (every name present, maybe empty), the rejected
        rows, and the notes.
    """
    rejected: list[pa.Table] = []
    notes: list[str] = []
    tables: dict[str, pa.Table] = {}
    rows_of: dict[str, pa.Array] = {}
    for c in collected:
        rejected.extend(c.rejected)
        notes.extend(c.notes)
    for name in TABLES:
        pieces = [p for c in collected for p in c.parts.get(name, [])]
        table, rows = _concat(pieces, name)
        if name == "groups":
            table, completed = with_figures_of_later_sources(table)
            notes.extend(completed)
        unique = dedupe(name, table, rows)
        rejected.append(unique.rejected)
        tables[name] = unique.table
        rows_of[name] = unique.rows if unique.rows is not None else rows
    # Figures of groups whose offsets a source saw without describing the groups (a lag
    # exporter) go into the rows another source described.
    tables["groups"], learned_notes = with_learned(
        tables["groups"], [(c.source, c.group_figures) for c in collected if c.group_figures]
    )
    notes.extend(learned_notes)
    # A group's Tc given in the capacity table wins over what a source learned (and
    # over a groups file's own figure): curated figures are the reviewed ones.
    tables["groups"], given_notes = with_given(tables["groups"], tables["capacity"])
    notes.extend(given_notes)
    if tables["topics"].num_rows:
        known = tables["topics"].column("topic").combine_chunks()
        for name in ("groups", "keys", "throughput"):
            kept, rows, bad = _reject_unknown_topics(name, tables[name], rows_of[name], known)
            tables[name], rows_of[name] = kept, rows
            rejected.append(bad)
        tables["throughput"], idle = add_idle_rows(
            tables["throughput"], tables["topics"], collected
        )
        notes.extend(idle)
    rejected_table = pa.concat_tables([empty("rejected"), *rejected])
    return tables, rejected_table, notes


def _within(table: pa.Table, interval: DataInterval) -> pa.Table:
    ts = table.column("ts")
    mask = pc.and_(
        pc.greater_equal(ts, pa.scalar(interval.start, ts.type)),
        pc.less(ts, pa.scalar(interval.end, ts.type)),
    )
    return table.filter(mask)


def collect_interval(
    sources: Sequence[Source],
    interval: DataInterval,
    figures_root: str | Path,
    *,
    history_days: int = 0,
) -> CollectionReport:
    """Collect `interval` from `sources` and write it (replacing an earlier write).

    Args:
        sources: The sources, highest priority first.
        interval: The data interval.
        figures_root: The figures dataset folder.
        history_days: Also collect, as throughput-only intervals, the UTC days in this
            many days before `interval` that the dataset does not hold yet.

    Collections into one figures folder take turns (an advisory lock on
    `.collect.lock` in it): a backfill runs several collections at once, and one that
    found a day missing must not write it as throughput-only history over the full
    interval another run collects for that day.

    Raises:
        FiguresError: a source's input cannot be used at all (nothing is written).
        SourceUnavailable: a source could not be reached (nothing is written).
    """
    if not sources:
        raise ValueError("no figures source configured")
    root = Path(figures_root)
    root.mkdir(parents=True, exist_ok=True)
    with exclusive(root / ".collect.lock"):
        # What a collection killed half-way left (its staging folder): no writer is live.
        remove_staging(root)
        return _collect(sources, interval, root, history_days)


def _collect(
    sources: Sequence[Source], interval: DataInterval, figures_root: Path, history_days: int
) -> CollectionReport:
    have = {i.key for i in list_intervals(figures_root)}
    first_day = DataInterval.day((interval.start - timedelta(days=history_days)).date())
    history = (
        [
            day
            for day in DataInterval(first_day.start, interval.start).split_days()
            if day.key not in have and day.start < interval.start
        ]
        if history_days > 0
        else []
    )
    span = DataInterval(history[0].start, interval.end) if history else interval
    collected = [source.collect(span, run=interval) for source in sources]
    tables, rejected, notes = merge(collected)
    throughput = tables["throughput"]
    written_history: list[DataInterval] = []
    for day in history:
        part = _within(throughput, day)
        if part.num_rows == 0:
            continue
        write_interval(
            figures_root,
            day,
            {"throughput": part},
            sources=[s.name for s in sources],
            notes={"kind": "history", "collected_with": interval.key},
        )
        written_history.append(day)
    run_tables = {name: tables[name] for name in SNAPSHOT_TABLES}
    run_tables["throughput"] = _within(throughput, interval)
    run_tables["rejected"] = rejected
    counts = {name: table.num_rows for name, table in run_tables.items() if name != "rejected"}
    path = write_interval(
        figures_root,
        interval,
        run_tables,
        sources=[s.name for s in sources],
        notes={"kind": "run", "rejected": rejected.num_rows, "notes": notes[:100]},
    )
    return CollectionReport(interval, path, counts, rejected, tuple(written_history), tuple(notes))
