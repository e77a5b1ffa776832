"""The one interface every figures source implements, and what it hands back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
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
    """

    parts: dict[str, list[Conformed]] = field(default_factory=dict)
    rejected: list[pa.Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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

    def collect(self, interval: DataInterval) -> Collected:
        """Read the figures that belong to `interval` (throughput samples with `ts` in it;
        the tables that describe the fleet as it is now).

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
