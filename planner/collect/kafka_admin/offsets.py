"""Throughput sampled now, from end offsets and the records appended in between.

Brokers keep no history of rates, so the source measures them: it reads every
partition's end offset (high watermark) twice, `sample_window_s` apart (at least: the
other admin calls run inside the window), and divides each topic's growth by the time
between the two reads. The row's `ts` is the first read, so it belongs to the interval
that contains *now*: this source is meant for a manual run or a run of the current
interval. For any other interval a note says the sample is not of that interval, and
the collection (`planner.collect.run`), which keeps only samples inside the interval
it writes, leaves it out: today's rate is never stored as a past day's.

A partition without a leader (every in-sync replica on a broker that is down) has no
end offset to read: its topic gets no sample, and the rejection says why.

Records, not offsets. An end offset counts every record a producer appended, batched or
not, and also the control records that end transactions (one per transaction and
partition, never handed to consumers). The size sample below reads the window's records
back; per topic, the share of the offsets it read over that were records scales the
offset growth, so a transactional producer's commit markers are not counted as records
(one record per transaction would otherwise read as twice the rate).

`bytes_in_per_s` is estimated: the source reads, with a consumer assigned to the
partitions (it never joins a group and never commits), the records appended during the
window, up to `max_sample_records` per topic from its busiest partitions, and multiplies
their mean size (key + value + header names and values) by the records/s. That is the
payload producers sent, uncompressed: a broker's `BytesInPerSec` counts the batches as
they arrive, so it is lower for compressed topics and a little higher (record and batch
framing, about 70 bytes per batch) for small uncompressed records. A topic whose window
records cannot be read (no `Read` permission, gone to retention, the `sample_timeout_s`
ran out) is rejected with the reason rather than given a guessed size. No records in
the window means 0 bytes/s. Consumer fetch rates (`bytes_out_per_s`) are not visible
through the admin API and are left empty. `keyed` comes from the same records: a topic
is keyed when any record read carries a key.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa

from planner.collect.kafka_admin.calls import (
    AdminCalls,
    Transient,
    error_text,
    is_transient,
    kafka_error,
)
from planner.collect.kafka_admin.findings import Bad, Findings
from planner.collect.kafka_admin.metadata import Metadata
from planner.figures.dataset import DataInterval
from planner.figures.schema import TIMESTAMP

__all__ = [
    "OffsetsSample",
    "OnRecord",
    "PartitionRead",
    "SizeSample",
    "read_end_offsets",
    "read_partitions",
    "sample_sizes",
    "throughput",
    "windows",
]

_OFFSETS_CHUNK = 10_000  # partitions per ListOffsets call
_SAMPLE_PARTITIONS = 8  # partitions per topic the size sample reads from

Span = tuple[int, int]  # (end offset at the first read, at the second)


@dataclass(frozen=True)
class OffsetsSample:
    """End offsets of partitions read at one moment."""

    wall: datetime
    mono_s: float
    ends: dict[tuple[str, int], int]
    errors: dict[str, str]  # topic -> why some partition's end offset is unknown


@dataclass
class SizeSample:
    """Records read from one topic's window.

    Attributes:
        records: Records read.
        bytes: Their key + value + header bytes.
        keyed: How many carried a key.
        offsets: The offsets the reads covered (records and the control records between
            them): `records / offsets` is the share of offsets that are records.
        error: Why reading stopped early, if it did.
    """

    records: int = 0
    bytes: int = 0
    keyed: int = 0
    offsets: int = 0
    error: str | None = None

    @property
    def record_share(self) -> float:
        """Records per offset over what was read (1.0 when nothing was)."""
        return self.records / self.offsets if self.offsets else 1.0


def read_end_offsets(
    calls: AdminCalls, admin: Any, partitions: list[tuple[str, int]]
) -> OffsetsSample:
    """Every partition's end offset, read now; per topic why any could not be read.

    A partition whose error a retry can cure is asked again with all the others (the
    sample must be of one moment); after the last attempt its topic is left out with
    the error, unless every partition failed, which means the cluster is gone.

    Raises:
        SourceUnavailable: the cluster could not be reached within the retries.
    """
    from confluent_kafka import KafkaException, TopicPartition
    from confluent_kafka.admin import OffsetSpec  # type: ignore[attr-defined]

    latest = OffsetSpec.latest()  # type: ignore[no-untyped-call]
    attempts_left = [calls.attempts]

    def read() -> OffsetsSample:
        attempts_left[0] -= 1
        wall, mono = datetime.now(UTC), time.monotonic()
        ends: dict[tuple[str, int], int] = {}
        errors: dict[str, str] = {}
        curable: list[str] = []
        for start in range(0, len(partitions), _OFFSETS_CHUNK):
            chunk = partitions[start : start + _OFFSETS_CHUNK]
            futures = admin.list_offsets(
                {TopicPartition(t, p): latest for t, p in chunk},
                request_timeout=calls.timeout_s,
            )
            for tp, future in futures.items():
                try:
                    ends[(tp.topic, tp.partition)] = int(calls.result(future).offset)
                except KafkaException as exc:
                    error = kafka_error(exc)
                    text = f"partition {tp.partition}: {error_text(error)}"
                    if is_transient(error):
                        curable.append(text)
                    errors.setdefault(tp.topic, text)
        if curable and (attempts_left[0] > 0 or not ends):
            raise Transient(f"{len(curable)} partition(s), e.g. {curable[0]}")
        # The read took a while: date it at its middle.
        half = (time.monotonic() - mono) / 2
        return OffsetsSample(wall + timedelta(seconds=half), mono + half, ends, errors)

    return calls.must("read end offsets", read)


def windows(
    first: OffsetsSample, second: OffsetsSample, metadata: Metadata, bad: list[Bad]
) -> dict[str, dict[int, Span]]:
    """Per topic and partition, the offsets the window spans; topics that have none in `bad`."""
    spans_of: dict[str, dict[int, Span]] = {}
    for topic in metadata.topics:
        if stranded := metadata.leaderless(topic):
            bad.append(
                (
                    topic,
                    "records_in_per_s",
                    None,
                    f"partition(s) {', '.join(map(str, stranded))} have no leader (their "
                    f"replicas are on brokers that are down), so their end offsets cannot "
                    f"be read",
                )
            )
            continue
        error = first.errors.get(topic) or second.errors.get(topic)
        if error is not None:
            bad.append((topic, "records_in_per_s", None, f"end offsets unreadable: {error}"))
            continue
        spans = {
            p: (first.ends[(topic, p)], second.ends[(topic, p)]) for p in metadata.topics[topic]
        }
        if any(end < start for start, end in spans.values()):
            bad.append(
                (
                    topic,
                    "records_in_per_s",
                    None,
                    "end offsets went backwards during the sample (topic deleted and recreated?)",
                )
            )
            continue
        spans_of[topic] = spans
    return spans_of


def throughput(
    first: OffsetsSample,
    second: OffsetsSample,
    spans_of: Mapping[str, Mapping[int, Span]],
    sizes: Mapping[str, SizeSample],
    bad: list[Bad],
    *,
    interval: DataInterval,
    sample_timeout_s: float,
    max_sample_records: int,
    findings: Findings,
) -> None:
    """Write the `throughput` table from the two reads and the record sample."""
    elapsed_s = second.mono_s - first.mono_s
    rows: dict[str, list[Any]] = {"topic": [], "bytes_in_per_s": [], "records_in_per_s": []}
    for topic, spans in spans_of.items():
        offsets_per_s = sum(end - start for start, end in spans.values()) / elapsed_s
        size = sizes.get(topic, SizeSample())
        if offsets_per_s > 0 and size.records == 0:
            why = size.error or f"none could be read within {sample_timeout_s:g} s"
            bad.append(
                (
                    topic,
                    "bytes_in_per_s",
                    None,
                    f"records were produced in the window but their size is unknown: {why}",
                )
            )
            continue
        records_per_s = offsets_per_s * size.record_share
        mean_bytes = size.bytes / size.records if size.records else 0.0
        rows["topic"].append(topic)
        rows["records_in_per_s"].append(records_per_s)
        rows["bytes_in_per_s"].append(mean_bytes * records_per_s)
    raw = pa.table(
        {
            "topic": pa.array(rows["topic"], pa.string()),
            "ts": pa.array([first.wall] * len(rows["topic"]), TIMESTAMP),
            "bytes_in_per_s": pa.array(rows["bytes_in_per_s"], pa.float64()),
            "records_in_per_s": pa.array(rows["records_in_per_s"], pa.float64()),
        }
    )
    findings.add("throughput", raw)
    findings.reject_topics("throughput", bad)
    if not interval.start <= first.wall < interval.end:
        findings.note(
            f"throughput was sampled at {first.wall.isoformat()}, not in the interval "
            f"{interval}: the admin API measures now, so they are left out of this "
            f"interval (use Prometheus or landing files for past intervals)"
        )
    findings.note(
        f"throughput sampled from end offsets over {elapsed_s:.1f} s; records_in_per_s "
        f"leaves out transaction markers; bytes_in_per_s = records/s x the mean key + "
        f"value + headers size of up to {max_sample_records} records per topic read from "
        f"the window (uncompressed payload, not the broker's BytesIn)"
    )


@dataclass
class PartitionRead:
    """One partition to read: where its window starts and stops, how many records at most.

    Attributes:
        topic: The partition's topic.
        start: The first offset to read.
        stop: The offset to stop before (the window's end).
        quota: Records to read at most.
        last: Offset of the last record read so far.
        records: Records read so far.
    """

    topic: str
    start: int
    stop: int
    quota: int
    last: int | None = None
    records: int = 0


#: Called for each record read: its topic, partition and key (None for no key).
OnRecord = Callable[[str, int, "bytes | None"], None]


def sample_sizes(
    consumer_config: Mapping[str, Any],
    spans_of: Mapping[str, Mapping[int, Span]],
    *,
    max_records: int,
    timeout_s: float,
) -> dict[str, SizeSample]:
    """Read records appended in the window: per topic their count, bytes, keys and offsets.

    Per topic, up to `max_records` records, spread over its (at most eight) busiest
    partitions, each read from where the window began.

    Args:
        consumer_config: librdkafka settings of the reading consumer (with `group.id`).
        spans_of: Per topic and partition, the window's (start, end) offsets.
        max_records: Records per topic at most.
        timeout_s: Seconds the reading may take in all.
    """
    readings: dict[tuple[str, int], PartitionRead] = {}
    for topic, spans in spans_of.items():
        busy = sorted(
            ((end - start, p) for p, (start, end) in spans.items() if end > start),
            reverse=True,
        )[:_SAMPLE_PARTITIONS]
        share = math.ceil(max_records / len(busy)) if busy else 0
        for grown, p in busy:
            start, end = spans[p]
            readings[(topic, p)] = PartitionRead(topic, start, end, min(share, grown))
    return read_partitions(consumer_config, readings, spans_of, timeout_s=timeout_s)


def read_partitions(
    consumer_config: Mapping[str, Any],
    readings: Mapping[tuple[str, int], PartitionRead],
    topics: Iterable[str],
    *,
    timeout_s: float,
    on_record: OnRecord | None = None,
) -> dict[str, SizeSample]:
    """Read the given stretches of partitions with a consumer that only assigns them.

    The consumer never joins a group and never commits. Each partition is read from
    `start` until `stop` or its `quota`, whichever comes first; the records' count,
    bytes and keys are summed per topic, with the offsets the reads covered (records
    and the transaction markers between them).

    Args:
        consumer_config: librdkafka settings of the reading consumer (with `group.id`).
        readings: What to read of each (topic, partition); each entry's `last` and
            `records` are updated as it is read.
        topics: The topics to report (a topic without readings reports nothing read).
        timeout_s: Seconds the reading may take in all.
        on_record: Called for every record counted.
    """
    from confluent_kafka import Consumer, KafkaError, TopicPartition

    sizes: dict[str, SizeSample] = {t: SizeSample() for t in topics}
    pending = dict(readings)
    if not pending:
        return sizes
    consumer = Consumer(
        {
            **consumer_config,
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_uncommitted",
            "fetch.wait.max.ms": 100,
            "max.partition.fetch.bytes": 256 * 1024,
            "queued.max.messages.kbytes": 16 * 1024,
        }
    )
    deadline = time.monotonic() + timeout_s

    def done(key: tuple[str, int], upto: int | None) -> None:
        """Stop reading `key`; the offsets before `upto` (or past the last read) count."""
        reading = pending.pop(key, None)
        if reading is None:
            return
        if upto is None:
            upto = reading.start if reading.last is None else reading.last + 1
        sizes[reading.topic].offsets += upto - reading.start
        consumer.pause([TopicPartition(*key)])

    try:
        consumer.assign([TopicPartition(t, p, r.start) for (t, p), r in pending.items()])
        while pending:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for message in consumer.consume(num_messages=1000, timeout=min(0.5, left)):
                name, partition = message.topic(), message.partition()
                offset, error = message.offset(), message.error()
                if name is None or partition is None:
                    continue  # a client-level event (e.g. a lost connection): keep going
                key = (name, partition)
                reading = pending.get(key)
                if reading is None:
                    continue
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        # At the end: whatever lies before the window's end was read
                        # (what was skipped were control records).
                        done(key, reading.stop)
                    else:
                        sizes[name].error = error_text(error)
                        done(key, None)
                    continue
                if offset is None:
                    continue
                if offset >= reading.stop:
                    done(key, reading.stop)
                    continue
                sample = sizes[name]
                record_key = message.key()
                sample.records += 1
                sample.bytes += _record_bytes(message)
                sample.keyed += record_key is not None
                if on_record is not None:
                    on_record(name, partition, record_key)
                reading.last = offset
                reading.records += 1
                reading.quota -= 1
                if offset + 1 >= reading.stop:
                    done(key, reading.stop)
                elif reading.quota == 0:
                    done(key, None)
        for key in list(pending):  # out of time: count what was read
            done(key, None)
    finally:
        consumer.close()
    return sizes


def _record_bytes(message: Any) -> int:
    """Key + value + header names and values of one consumed record, in bytes."""
    size = len(message.key() or b"") + len(message.value() or b"")
    for name, value in message.headers() or ():
        size += len(name.encode()) + len(value or b"")
    return size
