"""The one interface every figures source implements, and what it hands back.

Coverage: how a missing row is told from a quiet topic
-------------------------------------------------------
A source that reads the whole cluster at once (Prometheus' topic meters, the observer's
samples of every partition) knows more than its rows say: in a window where it saw the
cluster, a topic it has nothing for had no traffic. A topic that exists but was never
written to has no Prometheus series at all, and without this it would have no figures.
Such a source lists those windows in `Collected.covered`, and the merge
(`planner.collect.run.merge`, `planner.collect.idle`) writes a zero-rate row for each
topic of the `topics` table that no source gave a row for at a covered window. A window
in which the source could not see the cluster (the server down, no scrape, a partial
answer) is not covered, so nothing is invented for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, TypeVar

import pyarrow as pa

from planner.figures.conform import Conformed, compact
from planner.figures.dataset import DataInterval

__all__ = ["Collected", "Source", "SourceUnavailable", "retry"]

T = TypeVar("T")


class SourceUnavailable(RuntimeError):
    """A source could not be reached after its retries; the message says which and why."""


@dataclass
class Collected:
    """What one source collected for one interval.

    Attributes:
        parts: Conformed pieces per canonical table name, in the order read (earlier
            pieces win when keys repeat).
        rejected: Rows of the `rejected` table (already in its schema).
        notes: Plain-language facts worth reporting (e.g. "3 topics had no samples").
        source: The `source` value of this source's rows (`prometheus:<url>`); the
            zero-rate rows the merge writes for its covered windows are named after it.
            Required when `covered` is not empty.
        covered: Starts of the throughput windows (the `ts` its rows would carry) in
            which this source saw the **whole** cluster, so that a topic with no row
            there had no traffic: no records and no bytes in. Leave a window out when
            that is not certain (the source was down, saw part of the cluster, or got
            a partial answer). Empty (the default): the source proves no absence, as
            for landing files and the Kafka admin source's one sample of now.
        covered_bytes_out: Those of `covered` in which it also measured bytes out, so
            that a zero row there has `bytes_out_per_s` 0 (no series: nobody fetched);
            in the other covered windows a zero row's bytes out is null (unknown).
        withheld: (topic, window start) pairs in covered windows for which the source
            saw something of the topic but gave no row (its sample was rejected, or it
            had bytes out and no bytes in): the topic was not idle there, so no zero is
            written for it.
        group_figures: Per (group id, topic), the `groups` figures
            (`planner.collect.consumption.GROUP_FIGURES`) of a source that sees groups'
            offsets without describing the groups (a lag exporter in Prometheus); the
            merge writes them into the row another source gave
            (`planner.collect.consumption.with_learned`).
    """

    parts: dict[str, list[Conformed]] = field(default_factory=dict)
    rejected: list[pa.Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    source: str = ""
    covered: list[datetime] = field(default_factory=list)
    covered_bytes_out: list[datetime] = field(default_factory=list)
    withheld: set[tuple[str, datetime]] = field(default_factory=set)
    group_figures: dict[tuple[str, str], dict[str, object]] = field(default_factory=dict)

    def add(self, name: str, conformed: Conformed) -> None:
        """Add one conformed piece of table `name` (its rejected rows go to `rejected`).

        The piece is kept with its `source` column dictionary-encoded (`compact`): one
        name for all the rows of a file, not one per row; in the two large tables
        (throughput samples, key samples) its `topic` column too.
        """
        columns = ("source", "topic") if name in ("throughput", "keys") else ("source",)
        self.parts.setdefault(name, []).append(compact(conformed, columns))
        if conformed.rejected.num_rows:
            self.rejected.append(conformed.rejected)


class Source(Protocol):
    """A place figures come from: landing files, Prometheus, a Kafka cluster."""

    name: str

    def collect(self, interval: DataInterval, *, run: DataInterval | None = None) -> Collected:
        """Read the figures that belong to `interval` (throughput samples with `ts` in it;
        the tables that describe the fleet as it is now).

        Args:
            interval: What to read throughput for: the run interval, and the history
                days before it when a collection fills those in the same pass.
            run: The run interval itself (None: `interval`). A source that records the
                cluster over time describes the fleet as it was in `run`; the others
                describe it as it is.

        Raises:
            FiguresError: input that cannot be used at all (named by file, row, field).
            SourceUnavailable: the source could not be reached within its retries.
        """
        ...


def retry(
    action: Callable[[], T],
    *,
    what: str,
    attempts: int = 4,
    first_delay_s: float = 0.5,
    retry_on: tuple[type[BaseException], ...] = (OSError,),
    sleep: Callable[[float], None] | None = None,
) -> T:
    """Run `action`, retrying on `retry_on` with exponential backoff (0.5, 1, 2 s ...).

    Raises:
        SourceUnavailable: every attempt failed; names `what` and the last error.
    """
    import time

    pause = sleep or time.sleep
    delay = first_delay_s
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except retry_on as exc:
            if attempt == attempts:
                raise SourceUnavailable(
                    f"{what}: failed {attempts} times, last error: {exc}"
                ) from exc
            pause(delay)
            delay *= 2
    raise AssertionError("unreachable")
