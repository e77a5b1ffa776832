"""Single-partition capacities of a sample fleet: the `*` default, measured rows, perf runs.

Three sources, as on a real platform: a house default that applies to every topic
without figures of its own; rows a team measured for its topic (the capacity CSV); and
a handful of topics measured with Kafka's perf tools, whose output lands in `perf/`.
The consumer capacity Tc of measured rows includes the application's processing; the
perf tools' consumer reads and discards, so its Tc is an upper bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.sample.streams import Floats, Ints

__all__ = [
    "DEFAULT_CAPACITY",
    "MIB",
    "Capacity",
    "PerfSpec",
    "draw_capacity",
    "draw_perf",
    "effective_capacity",
]

MIB = 1024.0**2
DEFAULT_CAPACITY: dict[str, float] = {
    "producer_mib_per_s": 20.0,
    "producer_records_per_s": 20_000.0,
    "consumer_mib_per_s": 4.0,
    "consumer_records_per_s": 2_000.0,
    "record_bytes": 1_024.0,
}
"""The `*` row: Tp and Tc an operations team agreed for topics never measured (1 KiB)."""


@dataclass(frozen=True)
class Capacity:
    """Single-partition capacities: the `*` default row and per-topic measured rows.

    Attributes:
        default: The `*` row: producer_mib_per_s, producer_records_per_s,
            consumer_mib_per_s, consumer_records_per_s, record_bytes.
        topics: Indices of the topics with their own row.
        producer_mib_per_s: Tp in MiB/s, per row.
        producer_records_per_s: Tp in records/s, per row (NaN: not measured).
        consumer_mib_per_s: Tc in MiB/s, processing included, per row.
        consumer_records_per_s: Tc in records/s, per row (NaN: not measured).
        measured_at_s: When each row was measured, seconds since the epoch (UTC).
    """

    default: dict[str, float]
    topics: Ints
    producer_mib_per_s: Floats
    producer_records_per_s: Floats
    consumer_mib_per_s: Floats
    consumer_records_per_s: Floats
    measured_at_s: Ints


@dataclass(frozen=True)
class PerfSpec:
    """One topic measured with Kafka's perf tools (its only per-topic capacity figures).

    Attributes:
        topic: Topic index.
        record_bytes: `--record-size` of the producer run, bytes.
        producer_mib_per_s: The producer's steady rate, MiB/s (the whole-run summary
            shows a little less: its first window is slow).
        consumer_fetch_mib_per_s: What the consumer's fetch.MB.sec shows, MiB/s.
        consumer_format: `summary`, `detailed` (`--show-detailed-stats`) or `de` (a JVM
            in a German locale: decimal commas).
        warmup: The producer ran with `--warmup-records` (a steady-state summary follows).
        started_at_s: When the producer run started, seconds since the epoch (UTC).
    """

    topic: int
    record_bytes: int
    producer_mib_per_s: float
    consumer_fetch_mib_per_s: float
    consumer_format: str
    warmup: bool
    started_at_s: int


def draw_capacity(
    rng: np.random.Generator, level: Floats, record_bytes: Floats, candidates: Ints, end_s: int
) -> Capacity:
    """The `*` row and measured rows for the topics `candidates`.

    Args:
        rng: The capacity stream.
        level: Weekly mean bytes/s per topic (all topics).
        record_bytes: Record size per topic, bytes (all topics).
        candidates: Indices of the topics that get a measured row.
        end_s: End of the history, seconds since the epoch (rows are measured before it).
    """
    n = candidates.size
    rb = record_bytes[candidates]
    records_per_s = level[candidates] / rb
    # Producer into one partition (acks=all): bounded by bytes for big records and by
    # records (batching, per-record overhead) for small ones.
    tp_mib = np.minimum(rng.uniform(25.0, 70.0, n), rng.uniform(120e3, 400e3, n) * rb / MIB)
    # Consumer with the application's processing: a per-record cost, log-normal around
    # 300 us (a lookup or a database write; 10 us to 10 ms), and a byte bound.
    per_record_s = np.clip(rng.lognormal(math.log(300e-6), 1.2, n), 10e-6, 10e-3)
    # A consumer that would need hundreds of partitions gets rewritten (batched writes):
    # at its weekly mean rate, it needs at most 4-40 of them.
    per_record_s = np.minimum(per_record_s, rng.uniform(4.0, 40.0, n) / records_per_s)
    tc_mib = np.minimum(rng.uniform(20.0, 60.0, n), rb / per_record_s / MIB)
    # Some teams record MiB/s only.
    records_known = rng.random(n) >= 0.15
    nan = np.full(n, np.nan)
    days_ago = rng.uniform(5.0, 120.0, n)
    measured = (end_s - days_ago * 86_400.0) // 60 * 60
    return Capacity(
        default=dict(DEFAULT_CAPACITY),
        topics=candidates,
        producer_mib_per_s=np.round(tp_mib, 2).astype(np.float64),
        producer_records_per_s=np.where(records_known, np.round(tp_mib * MIB / rb), nan),
        consumer_mib_per_s=np.round(tc_mib, 2).astype(np.float64),
        consumer_records_per_s=np.where(records_known, np.round(tc_mib * MIB / rb), nan),
        measured_at_s=measured.astype(np.int64),
    )


def draw_perf(
    rng: np.random.Generator, topics: Ints, record_bytes: Floats, end_s: int
) -> tuple[PerfSpec, ...]:
    """Perf-tool runs for `topics`, cycling through the output variants so that a handful
    of topics shows every one (Kafka 3.x and 4.x, warm-up, detailed stats, a German JVM).
    """
    specs = []
    formats = ("summary", "detailed", "de")
    for j, t in enumerate(topics.tolist()):
        rb = int(record_bytes[t])
        tp = min(rng.uniform(30.0, 90.0), rng.uniform(200e3, 800e3) * rb / MIB)
        # kafka-consumer-perf-test reads and discards: far above a real application's Tc.
        tc = min(rng.uniform(60.0, 250.0), rng.uniform(400e3, 2e6) * rb / MIB)
        specs.append(
            PerfSpec(
                topic=t,
                record_bytes=rb,
                producer_mib_per_s=float(tp),
                consumer_fetch_mib_per_s=float(tc),
                consumer_format=formats[j % len(formats)],
                warmup=j % 4 == 3,
                started_at_s=int(end_s - rng.uniform(3.0, 60.0) * 86_400.0),
            )
        )
    return tuple(specs)


def effective_capacity(
    n: int, capacity: Capacity, perf: tuple[PerfSpec, ...], record_bytes: Floats
) -> tuple[Floats, Floats]:
    """min(Tp, Tc) per topic in bytes/s and records/s, as the planner will pick them."""
    d = capacity.default
    low_bytes = np.full(n, min(d["producer_mib_per_s"], d["consumer_mib_per_s"]) * MIB)
    low_records = np.full(n, min(d["producer_records_per_s"], d["consumer_records_per_s"]))
    rows = capacity.topics
    low_bytes[rows] = np.minimum(capacity.producer_mib_per_s, capacity.consumer_mib_per_s) * MIB
    low_records[rows] = np.fmin(capacity.producer_records_per_s, capacity.consumer_records_per_s)
    for p in perf:
        low = min(p.producer_mib_per_s, p.consumer_fetch_mib_per_s) * MIB
        low_bytes[p.topic] = low
        low_records[p.topic] = low / record_bytes[p.topic]
    return low_bytes, low_records
