"""Sizing a share group (KIP-932) and the partitions its topic needs.

The model of docs/model.md, section 8, measured on Kafka 4.4.0: one partition read by a
share group delivers at most

    rate(M) = min(S, M / t, min(M * b, L_eff) / (b * t)),   L_eff = max(L, b)

records/s, with M members on it, S the broker's share-fetch rate of one partition, t a
member's processing time per record (1 / Tc in records/s: Tc of a share group is one
member's rate), b the records a member holds per poll (`max.poll.records`: Kafka's share
consumer acquires whole batches, so the record-lock cap L is passed by up to one poll)
and L the share-partition's cap on records in flight
(`group.share.partition.max.record.locks`). So members are sized by the load alone
(`M = R * t`: a share group's members are not capped by the partition count), and the
topic needs at least

    P >= max(R / Tp, R / S, R * b * t / L_eff)

partitions: the producer side as for any topic, the share-fetch side, and the in-flight
cap (one partition keeps at most L_eff / b members busy). R is a planning target, the
headroom already in it (`planner.sizing.targets_from_history`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from planner.cost import PartitionCost
from planner.notes import Note, note
from planner.simulate.multi_topic import SHARE_GROUP_MAX_SIZE
from planner.sizing import SideCapacity, _ceil_ratio

__all__ = [
    "ShareAlternative",
    "ShareBound",
    "ShareLimits",
    "ShareSizing",
    "partition_rate",
    "share_alternative",
    "size_share_group",
]

_MIB = 1024 * 1024
_RECORDS = "records_in"


@dataclass(frozen=True)
class ShareLimits:
    """The settings that bound one share-partition, Kafka 4.4.0's defaults.

    Attributes:
        max_record_locks: `group.share.partition.max.record.locks` (L): records acquired
            and not yet acknowledged, per share-partition (100 to 4000).
        records_per_poll: The members' `max.poll.records` (b): what one member holds
            between two polls in the default implicit acknowledgement mode.
        lock_duration_s: `group.share.record.lock.duration.ms` / 1000: a record not
            acknowledged by then is released and delivered again.
        max_group_size: `group.share.max.size`: members a share group may have. Kafka's
            default, as the grids use it (`planner.simulate.SHARE_GROUP_MAX_SIZE`), and
            not set by the config.
    """

    max_record_locks: int = 2000
    records_per_poll: int = 500
    lock_duration_s: float = 30.0
    max_group_size: int = SHARE_GROUP_MAX_SIZE

    def __post_init__(self) -> None:
        for name in ("max_record_locks", "records_per_poll", "max_group_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
        if not math.isfinite(self.lock_duration_s) or self.lock_duration_s <= 0:
            raise ValueError(f"lock_duration_s must be above zero, got {self.lock_duration_s!r}")

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        """The settings a config's `[planning.share]` table may set: the share model's
        (`max_group_size` is the broker default the grids are built with)."""
        return ("max_record_locks", "records_per_poll", "lock_duration_s")

    @property
    def effective_locks(self) -> int:
        """L_eff: the cap as it acts, passed by up to one whole poll."""
        return max(self.max_record_locks, self.records_per_poll)


Bound = Literal["producer", "share-fetch", "in-flight"]


@dataclass(frozen=True)
class ShareBound:
    """One lower bound on the partition count.

    Attributes:
        bound: `producer` (R / Tp), `share-fetch` (R / S) or `in-flight`
            (R * b * t / L_eff).
        dimension: The target it was computed from (`mib_in`, `records_in`, `mib_out`).
        partitions: The partitions it asks for (at least 1).
    """

    bound: Bound
    dimension: str
    partitions: int


@dataclass(frozen=True)
class ShareSizing:
    """What a share group needs, and the partitions its topic needs for it.

    Attributes:
        members: Members to run (at least 1): the load over one member's rate.
        members_dimension: The target that asked for the most members.
        partitions: The largest bound (at least 1).
        deciding: The bound that asked for `partitions` (the first of producer,
            share-fetch, in-flight on a tie).
        bounds: Every bound that could be computed.
        holding_s: W = b * t, how long a member holds a poll's records; None when the
            members' rate in records/s is unknown.
        members_per_partition: L_eff / b, the members one partition keeps busy.
        notes: What the sizing assumed or warns about (`planner.notes` codes
            `share-fetch-assumed`, `share-in-flight-unchecked`, `share-lock-expiry`,
            `share-group-size`).
    """

    members: int
    members_dimension: str
    partitions: int
    deciding: ShareBound
    bounds: tuple[ShareBound, ...]
    holding_s: float | None
    members_per_partition: float
    notes: tuple[Note, ...]


def partition_rate(
    members: int,
    *,
    seconds_per_record: float,
    share_fetch_records_per_s: float | None = None,
    limits: ShareLimits = ShareLimits(),
) -> float:
    """Records/s one partition delivers to `members` members of a share group.

    `min(S, M / t, min(M * b, L_eff) / (b * t))`; S unknown is not a bound.

    Example:
        >>> round(partition_rate(8, seconds_per_record=0.00128, limits=ShareLimits(
        ...     records_per_poll=520)))
        3005
    """
    if members < 1:
        raise ValueError(f"members must be at least 1, got {members!r}")
    if not math.isfinite(seconds_per_record) or seconds_per_record <= 0:
        raise ValueError(f"seconds_per_record must be above zero, got {seconds_per_record!r}")
    b = limits.records_per_poll
    rate = min(
        members / seconds_per_record,
        min(members * b, limits.effective_locks) / (b * seconds_per_record),
    )
    if share_fetch_records_per_s is not None:
        rate = min(rate, share_fetch_records_per_s)
    return rate


def _records_per_s(side: SideCapacity) -> float | None:
    if side.records_per_s is not None:
        return side.records_per_s
    if side.mib_per_s is not None and side.record_bytes:
        return side.mib_per_s * _MIB / side.record_bytes
    return None


def size_share_group(
    targets: Mapping[str, float],
    *,
    producer: SideCapacity,
    member: SideCapacity,
    share_fetch: SideCapacity | None = None,
    limits: ShareLimits = ShareLimits(),
) -> ShareSizing:
    """Members for a share group, and the partitions its topic needs for it.

    Args:
        targets: Planning targets per dimension (`mib_in`, `records_in`, `mib_out`),
            headroom included; `mib_out` is the group's own read rate.
        producer: Tp, one partition's producer throughput (the producer bound).
        member: One member's processing rate (the `consumer_*` capacity columns).
        share_fetch: One partition's share-fetch throughput, S (`share_fetch_*`);
            None or empty: not measured, assumed not to bind (said in the notes).
        limits: The share-partition's settings.

    Raises:
        ValueError: No target with a member rate to size the members on.
    """
    members = 0
    members_dimension = ""
    bounds: list[ShareBound] = []
    for dimension in ("mib_in", "records_in", "mib_out"):
        target = targets.get(dimension)
        if target is None:
            continue
        rate = member.for_dimension(dimension)
        if rate is not None:
            need = max(1, _ceil_ratio(target, rate))
            if need > members:
                members, members_dimension = need, dimension
        tp = None if dimension == "mib_out" else producer.for_dimension(dimension)
        if tp is not None:
            bounds.append(ShareBound("producer", dimension, max(1, _ceil_ratio(target, tp))))
        s = None if share_fetch is None else share_fetch.for_dimension(dimension)
        if s is not None:
            bounds.append(ShareBound("share-fetch", dimension, max(1, _ceil_ratio(target, s))))
    if not members:
        raise ValueError(
            "nothing to size the share group on: no target with a member rate (Tc) in "
            f"its unit (targets {', '.join(sorted(targets)) or 'none'})"
        )
    notes: list[Note] = []
    if not any(b.bound == "share-fetch" for b in bounds):
        notes.append(note("share-fetch-assumed"))
    b = limits.records_per_poll
    per_record = _records_per_s(member)
    records = targets.get(_RECORDS)
    holding_s = None if per_record is None else b / per_record
    if holding_s is not None and records is not None:
        in_flight = _ceil_ratio(records * holding_s, limits.effective_locks)
        bounds.append(ShareBound("in-flight", _RECORDS, max(1, in_flight)))
    else:
        notes.append(
            note(
                "share-in-flight-unchecked",
                missing="the members' rate in records/s"
                if per_record is None
                else "a records/s target",
            )
        )
    if holding_s is not None and holding_s >= limits.lock_duration_s:
        notes.append(
            note(
                "share-lock-expiry",
                holding_s=holding_s,
                records_per_poll=b,
                lock_duration_s=limits.lock_duration_s,
                max_poll_records=max(1, math.floor(limits.lock_duration_s * (per_record or 0) / 2)),
            )
        )
    if members > limits.max_group_size:
        notes.append(note("share-group-size", members=members, max_size=limits.max_group_size))
    if not bounds:
        bounds.append(ShareBound("producer", members_dimension, 1))
    deciding = max(bounds, key=lambda x: x.partitions)  # the first wins a tie
    return ShareSizing(
        members=members,
        members_dimension=members_dimension,
        partitions=deciding.partitions,
        deciding=deciding,
        bounds=tuple(bounds),
        holding_s=holding_s,
        members_per_partition=limits.effective_locks / b,
        notes=tuple(notes),
    )


@dataclass(frozen=True)
class ShareAlternative:
    """A classic group's topic planned for a share group instead, with what it saves.

    Attributes:
        partitions: The topic's partitions for a share group (never below today's
            count: Kafka cannot shrink a topic).
        classic_partitions: The partitions the classic plan recommends.
        members: The share group's members.
        sizing: The share model's figures.
        cost: The cost panel at `partitions`.
        classic_cost: The cost panel at `classic_partitions`.
        note: The alternative in words (code `share-alternative`), its numbers as params.
    """

    partitions: int
    classic_partitions: int
    members: int
    sizing: ShareSizing
    cost: PartitionCost
    classic_cost: PartitionCost
    note: Note


def share_alternative(
    *,
    keyed: bool,
    consumer_decides: bool,
    current_partitions: int | None,
    classic_cost: PartitionCost,
    cost_of: Callable[[int], PartitionCost],
    targets: Mapping[str, float],
    producer: SideCapacity,
    member: SideCapacity,
    share_fetch: SideCapacity | None = None,
    limits: ShareLimits = ShareLimits(),
) -> ShareAlternative | Note | None:
    """Whether a share group would let the topic have fewer partitions, and by how much.

    Offered for a keyless topic whose partition count the consumer side decides: there
    a share group's members are not capped by the partitions, so the topic needs only
    what the producer, share-fetch and in-flight bounds ask. A keyed topic gets the
    reason instead (a share group keeps no per-key order).

    Args:
        keyed: The topic's records carry keys (consumers may rely on per-key order).
        consumer_decides: The consumer side (Tc) decided the classic partition count.
        current_partitions: The topic's partitions today (None: a new topic).
        classic_cost: The cost panel of the classic recommendation.
        cost_of: The cost panel of another count (the same cluster and settings).
        targets, producer, member, share_fetch, limits: As for `size_share_group`, with
            `member` the classic Tc (one consumer's processing rate).

    Returns:
        The alternative, the note saying why none is offered for a keyed topic, or None
        (the producer side decides, or a share group would need as many partitions).
    """
    if keyed:
        return note("share-not-for-keyed")
    if not consumer_decides:
        return None
    sizing = size_share_group(
        targets, producer=producer, member=member, share_fetch=share_fetch, limits=limits
    )
    classic = classic_cost.partitions
    partitions = max(sizing.partitions, current_partitions or 0)
    if partitions >= classic:
        return None
    cost = cost_of(partitions)
    saved = note(
        "share-alternative",
        partitions=partitions,
        classic_partitions=classic,
        members=sizing.members,
        bound=sizing.deciding.bound,
        bound_partitions=sizing.partitions,
        current_partitions=current_partitions,
        replicas_saved=classic_cost.replicas_total - cost.replicas_total,
        file_handles_saved=classic_cost.file_handles_per_broker - cost.file_handles_per_broker,
        batch_memory_saved_bytes=(
            classic_cost.producer_batch_memory_bytes - cost.producer_batch_memory_bytes
        ),
    )
    return ShareAlternative(partitions, classic, sizing.members, sizing, cost, classic_cost, saved)
