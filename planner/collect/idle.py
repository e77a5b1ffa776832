"""Zero-rate throughput rows for topics that exist and had no traffic.

A topic that exists but was never written to has no Prometheus series (Kafka creates a
topic's meters on first use), so without this step it has no throughput rows and the
run sets it aside as `no-figures`, although its figures are known: none. A source that
saw the whole cluster in a window says so (`Collected.covered`, `planner.collect.base`),
and here every topic of the `topics` table without a row at a covered window, from any
source, gets one: records and bytes in 0, bytes out 0 where that source measured bytes
out in the window (`covered_bytes_out`), else null.

Left without a zero row, on purpose:
- a window the source did not cover (it was down, or saw part of the cluster): nothing
  is invented;
- a (topic, window) the source saw something of but kept no row for (`withheld`: a
  rejected sample, bytes out without bytes in): the topic was not idle;
- a covered window *before* a topic's first row in the collection: the topic may not
  have existed yet (created later in the span), and zeros there would read as growth
  to the growth fit. A topic without any row in the collection gets every covered
  window.

The rows are named after the covering source, with `(idle: ...)` added, so a reader of
the figures tells a measured zero from a written one; a note per source gives the
counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from planner.collect.base import Collected
from planner.figures.conform import conform, unified_codes
from planner.figures.schema import TIMESTAMP

__all__ = ["IDLE_LABEL", "add_idle_rows"]

IDLE_LABEL = " (idle: no sample in a covered window)"
"""Added to the covering source's name in the `source` column of the rows written here."""

_NEVER = np.iinfo(np.int64).max
_SHOWN = 5  # topics named in a note


def _micros(moments: Sequence[datetime]) -> np.ndarray:
    return np.array(
        [round(m.astimezone(UTC).timestamp() * 1_000_000) for m in moments], dtype=np.int64
    )


def _topic_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, list[str]]:
    """Each row's topic as a code, and the names the codes index."""
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column)
    codes, names = unified_codes(column)
    return codes.astype(np.int64), names.to_pylist()


def _first_rows(throughput: pa.Table, known: dict[str, int]) -> np.ndarray:
    """Per known topic, the start of its first row (µs), or `_NEVER` without one."""
    first = np.full(len(known), _NEVER, dtype=np.int64)
    if throughput.num_rows == 0:
        return first
    codes, names = _topic_codes(throughput.column("topic"))
    micros = pc.cast(throughput.column("ts"), pa.int64()).to_numpy()
    per_name = np.full(len(names), _NEVER, dtype=np.int64)
    np.minimum.at(per_name, codes, micros)
    for name, moment in zip(names, per_name.tolist(), strict=True):
        if name in known:
            first[known[name]] = moment
    return first


def _present(throughput: pa.Table, known: dict[str, int], covered: np.ndarray) -> np.ndarray:
    """Whether each (known topic, covered window) already has a row: (topics, windows)."""
    present = np.zeros((len(known), len(covered)), dtype=bool)
    if throughput.num_rows == 0:
        return present
    micros = pc.cast(throughput.column("ts"), pa.int64()).to_numpy()
    at = np.flatnonzero(np.isin(micros, covered))
    if at.size == 0:
        return present
    codes, names = _topic_codes(throughput.column("topic").take(pa.array(at)))
    index = np.array([known.get(name, -1) for name in names], dtype=np.int64)[codes]
    window = np.searchsorted(covered, micros[at])
    listed = index >= 0
    present[index[listed], window[listed]] = True
    return present


def _zero_rows(
    topics: Sequence[str], micros: np.ndarray, bytes_out_known: np.ndarray, label: str
) -> pa.Table:
    n = len(topics)
    zeros = np.zeros(n)
    raw = pa.table(
        {
            "topic": pa.array(topics, pa.string()),
            "ts": pa.array(micros, pa.int64()).cast(TIMESTAMP),
            "bytes_in_per_s": zeros,
            "records_in_per_s": zeros,
            "bytes_out_per_s": pa.array(zeros, mask=~bytes_out_known),
        }
    )
    return conform("throughput", raw, source=label).table


def add_idle_rows(
    throughput: pa.Table, topics: pa.Table, collected: Sequence[Collected]
) -> tuple[pa.Table, list[str]]:
    """`throughput` with a zero-rate row per idle topic and covered window.

    Args:
        throughput: The merged throughput (after duplicates and unknown topics were
            rejected), in the canonical schema (`topic` and `source` may be
            dictionary-encoded).
        topics: The merged `topics` table: the topics that exist.
        collected: What each source collected, in priority order: a window covered by
            several sources gets its zero rows from the first.

    Returns:
        The throughput with the zero rows appended (in `throughput`'s schema), and a
        note per source that wrote some.

    Raises:
        ValueError: a source lists covered windows but not its `source` name.
    """
    names = pc.unique(topics.column("topic")).to_pylist()
    known = {name: i for i, name in enumerate(names)}
    withheld = [
        (known[topic], moment) for c in collected for topic, moment in c.withheld if topic in known
    ]
    first = _first_rows(throughput, known)
    notes: list[str] = []
    for c in collected:
        if not c.covered or not known:
            continue
        if not c.source:
            raise ValueError("a Collected with covered windows must name its source")
        covered = np.unique(_micros(c.covered))
        missing = ~_present(throughput, known, covered)
        before = (covered[np.newaxis, :] < first[:, np.newaxis]) & (first != _NEVER)[:, np.newaxis]
        skipped = int((missing & before).sum())
        missing &= ~before
        if withheld:
            k_seen = np.array([k for k, _ in withheld], dtype=np.int64)
            at = _micros([moment for _, moment in withheld])
            j_seen = np.searchsorted(covered, at)
            hit = (j_seen < len(covered)) & (covered[np.minimum(j_seen, len(covered) - 1)] == at)
            missing[k_seen[hit], j_seen[hit]] = False
        k_of, j_of = np.nonzero(missing)
        micros = covered[j_of]
        out_known = np.isin(micros, _micros(c.covered_bytes_out))
        idle = [names[k] for k in k_of.tolist()]
        if idle:
            rows = _zero_rows(idle, micros, out_known, c.source + IDLE_LABEL)
            throughput = pa.concat_tables([throughput, rows.cast(throughput.schema)])
        if idle or skipped:
            notes.append(_note(c, idle, int(out_known.sum()), skipped))
    return throughput, notes


def _note(c: Collected, idle: Sequence[str], out_zero: int, skipped: int) -> str:
    rows = len(idle)
    distinct = sorted(set(idle))
    shown = ", ".join(distinct[:_SHOWN]) + (", ..." if len(distinct) > _SHOWN else "")
    parts = [f"{c.source}: of its {len(c.covered)} covered window(s)"]
    if rows:
        parts.append(
            f", {len(distinct)} topic(s) of the topics table had no sample in some ({shown}): "
            f"{rows} zero-rate row(s) written (no records, no bytes in; bytes out 0 in "
            f"{out_zero}, unknown in {rows - out_zero})"
        )
    if skipped:
        parts.append(
            f"{';' if rows else ','} {skipped} without a sample of a topic came before that "
            "topic's first sample and were left without a row (it may not have existed yet, "
            "and zeros there would read as growth)"
        )
    return "".join(parts)
