"""Figures of an interval from what the observer recorded inside it.

`partition-planner observe` appends samples of a live cluster to the observations
dataset (`planner.observe`); this source turns the samples of an interval into the
figures tables, so that a plan of a past interval depends only on what the cluster did
in it, never on what happens to run when `collect` runs. Collected during the traffic or
an hour after it stopped, an interval gives the same tables.

- `throughput`: one row per topic and window of `step_s` (from the interval's start;
  the last window may be shorter). Records are the advance of the partitions' end
  offsets between the window's two ends (`planner.observed.at_moments`: interpolated
  between the samples around each end), times the share of the offsets read that were
  records (transaction markers take offsets too). Bytes are records times the mean size
  (key + value + headers) of the records read in the window: the uncompressed payload,
  the unit of Kafka's perf tools. `bytes_out_per_s` is what the consumer groups read,
  each group's committed offsets' advance at most the window's production
  (`planner.observed.group_read`) times the same size, summed over the groups;
  `busiest_group_bytes_out_per_s` the largest of them, which the sizing plans as one
  group's read rate. Only windows whose two ends are known are written; a topic created
  inside the interval has zero records before it (the cluster was seen without it), and
  a topic that exists and was never written to has rows of zeros.
- `topics`, `cluster`: as the interval's last sample saw them; a topic deleted before
  it is left out (noted). `replicas` (each partition's replicas, the leader at that
  sample first) as the Kafka admin collector writes it, for the cross-zone figure; a
  topic the sample recorded none for has none (noted). `keyed` from the records read in
  the interval (a keyed record makes a topic keyed; none read leaves it unknown, then
  the observations before the interval decide, and failing them it is written false
  with a note).
  `observed_share` is the share of the interval's windows known for the topic.
- `groups`: every group that had members during the interval, as the last sample in
  which it had members saw it (a group gone by the interval's end still counts);
  groups that were only ever empty are skipped. Each row carries the group's own
  capacity on the topic (Tc_g, how it is known and the windows that say so) and its lag
  in records and seconds with its trend, from the run interval's windows
  (`planner.collect.consumption`, the rules of `planner.group_capacity`), and from the
  members' own metrics in Prometheus where they are configured
  (`planner.collect.consumer_metrics`: busy fraction, matched by client id).
- `keys`: the key reservoirs (`planner.observe.reservoir`) of the interval's days, as
  hashes: the sample of a day is its `key_sample_size` records of highest priority, and
  a key's count is how many of them carry it.

Every observation table read is checked by its suite first (`expectations.observed`,
`<table>.observed`): a failure stops the collection, naming the rule and rows.

A collection with history asks for the interval together with the days before it: the
snapshot tables describe the *run* interval (`run`), the throughput covers all of it.
When the observations cover less than `min_coverage` of the run interval, nothing is
collected: the error says what they cover and how to get a whole day.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from planner.collect.base import Collected
from planner.collect.consumer_metrics import ConsumerMetrics, busy_by_group, owners_by_client
from planner.collect.consumption import (
    GAP_PERIODS,
    GROUP_FIGURES,
    Series,
    group_figures,
    group_windows,
    owners_per_window,
)
from planner.collect.kafka_groups import DescribedGroup, DescribedMember, group_rows
from planner.figures.conform import FiguresError, conform, rejections
from planner.figures.dataset import DataInterval
from planner.figures.schema import TABLES, TIMESTAMP
from planner.group_capacity import GroupCapacity
from planner.observe.dataset import ObservationsDataset
from planner.observe.reservoir import estimate
from planner.observe.settings import ObserveSettings
from planner.observed import at_moments, group_read, keyed_evidence

__all__ = ["Coverage", "ObservationsSource", "how_to_cover", "too_little"]

_US = 1_000_000


@dataclass(frozen=True)
class Coverage:
    """How much of an interval the observations cover.

    Attributes:
        interval: The interval.
        windows: Its windows (of `step_s`).
        windows_known: Those whose two ends are known.
        first: The first sample in or around it (None: none).
        last: The last one.
        samples: How many samples fall inside it.
        known_from: The first window end known (None: none).
        known_to: The last one.
    """

    interval: DataInterval
    windows: int
    windows_known: int
    first: datetime | None
    last: datetime | None
    samples: int
    known_from: datetime | None = None
    known_to: datetime | None = None

    @property
    def share(self) -> float:
        """The share of the windows whose two ends are known (0 to 1)."""
        return self.windows_known / self.windows if self.windows else 0.0

    def describe(self) -> str:
        """The coverage in a few words: `50% of 2026-11-25 (73 samples, 11:50 .. 23:50 UTC)`."""
        interval = self.interval
        whole_day = interval.days == 1 and interval.start.hour == interval.start.minute == 0
        name = (
            str(interval.start.date())
            if whole_day
            else f"{_short(interval.start)}/{_short(interval.end)}"
        )
        if self.first is None or self.last is None:
            return f"no sample of {name}"
        return (
            f"{self.share:.0%} of {name} ({self.samples} samples, {_short(self.first)} .. "
            f"{_short(self.last)})"
        )


@dataclass(frozen=True)
class _Windows:
    """The windows of an interval: their ends in microseconds, and which ends are known."""

    bounds_us: np.ndarray  # n + 1 ends
    known: np.ndarray  # per end: the cluster was sampled around it

    @property
    def starts_us(self) -> np.ndarray:
        return self.bounds_us[:-1]

    @property
    def lengths_s(self) -> np.ndarray:
        lengths: np.ndarray = np.diff(self.bounds_us).astype(np.float64) / _US
        return lengths


def _us(moment: datetime) -> int:
    return (
        int(moment.timestamp() * _US)
        if moment.tzinfo
        else int(moment.replace(tzinfo=UTC).timestamp() * _US)
    )


def _moment(us: int) -> datetime:
    return datetime.fromtimestamp(us / _US, tz=UTC)


def _ts_us(table: pa.Table, column: str = "ts") -> np.ndarray:
    return np.asarray(table.column(column).cast(pa.int64()).to_numpy(), dtype=np.int64)


def _series(
    table: pa.Table, keys: list[str], value: str
) -> Iterator[tuple[tuple[Any, ...], np.ndarray, np.ndarray]]:
    """Per distinct `keys`, the (time in seconds, value) points with a value, by time."""
    if table.num_rows == 0:
        return
    table = table.filter(pc.is_valid(table.column(value)))
    if table.num_rows == 0:
        return
    table = table.sort_by([(k, "ascending") for k in keys] + [("ts", "ascending")])
    ts = _ts_us(table).astype(np.float64) / _US
    values = np.asarray(table.column(value).to_numpy(), dtype=np.float64)
    change = np.zeros(table.num_rows, dtype=bool)
    change[0] = True
    for k in keys:
        column = table.column(k).combine_chunks()
        if column.null_count:
            column = pc.fill_null(column, "\x00")
        codes = pc.dictionary_encode(column).indices.to_numpy(zero_copy_only=False)
        change[1:] |= codes[1:] != codes[:-1]
    starts = [*np.flatnonzero(change).tolist(), table.num_rows]
    key_values = [table.column(k).to_pylist() for k in keys]
    for lo, hi in itertools.pairwise(starts):
        yield tuple(kv[lo] for kv in key_values), ts[lo:hi], values[lo:hi]


def _carried(values: np.ndarray) -> np.ndarray:
    """End offsets made cumulative across a topic deleted and created again (the log starts
    again from 0: what the old one held is carried, so each window counts what was appended)."""
    if values.size < 2:
        return values
    drops = np.where(np.diff(values) < 0, values[:-1], 0.0)
    carried: np.ndarray = values + np.concatenate([[0.0], np.cumsum(drops)])
    return carried


class ObservationsSource:
    """Figures of an interval from the observations dataset (`planner.observe`).

    Attributes:
        name: The source's name, in reports and the `source` column.
        dataset: The observations.
        settings: The observation settings (`step_s`, `min_coverage`, `key_sample_size`).
    """

    def __init__(
        self,
        root: str | Path,
        settings: ObserveSettings,
        *,
        name: str = "kafka-observations",
        consumer_metrics: ConsumerMetrics | None = None,
    ) -> None:
        """Read the observations under `root`.

        Args:
            root: The observations dataset's folder.
            settings: The observation settings.
            name: The source's name.
            consumer_metrics: Where the consumers' own metrics are read, for the groups'
                busy-fraction capacity (`planner.collect.consumer_metrics`); None: not
                read.
        """
        self.dataset = ObservationsDataset(root)
        self.settings = settings
        self.name = name
        self.label = f"{name}:{self.dataset.root}"
        self.consumer_metrics = consumer_metrics

    def _read(self, name: str, start: datetime, end: datetime) -> pa.Table:
        """Rows of observation table `name` in `[start, end)`, checked by its suite
        (`expectations.observed`): the observations are the planner's own writing, so
        a row that breaks a rule means a bug or a damaged dataset, and stops the run.

        Raises:
            FiguresError: the rows break `<name>.observed`; the message has the report.
        """
        from expectations.validate import validate

        table = self.dataset.read(name, start, end)
        report = validate(table.to_pandas(), f"{name}.observed", examples=3)
        if not report.success:
            raise FiguresError(
                f"{self.label}: the observations' {name} rows of {_short(start)} .. "
                f"{_short(end)} break their suite; nothing was collected:\n{report.message()}"
            )
        return table

    # --- coverage ------------------------------------------------------------------------

    def _max_gap_s(self, samples: pa.Table) -> float:
        periods = samples.column("every_s").to_numpy(zero_copy_only=False)
        period = float(np.nanmax(periods)) if len(periods) else self.settings.observe_every_s
        return GAP_PERIODS * max(period, self.settings.observe_every_s)

    def _samples_around(self, interval: DataInterval) -> pa.Table:
        margin = timedelta(seconds=GAP_PERIODS * max(self.settings.observe_every_s, 600.0))
        return self._read("sample", interval.start - margin, interval.end + margin)

    def _windows(self, interval: DataInterval, samples: pa.Table) -> _Windows:
        step_us = int(self.settings.step_s * _US)
        start, end = _us(interval.start), _us(interval.end)
        bounds = np.append(np.arange(start, end, step_us, dtype=np.int64), end)
        times = _ts_us(samples).astype(np.float64) / _US
        _, known = at_moments(
            times, np.zeros(times.size), bounds / _US, max_gap_s=self._max_gap_s(samples)
        )
        return _Windows(bounds, known)

    def coverage(self, interval: DataInterval) -> Coverage:
        """How much of `interval` the observations cover."""
        samples = self._samples_around(interval)
        windows = self._windows(interval, samples)
        ts = _ts_us(samples)
        inside = (ts >= _us(interval.start)) & (ts < _us(interval.end))
        moments = samples.column("ts").to_pylist()
        picked = [m for m, i in zip(moments, inside, strict=True) if i]
        both = windows.known[:-1] & windows.known[1:]
        ends = windows.bounds_us[windows.known]
        return Coverage(
            interval,
            int(both.size),
            int(np.count_nonzero(both)),
            picked[0] if picked else None,
            picked[-1] if picked else None,
            len(picked),
            _moment(int(ends[0])) if ends.size else None,
            _moment(int(ends[-1])) if ends.size else None,
        )

    # --- collection ----------------------------------------------------------------------

    def collect(self, interval: DataInterval, *, run: DataInterval | None = None) -> Collected:
        """The figures of `interval` (throughput) and of `run` (the other tables).

        Args:
            interval: The span to read throughput for (the run interval and any history
                days before it).
            run: The interval the snapshot tables describe; None: `interval`.

        Raises:
            FiguresError: the observations cover less than `min_coverage` of `run`.
        """
        run = run or interval
        cover = self.coverage(run)
        if cover.share < self.settings.min_coverage:
            raise FiguresError(too_little(self.dataset.root, cover, self.settings))
        source = self.label
        collected = Collected(source=source)
        notes = collected.notes
        notes.append(f"{self.name}: the observations cover {cover.describe()}")
        span = DataInterval(min(interval.start, run.start), max(interval.end, run.end))
        samples = self._samples_around(span)
        windows = self._windows(span, samples)
        gap_s = self._max_gap_s(samples)
        lo = span.start - timedelta(seconds=gap_s)
        hi = span.end + timedelta(seconds=gap_s)
        read = self._read
        snapshot = _Snapshot.of(read, run)
        existing = set(snapshot.topics.column("topic").to_pylist())
        partitions = read("partitions", lo, hi)
        committed = read("committed", lo, hi)
        produced, known = _produced(partitions, samples, windows, gap_s, existing)
        reads = _reads(read("records", lo, hi), windows, existing)
        share = _run_share(windows, run)
        observed = {t: float(np.mean(k[share])) if share.any() else 0.0 for t, k in known.items()}
        consumed = _consumed(committed, windows, gap_s, existing)
        throughput, bad = _throughput(windows, produced, known, reads, consumed)
        collected.add(
            "throughput",
            conform(
                "throughput",
                throughput.append_column(
                    "source", pa.array([source] * throughput.num_rows, pa.string())
                ),
                source=source,
            ),
        )
        if bad:
            collected.rejected.append(
                rejections(
                    "throughput",
                    source,
                    [None] * len(bad),
                    ["bytes_in_per_s"] * len(bad),
                    [b[0] for b in bad],
                    [b[1] for b in bad],
                )
            )
        first_day = datetime.combine(run.start.astimezone(UTC).date(), datetime.min.time(), UTC)
        # Up to the interval's end only: the top records of a day's reservoir written
        # before a moment are exactly the weighted sample of the day until then, so a
        # collection an hour later finds the same sample.
        reservoirs = read("keys", first_day, run.end)
        sample = _key_sample(reservoirs, run, self.settings.key_sample_size, existing)
        collected.add("keys", conform("keys", sample, source=source))
        keyed = _keyed(
            read("records", span.start - timedelta(days=self.settings.retention_days), run.end), run
        )
        topics = snapshot.topics_table(keyed, observed)
        collected.add("topics", conform("topics", topics, source=source))
        placed = topics.column("replicas").to_pylist()
        unplaced = sorted(
            t for t, r in zip(topics.column("topic").to_pylist(), placed, strict=True) if r is None
        )
        if unplaced:
            notes.append(
                f"{self.name}: {len(unplaced)} topic(s) have no replica list at the "
                f"interval's last sample (a partition without a leader, replica counts that "
                f"differ in a reassignment, or observations written before replicas were "
                f"recorded), so their groups get no cross-zone figure: "
                f"{', '.join(unplaced[:10])}"
            )
        collected.add("cluster", conform("cluster", snapshot.brokers, source=source))
        scan = group_rows(snapshot.groups(), snapshot.committed_topics)
        busy = self._busy(snapshot.member_rows, run, gap_s, notes)
        figures = _group_consumption(
            partitions,
            committed,
            snapshot.member_rows,
            windows,
            run,
            gap_s,
            existing,
            busy,
            commit_interval_s=self.settings.commit_interval_s,
        )
        own = [figures.get((r["group_id"], r["topic"])) or {} for r in scan.rows]
        groups = pa.table(
            {
                "group_id": pa.array([r["group_id"] for r in scan.rows], pa.string()),
                "topic": pa.array([r["topic"] for r in scan.rows], pa.string()),
                "strategy": pa.array([r["strategy"] for r in scan.rows], pa.string()),
                "members": pa.array([r["members"] for r in scan.rows], pa.int32()),
                "protocol": pa.array([r["protocol"] for r in scan.rows], pa.string()),
                "stream_threads": pa.array(
                    [r.get("stream_threads") for r in scan.rows], pa.int32()
                ),
                **{
                    name: pa.array([f.get(name) for f in own], TABLES["groups"].column(name).type)
                    for name in GROUP_FIGURES
                },
            }
        )
        collected.add("groups", conform("groups", groups, source=source))
        if scan.rejected:
            collected.rejected.append(
                rejections(
                    "groups",
                    source,
                    [None] * len(scan.rejected),
                    [b[1] for b in scan.rejected],
                    [b[2] for b in scan.rejected],
                    [b[3] for b in scan.rejected],
                )
            )
        unknown = sorted(t for t in existing if keyed.get(t) is None)
        if unknown:
            notes.append(
                f"{self.name}: {len(unknown)} topic(s) had no record read in or before the "
                f"interval, so whether producers key them is unknown: keyed written as false "
                f"(a topics landing file listed first overrides it): {', '.join(unknown[:10])}"
            )
        if snapshot.deleted:
            notes.append(
                f"{self.name}: {len(snapshot.deleted)} topic(s) existed during the interval "
                f"but were gone by its last sample, and are not planned: "
                f"{', '.join(snapshot.deleted[:10])}"
            )
        low = sorted(t for t, s in observed.items() if s < cover.share)
        if low:
            notes.append(
                f"{self.name}: {len(low)} topic(s) observed for less of the interval than the "
                f"cluster (end offsets unreadable for a while): "
                + ", ".join(f"{t} {observed[t]:.0%}" for t in low[:10])
            )
        return collected

    def _busy(
        self, members: pa.Table, run: DataInterval, gap_s: float, notes: list[str]
    ) -> dict[tuple[str, str], GroupCapacity]:
        """Per (group, topic), the busy-fraction capacity its members' metrics give over
        the run interval (`planner.collect.consumer_metrics`); empty when not configured.

        A Prometheus that cannot be reached fails the collection (`SourceUnavailable`)
        rather than leave the figure out: an interval collected twice gives one answer.
        """
        if self.consumer_metrics is None:
            return {}
        cm = self.consumer_metrics
        readings = cm.readings(
            run.start.timestamp(), run.end.timestamp(), self.settings.observe_every_s
        )
        owners, shared = owners_by_client(members)
        found = busy_by_group(
            readings, owners, gap_s=gap_s, shared=shared, min_busy=cm.settings.min_busy
        )
        clients = {r.client_id for r in readings}
        notes.append(
            f"{self.name}: consumer metrics ({cm.url}): {len(readings)} consumer series of "
            f"{len(clients)} client id(s) read; busy-fraction capacity for {len(found)} "
            f"group and topic pair(s)"
        )
        unplaced = sorted(clients & shared)
        if unplaced:
            notes.append(
                f"{self.name}: {len(unplaced)} client id(s) belonged to more than one group "
                f"in the interval, so their metrics say nothing about either and were left "
                f"out (give each application its own client.id): {', '.join(unplaced[:10])}"
            )
        return found


def too_little(root: Path, cover: Coverage, settings: ObserveSettings) -> str:
    """Why an interval is not planned from the observations, and how to get it covered."""
    return (
        f"observations ({root}) cover {cover.describe()}, below min_coverage "
        f"{settings.min_coverage:.0%}; nothing was collected. {how_to_cover(cover)}"
    )


def how_to_cover(cover: Coverage) -> str:
    """How to get an interval covered, or to plan the part that is."""
    interval = cover.interval
    run = (
        "keep `partition-planner observe` (the `observer` service of docker-compose.yml) "
        f"running from before {_short(interval.start)} to after {_short(interval.end)}"
    )
    if cover.known_from is None or cover.known_to is None or cover.known_from == cover.known_to:
        return f"To plan it, {run}"
    return (
        f"To plan it, {run}; to plan what was observed, give --interval "
        f"{_short(cover.known_from)}/{_short(cover.known_to)}"
    )


def _short(moment: datetime) -> str:
    # Whole minutes (intervals start on one) as such; other moments to the second.
    at = moment.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%MZ" if at.second == 0 else "%Y-%m-%dT%H:%M:%SZ")


def _run_share(windows: _Windows, run: DataInterval) -> np.ndarray:
    """Which windows lie in the run interval."""
    starts = windows.starts_us
    return (starts >= _us(run.start)) & (starts < _us(run.end))


def _first_presence(table: pa.Table, keys: list[str]) -> dict[tuple[Any, ...], float]:
    if table.num_rows == 0:
        return {}
    first = table.group_by(keys, use_threads=False).aggregate([("ts", "min")])
    moments = _ts_us(first, "ts_min").astype(np.float64) / _US
    columns = [first.column(k).to_pylist() for k in keys]
    return {tuple(c[i] for c in columns): float(moments[i]) for i in range(first.num_rows)}


def _produced(
    partitions: pa.Table,
    samples: pa.Table,
    windows: _Windows,
    gap_s: float,
    existing: set[str],
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Per topic and window, the offsets appended, and whether both ends are known.

    A partition first seen after a sample that did not list it was created in between:
    it held 0 at that sample, and at every known moment before.
    """
    bounds_s = windows.bounds_us.astype(np.float64) / _US
    sample_s = np.sort(_ts_us(samples).astype(np.float64) / _US)
    born = _first_presence(partitions, ["topic", "partition"])
    n = bounds_s.size - 1
    produced: dict[str, np.ndarray] = {}
    known: dict[str, np.ndarray] = {}
    for (topic, partition), t, v in _series(partitions, ["topic", "partition"], "end_offset"):
        if topic not in existing:
            continue
        v = _carried(v)
        first = born.get((topic, partition), float(t[0]))
        before = np.searchsorted(sample_s, first, side="left") - 1
        zero_from: float | None = None
        if before >= 0 and first - sample_s[before] <= gap_s:
            zero_from = float(sample_s[before])
            t, v = np.concatenate([[zero_from], t]), np.concatenate([[0.0], v])
        values, ends = at_moments(t, v, bounds_s, max_gap_s=gap_s)
        if zero_from is not None:
            earlier = bounds_s < zero_from
            values[earlier] = 0.0
            ends[earlier] = windows.known[earlier]
        grown = np.where(ends[:-1] & ends[1:], values[1:] - values[:-1], 0.0)
        both = ends[:-1] & ends[1:]
        produced[topic] = produced.get(topic, np.zeros(n)) + grown
        known[topic] = known.get(topic, np.ones(n, dtype=bool)) & both
    return produced, known


