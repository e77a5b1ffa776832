"""What a partition count costs: memory, broker load, availability, file handles, threads.

More partitions are not free. Every recommendation carries this panel so the person who
runs `kafka-topics --alter` sees the price next to the number. The rules of thumb are
Jun Rao's (Confluent, 2015) unless said otherwise; each is a default in `CostSettings`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

from planner.notes import Note, note

__all__ = ["COST_FIELDS", "ClusterShape", "CostSettings", "PartitionCost", "partition_cost"]

_MIB = 1024 * 1024


@dataclass(frozen=True)
class ClusterShape:
    """The brokers a topic lives on.

    Attributes:
        brokers: Live brokers in the cluster (>= 1).
        replication_factor: Replicas per partition (>= 1, at most `brokers`).
        existing_replicas_per_broker: Partition replicas of *other* topics already on the
            busiest broker, if known (0 when unknown; the panel then counts this topic only).
    """

    brokers: int
    replication_factor: int
    existing_replicas_per_broker: int = 0

    def __post_init__(self) -> None:
        if self.brokers < 1:
            raise ValueError(f"brokers must be at least 1, got {self.brokers}")
        if self.replication_factor < 1:
            raise ValueError(
                f"replication factor must be at least 1, got {self.replication_factor}"
            )
        if self.replication_factor > self.brokers:
            # The same refusal Kafka gives at topic creation.
            raise ValueError(
                f"Replication factor: {self.replication_factor} larger than available "
                f"brokers: {self.brokers}"
            )
        if self.existing_replicas_per_broker < 0:
            raise ValueError("existing_replicas_per_broker must be zero or above")


@dataclass(frozen=True)
class CostSettings:
    """Client and broker settings, and the limits the panel compares against.

    Attributes:
        batch_size_bytes: Producer `batch.size` (Kafka default 16384).
        buffer_memory_bytes: Producer `buffer.memory` (Kafka default 33554432, 32 MiB).
        max_replicas_per_broker: Partition replicas one broker should carry (about 4,000
            with ZooKeeper; KRaft brokers carry more).
        election_ms_per_partition: Leader-election time per partition when a broker
            fails (about 5 ms measured with a ZooKeeper controller; far less with KRaft).
        segment_bytes: Broker `log.segment.bytes` (default 1 GiB).
        segment_ms: Broker `log.roll.ms` / `segment.ms` (default 7 days).
        files_per_segment: Files per log segment (`.log`, `.index`, `.timeindex`).
    """

    batch_size_bytes: int = 16_384
    buffer_memory_bytes: int = 33_554_432
    max_replicas_per_broker: int = 4_000
    election_ms_per_partition: float = 5.0
    segment_bytes: int = 1_073_741_824
    segment_ms: int = 604_800_000
    files_per_segment: int = 3

    def __post_init__(self) -> None:
        for name in ("batch_size_bytes", "buffer_memory_bytes", "max_replicas_per_broker"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if not math.isfinite(self.election_ms_per_partition) or (
            self.election_ms_per_partition < 0
        ):
            raise ValueError("election_ms_per_partition must be zero or above")
        if self.segment_bytes < 1 or self.segment_ms < 1 or self.files_per_segment < 1:
            raise ValueError("segment_bytes, segment_ms and files_per_segment must be >= 1")


@dataclass(frozen=True)
class PartitionCost:
    """The cost panel for one candidate partition count.

    Attributes:
        partitions: The candidate count.
        producer_batch_memory_bytes: `partitions x batch.size`: buffers one producer
            needs to keep a batch open for every partition.
        producer_buffer_share: That memory as a fraction of `buffer.memory` (> 1 means
            a producer writing to every partition cannot hold a batch for each).
        replicas_total: `partitions x replication_factor`.
        replicas_per_broker: Replicas on the busiest broker after the change (this
            topic spread evenly, plus the existing replicas given).
        replicas_per_broker_limit: `max_replicas_per_broker`.
        latency_rule_limit: `100 x brokers x replication_factor` partitions per broker
            (Jun Rao's rule of thumb for replication latency).
        leaders_per_broker: Leaders of this topic on the busiest broker.
        election_unavailability_ms: Leaders on a failed broker x ms per election: how
            long the last of its partitions may stay unavailable. None with replication
            factor 1: there is no other replica to elect, so the failed broker's
            partitions stay offline until it returns (a warning says so).
        segments_per_replica: Log segments one replica keeps over its retention.
        file_handles_per_broker: Open files this topic costs the busiest broker.
        consumer_threads: Threads (and fetch sessions) for one consumer group to read every
            partition in parallel.
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
    warnings: tuple[Note, ...] = field(default=())


#: The cost panel's figures, in `PartitionCost`'s order: what the datasets store as
#: `cost_<name>` columns and the report shows (`partitions` is the count itself and
#: `warnings` are published apart, so neither is one).
COST_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(PartitionCost) if f.name not in ("partitions", "warnings")
)


