"""What a Kafka broker wrote: the record batches in a partition's log segments.

A test that produces at a known rate still cannot say when the broker appended each
record: a loaded machine delays the producer, the network and the broker. The log says
it exactly when the topic stamps batches with the broker's clock
(`message.timestamp.type=LogAppendTime`): every batch carries the time it was appended,
its size as written and its record count, which is what the broker's `BytesInPerSec`
and `MessagesInPerSec` meters count on the same append.

The reader follows Kafka's documented on-disk format for record batches (magic 2,
Kafka 0.11 and later): an 8-byte base offset and a 4-byte length counting the bytes
after it, then the batch header, whose fields used here sit at fixed positions.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LOG_APPEND_TIME", "Batch", "Running", "appended", "batches"]

LOG_APPEND_TIME = {"message.timestamp.type": "LogAppendTime"}
"""The topic setting that has the broker stamp each batch with its append time."""

_LOG_OVERHEAD = 12  # base offset (int64) and batch length (int32) before each batch
_MAGIC_AT = 16
_ATTRIBUTES_AT = 21
_LAST_OFFSET_DELTA_AT = 23
_MAX_TIMESTAMP_AT = 35
_HEADER_BYTES = 61
_LOG_APPEND_TIME_FLAG = 0x08  # attributes bit 3: timestamps are the broker's append time
_CONTROL_FLAG = 0x20  # attributes bit 5: a transaction marker, not data


@dataclass(frozen=True)
class Batch:
    """One record batch as the broker appended it.

    Attributes:
        partition: The partition whose log holds it.
        base_offset: The offset of its first record.
        append_ms: The broker's append time, ms since the epoch.
        records: Records in the batch.
        size_bytes: The batch's bytes in the log, framing included.
    """

    partition: int
    base_offset: int
    append_ms: int
    records: int
    size_bytes: int


def _partition_dirs(data_dir: Path, topic: str) -> Iterator[tuple[int, Path]]:
    for folder in sorted(data_dir.glob(f"{topic}-*")):
        suffix = folder.name[len(topic) + 1 :]
        # `orders-0` but not `orders-eu-0` when asked for `orders`.
        if suffix.isdigit():
            yield int(suffix), folder


def _read_segment(path: Path, partition: int) -> Iterator[Batch]:
    data = path.read_bytes()
    at = 0
    while at + _LOG_OVERHEAD <= len(data):
        (length,) = struct.unpack_from(">i", data, at + 8)
        end = at + _LOG_OVERHEAD + length
        if length < _HEADER_BYTES - _LOG_OVERHEAD or end > len(data):
            break  # the end of what the broker has written so far
        if data[at + _MAGIC_AT] != 2:
            raise ValueError(f"{path}: batch at byte {at} has magic {data[at + _MAGIC_AT]}, not 2")
        (attributes,) = struct.unpack_from(">h", data, at + _ATTRIBUTES_AT)
        if not attributes & _CONTROL_FLAG:
            if not attributes & _LOG_APPEND_TIME_FLAG:
                raise ValueError(
                    f"{path}: batch at byte {at} carries the producer's time, not the "
                    "broker's: create the topic with message.timestamp.type=LogAppendTime"
                )
            (base_offset,) = struct.unpack_from(">q", data, at)
            (last_delta,) = struct.unpack_from(">i", data, at + _LAST_OFFSET_DELTA_AT)
            (append_ms,) = struct.unpack_from(">q", data, at + _MAX_TIMESTAMP_AT)
            yield Batch(partition, base_offset, append_ms, last_delta + 1, end - at)
        at = end


def batches(data_dir: Path, topics: Iterable[str]) -> dict[str, list[Batch]]:
    """Every data batch of `topics` in one broker's log directory, per topic.

    Args:
        data_dir: A broker's `log.dirs` folder holding a replica of every partition
            wanted (with replication factor = broker count, any broker's).
        topics: The topics to read.

    Returns:
        Per topic, its batches in partition and offset order.

    Raises:
        ValueError: A batch without the broker's append time, or not in format v2.
    """
    out: dict[str, list[Batch]] = {}
    for topic in topics:
        found: list[Batch] = []
        for partition, folder in _partition_dirs(data_dir, topic):
            for segment in sorted(folder.glob("*.log")):
                found.extend(_read_segment(segment, partition))
        out[topic] = found
    return out


class Running:
    """Running totals of records and bytes per partition over time.

    Args:
        events: (partition, time in ms, records, bytes) of each event, any order: batches
            appended (`appended`) or fetched by consumers.
    """

    def __init__(self, events: Iterable[tuple[int, float, int, int]]) -> None:
        per_partition: dict[int, list[tuple[float, int, int]]] = {}
        for partition, at_ms, records, size_bytes in events:
            per_partition.setdefault(partition, []).append((at_ms, records, size_bytes))
        self._times: dict[int, list[float]] = {}
        self._totals: dict[int, list[tuple[int, int]]] = {}
        for partition, found in per_partition.items():
            found.sort()
            records = size = 0
            totals = []
            for _, more_records, more_bytes in found:
                records += more_records
                size += more_bytes
                totals.append((records, size))
            self._times[partition] = [at_ms for at_ms, _, _ in found]
            self._totals[partition] = totals

    def by(self, at_ms: float, partitions: Iterable[int]) -> tuple[int, int]:
        """Records and bytes of `partitions` up to `at_ms`, events at it included."""
        records = size = 0
        for partition in partitions:
            count = bisect.bisect_right(self._times.get(partition, []), at_ms)
            if count:
                done_records, done_bytes = self._totals[partition][count - 1]
                records += done_records
                size += done_bytes
        return records, size


def appended(logged: Iterable[Batch]) -> Running:
    """What the broker appended, by its append time."""
    return Running((b.partition, b.append_ms, b.records, b.size_bytes) for b in logged)
