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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from planner.cost import ClusterShape, PartitionCost
from planner.notes import Note, note
from planner.protocols import is_streams
from planner.recommend.alternatives import CONSUMER_PROTOCOL_ALTERNATIVE
from planner.recommend.candidates import topic_candidates, topic_grid
from planner.recommend.consumer_capacity import (
    consumer_capacity,
    group_lag,
    load_factor,
    slowest_factor,
    topic_records_per_s,
)
from planner.recommend.consumers import choose_consumers
from planner.recommend.group import (
    busiest_member_load,
    plan_group,
    planning_strategies,
)
from planner.recommend.key_skew import SkewRequirement, skew_requirement
from planner.recommend.partitions import PartitionChoice, choose_partitions
from planner.recommend.share import (
    ShareAlternative,
    ShareSizing,
    share_alternative,
    size_share_group,
)
from planner.recommend.targets import topic_cost, topic_targets
from planner.recommend.types import (
    PLANNED_GROUP,
    GroupInfo,
    GroupPlan,
    PlanSettings,
    TopicHistory,
    TopicPlan,
)
from planner.simulate import GridResult, TopicLoad, partition_loads
from planner.sizing import (
    DIMENSION_LABELS,
    PlanningTarget,
    SideCapacity,
    SizingResult,
    size_topic,
)
from planner.standbys import standby_cost, standby_note
from planner.streams import instances_for

__all__ = ["RECORD_SIZE_RATIO", "mean_record_bytes", "plan_topic"]

_UNITS = DIMENSION_LABELS
#: A capacity measured on records this many times larger or smaller than the topic's
#: own (on average) gets a warning.
RECORD_SIZE_RATIO = 2.0


