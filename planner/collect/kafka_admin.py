"""Figures from a live cluster, read through Kafka's admin API (confluent-kafka, librdkafka).

What each table gets
--------------------
- `cluster`: every broker of the cluster description (`DescribeCluster`) with its
  `broker.rack`; a broker too old for that API (before Kafka 2.8) gives the brokers of
  the metadata, without racks, and a note says so.
- `topics`: every topic of the metadata except internal ones (names starting with `__`:
  `__consumer_offsets`, `__transaction_state`, ...; a note counts them). The partition
  count is the metadata's; the replication factor is the length of the partitions'
  replica lists, the largest one when they disagree (a reassignment in flight lists
  both the old and the new replicas; a note names such topics). `retention_ms` is the
  topic's `retention.ms` from `DescribeConfigs`; `-1` (keep forever) and a broker that
  does not answer `DescribeConfigs` leave it empty, with a note. The partitioner is
  left to the schema default (`murmur2_random`): brokers never see which one producers
  use.
- `groups`: one row per (consumer group, subscribed topic) with the group's partition
  assignor and its current member count; see "Consumer groups" below.
- `throughput`: records/s and bytes/s per topic, sampled now; see below.

`keyed` is not something a broker knows. It is taken from the records the throughput
sample reads: a topic is written as keyed when any record produced in the window carries
a key (changing the partition count of such a topic moves keys, so erring towards keyed
only costs a warning), keyless when none does, and keyless with a note when the window
saw no record of it. A `topics` landing file listed before this source in the config
overrides all of it, since the first source wins.

Throughput is a sample of now
-----------------------------
Brokers keep no history of rates, so this source measures them: it reads every
partition's end offset (high watermark) twice, `sample_window_s` apart (at least: the
other admin calls run inside the window), and divides each topic's growth by the time
between the two reads. The row's `ts` is the first read, so it belongs to the interval
that contains *now*: this source is meant for a manual run or a run of the current
interval. For any other interval a note says the sample is not of that interval, and
the collection (`planner.collect.run`), which keeps only samples inside the interval
it writes, leaves it out: today's rate is never stored as a past day's (Prometheus or
landing files give history).

Record offsets count what producers appended, including transaction markers (one per
transaction and partition): a transactional producer's rate reads a little high.

`bytes_in_per_s` is estimated: the source reads, with a consumer assigned to the
partitions (it never joins a group and never commits), the records appended during the
window, up to `max_sample_records` per topic from its busiest partitions, and
multiplies their mean size (key + value + header names and values) by the records/s.
That is the payload producers sent, uncompressed: a broker's `BytesInPerSec` counts the
batches as they arrive, so it is lower for compressed topics and a little higher (record
and batch framing, about 70 bytes per batch) for small uncompressed records. A topic
whose window records cannot be read (no `Read` permission, gone to retention, the
`sample_timeout_s` ran out) is rejected with the reason rather than given a guessed
size. No records in the window means 0 bytes/s. Consumer fetch rates (`bytes_out_per_s`)
are not visible through the admin API and are left empty.

Consumer groups
---------------
Every group of `ListGroups`, described with `describe_consumer_groups` (librdkafka asks
the KIP-848 `ConsumerGroupDescribe` first and falls back to `DescribeGroups` when the
broker says the group is a classic one); the committed offsets are read only for a group
whose members hold no assignment. How a description becomes rows, which groups are
rejected and which set aside: `planner.collect.kafka_groups`. A note counts the groups
set aside.

Faults
------
Every admin call has a request timeout (`request_timeout_s`, also librdkafka's socket
timeouts) and is retried `retries` times with exponential backoff on errors a retry
can cure (transport, time-outs, coordinator moves, leader changes). A cluster that
cannot be reached raises `SourceUnavailable` naming the bootstrap servers and the last
error after about `(retries + 1) * request_timeout_s` plus the backoff (0.5, 1, 2 s
...): the first call is the metadata read. An error a retry cannot cure (authentication,
authorization) raises it at once.

Security settings (`security.protocol`, `sasl.*`, `ssl.*`) go in `config`, filled from
the planner config or the environment by the caller; nothing here reads either, and
messages name only the bootstrap servers. librdkafka's own log lines go to the Python
logger `planner.collect.kafka_admin.librdkafka`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, TypeVar

import pyarrow as pa

from planner.collect.base import Collected, SourceUnavailable, retry
from planner.collect.kafka_groups import INTERNAL_PREFIX, group_rows
from planner.figures.conform import conform, rejections
from planner.figures.dataset import DataInterval
from planner.figures.schema import TIMESTAMP

__all__ = ["KafkaAdminSource"]

T = TypeVar("T")

_LIBRDKAFKA_LOG = logging.getLogger(f"{__name__}.librdkafka")
_FUTURE_GRACE_S = 5.0  # a future outlives its request timeout by at most this much
_CHUNK = 500  # groups or topic configs per describe call
_OFFSETS_CHUNK = 10_000  # partitions per ListOffsets call
_SAMPLE_PARTITIONS = 8  # partitions per topic the size sample reads from
_NAMES_SHOWN = 10

# Errors a retry can cure, by librdkafka name (KafkaError.retriable() misses the local
# ones: a refused connection is `_TRANSPORT`, an unanswered request `_TIMED_OUT`).
_TRANSIENT = frozenset(
    {
        "_TRANSPORT",
        "_TIMED_OUT",
        "_ALL_BROKERS_DOWN",
        "_RESOLVE",
        "_WAIT_COORD",
        "_NODE_UPDATE",
        "REQUEST_TIMED_OUT",
        "NETWORK_EXCEPTION",
        "BROKER_NOT_AVAILABLE",
        "LEADER_NOT_AVAILABLE",
        "NOT_LEADER_FOR_PARTITION",
        "NOT_LEADER_OR_FOLLOWER",
        "NOT_CONTROLLER",
        "NOT_COORDINATOR",
        "COORDINATOR_NOT_AVAILABLE",
        "COORDINATOR_LOAD_IN_PROGRESS",
        "REBALANCE_IN_PROGRESS",
    }
)
_UNSUPPORTED = frozenset({"_UNSUPPORTED_FEATURE", "UNSUPPORTED_VERSION", "INVALID_REQUEST"})


class _Transient(OSError):
    """An admin call failed in a way a retry can cure; an OSError so `retry` retries it."""


class _Refused(Exception):
    """The cluster answered with an error no retry cures (unsupported, not authorized)."""

    def __init__(self, what: str, error: Any) -> None:
        super().__init__(f"{what}: {_error_text(error)}")
        self.name = _error_name(error)


def _error_name(error: Any) -> str:
    return str(error.name()) if hasattr(error, "name") else type(error).__name__


def _error_text(error: Any) -> str:
    if hasattr(error, "str") and hasattr(error, "name"):
        return f"{error.str()} ({error.name()})"
    return str(error)


def _kafka_error(exc: BaseException) -> Any:
    """The KafkaError inside a KafkaException (or the exception itself)."""
    return exc.args[0] if exc.args else exc


def _is_transient(error: Any) -> bool:
    if hasattr(error, "retriable") and error.retriable():
        return True
    return _error_name(error) in _TRANSIENT


def _names(items: Sequence[str]) -> str:
    shown = ", ".join(items[:_NAMES_SHOWN])
    more = len(items) - _NAMES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True)
class _OffsetsSample:
    """End offsets of partitions read at one moment."""

    wall: datetime
    mono_s: float
    ends: dict[tuple[str, int], int]
    errors: dict[str, str]  # topic -> why some partition's end offset is unknown


@dataclass
class _SizeSample:
    """Records read from one topic's window: how many, their bytes, how many had a key."""

    records: int = 0
    bytes: int = 0
    keyed: int = 0
    error: str | None = None


