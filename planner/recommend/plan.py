"""One topic's plan: partitions, consumers per group, strategy, costs, and the why.

`plan_topic` ties the model together for one topic: the planning targets from its
history, the rule in every dimension (today and at the end of the horizon), the
partition choice, the cost panel, the consumer-group simulation at the recommended
count, hot keys, and a rationale in plain words with the numbers.

Consumers are sized on a load normalised to one consumer: a partition's utilisation is
its share of the topic times `max(rate_d / Tc_d)` over the dimensions measured, so one
simulation covers MiB/s and records/s at once. Partitions are sized for the end of the
horizon (they are hard to add); consumers for today's peak (they scale in minutes), with
the size needed at the horizon reported beside it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from planner.cost import ClusterShape, CostSettings, PartitionCost, partition_cost
from planner.recommend import creation
from planner.recommend.partitions import PartitionChoice, Status, choose_partitions
from planner.simulate import (
    EAGER_STRATEGIES,
    STRATEGIES,
    GridResult,
    HotKey,
    TopicLoad,
    busiest_lower_bound,
    find_hot_keys,
    partition_loads,
    simulate_grid,
)
from planner.simulate import closed_forms as cf
from planner.sizing import (
    GrowthModel,
    PlanningTarget,
    SideCapacity,
    SizingResult,
    size_topic,
    targets_from_history,
)

__all__ = [
    "RECORD_SIZE_RATIO",
    "ChoiceKey",
    "GroupInfo",
    "GroupPlan",
    "PlanSettings",
    "SkewRequirement",
    "TopicHistory",
    "TopicPlan",
    "busiest_member_load",
    "falling_behind_note",
    "floor_note",
    "grid_extra_members",
    "mean_record_bytes",
    "member_headroom_pct",
    "pct_apart",
    "plan_group",
    "plan_topic",
    "skew_requirement",
    "strategy_choice_key",
    "strategy_switch_note",
]

_UNITS = {"mib_in": "MiB/s in", "records_in": "records/s in", "mib_out": "MiB/s out per group"}
GroupStatus = Literal["ok", "under-provisioned", "over-provisioned", "deploy"]
#: A strategy's rank among those that fit: (members, partitions revoked when a member
#: joins, busiest-member load, name); the smallest wins (`strategy_choice_key`).
ChoiceKey = tuple[int, int, float, str]
# A member above one consumer's whole capacity falls further behind every second; loads
# summed in floating point may land a hair above an exact 1.0.
_BEHIND = 1.0 + 1e-9
#: A capacity measured on records this many times larger or smaller than the topic's
#: own (on average) gets a warning.
RECORD_SIZE_RATIO = 2.0


@dataclass(frozen=True)
class PlanSettings:
    """Planning settings (the planner config's `[planning]` section).

    Attributes:
        percentile: Percentile of the per-sample rates that makes the peak.
        headroom_pct: Headroom on the target, and capacity kept free per consumer (%).
        horizon_days: Planning horizon, days.
        growth_model: `exponential`, `linear` or `none`.
        floor_growth_per_year: Minimum growth as a yearly fraction.
        min_growth_days: Days of history needed to fit growth.
        evenness_slack_pct: How far above the requirement to look for an even count (%).
        max_partitions: Cap for that search (and a warning above it).
        partition_grid: Candidate counts simulated besides the recommended one.
        min_group_members: Fewest members recommended for a consumer group: with one
            member, nothing consumes while it restarts. On a topic with fewer partitions,
            the members beyond them own none and stand by (`GroupPlan.standby_members`).
        cost: Client/broker settings and limits for the cost panel.
    """

    percentile: float = 99.0
    headroom_pct: float = 30.0
    horizon_days: float = 180.0
    growth_model: GrowthModel = "exponential"
    floor_growth_per_year: float = 0.0
    min_growth_days: int = 7
    evenness_slack_pct: float = 20.0
    max_partitions: int = 1_000
    partition_grid: tuple[int, ...] = (12, 24, 48, 96, 192)
    min_group_members: int = 2
    cost: CostSettings = field(default_factory=CostSettings)

    def __post_init__(self) -> None:
        if not 0 <= self.headroom_pct < 100:
            raise ValueError(f"headroom_pct must be in [0, 100), got {self.headroom_pct}")
        if isinstance(self.min_group_members, bool) or not isinstance(self.min_group_members, int):
            raise ValueError(
                f"min_group_members must be a whole number, got {self.min_group_members!r}"
            )
        if self.min_group_members < 1:
            raise ValueError(f"min_group_members must be 1 or more, got {self.min_group_members}")


@dataclass(frozen=True)
class GroupInfo:
    """A consumer group reading the topic.

    Attributes:
        group_id: The group's id.
        strategy: Its `partition.assignment.strategy` (Kafka's name).
        members: Members today (0 for a planned group).
    """

    group_id: str
    strategy: str
    members: int

    @classmethod
    def of(cls, spec: object) -> GroupInfo:
        """A group from a `GroupInfo`, a mapping with its three fields, or a sequence of
        them in order: what `json.load` gives for one (`{"group_id": "billing",
        "strategy": "range", "members": 3}` or `["billing", "range", 3]`).

        Raises:
            TypeError: anything else, or a field of the wrong type (the message names it).
        """
        if isinstance(spec, GroupInfo):
            return spec
        names = ("group_id", "strategy", "members")
        if isinstance(spec, Mapping):
            if set(spec) != set(names):
                raise TypeError(
                    f"a group spec has the keys {', '.join(names)}, got {sorted(map(str, spec))}"
                )
            values = tuple(spec[n] for n in names)
        elif isinstance(spec, list | tuple) and len(spec) == len(names):
            values = tuple(spec)
        else:
            raise TypeError(
                f"a group spec is a GroupInfo, a mapping of {', '.join(names)} or a list of "
                f"them in that order, got {spec!r}"
            )
        group_id, strategy, members = values
        if not isinstance(group_id, str) or not isinstance(strategy, str):
            raise TypeError(f"group_id and strategy are str, got {spec!r}")
        if isinstance(members, bool) or not isinstance(members, int):
            raise TypeError(f"members is a whole number (int), got {members!r} in {spec!r}")
        return cls(group_id, strategy, members)


@dataclass(frozen=True)
class TopicHistory:
    """A topic's figures over the data window, and what the planner knows about it.

    Attributes:
        topic: The topic name.
        ts_s: Sample times, seconds since the epoch (UTC).
        mib_in: MiB/s in per sample (or None).
        records_in: Records/s in per sample (or None).
        mib_out: MiB/s out per sample, all groups together (or None).
        current_partitions: Partitions today (None for a new topic).
        replication_factor: Replicas per partition.
        keyed: Whether records carry keys.
        partitioner: The producers' partitioner (librdkafka's names).
        retention_ms: `retention.ms`, if known.
        keys: A key sample (bytes, or an Arrow binary/string array), keyed topics only.
        key_counts: Counts for the key sample.
    """

    topic: str
    ts_s: npt.ArrayLike
    mib_in: npt.ArrayLike | None = None
    records_in: npt.ArrayLike | None = None
    mib_out: npt.ArrayLike | None = None
    current_partitions: int | None = None
    replication_factor: int = 3
    keyed: bool = False
    partitioner: str = "murmur2_random"
    retention_ms: int | None = None
    keys: Any = None
    key_counts: npt.ArrayLike | None = None


@dataclass(frozen=True)
class GroupPlan:
    """The recommendation for one consumer group on the recommended partition count.

    Attributes:
        group_id: The group.
        current_members: Members today.
        current_strategy: Its strategy today.
        recommended_members: What to run: the current size when it covers today and
            does not exceed the horizon's need, else `members_now` (under-provisioned)
            or `members_at_horizon` (over-provisioned).
        members_now: Smallest group of at least `min_group_members` whose busiest
            member stays within capacity less headroom at today's peak (at most the
            partition count, or `min_group_members` when that is more).
        members_at_horizon: The same at the end of the horizon.
        strategy: The strategy recommended for that group.
        busiest_utilisation: Busiest member's load at `members_now`, as a fraction of
            one consumer's capacity.
        fits: Whether any group size up to the partition count fits.
        status: `ok`, `under-provisioned` (fewer members than needed today) or
            `over-provisioned` (more than the horizon needs, or idle members).
        idle_members_now: Members today that own no partition at the recommended count.
        notes: Plain-language notes.
        standby_members: Of `recommended_members`, those beyond the partition count:
            members the minimum group size asks for on a topic with fewer partitions, who
            own none and take over when a member fails (0: every member owns one).
        busiest_utilisation_current: Busiest member's load at today's peak with the
            group's current size and strategy, as a fraction of one consumer's capacity:
            on today's partition count when `plan_topic` knows it, else on the
            recommended one (None for a group with no members, or a new topic).
        falling_behind: When that load is above one consumer's whole capacity (the
            group lags now, whatever the headroom), the note that says so and what it
            needs (also among `notes`); None otherwise.
    """

    group_id: str
    current_members: int
    current_strategy: str
    recommended_members: int
    members_now: int
    members_at_horizon: int
    strategy: str
    busiest_utilisation: float
    fits: bool
    status: GroupStatus
    idle_members_now: int
    notes: tuple[str, ...]
    busiest_utilisation_current: float | None = None
    falling_behind: str | None = None
    standby_members: int = 0


@dataclass(frozen=True)
class TopicPlan:
    """Everything the planner says about one topic.

    Attributes:
        topic: The topic.
        status: `ok`, `plan-increase`, `increase`.
        targets: Planning target per dimension.
        sizing_now: The rule on today's peak plus headroom (no growth).
        sizing: The rule on the targets (end of the horizon).
        skew: For a keyed topic with a key sample, the partitions needed so that the
            busiest partition, not the average one, fits (None otherwise).
        choice: The partition choice and its reason.
        cost: The cost panel at the recommended count.
        grid: The simulation at the recommended count and the planning grid, in load
            normalised to one consumer (1.0 = one consumer's capacity) at the horizon.
        utilisation_now: Topic load today in consumers (`max(rate_d / Tc_d)`).
        utilisation_at_horizon: The same at the end of the horizon.
        groups: One plan per consumer group.
        hot_keys: Keys above one partition's capacity at the planned target by themselves
            (`rate` in partitions' worth; see `SkewRequirement`).
        warnings: Plain-language warnings.
        rationale: The arithmetic, in plain sentences.
        key_sample: The key sample the plan hashed (load 1.0), keyed topics only: its
            hashes are kept, so placing it on more partition counts hashes nothing again.
        fan_out: The consumer groups the topic's bytes out were divided over (at least
            1): every group fetches all of them, so `mib_out` is planned as one group's
            read rate, `TopicHistory.mib_out / fan_out`.
    """

    topic: str
    status: Status
    targets: Mapping[str, PlanningTarget]
    sizing_now: SizingResult
    sizing: SizingResult
    skew: SkewRequirement | None
    choice: PartitionChoice
    cost: PartitionCost
    grid: GridResult
    utilisation_now: float
    utilisation_at_horizon: float
    groups: tuple[GroupPlan, ...]
    hot_keys: tuple[HotKey, ...]
    warnings: tuple[str, ...]
    rationale: tuple[str, ...]
    key_sample: TopicLoad | None = field(default=None, repr=False, compare=False)
    fan_out: int = 1

    @property
    def recommended_partitions(self) -> int:
        """The partition count to have."""
        return self.choice.recommended


def grid_extra_members(min_group_members: int, group_sizes: Iterable[int]) -> int:
    """Group sizes past each partition count a topic's grid simulates.

    At least 4 to show idle members, every size a group runs today, and the minimum
    group size (on one partition, a floor of N is N - 1 members past the count), so
    that `plan_group` finds each of those sizes in the grid.
    """
    return max(4, min_group_members, max(group_sizes, default=0))


def member_headroom_pct(headroom_pct: float) -> float:
    """The share of Tc a member keeps free so that it has `headroom_pct` headroom.

    The target adds headroom on top of the load (`load x 1.3`); a member has the same
    headroom when `load x 1.3 <= Tc`, i.e. `load <= Tc x (1 - 0.3 / 1.3)`: 23.1 % of Tc
    kept free. With this, a topic sized exactly by the rule and read by one member per
    partition is exactly within capacity, instead of failing a stricter member check.
    """
    return 100.0 * headroom_pct / (100.0 + headroom_pct)


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
        return busiest <= self.limit_share * (1 + 1e-9)


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
        if p < last and at_least(p) > limit * (1 + 1e-9) * (1 + 1e-9):
            continue
        busiest = float(partition_loads(rest, p).max()) if rest.load > 0 else 0.0
        if busiest <= limit * (1 + 1e-9):
            return SkewRequirement(p, True, busiest, hot_share, p, hot_keys, rest, limit)
    return SkewRequirement(p, False, busiest, hot_share, p, hot_keys, rest, limit)


def _history_samples(h: TopicHistory) -> dict[str, npt.NDArray[np.float64]]:
    samples = {}
    for dim, values in (("mib_in", h.mib_in), ("records_in", h.records_in)):
        if values is not None:
            samples[dim] = np.asarray(values, dtype=np.float64)
    return samples


def plan_topic(
    history: TopicHistory,
    producer: SideCapacity,
    consumer: SideCapacity,
    *,
    brokers: int,
    groups: Sequence[GroupInfo | Mapping[str, Any] | Sequence[Any]] = (),
    consuming_groups: int | None = None,
    settings: PlanSettings | None = None,
) -> TopicPlan:
    """Plan one topic from its history, capacities, cluster and consumer groups.

    Args:
        history: The topic's figures and facts.
        producer: Tp, the single-partition producer throughput (MiB/s, records/s).
        consumer: Tc, the single-partition consumer throughput, processing included.
        brokers: Live brokers in the cluster.
        groups: Consumer groups reading the topic (one-topic groups; multi-topic groups
            are simulated by `planner.simulate.simulate_group`): `GroupInfo`s, or their
            JSON form (see `GroupInfo.of`).
        consuming_groups: How many consumer groups fetch the topic's bytes in all,
            groups that also read other topics included (None: `len(groups)`). Each
            reads every byte, so bytes out are divided over them to give one group's
            read rate; with none known, all of them count as one group's
            (`TopicPlan.fan_out`).
        settings: Planning settings (defaults when None).

    Raises:
        ValueError: bad figures, a replication factor above the broker count, or no
            dimension with both a target and a capacity.
    """
    s = settings or PlanSettings()
    infos = [GroupInfo.of(g) for g in groups]
    cluster = ClusterShape(brokers, history.replication_factor)
    if consuming_groups is not None and consuming_groups < 0:
        raise ValueError(
            f"topic {history.topic!r}: consuming_groups must be >= 0, got {consuming_groups}"
        )
    consuming = len(groups) if consuming_groups is None else consuming_groups
    fan_out = max(1, consuming)
    samples = _history_samples(history)
    if history.mib_out is not None:
        samples["mib_out"] = np.asarray(history.mib_out, dtype=np.float64) / fan_out
    targets = targets_from_history(
        samples,
        history.ts_s,
        percentile=s.percentile,
        growth_model=s.growth_model,
        min_growth_days=s.min_growth_days,
        horizon_days=s.horizon_days,
        floor_growth_per_year=s.floor_growth_per_year,
        headroom_pct=s.headroom_pct,
    )
    if not targets:
        raise ValueError(f"topic {history.topic!r}: no throughput figures to plan on")
    sizing = size_topic({d: t.target for d, t in targets.items()}, producer, consumer)
    today = {d: t.peak * (1 + t.headroom_pct / 100) for d, t in targets.items()}
    sizing_now = size_topic(today, producer, consumer)
    keyed_sample = history.keyed and history.keys is not None and history.key_counts is not None
    sample = (
        TopicLoad(1.0, history.keys, history.key_counts, history.partitioner)
        if keyed_sample
        else None
    )
    skew = skew_now = None
    if sample is not None:
        bound = max(s.max_partitions, sizing.required_partitions)
        skew = skew_requirement(
            sample,
            {d: t.target for d, t in targets.items()},
            producer,
            consumer,
            start=sizing.required_partitions,
            bound=bound,
        )
        skew_now = skew_requirement(
            sample, today, producer, consumer, start=sizing_now.required_partitions, bound=bound
        )
    choice = choose_partitions(
        max(sizing.required_partitions, skew.partitions if skew and skew.fits else 0),
        history.current_partitions,
        required_now=max(
            sizing_now.required_partitions, skew_now.partitions if skew_now and skew_now.fits else 0
        ),
        evenness_slack_pct=s.evenness_slack_pct,
        max_partitions=s.max_partitions,
        acceptable=skew.fits_at if skew and skew.fits else None,
    )
    p = choice.recommended
    mib_target = targets.get("mib_in")
    cost = partition_cost(
        p,
        cluster,
        s.cost,
        retention_ms=history.retention_ms,
        bytes_in_per_s=mib_target.target * 2**20 if mib_target else None,
    )

    util_now = _utilisation({d: t.peak for d, t in targets.items()}, consumer)
    util_horizon = _utilisation({d: t.grown for d, t in targets.items()}, consumer)
    topic_load = (
        sample.with_load(util_horizon)
        if sample is not None
        else TopicLoad(util_horizon, partitioner=history.partitioner)
    )
    counts = sorted({p, *s.partition_grid})
    grid = simulate_grid(
        topic_load,
        consumer_capacity=1.0,
        headroom_pct=member_headroom_pct(s.headroom_pct),
        partition_counts=counts,
        extra_members=grid_extra_members(s.min_group_members, (g.members for g in infos)),
    )
    at_p = grid.where(grid.partitions == p)
    current = history.current_partitions
    # Whether a group keeps up today is a question about today's partition count: when
    # it changes, the same partition loads the grid uses (the key sample hashed, or an
    # even spread) are placed on today's count at today's load.
    loads_now = (
        partition_loads(topic_load.with_load(util_now), current)
        if current is not None and current != p and any(g.members >= 1 for g in infos)
        else None
    )
    group_plans = tuple(
        plan_group(
            g,
            at_p,
            p,
            util_now,
            util_horizon,
            s,
            current_partitions=current,
            current_busiest=(
                busiest_member_load(loads_now, g.members, g.strategy)
                if loads_now is not None and g.members >= 1
                else None
            ),
        )
        for g in infos
    )
    warnings = (
        *_record_size_warnings(history, producer, consumer),
        *_unchecked_dimensions(targets, producer, consumer),
        *_warnings(history, choice, cost, grid, p, group_plans, skew, s.min_group_members),
        *_unread_topic(history, targets, sizing, sizing_now, choice, consuming),
    )
    rationale = (
        *_fan_out_rationale(history, consuming),
        *_rationale(history, targets, sizing, skew, choice, util_now, util_horizon, s),
    )
    return TopicPlan(
        topic=history.topic,
        status=choice.status,
        targets=targets,
        sizing_now=sizing_now,
        sizing=sizing,
        skew=skew,
        choice=choice,
        cost=cost,
        grid=grid,
        utilisation_now=util_now,
        utilisation_at_horizon=util_horizon,
        groups=group_plans,
        hot_keys=skew.hot_keys if skew else (),
        warnings=tuple(warnings),
        rationale=rationale,
        key_sample=sample,
        fan_out=fan_out,
    )


def _utilisation(rates: Mapping[str, float], consumer: SideCapacity) -> float:
    # How many consumers' worth of work the topic is: the tightest dimension decides.
    ratios = [
        rate / cap
        for dim, rate in rates.items()
        if (cap := consumer.for_dimension(dim)) is not None and cap > 0
    ]
    return max(ratios, default=0.0)


@dataclass(frozen=True)
class _StrategyRows:
    """One strategy's grid rows at one count, group sizes ascending from 1."""

    members: npt.NDArray[np.int64]
    max_load: npt.NDArray[np.float64]
    grow_revoked: npt.NDArray[np.int64]

    def smallest_fit(self, scale: float, limit: float, floor: int = 1) -> tuple[int, float] | None:
        """The smallest group of `floor` members or more whose busiest member, scaled,
        fits `limit`; and its load."""
        loads = self.max_load * scale
        fits = (loads <= limit * (1 + 1e-9)) & (self.members >= floor)
        # The first fitting row: argmax of a boolean array is its first True (a third of
        # flatnonzero's cost, asked six times per group plan).
        i = int(fits.argmax()) if fits.size else 0
        if not fits.size or not fits[i]:
            return None
        return int(self.members[i]), float(loads[i])

    def revoked(self, members: int, p: int) -> int:
        """Partitions revoked when a member joins a group of `members` (`p` if absent)."""
        at = self.members == members
        i = int(at.argmax()) if at.size else 0
        return int(self.grow_revoked[i]) if at.size and at[i] else p


def _rows_by_strategy(grid: GridResult, most: int) -> dict[str, _StrategyRows]:
    # The grid's columns split once per group plan instead of one filtered copy of the
    # whole grid per question asked of it (a dozen per group); sizes up to `most`.
    out = {}
    for strategy in STRATEGIES:
        chosen = np.flatnonzero((grid.strategy == strategy) & (grid.members <= most))
        order = chosen[np.argsort(grid.members[chosen])]
        out[strategy] = _StrategyRows(
            grid.members[order], grid.max_load[order], grid.grow_revoked[order]
        )
    return out


def busiest_member_load(loads: npt.ArrayLike, members: int, strategy: str) -> float | None:
    """The busiest member's load when `members` members share these partitions.

    A fresh assignment of one topic to members that all subscribe to it, as the grid
    computes it: `range` cuts the partitions into consecutive blocks, `roundrobin`,
    `sticky` and `cooperative-sticky` deal them in turn (a fresh sticky assignment is
    dealt as round-robin's); members beyond the partition count own nothing.

    Args:
        loads: Each partition's load, in the caller's load unit.
        members: The group's size (>= 1).
        strategy: Its strategy (Kafka's name).

    Returns:
        The busiest member's load, in the load unit; None for a strategy the planner
        does not simulate.
    """
    if members < 1:
        raise ValueError(f"a group has at least one member, got {members}")
    weights = np.asarray(loads, dtype=np.float64).reshape(-1)
    sizes = np.array([members], dtype=np.int64)
    if strategy == "range":
        member_loads = cf.range_member_loads(weights.size, sizes, weights)[0]
    elif strategy in STRATEGIES:
        member_loads = cf.roundrobin_member_loads(weights.size, sizes, weights)[0]
    else:
        return None
    return float(member_loads.max())


def strategy_choice_key(members: int, revoked: int, busiest: float, strategy: str) -> ChoiceKey:
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
        busiest: The busiest member's load at that size, in consumers (1.0 = Tc).
        strategy: The strategy (Kafka's name).
    """
    return (members, revoked, round(busiest, 9), strategy)


def strategy_switch_note(current: str, chosen: ChoiceKey, current_key: ChoiceKey | None) -> str:
    """Why `chosen` is recommended instead of the group's `current` strategy.

    Args:
        current: The group's strategy today.
        chosen: The recommended strategy's `strategy_choice_key`.
        current_key: The current strategy's key, None when no size of it fits (or the
            planner does not simulate it).
    """
    members, revoked, busiest, strategy = chosen
    if current_key is None:
        why = (
            f"no group size with {current} keeps the busiest member within the limit"
            if current in STRATEGIES
            else f"the planner does not simulate {current}"
        )
    elif current_key[0] > members:
        why = f"it needs {members} members where {current} needs {current_key[0]}"
    elif current_key[1] > revoked:
        why = (
            f"both fit with {members} members, and when a member joins it revokes {revoked} "
            f"partition{'' if revoked == 1 else 's'} against {current_key[1]} with {current}"
            + (
                " (only those that move), so the rest of the group keeps consuming through "
                "a rebalance"
                if strategy == "cooperative-sticky"
                else ""
            )
        )
    elif current_key[2] > busiest:
        why = (
            f"a lower busiest-member load at this group size ({busiest:.1%} of Tc against "
            f"{current_key[2]:.1%})"
        )
    else:
        why = "an equal choice (same size, revocations and load), first by name"
    note = f"{strategy} instead of {current}: {why}"
    if strategy == "cooperative-sticky" and current in EAGER_STRATEGIES:
        # KIP-429's upgrade path: a group's members must share an assignor. Listing both
        # keeps the group on the old, eager one until every member has the new one; the
        # second bounce then moves it to cooperative rebalancing.
        note += (
            f"; switching from the eager {current} takes two rolling bounces (KIP-429): "
            f"first every member with partition.assignment.strategy = "
            f"[cooperative-sticky, {current}], then again with {current} removed"
        )
    return note


def pct_apart(value: float, reference: float) -> tuple[str, str]:
    """`value` and `reference` as percentages with the fewest decimals (up to 3) that keep
    them apart when they differ: a member at 100.4 % of a consumer is "100.4%", not a
    "100%" that reads as keeping up."""
    digits = 0
    while digits < 3 and value != reference:
        if round(value * 100, digits) != round(reference * 100, digits):
            break
        digits += 1
    return f"{value:.{digits}%}", f"{reference:.{digits}%}"


def falling_behind_note(
    group_id: str,
    busiest: float,
    members: int,
    *,
    counted_on: str,
    members_needed: int,
    fits: bool,
    more_members_help: bool,
    recommended: str | None,
    strategy: str | None,
) -> str:
    """The note for a group whose busiest member needs more than one consumer today.

    Args:
        group_id: The group.
        busiest: Its busiest member's load at today's peak with its current size and
            strategy, in consumers (1.0 = Tc).
        members: Its members today.
        counted_on: Where that load was computed, as words appended to the sentence
            ("" when the partition counts do not change).
        members_needed: The members the plan needs for today's peak (`members_now`).
        fits: Whether any group size keeps the headroom on the recommended counts.
        more_members_help: Whether a member added today would own a partition.
        recommended: The recommended partitions in words ("the recommended 12
            partitions"); None when the counts do not change.
        strategy: The recommended strategy when the group's own does not keep up with
            `members_needed` members, else None.
    """
    head = (
        f"group {group_id!r} is falling behind now: its busiest member needs "
        f"{pct_apart(busiest, 1.0)[0]} "
        f"of one consumer's capacity at today's peak with {members} "
        f"member{'' if members == 1 else 's'}{counted_on}"
    )
    on = f" on {recommended}" if recommended else ""
    changes = [f"the increase to {recommended}"] if recommended else []
    if strategy:
        changes.append(f"a switch to {strategy}")
    change = " and ".join(changes)
    if not fits:
        tail = f"no group size keeps up with headroom{on} (see the group's notes)"
    elif members_needed <= members:
        tail = (
            f"after {change}, {members_needed} members keep up (it has {members})"
            if change
            else f"{members_needed} members would keep up: with {members} one member is "
            f"dealt too much"
        )
    elif more_members_help or not change:
        tail = f"add members ({members_needed} needed{on}{f' with {strategy}' if strategy else ''})"
    else:
        # Members beyond today's partitions (or range's largest topic) own nothing: the
        # increase, or a strategy that deals every partition, comes first.
        until = f"the increase to {recommended}" if recommended else f"a switch to {strategy}"
        tail = (
            f"more members would own no partition until {until}; then {members_needed} are "
            f"needed{f' with {strategy}' if strategy and recommended else ''}"
        )
    return f"{head}; {tail}"


def floor_note(
    by_load: int, members: int, min_group_members: int, standby: int = 0, owners: str = ""
) -> str:
    """Why a group is planned bigger than its load needs: the minimum group size.

    Args:
        by_load: The members today's load needs.
        members: The members planned.
        min_group_members: The minimum group size.
        standby: Of `members`, those that own no partition (the partitions run out).
        owners: Why, as a clause ("the topic has 1 partition"), when `standby`.
    """
    note = (
        f"today's load needs {by_load} member{'' if by_load == 1 else 's'}; {members} "
        f"planned so that a member can take over while another restarts "
        f"(min_group_members = {min_group_members})"
    )
    if standby:
        one = standby == 1
        note += (
            f"; {owners}, so {standby} of them own{'s' if one else ''} none and "
            f"stand{'s' if one else ''} by until a rebalance hands {'it' if one else 'them'} "
            f"the partitions of a member that fails or leaves"
        )
    return note


def plan_group(
    group: GroupInfo,
    grid: GridResult,
    p: int,
    util_now: float,
    util_horizon: float,
    s: PlanSettings,
    *,
    current_partitions: int | None = None,
    current_busiest: float | None = None,
) -> GroupPlan:
    """Plan one consumer group of a one-topic subscription on `p` partitions.

    Args:
        group: The group as it is today.
        grid: The simulation grid at `p` partitions, loads at the horizon in consumers.
        p: The partition count planned for.
        util_now: The topic's load today, in consumers.
        util_horizon: The topic's load at the horizon, in consumers.
        s: The planning settings (headroom).
        current_partitions: The topic's partitions today (None: a new topic, on which
            no group can be behind yet).
        current_busiest: The group's busiest member at today's peak, with its current
            size and strategy, on today's `current_partitions`, in consumers (None: read
            from `grid`, which is at `p`, and said so when `p` is not today's count).
    """
    # The grid is simulated at the horizon's load; loads scale linearly with the topic.
    limit = 1.0 - member_headroom_pct(s.headroom_pct) / 100.0
    scale_now = util_now / util_horizon if util_horizon > 0 else 0.0
    # No fewer members than the floor; no more than there are partitions to own, unless
    # the floor asks for more: those stand by (the grid simulates them, owning nothing).
    floor = s.min_group_members
    most = max(p, floor)
    standby_allowed = most - p
    owners = f"the topic has {p} partition{'' if p == 1 else 's'}"
    if len(grid) and int(grid.members.max()) < most:
        raise ValueError(
            f"group {group.group_id!r}: the grid simulates groups of up to "
            f"{int(grid.members.max())} members on {p} partitions; the minimum group size "
            f"needs {most} (simulate with extra_members of at least "
            f"grid_extra_members(min_group_members, ...))"
        )
    rows = _rows_by_strategy(grid, most)
    keys: dict[str, ChoiceKey] = {}
    for strategy in STRATEGIES:
        fit = rows[strategy].smallest_fit(scale_now, limit, floor)
        if fit is None:
            continue
        members, load = fit
        keys[strategy] = strategy_choice_key(
            members, rows[strategy].revoked(members, p), load, strategy
        )
    notes: list[str] = []
    fits = bool(keys)
    if not keys:
        # Even one member per partition is too slow: the busiest partition is too hot.
        strategy = "cooperative-sticky"
        members_now = most
        at_p = np.flatnonzero((grid.strategy == strategy) & (grid.members == p))
        busiest = float(grid.max_load[at_p[0]]) * scale_now if at_p.size else math.inf
        needs, against = pct_apart(busiest, limit)
        notes.append(
            f"even {p} member{'' if p == 1 else 's'} (one per partition) cannot keep up: "
            f"the busiest partition needs {needs} of one consumer's capacity against a "
            f"limit of {against}"
        )
        if standby_allowed:
            notes.append(
                f"{most} planned so that a member can take over while another restarts "
                f"(min_group_members = {floor}); {owners}, so {standby_allowed} of them "
                f"stand{'s' if standby_allowed == 1 else ''} by"
            )
        # The strategies compared at one member per partition (or the floor, when it
        # asks for more), for the switch note.
        for name in STRATEGIES:
            at_one_each = _load_at(rows[name], most, scale_now)
            if at_one_each is not None:
                keys[name] = strategy_choice_key(
                    most, rows[name].revoked(most, p), at_one_each, name
                )
        chosen = keys.get(strategy, (most, p, busiest, strategy))
    else:
        chosen = min(keys.values())
        members_now, _, busiest, strategy = chosen
        by_load = rows[strategy].smallest_fit(scale_now, limit)
        if by_load is not None and by_load[0] < members_now:
            notes.append(
                floor_note(by_load[0], members_now, floor, max(0, members_now - p), owners)
            )
    horizon = rows[strategy].smallest_fit(1.0, limit, floor)
    members_horizon = horizon[0] if horizon else most

    idle_now = max(0, group.members - p)
    status: GroupStatus = "ok"
    creating = creation.is_creation(current_partitions)
    if creation.is_deployment(current_members=group.members, creating=creating):
        status = "deploy"
        notes.append(
            creation.deploy_note(
                members=members_now, headroom_pct=s.headroom_pct, busiest_limit=limit
            )
        )
    elif group.members < members_now:
        status = "under-provisioned"
        notes.append(
            f"{group.members} member{'' if group.members == 1 else 's'} today, "
            f"{members_now} needed for today's peak with {s.headroom_pct:g} % headroom "
            f"(busiest member at most {limit:.0%} of Tc)"
        )
    elif idle_now > standby_allowed or group.members > members_horizon:
        status = "over-provisioned"
        if idle_now > standby_allowed:
            notes.append(
                f"{idle_now} of {group.members} members would own no partition: a classic "
                f"group cannot use more members than the topic's {p} partition"
                f"{'' if p == 1 else 's'}"
                + (
                    f" ({standby_allowed} kept as a standby: min_group_members = {floor})"
                    if standby_allowed
                    else ""
                )
            )
        else:
            notes.append(
                f"{group.members} members is more than the {members_horizon} needed even at "
                f"the end of the horizon"
            )
    if strategy != group.strategy:
        notes.append(strategy_switch_note(group.strategy, chosen, keys.get(group.strategy)))

    on_today = current_busiest is not None  # the caller's figure is on today's count
    if group.members < 1 or current_partitions is None:
        current_busiest = None
    elif current_busiest is None:
        # Read at p: members beyond the partitions own nothing, so p of them count.
        current_busiest = (
            _load_at(rows[group.strategy], min(group.members, p), scale_now)
            if group.strategy in rows
            else None
        )
    behind = None
    if current_partitions is not None and current_busiest is not None and current_busiest > _BEHIND:
        changes = current_partitions != p
        if not changes:
            counted_on = ""
        elif on_today:
            plural = "" if current_partitions == 1 else "s"
            counted_on = f" on today's {current_partitions} partition{plural}"
        else:
            counted_on = (
                f" (read at the recommended {p} partitions: its load on today's "
                f"{current_partitions} was not computed)"
            )
        behind = falling_behind_note(
            group.group_id,
            current_busiest,
            group.members,
            counted_on=counted_on,
            members_needed=members_now,
            fits=fits,
            more_members_help=group.members < current_partitions,
            recommended=f"the recommended {p} partitions" if changes else None,
            # Named only when the group's own strategy needs more members than that.
            strategy=(
                strategy
                if group.strategy not in keys or keys[group.strategy][0] > members_now
                else None
            ),
        )
        notes.append(behind)
    recommended = {
        "ok": group.members,
        "under-provisioned": members_now,
        "over-provisioned": members_horizon,
        "deploy": members_now,
    }[status]
    return GroupPlan(
        group_id=group.group_id,
        current_members=group.members,
        current_strategy=group.strategy,
        recommended_members=recommended,
        members_now=members_now,
        members_at_horizon=members_horizon,
        strategy=strategy,
        busiest_utilisation=busiest,
        fits=fits,
        status=status,
        idle_members_now=idle_now,
        notes=tuple(notes),
        busiest_utilisation_current=current_busiest,
        falling_behind=behind,
        standby_members=max(0, recommended - p),
    )


def _load_at(rows: _StrategyRows, members: int, scale: float) -> float | None:
    # The busiest member's load at one group size, scaled (None: size not simulated).
    at = np.flatnonzero(rows.members == members)
    return float(rows.max_load[at[0]]) * scale if at.size else None


def _warnings(
    history: TopicHistory,
    choice: PartitionChoice,
    cost: PartitionCost,
    grid: GridResult,
    p: int,
    groups: tuple[GroupPlan, ...],
    skew: SkewRequirement | None,
    floor: int,
) -> tuple[str, ...]:
    warnings: list[str] = []
    if skew is not None and not skew.fits:
        warnings.append(
            f"key skew: up to {skew.tried_up_to} partitions the busiest partition still "
            f"carries {skew.busiest_share:.1%} of the topic, more than one partition's "
            f"capacity: spread the keys (a better key, or a salt) rather than add partitions"
        )
    current = history.current_partitions
    if history.keyed and current is not None and choice.recommended > current:
        warnings.append(
            f"keyed topic: going from {current} to {choice.recommended} partitions changes "
            f"hash(key) % partitions, so most keys move to another partition and per-key "
            f"ordering breaks across the change. Sized for the end of the horizon "
            f"({choice.recommended}, where today's peak needs {choice.required_now}) so it "
            f"happens once. To keep each key's order: stop the producers, wait until every "
            f"consumer group's lag on the topic is 0, alter the partition count, then "
            f"restart the producers (a producer reads the new count when it starts; one left "
            f"running keeps the old count until its next metadata refresh, "
            f"metadata.max.age.ms, 5 minutes by default). Restart them once the groups own "
            f"the new partitions (they too notice them within metadata.max.age.ms): a group "
            f"with auto.offset.reset=latest skips what is written to a partition before it "
            f"owns it"
        )
    for hot in skew.hot_keys[:5] if skew else ():
        name = hot.key.decode("utf-8", "backslashreplace") if hot.key is not None else "null"
        warnings.append(
            f"hot key {name!r} carries {hot.share:.1%} of the records: "
            f"{pct_apart(hot.rate, 1.0)[0]} of "
            f"what one partition and its consumer can take at the planned target. No "
            f"partition count fixes a single key: make its consumer faster or split the key"
        )
    hot_rows = grid.where((grid.partitions == p) & grid.hot_partition)
    if len(hot_rows) and not (skew and skew.hot_keys):
        warnings.append(
            f"the busiest of the {p} partitions carries "
            f"{pct_apart(float(hot_rows.max_partition_load[0]), 1.0)[0]} of one consumer's "
            f"capacity at "
            f"the end of the horizon"
        )
    warnings.extend(cost.warnings)
    for g in groups:
        if g.falling_behind:
            warnings.append(g.falling_behind)
        idle = _idle_warning(g, current, p, floor)
        if idle:
            warnings.append(idle)
    return tuple(warnings)


def _idle_warning(g: GroupPlan, current: int | None, p: int, floor: int) -> str | None:
    # Members owning no partition, today and at the recommended count, said apart when
    # the count changes (`idle_members_now` is at the recommended count). Those the
    # minimum group size keeps as standbys on a topic with fewer partitions are planned,
    # not warned about.
    if current is None or current == p:
        allowed = max(0, floor - p)
        if g.idle_members_now <= allowed:
            return None
        return (
            f"group {g.group_id!r} has {g.current_members} members for {p} "
            f"partition{'' if p == 1 else 's'}: {g.idle_members_now} sit idle"
            + (
                f"; min_group_members = {floor} asks for {allowed} standby"
                f"{'' if allowed == 1 else 's'}"
                if allowed
                else ""
            )
        )
    idle_today = max(0, g.current_members - current)
    if idle_today <= max(0, floor - current):
        return None
    today = (
        f"group {g.group_id!r}: of its {g.current_members} members, {idle_today} "
        f"own{'s' if idle_today == 1 else ''} no "
        f"partition today ({current} partition{'' if current == 1 else 's'})"
    )
    if g.idle_members_now:
        return f"{today} and {g.idle_members_now} will after the increase to {p} partitions"
    return f"{today}; after the increase to {p} partitions every member owns at least one"


def mean_record_bytes(history: TopicHistory) -> float | None:
    """The topic's mean record size over its samples, bytes: bytes in / records in.

    Samples with both figures only; None when there are none, or no records.
    """
    if history.mib_in is None or history.records_in is None:
        return None
    mib = np.asarray(history.mib_in, dtype=np.float64)
    records = np.asarray(history.records_in, dtype=np.float64)
    both = np.isfinite(mib) & np.isfinite(records)
    total = float(records[both].sum())
    return float(mib[both].sum()) * 2**20 / total if total > 0 else None


def _record_size_warnings(
    history: TopicHistory, producer: SideCapacity, consumer: SideCapacity
) -> tuple[str, ...]:
    # A capacity measured on records of another size does not carry over (the domain's
    # "message size changes everything"): say so when they differ by a factor of
    # `RECORD_SIZE_RATIO` or more.
    mean = mean_record_bytes(history)
    if mean is None or mean <= 0:
        return ()
    off: dict[float, list[str]] = {}
    for name, side in (("Tp", producer), ("Tc", consumer)):
        measured = side.record_bytes
        if (
            measured is None
            or measured <= 0
            or (side.mib_per_s, side.records_per_s)
            == (
                None,
                None,
            )
        ):
            continue
        if max(measured / mean, mean / measured) >= RECORD_SIZE_RATIO:
            off.setdefault(measured, []).append(name)
    out = []
    for measured, names in off.items():
        which = " and ".join(names)
        factor = max(measured / mean, mean / measured)
        relation = "smaller" if mean < measured else "larger"
        out.append(
            f"{which} {'were' if len(names) > 1 else 'was'} measured with "
            f"{measured:,.0f}-byte records, and this topic's records average "
            f"{mean:,.0f} bytes ({factor:.1f}x {relation}): a partition's MiB/s and "
            f"records/s depend on the record size, so {which} may not hold for this topic; "
            f"re-measure {'them' if len(names) > 1 else 'it'} on records of about "
            f"{mean:,.0f} bytes (kafka-producer-perf-test --record-size {mean:.0f}"
            + ("; Tc with the real consumer reading them" if "Tc" in names else "")
            + ")"
        )
    return tuple(out)


def _unchecked_dimensions(
    targets: Mapping[str, PlanningTarget], producer: SideCapacity, consumer: SideCapacity
) -> tuple[str, ...]:
    # A dimension with a target but no capacity on either side is skipped by the rule
    # (`SizingResult.skipped`); the count then rests on the other dimensions alone.
    out = []
    for dim in targets:
        tp = None if dim == "mib_out" else producer.for_dimension(dim)
        if tp is not None or consumer.for_dimension(dim) is not None:
            continue
        if dim == "records_in":
            out.append(
                "records/s in was not checked: neither Tp nor Tc has a records/s figure, so "
                "the count rests on MiB/s alone; a topic of small records may need more "
                "partitions than its MiB/s shows (measure records/s with the perf-test tools)"
            )
        elif dim == "mib_in":
            out.append(
                "MiB/s in was not checked: neither Tp nor Tc has a MiB/s figure, so the count "
                "rests on records/s alone; a topic of large records may need more partitions "
                "than its records/s shows (measure MiB/s with the perf-test tools)"
            )
        else:
            out.append(
                "MiB/s out per group was not checked: Tc has no MiB/s figure, so a group "
                "reading faster than producers write (catching up, or replaying) is not sized "
                "for"
            )
    return tuple(out)


def _max_side(sizing: SizingResult, side: Literal["producer", "consumer"]) -> int:
    # The partitions one side alone asks for, over every dimension it was measured in.
    needs = (getattr(r, f"{side}_partitions") for r in sizing.requirements)
    return max((n for n in needs if n is not None), default=0)


def _unread_topic(
    history: TopicHistory,
    targets: Mapping[str, PlanningTarget],
    sizing: SizingResult,
    sizing_now: SizingResult,
    choice: PartitionChoice,
    consuming: int,
) -> tuple[str, ...]:
    # A topic no consumer group reads, sized by the consumer side: the number stays (it
    # is the conservative answer), but what it is for should be said.
    current = choice.current
    if consuming or sizing.deciding_side != "consumer":
        return ()
    if current is not None and choice.recommended <= current:
        return ()
    need = sizing.required_partitions
    producers = _max_side(sizing, "producer")
    head = (
        f"no consumer group reads this topic in the figures, yet the consumer side decides "
        f"its count ({need} partitions for {_UNITS[sizing.deciding_dimension]}"
        + (f"; producers alone need {producers}" if producers else "")
        + ")"
    )
    out = targets.get("mib_out")
    if out is not None and out.peak > 0:
        return (
            f"{head}, and it has bytes out ({_fmt(out.peak)} MiB/s at the peak): something "
            f"reads it outside any known group (a consumer using assign(), or a group the "
            f"figures left out), so the requirement is for a real reader; find it",
        )
    if current is None:
        return (
            f"{head}: that requirement is for a consumer that does not exist yet. The number "
            f"stays, since partitions are hard to add later, but only a consumer about to be "
            f"deployed needs it",
        )
    producers_now = _max_side(sizing_now, "producer")
    due = (
        f"; the producer side alone needs {producers_now} today, more than the "
        f"{current} it has, so an increase to {producers_now} is due now"
        if producers_now > current
        else ""
    )
    return (
        f"{head}: that requirement is for a consumer that does not exist yet. The number "
        f"stays, since partitions are hard to add later, but the increase from {current} is "
        f"not urgent for today's traffic unless a consumer is about to be deployed{due}",
    )


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def _fan_out_rationale(history: TopicHistory, consuming: int) -> tuple[str, ...]:
    if history.mib_out is None or consuming == 1:
        return ()
    if consuming == 0:
        # The conservative reading: one unseen group may read at the topic's whole rate.
        return (
            f"{_UNITS['mib_out']}: no consumer group is known to read the topic, so all of "
            f"its bytes out count as one group's read rate",
        )
    return (
        f"{_UNITS['mib_out']}: bytes out divided over the {consuming} consumer groups that "
        f"read the topic",
    )


def _rationale(
    history: TopicHistory,
    targets: Mapping[str, PlanningTarget],
    sizing: SizingResult,
    skew: SkewRequirement | None,
    choice: PartitionChoice,
    util_now: float,
    util_horizon: float,
    s: PlanSettings,
) -> tuple[str, ...]:
    out: list[str] = []
    for dim, t in targets.items():
        growth = (
            f"growth {t.growth_per_year:+.0%}/year ({t.growth_source})"
            if t.growth_per_year
            else "no growth"
        )
        out.append(
            f"{_UNITS[dim]}: p{s.percentile:g} peak {_fmt(t.peak)}, {growth} over "
            f"{t.horizon_days:g} days (x{t.growth_factor:.3f}) = {_fmt(t.grown)}, "
            f"+{t.headroom_pct:g} % headroom = target {_fmt(t.target)}"
        )
    for r in sizing.requirements:
        parts = []
        if r.producer_capacity is not None:
            parts.append(
                f"producers ceil({_fmt(r.target)} / Tp {_fmt(r.producer_capacity)}) "
                f"= {r.producer_partitions}"
            )
        if r.consumer_capacity is not None:
            parts.append(
                f"consumers ceil({_fmt(r.target)} / Tc {_fmt(r.consumer_capacity)}) "
                f"= {r.consumer_partitions}"
            )
        out.append(f"{_UNITS[r.dimension]}: " + ", ".join(parts))
    out.append(
        f"the rule asks for {sizing.required_partitions} "
        f"partition{'' if sizing.required_partitions == 1 else 's'}, decided by "
        f"{_UNITS[sizing.deciding_dimension]} "
        + (
            "on both sides (a tie)"
            if sizing.deciding_side == "both"
            else f"on the {sizing.deciding_side} side"
        )
    )
    if skew is not None and skew.fits and skew.partitions > sizing.required_partitions:
        out.append(
            f"the keys do not spread evenly: with {sizing.required_partitions} partitions the "
            f"busiest would be over capacity; {skew.partitions} is the smallest count whose "
            f"busiest partition ({skew.busiest_share:.1%} of the topic"
            + (", hot keys aside" if skew.hot_share else "")
            + ") fits"
        )
    horizon_need = max(sizing.required_partitions, skew.partitions if skew and skew.fits else 0)
    if choice.required_now > horizon_need:
        out.append(
            f"today needs {choice.required_now} partitions, more than the end of the horizon's "
            f"{horizon_need}: a key hot only at the horizon (beyond one partition's capacity "
            "there, so left out of its requirement) still fits one partition today and must "
            f"not share it with too much else; partitions cannot be removed, so "
            f"{choice.required_now} is the requirement to the end of the horizon too"
        )
    out.append(f"recommended {choice.recommended}: {choice.reason}")
    out.append(
        f"consumer load: {util_now:.2f} consumers' worth today, {util_horizon:.2f} at the "
        f"end of the horizon (the tightest of MiB/s and records/s against Tc)"
    )
    return tuple(out)
