"""The cluster's shape: brokers (live and down), topics, replicas and retention.

- `cluster`: every broker of the cluster description (`DescribeCluster`) with its
  `broker.rack` and `live` true; a broker too old for that API (before Kafka 2.8) gives
  the brokers of the metadata, without racks, and a note says so. A broker that a
  partition's replica list names but the description leaves out is down (stopped,
  crashed, fenced): it is a row too, with `live` false and no rack (only a live broker
  reports its rack), and a note says how many partitions it holds replicas of. So the
  broker count stays the cluster's: a topic with three replicas on a three-broker
  cluster with one broker down is healthy, and is not taken for one that asks for more
  replicas than there are brokers.
- `topics`: every topic of the metadata except internal ones (names starting with `__`;
  a note counts them). The partition count is the metadata's; the replication factor is
  the length of the partitions' replica lists (which keep naming a broker that is
  down), the largest one when they disagree (a reassignment in flight lists both the
  old and the new replicas; a note names such topics). `retention_ms` is the topic's
  `retention.ms` from `DescribeConfigs`: Kafka answers every setting with its effective
  value, so a topic without its own `retention.ms` gets the broker's default (7 days
  unless the broker says otherwise). `-1` (keep forever) and a broker that does not
  answer `DescribeConfigs` leave it empty, with a note. The partitioner is left to the
  schema default (`murmur2_random`): brokers never see which one producers use.
  `replicas` is each partition's replica list with its *current* leader moved first
  (`planner.cross_zone.replicas_text`), for the cross-zone figure; a topic with a
  partition without a leader, or whose partitions list different replica counts, gets
  none (the leader or the shape is not known), and the note on it says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import pyarrow as pa

from planner.collect.kafka_admin.calls import (
    UNSUPPORTED,
    AdminCalls,
    Refused,
    error_text,
    is_transient,
    kafka_error,
    names,
)
from planner.collect.kafka_admin.findings import Findings
from planner.collect.kafka_groups import INTERNAL_PREFIX
from planner.cross_zone import replicas_text

__all__ = [
    "Brokers",
    "Metadata",
    "Partition",
    "leader_first_replicas",
    "read_brokers",
    "read_metadata",
    "retention",
    "topics_table",
]

_CHUNK = 500  # topic configs per describe call
NO_LEADER = -1


@dataclass(frozen=True)
class Partition:
    """One partition's replicas (broker ids, the preferred leader first) and its leader."""

    replicas: tuple[int, ...]
    leader: int = NO_LEADER


@dataclass(frozen=True)
class Metadata:
    """The cluster metadata.

    Attributes:
        brokers: Broker ids the metadata lists (the live ones).
        topics: Topic -> partition id -> its partition, for topics that are not internal.
        internal: The same for internal topics (they hold replicas too).
        errors: Topic -> why it has no partitions (a metadata error).
    """

    brokers: list[int]
    topics: dict[str, dict[int, Partition]]
    internal: dict[str, dict[int, Partition]]
    errors: dict[str, str]

    def holdings(self) -> dict[int, list[tuple[str, int]]]:
        """Broker id -> the (topic, partition)s it holds a replica of, internal ones too."""
        held: dict[int, list[tuple[str, int]]] = {}
        for topics in (self.topics, self.internal):
            for topic, partitions in topics.items():
                for number, partition in partitions.items():
                    for broker in partition.replicas:
                        held.setdefault(broker, []).append((topic, number))
        return held

    def leaderless(self, topic: str) -> list[int]:
        """The partitions of `topic` without a leader (every in-sync replica is down)."""
        return [p for p, part in self.topics[topic].items() if part.leader == NO_LEADER]


@dataclass(frozen=True)
class Brokers:
    """The brokers of the `cluster` table: the live ones, those found down, and racks."""

    live: list[int]
    down: list[int]
    racks: Mapping[int, str | None]


