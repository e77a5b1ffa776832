"""The values a plan is made of: settings, a topic's history, groups, and the plans.

`planner.recommend.topic.plan_topic` makes a `TopicPlan`; `planner.recommend.group`
the `GroupPlan` of each consumer group reading the topic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy.typing as npt

from planner import fit
from planner.choices import DEFAULT_PARTITIONER
from planner.cost import CostSettings, PartitionCost
from planner.cross_zone import GroupCrossZone
from planner.growth import GrowthModel
from planner.notes import Note
from planner.recommend.consumers import ConsumerChoice
from planner.recommend.key_skew import SkewRequirement
from planner.recommend.partitions import PartitionChoice, Status
from planner.recommend.share import ShareLimits, ShareSizing
from planner.simulate import GridResult, HotKey, TopicLoad
from planner.sizing import DEFAULT_HEADROOM_PCT, DEFAULT_HORIZON_DAYS, PlanningTarget, SizingResult
from planner.standbys import Changelog, StandbyCost

__all__ = [
    "PLANNED_GROUP",
    "Candidate",
    "ChoiceKey",
    "ConsumerCapacity",
    "GroupInfo",
    "GroupLag",
    "GroupPlan",
    "GroupStatus",
    "PlanSettings",
    "TopicHistory",
    "TopicPlan",
]

#: `no-standby`: enough members for today's load, fewer than `min_group_members`: none
#: to take over while one restarts. A floor is not a load, so it is not
#: `under-provisioned` (too few members for the load).
GroupStatus = Literal["ok", "under-provisioned", "no-standby", "over-provisioned", "deploy"]
#: A strategy's rank among those that fit: (members, partitions revoked when a member
#: joins, busiest-member load, name); the smallest wins (`strategy_choice_key`).
ChoiceKey = tuple[int, int, float, str]


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
        partition_grid: Counts simulated for every topic besides its own candidates
            (current, required today and at the horizon, recommended); none unless
            given: at 10,000 topics, the counts 12 to 192 are about 16 million grid rows.
        min_group_members: Fewest members recommended for a consumer group: with one
            member, nothing consumes while it restarts. On a topic with fewer partitions,
            the members beyond them own none and stand by (`GroupPlan.standby_members`).
        cost: Client/broker settings and limits for the cost panel.
        share: The share-partition settings share groups are sized with (Kafka 4.4.0's
            defaults, or the config's `[planning.share]`).
        cross_zone_price_per_gib: Price of one GiB fetched across zones, in whatever
            currency the user bills in (no default: without it the plan gives bytes only).
    """

    percentile: float = 99.0
    headroom_pct: float = DEFAULT_HEADROOM_PCT
    horizon_days: float = DEFAULT_HORIZON_DAYS
    growth_model: GrowthModel = "exponential"
    floor_growth_per_year: float = 0.0
    min_growth_days: int = 7
    evenness_slack_pct: float = 20.0
    max_partitions: int = 1_000
    partition_grid: tuple[int, ...] = ()
    min_group_members: int = 2
    cost: CostSettings = field(default_factory=CostSettings)
    share: ShareLimits = field(default_factory=ShareLimits)
    cross_zone_price_per_gib: float | None = None

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        """The settings a config's `[planning]` table may set: every field but the
        nested `cost` settings, which keep their defaults, and `share`, which has a
        table of its own (`[planning.share]`, `ShareLimits.config_keys`)."""
        return tuple(f.name for f in fields(cls) if f.name not in ("cost", "share"))

    @property
    def member_load_limit(self) -> float:
        """The most load one group member may carry, in consumers (`planner.fit`)."""
        return fit.member_load_limit(self.headroom_pct)

    def __post_init__(self) -> None:
        if not 0 <= self.headroom_pct < 100:
            raise ValueError(f"headroom_pct must be in [0, 100), got {self.headroom_pct}")
        if isinstance(self.min_group_members, bool) or not isinstance(self.min_group_members, int):
            raise ValueError(
                f"min_group_members must be a whole number, got {self.min_group_members!r}"
            )
        if self.min_group_members < 1:
            raise ValueError(f"min_group_members must be 1 or more, got {self.min_group_members}")
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in self.partition_grid):
            raise ValueError(
                f"partition_grid must be whole numbers >= 1, got {self.partition_grid!r}"
            )
        price = self.cross_zone_price_per_gib
        if price is not None and (
            isinstance(price, bool)
            or not isinstance(price, int | float)
            or not math.isfinite(price)
            or price < 0
        ):
            raise ValueError(
                f"cross_zone_price_per_gib must be a finite number >= 0, got {price!r}"
            )


