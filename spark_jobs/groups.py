"""Planning a consumer group that reads several topics, as one group.

`plan_topic` plans the groups that read one topic. A group subscribed to several
topics shares its members between them: with `range` each topic is cut separately (the
first members get the extra partition of every topic), with `roundrobin` and a fresh
`sticky` assignment all partitions are dealt together. So such a group is simulated as
one group, on its topics' partitions at their recommended counts, and sized the way
`plan_topic` sizes a one-topic group:

- loads are in consumers: each partition's share of its topic times the topic's
  `max(rate_d / Tc_d)`, each topic against its own Tc; a member's load is the sum over
  the partitions it owns, 1.0 being one consumer's whole time;
- a member has headroom when its load stays within `1 - h / (100 + h)` of a consumer
  (`planner.recommend.plan.member_headroom_pct`, h = the planning headroom);
- `members_now` is the smallest group of at least `min_group_members` whose busiest
  member fits at today's peak, for the strategy that needs the fewest members, then the
  one revoking the fewest partitions when a member joins, then the lower busiest load,
  then the strategy name (`planner.recommend.plan.strategy_choice_key`, the rule a
  one-topic group follows); `members_at_horizon` the same strategy's need at the end of
  the horizon. Members beyond what a strategy gives work to (all the partitions; for
  `range`, its largest topic's) own nothing: the floor alone may ask for them, as
  standbys (`standby_members`), as on a one-topic group with fewer partitions;
- the group is `under-provisioned` below `members_now`, `over-provisioned` with idle
  members beyond those standbys or above `members_at_horizon`, else `ok`, and the
  recommended size follows;
- a group whose busiest member, with its current size and strategy, needs more than one
  consumer's whole capacity at today's peak is falling behind now: its notes and its
  topics' warnings say so (`planner.recommend.plan.falling_behind_note`). The load is
  on today's partition counts when they are known (a topic keeping its count, or a
  keyless one, spread evenly); a keyed topic whose count changes has loads at its
  recommended count only, and the note then says it was read there.

Every member is assumed to subscribe to every topic of the group (the `groups` table
records subscriptions per group, not per member). With identical subscriptions and no
previous owner, `planner.simulate.simulate_group` computes a fresh assignment from the
core's closed forms: `range` cuts each topic on its own, the others deal all partitions
(topics in Java order, then partitions) to the members in turn. The search over group
sizes uses the same closed forms (`planner.simulate.closed_forms`), vectorised over
every size at once, so a group of thousands of partitions costs milliseconds, not one
`simulate_group` call per size; a test checks every row against `simulate_group`.
The churn at each strategy's `members_now` (a member joining, the last one leaving)
comes from the same closed forms as the one-topic grid's (`group_churn`): `range` moves
what each topic's own cut moves, the others move what one topic of all the group's
partitions would; a test checks them against `simulate_group` run with the previous
assignment, through the real assignors. Pure: NumPy and `planner`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.assignors import java_order_key
from planner.recommend import creation
from planner.recommend.plan import (
    ChoiceKey,
    PlanSettings,
    falling_behind_note,
    floor_note,
    member_headroom_pct,
    pct_apart,
    strategy_choice_key,
    strategy_switch_note,
)
from planner.simulate import STRATEGIES, imbalance
from planner.simulate import closed_forms as cf
from planner.simulate.grid import EAGER_STRATEGIES
from spark_jobs.planning import PLANNED_STATUSES

__all__ = ["GroupOfTopics", "GroupTopic", "plan_group_of_topics", "size_rows"]

# Loads summed in floating point land a hair above an exact fit; the core uses the same.
_FIT_TOLERANCE = 1e-9
# Group sizes evaluated per step of the search (a sizes x partitions matrix each).
_CHUNK = 256

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class GroupTopic:
    """One topic of a multi-topic group, as its `sizing` row left it.

    Attributes:
        topic: The topic.
        status: Its sizing status (None when the run does not know the topic).
        current_partitions: Partitions today.
        partitions: The recommended partition count (None when not planned).
        consumers_now: Its load today in consumers (`max(rate_d / Tc_d)`).
        consumers_at_horizon: The same at the end of the horizon.
        loads: Each partition's load at the end of the horizon, in consumers, at the
            recommended count (a keyed topic's, from its key sample); None for an even
            spread.
    """

    topic: str
    status: str | None
    current_partitions: int | None
    partitions: int | None
    consumers_now: float | None
    consumers_at_horizon: float | None
    loads: FloatArray | None = None


@dataclass(frozen=True)
class GroupOfTopics:
    """The plan of a multi-topic group.

    Attributes:
        plan: A `GROUP_PLAN` row (see `spark_jobs.schemas`).
        grid: `SIMULATIONS` rows (scope `group`, without `run`) for every strategy and
            every size from 1 until the busiest member fits both today and at the end
            of the horizon (and at least the current size; `range` at most up to its
            largest topic's partition count), at the recommended
            partition counts, loads at the end of the horizon; churn only on each
            strategy's `members_now` row.
        warnings: Plain-language warnings for every topic of the group.
    """

    plan: dict[str, Any]
    grid: list[dict[str, Any]]
    warnings: list[str]


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


def _member_loads(
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
    loads = _member_loads(weights, sizes, strategy, cuts)
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


def _unplanned(
    group_id: str, topics: list[str], strategy: str, members: int, why: str
) -> GroupOfTopics:
    plan = {
        "group_id": group_id,
        "topics": topics,
        "current_strategy": strategy,
        "strategy": None,
        "current_members": members,
        "recommended_members": None,
        "members_now": None,
        "members_at_horizon": None,
        "busiest_utilisation": None,
        "idle_members_now": None,
        "standby_members": None,
        "fits": None,
        "status": "unplanned",
        "notes": [why],
    }
    return GroupOfTopics(plan, [], [])


@dataclass
class _Search:
    """One strategy's sizes 1..n: busiest member today and at the horizon, and stats."""

    strategy: str
    stats: dict[str, npt.NDArray[Any]]
    busiest_now: FloatArray
    now_fit: int | None
    horizon_fit: int | None


def _search(
    horizon: Sequence[FloatArray],
    now: Sequence[FloatArray],
    strategy: str,
    limit: float,
    wanted: int,
    floor: int,
) -> _Search:
    # Sizes in chunks from 1 until both today and the horizon fit and the current size
    # (`wanted`) is covered; no group of more members than partitions needs simulating,
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
        today = np.maximum.reduceat(
            _member_loads(now, sizes, strategy, cuts), np.cumsum(sizes) - sizes
        )
        chunks.append(stats)
        busiest.append(today)
        if now_fit is None and (fits := np.flatnonzero(today <= limit)).size:
            now_fit = int(sizes[fits[0]])
        if horizon_fit is None and (fits := np.flatnonzero(stats["max_load"] <= limit)).size:
            horizon_fit = int(sizes[fits[0]])
        last = int(sizes[-1])
        if now_fit is not None and horizon_fit is not None and last >= wanted:
            stop = max(now_fit, horizon_fit, wanted)
            break
        first = last + 1
    else:
        stop = most
    merged = {k: np.concatenate([c[k] for c in chunks])[:stop] for k in chunks[0]}
    return _Search(strategy, merged, np.concatenate(busiest)[:stop], now_fit, horizon_fit)


def plan_group_of_topics(
    group_id: str,
    strategy: str,
    members: int,
    topics: Sequence[GroupTopic],
    *,
    headroom_pct: float,
    min_group_members: int = PlanSettings.min_group_members,
) -> GroupOfTopics:
    """Plan one group that reads several topics (see the module docstring).

    Args:
        group_id: The group.
        strategy: Its assignment strategy today.
        members: Its members today.
        topics: Its topics, as sized.
        headroom_pct: The planning headroom (%), as in `PlanSettings.headroom_pct`.
        min_group_members: The fewest members to plan, as in
            `PlanSettings.min_group_members`.

    Returns:
        The plan (status `unplanned`, with the reason, when one of its topics has no
        plan), its simulation rows, and warnings for its topics.
    """
    names = sorted((t.topic for t in topics), key=java_order_key)
    blocked = [t for t in topics if t.status not in PLANNED_STATUSES]
    if blocked:
        reasons = ", ".join(
            f"{t.topic} ({t.status or 'not in the run'})"
            for t in sorted(blocked, key=lambda t: t.topic)
        )
        return _unplanned(
            group_id,
            names,
            strategy,
            members,
            f"not planned: the group also reads topics without a plan: {reasons}",
        )
    by_name = {t.topic: t for t in topics}
    horizon: dict[str, FloatArray] = {}
    now: dict[str, FloatArray] = {}
    for name in names:
        t = by_name[name]
        assert t.partitions is not None and t.consumers_at_horizon is not None
        weights = (
            np.asarray(t.loads, dtype=np.float64)
            if t.loads is not None
            else np.full(t.partitions, t.consumers_at_horizon / t.partitions)
        )
        if weights.size != t.partitions:
            raise ValueError(
                f"group {group_id!r}: topic {name!r} has {weights.size} partition loads "
                f"for {t.partitions} partitions"
            )
        # Loads scale linearly with the topic; each topic by its own growth.
        ratio = (t.consumers_now or 0.0) / t.consumers_at_horizon if t.consumers_at_horizon else 0.0
        horizon[name], now[name] = weights, weights * ratio
    total = sum(w.size for w in horizon.values())
    is_current = all(t.current_partitions == t.partitions for t in topics)
    keep_free = member_headroom_pct(headroom_pct)
    limit_plain = 1.0 - keep_free / 100.0
    limit = limit_plain * (1.0 + _FIT_TOLERANCE)
    floor = min_group_members
    wanted = max(min(members, total), floor)
    # A fresh roundrobin, sticky or cooperative-sticky assignment deals the partitions
    # alike (`size_rows`), so their searches are one search.
    dealt = _search(
        [horizon[n] for n in names], [now[n] for n in names], "roundrobin", limit, wanted, floor
    )
    searches = {
        name: _search(
            [horizon[n] for n in names], [now[n] for n in names], name, limit, wanted, floor
        )
        if name == "range"
        else replace(dealt, strategy=name)
        for name in STRATEGIES
    }

    partitions = [horizon[n].size for n in names]

    moves: dict[str, dict[str, int]] = {}
    keys: dict[str, ChoiceKey] = {}
    for name, found in searches.items():
        if found.now_fit is None:
            continue
        count = max(found.now_fit, floor)
        # The churn at the strategy's own `members_now` (the floor included), on that row.
        moves[name] = {**group_churn(partitions, count, name), "members": count}
        keys[name] = strategy_choice_key(
            count, moves[name]["grow_revoked"], _busiest_at(found, count), name
        )
    # The same rule as a one-topic group's (`planner.recommend.plan.strategy_choice_key`).
    best = min(keys.values(), default=None)

    notes: list[str] = []
    if best is None:
        chosen = "cooperative-sticky"
        members_now = max(total, floor)
        busiest = _busiest_at(searches[chosen], total)
        needs, against = pct_apart(busiest, limit_plain)
        notes.append(
            f"even {total} members (one per partition of its {len(names)} topics) cannot "
            f"keep up: the busiest member needs {needs} of one consumer's capacity against "
            f"a limit of {against}"
        )
        if members_now > total:
            notes.append(
                f"{members_now} planned so that a member can take over while another "
                f"restarts (min_group_members = {floor}); its topics have {total} "
                f"partitions, so {members_now - total} of them stand"
                f"{'s' if members_now - total == 1 else ''} by"
            )
        # The strategies compared at one member per partition (or the floor, when it
        # asks for more), for the switch note.
        for name, found in searches.items():
            if found.busiest_now.size >= members_now:
                revoked = group_churn(partitions, members_now, name)["grow_revoked"]
                keys[name] = strategy_choice_key(
                    members_now, revoked, _busiest_at(found, members_now), name
                )
        best_shown = keys.get(chosen, (members_now, total, busiest, chosen))
    else:
        best_shown = best
        members_now, _, busiest, chosen = best
        by_load = searches[chosen].now_fit
        if by_load is not None and by_load < members_now:
            standby = max(0, members_now - _owners(partitions, chosen))
            notes.append(
                floor_note(
                    by_load,
                    members_now,
                    min_group_members,
                    standby,
                    _owners_clause(partitions, chosen),
                )
            )
    horizon_fit = searches[chosen].horizon_fit
    members_horizon = max(horizon_fit, floor) if horizon_fit is not None else max(total, floor)
    standby_allowed = max(0, floor - _owners(partitions, chosen))
    idle_now = (
        int(size_rows([horizon[n] for n in names], np.array([members]), chosen)["idle_members"][0])
        if members >= 1
        else 0
    )

    status = "ok"
    creating = all(creation.is_creation(t.current_partitions) for t in topics)
    if creation.is_deployment(current_members=members, creating=creating):
        status = creation.DEPLOY
        notes.append(
            creation.deploy_note(
                members=members_now, headroom_pct=headroom_pct, busiest_limit=limit_plain
            )
        )
    elif members < members_now:
        status = "under-provisioned"
        notes.append(
            f"{members} member{'' if members == 1 else 's'} today, {members_now} needed for "
            f"today's peak of its {len(names)} topics with {headroom_pct:g} % headroom"
        )
    elif idle_now > standby_allowed or members > members_horizon:
        status = "over-provisioned"
        notes.append(
            f"{idle_now} of {members} members would own no partition of its topics"
            + (
                f" ({standby_allowed} kept as a standby: min_group_members = {floor})"
                if standby_allowed
                else ""
            )
            if idle_now > standby_allowed
            else f"{members} members is more than the {members_horizon} needed even at the "
            f"end of the horizon"
        )
    if chosen != strategy:
        notes.append(strategy_switch_note(strategy, best_shown, keys.get(strategy)))
    recommended = {
        "ok": members,
        "under-provisioned": members_now,
        "over-provisioned": members_horizon,
        creation.DEPLOY: members_now,
    }[status]
    warnings = []
    behind = _falling_behind(
        group_id,
        strategy,
        members,
        [by_name[n] for n in names],
        now=[now[n] for n in names],
        members_now=members_now,
        fits=best is not None,
        chosen=chosen if strategy not in keys or keys[strategy][0] > members_now else None,
    )
    if behind:
        notes.append(behind)
        warnings.append(behind)
    idle = _idle_warning(
        group_id, strategy, members, [by_name[n] for n in names], idle_now, standby_allowed, floor
    )
    if idle:
        warnings.append(idle)
    plan = {
        "group_id": group_id,
        "topics": names,
        "current_strategy": strategy,
        "strategy": chosen,
        "current_members": members,
        "recommended_members": recommended,
        "members_now": members_now,
        "members_at_horizon": members_horizon,
        "busiest_utilisation": busiest if math.isfinite(busiest) else None,
        "idle_members_now": idle_now,
        "fits": best is not None,
        "status": status,
        "notes": notes,
        "standby_members": max(0, recommended - _owners(partitions, chosen)),
    }
    return GroupOfTopics(
        plan,
        _grid(group_id, names, searches, moves, horizon, total, is_current, limit_plain),
        warnings,
    )


def _today_loads(topics: Sequence[GroupTopic]) -> list[FloatArray] | None:
    # Each topic's partition loads today, on today's partition count, in consumers: a
    # topic keeping its count has its planned loads scaled to today; a keyless one that
    # changes is spread evenly, as planned. A keyed one that changes has loads at its
    # recommended count only, so today's are not known (None).
    out = []
    for t in topics:
        count = t.current_partitions
        if count is None or count < 1:
            return None
        now_total = t.consumers_now or 0.0
        if count == t.partitions:
            if t.loads is None:
                out.append(np.full(count, now_total / count))
                continue
            horizon_total = t.consumers_at_horizon or 0.0
            ratio = now_total / horizon_total if horizon_total else 0.0
            out.append(np.asarray(t.loads, dtype=np.float64) * ratio)
        elif t.loads is None:
            out.append(np.full(count, now_total / count))
        else:
            return None
    return out


def _owners(counts: Sequence[int], strategy: str) -> int:
    # The most members that own a partition: range cuts each topic on its own.
    return max(counts) if strategy == "range" else int(sum(counts))


def _owners_clause(counts: Sequence[int], strategy: str) -> str:
    # Why members beyond `_owners` own nothing, in words.
    if strategy == "range" and len(counts) > 1:
        return (
            f"range gives work to at most {max(counts)} member{'' if max(counts) == 1 else 's'} "
            f"(its largest topic's partitions)"
        )
    return f"its topics have {sum(counts)} partitions"


def _busiest_at(found: _Search, members: int) -> float:
    # The busiest member today at a group size the search covered.
    return float(found.busiest_now[members - 1])


def _falling_behind(
    group_id: str,
    strategy: str,
    members: int,
    topics: Sequence[GroupTopic],
    *,
    now: Sequence[FloatArray],
    members_now: int,
    fits: bool,
    chosen: str | None,
) -> str | None:
    # The group's busiest member at today's peak with its current size and strategy,
    # above one consumer's whole capacity: it lags now (see `plan.falling_behind_note`).
    if members < 1 or strategy not in STRATEGIES:
        return None
    planned = [t.partitions or 0 for t in topics]
    current = [t.current_partitions or 0 for t in topics]
    changes = current != planned
    today = _today_loads(topics)
    loads = today if today is not None else list(now)
    busiest = float(_member_loads(loads, np.array([members], dtype=np.int64), strategy).max())
    if busiest <= 1.0 + _FIT_TOLERANCE:
        return None
    if not changes:
        counted_on = ""
    elif today is not None:
        counted_on = f" on today's {sum(current)} partitions of its topics"
    else:
        counted_on = (
            f" (read at the recommended counts, {sum(planned)} partitions: its topics' loads "
            f"at today's counts are not at hand)"
        )
    return falling_behind_note(
        group_id,
        busiest,
        members,
        counted_on=counted_on,
        members_needed=members_now,
        fits=fits,
        more_members_help=members < _owners(current if today is not None else planned, strategy),
        recommended=f"its topics' recommended {sum(planned)} partitions" if changes else None,
        strategy=chosen,
    )


def _idle_warning(
    group_id: str,
    strategy: str,
    members: int,
    topics: Sequence[GroupTopic],
    idle_planned: int,
    standby_planned: int,
    floor: int,
) -> str | None:
    # Members owning no partition, today and at the recommended counts, said apart when
    # the counts change (`idle_planned` is at the recommended counts). Standbys the
    # minimum group size asks for (`standby_planned` at the recommended counts) are
    # planned, not warned about.
    names = ", ".join(t.topic for t in topics)
    planned = [t.partitions or 0 for t in topics]
    current = [t.current_partitions for t in topics]
    known = [c for c in current if c is not None]
    if len(known) < len(current) or known == planned:
        if idle_planned <= standby_planned:
            return None
        return (
            f"group {group_id!r} reads {names} with {members} members for {sum(planned)} "
            f"partitions in all: {idle_planned} sit idle"
            + (
                f"; min_group_members = {floor} asks for {standby_planned} standby"
                f"{'' if standby_planned == 1 else 's'}"
                if standby_planned
                else ""
            )
        )
    idle_today = max(0, members - _owners(known, strategy))
    if idle_today <= max(0, floor - _owners(known, strategy)):
        return None
    today = (
        f"group {group_id!r} reads {names}: of its {members} members, {idle_today} "
        f"own{'s' if idle_today == 1 else ''} no "
        f"partition today ({sum(known)} partitions in all)"
    )
    if idle_planned:
        return f"{today} and {idle_planned} will after the increases to {sum(planned)} partitions"
    return (
        f"{today}; after the increases to {sum(planned)} partitions every member owns at least one"
    )


def _grid(
    group_id: str,
    names: list[str],
    searches: dict[str, _Search],
    moves: dict[str, dict[str, int]],
    horizon: dict[str, FloatArray],
    total: int,
    is_current: bool,
    limit: float,
) -> list[dict[str, Any]]:
    topic_load = float(sum(float(w.sum()) for w in horizon.values()))
    hottest = max(float(w.max()) for w in horizon.values())
    rows: list[dict[str, Any]] = []
    for name in STRATEGIES:
        found = searches[name]
        stats = found.stats
        sizes = np.arange(1, stats["max_load"].size + 1)
        mean = topic_load / sizes
        ratio = imbalance(stats["max_load"], mean)
        for i, count in enumerate(sizes.tolist()):
            row = {
                "group_id": group_id,
                "topics": names,
                "scope": "group",
                "topic": None,
                "partitions": total,
                "members": count,
                "strategy": name,
                "is_recommended_partitions": True,
                "is_current_partitions": is_current,
                "max_member_partitions": int(stats["max_member_partitions"][i]),
                "min_member_partitions": int(stats["min_member_partitions"][i]),
                "max_load": float(stats["max_load"][i]),
                "min_load": float(stats["min_load"][i]),
                "mean_load": float(mean[i]),
                "imbalance": float(ratio[i]),
                "idle_members": int(stats["idle_members"][i]),
                "load_limit": limit,
                "within_capacity": bool(stats["max_load"][i] <= limit * (1 + _FIT_TOLERANCE)),
                "max_partition_load": hottest,
                "hot_partition": hottest > 1.0,
                "grow_moved": None,
                "grow_revoked": None,
                "shrink_moved": None,
                "shrink_revoked": None,
            }
            if name in moves and count == moves[name]["members"]:
                row.update({k: v for k, v in moves[name].items() if k != "members"})
            rows.append(row)
    return rows
