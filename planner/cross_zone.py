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

import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "GIB",
    "CrossZoneFetch",
    "ReplicaPlacement",
    "ZoneSplit",
    "cross_zone_fetch",
]

GIB = 1024**3
"""Bytes in a GiB, the unit prices are given per."""


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


# KIP-392 "Allow consumers to fetch from closest replica" (Kafka 2.4+,
# org.apache.kafka.common.replica.RackAwareReplicaSelector); KIP-881 for client.rack in
# the classic assignors (planner.assignors).