@dataclass
class _Reads:
    """Per window, what the record reads of one topic found; and over all windows."""

    records: np.ndarray
    bytes: np.ndarray
    offsets: np.ndarray

    def share(self) -> np.ndarray:
        """Records per offset read, per window (NaN: nothing read)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.offsets > 0, self.records / self.offsets, np.nan)

    def size(self) -> np.ndarray:
        """Mean record bytes, per window (NaN: nothing read)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.records > 0, self.bytes / self.records, np.nan)


def _topic_codes(records: pa.Table) -> tuple[np.ndarray, list[str]]:
    """Each row's topic as a code, and the topics the codes stand for."""
    encoded = pc.dictionary_encode(records.column("topic")).combine_chunks()
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return codes, encoded.dictionary.to_pylist()


def _reads(records: pa.Table, windows: _Windows, existing: set[str]) -> dict[str, _Reads]:
    """Per topic and window, what the record reads found (by the sample's time)."""
    n = windows.starts_us.size
    if records.num_rows == 0:
        return {}
    at = np.searchsorted(windows.bounds_us, _ts_us(records), side="right") - 1
    inside = (at >= 0) & (at < n)
    codes, names = _topic_codes(records)
    slot = codes[inside] * n + at[inside]
    sums = {
        name: np.bincount(
            slot,
            weights=np.asarray(
                pc.fill_null(records.column(f"{name}_read"), 0).to_numpy(), dtype=np.float64
            )[inside],
            minlength=len(names) * n,
        ).reshape(len(names), n)
        for name in ("records", "bytes", "offsets")
    }
    return {
        topic: _Reads(sums["records"][i], sums["bytes"][i], sums["offsets"][i])
        for i, topic in enumerate(names)
        if topic in existing
    }


