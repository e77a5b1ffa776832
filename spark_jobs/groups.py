"""Planning a consumer group that reads several topics, as one group.

`plan_topic` plans the groups that read one topic. A group subscribed to several
topics shares its members between them: with `range` each topic is cut separately (the
first members get the extra partition of every topic), with `roundrobin` and a fresh
`sticky` assignment all partitions are dealt together. So such a group is simulated as
one group, with `planner.simulate.simulate_group`, on its topics' partitions at their
recommended counts, and sized the way `plan_topic` sizes a one-topic group:

- loads are in consumers: each partition's share of its topic times the topic's
  `max(rate_d / Tc_d)`, each topic against its own Tc; a member's load is the sum over
  the partitions it owns, 1.0 being one consumer's whole time;
- a member has headroom when its load stays within `1 - h / (100 + h)` of a consumer
  (`planner.recommend.plan.member_headroom_pct`, h = the planning headroom);
- `members_now` is the smallest group whose busiest member fits at today's peak, for
  the strategy that needs the fewest members (then the lower busiest load, then fewer
  partitions revoked when a member joins, then the strategy name);
  `members_at_horizon` the same strategy's need at the end of the horizon;
- the group is `under-provisioned` below `members_now`, `over-provisioned` with idle
  members or above `members_at_horizon`, else `ok`, and the recommended size follows.

Every member is assumed to subscribe to every topic of the group (the `groups` table
records subscriptions per group, not per member). Pure: NumPy, PyArrow and `planner`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.recommend.plan import member_headroom_pct
from planner.simulate import STRATEGIES, TopicLoad, partition_loads, simulate_group
from planner.simulate.grid import EAGER_STRATEGIES
from spark_jobs.planning import PLANNED_STATUSES

__all__ = ["GroupOfTopics", "GroupTopic", "plan_group_of_topics"]

# Loads summed in floating point land a hair above an exact fit; the core uses the same.
_FIT_TOLERANCE = 1e-9


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
        partitioner: The producers' partitioner.
        keys: Its key sample (Arrow binary), keyed topics only.
        key_counts: Counts for the key sample.
    """

    topic: str
    status: str | None
    current_partitions: int | None
    partitions: int | None
    consumers_now: float | None
    consumers_at_horizon: float | None
    partitioner: str = "murmur2_random"
    keys: Any = None
    key_counts: npt.NDArray[np.float64] | None = None


@dataclass(frozen=True)
class GroupOfTopics:
    """The plan of a multi-topic group.

    Attributes:
        plan: A `GROUP_PLAN` row (see `spark_jobs.schemas`).
        grid: `SIMULATIONS` rows (scope `group`, without `run`) for every size
            simulated per strategy, at the recommended partition counts, loads at the
            end of the horizon; churn only on each strategy's `members_now` row.
        warnings: Plain-language warnings for every topic of the group.
    """

    plan: dict[str, Any]
    grid: list[dict[str, Any]]
    warnings: list[str]


def _member_ids(count: int, width: int) -> list[str]:
    # Zero-padded so that Java string order is numeric order and a joining member
    # (the next number) sorts last, as the grid assumes.
    return [f"consumer-{i:0{width}d}" for i in range(count)]


@dataclass
class _Scan:
    strategy: str
    rows: list[dict[str, Any]]
    now_fit: tuple[int, float] | None = None
    horizon_fit: int | None = None


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
        "fits": None,
        "status": "unplanned",
        "notes": [why],
    }
    return GroupOfTopics(plan, [], [])


def _row(result: Any, strategy: str, members: int, total: int, is_current: bool) -> dict[str, Any]:
    return {
        "scope": "group",
        "topic": None,
        "partitions": total,
        "members": members,
        "strategy": strategy,
        "is_recommended_partitions": True,
        "is_current_partitions": is_current,
        "max_member_partitions": int(result.member_partitions.max()),
        "min_member_partitions": int(result.member_partitions.min()),
        "max_load": result.max_load,
        "min_load": result.min_load,
        "mean_load": result.mean_load,
        "imbalance": result.imbalance,
        "idle_members": result.idle_members,
        "load_limit": result.load_limit,
        "within_capacity": result.within_capacity,
        "max_partition_load": result.max_partition_load,
        "hot_partition": result.max_partition_load > 1.0,
        "grow_moved": None,
        "grow_revoked": None,
        "shrink_moved": None,
        "shrink_revoked": None,
    }


