"""Bytes a consumer group fetches across zones (racks), from leaders or with follower fetching.

Cloud providers bill traffic between availability zones; Kafka calls a zone a *rack*
(``broker.rack`` on brokers, ``client.rack`` on consumers). A consumer fetches from the
partition's leader unless the brokers run KIP-392's ``RackAwareReplicaSelector``
(``replica.selector.class``) and the consumer sets ``client.rack``: then it fetches from a
replica in its own rack when the partition has one, and from the leader otherwise.

Only consumer fetches are counted here; replication between brokers and producer traffic
are not. A byte is counted by where it is fetched from, once per group that reads it.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.assignors import Racks, assign
from planner.notes import Note, note

__all__ = [
    "GIB",
    "RACKS_PATTERN",
    "REPLICAS_PATTERN",
    "CrossZoneEvidence",
    "CrossZoneFetch",
    "GroupCrossZone",
    "GroupZones",
    "ReplicaPlacement",
    "TopicZones",
    "ZoneSplit",
    "advice",
    "client_racks",
    "cross_zone_fetch",
    "cross_zone_record",
    "group_cross_zone",
    "replica_lists",
    "replicas_text",
]

GIB = 1024**3
"""Bytes in a GiB, the unit prices are given per."""

REPLICAS_PATTERN = r"^[0-9]+(:[0-9]+)*(,[0-9]+(:[0-9]+)*)*$"
"""The `replicas` syntax as a regular expression, for the input suite (which cannot call
`replica_lists`); a test holds the two to the same examples. Repeated brokers in one
partition are the parser's to refuse."""

RACKS_PATTERN = r"^[^,]*[^,\s][^,]*(,[^,]*[^,\s][^,]*)*$"
"""The `client_rack` syntax (racks joined by ``,``, none blank) for the input suite and
`client_racks`."""


@dataclass(frozen=True)
class ReplicaPlacement:
    """Where one partition's replicas live.

    Attributes:
        leader_rack: ``broker.rack`` of the leader's broker, or None if it has none.
        replica_racks: The racks of all its replicas, the leader's included (brokers
            without a rack left out).
    """

    leader_rack: str | None
    replica_racks: frozenset[str]

    @classmethod
    def of(cls, leader_rack: str | None, replica_racks: Collection[str | None]) -> ReplicaPlacement:
        """Build from the leader's rack and each replica's rack (None for no rack)."""
        racks = frozenset(r for r in replica_racks if r)
        leader = leader_rack or None
        if leader is not None and leader not in racks:
            raise ValueError(
                f"the leader's rack {leader!r} is not among the replicas' {sorted(racks)}"
            )
        return cls(leader, racks)


@dataclass(frozen=True)
class ZoneSplit:
    """One group's fetched bytes per day, split by whether they cross a zone.

    Attributes:
        same_zone_bytes_per_day: Fetched from a broker in the consumer's own rack.
        cross_zone_bytes_per_day: Fetched from a broker in another rack.
        unknown_bytes_per_day: Fetched where a rack is unknown (a member without
            ``client.rack``, or a broker without ``broker.rack``), so not attributable.
    """

    same_zone_bytes_per_day: float = 0.0
    cross_zone_bytes_per_day: float = 0.0
    unknown_bytes_per_day: float = 0.0

    def cross_zone_cost_per_day(self, price_per_gib: float) -> float:
        """The cross-zone bytes times ``price_per_gib`` (any currency, per GiB crossing;
        the caller decides whether it covers one direction or both)."""
        if not math.isfinite(price_per_gib) or price_per_gib < 0:
            raise ValueError(f"price per GiB must be finite and not negative, got {price_per_gib}")
        return self.cross_zone_bytes_per_day / GIB * price_per_gib


@dataclass(frozen=True)
class CrossZoneFetch:
    """A group's fetches per day, from leaders and with follower fetching (KIP-392).

    Attributes:
        from_leaders: Every member fetches from the partition leader.
        follower_fetching: A member with a rack fetches from a replica in its rack when the
            partition has one, else from the leader; a member without a rack from the leader.
    """

    from_leaders: ZoneSplit
    follower_fetching: ZoneSplit

    @property
    def saved_bytes_per_day(self) -> float:
        """Cross-zone bytes per day that follower fetching avoids."""
        return (
            self.from_leaders.cross_zone_bytes_per_day
            - self.follower_fetching.cross_zone_bytes_per_day
        )


