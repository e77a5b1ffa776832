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
  topics' warnings say so (`planner.recommend.group.warnings`).

The tables themselves are built in `planner.recommend.group.tables`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from planner import fit
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
from planner.recommend.group.warnings import falling_behind, idle_warning
from planner.recommend.types import ChoiceKey, GroupInfo, GroupPlan, GroupStatus
from planner.simulate import EAGER_STRATEGIES, STRATEGIES
from planner.simulate.group_table import GroupTable

__all__ = ["planning_strategies", "size_group", "strategy_choice_key"]


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


@dataclass(frozen=True)
class _Sizing:
    """What every step of one group's decision reads: the group, its table, the limit."""

    group: GroupInfo
    table: GroupTable
    headroom_pct: float
    limit: float
    floor: int
    current: str
    candidates: Sequence[str]

    @property
    def subject(self) -> dict[str, Any]:
        return {"group_id": self.group.group_id, "topics": list(self.table.topics)}

    def name(self, key: str) -> str:
        # A key as the group's protocol names its assignor.
        return assignor_of(self.group.protocol, self.group.strategy, key)

    def key(self, strategy: str, members: int, busiest: float) -> ChoiceKey:
        return strategy_choice_key(
            members=members,
            revoked=self.table.revoked_on_join(strategy, members),
            busiest_utilisation=busiest,
            strategy=strategy,
        )


@dataclass(frozen=True)
class _Choice:
    """The strategy and size chosen, and the notes on how.

    Attributes:
        strategy: The strategy key planned.
        members_now: The members today's load (or the floor) needs.
        busiest: The busiest member's load at that size, in consumers.
        chosen: Its `strategy_choice_key`.
        keys: Each candidate's key, as the switch and falling-behind notes compare them.
        fits: Whether some size keeps the busiest member within the limit.
        notes: The notes on the size (no size fits, standbys for the floor, the floor).
        no_standby: The `no-standby` finding, said with the status, or None.
    """

    strategy: str
    members_now: int
    busiest: float
    chosen: ChoiceKey
    keys: dict[str, ChoiceKey]
    fits: bool
    notes: tuple[Note, ...] = ()
    no_standby: Note | None = None


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
    current, candidates = planning_strategies(group, len(table.topics))
    s = _Sizing(
        group=group,
        table=table,
        headroom_pct=headroom_pct,
        limit=fit.member_load_limit(headroom_pct),
        floor=min_group_members,
        current=current,
        candidates=candidates,
    )
    keys = _fitting_keys(s)
    best = _best(keys, current)
    choice = _when_none_fits(s) if best is None else _when_one_fits(s, best, keys)
    strategy = choice.strategy
    owners = table.owners(strategy)
    members_horizon = _members_at_horizon(s, strategy, owners)
    standby_allowed = max(0, s.floor - owners)
    idle_now = max(0, group.members - owners)
    status, status_note = _status(
        s, choice, members_horizon=members_horizon, idle_now=idle_now, standby=standby_allowed
    )
    behind, idle = _warnings(s, choice, idle_now=idle_now, standby=standby_allowed)
    recommended = {
        "ok": group.members,
        "under-provisioned": choice.members_now,
        "no-standby": choice.members_now,
        "over-provisioned": members_horizon,
        "deploy": choice.members_now,
    }[status]
    alternative = _protocol_alternative(group, table, strategy, recommended, s.limit)
    notes = _present(status_note, _switch_note(s, choice), behind, alternative)
    return GroupPlan(
        group_id=group.group_id,
        current_members=group.members,
        current_strategy=group.strategy,
        recommended_members=recommended,
        members_now=choice.members_now,
        members_at_horizon=members_horizon,
        strategy=s.name(strategy),
        busiest_utilisation=choice.busiest,
        fits=choice.fits,
        status=status,
        idle_members_now=idle_now,
        notes=(*choice.notes, *notes),
        busiest_utilisation_current=table.busiest_today,
        falling_behind=behind,
        standby_members=max(0, recommended - owners),
        topics=table.topics,
        warnings=tuple(_present(behind, idle)),
        protocol=group.protocol or DEFAULT_PROTOCOL,
        planned_as=strategy,
    )


