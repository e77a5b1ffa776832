"""Which rows of a collection's `rejected` table are bad figures, and how they are said.

The `rejected` table holds three kinds of rows:

- rows refused for their own values (a number that does not parse, a missing value, an
  illegal topic name, an unknown partitioner...): bad figures, as much as a row the
  input suites find broken later;
- rows that repeat a key an earlier row or a higher-priority source gave (`dedupe`,
  reason `duplicate (...)`): superseded, not bad. Two sources that overlap (a landing
  export and Prometheus) give every sample twice by design;
- rows of topics the `topics` table does not list (`UNLISTED_TOPIC`): the history of a
  topic deleted since, which Prometheus keeps for weeks; not bad either.

Only the first kind counts toward the share of a table's bad rows that stops a run
(`[validation] max_bad_row_share`, `planner.pipeline.row_checks`), and a fleet default
capacity row `*` refused for its values stops the run as a bad `*` row in the suite
does. `describe` words one rejected row with its file, row, field and value, for the
collection's summary and the validation's message alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "DUPLICATE",
    "UNLISTED_TOPIC",
    "Refused",
    "describe",
    "is_bad_figure",
    "refused_rows",
]

#: How the reason of a row that repeats an earlier row's key begins (`dedupe`).
DUPLICATE = "duplicate ("
#: The reason of a row whose topic the `topics` table does not list.
UNLISTED_TOPIC = "topic is not in the topics table (unknown partition count and settings)"
# The fleet default capacity row's topic (`planner.figures.schema`, `topic_or_default`).
_DEFAULT_TOPIC = "*"


def is_bad_figure(reason: str) -> bool:
    """Whether a row rejected for `reason` was refused for its own values."""
    return not (reason.startswith(DUPLICATE) or reason == UNLISTED_TOPIC)


def describe(row: Mapping[str, Any]) -> str:
    """One rejected row in words: where it was (source, row), its field and value, why.

    E.g. `landing:/data/capacity/capacity.csv: row 2: field 'producer_mib_per_s' =
    'fast': not a number`.
    """
    parts = [str(row["source"])]
    if row.get("row") is not None:
        parts.append(f"row {row['row']}")
    if row.get("field"):
        value = f" = {row['value']!r}" if row.get("value") is not None else ""
        parts.append(f"field {row['field']!r}{value}")
    parts.append(str(row["reason"]))
    return ": ".join(parts)


@dataclass(frozen=True)
class Refused:
    """The rows a collection refused for their values.

    Attributes:
        rows: Rows refused, per table (tables with none are absent).
        examples: The first few of each table, in words (`describe`).
        default_capacity: Every fleet default capacity row (`*`) refused, in words.
    """

    rows: Mapping[str, int] = field(default_factory=dict)
    examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    default_capacity: tuple[str, ...] = ()


def refused_rows(rejected: pa.Table | None, *, examples: int = 3) -> Refused:
    """What of `rejected` (a collection's `rejected` table) are bad figures.

    Args:
        rejected: The table, or None (an interval written without one).
        examples: Rows to word per table.
    """
    if rejected is None or rejected.num_rows == 0:
        return Refused()
    reasons = rejected.column("reason")
    # Judge each distinct reason once: a garbage export repeats a handful of reasons
    # over millions of rows.
    encoded = pc.dictionary_encode(reasons).combine_chunks()
    bad_reason = np.array([is_bad_figure(r) for r in encoded.dictionary.to_pylist()], dtype=bool)
    bad = rejected.filter(pa.array(bad_reason[encoded.indices.to_numpy(zero_copy_only=False)]))
    if bad.num_rows == 0:
        return Refused()
    counts = {
        str(c["values"]): int(c["counts"]) for c in pc.value_counts(bad.column("table")).to_pylist()
    }
    firsts: dict[str, tuple[str, ...]] = {}
    for table in sorted(counts):
        mine = bad.filter(pc.equal(bad.column("table"), table)).slice(0, examples)
        firsts[table] = tuple(describe(r) for r in mine.to_pylist())
    defaults: tuple[str, ...] = ()
    # (A table written before rejected rows named their topic has no `topic` column.)
    if "topic" in bad.column_names:
        default = pc.and_(
            pc.equal(bad.column("table"), "capacity"),
            pc.equal(bad.column("topic"), _DEFAULT_TOPIC),
        )
        defaults = tuple(describe(r) for r in bad.filter(pc.fill_null(default, False)).to_pylist())
    return Refused(dict(sorted(counts.items())), firsts, defaults)