def cross_zone_fetch(
    assignment: Mapping[str, Iterable[tuple[str, int]]],
    member_racks: Mapping[str, str | None],
    placements: Mapping[tuple[str, int], ReplicaPlacement],
    bytes_per_day: Mapping[tuple[str, int], float],
) -> CrossZoneFetch:
    """The bytes a group fetches across zones per day under ``assignment``.

    Args:
        assignment: Member id -> the ``(topic, partition)`` pairs it reads.
        member_racks: Member id -> its ``client.rack``; absent, None or empty: no rack.
        placements: Every assigned partition -> its replicas' racks.
        bytes_per_day: Every assigned partition -> bytes the group reads from it per day.

    Returns:
        The split with fetching from leaders and with follower fetching.

    Raises:
        ValueError: An assigned partition without a placement or a byte figure, or a
            negative or non-finite byte figure.

    Example:
        >>> placements = {("t", 0): ReplicaPlacement.of("a", ["a", "b"])}
        >>> fetch = cross_zone_fetch({"c": [("t", 0)]}, {"c": "b"}, placements, {("t", 0): 2 * GIB})
        >>> fetch.from_leaders.cross_zone_bytes_per_day / GIB, fetch.saved_bytes_per_day / GIB
        (2.0, 2.0)
    """
    leaders = [0.0, 0.0, 0.0]  # same zone, cross zone, unknown
    followers = [0.0, 0.0, 0.0]
    for member_id, partitions in assignment.items():
        rack = member_racks.get(member_id) or None
        for tp in partitions:
            key = (tp[0], tp[1])
            placement = placements.get(key)
            if placement is None:
                raise ValueError(f"no replica placement for partition {key[0]}-{key[1]}")
            size = bytes_per_day.get(key)
            if size is None or not math.isfinite(size) or size < 0:
                raise ValueError(f"bytes per day of {key[0]}-{key[1]} must be given, finite, >= 0")
            leaders[_zone(rack, placement.leader_rack)] += size
            if rack is not None and rack in placement.replica_racks:
                followers[0] += size  # KIP-392: a replica in the consumer's own rack
            else:
                followers[_zone(rack, placement.leader_rack)] += size
    return CrossZoneFetch(ZoneSplit(*leaders), ZoneSplit(*followers))


def _zone(member_rack: str | None, broker_rack: str | None) -> int:
    if member_rack is None or broker_rack is None:
        return 2
    return 0 if member_rack == broker_rack else 1


def replica_lists(text: str) -> tuple[tuple[int, ...], ...]:
    """Each partition's replicas from the `topics` figures' `replicas` text.

    The text is Kafka's ``--replica-assignment`` syntax (``kafka-topics``): partitions in
    order, separated by ``,``, each partition's broker ids separated by ``:``. Here the
    first id is the partition's *current leader*, where Kafka's syntax means the
    preferred one: the collector writes the leader first, and a landing file should too.

    Raises:
        ValueError: an empty partition, an id that is not a whole number >= 0, or a
            broker named twice in one partition (Kafka refuses that assignment).

    Example:
        >>> replica_lists("1:2,2:3,3:1")
        ((1, 2), (2, 3), (3, 1))
    """
    out = []
    for partition, item in enumerate(text.split(",")):
        if not re.fullmatch(r"[0-9]+(:[0-9]+)*", item):
            raise ValueError(
                f"partition {partition}: {item!r} is not broker ids joined by ':' "
                f"(leader first), as in 1:2:3,2:3:1"
            )
        brokers = tuple(int(i) for i in item.split(":"))
        if len(set(brokers)) != len(brokers):
            raise ValueError(f"partition {partition}: a broker is named twice in {item!r}")
        out.append(brokers)
    return tuple(out)


def replicas_text(replicas: Sequence[Sequence[int]]) -> str:
    """The `replicas` text of each partition's replica list (the inverse of `replica_lists`)."""
    return ",".join(":".join(str(b) for b in brokers) for brokers in replicas)


def client_racks(text: str) -> tuple[str, ...]:
    """The racks of a group's members from the `groups` figures' `client_rack` text.

    One rack (every member's ``client.rack``), or several separated by ``,``: the members,
    in member-id order, take them in turn (member i the rack i mod n), which is how a
    group spread evenly over zones is given without naming each member. Kafka takes a
    rack as it is, so a rack no broker names is kept (its members fetch across zones).

    Raises:
        ValueError: a blank rack (Kafka would ignore it, so the member has none: leave
            the field empty instead of writing one).
    """
    racks = tuple(r.strip() for r in text.split(","))
    if not all(racks) or not re.fullmatch(RACKS_PATTERN, text):
        raise ValueError(
            f"client.rack {text!r} has a blank rack; give racks separated by ',' or leave "
            f"the field empty for members without client.rack"
        )
    return racks


@dataclass(frozen=True)
class TopicZones:
    """One topic a group reads, as the cross-zone figure needs it.

    Attributes:
        topic: The topic.
        replicas: Today's replicas of each partition, leader first (broker ids).
        bytes_per_day: Bytes the group reads from each partition per day, one per
            partition of the *planned* count; partitions past `replicas` are to be created,
            and their replicas are unknown.
    """

    topic: str
    replicas: tuple[tuple[int, ...], ...]
    bytes_per_day: tuple[float, ...]