def _consumed(
    committed: pa.Table, windows: _Windows, gap_s: float, existing: set[str]
) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """Per (group, topic) and window, the advance of its committed offsets over the
    partitions known at both ends, and whether any partition was."""
    bounds_s = windows.bounds_us.astype(np.float64) / _US
    n = bounds_s.size - 1
    out: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
    for (group, topic, _), t, v in _series(committed, ["group_id", "topic", "partition"], "offset"):
        if topic not in existing:
            continue
        values, ends = at_moments(t, v, bounds_s, max_gap_s=gap_s)
        both = ends[:-1] & ends[1:]
        advance = np.where(both, values[1:] - values[:-1], 0.0)
        total, any_known = out.get((group, topic), (np.zeros(n), np.zeros(n, dtype=bool)))
        out[(group, topic)] = (total + advance, any_known | both)
    return out


def _group_consumption(
    partitions: pa.Table,
    committed: pa.Table,
    members: pa.Table,
    windows: _Windows,
    run: DataInterval,
    gap_s: float,
    existing: set[str],
    busy: dict[tuple[str, str], GroupCapacity],
    *,
    commit_interval_s: float,
) -> dict[tuple[str, str], dict[str, object]]:
    """Per (group, topic), the `groups` columns of its own capacity and lag over the run
    interval's windows (`planner.collect.consumption`), with its members' busy-fraction
    capacity where their metrics gave one and the lag's noise of groups committing every
    `commit_interval_s` seconds."""
    inside = np.flatnonzero(_run_share(windows, run))
    if inside.size == 0:
        return {}
    bounds_s = windows.bounds_us[inside[0] : inside[-1] + 2].astype(np.float64) / _US
    ends: dict[str, dict[int, Series]] = {}
    for (topic, partition), t, v in _series(partitions, ["topic", "partition"], "end_offset"):
        if topic in existing:
            ends.setdefault(topic, {})[partition] = (t, v)
    commits: dict[tuple[str, str], dict[int, Series]] = {}
    for (group, topic, partition), t, v in _series(
        committed, ["group_id", "topic", "partition"], "offset"
    ):
        if topic in existing:
            commits.setdefault((group, topic), {})[partition] = (t, v)
    owners = _owners(members)
    out: dict[tuple[str, str], dict[str, object]] = {}
    for (group, topic), parts in commits.items():
        sample_s, counts = owners.get((group, topic), (np.zeros(0), np.zeros(0)))
        consumption = group_windows(
            bounds_s,
            ends.get(topic, {}),
            parts,
            owners_per_window(bounds_s, sample_s, counts),
            gap_s=gap_s,
        )
        out[(group, topic)] = group_figures(
            consumption, busy=busy.get((group, topic)), commit_interval_s=commit_interval_s
        )
    return out