def _present(*notes: Note | None) -> list[Note]:
    return [n for n in notes if n is not None]


def _fitting_keys(s: _Sizing) -> dict[str, ChoiceKey]:
    # Each candidate that fits at some size, keyed at its smallest such size.
    keys: dict[str, ChoiceKey] = {}
    for strategy in s.candidates:
        sizes = s.table.sizes[strategy]
        smallest = sizes.smallest_fit(s.limit, floor=s.floor)
        if smallest is not None:
            busiest_fit = sizes.busiest_now_at(smallest)
            assert busiest_fit is not None
            keys[strategy] = s.key(strategy, smallest, busiest_fit)
    return keys


def _members_at_horizon(s: _Sizing, strategy: str, owners: int) -> int:
    # The strategy's need at the end of the horizon; where no size fits then, as many
    # as it gives partitions to (or the floor).
    horizon = s.table.sizes[strategy].smallest_fit(s.limit, floor=s.floor, at_horizon=True)
    if horizon is not None:
        return horizon
    return max(min(s.table.total_partitions, owners), s.floor)


def _warnings(
    s: _Sizing, choice: _Choice, *, idle_now: int, standby: int
) -> tuple[Note | None, Note | None]:
    # Falling behind (also one of the group's notes) and idle members, for its topics.
    behind = falling_behind(
        s.group,
        s.table,
        s.subject,
        members_now=choice.members_now,
        fits=choice.fits,
        current=s.current,
        shown=s.name(choice.strategy),
        keys=choice.keys,
    )
    idle = idle_warning(
        s.group,
        s.table,
        s.subject,
        current=s.current,
        idle_now=idle_now,
        standby=standby,
        floor=s.floor,
    )
    return behind, idle


def _best(keys: dict[str, ChoiceKey], current: str) -> ChoiceKey | None:
    best = min(keys.values(), default=None)
    if best is not None and current in keys and keys[current][:3] == best[:3]:
        # The group's own strategy is as good (size, revocations, load): a switch would
        # be a change for nothing, whatever the names' order.
        return keys[current]
    return best


def _fallback(candidates: Sequence[str]) -> str:
    # The strategy planned when no size fits: the one that moves least when a member
    # joins (cooperative-sticky among the classic, uniform among the broker's).
    for preferred in ("cooperative-sticky", "consumer:uniform"):
        if preferred in candidates:
            return preferred
    return candidates[0]


def _when_none_fits(s: _Sizing) -> _Choice:
    # Even the most members the strategy gives partitions to are too slow: one
    # partition per member (range-shaped: partition i of every topic, so its
    # largest topic's count), and the busiest is still too hot.
    table, floor = s.table, s.floor
    total = table.total_partitions
    counts = list(table.partitions)
    strategy = _fallback(s.candidates)
    useful = min(total, table.owners(strategy))
    members_now = max(useful, floor)
    sizes = table.sizes[strategy]
    at_most = sizes.busiest_now_at(useful)
    # A table holds every size up to the most useful one when none fits; its last
    # size stands in otherwise, so the note always has a number.
    busiest = at_most if at_most is not None else float(sizes.busiest_now[-1])
    # The number of members is said only where it is not one per partition.
    fewer = {} if useful == total else {"members": useful, "strategy": s.name(strategy)}
    notes = [
        note(
            "no-size-fits",
            **s.subject,
            partitions=counts,
            busiest_utilisation=busiest,
            limit=s.limit,
            **fewer,
        )
    ]
    if members_now > total:
        notes.append(
            note(
                "standby-floor",
                **s.subject,
                partitions=counts,
                members=members_now,
                standby_members=members_now - total,
                min_group_members=floor,
            )
        )
    # The strategies compared at one member per partition (or the floor, when it
    # asks for more), for the switch note.
    keys: dict[str, ChoiceKey] = {}
    for candidate in s.candidates:
        load = table.sizes[candidate].busiest_now_at(members_now)
        if load is not None:
            keys[candidate] = s.key(candidate, members_now, load)
    chosen = keys.get(strategy, (members_now, total, busiest, strategy))
    return _Choice(strategy, members_now, busiest, chosen, keys, fits=False, notes=tuple(notes))