@dataclass(frozen=True)
class GroupZones:
    """The planned group whose fetches are located.

    Attributes:
        group_id: The group.
        protocol: Its protocol (``classic``, ``consumer``; share groups have no figure).
        strategy: The assignor the assignment is made with, of `protocol` (for a Kafka
            Streams application the classic strategy it is planned as).
        members: Planned members (>= 1).
        racks: The members' ``client.rack`` in turn (`client_racks`); empty: not known.
        rack_aware: Whether the assignor reads ``client.rack`` (KIP-881); False for a
            Kafka Streams application, whose task assignor is not modelled with racks.
    """

    group_id: str
    protocol: str
    strategy: str
    members: int
    racks: tuple[str, ...] = ()
    rack_aware: bool = True

    def member_ids(self) -> tuple[str, ...]:
        """Planned member ids, in the order Kafka sorts them (as `planner.simulate`)."""
        width = max(3, len(str(self.members - 1)))
        return tuple(f"consumer-{i:0{width}d}" for i in range(self.members))

    def member_racks(self) -> dict[str, str]:
        """Member id -> its rack (none when `racks` is empty)."""
        if not self.racks:
            return {}
        ids = self.member_ids()
        return {m: self.racks[i % len(self.racks)] for i, m in enumerate(ids)}


@dataclass(frozen=True)
class CrossZoneEvidence:
    """What a group's cross-zone figure was computed from.

    Attributes:
        broker_racks: ``broker.rack`` of each broker the replicas name (None: none set).
        replicas: Topic -> its replicas text as read (`replicas_text`, leader first).
        member_racks: The members' racks in turn, as given (empty: unknown).
        members: Planned members the assignment was made for.
        strategy: The assignor it was made with.
        partitions: Topic -> the planned partition count the bytes are spread over.
        new_partitions: Planned partitions not created yet: their replicas are unknown,
            so their bytes count as unknown in both modes.
    """

    broker_racks: Mapping[int, str | None]
    replicas: Mapping[str, str]
    member_racks: tuple[str, ...]
    members: int
    strategy: str
    partitions: Mapping[str, int]
    new_partitions: int


@dataclass(frozen=True)
class GroupCrossZone:
    """A group's fetches per day by zone under its planned assignment, and their price.

    Attributes:
        fetch: From leaders and with follower fetching (bytes per day).
        bytes_per_day: Everything the group reads per day.
        price_per_gib: The configured price per GiB crossing zones (None: not configured,
            so no money figure).
        evidence: The racks and replica lists it came from.
    """

    fetch: CrossZoneFetch
    bytes_per_day: float
    price_per_gib: float | None
    evidence: CrossZoneEvidence

    @property
    def racks_known(self) -> bool:
        """Whether the members' racks are known (else every byte's zone is unknown)."""
        return bool(self.evidence.member_racks)

    def cost_per_day(self, split: ZoneSplit) -> float | None:
        """`split`'s cross-zone bytes at the configured price (None without one)."""
        if self.price_per_gib is None:
            return None
        return split.cross_zone_cost_per_day(self.price_per_gib)