def read_metadata(calls: AdminCalls, admin: Any) -> Metadata:
    """Every topic's partitions, replicas and leaders, and the live brokers.

    Raises:
        SourceUnavailable: the cluster cannot be reached (this is the first call).
    """
    meta = calls.must("read cluster metadata", lambda: admin.list_topics(timeout=calls.timeout_s))
    topics: dict[str, dict[int, Partition]] = {}
    internal: dict[str, dict[int, Partition]] = {}
    errors: dict[str, str] = {}
    for name in sorted(meta.topics):
        info = meta.topics[name]
        partitions = {
            p: Partition(tuple(info.partitions[p].replicas), int(info.partitions[p].leader))
            for p in sorted(info.partitions or {})
        }
        if name.startswith(INTERNAL_PREFIX):
            internal[name] = partitions
        elif not partitions:
            errors[name] = error_text(info.error) if info.error else "no partitions"
        else:
            topics[name] = partitions
    return Metadata(sorted(meta.brokers), topics, internal, errors)


def read_brokers(calls: AdminCalls, admin: Any, metadata: Metadata, findings: Findings) -> Brokers:
    """Write the `cluster` table: the described brokers, and the ones found down."""
    try:
        described = calls.call(
            "describe the cluster",
            lambda: calls.result(admin.describe_cluster(request_timeout=calls.timeout_s)),
        )
        racks = {int(node.id): node.rack or None for node in described.nodes}
        seen = "the cluster description"
    except Refused as exc:
        findings.note(
            f"the cluster description is not available ({exc}): brokers are from the "
            f"metadata, without racks"
        )
        racks = dict.fromkeys(metadata.brokers)
        seen = "the metadata"
    held = metadata.holdings()
    live = sorted(racks)
    down = sorted(b for b in held if b not in racks and b >= 0)
    ids = live + down
    raw = pa.table(
        {
            "broker_id": pa.array(ids, pa.int32()),
            "rack": pa.array([racks.get(b) for b in ids], pa.string()),
            "live": pa.array([b in racks for b in ids], pa.bool_()),
        }
    )
    findings.add("cluster", raw)
    for broker in down:
        partitions = held[broker]
        topics = {t for t, _ in partitions}
        stranded = sorted(
            f"{t}-{p}"
            for t, p in partitions
            if t in metadata.topics and metadata.topics[t][p].leader == NO_LEADER
        )
        findings.note(
            f"broker {broker} is down: it holds replicas of {len(partitions)} partition(s) "
            f"of {len(topics)} topic(s) and is not in {seen}; it is listed in `cluster` "
            f"with live = false (rack unknown), so the broker count stays the cluster's"
            + (
                f"; {len(stranded)} partition(s) have no leader, so their topics get no "
                f"throughput sample: {names(stranded)}"
                if stranded
                else ""
            )
        )
    return Brokers(live, down, {b: racks.get(b) for b in ids})


def retention(
    calls: AdminCalls, admin: Any, topics: list[str], findings: Findings
) -> dict[str, int | None]:
    """`retention.ms` per topic, None for -1; a topic missing from the result has none known."""
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
            request_timeout=calls.timeout_s,
        )
        answers: dict[str, Any] = {}
        for resource, future in futures.items():
            try:
                answers[resource.name] = calls.result(future)
            except KafkaException as exc:  # one topic (not authorized, just deleted)
                if is_transient(kafka_error(exc)):
                    raise
                answers[resource.name] = None
        return answers

    try:
        for start in range(0, len(topics), _CHUNK):
            chunk = topics[start : start + _CHUNK]
            answers = calls.call("describe topic configs", partial(describe, chunk))
            for topic, entries in answers.items():
                entry = None if entries is None else entries.get("retention.ms")
                try:
                    value = int(entry.value)  # type: ignore[union-attr]
                except (AttributeError, TypeError, ValueError):
                    failed.append(topic)
                    continue
                found[topic] = value if value >= 0 else None
    except Refused as exc:
        how = "does not support" if exc.name in UNSUPPORTED else "refused"
        findings.note(f"the cluster {how} DescribeConfigs ({exc}): retention_ms left empty")
        return {}
    forever = sorted(t for t, v in found.items() if v is None)
    if forever:
        findings.note(
            f"{len(forever)} topic(s) keep records forever (retention.ms = -1), "
            f"retention_ms left empty: {names(forever)}"
        )
    if failed:
        findings.note(
            f"{len(failed)} topic(s) have no usable retention.ms in DescribeConfigs, "
            f"retention_ms left empty: {names(sorted(failed))}"
        )
    return found


