"""The change list: what a published plan changes on the cluster, decided once.

Every export format (`planner.export`) and `partition-planner apply` read this list and
nothing else, so they cannot disagree on what changes:

- a topic changes when its recommended count is above the count the plan saw, or when
  it does not exist yet (a creation plan); a count below it is never a change (Kafka
  cannot shrink a topic: `CreatePartitions` only adds) and is listed as skipped, as are
  topics at their count already and topics without a plan;
- a consumer group changes when its recommended members differ from today's;
- each change carries the plan's warnings (coded, `planner.notes`) and its cost.

Example:

    >>> from planner.changes.published import read_published
    >>> plan = read_published([
    ...     {"topic": "a", "status": "increase", "current_partitions": 6,
    ...      "recommended_partitions": 8, "replication_factor": 3, "keyed": False},
    ...     {"topic": "b", "status": "ok", "current_partitions": 12,
    ...      "recommended_partitions": 12, "replication_factor": 3, "keyed": True},
    ...     {"topic": "c", "status": "ok", "current_partitions": 12,
    ...      "recommended_partitions": 10, "replication_factor": 3, "keyed": False}])
    >>> changes = change_list(plan)
    >>> [(c.topic, c.from_partitions, c.to_partitions) for c in changes.topics]
    [('a', 6, 8)]
    >>> [(s.name, s.reason) for s in changes.skipped]
    [('b', 'no-change'), ('c', 'decrease')]
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from planner.changes.published import (
    UNCODED,
    PlanCost,
    PlannedGroup,
    PlannedTopic,
    PublishedPlanError,
)
from planner.notes import Note
from planner.recommend import creation

__all__ = [
    "SKIP_REASONS",
    "ChangeList",
    "GroupChange",
    "Skipped",
    "TopicChange",
    "UnknownTopics",
    "alter_command",
    "change_list",
]

#: Why a topic or group is not in the change list.
SKIP_REASONS = {
    "no-change": "already at the recommended count",
    "decrease": "the plan's count is below today's: Kafka cannot shrink a topic, never applied",
    "not-sized": "the plan has no count for it",
    "members-unchanged": "already at the recommended members",
    "unplanned": "the plan has no size for it",
}


class UnknownTopics(ValueError):
    """Topics asked for by name that the published plan does not hold."""


def alter_command(topic: str, *, partitions: int) -> str:
    """The `kafka-topics.sh --alter` command line that gives `topic` `partitions`.

    >>> alter_command("orders.created", partitions=16)
    'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --alter --topic orders.created \
--partitions 16'
    """
    return (
        'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --alter '
        f"--topic {shlex.quote(topic)} --partitions {partitions}"
    )


@dataclass(frozen=True)
class TopicChange:
    """One topic to change.

    Attributes:
        topic: The topic.
        from_partitions: The count the plan saw (None: the topic does not exist yet).
        to_partitions: The count to have (above `from_partitions`).
        replication_factor: Replicas per partition (None: unknown; a creation then
            takes the cluster's default).
        keyed: Producers set keys and consumers rely on per-key order: the change
            moves most keys to another partition.
        status: The plan's status (`increase`, `plan-increase`, `create`, ...).
        warnings: The plan's warnings for the topic, coded.
        cost: The plan's cost panel at `to_partitions` (None: not published).
        group_ids: The consumer groups that read it.
    """

    topic: str
    from_partitions: int | None
    to_partitions: int
    replication_factor: int | None
    keyed: bool
    status: str
    warnings: tuple[Note, ...]
    cost: PlanCost | None
    group_ids: tuple[str, ...]

    @property
    def creates(self) -> bool:
        """Whether the change creates the topic."""
        return self.from_partitions is None

    @property
    def added_partitions(self) -> int:
        """Partitions the change adds."""
        return self.to_partitions - (self.from_partitions or 0)

    @property
    def key_remap(self) -> Note | None:
        """The plan's key-remap warning, for a keyed topic that exists (None otherwise)."""
        if not self.keyed or self.creates:
            return None
        found = [w for w in self.warnings if w.code == "keyed-remap"]
        found += [w for w in self.warnings if w.code == UNCODED and w.text.startswith("keyed")]
        if found:
            return found[0]
        # A plan published without the warning still moves the keys.
        return Note(
            UNCODED,
            "warning",
            {},
            f"keyed topic: going from {self.from_partitions} to {self.to_partitions} "
            "partitions changes hash(key) % partitions, so most keys move to another "
            "partition and per-key ordering breaks across the change",
        )

    def headline(self) -> str:
        """`orders: 12 -> 16 partitions (+4)`, or `create orders with 16 partitions ...`."""
        if self.creates:
            return creation.create_headline(
                self.topic,
                partitions=self.to_partitions,
                replication_factor=self.replication_factor,
            )
        return (
            f"{self.topic}: {self.from_partitions} -> {self.to_partitions} partitions "
            f"(+{self.added_partitions})"
        )

    def command(self) -> str:
        """The `kafka-topics.sh` command line that makes the change."""
        if self.creates:
            return creation.create_command(
                self.topic,
                partitions=self.to_partitions,
                replication_factor=self.replication_factor,
            )
        return alter_command(self.topic, partitions=self.to_partitions)

    def cost_sentence(self) -> str | None:
        """What the change costs the cluster and its clients (None: nothing known)."""
        c = self.cost
        rf = self.replication_factor or (c.replicas_total // self.to_partitions if c else None)
        added = None if rf is None else _plural(self.added_partitions * rf, "partition replica")
        if c is None:
            return None if added is None or self.creates else f"adds {added}"
        after = creation.create_cost(
            partitions=self.to_partitions,
            replicas_total=c.replicas_total,
            replicas_per_broker=c.replicas_per_broker,
            replicas_per_broker_limit=c.replicas_per_broker_limit,
            producer_batch_memory_bytes=c.producer_batch_memory_bytes,
            consumer_threads=c.consumer_threads,
        )
        return after if self.creates else f"adds {added}; after the change: {after}"


@dataclass(frozen=True)
class GroupChange:
    """One consumer group to resize (or to deploy, for a topic to be created).

    Attributes:
        group_id: The group.
        topics: Every topic it reads.
        protocol: Its group protocol.
        strategy: The assignor recommended.
        from_members: Members today.
        to_members: Members to run (standbys included).
        members_now: Members today's peak needs.
        standby_members: Of `to_members`, those owning no partition.
        partitions: Partitions of its topics after the change (the topics the plan
            holds; None when one of them is not in it).
        tc_records_per_s: The slowest Tc in records/s among its topics: what one member
            takes (None: no topic of it has one).
        notes: The plan's notes for the group, coded.
    """

    group_id: str
    topics: tuple[str, ...]
    protocol: str
    strategy: str | None
    from_members: int
    to_members: int
    members_now: int
    standby_members: int
    partitions: int | None
    tc_records_per_s: float | None
    notes: tuple[Note, ...]

    def headline(self) -> str:
        """`ledger: 6 -> 11 members (cooperative-sticky)`."""
        how = f" ({self.strategy})" if self.strategy else ""
        if self.from_members == 0:
            return f"{self.group_id}: " + creation.deploy_headline(
                members=self.to_members, standby=self.standby_members
            )
        return f"{self.group_id}: {self.from_members} -> {self.to_members} members{how}"


@dataclass(frozen=True)
class Skipped:
    """A topic or group the plan holds that is not in the change list, and why.

    Attributes:
        kind: `topic` or `group`.
        name: Its name.
        reason: A key of `SKIP_REASONS`.
        detail: The reason in words, with the numbers.
    """

    kind: Literal["topic", "group"]
    name: str
    reason: str
    detail: str


@dataclass(frozen=True)
class ChangeList:
    """What a published run changes.

    Attributes:
        run: The run key (None: the published records did not say).
        topics: Topics to change, sorted by name.
        groups: Consumer groups to resize, sorted by id.
        skipped: What the plan holds and does not change, topics first.
    """

    run: str | None
    topics: tuple[TopicChange, ...]
    groups: tuple[GroupChange, ...]
    skipped: tuple[Skipped, ...]

    def topic(self, name: str) -> TopicChange | None:
        """The change of topic `name`, if any."""
        return next((c for c in self.topics if c.topic == name), None)


def change_list(
    planned: Sequence[PlannedTopic], *, topics: Collection[str] | None = None
) -> ChangeList:
    """Decide what the plan changes.

    Args:
        planned: The published run's topics (`read_published`).
        topics: Only these topics, and the groups that read them (None: all).

    Raises:
        UnknownTopics: a topic in `topics` the plan does not hold.
        PublishedPlanError: records of more than one run.
    """
    runs = {t.run for t in planned if t.run is not None}
    if len(runs) > 1:
        raise PublishedPlanError(f"records of several runs: {', '.join(sorted(runs))}")
    by_name = {t.topic: t for t in planned}
    if topics is not None:
        unknown = sorted(set(topics) - set(by_name))
        if unknown:
            raise UnknownTopics(
                f"not in the published plan: {', '.join(unknown)} (it holds {len(by_name)} topics)"
            )
        chosen = [by_name[t] for t in sorted(set(topics))]
    else:
        chosen = sorted(planned, key=lambda t: t.topic)
    changes: list[TopicChange] = []
    skipped: list[Skipped] = []
    for t in chosen:
        change, skip = _topic_change(t)
        if change is not None:
            changes.append(change)
        if skip is not None:
            skipped.append(skip)
    after = {t.topic: t.current_partitions for t in planned}
    after.update({c.topic: c.to_partitions for c in changes})
    group_changes, group_skips = _group_changes(chosen, by_name, after)
    return ChangeList(
        run=next(iter(runs), None),
        topics=tuple(changes),
        groups=tuple(group_changes),
        skipped=tuple(skipped + group_skips),
    )


def _topic_change(t: PlannedTopic) -> tuple[TopicChange | None, Skipped | None]:
    target, now = t.recommended_partitions, t.current_partitions
    if target is None:
        return None, Skipped("topic", t.topic, "not-sized", f"status {t.status}: no count")
    if now is not None and target == now:
        return None, Skipped("topic", t.topic, "no-change", f"{now} partitions, as planned")
    if now is not None and target < now:
        return None, Skipped(
            "topic",
            t.topic,
            "decrease",
            f"the plan says {target} and the topic has {now}: Kafka cannot shrink a topic",
        )
    return (
        TopicChange(
            topic=t.topic,
            from_partitions=now,
            to_partitions=target,
            replication_factor=t.replication_factor,
            keyed=t.keyed,
            status=t.status,
            warnings=t.warnings,
            cost=t.cost,
            group_ids=tuple(sorted({g.group_id for g in t.groups})),
        ),
        None,
    )


def _group_changes(
    chosen: Sequence[PlannedTopic],
    by_name: dict[str, PlannedTopic],
    after: dict[str, int | None],
) -> tuple[list[GroupChange], list[Skipped]]:
    # A multi-topic group is listed under each of its topics with one plan: the first
    # listing (topics in name order) stands for it.
    groups: dict[str, PlannedGroup] = {}
    for t in chosen:
        for g in t.groups:
            groups.setdefault(g.group_id, g)
    out: list[GroupChange] = []
    skipped: list[Skipped] = []
    for group_id in sorted(groups):
        g = groups[group_id]
        if g.recommended_members is None or g.members_now is None:
            skipped.append(Skipped("group", group_id, "unplanned", f"status {g.status}"))
            continue
        if g.recommended_members == g.current_members:
            skipped.append(
                Skipped(
                    "group",
                    group_id,
                    "members-unchanged",
                    f"{g.current_members} members, as planned",
                )
            )
            continue
        topics = g.topics or tuple(t.topic for t in chosen if g in t.groups)
        counts = [after.get(name) for name in topics]
        readers = [by_name[name] for name in topics if name in by_name]
        capacities = [r.tc_records_per_s for r in readers if r.tc_records_per_s is not None]
        out.append(
            GroupChange(
                group_id=group_id,
                topics=topics,
                protocol=g.protocol,
                strategy=g.strategy,
                from_members=g.current_members,
                to_members=g.recommended_members,
                members_now=g.members_now,
                standby_members=g.standby_members,
                partitions=None if None in counts else sum(c for c in counts if c is not None),
                tc_records_per_s=min(capacities) if capacities else None,
                notes=g.notes,
            )
        )
    return out, skipped


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"
