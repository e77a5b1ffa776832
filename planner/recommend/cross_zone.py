"""Each group's cross-zone fetches under its plan: a topic plan's groups, located by rack.

`plan_topic` decides members and strategy without looking at zones (a cross-zone byte
costs money, not capacity); this step then places the planned assignment on the
brokers' racks (`planner.cross_zone.group_cross_zone`) and says what that shows
(`planner.cross_zone.advice`). The Spark sizing job and the demo call it after
`plan_topic`, on the same plan, so the figure is made in one place.

What a group reads per day is the mean of its read rate over the samples the plan read:
bytes out divided over the groups that fetch them (or the busiest group's own rate where
observed), as the plan's `mib_out` target reads them, else bytes in (every group reads
each record once when it keeps up). It is spread over the planned partitions as the plan
spreads load: by the key sample on a keyed topic, evenly otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from planner.cross_zone import (
    GroupCrossZone,
    GroupZones,
    TopicZones,
    advice,
    group_cross_zone,
)
from planner.protocols import is_streams
from planner.recommend.targets import planning_samples
from planner.recommend.types import GroupInfo, GroupPlan, TopicHistory, TopicPlan
from planner.simulate import partition_loads

__all__ = ["daily_read_bytes", "with_cross_zone"]

_MIB = 1024**2
_SECONDS_PER_DAY = 86_400


def daily_read_bytes(history: TopicHistory, *, fan_out: int) -> float | None:
    """Bytes one group reads from the topic per day: the mean read rate of the samples
    (see the module docstring), or None when no sample has a rate."""
    samples = planning_samples(history, fan_out=fan_out)
    for name in ("mib_out", "mib_in"):
        rates = samples.get(name)
        if rates is None:
            continue
        finite = rates[np.isfinite(rates)]
        if finite.size:
            return float(finite.mean()) * _MIB * _SECONDS_PER_DAY
    return None


def with_cross_zone(
    plan: TopicPlan,
    history: TopicHistory,
    groups: Sequence[GroupInfo],
    *,
    replicas: Sequence[Sequence[int]] | None,
    broker_racks: Mapping[int, str | None],
    price_per_gib: float | None,
) -> TopicPlan:
    """`plan` with each one-topic group's `cross_zone` figure and advice filled in.

    Args:
        plan: The topic's plan (`plan_topic`).
        history: The figures it was planned from.
        groups: The groups it was planned for (their `client_racks`).
        replicas: Today's replicas of each partition, leader first; None: not known, and
            the plan is returned as it is.
        broker_racks: Broker id -> ``broker.rack``.
        price_per_gib: Price per GiB crossing zones (None: bytes only).
    """
    daily = daily_read_bytes(history, fan_out=plan.fan_out)
    if not replicas or daily is None:
        return plan
    shares = _partition_shares(plan)
    topic = TopicZones(
        plan.topic,
        tuple(tuple(r) for r in replicas),
        tuple(float(s) * daily for s in shares),
    )
    infos = {g.group_id: g for g in groups}
    planned = tuple(
        _with_figure(g, infos.get(g.group_id), topic, broker_racks, price_per_gib)
        for g in plan.groups
    )
    return dataclasses.replace(plan, groups=planned)


def _partition_shares(plan: TopicPlan) -> np.ndarray:
    count = plan.recommended_partitions
    if plan.key_sample is None:
        return np.full(count, 1.0 / count)
    loads = partition_loads(plan.key_sample, count)
    total = float(loads.sum())
    return loads / total if total > 0 else np.full(count, 1.0 / count)


def _with_figure(
    group: GroupPlan,
    info: GroupInfo | None,
    topic: TopicZones,
    broker_racks: Mapping[int, str | None],
    price_per_gib: float | None,
) -> GroupPlan:
    streams = is_streams(group.protocol, group.current_strategy)
    zones = GroupZones(
        group.group_id,
        # A Kafka Streams application is assigned as the classic strategy it is planned as.
        "classic" if streams else group.protocol,
        group.planned_as if streams else group.strategy,
        group.recommended_members,
        info.client_racks if info is not None else (),
        rack_aware=not streams,
    )
    figure: GroupCrossZone | None = group_cross_zone(
        zones, (topic,), broker_racks, price_per_gib=price_per_gib
    )
    if figure is None:
        return group
    return dataclasses.replace(
        group, cross_zone=figure, cross_zone_advice=advice(group.group_id, figure)
    )
