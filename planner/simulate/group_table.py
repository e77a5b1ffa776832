"""The table a consumer group is sized from: each strategy's candidate sizes and loads.

`planner.recommend.group.size_group` decides a group's size and strategy from a
`GroupTable` alone. A group reading one topic and a group reading several differ only
in how the table is built: `one_topic_table` reads it from the one-topic grid
(`planner.simulate.grid`) at the planned partition count; `multi_topic_table`
(`planner.simulate.multi_topic`) searches the sizes of a multi-topic group.

Loads are in consumers: 1.0 is one consumer's whole capacity (Tc).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner import fit
from planner.simulate.churn import CHURN_COLUMNS, COST_COLUMNS
from planner.simulate.grid import STRATEGIES, GridResult
from planner.simulate.multi_topic import SHARE_GROUP_MAX_SIZE
from planner.simulate.strategies import ALL_STRATEGIES, shape_of

__all__ = ["GroupTable", "StrategySizes", "one_topic_table"]


@dataclass(frozen=True)
class StrategySizes:
    """One strategy's candidate group sizes, ascending from 1, and their busiest member.

    Attributes:
        members: Group sizes, ascending, from 1 without gaps.
        busiest_now: The busiest member's load at today's peak, per size, in consumers.
        busiest_at_horizon: The same at the end of the horizon.
    """

    members: npt.NDArray[np.int64]
    busiest_now: npt.NDArray[np.float64]
    busiest_at_horizon: npt.NDArray[np.float64]

    def smallest_fit(self, limit: float, *, floor: int = 1, at_horizon: bool = False) -> int | None:
        """The smallest size of `floor` members or more whose busiest member fits `limit`
        (in consumers) today, or at the end of the horizon; None when none does."""
        loads = self.busiest_at_horizon if at_horizon else self.busiest_now
        fits = fit.fits(loads, limit) & (self.members >= floor)
        # The first fitting row: argmax of a boolean array is its first True (a third of
        # flatnonzero's cost, asked several times per group plan).
        i = int(fits.argmax()) if fits.size else 0
        if not fits.size or not fits[i]:
            return None
        return int(self.members[i])

    def busiest_now_at(self, members: int) -> float | None:
        """The busiest member's load today at one size (None: the size is not here)."""
        at = np.flatnonzero(self.members == members)
        return float(self.busiest_now[at[0]]) if at.size else None


@dataclass(frozen=True)
class GroupTable:
    """Everything `size_group` decides a group's plan from.

    Attributes:
        topics: The group's topics, in Java string order.
        partitions: Each topic's planned partition count.
        partitions_today: Each topic's partition count today (None: a new topic).
        sizes: The candidate sizes of each strategy the planner simulates.
        revoked_on_join: Partitions revoked when a member joins a fresh group of the
            strategy (first argument) and size (second).
        busiest_today: The busiest member's load at today's peak with the group's
            current size and strategy, in consumers (None: not known, or a group with
            no members).
        on_today: Whether `busiest_today` is on today's partition counts (else on the
            planned ones).
        scale_event: A strategy (first argument) and size's churn and event costs
            (`planner.simulate.churn.CHURN_COLUMNS` and `COST_COLUMNS`: moved, revoked,
            group stop, rounds, partition-seconds paused, share groups' locked
            record-seconds); None where the builder did not give them (the default,
            which keeps the decision as it was).
        more_sizes: The candidate sizes of a strategy `sizes` does not hold, searched
            when asked (for an alternative the plan states, not a candidate); None: not
            available.
    """

    topics: tuple[str, ...]
    partitions: tuple[int, ...]
    partitions_today: tuple[int | None, ...]
    sizes: Mapping[str, StrategySizes]
    revoked_on_join: Callable[[str, int], int]
    busiest_today: float | None = None
    on_today: bool = False
    scale_event: Callable[[str, int], Mapping[str, Any]] | None = None
    more_sizes: Callable[[str], StrategySizes] | None = None

    def strategy_sizes(self, strategy: str) -> StrategySizes | None:
        """A strategy's candidate sizes: from `sizes`, else searched (`more_sizes`), else
        None."""
        found = self.sizes.get(strategy)
        if found is None and self.more_sizes is not None:
            found = self.more_sizes(strategy)
        return found

    @property
    def total_partitions(self) -> int:
        """The planned partitions of all the topics."""
        return sum(self.partitions)

    def owners(self, strategy: str, *, today: bool = False) -> int:
        """The most members a strategy gives partitions to: `range` and the broker's
        `consumer:range` cut each topic on its own (its largest topic's count), the
        others deal all partitions together; a share group (`share:simple`) shares
        partitions, so up to the broker's largest share group (`SHARE_GROUP_MAX_SIZE`).
        On today's counts with `today` (those known)."""
        counts = [c for c in self.partitions_today if c is not None] if today else self.partitions
        # A strategy the planner does not simulate counts as dealing all partitions,
        # as it always did.
        shape = shape_of(strategy) if strategy in ALL_STRATEGIES else "dealt"
        if shape == "shared":
            return SHARE_GROUP_MAX_SIZE
        return max(counts, default=0) if shape == "blocks" else sum(counts)