def _when_one_fits(s: _Sizing, best: ChoiceKey, keys: dict[str, ChoiceKey]) -> _Choice:
    members_now, _, busiest, strategy = best
    choice = _Choice(strategy, members_now, busiest, best, keys, fits=True)
    by_load = s.table.sizes[strategy].smallest_fit(s.limit)
    if by_load is None or by_load >= members_now:
        return choice
    # The floor, not the load, sets the size. For a running group that keeps up but is
    # below the floor, that is its finding (`no-standby`, said with the status);
    # otherwise a note on the size.
    group = s.group
    floor_only = by_load <= group.members < members_now
    floor_note = note(
        "no-standby" if floor_only else "min-group-size",
        **s.subject,
        partitions=list(s.table.partitions),
        strategy=s.name(strategy),
        members_by_load=by_load,
        members=members_now,
        min_group_members=s.floor,
        standby_members=max(0, members_now - s.table.owners(strategy)),
        **({"current_members": group.members} if floor_only else {}),
    )
    if floor_only:
        return _Choice(strategy, members_now, busiest, best, keys, True, no_standby=floor_note)
    return _Choice(strategy, members_now, busiest, best, keys, True, notes=(floor_note,))


def _status(
    s: _Sizing, choice: _Choice, *, members_horizon: int, idle_now: int, standby: int
) -> tuple[GroupStatus, Note | None]:
    # The group's status against what it needs, and the note that says it.
    group, members_now = s.group, choice.members_now
    # A group reading only topics that do not exist yet, with no member yet: deployed.
    creating = all(creation.is_creation(p) for p in s.table.partitions_today)
    if creation.is_deployment(current_members=group.members, creating=creating):
        return "deploy", note(
            "deploy",
            **s.subject,
            members_now=members_now,
            headroom_pct=s.headroom_pct,
            limit=s.limit,
        )
    if choice.no_standby is not None:
        return "no-standby", choice.no_standby
    if group.members < members_now:
        return "under-provisioned", note(
            "under-provisioned",
            **s.subject,
            current_members=group.members,
            members_now=members_now,
            headroom_pct=s.headroom_pct,
            limit=s.limit,
        )
    if idle_now > standby:
        return "over-provisioned", note(
            "idle-members-planned",
            **s.subject,
            partitions=list(s.table.partitions),
            idle_members=idle_now,
            current_members=group.members,
            standby_members=standby,
            min_group_members=s.floor,
        )
    if group.members > members_horizon:
        return "over-provisioned", note(
            "above-horizon-need",
            **s.subject,
            current_members=group.members,
            members_at_horizon=members_horizon,
        )
    return "ok", None


def _switch_note(s: _Sizing, choice: _Choice) -> Note | None:
    # Planned with another strategy than the group runs: what the switch buys.
    if choice.strategy == s.current:
        return None
    group = s.group
    current_key = choice.keys.get(s.current)
    # A classic group's note as it always read; another protocol's names it.
    protocol = {} if group.protocol == DEFAULT_PROTOCOL else {"protocol": group.protocol}
    return note(
        "strategy-switch",
        **s.subject,
        current_strategy=group.strategy,
        strategy=s.name(choice.strategy),
        members=choice.chosen[0],
        revoked=choice.chosen[1],
        busiest_utilisation=choice.chosen[2],
        current_key=list(current_key) if current_key else None,
        current_simulated=s.current in s.table.sizes,
        two_bounces=choice.strategy == "cooperative-sticky" and s.current in EAGER_STRATEGIES,
        **protocol,
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
