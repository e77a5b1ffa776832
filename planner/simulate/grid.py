"""The planning grid: every candidate partition count x group size x strategy.

One row per (partitions, members, strategy) for a topic consumed by a group whose members
all subscribe to it: a classic consumer group, a consumer-protocol group (KIP-848) or a
share group (KIP-932), each strategy named by its key (`planner.simulate.strategies`).
Everything is computed from closed forms (see
`planner.simulate.closed_forms`), vectorised over the group sizes of one partition
count, so the whole grid costs a few dozen NumPy calls per partition count.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from planner import fit
from planner.assignors import STRATEGIES
from planner.simulate import member_loads as ml
from planner.simulate.churn import KAFKA_DEFAULTS, ProtocolTimings, event_costs
from planner.simulate.churn import churn as churn_of
from planner.simulate.closed_forms import MemberChange
from planner.simulate.loads import HotKey, TopicLoad, _check_rate, find_hot_keys, loads_by_count
from planner.simulate.strategies import ALL_STRATEGIES, EAGER_STRATEGIES, shape_of

__all__ = [
    "ALL_STRATEGIES",
    "EAGER_STRATEGIES",
    "PLANNING_GRID",
    "STRATEGIES",
    "GridResult",
    "grid_from_loads",
    "imbalance",
    "load_limit",
    "simulate_grid",
]

#: The default candidate partition counts.
PLANNING_GRID: tuple[int, ...] = (12, 24, 48, 96, 192)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def load_limit(consumer_capacity: float, keep_free_pct: float) -> float:
    """The most load one member may carry: `consumer_capacity x (1 - keep_free_pct / 100)`.

    Args:
        consumer_capacity: What one consumer processes, in the load unit (> 0).
        keep_free_pct: Share of that capacity kept free, in percent (0 <= x < 100).
    """
    capacity = _check_rate("consumer_capacity", consumer_capacity, positive=True)
    keep_free = _check_rate("keep_free_pct", keep_free_pct)
    if keep_free >= 100:
        raise ValueError(f"keep_free_pct must be below 100, got {keep_free_pct!r}")
    return capacity * (1.0 - keep_free / 100.0)


def imbalance(max_load: npt.ArrayLike, mean_load: npt.ArrayLike) -> FloatArray:
    """`max / mean` of the members' loads; 1.0 where the load is zero (all members equal).

    The maximum of a set is never below its mean, so a ratio a rounding error puts a hair
    under 1 (uniform loads summed in floating point) is reported as exactly 1.
    """
    top = np.asarray(max_load, dtype=np.float64)
    mean = np.asarray(mean_load, dtype=np.float64)
    out = np.ones(np.broadcast(top, mean).shape)
    np.divide(top, mean, out=out, where=mean > 0)
    return np.maximum(out, 1.0, out=out)


@dataclass(frozen=True, eq=False)
class GridResult:
    """The simulated grid, one row per (partitions, members, strategy), in that order.

    Loads are in the caller's load unit (that of `TopicLoad.load`). Column arrays all
    have one entry per row.

    Attributes:
        partitions: Candidate partition count `P`.
        members: Group size `C` (members in the consumer group).
        strategy: Strategy key (`planner.simulate.strategies`): a classic strategy's
            name, or `consumer:uniform`, `consumer:range`, `share:simple`.
        max_member_partitions: Most partitions any member owns (`ceil(P / C)`; share
            groups: a shared partition counts for each of its members).
        min_member_partitions: Fewest partitions any member owns (`P div C`, 0 if idle).
        max_load: Load of the busiest member.
        min_load: Load of the least busy member (0 when a member is idle).
        mean_load: `topic load / C`, idle members included.
        imbalance: `max_load / mean_load`; 1.0 when the topic's load is zero. With idle
            members it is at least `C / P`: they count in the mean.
        idle_members: Members that own no partition (`max(0, C - P)`; none in a share
            group, whose extra members share partitions).
        within_capacity: `max_load <= load_limit` (relative tolerance 1e-9).
        max_partition_load: Load of the busiest partition (same for every C).
        hot_partition: `max_partition_load > consumer_capacity`: one consumer cannot keep
            up with that partition whatever the group size.
        grow_moved: Partitions whose owner changes when one member joins.
        grow_revoked: Partitions revoked during that rebalance (all `P` under the eager
            protocol, `grow_moved` under cooperative-sticky).
        shrink_moved: Partitions whose owner changes when one member leaves (its own
            partitions included; `P` when the only member leaves).
        shrink_revoked: As `grow_revoked`, for the leave.
        stops_group: Whether a scale event stops the whole group (classic eager).
        grow_rounds: Rebalance rounds of a join (2 for cooperative-sticky when
            anything moves, else 1).
        shrink_rounds: The same for a leave.
        grow_paused_partition_s: Expected partition-seconds without a consuming owner
            in a join (`planner.simulate.churn.event_costs`).
        shrink_paused_partition_s: The same for a leave.
        shrink_locked_record_s: Share groups: the leaver's in-flight records x the
            acquisition lock duration, if it stops without closing (0 otherwise).
        consumer_capacity: What one consumer processes, in the load unit.
        keep_free_pct: Share of the capacity kept free, in percent.
        load_limit: `consumer_capacity x (1 - keep_free_pct / 100)`.
        member_change: Where the joining/leaving member sorts (`last` or `first`).
        timings: The protocol settings the event costs were computed with.
        topic_load: The topic's total load (from `grid_from_loads`: the mean of the
            per-count totals given).
        hot_keys: Keys whose own rate exceeds `consumer_capacity` (hottest first).
    """

    partitions: IntArray
    members: IntArray
    strategy: npt.NDArray[np.str_]
    max_member_partitions: IntArray
    min_member_partitions: IntArray
    max_load: FloatArray
    min_load: FloatArray
    mean_load: FloatArray
    imbalance: FloatArray
    idle_members: IntArray
    within_capacity: npt.NDArray[np.bool_]
    max_partition_load: FloatArray
    hot_partition: npt.NDArray[np.bool_]
    grow_moved: IntArray
    grow_revoked: IntArray
    shrink_moved: IntArray
    shrink_revoked: IntArray
    stops_group: npt.NDArray[np.bool_]
    grow_rounds: IntArray
    shrink_rounds: IntArray
    grow_paused_partition_s: FloatArray
    shrink_paused_partition_s: FloatArray
    shrink_locked_record_s: FloatArray
    consumer_capacity: float
    keep_free_pct: float
    load_limit: float
    member_change: MemberChange
    timings: ProtocolTimings
    topic_load: float
    hot_keys: tuple[HotKey, ...]

    @classmethod
    def column_names(cls) -> tuple[str, ...]:
        """Names of the per-row columns, in order."""
        return _COLUMN_NAMES

    def __len__(self) -> int:
        return int(self.partitions.size)

    def columns(self) -> dict[str, np.ndarray[Any, Any]]:
        """The per-row columns by name (the arrays themselves, not copies)."""
        return {name: getattr(self, name) for name in self.column_names()}

    def rows(self) -> list[dict[str, Any]]:
        """One dict of plain Python values per row."""
        lists = {name: column.tolist() for name, column in self.columns().items()}
        return [
            dict(zip(lists, values, strict=True)) for values in zip(*lists.values(), strict=True)
        ]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows())

    def to_arrow(self) -> Any:
        """The columns as a `pyarrow.Table` (pyarrow imported only here).

        The scalar settings (capacity, headroom, limit, member change, topic load) go
        into the schema metadata; hot keys are not included.
        """
        import pyarrow as pa

        table = pa.table(self.columns())
        meta = {
            "consumer_capacity": repr(self.consumer_capacity),
            "keep_free_pct": repr(self.keep_free_pct),
            "load_limit": repr(self.load_limit),
            "member_change": self.member_change,
            "topic_load": repr(self.topic_load),
        }
        return table.replace_schema_metadata(meta)

    def where(self, mask: npt.ArrayLike) -> GridResult:
        """The rows selected by a boolean mask (e.g. `r.where(r.strategy == "range")`).

        A mask that keeps every row gives this grid itself (it is frozen, and `plan_topic`
        selects a grid of one partition count by its count, for every topic).
        """
        chosen = np.asarray(mask, dtype=bool)
        if chosen.shape == self.partitions.shape and chosen.all():
            return self
        columns = {name: column[chosen] for name, column in self.columns().items()}
        scalars = {name: getattr(self, name) for name in _SCALARS}
        return GridResult(**columns, **scalars)


_SCALARS = frozenset(
    {
        "consumer_capacity",
        "keep_free_pct",
        "load_limit",
        "member_change",
        "timings",
        "topic_load",
        "hot_keys",
    }
)
# Asked for on every filter of every grid: worked out once.
_COLUMN_NAMES = tuple(f.name for f in fields(GridResult) if f.name not in _SCALARS)


def simulate_grid(
    topic: TopicLoad,
    *,
    consumer_capacity: float,
    keep_free_pct: float = 30.0,
    partition_counts: Sequence[int] = PLANNING_GRID,
    strategies: Sequence[str] = STRATEGIES,
    extra_members: int = 0,
    member_change: MemberChange = "last",
    timings: ProtocolTimings = KAFKA_DEFAULTS,
) -> GridResult:
    """Simulate every candidate partition count, group size and strategy for one topic.

    Group sizes run from 1 to `P + extra_members` for each partition count `P`. Every
    member subscribes to the topic; assignments are the strategies' fresh ones, and
    churn starts from them. Keyed topics hash their key sample once per partition count.

    Args:
        topic: The topic's load (in the caller's load unit) and key sample, if keyed.
        consumer_capacity: What one consumer processes, processing included, in the
            same load unit (> 0).
        keep_free_pct: Share of `consumer_capacity` kept free, in percent (0 <= x < 100).
        partition_counts: Candidate partition counts (each >= 1); duplicates are dropped.
        strategies: Strategy keys to simulate, from `ALL_STRATEGIES` (default: the
            classic `STRATEGIES`).
        extra_members: Group sizes past `P` to include, to show idle members, or a
            share group's members beyond the partition count (>= 0).
        member_change: Whether the joining or leaving member's id sorts `last` (the
            default: a new member id, e.g. a later `consumer-N`, sorts after the others)
            or `first` (every other member's position shifts by one). For the broker's
            assignors the order is theirs: Java order for `consumer:range`, hash order
            for `consumer:uniform`; `share:simple`'s churn is a bound either way.
        timings: The protocol settings of the event-cost columns (Kafka's defaults).

    Returns:
        The grid, with the topic's hot keys.
    """
    counts = _check_counts(partition_counts)
    return _grid_from_loads(
        loads_by_count(topic, counts),
        consumer_capacity=consumer_capacity,
        keep_free_pct=keep_free_pct,
        strategies=strategies,
        extra_members=extra_members,
        member_change=member_change,
        timings=timings,
        hot_keys_of=topic,
    )


def grid_from_loads(
    loads: Mapping[int, npt.ArrayLike],
    *,
    consumer_capacity: float,
    keep_free_pct: float = 30.0,
    strategies: Sequence[str] = STRATEGIES,
    extra_members: int = 0,
    member_change: MemberChange = "last",
    timings: ProtocolTimings = KAFKA_DEFAULTS,
) -> GridResult:
    """`simulate_grid` from per-partition loads already known for each partition count.

    Args:
        loads: Partition count -> the load of each of its partitions (as many entries
            as the count), in the caller's load unit; e.g. from `loads_by_count`.
        consumer_capacity: As in `simulate_grid`.
        keep_free_pct: As in `simulate_grid`.
        strategies: As in `simulate_grid`.
        extra_members: As in `simulate_grid`.
        member_change: As in `simulate_grid`.
        timings: As in `simulate_grid`.

    Returns:
        The grid, partition counts in the mapping's order; `hot_keys` is empty.
    """
    return _grid_from_loads(
        loads,
        consumer_capacity=consumer_capacity,
        keep_free_pct=keep_free_pct,
        strategies=strategies,
        extra_members=extra_members,
        member_change=member_change,
        timings=timings,
        hot_keys_of=None,
    )


def _grid_from_loads(
    loads: Mapping[int, npt.ArrayLike],
    *,
    consumer_capacity: float,
    keep_free_pct: float,
    strategies: Sequence[str],
    extra_members: int,
    member_change: MemberChange,
    timings: ProtocolTimings,
    hot_keys_of: TopicLoad | None,
) -> GridResult:
    # grid_from_loads with the hot keys of `hot_keys_of` (None: none), found once the
    # grid is, as before: simulate_grid's grid is built once, not built and then copied
    # by dataclasses.replace to add them (about 12 us a topic).
    limit = load_limit(consumer_capacity, keep_free_pct)
    unknown = [s for s in strategies if s not in ALL_STRATEGIES]
    if unknown or not strategies:
        raise ValueError(f"unknown strategies {unknown!r}: use {', '.join(ALL_STRATEGIES)}")
    if extra_members < 0:
        raise ValueError(f"extra_members must be zero or above, got {extra_members}")
    if member_change not in ("last", "first"):
        raise ValueError(f"member_change must be 'last' or 'first', got {member_change!r}")
    arrays: dict[int, FloatArray] = {}
    for p in _check_counts(list(loads)):
        w = np.asarray(loads[p], dtype=np.float64).reshape(-1)
        if w.size != p:
            raise ValueError(f"{p} partitions need {p} loads, got {w.size}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError(f"loads for {p} partitions must be finite and zero or above")
        arrays[p] = w
    # With several counts the blocks are concatenated into new arrays below, so they
    # may hold the layout's cached (read-only) columns themselves; a single block is
    # the grid's own columns and gets copies.
    blocks = [
        _one_count(
            p,
            w,
            tuple(strategies),
            extra_members,
            member_change,
            limit,
            timings,
            own=len(arrays) == 1,
        )
        for p, w in arrays.items()
    ]
    columns = (
        blocks[0]
        if len(blocks) == 1
        else {name: np.concatenate([b[name] for b in blocks]) for name in blocks[0]}
    )
    return GridResult(
        **columns,
        hot_partition=columns["max_partition_load"] > float(consumer_capacity),
        consumer_capacity=float(consumer_capacity),
        keep_free_pct=float(keep_free_pct),
        load_limit=limit,
        member_change=member_change,
        timings=timings,
        topic_load=float(sum(float(w.sum()) for w in arrays.values()) / len(arrays)),
        hot_keys=() if hot_keys_of is None else find_hot_keys(hot_keys_of, consumer_capacity),
    )


def _check_counts(partition_counts: Sequence[int]) -> list[int]:
    counts = list(dict.fromkeys(int(p) for p in partition_counts))
    if not counts or min(counts) < 1:
        raise ValueError(f"partition counts must be at least 1 each, got {partition_counts!r}")
    return counts


@dataclass(frozen=True)
class _Layout:
    """What the grid of one partition count needs that no partition load changes.

    Attributes:
        members: Group sizes `1 .. P + extra`.
        fixed: The load-free columns, rows ordered (members, strategy).
        cuts: Each shape's cut (`member_loads.cut`), shapes in the strategies' order.
        pick: For each row, where its strategy's per-size value sits in the per-shape
            values laid end to end (in the order of `cuts`).
    """

    members: IntArray
    fixed: dict[str, np.ndarray[Any, Any]]
    cuts: tuple[ml.Cut, ...]
    pick: IntArray


# Grids of a fleet repeat the same (P, extra) pairs thousands of times; their structure
# is worked out once. Bounded: at most _LAYOUT_CACHE layouts holding at most
# _LAYOUT_ROWS rows in all (about 350 bytes a row), the least recently used going first,
# and none kept whose index arrays exceed _LAYOUT_MAX_CELLS entries (P and sizes in the
# thousands). The 10,000-topic sample fleet's grids use about 760 layouts of 270,000
# rows in all (95 MiB); clearing the cache whenever it held 512 rebuilt one in twenty.
_LAYOUTS: dict[tuple[int, int, tuple[str, ...], str, ProtocolTimings], _Layout] = {}
_LAYOUT_CACHE = 4096
_LAYOUT_ROWS = 1 << 19
_LAYOUT_MAX_CELLS = 1 << 18
_layout_rows = 0


def _layout(
    p: int, extra: int, strategies: tuple[str, ...], change: MemberChange, timings: ProtocolTimings
) -> _Layout:
    global _layout_rows
    key = (p, extra, strategies, change, timings)
    known = _LAYOUTS.pop(key, None)
    if known is not None:
        _LAYOUTS[key] = known  # the most recently used last
        return known
    c = np.arange(1, p + extra + 1, dtype=np.int64)
    n_s = len(strategies)
    # One cut per shape: a fresh sticky / cooperative-sticky group is dealt exactly as
    # roundrobin (Kafka's constrained path), so those three share round-robin's.
    shapes: dict[str, int] = {}
    cuts: list[ml.Cut] = []
    for strategy in strategies:
        shape = shape_of(strategy)
        if shape not in shapes:
            shapes[shape] = len(cuts)
            cuts.append(ml.cut((p,), c, strategy))
    per_strategy: list[dict[str, np.ndarray[Any, Any]]] = []
    for strategy in strategies:
        at = cuts[shapes[shape_of(strategy)]]
        most, fewest, idle = ml.partition_extremes(at)
        moved = churn_of(strategy, (p,), c, change)
        per_strategy.append(
            {
                "max_member_partitions": most,
                "min_member_partitions": fewest,
                "idle_members": idle,
                **moved,
                **event_costs(strategy, moved, c, p, timings),
            }
        )

    def interleave(name: str) -> np.ndarray[Any, Any]:
        # (strategies x sizes) -> rows ordered by size, then strategy.
        first = per_strategy[0][name]
        out = np.empty(c.size * n_s, dtype=first.dtype)
        for j, values in enumerate(per_strategy):
            out[j::n_s] = values[name]
        return out

    fixed: dict[str, np.ndarray[Any, Any]] = {
        "partitions": np.full(c.size * n_s, p, dtype=np.int64),
        "members": np.repeat(c, n_s),
        "strategy": np.tile(np.array(strategies), c.size),
        **{name: interleave(name) for name in per_strategy[0]},
    }
    offsets = np.array([shapes[shape_of(s)] * c.size for s in strategies], dtype=np.int64)
    pick = (np.arange(c.size, dtype=np.int64)[:, None] + offsets[None, :]).ravel()
    layout = _Layout(c, fixed, tuple(cuts), pick)
    for array in (*fixed.values(), pick):
        array.flags.writeable = False
    rows = int(pick.size)
    if not _LAYOUTS:
        _layout_rows = 0  # emptied from outside (a benchmark's or a test's cold start)
    if c.size * p <= _LAYOUT_MAX_CELLS:
        while _LAYOUTS and (len(_LAYOUTS) >= _LAYOUT_CACHE or _layout_rows + rows > _LAYOUT_ROWS):
            _layout_rows -= int(_LAYOUTS.pop(next(iter(_LAYOUTS))).pick.size)
        _LAYOUTS[key] = layout
        _layout_rows += rows
    return layout


def _one_count(
    p: int,
    partition_loads: FloatArray,
    strategies: tuple[str, ...],
    extra_members: int,
    change: MemberChange,
    limit: float,
    timings: ProtocolTimings,
    *,
    own: bool = True,
) -> dict[str, np.ndarray[Any, Any]]:
    """Columns for one partition count, rows ordered (members, strategy).

    `own=False` leaves the load-free columns as the cached layout's read-only arrays,
    for a caller that copies them anyway (a concatenation): 10 copies per count saved.
    """
    layout = _layout(p, extra_members, strategies, change, timings)
    c = layout.members
    total = float(partition_loads.sum())
    n_s = len(strategies)
    tops, bottoms = [], []
    for at in layout.cuts:
        top, bottom = ml.busiest(ml.member_loads((partition_loads,), at), at)
        tops.append(top)
        bottoms.append(bottom)
    max_load = (tops[0] if len(tops) == 1 else np.concatenate(tops))[layout.pick]
    min_load = (bottoms[0] if len(bottoms) == 1 else np.concatenate(bottoms))[layout.pick]
    mean_load = np.repeat(total / c, n_s)
    return {
        # Copies: callers own a grid's columns (the cached ones are read-only).
        **({name: column.copy() for name, column in layout.fixed.items()} if own else layout.fixed),
        "max_load": max_load,
        "min_load": min_load,
        "mean_load": mean_load,
        "imbalance": imbalance(max_load, mean_load),
        "within_capacity": fit.fits(max_load, limit),
        "max_partition_load": np.full(c.size * n_s, float(partition_loads.max())),
    }
