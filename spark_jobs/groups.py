"""Multi-topic consumer groups: their rows in, the core's plan and grid rows out.

A group subscribed to several topics is sized by the core as one group
(`planner.recommend.plan_group_of_topics`, from the multi-topic grid of
`planner.simulate.multi_topic`), through the one decision every group goes through
(`planner.recommend.size_group`). This module only converts: each topic's `sizing`
facts to a `planner.recommend.GroupTopic`, and the plan back to a `GROUP_PLAN` row
(`spark_jobs.planning.group_row`), its warnings, and its `SIMULATIONS` rows (scope
`group`): every strategy and every size the search evaluated, at the recommended
partition counts, loads at the end of the horizon, churn only on each strategy's
`members_now` row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner import fit
from planner.assignors import java_order_key
from planner.cross_zone import client_racks, replica_lists
from planner.notes import coded_rows, texts
from planner.recommend import GroupInfo, GroupPlan, PlanSettings
from planner.recommend import GroupTopic as SizedTopic
from planner.recommend import plan_group_of_topics as plan_in_core
from planner.recommend.cross_zone import located_group, topic_zones
from planner.simulate import imbalance
from planner.simulate.churn import COST_COLUMNS
from planner.simulate.multi_topic import SizeSearch, group_churn, group_event_costs
from spark_jobs.planning import PLANNED_STATUSES, group_row, unplanned_group_row

__all__ = ["GroupOfTopics", "GroupTopic", "plan_group_of_topics"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class GroupTopic:
    """One topic of a multi-topic group, as its `sizing` row left it: the fields of
    `planner.recommend.GroupTopic` (None where the topic has no plan, `load_factor` 1.0
    where the group is sized with the topic's Tc), its sizing `status` (None when the
    run does not know the topic), and what the group's cross-zone figure needs of it:
    its `replicas` text, the racks of the brokers it names, and what one group reads of
    it a day (None where not known)."""

    topic: str
    status: str | None
    current_partitions: int | None
    partitions: int | None
    consumers_now: float | None
    consumers_at_horizon: float | None
    loads: FloatArray | None = None
    load_factor: float = 1.0
    replicas: str | None = None
    broker_racks: tuple[tuple[int, str | None], ...] = ()
    read_bytes_per_day: float | None = None


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
        warnings: The warnings for every topic of the group, as sentences.
        warnings_coded: The same in their coded form (`planner.notes.Note.as_row`).
    """

    plan: dict[str, Any]
    grid: list[dict[str, Any]]
    warnings: list[str]
    warnings_coded: list[dict[str, Any]]


def plan_group_of_topics(
    group_id: str,
    strategy: str,
    members: int,
    topics: Sequence[GroupTopic],
    *,
    headroom_pct: float,
    min_group_members: int = PlanSettings.min_group_members,
    protocol: str = "classic",
    client_rack: str | None = None,
    price_per_gib: float | None = None,
) -> GroupOfTopics:
    """Plan one group that reads several topics, from its topics' sizing rows.

    Args:
        group_id: The group.
        strategy: Its assignor today, as the broker names it for its protocol.
        members: Its members today.
        topics: Its topics, as sized.
        headroom_pct: The planning headroom (%), as in `PlanSettings.headroom_pct`.
        min_group_members: The fewest members to plan, as in
            `PlanSettings.min_group_members`.
        protocol: Its group protocol (`planner.protocols.PROTOCOLS`).
        client_rack: Its members' `client_rack` text (figures `groups`), or None.
        price_per_gib: `[planning] cross_zone_price_per_gib` (None: bytes only).

    Returns:
        The plan row (status `unplanned`, with the reason, when one of its topics has no
        plan), its simulation rows, and warnings for its topics.
    """
    names = sorted((t.topic for t in topics), key=java_order_key)
    blocked = [t for t in topics if t.status not in PLANNED_STATUSES]
    if blocked:
        reasons = ", ".join(
            f"{t.topic} ({t.status or 'not in the run'})"
            for t in sorted(blocked, key=lambda t: t.topic)
        )
        why = f"not planned: the group also reads topics without a plan: {reasons}"
        return GroupOfTopics(
            unplanned_group_row(group_id, names, strategy, members, why, protocol=protocol),
            [],
            [],
            [],
        )
    sized = []
    for t in topics:
        assert t.partitions is not None and t.consumers_at_horizon is not None
        sized.append(
            SizedTopic(
                topic=t.topic,
                current_partitions=t.current_partitions,
                partitions=t.partitions,
                consumers_now=t.consumers_now or 0.0,
                consumers_at_horizon=t.consumers_at_horizon,
                loads=t.loads,
                load_factor=t.load_factor,
            )
        )
    settings = PlanSettings(headroom_pct=headroom_pct, min_group_members=min_group_members)
    found = plan_in_core(GroupInfo(group_id, strategy, members, protocol), sized, settings=settings)
    plan = _located(found.plan, topics, client_rack, price_per_gib)
    is_current = all(t.current_partitions == t.partitions for t in topics)
    grid = _grid(group_id, names, found.searches, found.horizon_loads, is_current, found.limit)
    return GroupOfTopics(group_row(plan), grid, texts(plan.warnings), coded_rows(plan.warnings))


def _located(
    plan: GroupPlan,
    topics: Sequence[GroupTopic],
    client_rack: str | None,
    price_per_gib: float | None,
) -> GroupPlan:
    # The figure needs every topic's replicas and bytes: one topic without them would
    # leave part of the group's fetches out, and a part is not the group's figure.
    if any(t.replicas is None or t.read_bytes_per_day is None for t in topics):
        return plan
    zones = []
    for t in topics:
        assert t.replicas is not None and t.read_bytes_per_day is not None
        assert t.partitions is not None
        zones.append(
            topic_zones(
                t.topic, replica_lists(t.replicas), t.read_bytes_per_day, t.partitions, t.loads
            )
        )
    return located_group(
        plan,
        zones,
        client_racks=client_racks(client_rack) if client_rack else (),
        broker_racks={b: r for t in topics for b, r in t.broker_racks},
        price_per_gib=price_per_gib,
    )


def _grid(
    group_id: str,
    names: list[str],
    searches: dict[str, SizeSearch],
    horizon: Sequence[FloatArray],
    is_current: bool,
    limit: float,
) -> list[dict[str, Any]]:
    partitions = [w.size for w in horizon]
    total = sum(partitions)
    topic_load = float(sum(float(w.sum()) for w in horizon))
    hottest = max(float(w.max()) for w in horizon)
    rows: list[dict[str, Any]] = []
    for name, found in searches.items():
        stats = found.stats
        # The churn on the strategy's own `members_now` row (the floor included).
        moves = (
            {
                **group_churn(partitions, found.now_fit, name),
                **group_event_costs(partitions, found.now_fit, name),
            }
            if found.now_fit
            else None
        )
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
                "within_capacity": bool(fit.fits(stats["max_load"][i], limit)),
                "max_partition_load": hottest,
                "hot_partition": hottest > 1.0,
                "grow_moved": None,
                "grow_revoked": None,
                "shrink_moved": None,
                "shrink_revoked": None,
                **dict.fromkeys(COST_COLUMNS),
            }
            if moves is not None and count == found.now_fit:
                row.update(moves)
            rows.append(row)
    return rows
