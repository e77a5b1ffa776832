"""A consumer group's table of candidate sizes, built from the simulation's grids.

`planner.recommend.group.decision.size_group` decides a group's size and strategy from
a `planner.simulate.GroupTable`; this module builds that table and decides nothing:
`plan_group` from the one-topic grid of the group's topic, `plan_group_of_topics` from
the multi-topic search (`planner.simulate.multi_topic`) for a group reading several. It
also says what a topic's grid must simulate for its groups (`grid_parameters`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from planner import fit
from planner.assignors import java_order_key
from planner.recommend.group.decision import planning_strategies, size_group
from planner.recommend.types import GroupInfo, GroupPlan, PlanSettings
from planner.simulate import ALL_STRATEGIES, STRATEGIES, GridResult
from planner.simulate.group_table import GroupTable, StrategySizes, one_topic_table
from planner.simulate.multi_topic import (
    SHARE_GROUP_MAX_SIZE,
    SizeSearch,
    group_churn,
    member_loads,
    search_sizes,
)
from planner.simulate.strategies import shape_of

__all__ = [
    "GroupOfTopics",
    "GroupTopic",
    "busiest_member_load",
    "grid_extra_members",
    "grid_parameters",
    "plan_group",
    "plan_group_of_topics",
    "strategies_to_simulate",
]


def grid_extra_members(min_group_members: int, group_sizes: Iterable[int]) -> int:
    """Group sizes past each partition count a topic's grid simulates.

    At least 4 to show idle members, every size a group runs today, and the minimum
    group size (on one partition, a floor of N is N - 1 members past the count), so
    that `plan_group` finds each of those sizes in the grid.
    """
    return max(4, min_group_members, max(group_sizes, default=0))


def grid_parameters(
    groups: Sequence[GroupInfo], *, consumers_at_horizon: float, settings: PlanSettings
) -> tuple[tuple[str, ...], int]:
    """What a topic's grid simulates to plan the groups that read only it: the strategy
    keys (`strategies_to_simulate`) and the group sizes past each partition count.

    Past the count: `grid_extra_members`, and for a share group, whose members share
    partitions, up to the load over one member's limit (plus one for partitions shared
    unevenly) or its size today, within the broker's largest share group.

    Args:
        groups: The groups.
        consumers_at_horizon: The topic's load at the end of the horizon, in consumers.
        settings: The planning settings (headroom, minimum group size).
    """
    extra = grid_extra_members(settings.min_group_members, (g.members for g in groups))
    share = [g.members for g in groups if g.protocol == "share"]
    if share:
        limit = settings.member_load_limit
        need = math.ceil(consumers_at_horizon / limit) + 1
        extra = max(extra, min(SHARE_GROUP_MAX_SIZE, max(need, *share)))
    return strategies_to_simulate(groups), extra


def busiest_member_load(loads: npt.ArrayLike, members: int, strategy: str) -> float | None:
    """The busiest member's load when `members` members share these partitions.

    A fresh assignment of one topic to members that all subscribe to it, as the grid
    computes it: `range` cuts the partitions into consecutive blocks, `roundrobin`,
    `sticky` and `cooperative-sticky` deal them in turn (a fresh sticky assignment is
    dealt as round-robin's); members beyond the partition count own nothing. The
    broker's assignors (`consumer:uniform`, `consumer:range`, `share:simple`) by their
    shape (`planner.simulate.strategies`).

    Args:
        loads: Each partition's load, in the caller's load unit.
        members: The group's size (>= 1).
        strategy: Its strategy key (`planner.simulate.strategies`).

    Returns:
        The busiest member's load, in the load unit; None for a strategy the planner
        does not simulate.
    """
    if members < 1:
        raise ValueError(f"a group has at least one member, got {members}")
    weights = np.asarray(loads, dtype=np.float64).reshape(-1)
    sizes = np.array([members], dtype=np.int64)
    if strategy not in ALL_STRATEGIES:
        return None
    per_member = member_loads([weights], sizes, strategy)
    return float(per_member.max())


def _searched(
    horizon: Sequence[npt.NDArray[np.float64]],
    now: Sequence[npt.NDArray[np.float64]],
    *,
    scale: float | None,
    topics: Sequence[str],
    limit: float,
    wanted: int,
    floor: int,
) -> Callable[[str], StrategySizes]:
    # A strategy's sizes searched from 1 on these loads (`search_sizes`), as a table's
    # `more_sizes`.
    def sizes_of(key: str) -> StrategySizes:
        return _as_sizes(
            search_sizes(
                horizon,
                now,
                key,
                fit.fit_bound(limit),
                wanted,
                floor,
                scale,
                topics=topics,
            )
        )

    return sizes_of


def _as_sizes(found: SizeSearch) -> StrategySizes:
    return StrategySizes(
        np.arange(1, found.busiest_now.size + 1, dtype=np.int64),
        found.busiest_now,
        found.stats["max_load"],
    )


def plan_group(
    group: GroupInfo,
    grid: GridResult,
    *,
    topic: str,
    partitions: int,
    consumers_now: float,
    consumers_at_horizon: float,
    settings: PlanSettings,
    current_partitions: int | None = None,
    current_busiest: float | None = None,
    loads_at_horizon: npt.ArrayLike | None = None,
) -> GroupPlan:
    """Plan one consumer group of a one-topic subscription on `partitions` partitions.

    Args:
        group: The group as it is today.
        grid: The one-topic grid at `partitions`, loads at the horizon in consumers.
        topic: The topic.
        partitions: The partition count planned for.
        consumers_now: The topic's load today, in consumers.
        consumers_at_horizon: The topic's load at the horizon, in consumers.
        settings: The planning settings (headroom, minimum group size).
        current_partitions: The topic's partitions today (None: a new topic, on which
            no group can be behind yet).
        current_busiest: The group's busiest member at today's peak, with its current
            size and strategy, on today's `current_partitions`, in consumers (None: read
            from `grid`, which is at `partitions`, and said so when that is not today's
            count).
        loads_at_horizon: Each partition's load at the end of the horizon at
            `partitions`, in consumers, as the grid had them, to size strategies the
            grid does not hold (an alternative's); None: those are not sized.
    """
    # The grid is simulated at the horizon's load; loads scale linearly with the topic.
    scale_now = consumers_now / consumers_at_horizon if consumers_at_horizon > 0 else 0.0
    # No fewer members than the floor; no more than there are partitions to own, unless
    # the floor asks for more: those stand by (the grid simulates them, owning nothing).
    most = max(partitions, settings.min_group_members)
    if len(grid) and int(grid.members.max()) < most:
        raise ValueError(
            f"group {group.group_id!r}: the grid simulates groups of up to "
            f"{int(grid.members.max())} members on {partitions} partitions; the minimum "
            f"group size needs {most} (simulate with extra_members of at least "
            f"grid_extra_members(min_group_members, ...))"
        )
    on_today = current_busiest is not None  # the caller's figure is on today's count
    current, candidates = planning_strategies(group, 1)
    table = one_topic_table(
        grid,
        topic=topic,
        partitions=partitions,
        current_partitions=current_partitions,
        scale_now=scale_now,
        most=most,
        busiest_today=None,
        on_today=on_today,
        strategies=_simulated(current, candidates),
    )
    if group.members < 1 or current_partitions is None:
        current_busiest = None
    elif current_busiest is None and current in table.sizes:
        # Read at the planned count: members beyond those a strategy gives partitions to
        # own nothing.
        current_busiest = table.sizes[current].busiest_now_at(
            min(group.members, table.owners(current))
        )
    more_sizes = None
    if loads_at_horizon is not None:
        horizon = np.asarray(loads_at_horizon, dtype=np.float64)
        more_sizes = _searched(
            [horizon],
            [horizon * scale_now],
            scale=scale_now,
            topics=[topic],
            limit=settings.member_load_limit,
            wanted=settings.min_group_members,
            floor=settings.min_group_members,
        )
    table = replace(table, busiest_today=current_busiest, more_sizes=more_sizes)
    return size_group(
        group,
        table,
        headroom_pct=settings.headroom_pct,
        min_group_members=settings.min_group_members,
    )


def _simulated(current: str, candidates: Sequence[str]) -> tuple[str, ...]:
    # The keys a group's table holds: its candidates, and its own when simulated.
    own = (current,) if current in ALL_STRATEGIES else ()
    return tuple(dict.fromkeys((*candidates, *own)))


def strategies_to_simulate(groups: Iterable[GroupInfo], *, topics: int = 1) -> tuple[str, ...]:
    """The strategy keys a grid must hold to plan these groups (each reading `topics`
    topics): the classic four, which the planned group of a topic runs, and every
    group's candidates and own key, in `ALL_STRATEGIES`' order."""
    wanted = set(STRATEGIES)
    for group in groups:
        current, candidates = planning_strategies(group, topics)
        wanted.update(_simulated(current, candidates))
    return tuple(key for key in ALL_STRATEGIES if key in wanted)


@dataclass(frozen=True)
class GroupTopic:
    """One topic of a multi-topic group, as its sizing left it.

    Attributes:
        topic: The topic.
        current_partitions: Partitions today (None: a new topic).
        partitions: The recommended partition count.
        consumers_now: Its load today in consumers (`max(rate_d / Tc_d)`).
        consumers_at_horizon: The same at the end of the horizon.
        loads: Each partition's load at the end of the horizon, in consumers, at the
            recommended count (a keyed topic's, from its key sample); None for an even
            spread.
        load_factor: The group's load per unit of the topic's, `topic Tc / group Tc`
            (`planner.recommend.consumer_capacity.load_factor`): 1.0 when the group is
            sized with the topic's Tc.
    """

    topic: str
    current_partitions: int | None
    partitions: int
    consumers_now: float
    consumers_at_horizon: float
    loads: npt.NDArray[np.float64] | None = None
    load_factor: float = 1.0

    def in_group_consumers(self) -> GroupTopic:
        """The topic with its loads in the group's own consumers (its `Tc_g`)."""
        f = self.load_factor
        if f == 1.0:
            return self
        return replace(
            self,
            consumers_now=self.consumers_now * f,
            consumers_at_horizon=self.consumers_at_horizon * f,
            loads=None if self.loads is None else self.loads * f,
            load_factor=1.0,
        )


@dataclass(frozen=True)
class GroupOfTopics:
    """A multi-topic group's plan and the searches it was decided from.

    Attributes:
        plan: The group's plan.
        searches: Each strategy's sizes (`SizeSearch`), loads at the end of the horizon.
        horizon_loads: Each topic's partition loads at the horizon, in topic order.
        limit: The busiest member's load that keeps the headroom, in consumers.
    """

    plan: GroupPlan
    searches: dict[str, SizeSearch]
    horizon_loads: tuple[npt.NDArray[np.float64], ...]
    limit: float


def plan_group_of_topics(
    group: GroupInfo, topics: Sequence[GroupTopic], *, settings: PlanSettings
) -> GroupOfTopics:
    """Plan one group that reads several topics, each on its recommended count.

    Args:
        group: The group as it is today.
        topics: Its topics, as sized.
        settings: The planning settings (headroom, minimum group size).
    """
    # Each topic's loads in the group's own consumers: its Tc on that topic may differ.
    ordered = sorted(
        (t.in_group_consumers() for t in topics), key=lambda t: java_order_key(t.topic)
    )
    horizon: list[npt.NDArray[np.float64]] = []
    now: list[npt.NDArray[np.float64]] = []
    ratios: list[float] = []
    for t in ordered:
        weights = (
            np.asarray(t.loads, dtype=np.float64)
            if t.loads is not None
            else np.full(t.partitions, t.consumers_at_horizon / t.partitions)
        )
        if weights.size != t.partitions:
            raise ValueError(
                f"group {group.group_id!r}: topic {t.topic!r} has {weights.size} partition "
                f"loads for {t.partitions} partitions"
            )
        # Loads scale linearly with the topic; each topic by its own growth.
        ratio = t.consumers_now / t.consumers_at_horizon if t.consumers_at_horizon else 0.0
        horizon.append(weights)
        now.append(weights * ratio)
        ratios.append(ratio)
    total = sum(w.size for w in horizon)
    floor = settings.min_group_members
    limit = settings.member_load_limit
    current, candidates = planning_strategies(group, len(ordered))
    names = [t.topic for t in ordered]
    fits = fit.fit_bound(limit)
    # One topic grows alike everywhere: today is the horizon scaled, as on the one-topic
    # grid, so that a one-topic group planned here is exactly its one-topic plan.
    scale = ratios[0] if len(ratios) == 1 else None
    searches: dict[str, SizeSearch] = {}
    dealt: SizeSearch | None = None
    for key in _simulated(current, candidates):
        # Sizes up to the group's own (a share group's members share partitions, so
        # up to the broker's largest share group), or the floor.
        shared = shape_of(key) == "shared"
        wanted = max(min(group.members, SHARE_GROUP_MAX_SIZE if shared else total), floor)
        if shape_of(key) == "dealt":
            # A fresh roundrobin, sticky or cooperative-sticky assignment deals the
            # partitions alike, so their searches are one search.
            if dealt is None:
                dealt = search_sizes(horizon, now, "roundrobin", fits, wanted, floor, scale)
            searches[key] = SizeSearch(
                key, dealt.stats, dealt.busiest_now, dealt.now_fit, dealt.horizon_fit
            )
        else:
            searches[key] = search_sizes(
                horizon, now, key, fits, wanted, floor, scale, topics=names
            )
    partitions = [w.size for w in horizon]
    sizes = {name: _as_sizes(found) for name, found in searches.items()}
    busiest_today, on_today = _busiest_today(group, current, ordered, now)
    if (
        scale is not None
        and on_today
        and ordered[0].current_partitions == partitions[0]
        and current in sizes
    ):
        # Today's count is the planned one: the table's own row, as on the one-topic grid.
        owners = SHARE_GROUP_MAX_SIZE if shape_of(current) == "shared" else total
        busiest_today = sizes[current].busiest_now_at(min(group.members, owners))

    def revoked_on_join(strategy: str, members: int) -> int:
        return group_churn(partitions, members, strategy)["grow_revoked"]

    table = GroupTable(
        topics=tuple(t.topic for t in ordered),
        partitions=tuple(partitions),
        partitions_today=tuple(t.current_partitions for t in ordered),
        sizes=sizes,
        revoked_on_join=revoked_on_join,
        busiest_today=busiest_today,
        on_today=on_today,
        more_sizes=_searched(
            horizon, now, scale=scale, topics=names, limit=limit, wanted=floor, floor=floor
        ),
    )
    plan = size_group(group, table, headroom_pct=settings.headroom_pct, min_group_members=floor)
    return GroupOfTopics(plan, searches, tuple(horizon), limit)


def _busiest_today(
    group: GroupInfo,
    current: str,
    topics: Sequence[GroupTopic],
    now: Sequence[npt.NDArray[np.float64]],
) -> tuple[float | None, bool]:
    # The busiest member at today's peak with the group's current size and strategy: on
    # today's partition counts when they are known (a topic keeping its count, or a
    # keyless one, spread evenly); a keyed topic whose count changes has loads at its
    # recommended count only, so then on the recommended counts.
    if group.members < 1 or current not in ALL_STRATEGIES:
        return None, False
    today: list[npt.NDArray[np.float64]] = []
    for t, planned in zip(topics, now, strict=True):
        count = t.current_partitions
        if count is None or count < 1 or (count != t.partitions and t.loads is not None):
            break
        if count == t.partitions and t.loads is not None:
            today.append(planned)
        else:
            today.append(np.full(count, t.consumers_now / count))
    on_today = len(today) == len(topics)
    sizes = np.array([group.members], dtype=np.int64)
    names = [t.topic for t in topics]
    busiest = float(member_loads(today if on_today else now, sizes, current, topics=names).max())
    return busiest, on_today