def _owners(members: pa.Table) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """Per (group, topic), the samples' times (s) and how many members owned partitions
    of the topic at each (a streams group's topic marker, with no member, owns none)."""
    rows = members.filter(
        pc.and_(
            pc.is_valid(members.column("partition")),
            pc.greater(pc.utf8_length(pc.fill_null(members.column("member_id"), "")), 0),
        )
    )
    if rows.num_rows == 0:
        return {}
    counted = rows.group_by(["group_id", "topic", "ts"], use_threads=False).aggregate(
        [("member_id", "count_distinct")]
    )
    counted = counted.sort_by(
        [("group_id", "ascending"), ("topic", "ascending"), ("ts", "ascending")]
    )
    out: dict[tuple[str, str], tuple[list[float], list[int]]] = {}
    ts = _ts_us(counted).astype(np.float64) / _US
    for group, topic, at, count in zip(
        counted.column("group_id").to_pylist(),
        counted.column("topic").to_pylist(),
        ts.tolist(),
        counted.column("member_id_count_distinct").to_pylist(),
        strict=True,
    ):
        times, counts = out.setdefault((group, topic), ([], []))
        times.append(at)
        counts.append(count)
    return {k: (np.asarray(t), np.asarray(c)) for k, (t, c) in out.items()}


