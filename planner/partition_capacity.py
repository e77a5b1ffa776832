"""A partition's capacities (Tp, Tc, share-fetch) estimated from perf-tool runs.

`planner.adapters.perf_test` reads the output of Kafka's perf tools into `PerfRun`
values; `partition_capacity` decides what a topic's runs say about one partition: which
line of each run counts (the steady-state summary, the fetch rates without the group
join, a share group's rows without its join), and the median over several runs. It reads
nothing itself, so the same rule serves the landing files, `perf-test` and `measure`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Kind", "PartitionCapacity", "PerfRun", "PerfTestError", "Window", "partition_capacity"]

Kind = Literal["producer", "consumer", "share"]
Window = Literal["summary", "steady-state", "detailed", "member"]


class PerfTestError(ValueError):
    """Perf-tool output that cannot be used; the message names the file, line and field."""


@dataclass(frozen=True)
class PerfRun:
    """One measurement read from perf-tool output.

    Attributes:
        kind: `producer`, `consumer` or `share` (a share group's members together).
        topic: The topic the file measures.
        records: Records sent (producer) or consumed (consumer, share; for a `detailed`
            row the running total since the start, of its share member alone).
        records_per_s: Records/s as printed (consumer: `nMsg.sec`, which includes the
            rebalance time; share: `nMsg.sec`, which includes the group join; for a
            `detailed` row, the rate over its interval).
        mib_per_s: MiB/s as printed (the tools' "MB" is 1024 * 1024 bytes).
        window: `summary` (the whole run), `steady-state` (the producer's summary after
            `--warmup-records`), `detailed` (one reporting interval) or `member` (one
            share member's whole run).
        source: The file the run was read from.
        line: Its line number in that file, 1 = the first line.
        avg_latency_ms: Producer: mean send-to-acknowledgement latency in ms.
        max_latency_ms: Producer: the largest latency in ms.
        p50_ms: Producer summary: the 50th percentile latency in ms.
        p95_ms: Producer summary: the 95th percentile latency in ms.
        p99_ms: Producer summary: the 99th percentile latency in ms.
        p999_ms: Producer summary: the 99.9th percentile latency in ms.
        rebalance_ms: Consumer: time spent joining the group, in ms.
        fetch_ms: Consumer: elapsed time minus `rebalance_ms`, in ms.
        fetch_mib_per_s: Consumer: MiB consumed / `fetch_ms`, in MiB/s.
        fetch_records_per_s: Consumer: records consumed / `fetch_ms`, in records/s.
        mib: Consumer: MiB consumed (running total for a `detailed` row).
        timed_out: Consumer, share summary: a `WARNING: Exiting before consuming the
            expected number of messages` (Kafka 4.x: `records`) line came before this row.
        member: Share `detailed` and `member` rows: the member (share consumer) it is
            about, numbered from 1 as the tool does.
    """

    kind: Kind
    topic: str
    records: int
    records_per_s: float
    mib_per_s: float
    window: Window
    source: str
    line: int
    avg_latency_ms: float | None = None
    max_latency_ms: float | None = None
    p50_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    rebalance_ms: int | None = None
    fetch_ms: int | None = None
    fetch_mib_per_s: float | None = None
    fetch_records_per_s: float | None = None
    mib: float | None = None
    timed_out: bool = False
    member: int | None = None


@dataclass(frozen=True)
class PartitionCapacity:
    """Single-partition capacities of a topic, from its perf-tool runs.

    Attributes:
        topic: The topic.
        tp_mib_per_s: Tp in MiB/s, or None without a producer run.
        tp_records_per_s: Tp in records/s, or None.
        tc_mib_per_s: Tc in MiB/s, or None without a consumer run.
        tc_records_per_s: Tc in records/s, or None.
        producer_runs: How many producer measurements went into Tp.
        consumer_runs: How many consumer measurements went into Tc.
        share_fetch_mib_per_s: One partition's share-fetch throughput in MiB/s: what the
            members of one share group read from it together; None without a share run.
        share_fetch_records_per_s: The same in records/s, or None.
        share_runs: How many share-consumer measurements went into the share figures.
        share_members: The members (share consumers) of those runs, or None.
        notes: How the figures were chosen, and what to be careful about.
    """

    topic: str
    tp_mib_per_s: float | None
    tp_records_per_s: float | None
    tc_mib_per_s: float | None
    tc_records_per_s: float | None
    producer_runs: int
    consumer_runs: int
    share_fetch_mib_per_s: float | None = None
    share_fetch_records_per_s: float | None = None
    share_runs: int = 0
    share_members: int | None = None
    notes: tuple[str, ...] = field(default=())


def partition_capacity(runs: Iterable[PerfRun], topic: str) -> PartitionCapacity:
    """Tp and Tc of one topic from its runs.

    Tp is read from the producer's summary line (the whole run; per-window lines are
    noisy and skipped). Where a file also has a steady-state summary (`--warmup-records`),
    that one is used in place of its file's whole-run summary: the warm-up is what the
    flag exists to leave out.

    Tc is read from `fetch.MB.sec` and `fetch.nMsg.sec`, not `MB.sec` and `nMsg.sec`: the
    fetch figures divide by the elapsed time minus the group join (`rebalance.time.ms`),
    a one-off start-up cost of the test that a long-running consumer does not pay per
    record. A detailed-stats file (which has no summary row) counts as one run: its
    last running totals divided by the sum of its intervals' `fetch.time.ms`.

    The share-fetch figures (a share group's members reading the partition together)
    come from a share file's detailed rows where it has them: each member's records
    between its first row and its last, summed over the members, divided by the longest
    of the members' spans (the sum of their rows' `fetch.time.ms` after the first). The
    first row is left out because it covers the group join and the first assignment
    (seconds in Kafka 4.4.0, against the few seconds a run lasts), as Tc leaves the
    rebalance out; dividing by the longest span never overstates the group's rate. A
    file without detailed rows gives its summary row's rates, join included, with a note.
    Files with different member counts: only those with the most members count, since
    the figure is the partition's throughput and fewer members may be what bounded a run.

    With several runs of a side, each figure is the median of the runs (robust to one
    disturbed run), and a note says so.

    Returns:
        The capacities; a side with no runs has None figures.

    Raises:
        PerfTestError: no runs of `topic`.
    """
    mine = [r for r in runs if r.topic == topic]
    if not mine:
        raise PerfTestError(f"no perf-test runs for topic {topic!r}")
    producer = _producer_measurements(mine)
    consumer = _consumer_measurements(mine)
    share, share_members, share_notes = _share_measurements(mine)
    notes: list[str] = []
    for side, measured in (("producer", producer), ("consumer", consumer), ("share", share)):
        if len(measured) > 1:
            notes.append(f"{side}: median of {len(measured)} runs")
    notes.extend(share_notes)
    if any(r.timed_out for r in mine if r.kind == "consumer"):
        notes.append(
            "a consumer run hit its --timeout: its fetch time includes up to that much idle "
            "polling, so Tc is understated; give --num-records (--messages before Kafka "
            "4.2) no more than the topic holds"
        )
    if consumer:
        notes.append(
            "consumer-perf-test reads and discards records: Tc excludes your application's "
            "processing, so it is an upper bound"
        )
    tp = _medians(producer)
    tc = _medians(consumer)
    shared = _medians(share)
    return PartitionCapacity(
        topic=topic,
        tp_mib_per_s=tp[0],
        tp_records_per_s=tp[1],
        tc_mib_per_s=tc[0],
        tc_records_per_s=tc[1],
        producer_runs=len(producer),
        consumer_runs=len(consumer),
        share_fetch_mib_per_s=shared[0],
        share_fetch_records_per_s=shared[1],
        share_runs=len(share),
        share_members=share_members,
        notes=tuple(notes),
    )


def _producer_measurements(runs: Sequence[PerfRun]) -> list[tuple[float, float]]:
    by_file: dict[str, list[PerfRun]] = {}
    for run in runs:
        if run.kind == "producer" and run.window != "detailed":
            by_file.setdefault(run.source, []).append(run)
    measured: list[tuple[float, float]] = []
    for file_runs in by_file.values():
        # A steady-state summary follows its own whole-run summary: use it instead.
        steady = [r for r in file_runs if r.window == "steady-state"]
        chosen = steady or [r for r in file_runs if r.window == "summary"]
        measured.extend((r.mib_per_s, r.records_per_s) for r in chosen)
    return measured


def _consumer_measurements(runs: Sequence[PerfRun]) -> list[tuple[float, float]]:
    measured: list[tuple[float, float]] = []
    detailed: dict[str, list[PerfRun]] = {}
    for run in runs:
        if run.kind != "consumer":
            continue
        if run.window == "detailed":
            detailed.setdefault(run.source, []).append(run)
        elif run.fetch_mib_per_s is not None and run.fetch_records_per_s is not None:
            measured.append((run.fetch_mib_per_s, run.fetch_records_per_s))
    for rows in detailed.values():
        fetch_s = sum(r.fetch_ms or 0 for r in rows) / 1000
        last = rows[-1]
        measured.append(((last.mib or 0.0) / fetch_s, last.records / fetch_s))
    return measured


def _share_measurements(
    runs: Sequence[PerfRun],
) -> tuple[list[tuple[float, float]], int | None, list[str]]:
    """The share runs' (MiB/s, records/s), one per file, their member count, and notes."""
    by_file: dict[str, list[PerfRun]] = {}
    for run in runs:
        if run.kind == "share":
            by_file.setdefault(run.source, []).append(run)
    if not by_file:
        return [], None, []
    measured: list[tuple[int, float, float, bool, bool]] = []
    for rows in by_file.values():
        members = {r.member for r in rows if r.member is not None}
        count = len(members)
        steady = _share_steady(rows)
        if steady is not None:
            measured.append((count, steady[0], steady[1], False, False))
            continue
        for row in rows:
            if row.window == "summary":
                measured.append((count, row.mib_per_s, row.records_per_s, True, row.timed_out))
    if not measured:
        return [], None, []
    most = max(m[0] for m in measured)
    kept = [m for m in measured if m[0] == most]
    notes = []
    fewer = sorted({m[0] for m in measured if m[0] != most})
    if fewer:
        notes.append(
            f"share: only the runs with the most members ({most}) count; runs with "
            f"{', '.join(str(n) if n else 'an unknown number of' for n in fewer)} left "
            f"out (fewer members may bound the rate)"
        )
    if any(m[3] for m in kept):
        notes.append(
            "share: a run without two detailed rows of a member (no --show-detailed-stats, "
            "or shorter than its reporting interval) gives its summary rate, which "
            "includes the group join and first assignment (seconds): understated"
        )
    if any(m[4] for m in kept):
        notes.append(
            "share: a run hit its --timeout: its summary includes idle polling, so the "
            "share-fetch rate is understated"
        )
    notes.append(
        "share-consumer-perf-test acknowledges records without processing them: the "
        "share-fetch figures are what one partition delivers to one share group, an upper "
        "bound, and not Tc (one member's processing rate)"
    )
    return [(m[1], m[2]) for m in kept], (most or None), notes


def _share_steady(rows: Sequence[PerfRun]) -> tuple[float, float] | None:
    """The group's rate from its members' detailed rows, first rows left out; None
    when no member printed two rows."""
    by_member: dict[int, list[PerfRun]] = {}
    for row in rows:
        if row.window == "detailed" and row.member is not None:
            by_member.setdefault(row.member, []).append(row)
    records = 0
    mib = 0.0
    longest_ms = 0
    for member_rows in by_member.values():
        if len(member_rows) < 2:
            continue
        first, last = member_rows[0], member_rows[-1]
        records += last.records - first.records
        mib += (last.mib or 0.0) - (first.mib or 0.0)
        longest_ms = max(longest_ms, sum(r.fetch_ms or 0 for r in member_rows[1:]))
    if longest_ms == 0 or records <= 0:
        return None
    return mib / (longest_ms / 1000), records / (longest_ms / 1000)


def _medians(measured: Sequence[tuple[float, float]]) -> tuple[float | None, float | None]:
    if not measured:
        return None, None
    return (
        statistics.median(m[0] for m in measured),
        statistics.median(m[1] for m in measured),
    )
