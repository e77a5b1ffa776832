"""The report model of one topic: its numbers, its groups, and the why.

A `TopicReport` is everything a topic's page says: the partition numbers, the
arithmetic per dimension, the candidates, the cost panel, the consumer groups, the
warnings (sentences and their coded form), and the chart series (`series`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal, get_args

from planner.choices import DEFAULT_PARTITIONER
from planner.group_labels import group_label
from planner.notes import LISTED_WITH_TOPIC, render_coded
from planner.protocols import DEFAULT_PROTOCOL, PROTOCOLS
from planner.recommend.partitions import SIZED_STATUSES
from planner.report.model.codec import Model, at_least
from planner.report.model.series import (
    ChurnChart,
    MemberLoadChart,
    PartitionLoadChart,
    ThroughputHistory,
)
from planner.sizing import DIMENSION_LABELS, years_to_grow

__all__ = [
    "DIMENSION_UNITS",
    "GROUP_STATUSES",
    "PLANNED_STATUSES",
    "RULE",
    "TOPIC_STATUSES",
    "Candidate",
    "CapacityScope",
    "CodedNote",
    "CostPanel",
    "Deciding",
    "DimensionArithmetic",
    "GroupReport",
    "GroupStatus",
    "TopicReport",
    "TopicStatus",
]

#: `ok`: enough partitions to the end of the horizon; `plan-increase`: enough today, not
#: by the end of the horizon; `increase`: not enough today; `missing-capacity`: no Tp/Tc
#: (or no throughput) to size on; `error`: planning failed; `no-figures`: in the topics
#: table, but no throughput sample in the history window; `unknown-topic`: throughput
#: for a topic the topics table does not list; `invalid-figures`: its figures broke a
#: row-level input rule and were set aside (docs/validation.md). All but the first three
#: say why in `TopicReport.error`. `create`: a topic that does not exist yet, planned
#: before it is created (`planner.recommend.creation`); it is sized like the first three.
TopicStatus = Literal[
    "ok",
    "plan-increase",
    "increase",
    "create",
    "missing-capacity",
    "error",
    "no-figures",
    "unknown-topic",
    "invalid-figures",
]
TOPIC_STATUSES: tuple[TopicStatus, ...] = get_args(TopicStatus)
#: The statuses of a topic that was sized (its numbers are all present): the core's
#: `planner.recommend.partitions.SIZED_STATUSES`.
PLANNED_STATUSES: frozenset[str] = frozenset(SIZED_STATUSES)
#: `unplanned`: a topic the group reads has no plan, so neither has the group (its notes
#: say which topic and why); its sizes and recommended strategy are then None. `deploy`:
#: a group with no member yet, reading a topic to be created.
GroupStatus = Literal[
    "ok", "under-provisioned", "no-standby", "over-provisioned", "unplanned", "deploy"
]
GROUP_STATUSES: tuple[GroupStatus, ...] = get_args(GroupStatus)
Dimension = Literal["mib_in", "records_in", "mib_out"]
Side = Literal["producer", "consumer", "both"]
#: Where a capacity came from: the topic's own row, or the `*` default row.
CapacityScope = Literal["topic", "*"]

DIMENSION_UNITS: Mapping[str, str] = DIMENSION_LABELS
#: The sizing rule in words (`planner.sizing`).
RULE = (
    "partitions >= max(target / Tp, target / Tc), rounded up, in every dimension measured; "
    "the largest requirement wins, and a keyed topic also needs its busiest partition to fit"
)


@dataclasses.dataclass(frozen=True)
class Deciding(Model):
    """The dimension and side whose requirement set the partition count."""

    dimension: Dimension
    side: Side


@dataclasses.dataclass(frozen=True)
class DimensionArithmetic(Model):
    """The rule in one dimension, with every number a reader needs to check it.

    Attributes:
        dimension: `mib_in`, `records_in` or `mib_out` (one group's read rate).
        peak: The observed peak (percentile of the samples), in the dimension's unit.
        growth_per_year: Growth applied, yearly fraction.
        growth_method: How the growth was obtained, in words (fitted how, or the floor).
        growth_factor: Multiplier from the peak to the end of the horizon.
        grown: The peak grown to the end of the horizon.
        headroom_pct: Headroom added on top (%).
        target: `grown x (1 + headroom_pct / 100)`.
        producer_capacity: Tp in the dimension's unit (None: not measured, or `mib_out`).
        consumer_capacity: Tc in the dimension's unit (None: not measured).
        capacity_scope: Tp/Tc from the topic's own capacity row (`topic`) or `*`; when
            Tp and Tc came from different rows, Tc's row (see `producer_scope`). None:
            no capacity in this dimension.
        producer_partitions: `ceil(target / Tp)`, or None.
        consumer_partitions: `ceil(target / Tc)`, or None.
        required: The larger of the two (None: no capacity, the dimension was skipped).
        side: Which side needs `required` (`both` on a tie).
        producer_scope: Tp's row when it is not `capacity_scope`'s (the topic's own Tc
            with the fleet's default Tp, say); None: the same row, or no Tp.
        linear_growth: Whether the peak grows by the same amount every day (a linear
            fit) rather than compounding at `growth_per_year`.
    """

    dimension: Dimension
    peak: float
    growth_per_year: float
    growth_method: str
    growth_factor: float
    grown: float
    headroom_pct: float
    target: float
    producer_capacity: float | None
    consumer_capacity: float | None
    capacity_scope: CapacityScope | None
    producer_partitions: int | None
    consumer_partitions: int | None
    required: int | None
    side: Side | None
    producer_scope: CapacityScope | None = None
    linear_growth: bool = False

    def days_until_above(self, capacity: float) -> float | None:
        """Days from the end of the data until the peak, growing as planned, plus the
        headroom, is above `capacity`: 0 if it is already; None if it never is (no
        growth, or a shrinking peak)."""
        need = self.peak * (1 + self.headroom_pct / 100)
        if need > capacity:
            return 0.0
        if need <= 0:
            return None
        years = years_to_grow(capacity / need, self.growth_per_year, linear=self.linear_growth)
        return None if years is None else 365.0 * years

    @property
    def unit(self) -> str:
        """The dimension's unit in words (`MiB/s in`, ...)."""
        return DIMENSION_UNITS[self.dimension]

    @property
    def partition_capacity(self) -> float | None:
        """What one partition carries: the slower of Tp and Tc (only Tc for `mib_out`)."""
        tp = None if self.dimension == "mib_out" else self.producer_capacity
        caps = [c for c in (tp, self.consumer_capacity) if c is not None]
        return min(caps) if caps else None

    def _check(self) -> None:
        where = f"{self.dimension}"
        for name in ("peak", "grown", "target", "growth_factor", "headroom_pct"):
            at_least(f"{where}.{name}", getattr(self, name), 0)
        for name in ("producer_capacity", "consumer_capacity"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{where}.{name}: must be above zero, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Candidate(Model):
    """A partition count the choice considered.

    Attributes:
        partitions: The count.
        even_group_sizes: Group sizes it splits evenly over.
        chosen: Whether it is the recommendation.
    """

    partitions: int
    even_group_sizes: tuple[int, ...]
    chosen: bool


@dataclasses.dataclass(frozen=True)
class CostPanel(Model):
    """What the recommended count costs (fields as `planner.cost.PartitionCost`).

    Attributes:
        partitions: The count costed.
        producer_batch_memory_bytes: `partitions x batch.size`, bytes.
        producer_buffer_share: That memory as a fraction of `buffer.memory`.
        replicas_total: `partitions x replication_factor`.
        replicas_per_broker: Replicas on the busiest broker after the change.
        replicas_per_broker_limit: The configured limit per broker.
        latency_rule_limit: `100 x brokers x replication_factor`.
        leaders_per_broker: Leaders of this topic on the busiest broker.
        election_unavailability_ms: Leader elections after a broker failure, ms (None:
            replication factor 1, no replica to elect: offline until the broker returns).
        segments_per_replica: Log segments one replica keeps over its retention.
        file_handles_per_broker: Open files this topic costs the busiest broker.
        consumer_threads: Threads for one group to read every partition in parallel.
        warnings: Limits exceeded, in plain words.
    """

    partitions: int
    producer_batch_memory_bytes: int
    producer_buffer_share: float
    replicas_total: int
    replicas_per_broker: int
    replicas_per_broker_limit: int
    latency_rule_limit: int
    leaders_per_broker: int
    election_unavailability_ms: float | None
    segments_per_replica: int
    file_handles_per_broker: int
    consumer_threads: int
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class GroupCapacityReport(Model):
    """The Tc a group's members were sized with (`planner.recommend.ConsumerCapacity`).

    Attributes:
        records_per_s: Records/s one member processes (a lower bound for
            `lower-bound`); None when unknown.
        mib_per_s: The same in MiB/s at the topic's mean record size (None: unknown).
        source: `given`, `saturation`, `busy-fraction`, `lower-bound`, `topic-default`.
        evidence: What it rests on, in a sentence.
        members_now_at_topic_tc: The members today's load would need at the topic's Tc
            instead (None: the group is sized with the topic's Tc, or outputs written
            before plans stated it).
    """

    records_per_s: float | None
    mib_per_s: float | None
    source: str
    evidence: str | None = None
    members_now_at_topic_tc: int | None = None


@dataclasses.dataclass(frozen=True)
class GroupLagReport(Model):
    """A group's observed lag (`planner.recommend.GroupLag`): records, seconds, trend."""

    records: float | None
    seconds: float | None
    trend: str | None


@dataclasses.dataclass(frozen=True)
class CodedNote(Model):
    """A warning or note in its coded form (`planner.notes.Note`).

    Attributes:
        code: The finding's stable code (`hot-key`, `falling-behind`, ...).
        severity: `warning` or `info`.
        params: The values the sentence is made of, as JSON text.
        text: The sentence.
    """

    code: str
    severity: str
    params: str
    text: str

    @property
    def sentence(self) -> str:
        """The sentence rendered from the code and parameters (`planner.notes`); the
        stored `text` for a code this version does not know."""
        return render_coded(dataclasses.asdict(self))


def _sentences(coded: tuple[CodedNote, ...], stored: tuple[str, ...]) -> tuple[str, ...]:
    # Outputs written before notes had codes carry the sentences only.
    return tuple(c.sentence for c in coded) if coded else stored


@dataclasses.dataclass(frozen=True)
class ZoneSplitReport(Model):
    """A group's fetched bytes per day by zone (`planner.cross_zone.ZoneSplit`)."""

    same_zone_bytes_per_day: float
    cross_zone_bytes_per_day: float
    unknown_bytes_per_day: float


@dataclasses.dataclass(frozen=True)
class BrokerRackReport(Model):
    """A broker the replicas name, and its `broker.rack` (None: none set)."""

    broker_id: int
    rack: str | None


@dataclasses.dataclass(frozen=True)
class TopicReplicasReport(Model):
    """A topic's replicas as the figure read them: Kafka's `--replica-assignment` text,
    leader first, and the planned partition count its bytes were spread over."""

    topic: str
    partitions: int
    replicas: str


@dataclasses.dataclass(frozen=True)
class CrossZoneEvidenceReport(Model):
    """What a cross-zone figure came from (`planner.cross_zone.CrossZoneEvidence`)."""

    brokers: tuple[BrokerRackReport, ...]
    replicas: tuple[TopicReplicasReport, ...]
    member_racks: tuple[str, ...]
    members: int
    strategy: str
    new_partitions: int


@dataclasses.dataclass(frozen=True)
class CrossZoneReport(Model):
    """A group's fetches per day by zone under its planned assignment
    (`planner.cross_zone.cross_zone_record`).

    Attributes:
        bytes_per_day: What the group reads per day.
        from_leaders: Every member fetching from the partition leader.
        follower_fetching: With KIP-392's rack-aware replica selector.
        price_per_gib: The configured price per GiB crossing zones (None: none).
        leader_cost_per_day: Cross-zone bytes from leaders at that price (None: no price).
        follower_cost_per_day: The same with follower fetching.
        evidence: Racks and replica lists it came from.
        advice: `client-rack` and `follower-fetching` notes where the figure shows them.
    """

    bytes_per_day: float
    from_leaders: ZoneSplitReport
    follower_fetching: ZoneSplitReport
    price_per_gib: float | None
    leader_cost_per_day: float | None
    follower_cost_per_day: float | None
    evidence: CrossZoneEvidenceReport
    advice: tuple[CodedNote, ...] = ()


@dataclasses.dataclass(frozen=True)
class ChangelogReport(Model):
    """One changelog topic of a Kafka Streams application (`planner.standbys.Changelog`):
    its partitions today and its mean bytes in over `samples` samples (None: none)."""

    topic: str
    partitions: int | None
    bytes_in_per_s: float | None
    samples: int


@dataclasses.dataclass(frozen=True)
class StandbysReport(Model):
    """A Kafka Streams application's standby tasks and what they cost, each figure with
    its evidence (`planner.standbys.standby_record`: given, observed, bound, unknown)."""

    standby_replicas: int | None
    standby_replicas_evidence: str
    config: str
    changelog_topics: tuple[ChangelogReport, ...]
    stateful_tasks_min: int | None
    stateful_tasks_max: int | None
    stateful_tasks_evidence: str
    standby_tasks_min: int | None
    standby_tasks_max: int | None
    changelog_bytes_in_per_s: float | None
    changelog_evidence: str
    standby_read_bytes_per_s: float | None
    state_bytes: float | None
    standby_state_bytes: float | None
    state_evidence: str
    min_instances: int | None


@dataclasses.dataclass(frozen=True)
class GroupReport(Model):
    """One consumer group reading the topic, at the recommended partition count.

    Attributes:
        group_id: The group.
        topics: Topics the group subscribes to (this one among them).
        current_strategy: Its `partition.assignment.strategy` today.
        strategy: The strategy recommended.
        current_members: Members today (0 for a planned group).
        recommended_members: Members to run (None: `unplanned`).
        members_now: Smallest group that keeps up with today's peak, with headroom
            (None: `unplanned`).
        members_at_horizon: The same at the end of the horizon (None: `unplanned`).
        busiest_utilisation: The busiest member's load at `members_now`, share of one
            consumer's capacity (None: unknown, e.g. no size fits).
        status: `ok`, `under-provisioned` (fewer members than today's load needs),
            `no-standby` (enough for the load, fewer than `min_group_members`),
            `over-provisioned`, `deploy` (no member yet, of a topic to be created), or
            `unplanned` (a topic it reads has no plan: the notes say which and why).
        notes: Why, in plain words.
        standby_members: Of `recommended_members`, those that own no partition: the
            minimum group size asks for more members than there are partitions.
        notes_coded: `notes` in their coded form (empty for outputs written before
            notes had codes).
        protocol: Its group protocol (`planner.protocols.PROTOCOLS`); both strategies
            are assignors of it, as the broker names them (`classic` for outputs
            written before groups had a protocol).
        planned_as: The simulation's strategy key its plan used (the assignor's own,
            or for Kafka Streams the classic strategy that cuts its tasks alike); None
            for a group without a plan, or outputs written before plans said it.
        consumer_capacity: The Tc its members were sized with and its source
            (`planner.recommend.ConsumerCapacity`); None for a group of several topics,
            without a plan, or outputs written before groups had their own Tc.
        lag: Its observed lag on the topic (None: not observed).
        cross_zone: Its fetches by zone (None: brokers' racks or replicas unknown).
        standbys: A Kafka Streams application's standbys and their cost (None: not one,
            planned over several topics, or outputs written before standbys were).
    """

    group_id: str
    topics: tuple[str, ...]
    current_strategy: str
    strategy: str | None
    current_members: int
    recommended_members: int | None
    members_now: int | None
    members_at_horizon: int | None
    busiest_utilisation: float | None
    status: GroupStatus
    notes: tuple[str, ...] = ()
    standby_members: int = 0
    notes_coded: tuple[CodedNote, ...] = ()
    protocol: str = DEFAULT_PROTOCOL
    planned_as: str | None = None
    consumer_capacity: GroupCapacityReport | None = None
    lag: GroupLagReport | None = None
    cross_zone: CrossZoneReport | None = None
    standbys: StandbysReport | None = None

    @property
    def note_sentences(self) -> tuple[str, ...]:
        """The notes as the site prints them: rendered from their codes and parameters
        (`notes` for outputs written before notes had codes), but those the topic lists
        among its alternatives (`planner.notes.LISTED_WITH_TOPIC`)."""
        if not self.notes_coded:
            return self.notes
        return tuple(c.sentence for c in self.notes_coded if c.code not in LISTED_WITH_TOPIC)

    def label(self, arrow: str = "\u2192") -> str:
        """Its protocol and assignor in words (`planner.group_labels.group_label`):
        `consumer / uniform`, `classic / range \u2192 cooperative-sticky`, ..."""
        return group_label(
            self.protocol,
            self.current_strategy,
            self.strategy,
            planned_as=self.planned_as,
            arrow=arrow,
        )

    def _check(self) -> None:
        where = f"group {self.group_id!r}"
        if self.protocol not in PROTOCOLS:
            raise ValueError(
                f"{where}: protocol must be one of {', '.join(PROTOCOLS)}, got {self.protocol!r}"
            )
        for name in ("current_members", "recommended_members", "members_now", "standby_members"):
            at_least(f"{where}: {name}", getattr(self, name), 0)
        if self.status == "unplanned":
            if not self.notes:
                raise ValueError(f"{where}: status 'unplanned' needs a note saying why")
            return
        missing = [
            name
            for name in ("strategy", "recommended_members", "members_now", "members_at_horizon")
            if getattr(self, name) is None
        ]
        if missing:
            raise ValueError(f"{where}: status {self.status!r} needs {', '.join(missing)}")


@dataclasses.dataclass(frozen=True)
class TopicReport(Model):
    """Everything the site says about one topic.

    A sized topic (`ok`, `plan-increase`, `increase`) has its partition numbers and
    `deciding`; any other (`missing-capacity`, `error`, `no-figures`, `unknown-topic`)
    has `error` (why) and whatever was known. Chart fields are None when there is
    nothing to draw (`partition_load` is for keyed topics with a key sample only).

    Attributes:
        topic: The topic name (any text: the renderer escapes it).
        status: See `TopicStatus`.
        current_partitions: Partitions today (None: a new topic, or not in the topics
            table for `unknown-topic`).
        required_partitions_now: The rule's requirement for today's peak plus headroom.
        required_partitions: The requirement at the end of the horizon (key skew included).
        recommended_partitions: The count to have.
        recommended_consumers: The consumers to run: the recommended size of the
            largest consumer group with a plan that reads the topic
            (`consumers_group`; ties go to the smaller group id), else what one group
            reading only this topic needs for today's peak at the recommended count.
            The `recommendations` dataset's answer, which the rationale explains.
        strategy: The assignment strategy recommended for that group.
        consumers_group: The group `recommended_consumers` is the size of (None: one
            group reading only this topic).
        standby_consumers: Of `recommended_consumers`, those that own no partition: the
            minimum group size (`min_group_members`) asks for more than the partitions.
        groups_with_plan: How many groups with a plan read the topic.
        one_group_consumers: Members one group reading only this topic needs for
            today's peak at the recommended count (the member-load chart's marker and
            the churn table's group size).
        deciding: The dimension and side that set the count.
        keyed: Whether producers set keys and rely on per-key order.
        partitioner: The producers' partitioner (librdkafka's names).
        replication_factor: Replicas per partition.
        capacity_source: Where Tp and Tc were measured, in words.
        dimensions: The arithmetic per dimension.
        rule: The sizing rule in words.
        candidates: The partition counts considered.
        choice_reason: Why the recommended count among the candidates.
        rationale: The arithmetic and the choice, as sentences.
        cost: The cost panel at the recommended count.
        warnings: Plain-language warnings.
        warnings_coded: `warnings` in their coded form (empty for outputs written
            before warnings had codes).
        alternatives: Other group protocols for its classic groups, with numbers (the
            consumer protocol, a share group, or why a keyed topic gets no share group),
            as sentences.
        alternatives_coded: `alternatives` in their coded form (empty for outputs
            written before plans had alternatives).
        groups: Consumer groups reading the topic.
        history: Throughput samples.
        member_load: Busiest member against group size, per strategy.
        partition_load: Per-partition load (keyed topics).
        churn: Rebalance churn per strategy.
        rejected_rows: Input rows of this topic the row checks kept out (0: none or
            unknown).
        error: Why the topic could not be sized (every status but the sized ones).
    """

    topic: str
    status: TopicStatus
    current_partitions: int | None = None
    required_partitions_now: int | None = None
    required_partitions: int | None = None
    recommended_partitions: int | None = None
    recommended_consumers: int | None = None
    strategy: str | None = None
    consumers_group: str | None = None
    standby_consumers: int = 0
    groups_with_plan: int = 0
    one_group_consumers: int | None = None
    deciding: Deciding | None = None
    keyed: bool = False
    partitioner: str = DEFAULT_PARTITIONER
    replication_factor: int | None = None
    capacity_source: str | None = None
    dimensions: tuple[DimensionArithmetic, ...] = ()
    rule: str = RULE
    candidates: tuple[Candidate, ...] = ()
    choice_reason: str | None = None
    rationale: tuple[str, ...] = ()
    cost: CostPanel | None = None
    warnings: tuple[str, ...] = ()
    groups: tuple[GroupReport, ...] = ()
    history: ThroughputHistory | None = None
    member_load: MemberLoadChart | None = None
    partition_load: PartitionLoadChart | None = None
    churn: ChurnChart | None = None
    rejected_rows: int = 0
    error: str | None = None
    warnings_coded: tuple[CodedNote, ...] = ()
    alternatives: tuple[str, ...] = ()
    alternatives_coded: tuple[CodedNote, ...] = ()

    def __post_init__(self) -> None:
        try:
            super().__post_init__()
        except ValueError as exc:
            raise ValueError(f"topic {self.topic!r}: {exc}") from None

    @property
    def warning_sentences(self) -> tuple[str, ...]:
        """The warnings as the site and `summary.md` print them: rendered from their
        codes and parameters (`warnings` for outputs written before warnings had codes)."""
        return _sentences(self.warnings_coded, self.warnings)

    @property
    def alternative_sentences(self) -> tuple[str, ...]:
        """The alternatives as the site prints them: rendered from their codes and
        parameters (`alternatives` when there is no coded form)."""
        return _sentences(self.alternatives_coded, self.alternatives)

    def _check(self) -> None:
        if not self.topic:
            raise ValueError("topic: the name is empty")
        for name in (
            "current_partitions",
            "required_partitions_now",
            "required_partitions",
            "recommended_partitions",
            "replication_factor",
        ):
            at_least(name, getattr(self, name), 1)
        at_least("recommended_consumers", self.recommended_consumers, 0)
        at_least("one_group_consumers", self.one_group_consumers, 0)
        at_least("standby_consumers", self.standby_consumers, 0)
        at_least("groups_with_plan", self.groups_with_plan, 0)
        at_least("rejected_rows", self.rejected_rows, 0)
        if self.status in PLANNED_STATUSES:
            missing = [
                name
                for name in ("required_partitions", "recommended_partitions", "deciding")
                if getattr(self, name) is None
            ]
            if missing:
                raise ValueError(f"status {self.status!r} needs {', '.join(missing)}")
        elif not self.error:
            raise ValueError(f"status {self.status!r} needs an error message saying why")

    @property
    def consumers_basis(self) -> str:
        """What `recommended_consumers` is the size of, and its strategy, in words."""
        strategy = self.strategy or "no strategy"
        standby = (
            f"; {self.standby_consumers} of them own{'s' if self.standby_consumers == 1 else ''}"
            f" no partition and stand{'s' if self.standby_consumers == 1 else ''} by "
            f"(min_group_members)"
            if self.standby_consumers
            else ""
        )
        if self.consumers_group is None:
            return f"{strategy}: one group reading only this topic, for today's peak{standby}"
        among = (
            f", the largest of the {self.groups_with_plan} groups with a plan that read it"
            if self.groups_with_plan > 1
            else ""
        )
        return f"{strategy}: the recommended size of group '{self.consumers_group}'{among}{standby}"

    @property
    def planned(self) -> bool:
        """Whether the topic was sized (its partition numbers are present)."""
        return self.status in PLANNED_STATUSES

    @property
    def current_count_lasts_days(self) -> float | None:
        """For `plan-increase`: days until today's count no longer carries the peak plus
        headroom in some dimension, the peak growing as planned (even spread).

        None for any other status, or when the sizing rule is not what asks for more
        partitions (a keyed topic's skew can ask for more than the rule), or when it
        cannot be worked out (no count, no capacity in the deciding dimension).
        """
        current = self.current_partitions
        if self.status != "plan-increase" or current is None or self.required_partitions is None:
            return None
        rule = max((d.required for d in self.dimensions if d.required is not None), default=None)
        if rule is None or rule < self.required_partitions:
            return None
        days = [
            d.days_until_above(current * cap)
            for d in self.dimensions
            if d.required is not None and (cap := d.partition_capacity) is not None
        ]
        found = [d for d in days if d is not None]
        return min(found) if found else None

    def spare_pct(self, partitions: int | None) -> float | None:
        """Spare capacity of `partitions` partitions over today's peak, in percent.

        `partitions x min(Tp, Tc) / peak - 1` in the tightest dimension, assuming the load
        spreads evenly over the partitions (a keyed topic's busiest partition has less:
        see its partition-load chart). Negative: the peak is above what the partitions
        carry. None when the count or the figures are missing.
        """
        if partitions is None:
            return None
        ratios = [
            partitions * cap / d.peak
            for d in self.dimensions
            if (cap := d.partition_capacity) is not None and d.peak > 0
        ]
        return (min(ratios) - 1.0) * 100.0 if ratios else None
