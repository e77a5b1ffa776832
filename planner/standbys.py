"""What a Kafka Streams application's standby tasks cost, from the figures in hand.

A standby task (`num.standby.replicas`, S) is a copy of a stateful task's state stores
kept warm on another instance: it reads the store's changelog continuously, so that a
task moved there after a failure or a rebalance starts without restoring its state
first. A task without state has no standby. On the streams protocol (KIP-1071) the
group config `streams.num.standby.replicas` on the broker decides it; on the classic
protocol the application's `num.standby.replicas`; both default to 0. Neither reaches
the admin API, so S is given (figures `groups.standby_replicas`) or not known.

What the figures show, and what they do not:

- Stateful tasks. A subtopology runs one task per partition of its inputs, and each of
  its state stores has a changelog with one partition per task, so every changelog
  partition is one task's store. Which changelogs share a subtopology the figures do
  not say: the stateful tasks are at least the sum of the distinct partition counts
  of the changelogs (changelogs of one subtopology have its task count) and at most
  the sum of all their partitions. Exact when the two meet (one changelog, or counts
  that all differ).
- Changelog reads. Each changelog partition is read by each of its task's S standbys,
  whatever the topology: S x the changelogs' bytes in per second, observed where the
  throughput table has samples of them.
- The state they hold: S x the state's size. The figures hold no state-store size;
  a changelog's retained bytes, where known, stand for it (a compacted changelog
  keeps at least each key's latest value, and older ones until cleaned: at most).
- Instances. Neither the broker's streams assignor (`sticky`) nor the classic
  protocol's high-availability task assignor puts a task's standby on the process of
  its active, nor two standbys of a task on one process: S standbys of every task need
  at least S + 1 instances; with fewer, Kafka leaves standbys unassigned.

`standby_cost` decides these figures once; the plan's note (`standby_note`, code
`streams-standbys`), the jobs' `standbys` struct and recommendations.json
(`standby_record`) all read its answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from planner.notes import Note, note

__all__ = [
    "Changelog",
    "Evidence",
    "StandbyCost",
    "standby_config",
    "standby_cost",
    "standby_note",
    "standby_record",
]

#: How a figure is known: `given` in the figures, `observed` from samples, a `bound`
#: (at least or at most, as the figure says), or `unknown`.
Evidence = Literal["given", "observed", "bound", "unknown"]


@dataclass(frozen=True)
class Changelog:
    """One changelog topic of a Kafka Streams application, as the figures know it.

    Attributes:
        topic: `<application.id>-<store>-changelog`.
        partitions: Its partition count today (None: the topic does not exist yet).
        bytes_in_per_s: Bytes/s written to it, the mean of the run's throughput samples
            of it (None: no sample).
        samples: How many samples that mean is over.
        retained_bytes: Bytes it holds (None: not known; no source collects it yet).
    """

    topic: str
    partitions: int | None
    bytes_in_per_s: float | None = None
    samples: int = 0
    retained_bytes: float | None = None


@dataclass(frozen=True)
class StandbyCost:
    """A Kafka Streams application's standby tasks and what they cost.

    Attributes:
        group_id: The application (its group id).
        protocol: Its group protocol (`classic` or `streams`): which config sets S.
        standby_replicas: S, standbys per stateful task; None when not given.
        changelogs: Its changelog topics the topics table lists, by name.
        stateful_tasks_min: The fewest stateful tasks its changelogs allow (None: no
            changelog with a partition count).
        stateful_tasks_max: The most (equal to the fewest when exact).
        changelog_bytes_in_per_s: Bytes/s written to its changelogs, summed (None: none
            observed); at least that when `changelog_evidence` is `bound`.
        changelog_evidence: `observed` (every changelog sampled), `bound` (some) or
            `unknown`.
        state_bytes: One copy of its state, bytes (None: unknown); at most that when
            `state_evidence` is `bound`.
        state_evidence: `bound` (its changelogs' retained bytes) or `unknown`.
    """

    group_id: str
    protocol: str
    standby_replicas: int | None
    changelogs: tuple[Changelog, ...]
    stateful_tasks_min: int | None
    stateful_tasks_max: int | None
    changelog_bytes_in_per_s: float | None
    changelog_evidence: Evidence
    state_bytes: float | None
    state_evidence: Evidence

    @property
    def standby_evidence(self) -> Evidence:
        """How S is known."""
        return "unknown" if self.standby_replicas is None else "given"

    @property
    def tasks_evidence(self) -> Evidence:
        """How the stateful tasks are known: `observed` (the topics table's partition
        counts say it exactly), `bound` or `unknown`."""
        if self.stateful_tasks_min is None:
            return "unknown"
        return "observed" if self.stateful_tasks_min == self.stateful_tasks_max else "bound"

    def _times_s(self, value: float | None) -> float | None:
        s = self.standby_replicas
        return None if s is None or value is None else s * value

    @property
    def standby_tasks_min(self) -> int | None:
        """S x the fewest stateful tasks (None: S or the tasks unknown)."""
        found = self._times_s(self.stateful_tasks_min)
        return None if found is None else int(found)

    @property
    def standby_tasks_max(self) -> int | None:
        """S x the most stateful tasks."""
        found = self._times_s(self.stateful_tasks_max)
        return None if found is None else int(found)

    @property
    def standby_read_bytes_per_s(self) -> float | None:
        """Changelog bytes/s the standbys read continuously: S x the bytes in."""
        return self._times_s(self.changelog_bytes_in_per_s)

    @property
    def standby_state_bytes(self) -> float | None:
        """The state the standbys hold: S x one copy (None: unknown)."""
        return self._times_s(self.state_bytes)

    @property
    def min_instances(self) -> int | None:
        """The fewest instances that host every standby: S + 1 (None: S not given)."""
        s = self.standby_replicas
        return None if s is None else s + 1


def standby_config(protocol: str) -> str:
    """The config that sets S for a group of `protocol` (`planner.protocols.PROTOCOLS`)."""
    return "streams.num.standby.replicas" if protocol == "streams" else "num.standby.replicas"


def standby_cost(
    group_id: str,
    protocol: str,
    standby_replicas: int | None,
    changelogs: Sequence[Changelog],
) -> StandbyCost:
    """What the application's standbys cost, from S and its changelog topics.

    Args:
        group_id: The application's group id.
        protocol: Its group protocol (`classic` for Kafka Streams' `stream` assignor).
        standby_replicas: S as given (None: not given; never taken as Kafka's 0).
        changelogs: Its changelog topics (`planner.streams.internal_topic_of`).

    Raises:
        ValueError: a negative S.

    Example:
        >>> cost = standby_cost("wc", "classic", 1, [Changelog("wc-counts-changelog", 6, 2e6, 24)])
        >>> (cost.standby_tasks_min, cost.standby_read_bytes_per_s, cost.min_instances)
        (6, 2000000.0, 2)
    """
    if standby_replicas is not None and standby_replicas < 0:
        raise ValueError(f"{group_id!r}: standby replicas must be >= 0, got {standby_replicas}")
    logs = tuple(sorted(changelogs, key=lambda c: c.topic))
    counts = [c.partitions for c in logs if c.partitions is not None]
    rates = [c.bytes_in_per_s for c in logs if c.bytes_in_per_s is not None]
    retained = [c.retained_bytes for c in logs if c.retained_bytes is not None]
    return StandbyCost(
        group_id=group_id,
        protocol=protocol,
        standby_replicas=standby_replicas,
        changelogs=logs,
        stateful_tasks_min=sum(set(counts)) if counts else None,
        stateful_tasks_max=sum(counts) if counts else None,
        changelog_bytes_in_per_s=math.fsum(rates) if rates else None,
        changelog_evidence=_evidence(len(rates), len(logs), whole="observed"),
        # Only a copy of the whole state is a figure: some changelogs' bytes are not.
        state_bytes=math.fsum(retained) if logs and len(retained) == len(logs) else None,
        state_evidence="bound" if logs and len(retained) == len(logs) else "unknown",
    )


def _evidence(known: int, of: int, *, whole: Evidence) -> Evidence:
    if not known:
        return "unknown"
    return whole if known == of else "bound"


def standby_note(cost: StandbyCost) -> Note:
    """The plan's note on the standbys (`streams-standbys`)."""
    return note(
        "streams-standbys",
        app=cost.group_id,
        config=standby_config(cost.protocol),
        standby_replicas=cost.standby_replicas,
        changelogs=len(cost.changelogs),
        changelogs_sampled=sum(c.bytes_in_per_s is not None for c in cost.changelogs),
        stateful_tasks_min=cost.stateful_tasks_min,
        stateful_tasks_max=cost.stateful_tasks_max,
        standby_tasks_min=cost.standby_tasks_min,
        standby_tasks_max=cost.standby_tasks_max,
        changelog_bytes_in_per_s=cost.changelog_bytes_in_per_s,
        standby_read_bytes_per_s=cost.standby_read_bytes_per_s,
        standby_state_bytes=cost.standby_state_bytes,
        min_instances=cost.min_instances,
    )


def standby_record(cost: StandbyCost | None) -> dict[str, Any] | None:
    """The figures with their evidence as one record: the jobs' `standbys` struct and
    recommendations.json's (bytes, bytes/s)."""
    if cost is None:
        return None
    return {
        "standby_replicas": cost.standby_replicas,
        "standby_replicas_evidence": cost.standby_evidence,
        "config": standby_config(cost.protocol),
        "changelog_topics": [
            {
                "topic": c.topic,
                "partitions": c.partitions,
                "bytes_in_per_s": c.bytes_in_per_s,
                "samples": c.samples,
            }
            for c in cost.changelogs
        ],
        "stateful_tasks_min": cost.stateful_tasks_min,
        "stateful_tasks_max": cost.stateful_tasks_max,
        "stateful_tasks_evidence": cost.tasks_evidence,
        "standby_tasks_min": cost.standby_tasks_min,
        "standby_tasks_max": cost.standby_tasks_max,
        "changelog_bytes_in_per_s": cost.changelog_bytes_in_per_s,
        "changelog_evidence": cost.changelog_evidence,
        "standby_read_bytes_per_s": cost.standby_read_bytes_per_s,
        "state_bytes": cost.state_bytes,
        "standby_state_bytes": cost.standby_state_bytes,
        "state_evidence": cost.state_evidence,
        "min_instances": cost.min_instances,
    }