@dataclass(frozen=True)
class _Metadata:
    """The cluster metadata: brokers and the partitions (with replicas) of every topic."""

    brokers: list[int]
    topics: dict[str, dict[int, list[int]]]  # topic -> partition id -> its replica ids
    errors: dict[str, str]  # topic -> metadata error, for topics without partitions
    internal: list[str]


class KafkaAdminSource:
    """Topics, brokers, consumer groups and sampled throughput from a live Kafka cluster.

    Attributes:
        name: The source's name in the planner config and in reports.
        bootstrap_servers: librdkafka's `bootstrap.servers` (host:port, comma-separated).
    """

    name: str

    def __init__(
        self,
        bootstrap_servers: str,
        *,
        config: Mapping[str, str | int | float | bool] | None = None,
        sample_window_s: float = 10.0,
        request_timeout_s: float = 10.0,
        retries: int = 2,
        retry_delay_s: float = 0.5,
        max_sample_records: int = 500,
        sample_timeout_s: float = 10.0,
        sample_group_id: str = "partition-planner-sampler",
        name: str = "kafka-admin",
    ) -> None:
        """Describe where the cluster is and how long to look at it.

        Args:
            bootstrap_servers: host:port[,host:port...] of one or more brokers.
            config: More librdkafka settings for every client this source opens, e.g.
                `security.protocol`, `sasl.mechanism`, `sasl.username`,
                `sasl.password`, `ssl.ca.location`; the caller reads them from its
                config or environment. Not `bootstrap.servers`.
            sample_window_s: Seconds between the two end-offset reads (at least).
            request_timeout_s: Seconds one admin request may take (1 to 300).
            retries: Further attempts after a failed admin call that a retry can cure.
            retry_delay_s: Seconds before the first retry; doubled for each next one.
            max_sample_records: Records per topic read to estimate the record size.
            sample_timeout_s: Seconds the record-size sample may take in all.
            sample_group_id: `group.id` of the sampling consumer. It never joins the
                group and never commits; set it where ACLs name the groups a principal
                may use.
            name: The source's name.

        Raises:
            ValueError: a setting out of range, or `bootstrap.servers` in `config`.
        """
        if not bootstrap_servers.strip():
            raise ValueError("kafka-admin: bootstrap_servers is empty")
        extra = dict(config or {})
        if "bootstrap.servers" in extra:
            raise ValueError("kafka-admin: give the brokers as bootstrap_servers, not in config")
        if not 1.0 <= request_timeout_s <= 300.0:
            raise ValueError(f"kafka-admin: request_timeout_s {request_timeout_s} not in 1..300")
        for label, value in (
            ("sample_window_s", sample_window_s),
            ("sample_timeout_s", sample_timeout_s),
        ):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"kafka-admin: {label} must be above zero, got {value}")
        if retries < 0 or retry_delay_s < 0 or max_sample_records < 1:
            raise ValueError(
                "kafka-admin: retries and retry_delay_s must be >= 0, max_sample_records >= 1"
            )
        self.name = name
        self.bootstrap_servers = bootstrap_servers.strip()
        self._extra = extra
        self._window_s = float(sample_window_s)
        self._timeout_s = float(request_timeout_s)
        self._retries = retries
        self._retry_delay_s = float(retry_delay_s)
        self._max_sample_records = max_sample_records
        self._sample_timeout_s = float(sample_timeout_s)
        self._sample_group_id = sample_group_id

    @property
    def _where(self) -> str:
        return f"{self.name}: Kafka at {self.bootstrap_servers}"

    @property
    def _source(self) -> str:
        return f"{self.name}:{self.bootstrap_servers}"

    def _note(self, collected: Collected, text: str) -> None:
        collected.notes.append(f"{self._where}: {text}")

    def _client_config(self, **overrides: object) -> dict[str, Any]:
        # Any: librdkafka settings are scalars, but `logger` is a Python object.
        timeout_ms = int(self._timeout_s * 1000)
        settings: dict[str, Any] = {
            "socket.timeout.ms": timeout_ms,
            "socket.connection.setup.timeout.ms": timeout_ms,
            "logger": _LIBRDKAFKA_LOG,
        }
        settings.update(self._extra)
        settings.update(overrides)
        settings["bootstrap.servers"] = self.bootstrap_servers
        return settings

    # -- calls ----------------------------------------------------------------------

    def _call(self, what: str, action: Callable[[], T]) -> T:
        """Run one admin call with retries on curable errors.

        Raises:
            SourceUnavailable: curable errors outlasted the retries.
            _Refused: the cluster answered with an error no retry cures.
        """
        from confluent_kafka import KafkaException

        def attempt() -> T:
            try:
                return action()
            except KafkaException as exc:
                error = _kafka_error(exc)
                if _is_transient(error):
                    raise _Transient(_error_text(error)) from exc
                raise _Refused(what, error) from exc

        return retry(
            attempt,
            what=f"{self._where}: {what}",
            attempts=self._retries + 1,
            first_delay_s=self._retry_delay_s,
            retry_on=(OSError,),  # _Transient, and TimeoutError from a future
        )

    def _must(self, what: str, action: Callable[[], T]) -> T:
        """`_call` for what collection cannot do without."""
        try:
            return self._call(what, action)
        except _Refused as exc:
            raise SourceUnavailable(f"{self._where}: {exc}") from exc

    def _result(self, future: Any) -> Any:
        return future.result(timeout=self._timeout_s + _FUTURE_GRACE_S)

    # -- collect --------------------------------------------------------------------

    def collect(self, interval: DataInterval) -> Collected:
        """Read topics, brokers, groups, and sample throughput over `sample_window_s`.

        Args:
            interval: The interval being collected; the throughput sample is of now,
                and a note says so when now is not in it.

        Returns:
            The `cluster`, `topics`, `groups` and `throughput` tables, conformed.

        Raises:
            SourceUnavailable: the cluster could not be reached within the retries, or
                refused a call collection cannot do without.
        """
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import AdminClient

        try:
            admin = AdminClient(self._client_config())
        except KafkaException as exc:  # a setting librdkafka does not accept
            raise ValueError(f"{self._where}: bad client config: {exc}") from None
        collected = Collected()
        metadata = self._metadata(admin)
        partitions = [(t, p) for t, replicas in metadata.topics.items() for p in replicas]
        first = self._end_offsets(admin, partitions)
        deadline = first.mono_s + self._window_s
        # The other reads run inside the window, so the window costs no extra time.
        self._cluster(admin, metadata, collected)
        retention = self._retention(admin, list(metadata.topics), collected)
        self._groups(admin, collected)
        time.sleep(max(0.0, deadline - time.monotonic()))
        second = self._end_offsets(admin, partitions)
        sizes = self._throughput(first, second, metadata, interval, collected)
        self._topics(metadata, retention, sizes, collected)
        return collected

    def _metadata(self, admin: Any) -> _Metadata:
        meta = self._must(
            "read cluster metadata", lambda: admin.list_topics(timeout=self._timeout_s)
        )
        topics: dict[str, dict[int, list[int]]] = {}
        errors: dict[str, str] = {}
        internal: list[str] = []
        for name in sorted(meta.topics):
            info = meta.topics[name]
            if name.startswith(INTERNAL_PREFIX):
                internal.append(name)
                continue
            if not info.partitions:
                errors[name] = _error_text(info.error) if info.error else "no partitions"
                continue
            topics[name] = {p: list(info.partitions[p].replicas) for p in sorted(info.partitions)}
        return _Metadata(sorted(meta.brokers), topics, errors, internal)

    def _cluster(self, admin: Any, metadata: _Metadata, collected: Collected) -> None:
        try:
            described = self._call(
                "describe the cluster",
                lambda: self._result(admin.describe_cluster(request_timeout=self._timeout_s)),
            )
            ids = [int(node.id) for node in described.nodes]
            racks = [node.rack or None for node in described.nodes]
        except _Refused as exc:
            self._note(
                collected,
                f"the cluster description is not available ({exc}): brokers "
                f"are from the metadata, without racks",
            )
            ids, racks = list(metadata.brokers), [None] * len(metadata.brokers)
        raw = pa.table(
            {"broker_id": pa.array(ids, pa.int32()), "rack": pa.array(racks, pa.string())}
        )
        collected.add("cluster", conform("cluster", raw, source=self._source))

    def _retention(
        self, admin: Any, topics: list[str], collected: Collected
    ) -> dict[str, int | None]:
        """`retention.ms` per topic; a topic missing from the result has none known."""
        from confluent_kafka import KafkaException

        # The documented import path; the package re-exports these without `as`.
        from confluent_kafka.admin import (  # type: ignore[attr-defined]
            ConfigResource,
            ResourceType,
        )

        found: dict[str, int | None] = {}
        failed: list[str] = []

        def describe(chunk: list[str]) -> dict[str, Any]:
            """Topic -> its config entries, or None where the topic's answer was an error."""
            futures = admin.describe_configs(
                [ConfigResource(ResourceType.TOPIC, t) for t in chunk],
                request_timeout=self._timeout_s,
            )
            answers: dict[str, Any] = {}
            for resource, future in futures.items():
                try:
                    answers[resource.name] = self._result(future)
                except KafkaException as exc:  # one topic (not authorized, just deleted)
                    if _is_transient(_kafka_error(exc)):
                        raise
                    answers[resource.name] = None
            return answers

        try:
            for start in range(0, len(topics), _CHUNK):
                chunk = topics[start : start + _CHUNK]
                answers = self._call("describe topic configs", partial(describe, chunk))
                for topic, entries in answers.items():
                    entry = None if entries is None else entries.get("retention.ms")
                    try:
                        value = int(entry.value)  # type: ignore[union-attr]
                    except (AttributeError, TypeError, ValueError):
                        failed.append(topic)
                        continue
                    found[topic] = value if value >= 0 else None
        except _Refused as exc:
            how = "does not support" if exc.name in _UNSUPPORTED else "refused"
            self._note(
                collected, f"the cluster {how} DescribeConfigs ({exc}): retention_ms left empty"
            )
            return {}
        forever = sorted(t for t, v in found.items() if v is None)
        if forever:
            self._note(
                collected,
                f"{len(forever)} topic(s) keep records forever (retention.ms = -1), "
                f"retention_ms left empty: {_names(forever)}",
            )
        if failed:
            self._note(
                collected,
                f"{len(failed)} topic(s) have no usable retention.ms in DescribeConfigs, "
                f"retention_ms left empty: {_names(sorted(failed))}",
            )
        return found

    def _groups(self, admin: Any, collected: Collected) -> None:
        listing = self._must(
            "list consumer groups",
            lambda: self._result(admin.list_consumer_groups(request_timeout=self._timeout_s)),
        )
        for error in listing.errors or ():
            self._note(
                collected,
                f"some consumer groups could not be listed: {_error_text(_kafka_error(error))}",
            )
        group_ids = sorted({g.group_id for g in listing.valid})
        descriptions: list[Any] = []
        failures: list[tuple[str, str, str | None, str]] = []
        for start in range(0, len(group_ids), _CHUNK):
            chunk = group_ids[start : start + _CHUNK]
            got, lost = self._must(
                "describe consumer groups", partial(self._describe_groups, admin, chunk)
            )
            descriptions.extend(got)
            failures.extend(lost)
        scan = group_rows(descriptions, lambda g: self._committed_topics(admin, g))
        bad = failures + scan.rejected
        if bad:
            collected.rejected.append(
                rejections(
                    "groups",
                    self._source,
                    [None] * len(bad),
                    [b[1] for b in bad],
                    [b[2] for b in bad],
                    [b[3] for b in bad],
                )
            )
        raw = pa.table(
            {
                "group_id": pa.array([r["group_id"] for r in scan.rows], pa.string()),
                "topic": pa.array([r["topic"] for r in scan.rows], pa.string()),
                "strategy": pa.array([r["strategy"] for r in scan.rows], pa.string()),
                "members": pa.array([r["members"] for r in scan.rows], pa.int32()),
            }
        )
        collected.add("groups", conform("groups", raw, source=self._source))
        for names, what in (
            (scan.empty, "empty consumer group(s) (no members, no assignor) skipped"),
            (scan.simple, "simple consumer group(s) (members assign themselves) skipped"),
            (scan.server_mapped, "KIP-848 group(s) mapped to the closest strategy"),
            (scan.from_offsets, "group(s) without assignments: topics from committed offsets"),
        ):
            if names:
                self._note(collected, f"{len(names)} {what}: {_names(names)}")

    def _describe_groups(
        self, admin: Any, group_ids: list[str]
    ) -> tuple[list[Any], list[tuple[str, str, str | None, str]]]:
        """Describe `group_ids`; a curable error of any group fails (and retries) all."""
        from confluent_kafka import KafkaException

        futures = admin.describe_consumer_groups(group_ids, request_timeout=self._timeout_s)
        got: list[Any] = []
        lost: list[tuple[str, str, str | None, str]] = []
        for group_id, future in futures.items():
            try:
                got.append(self._result(future))
            except KafkaException as exc:
                error = _kafka_error(exc)
                if _is_transient(error):
                    raise
                lost.append(
                    (
                        group_id,
                        "group_id",
                        group_id,
                        f"cannot describe group {group_id!r}: {_error_text(error)}",
                    )
                )
        return got, lost

    def _committed_topics(self, admin: Any, group_id: str) -> set[str]:
        from confluent_kafka import ConsumerGroupTopicPartitions

        def read() -> set[str]:
            futures = admin.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions(group_id)], request_timeout=self._timeout_s
            )
            answer = self._result(futures[group_id])
            return {tp.topic for tp in answer.topic_partitions or () if tp.offset >= 0}

        try:
            return self._call(f"read committed offsets of group {group_id!r}", read)
        except _Refused:
            return set()

    # -- throughput -----------------------------------------------------------------

    def _end_offsets(self, admin: Any, partitions: list[tuple[str, int]]) -> _OffsetsSample:
        """Every partition's end offset, read now; per topic why any could not be read."""
        from confluent_kafka import KafkaException, TopicPartition
        from confluent_kafka.admin import OffsetSpec  # type: ignore[attr-defined]

        latest = OffsetSpec.latest()  # type: ignore[no-untyped-call]

        def read() -> _OffsetsSample:
            wall, mono = datetime.now(UTC), time.monotonic()
            ends: dict[tuple[str, int], int] = {}
            errors: dict[str, str] = {}
            for start in range(0, len(partitions), _OFFSETS_CHUNK):
                chunk = partitions[start : start + _OFFSETS_CHUNK]
                futures = admin.list_offsets(
                    {TopicPartition(t, p): latest for t, p in chunk},
                    request_timeout=self._timeout_s,
                )
                for tp, future in futures.items():
                    try:
                        ends[(tp.topic, tp.partition)] = int(self._result(future).offset)
                    except KafkaException as exc:
                        error = _kafka_error(exc)
                        if _is_transient(error):
                            raise
                        errors.setdefault(tp.topic, _error_text(error))
            # The read took a while: date it at its middle.
            half = (time.monotonic() - mono) / 2
            return _OffsetsSample(wall + timedelta(seconds=half), mono + half, ends, errors)

        return self._must("read end offsets", read)

    def _throughput(
        self,
        first: _OffsetsSample,
        second: _OffsetsSample,
        metadata: _Metadata,
        interval: DataInterval,
        collected: Collected,
    ) -> dict[str, _SizeSample]:
        """The throughput rows; returns what the record sample saw, per topic."""
        elapsed = second.mono_s - first.mono_s
        windows: dict[str, dict[int, tuple[int, int]]] = {}
        bad: list[tuple[str, str, str | None, str]] = []
        for topic, replicas in metadata.topics.items():
            error = first.errors.get(topic) or second.errors.get(topic)
            if error is not None:
                bad.append((topic, "records_in_per_s", None, f"end offsets unreadable: {error}"))
                continue
            spans = {p: (first.ends[(topic, p)], second.ends[(topic, p)]) for p in replicas}
            if any(end < start for start, end in spans.values()):
                bad.append(
                    (
                        topic,
                        "records_in_per_s",
                        None,
                        "end offsets went backwards during the sample (topic deleted and "
                        "recreated?)",
                    )
                )
                continue
            windows[topic] = spans
        sizes = self._sample_sizes(windows)
        rows: dict[str, list[Any]] = {"topic": [], "bytes_in_per_s": [], "records_in_per_s": []}
        for topic, spans in windows.items():
            records_per_s = sum(end - start for start, end in spans.values()) / elapsed
            size = sizes.get(topic, _SizeSample())
            if records_per_s > 0 and size.records == 0:
                why = size.error or f"none could be read within {self._sample_timeout_s:g} s"
                bad.append(
                    (
                        topic,
                        "bytes_in_per_s",
                        None,
                        f"records were produced in the window but their size is unknown: {why}",
                    )
                )
                continue
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
        collected.add("throughput", conform("throughput", raw, source=self._source))
        if bad:
            collected.rejected.append(self._rejections("throughput", bad))
        if not interval.start <= first.wall < interval.end:
            self._note(
                collected,
                f"throughput was sampled at {first.wall.isoformat()}, not in the "
                f"interval {interval}: the admin API measures now, so they are left out of "
                f"this interval (use Prometheus or landing files for past intervals)",
            )
        self._note(
            collected,
            f"throughput sampled from end offsets over {elapsed:.1f} s; "
            f"bytes_in_per_s = records/s x the mean key + value + headers size of up to "
            f"{self._max_sample_records} records per topic read from the window "
            f"(uncompressed payload, not the broker's BytesIn)",
        )
        return sizes

    def _topics(
        self,
        metadata: _Metadata,
        retention: Mapping[str, int | None],
        sizes: Mapping[str, _SizeSample],
        collected: Collected,
    ) -> None:
        names = list(metadata.topics)
        factors: list[int] = []
        uneven: list[str] = []
        keyed: list[bool] = []
        unseen: list[str] = []
        for topic in names:
            counts = {len(r) for r in metadata.topics[topic].values()}
            factors.append(max(counts))
            if len(counts) > 1:
                uneven.append(f"{topic} ({min(counts)}-{max(counts)})")
            size = sizes.get(topic)
            if size is None or size.records == 0:
                unseen.append(topic)
            keyed.append(bool(size and size.keyed))
        raw = pa.table(
            {
                "topic": pa.array(names, pa.string()),
                "partitions": pa.array([len(metadata.topics[t]) for t in names], pa.int32()),
                "replication_factor": pa.array(factors, pa.int32()),
                "keyed": pa.array(keyed, pa.bool_()),
                "retention_ms": pa.array([retention.get(t) for t in names], pa.int64()),
            }
        )
        collected.add("topics", conform("topics", raw, source=self._source))
        if metadata.errors:
            bad = [
                (t, "partitions", None, f"metadata lists no partitions: {e}")
                for t, e in metadata.errors.items()
            ]
            collected.rejected.append(self._rejections("topics", bad))
        if metadata.internal:
            self._note(
                collected,
                f"{len(metadata.internal)} internal topic(s) (names starting with "
                f"{INTERNAL_PREFIX!r}) skipped: {_names(metadata.internal)}",
            )
        if uneven:
            self._note(
                collected,
                f"{len(uneven)} topic(s) whose partitions have different replica counts "
                f"(a reassignment in flight?), replication_factor is the largest: "
                f"{_names(uneven)}",
            )
        if unseen:
            self._note(
                collected,
                f"{len(unseen)} topic(s) had no record read in the sample window, so whether "
                f"producers key them is unknown: keyed written as false (a topics landing "
                f"file listed first overrides it): {_names(unseen)}",
            )

    def _rejections(self, table: str, bad: Sequence[tuple[str, str, str | None, str]]) -> pa.Table:
        return rejections(
            table,
            self._source,
            [None] * len(bad),
            [b[1] for b in bad],
            [b[2] if b[2] is not None else b[0] for b in bad],
            [f"topic {b[0]!r}: {b[3]}" for b in bad],
        )

    def _sample_sizes(
        self, windows: Mapping[str, Mapping[int, tuple[int, int]]]
    ) -> dict[str, _SizeSample]:
        """Read records appended in the window: per topic their count, bytes and keys.

        Per topic, up to `max_sample_records` records, spread over its (at most eight)
        busiest partitions, each read from where the window began.
        """
        from confluent_kafka import Consumer, KafkaError, TopicPartition

        quota: dict[tuple[str, int], int] = {}
        stop: dict[tuple[str, int], int] = {}
        starts: list[Any] = []
        for topic, spans in windows.items():
            busy = sorted(
                ((end - start, p) for p, (start, end) in spans.items() if end > start),
                reverse=True,
            )[:_SAMPLE_PARTITIONS]
            if not busy:
                continue
            share = math.ceil(self._max_sample_records / len(busy))
            for grown, p in busy:
                start, end = spans[p]
                quota[(topic, p)] = min(share, grown)
                stop[(topic, p)] = end
                starts.append(TopicPartition(topic, p, start))
        sizes: dict[str, _SizeSample] = {t: _SizeSample() for t in windows}
        if not starts:
            return sizes
        consumer = Consumer(
            self._client_config(
                **{
                    "group.id": self._sample_group_id,
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
        )
        deadline = time.monotonic() + self._sample_timeout_s

        def done(key: tuple[str, int]) -> None:
            if quota.pop(key, None) is not None:
                consumer.pause([TopicPartition(*key)])

        try:
            consumer.assign(starts)
            while quota:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                for message in consumer.consume(num_messages=1000, timeout=min(0.5, left)):
                    name, partition = message.topic(), message.partition()
                    offset, error = message.offset(), message.error()
                    if name is None or partition is None:
                        continue  # a client-level event (e.g. a lost connection): keep going
                    key = (name, partition)
                    if error is not None:
                        if error.code() != KafkaError._PARTITION_EOF and name in sizes:
                            sizes[name].error = _error_text(error)
                        done(key)
                        continue
                    if key not in quota or offset is None:
                        continue
                    if offset >= stop[key]:
                        done(key)
                        continue
                    sample = sizes[name]
                    sample.records += 1
                    sample.bytes += _record_bytes(message)
                    sample.keyed += message.key() is not None
                    quota[key] -= 1
                    if quota[key] == 0 or offset + 1 >= stop[key]:
                        done(key)
        finally:
            consumer.close()
        return sizes


def _record_bytes(message: Any) -> int:
    """Key + value + header names and values of one consumed record, in bytes."""
    size = len(message.key() or b"") + len(message.value() or b"")
    for name, value in message.headers() or ():
        size += len(name.encode()) + len(value or b"")
    return size