def _fill(per_window: np.ndarray, overall: float) -> np.ndarray:
    return np.where(np.isfinite(per_window), per_window, overall)


def _throughput(
    windows: _Windows,
    produced: dict[str, np.ndarray],
    known: dict[str, np.ndarray],
    reads: dict[str, _Reads],
    consumed: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]],
) -> tuple[pa.Table, list[tuple[str, str]]]:
    """The throughput rows of the known windows, and (topic, reason) of rows left out."""
    n = windows.starts_us.size
    lengths = windows.lengths_s
    groups_of: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
    for (_, topic), value in consumed.items():
        groups_of.setdefault(topic, []).append(value)
    columns: dict[str, list[Any]] = {
        k: []
        for k in (
            "topic",
            "ts",
            "bytes_in_per_s",
            "records_in_per_s",
            "bytes_out_per_s",
            "busiest_group_bytes_out_per_s",
        )
    }
    bad: list[tuple[str, str]] = []
    for topic in sorted(produced):
        offsets, ok = produced[topic], known[topic]
        r = reads.get(topic) or _Reads(np.zeros(n), np.zeros(n), np.zeros(n))
        total_offsets, total_records = r.offsets.sum(), r.records.sum()
        share = _fill(r.share(), total_records / total_offsets if total_offsets else 1.0)
        size = _fill(r.size(), r.bytes.sum() / total_records if total_records else np.nan)
        unsized = ok & (offsets > 0) & ~np.isfinite(size)
        if unsized.any():
            bad.append(
                (
                    topic,
                    f"topic {topic!r}: records were produced in {int(unsized.sum())} window(s) "
                    f"but none was read in the interval, so their size is unknown",
                )
            )
        size = np.where(np.isfinite(size), size, 0.0)
        records_per_s = offsets * share / lengths
        out_total = np.zeros(n)
        busiest = np.zeros(n)
        any_group = np.zeros(n, dtype=bool)
        for advance, group_known in groups_of.get(topic, []):
            read_per_s = np.where(
                group_known, group_read(advance, offsets) * share * size / lengths, 0.0
            )
            out_total += read_per_s
            busiest = np.maximum(busiest, read_per_s)
            any_group |= group_known
        keep = np.flatnonzero(ok & ~unsized)
        columns["topic"] += [topic] * keep.size
        columns["ts"] += windows.starts_us[keep].tolist()
        columns["records_in_per_s"] += records_per_s[keep].tolist()
        columns["bytes_in_per_s"] += (records_per_s * size)[keep].tolist()
        columns["bytes_out_per_s"] += [
            v if g else None for v, g in zip(out_total[keep], any_group[keep], strict=True)
        ]
        columns["busiest_group_bytes_out_per_s"] += [
            v if g else None for v, g in zip(busiest[keep], any_group[keep], strict=True)
        ]
    table = pa.table(
        {
            "topic": pa.array(columns["topic"], pa.string()),
            "ts": pa.array(columns["ts"], pa.int64()).cast(TIMESTAMP),
            "bytes_in_per_s": pa.array(columns["bytes_in_per_s"], pa.float64()),
            "records_in_per_s": pa.array(columns["records_in_per_s"], pa.float64()),
            "bytes_out_per_s": pa.array(columns["bytes_out_per_s"], pa.float64()),
            "busiest_group_bytes_out_per_s": pa.array(
                columns["busiest_group_bytes_out_per_s"], pa.float64()
            ),
        }
    )
    return table, bad