@dataclass(frozen=True)
class GroupInfo:
    """A consumer group reading the topic.

    Attributes:
        group_id: The group's id.
        strategy: Its assignor as the broker names it for its protocol (a classic
            group's `partition.assignment.strategy`, `stream` for Kafka Streams on the
            classic protocol, `uniform` or `range` for the consumer protocol, `simple`
            for a share group, `sticky` for a streams group); see
            `planner.protocols.GROUP_STRATEGIES`.
        members: Members today (0 for a planned group).
        protocol: Its group protocol (`planner.protocols.PROTOCOLS`).
        capacity_records_per_s: `Tc_g`, records/s one member of the group processes
            from the topic (a lower bound when `capacity_source` is `lower-bound`); None
            when the figures have none and the topic's Tc applies
            (`planner.recommend.group_capacity`).
        capacity_source: How `Tc_g` is known (`planner.group_capacity.CAPACITY_SOURCES`);
            None when the figures do not say.
        capacity_evidence: The windows and facts `Tc_g` rests on, in a sentence.
        lag_records: The group's lag on the topic at the interval's end, records.
        lag_seconds: Its time lag then, seconds.
        lag_trend: `growing`, `steady` or `shrinking` over the interval; None where the
            group was not observed (then only Tc can say it falls behind).
        client_racks: Its members' ``client.rack`` in turn (`planner.cross_zone.client_racks`);
            empty when not known.
        stream_threads: For a Kafka Streams application, the stream threads each of its
            instances runs (`num.stream.threads`); None when not known.
        standby_replicas: For a Kafka Streams application, its standby replicas per
            stateful task as given (`planner.standbys`); None when not given.
        changelogs: For a Kafka Streams application, its changelog topics as the
            figures know them (`planner.standbys.Changelog`).
    """

    group_id: str
    strategy: str
    members: int
    protocol: str = "classic"
    capacity_records_per_s: float | None = None
    capacity_source: str | None = None
    capacity_evidence: str | None = None
    lag_records: float | None = None
    lag_seconds: float | None = None
    lag_trend: str | None = None
    client_racks: tuple[str, ...] = ()
    stream_threads: int | None = None
    standby_replicas: int | None = None
    changelogs: tuple[Changelog, ...] = ()

    @classmethod
    def of(cls, spec: object) -> GroupInfo:
        """A group from a `GroupInfo`, a mapping with its fields, or a sequence of them
        in order: what `json.load` gives for one (`{"group_id": "billing", "strategy":
        "range", "members": 3}` or `["billing", "range", 3]`; `protocol` may follow,
        `classic` when it does not).

        Raises:
            TypeError: anything else, or a field of the wrong type (the message names it).
        """
        if isinstance(spec, GroupInfo):
            return spec
        names = ("group_id", "strategy", "members")
        everything = (*names, "protocol")
        if isinstance(spec, Mapping):
            if not set(names) <= set(spec) <= set(everything):
                raise TypeError(
                    f"a group spec has the keys {', '.join(names)} (and optionally "
                    f"protocol), got {sorted(map(str, spec))}"
                )
            values = tuple(spec.get(n, "classic") for n in everything)
        elif isinstance(spec, list | tuple) and len(spec) in (len(names), len(everything)):
            values = (*spec, "classic") if len(spec) == len(names) else tuple(spec)
        else:
            raise TypeError(
                f"a group spec is a GroupInfo, a mapping of {', '.join(names)} (and "
                f"optionally protocol) or a list of them in that order, got {spec!r}"
            )
        group_id, strategy, members, protocol = values
        if not all(isinstance(v, str) for v in (group_id, strategy, protocol)):
            raise TypeError(f"group_id, strategy and protocol are str, got {spec!r}")
        if isinstance(members, bool) or not isinstance(members, int):
            raise TypeError(f"members is a whole number (int), got {members!r} in {spec!r}")
        return cls(group_id, strategy, members, protocol)


#: A group reading only the topic that runs no member yet: `TopicPlan.one_group` is its
#: plan. It starts on the strategy the planner prefers on a tie, so its plan carries no
#: "switch strategy" note; real group ids are never empty (the figures' `groups` table
#: rejects them), so it cannot be taken for one.
PLANNED_GROUP = GroupInfo("", "cooperative-sticky", 0)