def _segments_per_replica(
    settings: CostSettings,
    retention_ms: int | None,
    bytes_in_per_s: float | None,
    partitions: int,
) -> int:
    # The active segment, plus the closed ones that retention keeps: whichever of time
    # (a segment rolls every segment.ms) or size (every segment.bytes) rolls faster.
    if retention_ms is None or retention_ms < 0:
        return 1
    by_time = math.ceil(retention_ms / settings.segment_ms)
    by_size = 0
    if bytes_in_per_s is not None and bytes_in_per_s > 0:
        kept_bytes = bytes_in_per_s / partitions * retention_ms / 1000.0
        by_size = math.ceil(kept_bytes / settings.segment_bytes)
    return 1 + max(by_time, by_size)


def partition_cost(
    partitions: int,
    cluster: ClusterShape,
    settings: CostSettings | None = None,
    *,
    retention_ms: int | None = None,
    bytes_in_per_s: float | None = None,
) -> PartitionCost:
    """The cost panel of one candidate partition count.

    Args:
        partitions: Candidate partition count (>= 1).
        cluster: Brokers and replication factor.
        settings: Client/broker settings and limits (defaults when None).
        retention_ms: The topic's `retention.ms` (None: unknown, one segment assumed;
            -1 means unlimited and is treated as unknown).
        bytes_in_per_s: The topic's planned bytes in per second, for size-based
            segment rolls.

    Example:
        >>> c = partition_cost(10_000, ClusterShape(brokers=3, replication_factor=3))
        >>> c.producer_batch_memory_bytes / 2**20  # 10,000 x 16 KiB
        156.25
    """
    if isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1:
        raise ValueError(f"partitions must be a whole number >= 1, got {partitions!r}")
    settings = settings or CostSettings()

    batch_memory = partitions * settings.batch_size_bytes
    buffer_share = batch_memory / settings.buffer_memory_bytes
    replicas_total = partitions * cluster.replication_factor
    replicas_per_broker = (
        math.ceil(replicas_total / cluster.brokers) + cluster.existing_replicas_per_broker
    )
    latency_limit = 100 * cluster.brokers * cluster.replication_factor
    leaders_per_broker = math.ceil(partitions / cluster.brokers)
    # With one replica there is nothing to elect: the partitions wait for their broker.
    single_replica = cluster.replication_factor == 1
    unavailability_ms = (
        None if single_replica else leaders_per_broker * settings.election_ms_per_partition
    )
    segments = _segments_per_replica(settings, retention_ms, bytes_in_per_s, partitions)
    handles = math.ceil(replicas_total / cluster.brokers) * segments * settings.files_per_segment

    warnings: list[Note] = []
    if single_replica:
        warnings.append(
            note("single-replica", partitions=partitions, leaders_per_broker=leaders_per_broker)
        )
    if buffer_share > 1:
        warnings.append(
            note(
                "producer-buffer",
                partitions=partitions,
                batch_memory_bytes=batch_memory,
                buffer_memory_bytes=settings.buffer_memory_bytes,
            )
        )
    if replicas_per_broker > settings.max_replicas_per_broker:
        warnings.append(
            note(
                "replicas-per-broker",
                replicas_per_broker=replicas_per_broker,
                limit=settings.max_replicas_per_broker,
            )
        )
    if replicas_per_broker > latency_limit:
        warnings.append(
            note(
                "replication-latency",
                replicas_per_broker=replicas_per_broker,
                brokers=cluster.brokers,
                replication_factor=cluster.replication_factor,
                limit=latency_limit,
            )
        )
    return PartitionCost(
        partitions=partitions,
        producer_batch_memory_bytes=batch_memory,
        producer_buffer_share=buffer_share,
        replicas_total=replicas_total,
        replicas_per_broker=replicas_per_broker,
        replicas_per_broker_limit=settings.max_replicas_per_broker,
        latency_rule_limit=latency_limit,
        leaders_per_broker=leaders_per_broker,
        election_unavailability_ms=unavailability_ms,
        segments_per_replica=segments,
        file_handles_per_broker=handles,
        consumer_threads=partitions,
        warnings=tuple(warnings),
    )


# Follows: Jun Rao, "How to choose the number of topics/partitions in a Kafka cluster?"
# (Confluent, 2015); Kafka's InvalidReplicationFactorException message at topic creation.