def _key_sample(rows: pa.Table, run: DataInterval, size: int, existing: set[str]) -> pa.Table:
    """The `keys` table: the reservoirs of the days `run` overlaps, up to its end, a key's
    count being the records produced with it, estimated from each day's sample
    (`planner.observe.reservoir.estimate`: unbiased, full reservoir or not)."""
    days = set()
    day = run.start.astimezone(UTC).date()
    while datetime.combine(day, datetime.min.time(), UTC) < run.end:
        days.add(day)
        day += timedelta(days=1)
    columns = ["topic", "murmur2", "crc32", "fnv1a", "empty"]
    picked: list[pa.Table] = []
    if rows.num_rows:
        day_of = rows.column("day").to_pylist()
        topics = rows.column("topic").to_pylist()
        groups: dict[tuple[str, Any], list[int]] = {}
        for i, (topic, day) in enumerate(zip(topics, day_of, strict=True)):
            if day in days and topic in existing:
                groups.setdefault((topic, day), []).append(i)
        priority = rows.column("priority").to_numpy()
        weight = rows.column("weight").to_numpy()
        for at in groups.values():
            index = np.asarray(at)
            kept, records = estimate(priority[index], weight[index], size)
            chosen = rows.select(columns).take(pa.array(index[kept]))
            picked.append(chosen.append_column("records", pa.array(records, pa.float64())))
    if picked:
        kept_rows = pa.concat_tables(picked)
    else:
        kept_rows = (
            rows.select(columns).slice(0, 0).append_column("records", pa.array([], pa.float64()))
        )
    counted = kept_rows.group_by(columns, use_threads=False).aggregate([("records", "sum")])
    counted = counted.sort_by([("topic", "ascending"), ("records_sum", "descending")])
    return pa.table(
        {
            "topic": counted.column("topic"),
            "hash_murmur2": counted.column("murmur2").cast(pa.int64()),
            "hash_crc32": counted.column("crc32").cast(pa.int64()),
            "hash_fnv1a": counted.column("fnv1a").cast(pa.int64()),
            "key_empty": counted.column("empty"),
            "count": counted.column("records_sum").cast(pa.float64()),
        }
    )