def plan_topic(
    history: TopicHistory,
    producer: SideCapacity,
    consumer: SideCapacity,
    *,
    brokers: int,
    groups: Sequence[GroupInfo | Mapping[str, Any] | Sequence[Any]] = (),
    consuming_groups: int | None = None,
    share_groups: int | None = None,
    share_fetch: SideCapacity | None = None,
    settings: PlanSettings | None = None,
    streams_readers: Sequence[str] = (),
    streams_internal: tuple[str, str] | None = None,
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
        share_groups: How many of `consuming_groups` are share groups (KIP-932), those
            reading other topics too included (None: those among `groups`). A share
            group's members are not capped by the partition count, so it asks for
            partitions by the share model (`planner.recommend.share`), not by Tc; a
            topic only share groups read is sized by that model and its producers.
        share_fetch: One partition's share-fetch throughput (the capacity table's
            `share_fetch_*`), None when not measured (the share model then says what it
            assumed).
        settings: Planning settings (defaults when None).
        streams_readers: Kafka Streams applications (group ids) reading the topic,
            those reading other topics too included; one-topic Streams groups among
            `groups` count without being listed. A partition increase warns them
            (`planner.streams`).
        streams_internal: `(application id, kind)` when the topic is an internal topic
            of a Kafka Streams application (`planner.streams.internal_topic_of`).

    Raises:
        ValueError: bad figures, a replication factor above the broker count, or no
            dimension with both a target and a capacity.
    """
    s = settings or PlanSettings()
    infos = tuple(GroupInfo.of(g) for g in groups)
    # Refused before anything is planned, as Kafka refuses such a topic at creation.
    cluster = ClusterShape(brokers, history.replication_factor)
    readers = _readers(history, consumer, infos, consuming_groups, share_groups)
    targets = topic_targets(history, fan_out=readers.fan_out, settings=s)
    if not targets:
        raise ValueError(f"topic {history.topic!r}: no throughput figures to plan on")
    need = _requirement(history, targets, producer, consumer, readers, share_fetch, s)
    choice = _choose(history, need, s)
    p = choice.recommended
    # The cost panel of any count, for this topic's cluster and targets.
    cost_of = partial(
        topic_cost, cluster=cluster, retention_ms=history.retention_ms, targets=targets, settings=s
    )
    candidates = topic_candidates(choice, partition_grid=s.partition_grid, cost_of=cost_of)
    cost = next(c.cost for c in candidates if c.is_recommended)
    loads = _consumer_loads(history, targets, consumer, need.sample)
    grid = topic_grid(loads.at_horizon, [p], groups=readers.groups, settings=s)
    group_plans, one_group = _plan_groups(history, readers, loads, grid, p, s)
    warnings = (
        *_record_size_warnings(history, producer, consumer),
        *_unchecked_dimensions(targets, producer, consumer),
        *_warnings(history, choice, cost, grid, p, group_plans, need.skew),
        *_streams_warnings(history, choice, readers.groups, streams_readers, streams_internal),
        *_unread_topic(history, targets, need.sizing, need.sizing_now, choice, readers.consuming),
        *(need.share.notes if need.share is not None else ()),
    )
    return TopicPlan(
        topic=history.topic,
        status=choice.status,
        targets=targets,
        sizing_now=need.sizing_now,
        sizing=need.sizing,
        skew=need.skew,
        choice=choice,
        cost=cost,
        grid=grid,
        utilisation_now=loads.now,
        utilisation_at_horizon=loads.at_horizon.load,
        groups=group_plans,
        hot_keys=need.skew.hot_keys if need.skew else (),
        warnings=tuple(warnings),
        rationale=_topic_rationale(history, targets, readers, need, choice, loads, s),
        key_sample=need.sample,
        fan_out=readers.fan_out,
        one_group=one_group,
        consumers=choose_consumers(group_plans, one_group=one_group),
        alternatives=_alternatives(
            history,
            targets,
            readers,
            need,
            cost,
            cost_of,
            group_plans,
            producer=producer,
            consumer=consumer,
            share_fetch=share_fetch,
            s=s,
        ),
        share=need.share,
        topic_tc_records_per_s=readers.topic_tc,
        candidates=candidates,
    )


@dataclass(frozen=True)
class _Readers:
    """Who reads the topic, as the rule counts them.

    Attributes:
        groups: The groups that read only the topic.
        consuming: Consumer groups fetching its bytes in all (`plan_topic`'s
            `consuming_groups`).
        shares: How many of them are share groups.
        topic_tc: The topic's Tc in records/s (`topic_records_per_s`).
        slowest: The slowest capped group's load factor (1.0: none slower than Tc).
        per_group: The Tc the consumer side of the rule is sized with: the topic's,
            slowed to the slowest group's.
    """

    groups: tuple[GroupInfo, ...]
    consuming: int
    shares: int
    topic_tc: float | None
    slowest: float
    per_group: SideCapacity

    @property
    def fan_out(self) -> int:
        """The groups the bytes out are divided over (`TopicPlan.fan_out`)."""
        return max(1, self.consuming)

    @property
    def capped(self) -> list[GroupInfo]:
        """The groups whose members the partition count caps (all but share groups)."""
        return [g for g in self.groups if g.protocol != "share"]

    @property
    def share_only(self) -> bool:
        """Only share groups read it: no group is capped by the partitions, so Tc asks
        for none (the members are sized on it instead)."""
        return self.shares > 0 and self.consuming <= self.shares


def _readers(
    history: TopicHistory,
    consumer: SideCapacity,
    infos: tuple[GroupInfo, ...],
    consuming_groups: int | None,
    share_groups: int | None,
) -> _Readers:
    if consuming_groups is not None and consuming_groups < 0:
        raise ValueError(
            f"topic {history.topic!r}: consuming_groups must be >= 0, got {consuming_groups}"
        )
    consuming = len(infos) if consuming_groups is None else consuming_groups
    shares = sum(g.protocol == "share" for g in infos) if share_groups is None else share_groups
    topic_tc = topic_records_per_s(consumer, mean_record_bytes(history) or consumer.record_bytes)
    capped = [g for g in infos if g.protocol != "share"]
    # The consumer side of the rule asks for the slowest group's need: the topic's Tc
    # divided by that group's load factor (each group's own Tc, `consumer_capacity`).
    slowest = slowest_factor(capped, topic_tc, others=consuming - shares > len(capped))
    return _Readers(infos, consuming, shares, topic_tc, slowest, _slowed(consumer, slowest))


@dataclass(frozen=True)
class _Need:
    """What the topic asks for, at the end of the horizon and today (`_now`).

    Attributes:
        sizing: The rule on the targets.
        sizing_now: The rule on today's peak plus headroom.
        share: The share model's sizing, when share groups read it.
        share_now: The same today.
        readers: The partitions the readers ask for (`_readers_need`).
        readers_now: The same today.
        sample: The key sample of a keyed topic (load 1.0), None otherwise.
        skew: The partitions its busiest partition needs (keyed topics with a sample).
        skew_now: The same today.
    """

    sizing: SizingResult
    sizing_now: SizingResult
    share: ShareSizing | None
    share_now: ShareSizing | None
    readers: int
    readers_now: int
    sample: TopicLoad | None
    skew: SkewRequirement | None
    skew_now: SkewRequirement | None


def _requirement(
    history: TopicHistory,
    targets: Mapping[str, PlanningTarget],
    producer: SideCapacity,
    consumer: SideCapacity,
    readers: _Readers,
    share_fetch: SideCapacity | None,
    s: PlanSettings,
) -> _Need:
    # The rule, the share model and the key skew, each on the targets and on today.
    planned = {d: t.target for d, t in targets.items()}
    today = {d: t.peak * (1 + t.headroom_pct / 100) for d, t in targets.items()}
    sizing = size_topic(planned, producer, readers.per_group)
    sizing_now = size_topic(today, producer, readers.per_group)
    share = share_now = None
    if readers.shares:
        share, share_now = (
            size_share_group(
                load,
                producer=producer,
                member=consumer,
                share_fetch=share_fetch,
                limits=s.share,
            )
            for load in (planned, today)
        )
    need = _readers_need(sizing, share, share_only=readers.share_only)
    need_now = _readers_need(sizing_now, share_now, share_only=readers.share_only)
    keyed_sample = history.keyed and history.keys is not None and history.key_counts is not None
    sample = (
        TopicLoad(1.0, history.keys, history.key_counts, history.partitioner)
        if keyed_sample
        else None
    )
    skew = skew_now = None
    if sample is not None:
        # A hot partition is shared by several members of a share group: there only the
        # producers bound a partition's load.
        reader = _NO_CAPACITY if readers.share_only else readers.per_group
        bound = max(s.max_partitions, need)
        skew = skew_requirement(sample, planned, producer, reader, start=need, bound=bound)
        skew_now = skew_requirement(sample, today, producer, reader, start=need_now, bound=bound)
    return _Need(sizing, sizing_now, share, share_now, need, need_now, sample, skew, skew_now)


def _choose(history: TopicHistory, need: _Need, s: PlanSettings) -> PartitionChoice:
    # The count: the readers' need, or the busiest partition's where the keys ask more.
    skew, skew_now = need.skew, need.skew_now
    return choose_partitions(
        max(need.readers, skew.partitions if skew and skew.fits else 0),
        history.current_partitions,
        required_now=max(
            need.readers_now, skew_now.partitions if skew_now and skew_now.fits else 0
        ),
        evenness_slack_pct=s.evenness_slack_pct,
        max_partitions=s.max_partitions,
        acceptable=skew.fits_at if skew and skew.fits else None,
    )


@dataclass(frozen=True)
class _Loads:
    """The topic's load in consumers (`max(rate_d / Tc_d)`, the topic's Tc).

    Attributes:
        now: At today's peak.
        at_horizon: At the end of the horizon, with its key sample when keyed: what
            the grid simulates.
    """

    now: float
    at_horizon: TopicLoad


def _consumer_loads(
    history: TopicHistory,
    targets: Mapping[str, PlanningTarget],
    consumer: SideCapacity,
    sample: TopicLoad | None,
) -> _Loads:
    now = _utilisation({d: t.peak for d, t in targets.items()}, consumer)
    horizon = _utilisation({d: t.grown for d, t in targets.items()}, consumer)
    return _Loads(
        now,
        sample.with_load(horizon)
        if sample is not None
        else TopicLoad(horizon, partitioner=history.partitioner),
    )


def _plan_groups(
    history: TopicHistory,
    readers: _Readers,
    loads: _Loads,
    grid: GridResult,
    p: int,
    s: PlanSettings,
) -> tuple[tuple[GroupPlan, ...], GroupPlan]:
    # Every group reading only the topic planned at the recommended count `p`, each on
    # its own Tc, and the plan of one group that runs no member yet (`one_group`).
    topic_load = loads.at_horizon
    current = history.current_partitions
    # Whether a group keeps up today is a question about today's partition count: when
    # it changes, the same partition loads the grid uses (the key sample hashed, or an
    # even spread) are placed on today's count at today's load.
    loads_now = (
        partition_loads(topic_load.with_load(loads.now), current)
        if current is not None and current != p and any(g.members >= 1 for g in readers.groups)
        else None
    )
    # Every group on the grid at the recommended count, the topic's loads, the settings.
    on_p = partial(
        plan_group,
        grid=grid,
        topic=history.topic,
        partitions=p,
        consumers_now=loads.now,
        consumers_at_horizon=topic_load.load,
        settings=s,
        loads_at_horizon=partition_loads(topic_load, p),
    )
    record_bytes = mean_record_bytes(history)

    def at_topic_tc(g: GroupInfo) -> GroupPlan:
        # The group planned on the topic's grid, in units of the topic's Tc.
        return on_p(
            g,
            current_partitions=current,
            current_busiest=(
                busiest_member_load(loads_now, g.members, planning_strategies(g, 1)[0])
                if loads_now is not None and g.members >= 1
                else None
            ),
        )

    def with_own_tc(g: GroupInfo) -> GroupPlan:
        f = load_factor(g, readers.topic_tc)
        if f == 1.0:
            return _own_capacity(at_topic_tc(g), g, readers.topic_tc, record_bytes)
        own = _plan_slower(
            g,
            f,
            topic=history.topic,
            topic_load=topic_load,
            util_now=loads.now,
            partitions=p,
            current=current,
            loads_now=loads_now,
            settings=s,
        )
        # What the topic's Tc would have asked for, so a reader sees what Tc_g changed.
        return _own_capacity(own, g, readers.topic_tc, record_bytes, at_topic_tc(g).members_now)

    group_plans = tuple(_with_streams_threads(with_own_tc(g), g, p) for g in readers.groups)
    # On the same topic as it is today (a new topic: its one group is deployed). A topic
    # no group reads has no running group to keep a standby for: one group reading only
    # it is sized by its load alone (`min_group_members` is a floor for running groups,
    # and "2 consumers, 1 standing by" for nobody's consumers would not be true).
    one_group = on_p(
        PLANNED_GROUP,
        current_partitions=current,
        settings=s if readers.consuming else replace(s, min_group_members=1),
    )
    return group_plans, one_group


def _topic_rationale(
    history: TopicHistory,
    targets: Mapping[str, PlanningTarget],
    readers: _Readers,
    need: _Need,
    choice: PartitionChoice,
    loads: _Loads,
    s: PlanSettings,
) -> tuple[str, ...]:
    # The arithmetic in sentences; the share model and a slower group's Tc are told
    # just before the choice and the consumer load (the last two sentences).
    rationale = (
        *_fan_out_rationale(history, readers.consuming),
        *_rationale(
            history,
            targets,
            need.sizing,
            need.skew,
            choice,
            loads.now,
            loads.at_horizon.load,
            s,
        ),
    )
    if need.share is not None:
        told = _share_rationale(need.share, readers.shares, readers.share_only)
        rationale = (*rationale[:-2], told, *rationale[-2:])
    if readers.slowest != 1.0:
        told = _slowest_rationale(readers.capped, readers.topic_tc, readers.slowest)
        rationale = (*rationale[:-2], told, *rationale[-2:])
    return rationale


def _alternatives(
    history: TopicHistory,
    targets: Mapping[str, PlanningTarget],
    readers: _Readers,
    need: _Need,
    cost: PartitionCost,
    cost_of: Callable[[int], PartitionCost],
    group_plans: tuple[GroupPlan, ...],
    *,
    producer: SideCapacity,
    consumer: SideCapacity,
    share_fetch: SideCapacity | None,
    s: PlanSettings,
) -> tuple[Note, ...]:
    # Other group protocols for the topic's readers, with what each would need.
    alternatives: tuple[Note, ...] = ()
    if readers.consuming > readers.shares and need.sizing.deciding_side != "producer":
        # Classic readers, and Tc decided the count: a share group might need fewer.
        found = share_alternative(
            keyed=history.keyed,
            consumer_decides=True,
            current_partitions=history.current_partitions,
            classic_cost=cost,
            cost_of=cost_of,
            targets={d: t.target for d, t in targets.items()},
            producer=producer,
            member=consumer,
            share_fetch=share_fetch,
            limits=s.share,
        )
        if isinstance(found, ShareAlternative):
            alternatives = (found.note,)
        elif found is not None:
            alternatives = (found,)
    # Each classic group's move to the consumer protocol, listed with the topic's.
    return alternatives + tuple(
        n for g in group_plans for n in g.notes if n.code == CONSUMER_PROTOCOL_ALTERNATIVE
    )


#: A side with no capacity measured: bounds nothing.
_NO_CAPACITY = SideCapacity(None, None)


def _slowed(consumer: SideCapacity, factor: float) -> SideCapacity:
    # The topic's Tc as a group `factor` times slower processes it, in every dimension:
    # the same records, so the same ratio in MiB/s and records/s.
    if factor == 1.0:
        return consumer
    return replace(
        consumer,
        mib_per_s=None if consumer.mib_per_s is None else consumer.mib_per_s / factor,
        records_per_s=None if consumer.records_per_s is None else consumer.records_per_s / factor,
    )


def _plan_slower(
    group: GroupInfo,
    factor: float,
    *,
    topic: str,
    topic_load: TopicLoad,
    util_now: float,
    partitions: int,
    current: int | None,
    loads_now: npt.NDArray[np.float64] | None,
    settings: PlanSettings,
) -> GroupPlan:
    # A group with its own Tc: the topic's loads in that group's consumers (`factor`
    # times the topic's), simulated at the recommended count alone, since the topic's
    # grid is in units of the topic's Tc.
    load = topic_load.with_load(topic_load.load * factor)
    grid = topic_grid(load, [partitions], groups=[group], settings=settings)
    strategy = planning_strategies(group, 1)[0]
    return plan_group(
        group,
        grid,
        topic=topic,
        partitions=partitions,
        consumers_now=util_now * factor,
        consumers_at_horizon=load.load,
        settings=settings,
        current_partitions=current,
        current_busiest=(
            busiest_member_load(loads_now * factor, group.members, strategy)
            if loads_now is not None and group.members >= 1
            else None
        ),
        loads_at_horizon=partition_loads(load, partitions),
    )


def _own_capacity(
    plan: GroupPlan,
    group: GroupInfo,
    topic_tc: float | None,
    record_bytes: float | None,
    members_at_topic_tc: int | None = None,
) -> GroupPlan:
    # What the plan was sized with, and the lag it was judged by, stated on it.
    return replace(
        plan,
        consumer_capacity=replace(
            consumer_capacity(group, topic_tc, record_bytes),
            members_now_at_topic_tc=members_at_topic_tc,
        ),
        lag=group_lag(group),
    )


def _with_streams_threads(plan: GroupPlan, group: GroupInfo, partitions: int) -> GroupPlan:
    # A Kafka Streams application's members are its stream threads: how many instances
    # run them, where its threads per instance are known (`planner.streams`), and what
    # its standbys cost and ask of the instances (`planner.standbys`).
    threads = plan.recommended_members
    if threads is None or not is_streams(group.protocol, group.strategy):
        return plan
    standbys = standby_cost(
        group.group_id, group.protocol, group.standby_replicas, group.changelogs
    )
    per = group.stream_threads
    for_threads = instances_for(threads, per) if per else None
    floor = standbys.min_instances
    found = note(
        "streams-threads",
        threads=threads,
        tasks=partitions,
        per_instance=per,
        instances=None if for_threads is None else max(for_threads, floor or 1),
        per_instance_from="its groups row: read from its members' client ids, or given"
        if per
        else None,
        # Only where the standbys ask for more instances than the threads do.
        **(
            {"standby_instances": floor}
            if for_threads is not None and floor is not None and floor > for_threads
            else {}
        ),
    )
    return replace(plan, notes=(*plan.notes, found, standby_note(standbys)), standbys=standbys)


def _slowest_rationale(groups: Sequence[GroupInfo], topic_tc: float | None, slowest: float) -> str:
    which = max(groups, key=lambda g: load_factor(g, topic_tc))
    assert topic_tc is not None  # a factor other than 1 needs the topic's Tc
    return (
        f"consumers: group {which.group_id!r} processes {_fmt(topic_tc / slowest)} records/s "
        f"per member ({which.capacity_source or 'given'}), {slowest:.2f} times the topic's Tc "
        f"of {_fmt(topic_tc)}; the consumer side below is sized with its Tc (the slowest "
        f"group's need decides)"
    )


def _readers_need(sizing: SizingResult, share: ShareSizing | None, *, share_only: bool) -> int:
    # The partitions the readers ask for: the rule (producers and Tc) for groups capped
    # by the partition count, the share model's bounds (producers, share-fetch, records
    # in flight) for share groups; only the latter when only share groups read.
    if share is None:
        return sizing.required_partitions
    if share_only:
        return share.partitions
    return max(sizing.required_partitions, share.partitions)


def _share_rationale(share: ShareSizing, groups: int, share_only: bool) -> str:
    bounds = ", ".join(f"{b.bound} {b.partitions} ({_UNITS[b.dimension]})" for b in share.bounds)
    whose = (
        "only share groups read it, so Tc asks for no partitions"
        if share_only
        else f"{groups} share group{'' if groups == 1 else 's'} read{'s' if groups == 1 else ''} it"
    )
    return (
        f"share groups (KIP-932): {whose}; the share model's bounds at the end of the "
        f"horizon: {bounds}: at least {share.partitions} partition"
        f"{'' if share.partitions == 1 else 's'} (the {share.deciding.bound} bound)"
    )


def _utilisation(rates: Mapping[str, float], consumer: SideCapacity) -> float:
    # How many consumers' worth of work the topic is: the tightest dimension decides.
    ratios = [
        rate / cap
        for dim, rate in rates.items()
        if (cap := consumer.for_dimension(dim)) is not None and cap > 0
    ]
    return max(ratios, default=0.0)


def _warnings(
    history: TopicHistory,
    choice: PartitionChoice,
    cost: PartitionCost,
    grid: GridResult,
    p: int,
    groups: tuple[GroupPlan, ...],
    skew: SkewRequirement | None,
) -> tuple[Note, ...]:
    warnings: list[Note] = []
    if skew is not None and not skew.fits:
        warnings.append(
            note("key-skew", tried_up_to=skew.tried_up_to, busiest_share=skew.busiest_share)
        )
    current = history.current_partitions
    if history.keyed and current is not None and choice.recommended > current:
        warnings.append(
            note(
                "keyed-remap",
                current_partitions=current,
                recommended_partitions=choice.recommended,
                required_now=choice.required_now,
            )
        )
    for hot in skew.hot_keys[:5] if skew else ():
        name = hot.key.decode("utf-8", "backslashreplace") if hot.key is not None else "null"
        warnings.append(note("hot-key", key=name, share=hot.share, load=hot.rate))
    hot_rows = grid.where((grid.partitions == p) & grid.hot_partition)
    if len(hot_rows) and not (skew and skew.hot_keys):
        warnings.append(
            note("hot-partition", partitions=p, load=float(hot_rows.max_partition_load[0]))
        )
    warnings.extend(cost.warnings)
    for g in groups:
        warnings.extend(g.warnings)
    return tuple(warnings)


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


def _streams_warnings(
    history: TopicHistory,
    choice: PartitionChoice,
    groups: Sequence[GroupInfo],
    readers: Sequence[str],
    internal: tuple[str, str] | None,
) -> tuple[Note, ...]:
    # What a change of this topic's count does to the Kafka Streams applications on it
    # (`planner.streams`): only a change the plan asks for is worth a word.
    current = history.current_partitions
    if current is None or choice.recommended == current:
        return ()
    out: list[Note] = []
    if internal is not None:
        out.append(note("streams-internal-topic", app=internal[0], kind=internal[1]))
    apps = set(readers) | {g.group_id for g in groups if is_streams(g.protocol, g.strategy)}
    if apps and choice.recommended > current:
        out.append(
            note(
                "streams-input-increase",
                apps=sorted(apps),
                current_partitions=current,
                recommended_partitions=choice.recommended,
            )
        )
    return tuple(out)


def _record_size_warnings(
    history: TopicHistory, producer: SideCapacity, consumer: SideCapacity
) -> tuple[Note, ...]:
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
    return tuple(
        note("record-size", sides=names, measured_bytes=measured, mean_bytes=mean)
        for measured, names in off.items()
    )


def _unchecked_dimensions(
    targets: Mapping[str, PlanningTarget], producer: SideCapacity, consumer: SideCapacity
) -> tuple[Note, ...]:
    # A dimension with a target but no capacity on either side is skipped by the rule
    # (`SizingResult.skipped`); the count then rests on the other dimensions alone.
    out = []
    for dim in targets:
        tp = None if dim == "mib_out" else producer.for_dimension(dim)
        if tp is not None or consumer.for_dimension(dim) is not None:
            continue
        out.append(note("dimension-unchecked", dimension=dim))
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
) -> tuple[Note, ...]:
    # A topic no consumer group reads, sized by the consumer side: the number stays (it
    # is the conservative answer), but what it is for should be said.
    current = choice.current
    if consuming or sizing.deciding_side != "consumer":
        return ()
    if current is not None and choice.recommended <= current:
        return ()
    out = targets.get("mib_out")
    return (
        note(
            "unread-topic",
            required_partitions=sizing.required_partitions,
            dimension=sizing.deciding_dimension,
            producers_partitions=_max_side(sizing, "producer"),
            producers_partitions_now=_max_side(sizing_now, "producer"),
            current_partitions=current,
            # Bytes out with no known group: something reads it outside any group.
            mib_out_peak_per_s=out.peak if out is not None and out.peak > 0 else None,
        ),
    )


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


def _fan_out_rationale(history: TopicHistory, consuming: int) -> tuple[str, ...]:
    if (
        history.mib_out_busiest_group is not None
        and not np.isnan(np.asarray(history.mib_out_busiest_group, dtype=np.float64)).all()
    ):
        return (
            f"{_UNITS['mib_out']}: the busiest consumer group's own read rate where it was "
            f"observed (its committed offsets, catch-up beyond production left out)",
        )
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
