"""Every member's load under a fresh assignment, for many group sizes at once: one way.

The one-topic grid, the multi-topic grid and the closed forms' `*_member_loads` all ask
the same question (each member's load, every size of a range of sizes, members by
position) and answer it here, in two steps:

1. `cut(partitions, sizes, key)`: the index work, which depends on the partition counts,
   the sizes and the strategy's shape only (`planner.simulate.strategies.shape_of`), so a
   caller asking for several loads on the same partitions (today and at the horizon; a
   fleet's many topics of 12 partitions) computes it once;
2. `member_loads(weights, cut)`: each member's load for one set of partition loads, all
   sizes concatenated (`C` entries per size, in the order of `cut.starts`).

The shapes (partitions in each topic's order; topics in Java string order):

- `blocks`: member `i` of `C` owns `[b_i, b_{i+1})` of *each* topic, `b_i = i (P div C) +
  min(i, P mod C)`: loads are differences of the cumulative load at the `b_i`.
- `dealt`: all partitions, topic after topic, go to the members in turn: one `bincount`.
- `slices`: `uniform`'s fresh assignment. All partitions, topics in the order of the
  broker's `HashSet` of topic ids (ids sharing a bucket in the order of the members'
  `HashSet` of topic names), cut into consecutive slices, member `i` (hash order)
  starting at `q i + max(0, i - (C - T mod C))`: the last `T mod C` members one more.
- `shared`: `simple`'s fresh assignment (share groups). With `s = ceil(C / T)` members a
  partition, Kafka walks the partitions in its `HashMap` order and hands each of its `s`
  slots to the members in turn, a member leaving the cycle at its desired count. A
  partition's load is **split evenly between the members holding it** (the share-group
  model of docs/model.md section 8: members pull records of equal cost, so each of a
  partition's `k` holders takes `1 / k` of it).

Topic ids: the broker's assignors order topics and partitions by topic-id hashes. The
simulation uses the stand-in id `planner.assignors` derives from the topic's name when
the real id is not given (`topic_ids`), as `assign` does; a keyless topic's loads do not
depend on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from planner.assignors import _fresh
from planner.assignors._java_hashing import JavaHashTable, capacity_for_copy
from planner.assignors._server_group import subscribed_order
from planner.assignors._topic_ids import TopicIds, resolve_topic_ids
from planner.simulate import closed_forms as cf
from planner.simulate.strategies import Shape, shape_of

__all__ = [
    "Cut",
    "busiest",
    "cut",
    "member_loads",
    "member_partitions",
    "partition_extremes",
    "topic_order",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: The one-topic grid's topic name: the stand-in topic id of the broker's assignors.
GRID_TOPIC = "topic"


@dataclass(frozen=True)
class Cut:
    """Which member of each group size holds each partition, worked out once.

    Attributes:
        shape: The strategy's shape.
        sizes: The group sizes.
        starts: Where each size's run of members starts in the concatenated loads.
        members: Members of all sizes together.
        counts: The partition count of each topic, topics in Java string order.
        blocks: `blocks`: per partition count, the block boundaries of every size
            (`cf.block_starts`), which differences are member blocks, and which are
            empty. `slices`: the same under key -1 for all partitions flattened.
        order: `slices` and `shared`: the flattened partitions (topics in Java order,
            then partition) in the order the assignor walks them.
        bins: `dealt` and `shared`: the member bin of every cell, flattened.
        cells: `shared`: the walked partition of every cell.
        share: `shared`: every cell's part of its partition's load.
    """

    shape: Shape
    sizes: IntArray
    starts: IntArray
    members: int
    counts: tuple[int, ...]
    blocks: Mapping[int, tuple[IntArray, BoolArray, BoolArray]]
    order: IntArray | None = None
    bins: IntArray | None = None
    cells: IntArray | None = None
    share: FloatArray | None = None


def _block_cut(p: int, sizes: IntArray, bounds: IntArray) -> tuple[IntArray, BoolArray, BoolArray]:
    keep = np.ones(bounds.size - 1, dtype=bool)
    keep[(np.cumsum(sizes + 1) - 1)[:-1]] = False
    return bounds, keep, np.diff(bounds)[keep] == 0


def slice_starts(total: int, sizes: IntArray) -> IntArray:
    """`uniform`'s slice boundaries `q i + max(0, i - (C - T mod C))`, `i = 0 .. C`, every
    size concatenated (`C + 1` entries per size), for `T` partitions in all."""
    runs = sizes + 1
    i = cf.positions(runs)
    quota = np.repeat(total // sizes, runs)
    plain = np.repeat(sizes - total % sizes, runs)
    return i * quota + np.maximum(0, i - plain)


def _listed(topics: Sequence[str]) -> list[int]:
    """Positions of `topics` in the order the broker's assignors receive them: the members'
    `HashSet` of topic names (`planner.assignors._server_group.subscribed_order`)."""
    if len(topics) < 2:
        return list(range(len(topics)))
    position = {t: i for i, t in enumerate(topics)}
    return [position[t] for t in subscribed_order(frozenset(topics))]


def topic_order(topics: Sequence[str], topic_ids: TopicIds | None = None) -> list[int]:
    """Positions of `topics` (Java string order) in the order of the broker's
    `HashSet<Uuid>` of their ids, which `uniform` walks (a copy of a set of that size,
    filled in the order of the names' set: it orders ids sharing a bucket)."""
    if len(topics) < 2:
        return list(range(len(topics)))
    ids = resolve_topic_ids(topics, topic_ids)
    table: JavaHashTable[int] = JavaHashTable(
        lambda i: ids[topics[i]].java_hash(), initial_capacity=capacity_for_copy(len(topics))
    )
    for i in _listed(topics):
        table.add(i)
    return list(table.order())


def _walk(topics: Sequence[str], counts: Sequence[int], topic_ids: TopicIds | None) -> IntArray:
    # `simple`'s walk over the flattened partitions (Kafka's partition HashMap order). Kafka
    # links the partitions into that map topic by topic in the names' set order, which
    # orders partitions sharing a bucket: walk them so, then map back to the flat indices.
    ids = resolve_topic_ids(topics, topic_ids)
    listed = _listed(topics)
    key = tuple((ids[topics[j]].java_hash(), int(counts[j])) for j in listed)
    offsets = np.cumsum([0, *counts])
    flat = np.concatenate(
        [np.arange(offsets[j], offsets[j + 1]) for j in listed] or [np.zeros(0, dtype=np.int64)]
    ).astype(np.int64)
    return flat[np.asarray(_fresh._walk_order(key), dtype=np.int64)]


def _flat_order(
    topics: Sequence[str], counts: Sequence[int], topic_ids: TopicIds | None
) -> IntArray:
    # `uniform`'s flattened partitions: topics in id-hash order, partitions in order.
    offsets = np.cumsum([0, *counts])
    return np.concatenate(
        [np.arange(offsets[j], offsets[j + 1]) for j in topic_order(topics, topic_ids)]
        or [np.zeros(0, dtype=np.int64)]
    ).astype(np.int64)


def _shared_cells(
    total: int, sizes: IntArray, walk: IntArray, *, kafka_pass: BoolArray | None = None
) -> tuple[IntArray, IntArray]:
    """`simple`'s fresh assignment for every size: (member bin, walked partition) per cell.

    With `s = ceil(C / T)` slots a partition, slot `k` belongs to the walk's partition
    `k div s`; the first `lo C` slots go to the members in turn and the rest to the
    members desiring `lo + 1`, in index order (one NumPy pass over every size). Only
    where the slots of one partition straddle those two parts can they name a member
    twice; Kafka then gives it the partition once and the sequence shifts: those sizes
    (rare, only with partitions shared: none for `T < 40`, `C < 400`) take the
    assignor's own fresh pass (`planner.assignors._fresh`), as do the sizes
    `kafka_pass` marks (for the tests).
    """
    starts = np.cumsum(sizes) - sizes
    sharing = -(-sizes // total)
    slots = sharing * total
    i = cf.positions(sizes)
    # Kafka's double arithmetic for the desired counts, per member position.
    x = np.repeat(sharing * total / sizes, sizes)
    desired = (np.ceil(x * (i + 1)) - np.ceil(x * i)).astype(np.int64)
    lo = np.minimum.reduceat(desired, starts)
    boundary = lo * sizes
    extra = desired > np.repeat(lo, sizes)
    # The members desiring lo + 1, in index order per size, and where each size's run
    # of them starts.
    extra_positions = i[extra]
    extra_counts = np.add.reduceat(extra.astype(np.int64), starts)
    extra_offsets = np.cumsum(extra_counts) - extra_counts
    shifted = np.zeros(sizes.size, dtype=bool) if kafka_pass is None else kafka_pass.copy()
    for j in np.flatnonzero((boundary % sharing != 0) & (boundary < slots)).tolist():
        count, share, cut_at = int(sizes[j]), int(sharing[j]), int(boundary[j])
        first = cut_at - cut_at % share
        window = [m % count for m in range(first, cut_at)]
        taken = min(first + share, int(slots[j])) - cut_at
        window += extra_positions[extra_offsets[j] : extra_offsets[j] + taken].tolist()
        shifted[j] = len(set(window)) != len(window)
    ok = ~shifted
    runs = slots[ok]
    k = cf.positions(runs)
    cut_rep = np.repeat(boundary[ok], runs)
    late = k >= cut_rep
    member = k % np.repeat(sizes[ok], runs)
    member[late] = extra_positions[(np.repeat(extra_offsets[ok], runs) + k - cut_rep)[late]]
    bins = [member + np.repeat(starts[ok], runs)]
    cells = [walk[k // np.repeat(sharing[ok], runs)]]
    order = tuple(walk.tolist())
    for j in np.flatnonzero(shifted).tolist():
        held = _fresh._slots_simulated(
            order,
            int(sharing[j]),
            desired[int(starts[j]) : int(starts[j]) + int(sizes[j])].tolist(),
        )
        for m, parts in enumerate(held):
            bins.append(np.full(len(parts), int(starts[j]) + m, dtype=np.int64))
            cells.append(np.asarray(parts, dtype=np.int64))
    return np.concatenate(bins), np.concatenate(cells)


def cut(
    counts: Sequence[int],
    sizes: IntArray,
    key: str,
    *,
    topics: Sequence[str] | None = None,
    topic_ids: TopicIds | None = None,
) -> Cut:
    """The index work of `member_loads` for these partition counts, sizes and strategy.

    Args:
        counts: Each topic's partition count (each >= 1), topics in Java string order.
        sizes: Group sizes (each >= 1).
        key: A strategy key (`planner.simulate.strategies`).
        topics: The topics' names (only `slices` and `shared` read them, for the
            broker's topic-id order); default `GRID_TOPIC` for one topic.
        topic_ids: Topic -> Kafka topic id, where known (else stand-ins).
    """
    shape = shape_of(key)
    sizes = np.asarray(sizes, dtype=np.int64)
    starts = np.cumsum(sizes) - sizes
    members = int(sizes.sum())
    counts = tuple(int(p) for p in counts)
    total = sum(counts)
    if shape == "blocks":
        blocks = {p: _block_cut(p, sizes, cf.block_starts(p, sizes)) for p in dict.fromkeys(counts)}
        return Cut(shape, sizes, starts, members, counts, blocks)
    if shape == "dealt":
        bins = (cf.roundrobin_owners(total, sizes) + starts[:, None]).ravel()
        return Cut(shape, sizes, starts, members, counts, {}, bins=bins)
    names = list(topics) if topics is not None else [GRID_TOPIC]
    if len(names) != len(counts):
        raise ValueError(f"{len(counts)} partition counts need as many topics, got {names!r}")
    if shape == "slices":
        order = _flat_order(names, counts, topic_ids)
        blocks = {-1: _block_cut(total, sizes, slice_starts(total, sizes))}
        return Cut(shape, sizes, starts, members, counts, blocks, order=order)
    walk = _walk(names, counts, topic_ids)
    bins, cells = _shared_cells(total, sizes, walk)
    # A partition's load splits evenly between the members holding it.
    keys = _cell_keys(bins, cells, total, starts)
    share = 1.0 / np.bincount(keys)[keys]
    return Cut(shape, sizes, starts, members, counts, {}, bins=bins, cells=cells, share=share)


def _cell_keys(bins: IntArray, cells: IntArray, total: int, starts: IntArray) -> IntArray:
    # (size, partition) of every cell as one integer, to count a partition's holders.
    size_index = np.searchsorted(starts, bins, side="right") - 1
    return size_index * total + cells


def member_loads(weights: Sequence[FloatArray], cut: Cut) -> FloatArray:
    """Every member's load, all sizes concatenated (`C` per size), members by position.

    Args:
        weights: Each topic's partition loads (as many as `cut.counts` says), topics in
            Java string order, in the caller's load unit.
        cut: From `cut` for these partition counts.
    """
    if cut.shape == "blocks":
        loads: FloatArray | None = None
        for w in weights:
            bounds, keep, empty = cut.blocks[w.size]
            cumulative = np.concatenate(([0.0], np.cumsum(w, dtype=np.float64)))
            member = np.diff(cumulative[bounds])[keep]
            # Exact zero for empty blocks (idle members), not a rounding residue.
            member[empty] = 0.0
            # Each topic cut on its own; the members' runs line up across topics.
            loads = member if loads is None else loads + member
        return loads if loads is not None else np.zeros(cut.members)
    flat = weights[0] if len(weights) == 1 else np.concatenate(weights)
    if cut.shape == "slices":
        assert cut.order is not None
        bounds, keep, empty = cut.blocks[-1]
        walked = flat if len(weights) == 1 else flat[cut.order]
        cumulative = np.concatenate(([0.0], np.cumsum(walked, dtype=np.float64)))
        member = np.diff(cumulative[bounds])[keep]
        member[empty] = 0.0
        return member
    assert cut.bins is not None
    if cut.shape == "dealt":
        by_cell = np.broadcast_to(flat, (cut.sizes.size, flat.size)).ravel()
    else:
        assert cut.cells is not None and cut.share is not None
        by_cell = flat[cut.cells] * cut.share
    dealt = np.bincount(cut.bins, weights=by_cell, minlength=cut.members)
    return dealt.astype(np.float64, copy=False)


def busiest(loads: FloatArray, cut: Cut) -> tuple[FloatArray, FloatArray]:
    """The busiest and the least busy member's load of every size."""
    return cf.segment_max_min(loads, cut.starts)


def partition_extremes(cut: Cut) -> tuple[IntArray, IntArray, IntArray]:
    """Per size: the most and the fewest partitions a member holds, and the members
    holding none. Closed forms where every member holds one share of the partitions
    (`blocks`: `sum ceil(P / C)`, `sum P div C`, `max(0, C - max P)`; `dealt` and
    `slices` the same for all `T` partitions at once); counted for `shared`."""
    sizes = cut.sizes
    if cut.shape == "shared":
        counts = member_partitions(cut)
        idle = np.add.reduceat((counts == 0).astype(np.int64), cut.starts)
        return (
            np.maximum.reduceat(counts, cut.starts),
            np.minimum.reduceat(counts, cut.starts),
            idle,
        )
    cuts = cut.counts if cut.shape == "blocks" else (sum(cut.counts),)
    most = np.zeros(sizes.size, dtype=np.int64)
    fewest = np.zeros(sizes.size, dtype=np.int64)
    for p in cuts:
        most += -(-p // sizes)
        fewest += p // sizes
    return most, fewest, np.maximum(0, sizes - max(cuts, default=0))


def member_partitions(cut: Cut) -> IntArray:
    """Every member's partition count (all topics), all sizes concatenated."""
    each = np.repeat(cut.sizes, cut.sizes)
    member = cf.positions(cut.sizes)
    if cut.shape in ("dealt", "slices"):
        total = sum(cut.counts)
        if cut.shape == "dealt":
            return total // each + (member < total % each)
        # uniform: the last T mod C members in hash order hold one more.
        return total // each + (member >= each - total % each)
    if cut.shape == "shared":
        assert cut.bins is not None
        return np.bincount(cut.bins, minlength=cut.members).astype(np.int64)
    counts = np.zeros(member.size, dtype=np.int64)
    for p in cut.counts:
        counts += p // each + (member < p % each)
    return counts
