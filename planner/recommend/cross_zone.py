"""Each group's cross-zone fetches under its plan, located by rack.

`plan_topic` and `plan_group_of_topics` decide members and strategy without looking at
zones (a cross-zone byte costs money, not capacity); this step then places the planned
assignment on the brokers' racks (`planner.cross_zone.group_cross_zone`) and says what
that shows (`planner.cross_zone.advice`): `with_cross_zone` for a topic plan's one-topic
groups (the sizing job, after `plan_topic`), `located_group` for any planned group given
its topics (`simulate_assignments`, for groups of several topics). The figure is made in
one place.

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
import numpy.typing as npt

from planner.cross_zone import (
    GroupZones,
    TopicZones,
    advice,
    group_cross_zone,
)
from planner.protocols import is_streams
from planner.recommend.targets import planning_samples
from planner.recommend.types import GroupInfo, GroupPlan, TopicHistory, TopicPlan
from planner.simulate import partition_loads

__all__ = ["daily_read_bytes", "located_group", "topic_zones", "with_cross_zone"]

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


def topic_zones(
    topic: str,
    replicas: Sequence[Sequence[int]],
    daily_bytes: float,
    partitions: int,
    loads: npt.ArrayLike | None = None,
) -> TopicZones:
    """A topic as the figure reads it: `daily_bytes` spread over its planned `partitions`
    by `loads` (a keyed topic's partition loads at that count), evenly without them."""
    shares = np.full(partitions, 1.0 / partitions)
    if loads is not None:
        weights = np.asarray(loads, dtype=np.float64)
        total = float(weights.sum())
        if weights.size == partitions and total > 0:
            shares = weights / total
    return TopicZones(
        topic, tuple(tuple(r) for r in replicas), tuple(float(x) * daily_bytes for x in shares)
    )


def located_group(
    group: GroupPlan,
    topics: Sequence[TopicZones],
    *,
    client_racks: tuple[str, ...],
    broker_racks: Mapping[int, str | None],
    price_per_gib: float | None,
) -> GroupPlan:
    """`group` (one topic or several) with its `cross_zone` figure and advice, where the
    figure can be made (`planner.cross_zone.group_cross_zone`), else unchanged."""
    streams = is_streams(group.protocol, group.current_strategy)
    zones = GroupZones(
        group.group_id,
        # A Kafka Streams application is assigned as the classic strategy it is planned as.
        "classic" if streams else group.protocol,
        group.planned_as if streams else group.strategy,
        group.recommended_members,
        client_racks,
        rack_aware=not streams,
    )
    figure = group_cross_zone(zones, topics, broker_racks, price_per_gib=price_per_gib)
    if figure is None:
        return group
    return dataclasses.replace(
        group, cross_zone=figure, cross_zone_advice=advice(group.group_id, figure)
    )


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
    count = plan.recommended_partitions
    loads = None if plan.key_sample is None else partition_loads(plan.key_sample, count)
    topic = topic_zones(plan.topic, replicas, daily, count, loads)
    racks = {g.group_id: g.client_racks for g in groups}
    planned = tuple(
        located_group(
            g,
            (topic,),
            client_racks=racks.get(g.group_id, ()),
            broker_racks=broker_racks,
            price_per_gib=price_per_gib,
        )
        for g in plan.groups
    )
    return dataclasses.replace(plan, groups=planned)
