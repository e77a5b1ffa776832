"""A consumer group's own capacity, and whether it keeps up, from how it consumed.

Tc, what one member processes per second, is a property of the consuming application,
not of the topic: an archiver and a search indexer on one topic differ by orders of
magnitude, and `kafka-consumer-perf-test`'s consumer processes nothing (an upper bound).
What the cluster shows of a group over time (`planner.observe`) is enough to learn it,
or to bound it, per group and topic. Every rule is here, once, on plain numbers:

- **Lag noise** (`lag_noise`): committed offsets trail processing by up to a commit
  interval (the Java consumer commits every `auto.commit.interval.ms`, 5 s by default),
  so a lag read at a window's end is uncertain by the records consumed in that long,
  and a change of lag over a window by twice that. A change within it is no change.
- **Saturated** (`saturation`): a run of at least two consecutive windows in which the
  lag grew by more than its noise while the consumption rate stayed flat (each window's
  rate within `flat_margin` of the run's mean) and the members owning partitions did not
  change: the group consumed all it could. Its capacity is the run's consumption rate
  divided by those members.
- **Busy fraction** (`busy_fraction`): a member consuming `R` records/s while busy a
  fraction `b` of the time would process about `R / b` flat out. `b` comes from the Java
  consumer's `poll-idle-ratio-avg` (KIP-517) by `poll_busy_share`, which undoes how Kafka
  computes it (each poll's time over itself plus the time since the *previous poll
  started*, so a consumer that never processes reads 0.5, not 1). Members busy less than
  `min_busy` (5 %) say too little (a small `b` makes a small error large) and are left
  out. The metric is an average over polls, not over time: where short polls outnumber
  long ones it reads busier than the member was, and the capacity comes out low (seen
  live: 265-287 records/s for members that do 500, docs/model.md section 9). So the
  figure is reported as what it is, "at least", like the lower bound: it may show a
  group faster than the topic's Tc, never slower.
- **Lower bound** (`lower_bound`): a group that kept up in every window only shows that
  its capacity is at least the highest per-member rate it reached, reported as "at
  least", never as a capacity that could make it look slow. A group whose lag grew
  over the interval (`lag_trend`) shows no bound, even when no single window's growth
  stood above its noise.
- **Trend** (`lag_trend`): whether the lag grew, held or shrank over the windows, beyond
  its noise; a group is falling behind when it grew.
- **Time lag** (`time_lag`): how old the oldest unconsumed record is: the moment the end
  offset reached today's committed offset, interpolated in the end offsets' history
  (the method of Kafka Lag Exporter's `kafka_consumergroup_group_lag_seconds`).

`learn` picks, in this order: a capacity given for the group (curated wins), saturation,
the larger of the two "at least" figures (busy fraction, lower bound: the larger is the
tighter bound), and the topic's Tc (perf test or given) when none of them says anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

__all__ = [
    "CAPACITY_SOURCES",
    "DEFAULT_COMMIT_INTERVAL_S",
    "DEFAULT_FLAT_MARGIN",
    "DEFAULT_MIN_BUSY",
    "LAG_TRENDS",
    "CapacitySource",
    "GroupCapacity",
    "GroupWindows",
    "LagTrend",
    "busy_fraction",
    "lag_noise",
    "lag_trend",
    "learn",
    "lower_bound",
    "poll_busy_share",
    "saturation",
    "time_lag",
]

#: The Java consumer's `auto.commit.interval.ms`, in seconds: how far committed offsets
#: may trail what a member has processed.
DEFAULT_COMMIT_INTERVAL_S = 5.0
#: How far a window's consumption rate may stray from a saturated run's mean (a share).
DEFAULT_FLAT_MARGIN = 0.1
#: The smallest busy share a member's metrics are used at.
DEFAULT_MIN_BUSY = 0.05

CapacitySource = Literal["given", "saturation", "busy-fraction", "lower-bound", "topic-default"]
LagTrend = Literal["growing", "steady", "shrinking"]
#: The values of each, in the order above (what a figures column may hold).
CAPACITY_SOURCES: tuple[CapacitySource, ...] = get_args(CapacitySource)
LAG_TRENDS: tuple[LagTrend, ...] = get_args(LagTrend)


@dataclass(frozen=True)
class GroupWindows:
    """One group's consumption of one topic over consecutive windows.

    Attributes:
        starts_s: Window starts, seconds since the epoch.
        lengths_s: Window lengths, seconds.
        consumed: Records the group's committed offsets advanced by, per window.
        lag_start: The group's lag (records) at each window's start.
        lag_end: Its lag at each window's end.
        owners: Members that owned partitions of the topic in each window (0: none
            known).
    """

    starts_s: npt.NDArray[np.float64]
    lengths_s: npt.NDArray[np.float64]
    consumed: npt.NDArray[np.float64]
    lag_start: npt.NDArray[np.float64]
    lag_end: npt.NDArray[np.float64]
    owners: npt.NDArray[np.int64]

    @classmethod
    def of(
        cls,
        starts_s: npt.ArrayLike,
        lengths_s: npt.ArrayLike,
        consumed: npt.ArrayLike,
        lag_start: npt.ArrayLike,
        lag_end: npt.ArrayLike,
        owners: npt.ArrayLike,
    ) -> GroupWindows:
        """Windows from array-likes (all the same length)."""
        out = cls(
            np.asarray(starts_s, dtype=np.float64),
            np.asarray(lengths_s, dtype=np.float64),
            np.asarray(consumed, dtype=np.float64),
            np.asarray(lag_start, dtype=np.float64),
            np.asarray(lag_end, dtype=np.float64),
            np.asarray(owners, dtype=np.int64),
        )
        sizes = {a.size for a in (out.starts_s, out.lengths_s, out.consumed, out.lag_start)}
        sizes |= {out.lag_end.size, out.owners.size}
        if len(sizes) != 1:
            raise ValueError(f"every window column needs the same length, got {sorted(sizes)}")
        return out

    @property
    def rates(self) -> npt.NDArray[np.float64]:
        """Consumption per window, records/s."""
        rates: npt.NDArray[np.float64] = self.consumed / self.lengths_s
        return rates

    def __len__(self) -> int:
        return int(self.starts_s.size)


@dataclass(frozen=True)
class GroupCapacity:
    """What one member of a group processes per second, and what says so.

    Attributes:
        records_per_s: Records/s one member processes (a lower bound when `at_least`).
        source: How it is known.
        evidence: The facts behind it, in a sentence.
        at_least: Whether it is only a lower bound.
        window_start_s: Start of the windows it was learned from (None: not learned).
        window_end_s: Their end.
    """

    records_per_s: float
    source: CapacitySource
    evidence: str
    at_least: bool = False
    window_start_s: float | None = None
    window_end_s: float | None = None


def lag_noise(
    rates: npt.ArrayLike, *, commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S
) -> npt.NDArray[np.float64]:
    """The change of lag over a window that is no change (records), per window.

    Twice the records consumed in one commit interval (the lag at each end may trail by
    that), and at least one record.

    Example:
        >>> lag_noise([100.0, 0.0]).tolist()
        [1000.0, 1.0]
    """
    r = np.asarray(rates, dtype=np.float64)
    noise: npt.NDArray[np.float64] = np.maximum(2.0 * np.maximum(r, 0.0) * commit_interval_s, 1.0)
    return noise


def _growing(w: GroupWindows, commit_interval_s: float) -> npt.NDArray[np.bool_]:
    growth = w.lag_end - w.lag_start
    grew: npt.NDArray[np.bool_] = growth > lag_noise(w.rates, commit_interval_s=commit_interval_s)
    return grew


def saturation(
    w: GroupWindows,
    *,
    flat_margin: float = DEFAULT_FLAT_MARGIN,
    commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S,
    min_windows: int = 2,
) -> GroupCapacity | None:
    """The capacity a saturated run of windows shows, or None when there is none.

    Of the runs of consecutive windows whose lag grew beyond its noise, with the same
    members owning partitions and a consumption rate within `flat_margin` of the run's
    mean, the longest (the latest of equal ones) of at least `min_windows` windows.

    Example:
        >>> w = GroupWindows.of([0, 60, 120], [60] * 3, [30_000] * 3,
        ...                     [0, 6_000, 12_000], [6_000, 12_000, 18_000], [3] * 3)
        >>> c = saturation(w)
        >>> c.records_per_s, c.source
        (166.66666666666666, 'saturation')
    """
    grew = _growing(w, commit_interval_s) & (w.owners > 0)
    rates = w.rates
    best: tuple[int, int] | None = None
    i = 0
    while i < len(w):
        if not grew[i]:
            i += 1
            continue
        j = i + 1
        while j < len(w) and grew[j] and w.owners[j] == w.owners[i]:
            mean = rates[i : j + 1].mean()
            if np.any(np.abs(rates[i : j + 1] - mean) > flat_margin * mean):
                break
            j += 1
        if j - i >= min_windows and (best is None or j - i >= best[1] - best[0]):
            best = (i, j)
        i = max(j, i + 1)
    if best is None:
        return None
    lo, hi = best
    seconds = float(w.lengths_s[lo:hi].sum())
    rate = float(w.consumed[lo:hi].sum()) / seconds
    owners = int(w.owners[lo])
    growth = float(w.lag_end[hi - 1] - w.lag_start[lo])
    return GroupCapacity(
        records_per_s=rate / owners,
        source="saturation",
        evidence=(
            f"{hi - lo} windows ({seconds:,.0f} s) in which the lag grew by {growth:,.0f} "
            f"records while {owners} member(s) owning partitions consumed a steady "
            f"{rate:,.1f} records/s"
        ),
        window_start_s=float(w.starts_s[lo]),
        window_end_s=float(w.starts_s[hi - 1] + w.lengths_s[hi - 1]),
    )


def poll_busy_share(poll_idle_ratio: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The share of its time a Java consumer spent outside `poll()` (processing), from
    its `poll-idle-ratio-avg`.

    Kafka's `KafkaConsumerMetrics` records, as each poll ends, the poll's time `w` over
    `w` plus the time since the previous poll *started* (`recordPollStart` keeps the
    start, not the end: the previous poll `w'` and the processing after it `p`), so for
    polls alike the metric is `r = w / (2w + p)`, 0.5 for a consumer that never
    processes (KAFKA-17503 proposed measuring from the previous poll's end; Kafka 4.4.0
    still does not). The time share spent waiting is then `w / (w + p) = r / (1 - r)`,
    and the busy share `(1 - 2r) / (1 - r)`; a ratio of 0.5 or more is no busy time.

    Example:
        >>> poll_busy_share([0.375, 0.5, 0.0]).tolist()
        [0.4, 0.0, 1.0]
    """
    r = np.asarray(poll_idle_ratio, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        share: npt.NDArray[np.float64] = np.clip((1.0 - 2.0 * r) / (1.0 - r), 0.0, 1.0)
    return share


def busy_fraction(
    rates: Sequence[float],
    idle_ratios: Sequence[float],
    *,
    times_s: Sequence[float] | None = None,
    min_busy: float = DEFAULT_MIN_BUSY,
) -> GroupCapacity | None:
    """A member's capacity from its own metrics: records/s over its busy share.

    Args:
        rates: Each member's `records-consumed-rate` (records/s), one entry per member
            and time read.
        idle_ratios: The same members' `poll-idle-ratio-avg` (0..1), as Kafka's Java
            consumer computes it (`poll_busy_share` turns it into a busy share).
        times_s: When each entry was read, seconds since the epoch: the window of the
            entries used becomes the capacity's window. None: no window.
        min_busy: Entries busier than this only are used.

    Returns:
        The median of `rate / busy share` over the entries used (finite, a rate above
        0, busy at least `min_busy`); None when none is.

    Example:
        >>> busy_fraction([200.0, 200.0, 5.0], [0.375, 0.375, 0.49]).records_per_s
        500.0
    """
    r = np.asarray(rates, dtype=np.float64)
    busy = poll_busy_share(idle_ratios)
    use = np.isfinite(r) & np.isfinite(busy) & (busy >= min_busy) & (r > 0)
    if not use.any():
        return None
    each = r[use] / busy[use]
    capacity = float(np.median(each))
    start_s = end_s = None
    if times_s is not None:
        used = np.asarray(times_s, dtype=np.float64)[use]
        start_s, end_s = float(used.min()), float(used.max())
    return GroupCapacity(
        records_per_s=capacity,
        source="busy-fraction",
        evidence=(
            f"{int(use.sum())} member reading(s) at a median {np.median(r[use]):,.1f} "
            f"records/s while busy {np.median(busy[use]):.0%} of the time "
            f"(from poll-idle-ratio-avg, which reads busier than a lightly loaded member "
            f"is), so its capacity is at least that"
        ),
        at_least=True,
        window_start_s=start_s,
        window_end_s=end_s,
    )


def lower_bound(
    w: GroupWindows, *, commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S
) -> GroupCapacity | None:
    """At least the highest per-member rate of a window in which the group kept up.

    Example:
        >>> w = GroupWindows.of([0, 60], [60, 60], [6_000, 12_000], [50, 40], [40, 60], [2, 2])
        >>> lower_bound(w).records_per_s, lower_bound(w).at_least
        (100.0, True)
    """
    # A lag that grew over the whole interval says the group did not keep up, though no
    # single window's growth stood above its noise: no window of it is evidence of
    # keeping up (seen live with 5 s commits and 10 s windows: "at least 502" for
    # members doing 490).
    if lag_trend(w, commit_interval_s=commit_interval_s)[0] == "growing":
        return None
    kept_up = ~_growing(w, commit_interval_s) & (w.owners > 0)
    if not kept_up.any():
        return None
    per_member = np.where(kept_up, w.rates / np.maximum(w.owners, 1), -1.0)
    best = int(np.argmax(per_member))
    return GroupCapacity(
        records_per_s=float(per_member[best]),
        source="lower-bound",
        evidence=(
            f"kept up in {int(kept_up.sum())} window(s); at most {per_member[best]:,.1f} "
            f"records/s per member ({w.rates[best]:,.1f} with {int(w.owners[best])} "
            f"member(s)), so its capacity is at least that"
        ),
        at_least=True,
        window_start_s=float(w.starts_s[best]),
        window_end_s=float(w.starts_s[best] + w.lengths_s[best]),
    )


def learn(
    w: GroupWindows | None,
    *,
    given: float | None = None,
    busy: GroupCapacity | None = None,
    topic_default: float | None = None,
    flat_margin: float = DEFAULT_FLAT_MARGIN,
    commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S,
) -> GroupCapacity | None:
    """A group's capacity by the first source that says something: given, saturation,
    the larger of the busy fraction and the lower bound (both "at least"), the topic's
    Tc; None when none does."""
    if given is not None:
        return GroupCapacity(given, "given", "given for this group in the capacity table")
    if w is not None and len(w):
        found = saturation(w, flat_margin=flat_margin, commit_interval_s=commit_interval_s)
        if found is not None:
            return found
    bounds = [busy] if busy is not None else []
    if w is not None and len(w):
        bound = lower_bound(w, commit_interval_s=commit_interval_s)
        if bound is not None:
            bounds.append(bound)
    if bounds:
        # Two bounds from below: the larger is the tighter (the busy fraction first on
        # a tie, its evidence saying more).
        return max(bounds, key=lambda b: b.records_per_s)
    if topic_default is not None:
        return GroupCapacity(topic_default, "topic-default", "the topic's Tc (perf test or given)")
    return None


def lag_trend(
    w: GroupWindows, *, commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S
) -> tuple[LagTrend, float]:
    """Whether the lag grew, held or shrank over all the windows, and by how much per
    second (records/s): beyond the noise of the last window's consumption only.

    Example:
        >>> w = GroupWindows.of([0, 60], [60, 60], [600, 600], [10, 5_000], [5_000, 9_000], [1, 1])
        >>> lag_trend(w)
        ('growing', 74.91666666666667)
    """
    if not len(w):
        return "steady", 0.0
    change = float(w.lag_end[-1] - w.lag_start[0])
    seconds = float(w.lengths_s.sum())
    noise = float(lag_noise(w.rates[-1:], commit_interval_s=commit_interval_s)[0])
    if change > noise:
        return "growing", change / seconds
    if change < -noise:
        return "shrinking", change / seconds
    return "steady", change / seconds


def time_lag(
    committed: float, end_times_s: npt.ArrayLike, end_offsets: npt.ArrayLike, now_s: float
) -> float | None:
    """Seconds since the end offset was at `committed`: the age of the oldest record
    not yet consumed (0 when nothing is behind); None when the history does not reach
    back that far.

    Example:
        >>> time_lag(1_000, [0, 10, 20], [0, 1_000, 2_000], now_s=20)
        10.0
    """
    t = np.asarray(end_times_s, dtype=np.float64)
    ends = np.asarray(end_offsets, dtype=np.float64)
    if t.size == 0:
        return None
    if committed >= ends[-1]:
        return 0.0
    if committed < ends[0]:
        return None
    at = float(np.interp(committed, ends, t))
    return max(0.0, now_s - at)