def one_topic_table(
    grid: GridResult,
    *,
    topic: str,
    partitions: int,
    current_partitions: int | None,
    scale_now: float,
    most: int,
    busiest_today: float | None,
    on_today: bool,
    strategies: Sequence[str] = STRATEGIES,
) -> GroupTable:
    """The table of a group reading one topic, from the one-topic grid.

    Args:
        grid: The grid's rows at `partitions` partitions, loads at the end of the
            horizon, in consumers.
        topic: The topic.
        partitions: The planned partition count.
        current_partitions: Its partitions today (None: a new topic).
        scale_now: Today's load over the horizon's: loads scale linearly with the topic.
        most: The largest size to consider (members beyond it are not candidates), but
            for a share group, whose members share partitions: up to the broker's largest
            share group (`SHARE_GROUP_MAX_SIZE`).
        busiest_today: See `GroupTable.busiest_today`.
        on_today: See `GroupTable.on_today`.
        strategies: The strategy keys to take from the grid (each must be in it; the
            default, the classic four, is the table as it always was).
    """
    sizes = {}
    rows: dict[str, npt.NDArray[np.intp]] = {}
    # The grid's columns split once per group instead of one filtered copy of the whole
    # grid per question asked of it.
    for strategy in strategies:
        # A share group's members share partitions: every size the grid holds.
        cap = most if shape_of(strategy) != "shared" else SHARE_GROUP_MAX_SIZE
        chosen = np.flatnonzero((grid.strategy == strategy) & (grid.members <= cap))
        order = chosen[np.argsort(grid.members[chosen])]
        members = grid.members[order]
        horizon = grid.max_load[order]
        sizes[strategy] = StrategySizes(members, horizon * scale_now, horizon)
        rows[strategy] = order

    def row_of(strategy: str, members: int) -> int | None:
        at = sizes[strategy].members == members
        i = int(at.argmax()) if at.size else 0
        return int(rows[strategy][i]) if at.size and at[i] else None

    def revoked_on_join(strategy: str, members: int) -> int:
        row = row_of(strategy, members)
        return int(grid.grow_revoked[row]) if row is not None else partitions

    def scale_event(strategy: str, members: int) -> Mapping[str, Any]:
        row = row_of(strategy, members)
        if row is None:
            raise ValueError(f"{strategy} has no row of {members} members in the grid")
        return {name: getattr(grid, name)[row].item() for name in (*CHURN_COLUMNS, *COST_COLUMNS)}

    return GroupTable(
        topics=(topic,),
        partitions=(partitions,),
        partitions_today=(current_partitions,),
        sizes=sizes,
        revoked_on_join=revoked_on_join,
        busiest_today=busiest_today,
        on_today=on_today,
        scale_event=scale_event,
    )