def leader_first_replicas(partitions: Mapping[int, Partition]) -> str | None:
    """A topic's `replicas` text, each partition's current leader first; None when a
    partition has no leader or the partitions list different replica counts.

    Shared by this collector and the observer (`planner.observe.sampler`), so that a
    plan from observations places replicas exactly as one from the live cluster.
    """
    # The cross-zone figure reads the first replica as the leader consumers fetch from.
    # Without a leader, or mid-reassignment (counts differ), the list would mislead.
    ordered = [partitions[p] for p in sorted(partitions)]
    if not ordered or any(p.leader == NO_LEADER or p.leader not in p.replicas for p in ordered):
        return None
    if len({len(p.replicas) for p in ordered}) > 1:
        return None
    return replicas_text([(p.leader, *(b for b in p.replicas if b != p.leader)) for p in ordered])


def topics_table(
    metadata: Metadata,
    retention_ms: Mapping[str, int | None],
    keyed: Mapping[str, bool | None],
    findings: Findings,
) -> None:
    """Write the `topics` table.

    Args:
        metadata: The cluster metadata.
        retention_ms: `retention.ms` per topic (None: unlimited or unknown).
        keyed: Per topic, whether a sampled record carried a key; None where no record
            of it was read.
        findings: Where the table and the notes go.
    """
    topic_names = list(metadata.topics)
    factors: list[int] = []
    uneven: list[str] = []
    unseen: list[str] = []
    for topic in topic_names:
        counts = {len(p.replicas) for p in metadata.topics[topic].values()}
        factors.append(max(counts))
        if len(counts) > 1:
            uneven.append(f"{topic} ({min(counts)}-{max(counts)})")
        if keyed.get(topic) is None:
            unseen.append(topic)
    raw = pa.table(
        {
            "topic": pa.array(topic_names, pa.string()),
            "partitions": pa.array([len(metadata.topics[t]) for t in topic_names], pa.int32()),
            "replication_factor": pa.array(factors, pa.int32()),
            "keyed": pa.array([bool(keyed.get(t)) for t in topic_names], pa.bool_()),
            "retention_ms": pa.array([retention_ms.get(t) for t in topic_names], pa.int64()),
            "replicas": pa.array(
                [leader_first_replicas(metadata.topics[t]) for t in topic_names], pa.string()
            ),
        }
    )
    findings.add("topics", raw)
    findings.reject_topics(
        "topics",
        [
            (t, "partitions", None, f"metadata lists no partitions: {e}")
            for t, e in metadata.errors.items()
        ],
    )
    if metadata.internal:
        internal = list(metadata.internal)
        findings.note(
            f"{len(internal)} internal topic(s) (names starting with {INTERNAL_PREFIX!r}) "
            f"skipped: {names(internal)}"
        )
    if uneven:
        findings.note(
            f"{len(uneven)} topic(s) whose partitions have different replica counts "
            f"(a reassignment in flight?), replication_factor is the largest and no "
            f"replicas are written: {names(uneven)}"
        )
    if unseen:
        findings.note(
            f"{len(unseen)} topic(s) had no record read in the sample window, so whether "
            f"producers key them is unknown: keyed written as false (a topics landing "
            f"file listed first overrides it): {names(unseen)}"
        )