def group_cross_zone(
    group: GroupZones,
    topics: Sequence[TopicZones],
    broker_racks: Mapping[int, str | None],
    *,
    price_per_gib: float | None = None,
) -> GroupCrossZone | None:
    """Where a planned group fetches its bytes from, per day, under its planned assignment.

    The assignment is Kafka's (`planner.assignors.assign`) for the planned members and
    partition counts, with the members' racks when given (KIP-881: range and the sticky
    assignors then prefer partitions with a replica in a member's rack). Then
    `cross_zone_fetch` locates every partition's bytes.

    Args:
        group: The planned group.
        topics: The topics it reads.
        broker_racks: Broker id -> its ``broker.rack`` (None or absent: none).
        price_per_gib: Price per GiB crossing zones, any currency; None: bytes only.

    Returns:
        The figure, or None when no broker holding a replica the group reads has a rack
        (nothing can be said about zones then) or the group is a share group (a
        partition's records go to several members, in proportions no figure gives).

    Raises:
        ValueError: No member, a negative or non-finite byte figure or price.
    """
    if group.protocol == "share":
        return None
    if group.members < 1:
        raise ValueError(f"group {group.group_id!r}: the figure needs at least one member")
    if price_per_gib is not None and (not math.isfinite(price_per_gib) or price_per_gib < 0):
        raise ValueError(f"price per GiB must be finite and not negative, got {price_per_gib}")
    named = sorted({b for t in topics for brokers in t.replicas for b in brokers})
    if not any(broker_racks.get(b) for b in named):
        return None
    rack_of = {b: broker_racks.get(b) or None for b in named}
    placements: dict[tuple[str, int], ReplicaPlacement] = {}
    daily: dict[tuple[str, int], float] = {}
    for t in topics:
        for p, size in enumerate(t.bytes_per_day):
            daily[t.topic, p] = size
            if p < len(t.replicas):
                brokers = t.replicas[p]
                placements[t.topic, p] = ReplicaPlacement.of(
                    rack_of[brokers[0]], [rack_of[b] for b in brokers]
                )
            else:
                placements[t.topic, p] = ReplicaPlacement(None, frozenset())
    members = group.member_racks()
    ids = group.member_ids()
    counts = {t.topic: len(t.bytes_per_day) for t in topics}
    racks = None
    if members and group.rack_aware and group.protocol == "classic":
        racks = Racks(
            members=members,
            replicas={
                t.topic: [[rack_of[b] for b in brokers] for brokers in t.replicas] for t in topics
            },
        )
    assignment = assign(
        group.strategy,
        counts,
        {m: sorted(counts) for m in ids},
        protocol=group.protocol,
        racks=racks,
    )
    fetch = cross_zone_fetch(assignment, members, placements, daily)
    evidence = CrossZoneEvidence(
        broker_racks=rack_of,
        replicas={t.topic: replicas_text(t.replicas) for t in topics},
        member_racks=group.racks,
        members=group.members,
        strategy=group.strategy,
        partitions=counts,
        new_partitions=sum(max(0, len(t.bytes_per_day) - len(t.replicas)) for t in topics),
    )
    return GroupCrossZone(fetch, float(sum(daily.values())), price_per_gib, evidence)


def advice(group_id: str, figure: GroupCrossZone) -> tuple[Note, ...]:
    """What a group is told about zones: only what its figure shows.

    - ``client-rack`` when its members' racks are unknown (the figure exists, so brokers
      have racks): the bytes at stake, and no saving, which the data cannot show;
    - ``follower-fetching`` when its members' racks are known and follower fetching
      fetches fewer bytes across zones than fetching from leaders, with both figures.
    """
    if not figure.racks_known:
        racks = sorted({r for r in figure.evidence.broker_racks.values() if r})
        return (
            note(
                "client-rack",
                group_id=group_id,
                bytes_per_day=figure.bytes_per_day,
                broker_racks=racks,
            ),
        )
    leaders, followers = figure.fetch.from_leaders, figure.fetch.follower_fetching
    if figure.fetch.saved_bytes_per_day <= 0:
        return ()
    return (
        note(
            "follower-fetching",
            group_id=group_id,
            leader_cross_zone_bytes_per_day=leaders.cross_zone_bytes_per_day,
            follower_cross_zone_bytes_per_day=followers.cross_zone_bytes_per_day,
            price_per_gib=figure.price_per_gib,
            leader_cost_per_day=figure.cost_per_day(leaders),
            follower_cost_per_day=figure.cost_per_day(followers),
        ),
    )


def cross_zone_record(
    figure: GroupCrossZone | None, notes: Sequence[Note]
) -> dict[str, Any] | None:
    """The figure and its advice as one record: the `cross_zone` struct of the jobs'
    group plans and the report model's `CrossZoneReport` (bytes per day; costs in the
    configured price's currency, null without a price; notes in their coded row form)."""
    if figure is None:
        return None
    leaders, followers = figure.fetch.from_leaders, figure.fetch.follower_fetching
    evidence = figure.evidence
    return {
        "bytes_per_day": figure.bytes_per_day,
        "from_leaders": dataclasses.asdict(leaders),
        "follower_fetching": dataclasses.asdict(followers),
        "price_per_gib": figure.price_per_gib,
        "leader_cost_per_day": figure.cost_per_day(leaders),
        "follower_cost_per_day": figure.cost_per_day(followers),
        "evidence": {
            "brokers": [
                {"broker_id": b, "rack": r} for b, r in sorted(evidence.broker_racks.items())
            ],
            "replicas": [
                {"topic": t, "partitions": evidence.partitions[t], "replicas": text}
                for t, text in sorted(evidence.replicas.items())
            ],
            "member_racks": list(evidence.member_racks),
            "members": evidence.members,
            "strategy": evidence.strategy,
            "new_partitions": evidence.new_partitions,
        },
        "advice": [n.as_row() for n in notes],
    }


# KIP-392 "Allow consumers to fetch from closest replica" (Kafka 2.4+,
# org.apache.kafka.common.replica.RackAwareReplicaSelector); KIP-881 for client.rack in
# the classic assignors (planner.assignors).
