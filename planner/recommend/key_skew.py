"""Key skew: the partitions a keyed topic needs so that its busiest partition fits."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from planner import fit
from planner.simulate import TopicLoad, busiest_lower_bound, find_hot_keys, partition_loads
from planner.simulate.loads import HotKey
from planner.sizing import SideCapacity

__all__ = ["SkewRequirement", "skew_requirement"]


@dataclass(frozen=True)
class SkewRequirement:
    """Partitions a keyed topic needs so that its busiest partition fits.

    The rule assumes an even spread: `target / P <= min(Tp, Tc)`. Keys do not spread
    evenly; this asks that the busiest partition's planned load fits instead,
    `max_p share_p(P) x target <= min(Tp, Tc)` in every dimension. Hot keys (one key
    above capacity by itself) are left out of that condition: no count fixes them, and
    they are reported on their own.

    Attributes:
        partitions: The smallest count from `start` up that fits (or the last tried).
        fits: False when no count up to the bound fits.
        busiest_share: The busiest partition's share of the topic at `partitions`
            (hot keys excluded).
        hot_share: The share of the traffic carried by hot keys.
        tried_up_to: The largest count tried.
        hot_keys: Keys above one partition's capacity by themselves, hottest first;
            their `rate` is in partitions' worth (1.0 = one partition's capacity at the
            planned target, the tighter of Tp and Tc).
    """

    partitions: int
    fits: bool
    busiest_share: float
    hot_share: float
    tried_up_to: int
    hot_keys: tuple[HotKey, ...] = ()
    rest: TopicLoad | None = field(default=None, repr=False, compare=False)
    limit_share: float = math.inf

    def fits_at(self, partitions: int) -> bool:
        """Whether the busiest of `partitions` partitions fits (hot keys aside)."""
        if self.rest is None or self.rest.load <= 0:
            return True
        busiest = float(partition_loads(self.rest, partitions).max())
        return bool(fit.fits(busiest, self.limit_share))


def _per_partition_limit(
    targets: Mapping[str, float], producer: SideCapacity, consumer: SideCapacity
) -> float:
    # The largest share of the topic one partition may carry: min over dimensions and
    # sides of capacity / target.
    limits: list[float] = []
    for dim, target in targets.items():
        if target <= 0:
            continue
        caps = [consumer.for_dimension(dim)]
        if dim != "mib_out":
            caps.append(producer.for_dimension(dim))
        limits.extend(c / target for c in caps if c is not None)
    return min(limits, default=math.inf)


def skew_requirement(
    sample: TopicLoad,
    targets: Mapping[str, float],
    producer: SideCapacity,
    consumer: SideCapacity,
    *,
    start: int,
    bound: int,
) -> SkewRequirement:
    """The smallest partition count from `start` whose busiest partition fits.

    Args:
        sample: The key sample (`load` is ignored; shares are used).
        targets: Planned throughput per dimension (MiB/s, records/s).
        producer: Tp per partition.
        consumer: Tc per partition.
        start: The rule's requirement (the search starts there).
        bound: The largest count to try.
    """
    limit = _per_partition_limit(targets, producer, consumer)
    hot_keys = find_hot_keys(sample.with_load(1.0 / limit), 1.0) if limit > 0 else ()
    shares = sample.shares
    hot = shares > limit
    hot_share = float(shares[hot].sum())
    rest = sample
    if hot.any():
        keep = np.flatnonzero(~hot)
        # The kept keys are the sample's own: neither checked nor hashed again.
        rest = (
            sample.take(keep, 1.0 - hot_share)
            if len(keep)
            else TopicLoad(1.0 - hot_share, None, None, sample.partitioner)
        )
    busiest = 0.0
    p = start
    last = max(start, bound)
    # The heaviest keys alone rule most failing counts out at a fraction of the cost;
    # the margin covers the rounding by which that bound can exceed the exact load,
    # so a count is skipped only when the exact check would fail it too.
    at_least = busiest_lower_bound(rest)
    for p in range(start, last + 1):
        if p < last and not fit.fits(at_least(p), fit.fit_bound(limit)):
            continue
        busiest = float(partition_loads(rest, p).max()) if rest.load > 0 else 0.0
        if fit.fits(busiest, limit):
            return SkewRequirement(p, True, busiest, hot_share, p, hot_keys, rest, limit)
    return SkewRequirement(p, False, busiest, hot_share, p, hot_keys, rest, limit)