def _keyed(records: pa.Table, run: DataInterval) -> dict[str, bool | None]:
    """Per topic, the keyed evidence of the run interval, else of the latest reads before it."""
    if records.num_rows == 0:
        return {}
    ts = _ts_us(records)
    codes, names = _topic_codes(records)
    read = np.asarray(pc.fill_null(records.column("records_read"), 0).to_numpy(), dtype=np.int64)
    keyed = np.asarray(pc.fill_null(records.column("keyed_read"), 0).to_numpy(), dtype=np.int64)
    in_run = (ts >= _us(run.start)) & (ts < _us(run.end))
    read_in = np.bincount(codes[in_run], weights=read[in_run], minlength=len(names))
    keyed_in = np.bincount(codes[in_run], weights=keyed[in_run], minlength=len(names))
    found = {
        topic: keyed_evidence(int(read_in[i]), int(keyed_in[i])) for i, topic in enumerate(names)
    }
    # Before the interval: the latest window in which records were read decides.
    before = np.flatnonzero((ts < _us(run.start)) & (read > 0))
    latest = before[np.lexsort((ts[before], codes[before]))]
    last_of = np.flatnonzero(np.append(np.diff(codes[latest]) != 0, True))
    for i in latest[last_of] if latest.size else ():
        topic = names[codes[i]]
        if found[topic] is None:
            found[topic] = keyed_evidence(int(read[i]), int(keyed[i]))
    return found


