"""Sizing a consumer group: one decision for a group reading one topic or several.

`size_group` decides from a `planner.simulate.GroupTable`, the candidate sizes of each
strategy with the busiest member's load today and at the end of the horizon:

- loads are in consumers: each partition's share of its topic times the topic's
  `max(rate_d / Tc_d)`, each topic against its own Tc; a member's load is the sum over
  the partitions it owns, 1.0 being one consumer's whole time;
- a member has headroom when its load stays within `1 - h / (100 + h)` of a consumer
  (`planner.fit.member_headroom_pct`, h = the planning headroom);
- `members_now` is the smallest group of at least `min_group_members` whose busiest
  member fits at today's peak, for the strategy that needs the fewest members, then the
  one revoking the fewest partitions when a member joins, then the lower busiest load,
  then the group's own strategy, then the strategy name (`strategy_choice_key`);
  `members_at_horizon` the same strategy's need at the end of the horizon. Members
  beyond what a strategy gives work to (all the partitions; for `range`, its largest
  topic's) own nothing: the floor alone may ask for them, as standbys
  (`standby_members`);
- the group is `under-provisioned` below what today's load needs, `no-standby` when it
  has that but fewer than `min_group_members` (the floor asks for more, not the load),
  `over-provisioned` with idle members beyond those standbys or above
  `members_at_horizon`, else `ok`, and the recommended size follows;
- a group whose busiest member, with its current size and strategy, needs more than one
  consumer's whole capacity at today's peak is falling behind now: its notes and its
  topics' warnings say so.

`plan_group` builds the table of a one-topic group from the one-topic grid;
`plan_group_of_topics` that of a multi-topic group from the multi-topic grid
(`planner.simulate.multi_topic`). Neither decides anything itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from planner import fit
from planner.assignors import java_order_key
from planner.notes import Note, note
from planner.protocols import (
    DEFAULT_PROTOCOL,
    assignor_of,
    candidate_strategies,
    is_streams,
    planned_strategy,
)
from planner.recommend import creation
from planner.recommend.alternatives import (
    CONSUMER_PROTOCOL_COUNTERPART,
    consumer_protocol_alternative,
)
from planner.recommend.types import ChoiceKey, GroupInfo, GroupPlan, GroupStatus, PlanSettings
from planner.simulate import ALL_STRATEGIES, EAGER_STRATEGIES, STRATEGIES, GridResult
from planner.simulate.group_table import (
    GroupTable,
    StrategySizes,
    one_topic_table,
)
from planner.simulate.multi_topic import (
    SHARE_GROUP_MAX_SIZE,
    SizeSearch,
    group_churn,
    member_loads,
    search_sizes,
)
from planner.simulate.strategies import shape_of

__all__ = [
    "GroupTopic",
    "busiest_member_load",
    "grid_extra_members",
    "grid_parameters",
    "plan_group",
    "plan_group_of_topics",
    "planning_strategies",
    "size_group",
    "strategies_to_simulate",
    "strategy_choice_key",
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


def strategy_choice_key(
    *, members: int, revoked: int, busiest_utilisation: float, strategy: str
) -> ChoiceKey:
    """How strategies that fit are ranked for a group; the smallest key is recommended.

    Fewest members first. Among strategies that fit at that size, the one that revokes
    the fewest partitions when a member joins: every candidate keeps its busiest member
    within the headroom limit by construction, so a lower load below that limit buys
    nothing, while every revoked partition stops being consumed until the rebalance
    ends (eager strategies revoke them all; `cooperative-sticky` only those that move).
    Then the lower busiest-member load, then the name, so the order is total.

    Args:
        members: The smallest group size of at least the floor that fits today's peak.
        revoked: Partitions revoked when a member joins a group of that size.
        busiest_utilisation: The busiest member's load at that size, in consumers
            (1.0 = Tc).
        strategy: The strategy (Kafka's name).
    """
    return (members, revoked, round(busiest_utilisation, 9), strategy)


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


def _key(table: GroupTable, strategy: str, members: int, busiest: float) -> ChoiceKey:
    return strategy_choice_key(
        members=members,
        revoked=table.revoked_on_join(strategy, members),
        busiest_utilisation=busiest,
        strategy=strategy,
    )


def planning_strategies(group: GroupInfo, topics: int) -> tuple[str, tuple[str, ...]]:
    """The strategy key a group runs today and the keys it may be planned with.

    `planner.protocols.planned_strategy` and `candidate_strategies`, for a group reading
    `topics` topics. A classic group with an assignor the planner does not know (a
    custom one) is planned among the classic strategies, its own not simulated.

    Raises:
        ValueError: A group of another protocol with an assignor not of that protocol.
    """
    try:
        return (
            planned_strategy(group.protocol, group.strategy, topics=topics),
            candidate_strategies(group.protocol, group.strategy, topics=topics),
        )
    except ValueError:
        if (group.protocol or DEFAULT_PROTOCOL) != DEFAULT_PROTOCOL:
            raise
        return group.strategy, STRATEGIES


def _fallback(candidates: Sequence[str]) -> str:
    # The strategy planned when no size fits: the one that moves least when a member
    # joins (cooperative-sticky among the classic, uniform among the broker's).
    for preferred in ("cooperative-sticky", "consumer:uniform"):
        if preferred in candidates:
            return preferred
    return candidates[0]


def size_group(
    group: GroupInfo, table: GroupTable, *, headroom_pct: float, min_group_members: int
) -> GroupPlan:
    """The plan of one consumer group, from its table of candidate sizes.

    The group is planned among the assignors of its own protocol
    (`planning_strategies`); the table holds their sizes, keyed by strategy key.

    Args:
        group: The group as it is today.
        table: Its candidate sizes per strategy (see the module docstring).
        headroom_pct: The planning headroom (%), as in `PlanSettings.headroom_pct`.
        min_group_members: The fewest members to plan, as in
            `PlanSettings.min_group_members`.
    """
    limit = fit.member_load_limit(headroom_pct)
    floor = min_group_members
    total = table.total_partitions
    current, candidates = planning_strategies(group, len(table.topics))
    subject: dict[str, Any] = {"group_id": group.group_id, "topics": list(table.topics)}
    counts = list(table.partitions)
    keys: dict[str, ChoiceKey] = {}
    for strategy in candidates:
        sizes = table.sizes[strategy]
        smallest = sizes.smallest_fit(limit, floor=floor)
        if smallest is not None:
            busiest_fit = sizes.busiest_now_at(smallest)
            assert busiest_fit is not None
            keys[strategy] = _key(table, strategy, smallest, busiest_fit)
    notes: list[Note] = []
    floor_note: Note | None = None
    best = min(keys.values(), default=None)
    if best is not None and current in keys and keys[current][:3] == best[:3]:
        # The group's own strategy is as good (size, revocations, load): a switch would
        # be a change for nothing, whatever the names' order.
        best = keys[current]

    def name(key: str) -> str:
        # A key as the group's protocol names its assignor.
        return assignor_of(group.protocol, group.strategy, key)

    if best is None:
        # Even the most members the strategy gives partitions to are too slow: one
        # partition per member (range-shaped: partition i of every topic, so its
        # largest topic's count), and the busiest is still too hot.
        strategy = _fallback(candidates)
        useful = min(total, table.owners(strategy))
        members_now = max(useful, floor)
        sizes = table.sizes[strategy]
        at_most = sizes.busiest_now_at(useful)
        # A table holds every size up to the most useful one when none fits; its last
        # size stands in otherwise, so the note always has a number.
        busiest = at_most if at_most is not None else float(sizes.busiest_now[-1])
        # The number of members is said only where it is not one per partition.
        fewer = {} if useful == total else {"members": useful, "strategy": name(strategy)}
        notes.append(
            note(
                "no-size-fits",
                **subject,
                partitions=counts,
                busiest_utilisation=busiest,
                limit=limit,
                **fewer,
            )
        )
        if members_now > total:
            notes.append(
                note(
                    "standby-floor",
                    **subject,
                    partitions=counts,
                    members=members_now,
                    standby_members=members_now - total,
                    min_group_members=floor,
                )
            )
        # The strategies compared at one member per partition (or the floor, when it
        # asks for more), for the switch note.
        for candidate in candidates:
            load = table.sizes[candidate].busiest_now_at(members_now)
            if load is not None:
                keys[candidate] = _key(table, candidate, members_now, load)
        chosen = keys.get(strategy, (members_now, total, busiest, strategy))
    else:
        chosen = best
        members_now, _, busiest, strategy = chosen
        by_load = table.sizes[strategy].smallest_fit(limit)
        if by_load is not None and by_load < members_now:
            # The floor, not the load, sets the size. For a running group that keeps up
            # but is below the floor, that is its finding (`no-standby`, said with the
            # status below); otherwise a note on the size.
            floor_only = by_load <= group.members < members_now
            floor_note = note(
                "no-standby" if floor_only else "min-group-size",
                **subject,
                partitions=counts,
                strategy=name(strategy),
                members_by_load=by_load,
                members=members_now,
                min_group_members=floor,
                standby_members=max(0, members_now - table.owners(strategy)),
                **({"current_members": group.members} if floor_only else {}),
            )
            if not floor_only:
                notes.append(floor_note)
    owners = table.owners(strategy)
    horizon = table.sizes[strategy].smallest_fit(limit, floor=floor, at_horizon=True)
    members_horizon = horizon if horizon is not None else max(min(total, owners), floor)
    standby_allowed = max(0, floor - owners)
    idle_now = max(0, group.members - owners)

    status: GroupStatus = "ok"
    # A group reading only topics that do not exist yet, with no member yet: deployed.
    creating = all(creation.is_creation(p) for p in table.partitions_today)
    if creation.is_deployment(current_members=group.members, creating=creating):
        status = "deploy"
        notes.append(
            note(
                "deploy", **subject, members_now=members_now, headroom_pct=headroom_pct, limit=limit
            )
        )
    elif floor_note is not None and floor_note.code == "no-standby":
        status = "no-standby"
        notes.append(floor_note)
    elif group.members < members_now:
        status = "under-provisioned"
        notes.append(
            note(
                "under-provisioned",
                **subject,
                current_members=group.members,
                members_now=members_now,
                headroom_pct=headroom_pct,
                limit=limit,
            )
        )
    elif idle_now > standby_allowed:
        status = "over-provisioned"
        notes.append(
            note(
                "idle-members-planned",
                **subject,
                partitions=counts,
                idle_members=idle_now,
                current_members=group.members,
                standby_members=standby_allowed,
                min_group_members=floor,
            )
        )
    elif group.members > members_horizon:
        status = "over-provisioned"
        notes.append(
            note(
                "above-horizon-need",
                **subject,
                current_members=group.members,
                members_at_horizon=members_horizon,
            )
        )
    if strategy != current:
        current_key = keys.get(current)
        # A classic group's note as it always read; another protocol's names it.
        protocol = {} if group.protocol == DEFAULT_PROTOCOL else {"protocol": group.protocol}
        notes.append(
            note(
                "strategy-switch",
                **subject,
                current_strategy=group.strategy,
                strategy=name(strategy),
                members=chosen[0],
                revoked=chosen[1],
                busiest_utilisation=chosen[2],
                current_key=list(current_key) if current_key else None,
                current_simulated=current in table.sizes,
                two_bounces=strategy == "cooperative-sticky" and current in EAGER_STRATEGIES,
                **protocol,
            )
        )
    behind = _falling_behind(
        group,
        table,
        subject,
        members_now=members_now,
        fits=best is not None,
        strategy=strategy,
        current=current,
        shown=name(strategy),
        keys=keys,
    )
    warnings: list[Note] = []
    if behind is not None:
        notes.append(behind)
        warnings.append(behind)
    idle = _idle_warning(
        group,
        table,
        subject,
        current=current,
        idle_now=idle_now,
        standby=standby_allowed,
        floor=floor,
    )
    if idle is not None:
        warnings.append(idle)
    recommended = {
        "ok": group.members,
        "under-provisioned": members_now,
        "no-standby": members_now,
        "over-provisioned": members_horizon,
        "deploy": members_now,
    }[status]
    alternative = _protocol_alternative(group, table, strategy, recommended, limit)
    if alternative is not None:
        notes.append(alternative)
    return GroupPlan(
        group_id=group.group_id,
        current_members=group.members,
        current_strategy=group.strategy,
        recommended_members=recommended,
        members_now=members_now,
        members_at_horizon=members_horizon,
        strategy=name(strategy),
        busiest_utilisation=busiest,
        fits=best is not None,
        status=status,
        idle_members_now=idle_now,
        notes=tuple(notes),
        busiest_utilisation_current=table.busiest_today,
        falling_behind=behind,
        standby_members=max(0, recommended - owners),
        topics=table.topics,
        warnings=tuple(warnings),
        protocol=group.protocol or DEFAULT_PROTOCOL,
        planned_as=strategy,
    )


def _protocol_alternative(
    group: GroupInfo, table: GroupTable, strategy: str, members: int, limit: float
) -> Note | None:
    # A running classic group (Kafka Streams aside: its move is to KIP-1071, not to the
    # consumer protocol) and what the consumer protocol would change for it.
    if group.members < 1 or (group.protocol or DEFAULT_PROTOCOL) != DEFAULT_PROTOCOL:
        return None
    if is_streams(group.protocol, group.strategy):
        return None
    counterpart = CONSUMER_PROTOCOL_COUNTERPART.get(strategy)
    if counterpart is None:
        return None
    sizes = table.strategy_sizes(counterpart)
    return consumer_protocol_alternative(
        table.partitions,
        strategy=strategy,
        members=members,
        members_needed=sizes.smallest_fit(limit) if sizes is not None else None,
        group_id=group.group_id,
        current_strategy=group.strategy,
    )


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


def _falling_behind(
    group: GroupInfo,
    table: GroupTable,
    subject: dict[str, Any],
    *,
    members_now: int,
    fits: bool,
    strategy: str,
    current: str,
    shown: str,
    keys: dict[str, ChoiceKey],
) -> Note | None:
    # Where the group's offsets were observed, its lag's trend says whether it falls
    # behind: a Tc (the topic's, or a learned one) only infers it, and a group seen
    # keeping up is keeping up whatever the Tc says. Only a group never observed is
    # judged by its busiest member at today's peak with its current size and strategy.
    busiest = table.busiest_today
    observed = group.lag_trend is not None
    if observed and group.lag_trend != "growing":
        return None
    # Above one consumer's whole capacity (1.0), a member falls further behind every second.
    if not observed and (busiest is None or fit.fits(busiest, 1.0)):
        return None
    today_known = table.on_today or len(table.topics) == 1
    lag = {"lag_records": group.lag_records, "lag_seconds": group.lag_seconds} if observed else {}
    return note(
        "falling-behind",
        **subject,
        **lag,
        lag_growing=observed,
        busiest_utilisation=busiest,
        members=group.members,
        members_needed=members_now,
        fits=fits,
        partitions_today=list(table.partitions_today),
        partitions_planned=list(table.partitions),
        on_today=table.on_today,
        # Whether a member added today would own a partition.
        more_members_help=group.members < table.owners(current, today=today_known),
        # Named only when the group's own strategy needs more members than that.
        strategy=shown if current not in keys or keys[current][0] > members_now else None,
    )


def _idle_warning(
    group: GroupInfo,
    table: GroupTable,
    subject: dict[str, Any],
    *,
    current: str,
    idle_now: int,
    standby: int,
    floor: int,
) -> Note | None:
    # Members owning no partition, today and at the planned counts, said apart when the
    # counts change (`idle_now` is at the planned counts). Standbys the minimum group
    # size asks for are planned, not warned about.
    today = table.partitions_today
    unchanged = any(c is None for c in today) or list(today) == list(table.partitions)
    params = {
        **subject,
        "current_members": group.members,
        "idle_members": idle_now,
        "standby_members": standby,
        "min_group_members": floor,
        "partitions_planned": list(table.partitions),
        "partitions_today": list(today),
    }
    if unchanged:
        if idle_now <= standby:
            return None
        return note("idle-members", **params, idle_members_today=None)
    owners_today = table.owners(current, today=True)
    idle_today = max(0, group.members - owners_today)
    if idle_today <= max(0, floor - owners_today):
        return None
    return note("idle-members", **params, idle_members_today=idle_today)


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
