"""How each consumer group consumed a topic in an interval, as the figures' `groups` columns.

The rules on a group's windows (saturation, lower bound, trend, time lag) are
`planner.group_capacity`'s, decided there once; this module only builds the windows
they read from what the observer recorded, and writes what they say:

- **Windows** (`group_windows`): the run interval's windows of `step_s`. At each window
  end, every partition's end offset and the group's committed offset are interpolated
  between the samples around it (`planner.observed.at_moments`); the group's **lag** is
  the sum over its partitions of end minus committed (each at least 0: a committed offset
  read a moment after the end offset may pass it). A window's consumption is the
  committed offsets' advance. An end is known when every partition the group committed
  on is known there; windows whose two ends are not known, in between known ones, are
  kept as gaps (no lag, no owners), so a saturated run never spans an unseen stretch.
- **Owners** (`owners_per_window`): the members owning partitions of the topic in the
  samples inside a window, when every such sample agrees; a window with a rebalance in
  it (two counts) or without a sample has 0 ("not known"), and no rule uses it.
- **Time lag**: at the last known end, per partition, the age of the oldest record not
  consumed (`time_lag`, on the partition's end-offset history); the group's is the
  largest, as Kafka Lag Exporter's `kafka_consumergroup_group_max_lag_seconds`. Unknown
  (empty) when a partition's history does not reach back to its committed offset.
- **Given wins** (`with_given`): a capacity row naming the group and topic replaces
  whatever was learned, with `given` as its source.
- **Figures travel together** (`with_figures_of_later_sources`): when two sources give
  the same group and topic, the first wins the row, but a winning row with none of these
  columns takes them, as one block, from the first later row that has them (a landing
  groups file listed before `kafka` states strategies and sizes, not what the observer
  learned). A block is never mixed from two sources.
- **Learned elsewhere** (`with_learned`): a source that sees a group's offsets but does
  not describe the group (a lag exporter read in Prometheus,
  `planner.collect.group_offsets`) fills the figures of the row another source
  described, where that row has none of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from planner.group_capacity import (
    DEFAULT_COMMIT_INTERVAL_S,
    GroupCapacity,
    GroupWindows,
    lag_trend,
    learn,
    time_lag,
)
from planner.observed import at_moments

__all__ = [
    "GAP_PERIODS",
    "GROUP_FIGURES",
    "GroupConsumption",
    "Series",
    "group_figures",
    "group_windows",
    "owners_per_window",
    "with_figures_of_later_sources",
    "with_given",
    "with_learned",
]

#: How many sampling periods apart two samples may be and still be interpolated between
#: (two samples missed); wider, the windows across the gap are unknown.
GAP_PERIODS = 3.0

#: A counter's samples: times (seconds since the epoch, ascending) and values.
Series = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
#: The columns of the figures' `groups` table this module fills.
GROUP_FIGURES = (
    "consumer_records_per_s",
    "capacity_source",
    "capacity_evidence",
    "lag_records",
    "lag_seconds",
    "lag_trend",
)


@dataclass(frozen=True)
class GroupConsumption:
    """One group's consumption of one topic over the run interval.

    Attributes:
        windows: Its windows, from the first to the last whose two ends are known.
        lag_records: Its lag at the last known end, records.
        lag_seconds: Its time lag then, seconds (None: older than the history).
        at_s: That end, seconds since the epoch.
    """

    windows: GroupWindows
    lag_records: float
    lag_seconds: float | None
    at_s: float


def owners_per_window(
    bounds_s: npt.ArrayLike, sample_s: npt.ArrayLike, owners: npt.ArrayLike
) -> npt.NDArray[np.int64]:
    """Members owning partitions in each window, from per-sample counts (0: not known).

    Args:
        bounds_s: The windows' ends, seconds (n + 1 for n windows).
        sample_s: Sample times, seconds.
        owners: Members owning partitions of the topic at each sample.

    Example:
        >>> owners_per_window([0, 60, 120, 180], [10, 50, 70, 130, 150], [3, 3, 3, 2, 3]).tolist()
        [3, 3, 0]
    """
    bounds = np.asarray(bounds_s, dtype=np.float64)
    t = np.asarray(sample_s, dtype=np.float64)
    counts = np.asarray(owners, dtype=np.int64)
    at = np.searchsorted(bounds, t, side="right") - 1
    n = bounds.size - 1
    inside = (at >= 0) & (at < n)
    at, counts = at[inside], counts[inside]
    most = np.zeros(n, dtype=np.int64)
    least = np.full(n, np.iinfo(np.int64).max)
    np.maximum.at(most, at, counts)
    np.minimum.at(least, at, counts)
    # A rebalance inside a window mixes two member counts in one rate: no evidence.
    out: npt.NDArray[np.int64] = np.where(most == least, most, 0)
    return out


def group_windows(
    bounds_s: npt.NDArray[np.float64],
    ends: Mapping[int, Series],
    committed: Mapping[int, Series],
    owners: npt.NDArray[np.int64],
    *,
    gap_s: float,
) -> GroupConsumption | None:
    """A group's windows on one topic, its lag and its time lag (None: no window known).

    Args:
        bounds_s: The run's window ends, seconds (n + 1).
        ends: Per partition of the topic, its end offsets' samples.
        committed: Per partition the group committed on, its committed offsets' samples.
        owners: Members owning partitions per window (`owners_per_window`).
        gap_s: The widest gap between samples to interpolate across, seconds.
    """
    n = bounds_s.size - 1
    if n < 1 or not committed:
        return None
    lag = np.zeros(n + 1)
    done = np.zeros(n + 1)
    known = np.ones(n + 1, dtype=bool)
    at_end: dict[int, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = {}
    for partition, (t, v) in committed.items():
        if partition not in ends:
            known[:] = False
            break
        c, c_known = at_moments(t, v, bounds_s, max_gap_s=gap_s)
        e, e_known = at_moments(*ends[partition], bounds_s, max_gap_s=gap_s)
        known &= c_known & e_known
        lag += np.where(known, np.maximum(e - c, 0.0), 0.0)
        done += np.where(known, c, 0.0)
        at_end[partition] = (c, e)
    both = known[:-1] & known[1:]
    if not both.any():
        return None
    first, last = int(np.argmax(both)), int(n - 1 - np.argmax(both[::-1]))
    span = slice(first, last + 1)
    gap = ~both[span]
    windows = GroupWindows.of(
        bounds_s[:-1][span],
        np.diff(bounds_s)[span],
        np.where(gap, np.nan, np.diff(done)[span]),
        np.where(gap, np.nan, lag[:-1][span]),
        np.where(gap, np.nan, lag[1:][span]),
        np.where(gap, 0, owners[span]),
    )
    now = last + 1
    ages = [
        _time_lag(float(c[now]), ends[p], float(e[now]), float(bounds_s[now]))
        for p, (c, e) in at_end.items()
    ]
    return GroupConsumption(
        windows=windows,
        lag_records=float(lag[now]),
        lag_seconds=None if any(a is None for a in ages) else max(a for a in ages if a is not None),
        at_s=float(bounds_s[now]),
    )


def _time_lag(committed: float, history: Series, end: float, now_s: float) -> float | None:
    t, v = history
    before = t <= now_s
    return time_lag(committed, np.append(t[before], now_s), np.append(v[before], end), now_s)


def group_figures(
    consumption: GroupConsumption | None,
    *,
    busy: GroupCapacity | None = None,
    commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S,
) -> dict[str, object]:
    """The `groups` columns of one group and topic: its own capacity (learned from its
    windows and, when its members' metrics were read, their busy fraction;
    `topic-default` and no figure when neither shows anything) and its lag.

    Args:
        consumption: The group's windows on the topic (None: none known).
        busy: Its members' busy-fraction capacity (`planner.group_capacity.busy_fraction`),
            None when no metrics were read.
        commit_interval_s: How often the group commits, seconds: the lag's noise
            (`planner.group_capacity.lag_noise`).
    """
    if consumption is None:
        return dict.fromkeys(GROUP_FIGURES)
    w = consumption.windows
    capacity = learn(w, busy=busy, commit_interval_s=commit_interval_s)
    trend, _ = lag_trend(w, commit_interval_s=commit_interval_s)
    return {
        "consumer_records_per_s": None if capacity is None else capacity.records_per_s,
        "capacity_source": "topic-default" if capacity is None else capacity.source,
        "capacity_evidence": (
            f"nothing learned from {len(w)} window(s) of {_span(w.starts_s[0], consumption.at_s)}"
            " (no saturated run, no member metrics, no window kept up with members known):"
            " the topic's Tc applies"
            if capacity is None
            else evidence(capacity)
        ),
        "lag_records": round(consumption.lag_records),
        "lag_seconds": consumption.lag_seconds,
        "lag_trend": trend,
    }


def evidence(capacity: GroupCapacity) -> str:
    """The capacity's evidence, led by its source and the windows it was learned from.

    Example:
        >>> c = GroupCapacity(500.0, "saturation", "3 windows (900 s) ...", False,
        ...                   1_795_168_800.0, 1_795_169_700.0)
        >>> evidence(c)
        'saturation 2026-11-20 10:00-10:15 UTC: 3 windows (900 s) ...'
    """
    if capacity.window_start_s is None or capacity.window_end_s is None:
        return f"{capacity.source}: {capacity.evidence}"
    span = _span(capacity.window_start_s, capacity.window_end_s)
    return f"{capacity.source} {span}: {capacity.evidence}"


def _span(start_s: float, end_s: float) -> str:
    start = datetime.fromtimestamp(start_s, UTC)
    end = datetime.fromtimestamp(end_s, UTC)
    tail = "%H:%M" if end.date() == start.date() else "%Y-%m-%d %H:%M"
    return f"{start:%Y-%m-%d %H:%M}-{end.strftime(tail)} UTC"


def with_given(groups: pa.Table, capacity: pa.Table) -> tuple[pa.Table, list[str]]:
    """`groups` with each capacity row that names a group and topic as that group's Tc
    (source `given`: a curated figure wins over a learned one), and notes for the rows
    that name a group not reading the topic.

    Args:
        groups: The figures' `groups` table.
        capacity: The figures' `capacity` table (rows without a group are the topics').
    """
    if "group_id" not in capacity.column_names:
        return groups, []
    rows = capacity.filter(pc.is_valid(capacity.column("group_id")))
    given = {
        (r["group_id"], r["topic"]): r
        for r in rows.select(["group_id", "topic", "consumer_records_per_s", "source"]).to_pylist()
    }
    if not given:
        return groups, []
    keys = list(
        zip(groups.column("group_id").to_pylist(), groups.column("topic").to_pylist(), strict=True)
    )
    hit = [given.get(k) for k in keys]
    mask = pa.array([h is not None for h in hit])
    columns = {
        "consumer_records_per_s": pa.array(
            [None if h is None else h["consumer_records_per_s"] for h in hit], pa.float64()
        ),
        "capacity_source": pa.array([None if h is None else "given" for h in hit], pa.string()),
        "capacity_evidence": pa.array(
            [None if h is None else f"given in the capacity table ({h['source']})" for h in hit],
            pa.string(),
        ),
    }
    for name, value in columns.items():
        i = groups.schema.get_field_index(name)
        merged = pc.if_else(mask, value, groups.column(i).combine_chunks())
        groups = groups.set_column(i, groups.schema.field(i), merged)
    unread = sorted(set(given) - set(keys))
    notes = [
        f"capacity: a row gives group {g!r} a Tc on topic {t!r}, but the group does not read "
        f"it in the interval: not used"
        for g, t in unread
    ]
    return groups, notes


def with_figures_of_later_sources(groups: pa.Table) -> tuple[pa.Table, list[str]]:
    """`groups` (rows in priority order, duplicates not yet removed) with each key's first
    row given the `GROUP_FIGURES` of the first later row of that (group, topic) that has
    any, when it has none itself; and a note per row so completed.

    Example: `landing` says group `billing` reads `orders` with 3 range members and
    nothing of its consumption; `kafka` learned its Tc and lag. The merged row is
    landing's, with kafka's six figures.
    """
    if groups.num_rows < 2:
        return groups, []
    keys = list(
        zip(groups.column("group_id").to_pylist(), groups.column("topic").to_pylist(), strict=True)
    )
    figures = groups.select(list(GROUP_FIGURES)).to_pylist()
    has = [any(v is not None for v in row.values()) for row in figures]
    first: dict[tuple[str, str], int] = {}
    donor: dict[int, int] = {}
    for i, key in enumerate(keys):
        if key not in first:
            first[key] = i
        elif not has[first[key]] and has[i] and first[key] not in donor:
            donor[first[key]] = i
    if not donor:
        return groups, []
    take = np.arange(groups.num_rows)
    for winner, giver in donor.items():
        take[winner] = giver
    index = pa.array(take)
    for name in GROUP_FIGURES:
        i = groups.schema.get_field_index(name)
        groups = groups.set_column(i, groups.schema.field(i), groups.column(i).take(index))
    source = groups.column("source").to_pylist()
    notes = [
        f"groups: group {keys[w][0]!r} on topic {keys[w][1]!r}: its row from {source[w]!r} "
        f"has no capacity or lag figures; those of {source[g]!r} are used"
        for w, g in sorted(donor.items())
    ]
    return groups, notes


def with_learned(
    groups: pa.Table, learned: Sequence[tuple[str, Mapping[tuple[str, str], Mapping[str, object]]]]
) -> tuple[pa.Table, list[str]]:
    """`groups` with the figures a source learned for a (group, topic) written into the
    row another source described, where that row has no capacity source of its own; and
    notes for the figures of groups no source described.

    The first source (in priority order) with figures for a row wins. A row that already
    carries figures (the observer's, a groups file's) keeps them: the describing source saw
    the group itself.

    Args:
        groups: The figures' `groups` table.
        learned: Per source, its name and its figures per (group id, topic), with the
            keys of `GROUP_FIGURES`.
    """
    if not learned or not any(figures for _, figures in learned):
        return groups, []
    keys = list(
        zip(groups.column("group_id").to_pylist(), groups.column("topic").to_pylist(), strict=True)
    )
    own = groups.column("capacity_source").to_pylist()
    found: list[Mapping[str, object] | None] = []
    for key, source in zip(keys, own, strict=True):
        hit = None
        if source is None:
            hit = next((f[key] for _, f in learned if key in f), None)
        found.append(hit)
    mask = pa.array([h is not None for h in found])
    for name in GROUP_FIGURES:
        i = groups.schema.get_field_index(name)
        field = groups.schema.field(i)
        value = pa.array([None if h is None else h.get(name) for h in found], field.type)
        merged = pc.if_else(mask, value, groups.column(i).combine_chunks())
        groups = groups.set_column(i, field, merged)
    described = set(keys)
    notes = []
    for name, figures in learned:
        alone = sorted(set(figures) - described)
        if alone:
            shown = ", ".join(f"{g!r} on {t!r}" for g, t in alone[:10])
            notes.append(
                f"{name}: {len(alone)} group subscription(s) have offsets but no source "
                f"describes the group (members, assignor), so they are not planned: {shown}"
            )
    return groups, notes