def plan_group_of_topics(
    group_id: str,
    strategy: str,
    members: int,
    topics: Sequence[GroupTopic],
    *,
    headroom_pct: float,
) -> GroupOfTopics:
    """Plan one group that reads several topics (see the module docstring).

    Args:
        group_id: The group.
        strategy: Its assignment strategy today.
        members: Its members today.
        topics: Its topics, as sized.
        headroom_pct: The planning headroom (%), as in `PlanSettings.headroom_pct`.

    Returns:
        The plan (status `unplanned`, with the reason, when one of its topics has no
        plan), its simulation rows, and warnings for its topics.
    """
    names = sorted(t.topic for t in topics)
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
    horizon_loads: dict[str, npt.NDArray[np.float64]] = {}
    ratio: dict[str, float] = {}
    for t in topics:
        assert t.partitions is not None and t.consumers_at_horizon is not None
        load = TopicLoad(t.consumers_at_horizon, t.keys, t.key_counts, t.partitioner)
        horizon_loads[t.topic] = partition_loads(load, t.partitions)
        now = t.consumers_now or 0.0
        ratio[t.topic] = now / t.consumers_at_horizon if t.consumers_at_horizon > 0 else 0.0
    total = sum(int(w.size) for w in horizon_loads.values())
    is_current = all(t.current_partitions == t.partitions for t in topics)
    keep_free = member_headroom_pct(headroom_pct)
    limit = (1.0 - keep_free / 100.0) * (1.0 + _FIT_TOLERANCE)
    width = max(3, len(str(total + 1)))
    wanted = min(max(members, 1), total)

    def simulate(count: int, strategy_name: str, previous: Any = None) -> Any:
        return simulate_group(
            horizon_loads,
            {m: names for m in _member_ids(count, width)},
            strategy_name,
            consumer_capacity=1.0,
            headroom_pct=keep_free,
            previous=previous,
        )

    def now_load(result: Any) -> float:
        scale = np.array([ratio[t] for t in result.topics])
        return float((result.loads * scale).sum(axis=1).max())

    scans: dict[str, _Scan] = {}
    for name in STRATEGIES:
        scan = _Scan(name, [])
        for count in range(1, total + 1):
            result = simulate(count, name)
            scan.rows.append(_row(result, name, count, total, is_current))
            busiest_now = now_load(result)
            if scan.now_fit is None and busiest_now <= limit:
                scan.now_fit = (count, busiest_now)
            if scan.horizon_fit is None and result.max_load <= limit:
                scan.horizon_fit = count
            if scan.now_fit and scan.horizon_fit and count >= wanted:
                break
        scans[name] = scan

    def churn(name: str, count: int) -> dict[str, int]:
        base = simulate(count, name)
        grown = simulate(count + 1, name, previous=base.assignment)
        if count > 1:
            # The last member leaves; its partitions count as moved.
            shrunk = simulate(count - 1, name, previous=base.assignment)
            shrink_moved = int(shrunk.moved or 0)
        else:
            shrink_moved = total  # the only member leaves: every partition loses its owner
        eager = name in EAGER_STRATEGIES
        return {
            "grow_moved": int(grown.moved or 0),
            "grow_revoked": total if eager else int(grown.revoked or 0),
            "shrink_moved": shrink_moved,
            "shrink_revoked": total if eager else shrink_moved,
        }

    best: tuple[int, float, int, str] | None = None
    for name, scan in scans.items():
        if scan.now_fit is None:
            continue
        count, busiest = scan.now_fit
        moves = churn(name, count)
        scan.rows[count - 1].update(moves)
        key = (count, round(busiest, 9), moves["grow_revoked"], name)
        if best is None or key < best:
            best = key

    notes: list[str] = []
    if best is None:
        chosen = "cooperative-sticky"
        members_now = total
        busiest = now_load(simulate(total, chosen))
        notes.append(
            f"even {total} members (one per partition of its {len(names)} topics) cannot keep "
            f"up: the busiest member needs {busiest:.0%} of one consumer's capacity against "
            f"a limit of {1 - keep_free / 100:.0%}"
        )
    else:
        members_now, busiest, _, chosen = best
    horizon = scans[chosen].horizon_fit
    members_horizon = horizon if horizon is not None else total
    idle_now = simulate(members, chosen).idle_members if members >= 1 else 0

    status = "ok"
    if members < members_now:
        status = "under-provisioned"
        notes.append(
            f"{members} members today, {members_now} needed for today's peak of its "
            f"{len(names)} topics with {headroom_pct:g} % headroom"
        )
    elif idle_now or members > members_horizon:
        status = "over-provisioned"
        notes.append(
            f"{idle_now} of {members} members would own no partition of its topics"
            if idle_now
            else f"{members} members is more than the {members_horizon} needed even at the "
            f"end of the horizon"
        )
    if chosen != strategy:
        notes.append(
            f"{chosen} instead of {strategy}: "
            + (
                "it revokes only the partitions that move when a member joins or leaves"
                if chosen == "cooperative-sticky"
                else "a lower busiest-member load at this group size"
            )
        )
    recommended = {
        "ok": members,
        "under-provisioned": members_now,
        "over-provisioned": members_horizon,
    }[status]
    warnings = []
    if idle_now:
        warnings.append(
            f"group {group_id!r} reads {', '.join(names)} with {members} members for {total} "
            f"partitions in all: {idle_now} sit idle"
        )
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
    }
    grid = [row for name in STRATEGIES for row in scans[name].rows]
    for row in grid:
        row["group_id"] = group_id
        row["topics"] = names
    return GroupOfTopics(plan, grid, warnings)
