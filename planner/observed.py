"""What a series of observations of a live cluster says: rules on plain arrays.

`partition-planner observe` records cumulative counters (end offsets, committed offsets)
at sample times; collection (`planner.collect.observations`) asks these functions what
they mean for the windows it writes. Each rule is decided here, once:

- **A counter at a moment** (`at_moments`): linear interpolation between the two samples
  around the moment, known only when they are at most `max_gap_s` apart (or one of them
  is at the moment). Offsets are cumulative, so the records produced in a window are
  exact up to that interpolation at its two ends, however many samples fell inside it:
  an observer that was down mid-window loses time resolution, never records.
- **What a group read** (`group_read`): the advance of its committed offsets in the
  window, at most what was produced in it. A group that catches up after a restart or
  a rebalance reads faster than production: that is backlog, not demand, and planning
  it would size the topic for a burst that drains once. (A group falling behind reads
  less than production; its demand is still the production, which the topic's
  `records_in` carries.)
- **Keyed or not** (`keyed_evidence`): a topic one of whose records read carried a key is
  keyed; one whose records read carried none is not; a topic of which nothing was read
  is unknown, whatever its lulls: no records is no evidence either way.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["at_moments", "group_read", "keyed_evidence"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def at_moments(
    times_s: npt.ArrayLike,
    values: npt.ArrayLike,
    moments_s: npt.ArrayLike,
    *,
    max_gap_s: float,
) -> tuple[FloatArray, BoolArray]:
    """A counter's value at `moments_s`, interpolated from samples.

    Args:
        times_s: Sample times, seconds, ascending.
        values: The counter at each sample.
        moments_s: The moments wanted, seconds.
        max_gap_s: The widest gap between two samples to interpolate across.

    Returns:
        The values at the moments (NaN where unknown), and which are known.

    Example:
        >>> v, known = at_moments([0, 60, 120], [0, 600, 1200], [30, 90, 150], max_gap_s=90)
        >>> v.tolist(), known.tolist()
        ([300.0, 900.0, nan], [True, True, False])
    """
    t = np.asarray(times_s, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    m = np.asarray(moments_s, dtype=np.float64)
    out = np.full(m.shape, np.nan)
    if t.size == 0:
        return out, np.zeros(m.shape, dtype=bool)
    right = np.searchsorted(t, m, side="left")  # first sample at or after the moment
    exact = (right < t.size) & (t[np.minimum(right, t.size - 1)] == m)
    inside = (right > 0) & (right < t.size) & ~exact
    left = np.maximum(right - 1, 0)
    r = np.minimum(right, t.size - 1)
    gap = t[r] - t[left]
    known = exact | (inside & (gap <= max_gap_s))
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(gap > 0, (m - t[left]) / gap, 0.0)
    interpolated = y[left] + (y[r] - y[left]) * share
    out[known] = np.where(exact, y[r], interpolated)[known]
    return out, known


def group_read(consumed: npt.ArrayLike, produced: npt.ArrayLike) -> FloatArray:
    """What a consumer group read in each window, for planning: its committed offsets'
    advance, never below zero (an offset reset is not reading) and never above what was
    produced in the window (a catch-up is backlog, not demand).

    Args:
        consumed: The advance of the group's committed offsets per window (offsets).
        produced: The advance of the end offsets per window (offsets).

    Example:
        >>> group_read([100, 250, -40], [120, 120, 120]).tolist()
        [100.0, 120.0, 0.0]
    """
    c = np.asarray(consumed, dtype=np.float64)
    p = np.asarray(produced, dtype=np.float64)
    return np.minimum(np.maximum(c, 0.0), np.maximum(p, 0.0))


def keyed_evidence(records_read: int, keyed_read: int) -> bool | None:
    """Whether a topic is keyed, from the records read of it: None when none was read.

    Example:
        >>> keyed_evidence(500, 3), keyed_evidence(500, 0), keyed_evidence(0, 0)
        (True, False, None)
    """
    if keyed_read > 0:
        return True
    if records_read > 0:
        return False
    return None
