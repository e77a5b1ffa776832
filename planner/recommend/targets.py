"""A topic's planning targets and its cost panel at a partition count.

Both are asked for by more than `plan_topic`: the sizing job shows the targets of a
topic it cannot size (no consumer capacity), and the cost panel of every candidate
count; the report describes the growth fit on the samples the targets were made from.
They are computed here, once, so every caller gets the same numbers by construction.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from planner.cost import ClusterShape, PartitionCost, partition_cost
from planner.recommend.types import PlanSettings, TopicHistory
from planner.sizing import PlanningTarget, targets_from_history

__all__ = ["planning_samples", "topic_cost", "topic_targets"]

_MIB = float(2**20)


def planning_samples(history: TopicHistory, *, fan_out: int) -> dict[str, npt.NDArray[np.float64]]:
    """The per-sample rates a topic is planned on, per dimension measured.

    Args:
        history: The topic's figures.
        fan_out: The consumer groups its bytes out are divided over (at least 1): every
            group fetches all of them, so `mib_out` is one group's read rate. A sample
            that has the busiest group's own read rate (`mib_out_busiest_group`,
            observed) takes that instead.

    Returns:
        `mib_in`, `records_in` (MiB/s, records/s) and `mib_out` (MiB/s per group), for
        the dimensions the history has.
    """
    samples = {}
    for dim, values in (("mib_in", history.mib_in), ("records_in", history.records_in)):
        if values is not None:
            samples[dim] = np.asarray(values, dtype=np.float64)
    if history.mib_out is not None:
        samples["mib_out"] = np.asarray(history.mib_out, dtype=np.float64) / fan_out
    if history.mib_out_busiest_group is not None:
        busiest = np.asarray(history.mib_out_busiest_group, dtype=np.float64)
        divided = samples.get("mib_out", np.full(busiest.shape, np.nan))
        samples["mib_out"] = np.where(np.isnan(busiest), divided, busiest)
    return samples


def topic_targets(
    history: TopicHistory, *, fan_out: int, settings: PlanSettings
) -> dict[str, PlanningTarget]:
    """The topic's planning target per dimension: peak, growth to the horizon, headroom.

    Args:
        history: The topic's figures.
        fan_out: As in `planning_samples`.
        settings: The planning settings (percentile, growth, horizon, headroom).

    Raises:
        ValueError: figures `targets_from_history` refuses.
    """
    return targets_from_history(
        planning_samples(history, fan_out=fan_out),
        history.ts_s,
        percentile=settings.percentile,
        growth_model=settings.growth_model,
        min_growth_days=settings.min_growth_days,
        horizon_days=settings.horizon_days,
        floor_growth_per_year=settings.floor_growth_per_year,
        headroom_pct=settings.headroom_pct,
    )


def topic_cost(
    partitions: int,
    *,
    cluster: ClusterShape,
    retention_ms: int | None,
    targets: Mapping[str, PlanningTarget],
    settings: PlanSettings,
) -> PartitionCost:
    """The topic's cost panel at `partitions`, on its bytes-in target (when measured).

    Args:
        partitions: The partition count costed.
        cluster: The brokers and the topic's replication factor.
        retention_ms: The topic's `retention.ms` (None: unknown).
        targets: The topic's planning targets (`topic_targets`).
        settings: The planning settings (their `cost` part).
    """
    mib_target = targets.get("mib_in")
    return partition_cost(
        partitions,
        cluster,
        settings.cost,
        retention_ms=retention_ms,
        bytes_in_per_s=mib_target.target * _MIB if mib_target else None,
    )
