"""What one collection found: conformed tables, rejected rows and notes, in one place."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa

from planner.collect.base import Collected
from planner.figures.conform import conform, rejections

__all__ = ["Bad", "Findings"]

# (subject, field, value, reason): the subject is a topic or a group id.
Bad = tuple[str, str, str | None, str]


@dataclass
class Findings:
    """The `Collected` of one run, with the source's name on every row and note.

    Attributes:
        where: How notes start ("kafka-admin: Kafka at host:port").
        source: The `source` column of every row ("kafka-admin:host:port").
        collected: What the run hands back.
    """

    where: str
    source: str
    collected: Collected = field(default_factory=Collected)

    def note(self, text: str) -> None:
        """A plain-language fact for the report."""
        self.collected.notes.append(f"{self.where}: {text}")

    def add(self, table: str, raw: pa.Table) -> None:
        """Conform `raw` as `table` and keep it (its bad rows go to `rejected`)."""
        self.collected.add(table, conform(table, raw, source=self.source))

    def reject_topics(self, table: str, bad: Sequence[Bad]) -> None:
        """Rows of `table` kept out, per topic: the value defaults to the topic's name."""
        if bad:
            self.collected.rejected.append(
                rejections(
                    table,
                    self.source,
                    [None] * len(bad),
                    [b[1] for b in bad],
                    [b[2] if b[2] is not None else b[0] for b in bad],
                    [f"topic {b[0]!r}: {b[3]}" for b in bad],
                    [b[0] for b in bad],
                )
            )

    def reject_groups(self, bad: Sequence[Bad]) -> None:
        """Groups kept out of `groups`; each reason names its group."""
        if bad:
            self.collected.rejected.append(
                rejections(
                    "groups",
                    self.source,
                    [None] * len(bad),
                    [b[1] for b in bad],
                    [b[2] for b in bad],
                    [b[3] for b in bad],
                )
            )