@dataclass
class _Snapshot:
    """The tables that describe the cluster as the run interval's samples saw it."""

    topics: pa.Table  # at the last sample
    brokers: pa.Table
    deleted: list[str]
    group_rows: pa.Table  # every groups row of the interval
    member_rows: pa.Table
    committed_rows: pa.Table

    @classmethod
    def of(cls, read: Any, run: DataInterval) -> _Snapshot:
        topics = read("topics", run.start, run.end)
        brokers = read("brokers", run.start, run.end)
        last = pc.max(topics.column("ts")) if topics.num_rows else None
        now = topics.filter(pc.equal(topics.column("ts"), last)) if last is not None else topics
        names = set(now.column("topic").to_pylist())
        deleted = sorted(set(topics.column("topic").to_pylist()) - names)
        last_b = pc.max(brokers.column("ts")) if brokers.num_rows else None
        brokers_now = (
            brokers.filter(pc.equal(brokers.column("ts"), last_b))
            if last_b is not None
            else brokers
        )
        return cls(
            topics=now,
            brokers=brokers_now.select(["broker_id", "rack", "live"]),
            deleted=deleted,
            group_rows=read("groups", run.start, run.end),
            member_rows=read("members", run.start, run.end),
            committed_rows=read("committed", run.start, run.end),
        )

    def topics_table(self, keyed: dict[str, bool | None], observed: dict[str, float]) -> pa.Table:
        names = self.topics.column("topic").to_pylist()
        return pa.table(
            {
                "topic": pa.array(names, pa.string()),
                "partitions": self.topics.column("partitions"),
                "replication_factor": self.topics.column("replication_factor"),
                "keyed": pa.array([bool(keyed.get(t)) for t in names], pa.bool_()),
                "retention_ms": self.topics.column("retention_ms"),
                "observed_share": pa.array([observed.get(t, 0.0) for t in names], pa.float64()),
                # As the last sample saw them: its leaders are the ones consumers fetch from
                # when the interval ends, as the Kafka admin collector's are at its read.
                "replicas": self.topics.column("replicas"),
            }
        )

    def _active_ts(self) -> dict[str, Any]:
        """Per group, the last sample of the interval in which it had members."""
        rows = self.group_rows.filter(
            pc.greater(pc.fill_null(self.group_rows.column("members"), 0), 0)
        )
        if rows.num_rows == 0:
            return {}
        last = rows.group_by(["group_id"], use_threads=False).aggregate([("ts", "max")])
        return dict(
            zip(last.column("group_id").to_pylist(), last.column("ts_max").to_pylist(), strict=True)
        )

    def groups(self) -> list[DescribedGroup]:
        """Every group that had members in the interval, as last seen with members; then
        the groups only ever seen empty (so that they are counted as skipped)."""
        active = self._active_ts()
        out: list[DescribedGroup] = []
        rows = self.group_rows.to_pylist()
        members = self.member_rows.to_pylist()
        owned: dict[tuple[str, Any], dict[str, list[tuple[str, int]]]] = {}
        clients: dict[tuple[str, Any, str], str] = {}
        for m in members:
            if not m["member_id"]:
                continue  # a streams group's topic marker (see `committed_topics`)
            slot = owned.setdefault((m["group_id"], m["ts"]), {})
            parts = slot.setdefault(m["member_id"], [])
            clients[(m["group_id"], m["ts"], m["member_id"])] = m["client_id"] or ""
            if m["topic"] is not None and m["partition"] is not None:
                parts.append((m["topic"], m["partition"]))
        seen: set[str] = set()
        for row in sorted(rows, key=lambda r: (r["group_id"], r["ts"])):
            group_id = row["group_id"]
            when = active.get(group_id)
            if when is not None and row["ts"] != when:
                continue
            if when is None and group_id in seen:
                continue
            seen.add(group_id)
            slot = owned.get((group_id, row["ts"]), {})
            out.append(
                DescribedGroup(
                    group_id=group_id,
                    protocol=row["protocol"] or "classic",
                    state=row["state"] or "UNKNOWN",
                    assignor=row["assignor"] or "",
                    simple=bool(row["simple"]),
                    members=tuple(
                        DescribedMember(
                            member_id,
                            clients.get((group_id, row["ts"], member_id), ""),
                            None,
                            tuple(sorted(parts)),
                        )
                        for member_id, parts in sorted(slot.items())
                    ),
                )
            )
        return out

    def committed_topics(self, group_id: str) -> set[str]:
        """The topics `group_id` committed offsets for in the interval (or, for a streams
        group, the topics Kafka's tool named)."""
        found = {
            r["topic"]
            for r in self.committed_rows.filter(
                pc.equal(self.committed_rows.column("group_id"), group_id)
            ).to_pylist()
        }
        found |= {
            r["topic"]
            for r in self.member_rows.filter(
                pc.equal(self.member_rows.column("group_id"), group_id)
            ).to_pylist()
            if not r["member_id"] and r["topic"]
        }
        return found
