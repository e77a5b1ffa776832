"""Closed forms for groups whose members all subscribe to the same topics.

Every function here is vectorised over an array of group sizes (`members`, one entry
per candidate group size) for one partition count: NumPy does the per-partition work,
Python never loops over partitions. Which member owns a partition depends only on the
member's position in the group sorted by member id (Java string order), so positions
`0 .. C-1` stand for members here.

Fresh assignments (no previous owner):

- `range`: member `i` owns the contiguous block `[b_i, b_{i+1})` with
  `b_i = i * (P div C) + min(i, P mod C)`; its load is `cumsum[b_{i+1}] - cumsum[b_i]`.
- `roundrobin`: member `i` owns partitions `i, i + C, i + 2C, ...`.
- `sticky` and `cooperative-sticky`: a fresh balanced assignment deals the sorted
  partitions to the sorted members in turn, i.e. it equals `roundrobin` (checked
  against `planner.assignors.assign` on random cases in the tests).

Churn when one member joins (`C -> C + 1`) or leaves (`C -> C - 1`), starting from the
fresh assignment; `moved` counts partitions whose owner changes (a departed owner
counts as a change). The joiner or leaver sorts last (`"last"`) or first (`"first"`):

- `range`: `P - sum_i overlap(old block of member i, new block of member i)`.
- `roundrobin`, joiner last: `p mod C == p mod (C + 1)` exactly for `p mod C(C+1) < C`,
  so `stay = (P div L) * C + min(P mod L, C)` with `L = C(C + 1)`. Joiner first (every
  old member moves one position up): `p mod C + 1 == p mod (C + 1)` exactly when
  `p mod L >= C^2`, so `stay = (P div L) * C + max(0, P mod L - C^2)`.
- `sticky`: every member keeps what it owned up to its new quota, so the only partitions
  that move are the joiner's share, `P div (C + 1)`, or the leaver's, which is
  `P div C` for the last member of a fresh assignment and `ceil(P / C)` for the first.

A leave `C -> C - 1` is the join `C - 1 -> C` read backwards for `range` and
`roundrobin` (both are functions of the positions only), so `shrink[C] = grow[C - 1]`.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
MemberChange = Literal["last", "first"]

__all__ = [
    "MemberChange",
    "block_starts",
    "positions",
    "range_moved_on_grow",
    "range_owners",
    "roundrobin_moved_on_grow",
    "roundrobin_owners",
    "segment_max_min",
    "sticky_moved_on_grow",
    "sticky_moved_on_shrink",
]


def positions(runs: IntArray) -> IntArray:
    """`0 .. n-1` for every run length `n` in `runs`, concatenated (no Python loop)."""
    starts = np.cumsum(runs) - runs
    return np.arange(int(runs.sum()), dtype=np.int64) - np.repeat(starts, runs)


def block_starts(num_partitions: int, members: IntArray) -> IntArray:
    """Range's block boundaries `b_i = i * (P div C) + min(i, P mod C)`, `i = 0 .. C`.

    Args:
        num_partitions: Partition count `P`.
        members: Group sizes `C` (each >= 1).

    Returns:
        The boundaries of every group size, concatenated: `C + 1` entries per size.
    """
    sizes = members + 1
    i = positions(sizes)
    # P div C and P mod C once per size, then repeated over its C + 1 boundaries: two
    # divisions of one entry per size instead of one per boundary (integers, so the
    # same values; a grid of 1,000 partitions has ~10^6 boundaries).
    quota = np.repeat(num_partitions // members, sizes)
    extra = np.repeat(num_partitions % members, sizes)
    return i * quota + np.minimum(i, extra)


def roundrobin_owners(num_partitions: int, members: IntArray) -> IntArray:
    """Owner position of every partition (`p mod C`), one row per group size."""
    return np.arange(num_partitions, dtype=np.int64)[None, :] % members[:, None]


def range_owners(num_partitions: int, members: IntArray) -> IntArray:
    """Owner position of every partition under `range`, one row per group size."""
    p = np.arange(num_partitions, dtype=np.int64)[None, :]
    c = members[:, None]
    q = num_partitions // c
    r = num_partitions % c
    big = r * (q + 1)  # the first r members own q + 1 partitions each
    return np.where(p < big, p // (q + 1), r + (p - big) // np.maximum(q, 1))


def segment_max_min(values: FloatArray, starts: IntArray) -> tuple[FloatArray, FloatArray]:
    """Maximum and minimum of each run of `values` starting at `starts` (runs non-empty)."""
    top: FloatArray = np.maximum.reduceat(values, starts)
    bottom: FloatArray = np.minimum.reduceat(values, starts)
    return top, bottom


def range_moved_on_grow(
    num_partitions: int, members: IntArray, change: MemberChange = "last"
) -> IntArray:
    """Partitions whose owner changes when a member joins a fresh `range` group of C.

    Member `i` keeps the overlap of its old block and its new block; when the joiner
    sorts first, every old member's position goes up by one.
    """
    shift = 1 if change == "first" else 0
    split = int((members + 1).sum())
    if members.size > 1 and bool(np.all(np.diff(members) == 1)):
        # Consecutive sizes (a grid's 1 .. P + extra): the sizes after the join are the
        # same sizes shifted by one, so one call for C_0 .. C_n + 1 holds both runs,
        # the "after" ones starting at the second size's boundaries.
        every = block_starts(num_partitions, np.append(members, members[-1] + 1))
        old, new = every[:split], every[int(members[0]) + 1 :]
    else:
        # One call for both runs: C + 1 boundaries before, C + 2 after, per group size.
        both = block_starts(num_partitions, np.concatenate((members, members + 1)))
        old, new = both[:split], both[split:]
    old_run = np.repeat(np.cumsum(members + 1) - (members + 1), members)
    new_run = np.repeat(np.cumsum(members + 2) - (members + 2), members)
    i = positions(members)
    o_lo, o_hi = old[old_run + i], old[old_run + i + 1]
    n_lo, n_hi = new[new_run + i + shift], new[new_run + i + shift + 1]
    overlap = np.maximum(0, np.minimum(o_hi, n_hi) - np.maximum(o_lo, n_lo))
    kept: IntArray = np.add.reduceat(overlap, np.cumsum(members) - members)
    return num_partitions - kept


def roundrobin_moved_on_grow(
    num_partitions: int, members: IntArray, change: MemberChange = "last"
) -> IntArray:
    """Partitions whose owner changes when a member joins a `roundrobin` group of C."""
    period = members * (members + 1)
    full = (num_partitions // period) * members
    rest = num_partitions % period
    stay: IntArray
    if change == "last":
        stay = full + np.minimum(rest, members)
    else:
        stay = full + np.maximum(0, rest - members * members)
    return num_partitions - stay


def sticky_moved_on_grow(num_partitions: int, members: IntArray) -> IntArray:
    """Partitions a joiner takes from a balanced sticky group of C: `P div (C + 1)`.

    Wherever the joiner sorts, the old members keep their partitions up to the new quota;
    the joiner's quota is all that moves.
    """
    return num_partitions // (members + 1)


def sticky_moved_on_shrink(
    num_partitions: int, members: IntArray, change: MemberChange = "last"
) -> IntArray:
    """Partitions that move when a member leaves a fresh balanced sticky group of C.

    Only the leaver's partitions move: the last member of a fresh (round-robin shaped)
    assignment owns `P div C`, the first `ceil(P / C)`. When the last member leaves,
    nothing else needs to move: the survivors' counts already fit the new quotas.
    """
    if change == "last":
        return num_partitions // members
    return -(-num_partitions // members)
