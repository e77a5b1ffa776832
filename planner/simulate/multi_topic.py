"""The multi-topic grid: a group reading several topics, every size at once.

A group subscribed to several topics shares its members between them: with `range`
each topic is cut separately (the first members get the extra partition of every
topic), with `roundrobin` and a fresh `sticky` assignment all partitions are dealt
together. Every member is assumed to subscribe to every topic of the group (the
`groups` table records subscriptions per group, not per member). With identical
subscriptions and no previous owner, `planner.simulate.simulate_group` computes a fresh
assignment from the closed forms: `range` cuts each topic on its own, the others deal
all partitions (topics in Java order, then partitions) to the members in turn.

`search_sizes` uses the same closed forms (`planner.simulate.closed_forms`), vectorised
over every size at once, so a group of thousands of partitions costs milliseconds, not
one `simulate_group` call per size; a test checks every row against `simulate_group`.
It evaluates sizes from 1 until the busiest member fits both today and at the end of
the horizon (and at least the size asked for), and `multi_topic_table` turns that into
the table of candidate sizes `planner.recommend.group.size_group` decides on, as the
one-topic grid does for a group reading one topic.

The churn at a size (a member joining, the last one leaving) comes from the same closed
forms as the one-topic grid's (`group_churn`): `range` moves what each topic's own cut
moves, the others move what one topic of all the group's partitions would; a test checks
them against `simulate_group` run with the previous assignment, through the real
assignors. Pure: NumPy and `planner.simulate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.simulate import closed_forms as cf
from planner.simulate.grid import EAGER_STRATEGIES

__all__ = ["SizeSearch", "group_churn", "member_loads", "search_sizes", "size_rows"]

# Group sizes evaluated per step of the search (a sizes x partitions matrix each).
_CHUNK = 256

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class _Cuts:
    """Which member of each group size owns each partition, worked out once.

    A search step asks for the members' loads at the horizon and today on the same
    partitions and sizes: only the loads differ, so the cut is computed once for both.

    Attributes:
        range_cuts: Per partition count (range, each topic cut on its own): range's
            block boundaries for every size (`cf.block_starts`), which differences of
            them are member blocks, and which of those blocks are empty.
        dealt_bins: The others (all partitions dealt together): every (size, partition)
            cell's member bin, flattened, as `cf.roundrobin_member_loads` makes them.
        members: Members of all sizes together.
    """

    range_cuts: dict[int, tuple[IntArray, npt.NDArray[np.bool_], npt.NDArray[np.bool_]]]
    dealt_bins: IntArray | None
    members: int


def _cuts(partitions: Sequence[int], sizes: IntArray, strategy: str) -> _Cuts:
    # The index work of `cf.range_member_loads` / `cf.roundrobin_member_loads`, as they
    # do it, for loads of these partition counts.
    members = int(sizes.sum())
    if strategy != "range":
        starts = np.cumsum(sizes) - sizes
        bins = (cf.roundrobin_owners(int(sum(partitions)), sizes) + starts[:, None]).ravel()
        return _Cuts({}, bins, members)
    run_ends = np.cumsum(sizes + 1) - 1
    cuts = {}
    for p in dict.fromkeys(partitions):
        bounds = cf.block_starts(p, sizes)
        keep = np.ones(bounds.size - 1, dtype=bool)
        keep[run_ends[:-1]] = False
        cuts[p] = (bounds, keep, np.diff(bounds)[keep] == 0)
    return _Cuts(cuts, None, members)


def member_loads(
    weights: Sequence[FloatArray], sizes: IntArray, strategy: str, cuts: _Cuts | None = None
) -> FloatArray:
    # Every member's load under a fresh assignment, all sizes concatenated (`C` per size).
    # `cuts` (from `_cuts` for these weights' sizes) saves the index work; the arithmetic
    # is `cf.range_member_loads` / `cf.roundrobin_member_loads`'s, in the same order.
    if cuts is None:
        cuts = _cuts([w.size for w in weights], sizes, strategy)
    if strategy == "range":
        # Each topic cut on its own; the members' runs line up across topics.
        loads: FloatArray = np.zeros(cuts.members)
        for w in weights:
            bounds, keep, empty = cuts.range_cuts[w.size]
            cumulative = np.concatenate(([0.0], np.cumsum(w, dtype=np.float64)))
            member = np.diff(cumulative[bounds])[keep]
            # Exact zero for empty blocks (idle members), not a rounding residue.
            member[empty] = 0.0
            loads = loads + member
        return loads
    assert cuts.dealt_bins is not None
    dealt = np.concatenate(weights)
    weights_by_cell = np.broadcast_to(dealt, (sizes.size, dealt.size)).ravel()
    dealt_loads = np.bincount(cuts.dealt_bins, weights=weights_by_cell, minlength=cuts.members)
    return dealt_loads.astype(np.float64, copy=False)


def _member_partitions(partitions: Sequence[int], sizes: IntArray, strategy: str) -> IntArray:
    # Every member's partition count, as `_member_loads` lays them out: member i of C
    # gets P // C partitions of P, and one more when i < P mod C (range per topic, the
    # others once for all the partitions dealt together).
    each = np.repeat(sizes, sizes)
    member = cf.positions(sizes)
    cuts = partitions if strategy == "range" else [int(sum(partitions))]
    counts = np.zeros(member.size, dtype=np.int64)
    for p in cuts:
        counts += p // each + (member < p % each)
    return counts


def size_rows(
    weights: Sequence[FloatArray], sizes: IntArray, strategy: str, cuts: _Cuts | None = None
) -> dict[str, npt.NDArray[Any]]:
    """Member statistics of fresh assignments of one group, for every group size.

    Args:
        weights: Partition loads of each topic, topics in Java string order.
        sizes: Group sizes (each >= 1).
        strategy: One of `STRATEGIES`.
        cuts: The partitions' cut for these sizes, when the caller has it (`_cuts`).

    Returns:
        Per size: `max_load`, `min_load`, `max_member_partitions`,
        `min_member_partitions`, `idle_members`.
    """
    loads = member_loads(weights, sizes, strategy, cuts)
    counts = _member_partitions([w.size for w in weights], sizes, strategy)
    starts = np.cumsum(sizes) - sizes
    top, bottom = cf.segment_max_min(loads, starts)
    most = np.maximum.reduceat(counts, starts)
    fewest = np.minimum.reduceat(counts, starts)
    idle = np.add.reduceat((counts == 0).astype(np.int64), starts)
    return {
        "max_load": top,
        "min_load": bottom,
        "max_member_partitions": most,
        "min_member_partitions": fewest,
        "idle_members": idle,
    }


def group_churn(partitions: Sequence[int], members: int, strategy: str) -> dict[str, int]:
    """Partitions moved and revoked when a member joins or the last one leaves.

    The group is fresh (as `size_rows` assigns it) with `members` members, every one
    subscribed to every topic; the joiner's id sorts after the others'. `range` cuts
    each topic on its own, so its moves are the sum of each topic's; the other
    strategies deal (or balance) all partitions together, so theirs are those of one
    topic of all the group's partitions. A leave from C members is a join from C - 1
    run backwards, except that the only member leaving moves everything. The eager
    strategies revoke every partition on either change; `cooperative-sticky` revokes
    only what moves.

    Args:
        partitions: Each topic's partition count.
        members: The group's size (>= 1).
        strategy: One of `STRATEGIES`.

    Returns:
        `grow_moved`, `grow_revoked`, `shrink_moved`, `shrink_revoked`.
    """
    if members < 1:
        raise ValueError(f"a group has at least one member, got {members}")
    total = int(sum(partitions))
    now = np.array([members], dtype=np.int64)
    shrink = total  # the only member leaving: every partition loses its consumer
    if strategy == "range":
        grow = sum(int(cf.range_moved_on_grow(p, now)[0]) for p in partitions)
        if members > 1:
            shrink = sum(int(cf.range_moved_on_grow(p, now - 1)[0]) for p in partitions)
    elif strategy == "roundrobin":
        grow = int(cf.roundrobin_moved_on_grow(total, now)[0])
        if members > 1:
            shrink = int(cf.roundrobin_moved_on_grow(total, now - 1)[0])
    else:
        grow = int(cf.sticky_moved_on_grow(total, now)[0])
        if members > 1:
            shrink = int(cf.sticky_moved_on_shrink(total, now)[0])
    eager = strategy in EAGER_STRATEGIES
    return {
        "grow_moved": grow,
        "grow_revoked": total if eager else grow,
        "shrink_moved": shrink,
        "shrink_revoked": total if eager else shrink,
    }


@dataclass
class SizeSearch:
    """One strategy's sizes 1..n: busiest member today and at the horizon, and stats.

    Attributes:
        strategy: The strategy (Kafka's name).
        stats: `size_rows` for sizes 1..n (loads at the end of the horizon).
        busiest_now: The busiest member's load today, sizes 1..n.
        now_fit: The smallest size of at least the floor that fits today (None: none).
        horizon_fit: The same at the end of the horizon.
    """

    strategy: str
    stats: dict[str, npt.NDArray[Any]]
    busiest_now: FloatArray
    now_fit: int | None
    horizon_fit: int | None


def search_sizes(
    horizon: Sequence[FloatArray],
    now: Sequence[FloatArray],
    strategy: str,
    limit: float,
    wanted: int,
    floor: int,
    now_scale: float | None = None,
) -> SizeSearch:
    """Member statistics of one strategy for the sizes from 1 that a decision needs.

    Sizes in chunks from 1 until both today and the horizon fit with at least `floor`
    members and the current size (`wanted`) is covered.

    Args:
        horizon: Partition loads of each topic at the end of the horizon, topics in
            Java string order, in consumers.
        now: The same today.
        strategy: One of `STRATEGIES`.
        limit: The busiest member's load that fits (tolerance included), in consumers.
        wanted: The size to cover at least (the group's current size, or the floor).
        floor: The minimum group size.
        now_scale: When every topic grows alike (one topic), today's loads over the
            horizon's: today's busiest member is then the horizon's scaled, as the
            one-topic grid scales it (`now` is not read).
    """
    # No group of more members than partitions needs simulating,
    # unless the minimum group size asks for more (standbys, owning nothing). Range cuts
    # each topic on its own: past the largest topic's partition count member i owns
    # partition i of every topic that has one, whatever the size, so only the idle count
    # changes and the search stops there (or at the floor).
    owners = max(w.size for w in horizon) if strategy == "range" else sum(w.size for w in horizon)
    most = max(owners, floor)
    chunks: list[dict[str, npt.NDArray[Any]]] = []
    busiest: list[FloatArray] = []
    now_fit = horizon_fit = None
    first = 1
    while first <= most:
        sizes = np.arange(first, min(most, first + _CHUNK - 1) + 1, dtype=np.int64)
        # Today's loads are on the same partitions as the horizon's: one cut for both.
        cuts = _cuts([w.size for w in horizon], sizes, strategy)
        stats = size_rows(horizon, sizes, strategy, cuts)
        today = (
            stats["max_load"] * now_scale
            if now_scale is not None
            else np.maximum.reduceat(
                member_loads(now, sizes, strategy, cuts), np.cumsum(sizes) - sizes
            )
        )
        chunks.append(stats)
        busiest.append(today)
        # A size below the floor is not a candidate: the first fit at or above it.
        if now_fit is None and (fits := np.flatnonzero((today <= limit) & (sizes >= floor))).size:
            now_fit = int(sizes[fits[0]])
        at_horizon = (stats["max_load"] <= limit) & (sizes >= floor)
        if horizon_fit is None and (fits := np.flatnonzero(at_horizon)).size:
            horizon_fit = int(sizes[fits[0]])
        last = int(sizes[-1])
        if now_fit is not None and horizon_fit is not None and last >= wanted:
            stop = max(now_fit, horizon_fit, wanted)
            break
        first = last + 1
    else:
        stop = most
    merged = {k: np.concatenate([c[k] for c in chunks])[:stop] for k in chunks[0]}
    return SizeSearch(strategy, merged, np.concatenate(busiest)[:stop], now_fit, horizon_fit)