@dataclass(frozen=True)
class TopicHistory:
    """A topic's figures over the data window, and what the planner knows about it.

    Attributes:
        topic: The topic name.
        ts_s: Sample times, seconds since the epoch (UTC).
        mib_in: MiB/s in per sample (or None).
        records_in: Records/s in per sample (or None).
        mib_out: MiB/s out per sample, all groups together (or None).
        mib_out_busiest_group: MiB/s read by the busiest consumer group per sample, where
            observed (NaN elsewhere; or None): planned instead of `mib_out` divided over
            the groups, which counts today's groups in every past sample.
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
    mib_out_busiest_group: npt.ArrayLike | None = None
    current_partitions: int | None = None
    replication_factor: int = 3
    keyed: bool = False
    partitioner: str = DEFAULT_PARTITIONER
    retention_ms: int | None = None
    keys: Any = None
    key_counts: npt.ArrayLike | None = None


@dataclass(frozen=True)
class ConsumerCapacity:
    """One member's capacity on the topic as a group's plan states it.

    Attributes:
        records_per_s: `Tc_g` (a lower bound for `lower-bound`), or the topic's Tc in
            records/s for `topic-default`; None when neither is known.
        mib_per_s: The same in MiB/s at the topic's mean record size (None when that
            size is unknown).
        source: `given`, `saturation`, `busy-fraction`, `lower-bound` or
            `topic-default`.
        evidence: What `Tc_g` rests on, in a sentence (None for `topic-default`).
        members_now_at_topic_tc: The members today's load would need were the group
            sized with the topic's Tc instead (`members_now` of that plan); None when
            its Tc is the topic's (nothing to compare).
    """

    records_per_s: float | None
    mib_per_s: float | None
    source: str
    evidence: str | None = None
    members_now_at_topic_tc: int | None = None


@dataclass(frozen=True)
class GroupLag:
    """A group's lag on the topic at the figures' interval end.

    Attributes:
        records: Records behind, summed over the partitions.
        seconds: Time lag, seconds (the oldest record not consumed).
        trend: `growing`, `steady` or `shrinking` over the interval.
    """

    records: float | None
    seconds: float | None
    trend: str | None


@dataclass(frozen=True)
class GroupPlan:
    """The recommendation for one consumer group on the recommended partition count.

    Attributes:
        group_id: The group.
        current_members: Members today.
        current_strategy: Its strategy today.
        recommended_members: What to run: the current size when it covers today and
            does not exceed the horizon's need, else `members_now` (under-provisioned,
            no-standby) or `members_at_horizon` (over-provisioned).
        members_now: Smallest group of at least `min_group_members` whose busiest
            member stays within capacity less headroom at today's peak (at most the
            partition count, or `min_group_members` when that is more).
        members_at_horizon: The same at the end of the horizon.
        strategy: The strategy recommended for that group.
        busiest_utilisation: Busiest member's load at `members_now`, as a fraction of
            one consumer's capacity.
        fits: Whether any group size up to the partition count fits.
        status: `ok`, `under-provisioned` (fewer members than today's load needs),
            `no-standby` (enough for today's load, fewer than `min_group_members`),
            `over-provisioned` (more than the horizon needs, or idle members) or
            `deploy` (no member yet, reading only topics to be created).
        idle_members_now: Members today that own no partition at the recommended count.
        notes: Its notes (`planner.recommend.notes`).
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
        topics: The topics the group reads, in Java string order.
        warnings: The warnings the group gives its topics: falling behind, members
            that own no partition.
        protocol: The group's protocol (`planner.protocols.PROTOCOLS`);
            `current_strategy` and `strategy` are assignors of that protocol, as the
            broker names them.
        planned_as: The strategy key the simulation planned it with
            (`planner.simulate.strategies`): the assignor itself, or for Kafka Streams
            the classic strategy that cuts its tasks alike.
        consumer_capacity: The Tc its members were sized with, and where it comes from
            (`planner.recommend.consumer_capacity`); None where the plan does not say
            (a group of several topics, whose capacity is per topic).
        lag: Its lag on the topic as observed (None: not observed).
        cross_zone: Its fetched bytes per day by zone under the planned assignment
            (`planner.recommend.cross_zone`); None where brokers' racks or replica lists
            are unknown, or for a share group.
        cross_zone_advice: What the figure supports saying (`planner.cross_zone.advice`).
        standbys: For a Kafka Streams application planned on one topic, its standby
            tasks and what they cost (`planner.standbys.standby_cost`); None otherwise.
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
    notes: tuple[Note, ...]
    busiest_utilisation_current: float | None = None
    falling_behind: Note | None = None
    standby_members: int = 0
    topics: tuple[str, ...] = ()
    warnings: tuple[Note, ...] = ()
    protocol: str = "classic"
    planned_as: str = ""
    consumer_capacity: ConsumerCapacity | None = None
    lag: GroupLag | None = None
    cross_zone: GroupCrossZone | None = None
    cross_zone_advice: tuple[Note, ...] = ()
    standbys: StandbyCost | None = None


@dataclass(frozen=True)
class Candidate:
    """A partition count the plan looked at, with its cost panel
    (`planner.recommend.candidates.topic_candidates` decides which).

    Attributes:
        partitions: The count.
        cost: Its cost panel (`planner.recommend.topic_cost`).
        is_current: The count today.
        is_required_now: The requirement at today's peak (`PartitionChoice.required_now`).
        is_required: The requirement at the end of the horizon.
        is_recommended: The recommended count.
        considered: Weighed by the choice for evenness (`PartitionChoice.candidates`).
        simulated: Its consumer-group grid is simulated (the fleet's `simulations`).
        even_group_sizes: The group sizes it splits evenly over.
    """

    partitions: int
    cost: PartitionCost
    is_current: bool
    is_required_now: bool
    is_required: bool
    is_recommended: bool
    considered: bool
    simulated: bool
    even_group_sizes: tuple[int, ...]


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
        grid: The simulation at the recommended count, in load normalised to one
            consumer (1.0 = one consumer's capacity) at the horizon: what the group
            plans and warnings read. The grids of the other simulated candidates come
            from the same call (`planner.recommend.candidates.topic_grid`).
        utilisation_now: Topic load today in consumers (`max(rate_d / Tc_d)`).
        utilisation_at_horizon: The same at the end of the horizon.
        groups: One plan per consumer group.
        hot_keys: Keys above one partition's capacity at the planned target by themselves
            (`rate` in partitions' worth; see `SkewRequirement`).
        warnings: Its warnings (`planner.recommend.notes`), its groups' among them.
        rationale: The arithmetic, in plain sentences.
        key_sample: The key sample the plan hashed (load 1.0), keyed topics only: its
            hashes are kept, so placing it on more partition counts hashes nothing again.
        one_group: The plan of one group reading only this topic that runs no member
            yet (`PLANNED_GROUP`): the consumers the topic needs when no group with a
            plan reads it.
        fan_out: The consumer groups the topic's bytes out were divided over (at least
            1): every group fetches all of them, so `mib_out` is planned as one group's
            read rate, `TopicHistory.mib_out / fan_out`.
        consumers: The consumers to run, chosen among `groups` and `one_group`
            (`planner.recommend.choose_consumers`); groups that read other topics too
            are planned apart, and the choice is made again with them by whoever plans
            them (the `simulate_assignments` job).
        alternatives: Other group protocols for its classic groups, with numbers
            (`planner.notes` codes `consumer-protocol-alternative`, `share-alternative`,
            and `share-not-for-keyed` saying why a keyed topic gets no share group).
        share: The share-group model's sizing at the end of the horizon, when share
            groups read the topic (None otherwise): its partition bounds count in the
            requirement.
        topic_tc_records_per_s: The topic's Tc in records/s that each group's own Tc
            is compared with (`planner.recommend.consumer_capacity`): its Tc in
            records/s, or in MiB/s at its mean record size; None when neither is known.
        candidates: Every count considered or simulated, in increasing order, with its
            cost panel (`Candidate`); the recommended one's is `cost`.
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
    warnings: tuple[Note, ...]
    rationale: tuple[str, ...]
    key_sample: TopicLoad | None = field(default=None, repr=False, compare=False)
    fan_out: int = 1
    one_group: GroupPlan | None = None
    consumers: ConsumerChoice | None = None
    alternatives: tuple[Note, ...] = ()
    share: ShareSizing | None = None
    topic_tc_records_per_s: float | None = None
    candidates: tuple[Candidate, ...] = ()

    @property
    def simulated_counts(self) -> tuple[int, ...]:
        """The candidates whose grid is simulated, in increasing order."""
        return tuple(c.partitions for c in self.candidates if c.simulated)

    @property
    def recommended_partitions(self) -> int:
        """The partition count to have."""
        return self.choice.recommended
