"""One sample of a live cluster: what `partition-planner observe` appends every period.

A sample reads, in this order (`ClusterSampler.sample`):

1. the metadata (topics, partitions, replicas, leaders) and every partition's end offset,
   the sample's `ts` being the middle of that read (`planner.collect.kafka_admin`);
2. the brokers and their racks; `retention.ms` of new topics, and of all topics every
   `configs_every_s` (it seldom changes, and DescribeConfigs costs a request per 500
   topics);
3. every consumer group (classic and consumer protocol: description, members'
   assignments, committed offsets) in a long-lived child process
   (`planner.observe.groups`); share and streams groups with Kafka's own tools every
   `tools_every_s`, in the background (a JVM start each);
4. the records appended since this observer's previous sample, a bounded read: per
   topic at most `max_sample_records` records (per minute of the period: fewer at a
   shorter one) from at most eight of the partitions that
   grew, a different eight each sample (so that over a day every partition is read,
   not always the busiest), for the record size, whether records carry keys, and the
   share of offsets that are records (transaction markers are not); and keyed records
   offered to the day's key reservoir (`planner.observe.reservoir`).

What a sample could not read it records as such (`sample.groups_read` false, a
`records.error`, a null `end_offset`), never as zero: no evidence is not evidence of
nothing. A sample whose metadata or end offsets cannot be read at all is not written.
"""

from __future__ import annotations

import logging
import math
import time
from collections import defaultdict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from planner.collect.base import SourceUnavailable
from planner.collect.kafka_admin.findings import Findings
from planner.collect.kafka_admin.metadata import (
    leader_first_replicas,
    read_brokers,
    read_metadata,
    retention,
)
from planner.collect.kafka_admin.offsets import (
    PartitionRead,
    read_end_offsets,
    read_partitions,
)
from planner.collect.kafka_groups import DescribedGroup
from planner.observe.groups import GroupChild, GroupsObserved
from planner.observe.reservoir import KeyReservoir
from planner.observe.tables import sample_rows
from planner.partitioners import hash_to_hashed

if TYPE_CHECKING:
    from planner.collect.kafka_admin import KafkaAdminSource
    from planner.collect.kafka_admin.group_tools import ToolGroups

__all__ = ["ClusterSampler", "Sample"]

_LOG = logging.getLogger("planner.observe")

_READ_PARTITIONS = 8  # partitions per topic read each sample


@dataclass(frozen=True)
class Sample:
    """One sample taken.

    Attributes:
        ts: When (the middle of the end-offset read), UTC.
        tables: Its tables (`planner.observe.tables.TABLES`).
        ends: Each partition's end offset, for the next sample's window.
        partition_counts: Each topic's partition count.
        notes: What could not be read.
    """

    ts: datetime
    tables: dict[str, pa.Table]
    ends: dict[tuple[str, int], int]
    partition_counts: dict[str, int]
    notes: list[str] = field(default_factory=list)


class ClusterSampler:
    """Takes samples of one cluster; keeps what carries from one sample to the next.

    Attributes:
        source: The Kafka admin source whose settings (cluster, security, time-outs,
            record reads, group tools) the sampler uses.
    """

    def __init__(
        self,
        source: KafkaAdminSource,
        *,
        every_s: float,
        observer: str,
        key_sample_size: int = 1000,
        tools_every_s: float = 300.0,
        configs_every_s: float = 600.0,
        rng: np.random.Generator | None = None,
    ) -> None:
        """Set up the sampler.

        Args:
            source: The cluster and its client settings.
            every_s: The sampling period, in seconds (recorded with each sample).
            observer: Who observes (host and process id), recorded with each sample.
            key_sample_size: Keyed records per topic and day in the key reservoir.
            tools_every_s: Seconds between descriptions of share and streams groups.
            configs_every_s: Seconds between reads of every topic's `retention.ms`.
            rng: Random numbers for the key reservoir (seeded in tests).
        """
        self.source = source
        self._every_s = every_s
        self._observer = observer
        self._tools_every_s = tools_every_s
        self._configs_every_s = configs_every_s
        self.reservoir = KeyReservoir(key_sample_size, rng or np.random.default_rng())
        self._admin: Any = None
        self._child = GroupChild()
        self._tools_pool = ThreadPoolExecutor(1, thread_name_prefix="kafka-group-tools")
        self._tools_due = 0.0
        self._configs_due = 0.0
        self._retention: dict[str, int | None] = {}
        self._rotation = 0
        # The clients live as long as the observer: after a broker restart they must be
        # back within a period or two, not after librdkafka's default 10 s backoff.
        backoff_ms = int(min(10_000.0, max(500.0, every_s * 500.0)))
        self._reconnect = {"reconnect.backoff.max.ms": backoff_ms}

    def close(self) -> None:
        """Stop the group child and the tools' thread."""
        self._child.close()
        self._tools_pool.shutdown(wait=False, cancel_futures=True)

    def sample(self, previous: Sample | None) -> Sample:
        """Take one sample.

        Args:
            previous: This observer's previous sample (its end offsets start the
                record-read window), or None for the first.

        Raises:
            SourceUnavailable: the metadata or the end offsets could not be read.
        """
        started = time.monotonic()
        source, calls = self.source, self.source.calls
        if self._admin is None:
            self._admin = source.admin_client(**self._reconnect)
        findings = Findings(calls.where, source.name)
        tools = self._start_tools(started)
        group_read = self._child.start(self.source.client_config(**self._reconnect), calls)
        metadata = read_metadata(calls, self._admin)
        readable = [(t, p) for t, parts in metadata.topics.items() for p, part in parts.items()]
        offsets = read_end_offsets(
            calls, self._admin, [(t, p) for t, p in readable if metadata.topics[t][p].leader >= 0]
        )
        ts = offsets.wall
        brokers = read_brokers(calls, self._admin, metadata, findings)
        new_topics = [t for t in metadata.topics if t not in self._retention]
        if started >= self._configs_due:
            self._retention = retention(calls, self._admin, list(metadata.topics), findings)
            self._configs_due = started + self._configs_every_s
        elif new_topics:
            self._retention.update(retention(calls, self._admin, new_topics, findings))
        counts = {t: len(parts) for t, parts in metadata.topics.items()}
        records, keys = self._records(previous, offsets.ends, counts, ts, findings)
        groups = self._groups(group_read, started, findings)
        tool_groups = self._finish_tools(tools, findings)
        notes = findings.collected.notes
        tables = {
            "partitions": sample_rows(
                "partitions",
                ts,
                topic=[t for t, _ in readable],
                partition=[p for _, p in readable],
                end_offset=[offsets.ends.get(tp) for tp in readable],
                leader=[metadata.topics[t][p].leader for t, p in readable],
            ),
            "topics": sample_rows(
                "topics",
                ts,
                topic=list(metadata.topics),
                partitions=[counts[t] for t in metadata.topics],
                replication_factor=[
                    max(len(p.replicas) for p in parts.values())
                    for parts in metadata.topics.values()
                ],
                retention_ms=[self._retention.get(t) for t in metadata.topics],
                replicas=[leader_first_replicas(parts) for parts in metadata.topics.values()],
            ),
            "brokers": sample_rows(
                "brokers",
                ts,
                broker_id=[*brokers.live, *brokers.down],
                rack=[brokers.racks.get(b) for b in [*brokers.live, *brokers.down]],
                live=[True] * len(brokers.live) + [False] * len(brokers.down),
            ),
            "records": records,
            "keys": keys,
            **_group_tables(ts, groups, tool_groups),
        }
        tables["sample"] = sample_rows(
            "sample",
            ts,
            observer=[self._observer],
            bootstrap=[source.bootstrap_servers],
            took_s=[time.monotonic() - started],
            every_s=[self._every_s],
            previous_ts=[previous.ts if previous is not None else None],
            topics=[len(metadata.topics)],
            partitions=[len(readable)],
            groups_read=[groups is not None],
            tools_read=[tool_groups is not None],
            notes=["\n".join(notes) or None],
        )
        return Sample(ts, tables, dict(offsets.ends), counts, list(notes))

    # --- groups ----------------------------------------------------------------------------

    def _groups(
        self, read: Future[GroupsObserved] | None, started: float, findings: Findings
    ) -> GroupsObserved | None:
        """The groups read beside the sample, if they came within three quarters of the
        period; None (noted) otherwise."""
        if read is None:
            findings.note("consumer groups not read: the previous sample's read is still running")
            return None
        left = started + 0.75 * self._every_s - time.monotonic()
        try:
            observed = self._child.finish(read, left)
        except TimeoutError:
            findings.note(
                f"consumer groups not read within {0.75 * self._every_s:g} s of the "
                f"period; the read goes on and is dropped"
            )
            return None
        except SourceUnavailable as exc:
            findings.note(f"consumer groups not read: {exc}")
            return None
        except Exception as exc:  # a failure in the child costs the sample its groups only
            _LOG.exception("reading the consumer groups failed")
            findings.note(f"consumer groups not read: {type(exc).__name__}: {exc}")
            return None
        for text in observed.notes:
            findings.note(text)
        return observed

    def _start_tools(self, now: float) -> Future[ToolGroups] | None:
        if not self.source.group_tools or now < self._tools_due:
            return None
        from planner.collect.kafka_admin.group_tools import describe_with_tools

        self._tools_due = now + self._tools_every_s
        return self._tools_pool.submit(
            describe_with_tools,
            self.source.bootstrap_servers,
            self.source.extra,
            kafka_home=self.source.kafka_home,
            command_config=self.source.tools_config,
            timeout_s=max(30.0, 3 * self.source.calls.timeout_s),
        )

    @staticmethod
    def _finish_tools(tools: Future[ToolGroups] | None, findings: Findings) -> ToolGroups | None:
        if tools is None:
            return None
        found = tools.result()
        for text in found.notes:
            findings.note(text)
        return found

    # --- records and keys ------------------------------------------------------------------

    def _records(
        self,
        previous: Sample | None,
        ends: dict[tuple[str, int], int],
        counts: dict[str, int],
        ts: datetime,
        findings: Findings,
    ) -> tuple[pa.Table, pa.Table]:
        """The window's record reads per topic, and the keys the reservoir takes."""
        if previous is None:
            return sample_rows("records", ts), sample_rows("keys", ts)
        spans = _spans(previous, ends, counts, findings)
        self._rotation += 1
        readings: dict[tuple[str, int], PartitionRead] = {}
        grown_of: dict[str, dict[int, int]] = {}
        # `max_sample_records` per topic and minute: a shorter period reads less each time.
        limit = max(1, math.ceil(self.source.max_sample_records * min(1.0, self._every_s / 60)))
        for topic, parts in spans.items():
            grown = {p: end - start for p, (start, end) in parts.items() if end > start}
            grown_of[topic] = grown
            chosen = _rotate(sorted(grown), self._rotation, _READ_PARTITIONS)
            quota = math.ceil(limit / len(chosen)) if chosen else 0
            for p in chosen:
                start, end = parts[p]
                readings[(topic, p)] = PartitionRead(topic, start, end, min(quota, grown[p]))
        keyed: dict[str, list[tuple[int, bytes]]] = defaultdict(list)

        def on_record(topic: str, partition: int, key: bytes | None) -> None:
            if key is not None:
                keyed[topic].append((partition, key))

        sizes = read_partitions(
            self.source.client_config(**{"group.id": self.source.sample_group_id}),
            readings,
            spans,
            timeout_s=self.source.sample_timeout_s,
            on_record=on_record,
        )
        read_of: dict[str, dict[int, int]] = defaultdict(dict)
        for (topic, p), reading in readings.items():
            if reading.records:
                read_of[topic][p] = reading.records
        topics = list(spans)
        records = sample_rows(
            "records",
            ts,
            topic=topics,
            window_start=[previous.ts] * len(topics),
            records_read=[sizes[t].records for t in topics],
            bytes_read=[sizes[t].bytes for t in topics],
            keyed_read=[sizes[t].keyed for t in topics],
            offsets_read=[sizes[t].offsets for t in topics],
            partitions_grown=[len(grown_of[t]) for t in topics],
            partitions_read=[len(read_of[t]) for t in topics],
            error=[sizes[t].error for t in topics],
        )
        return records, self._keys(ts, keyed, grown_of, read_of)

    def _keys(
        self,
        ts: datetime,
        keyed: dict[str, list[tuple[int, bytes]]],
        grown_of: dict[str, dict[int, int]],
        read_of: dict[str, dict[int, int]],
    ) -> pa.Table:
        day: date = ts.date()
        self.reservoir.forget_before(day)
        columns: dict[str, list[Any]] = {c: [] for c in ("topic", "murmur2", "crc32", "fnv1a")}
        columns |= {"empty": [], "weight": [], "priority": []}
        for topic, found in keyed.items():
            read, grown = read_of[topic], grown_of[topic]
            # A record read stands for its partition's growth over the records read there,
            # scaled up by the partitions that grew over the partitions read.
            spread = len(grown) / len(read)
            weights = np.array([grown[p] / read[p] * spread for p, _ in found])
            at, priority = self.reservoir.offer(topic, day, weights)
            if not at.size:
                continue
            hashed = hash_to_hashed([found[i][1] for i in at])
            columns["topic"] += [topic] * at.size
            for name in ("murmur2", "crc32", "fnv1a", "empty"):
                columns[name] += hashed.field(name).to_pylist()
            columns["weight"] += weights[at].tolist()
            columns["priority"] += priority.tolist()
        return sample_rows("keys", ts, day=[day] * len(columns["topic"]), **columns)


def _spans(
    previous: Sample,
    ends: dict[tuple[str, int], int],
    counts: dict[str, int],
    findings: Findings,
) -> dict[str, dict[int, tuple[int, int]]]:
    """Per topic and partition, the offsets appended since `previous`.

    A partition created since starts at 0; one whose end offset was not read at either
    sample is left out; a topic whose offsets went backwards was deleted and created
    again in between, and has no window.
    """
    spans: dict[str, dict[int, tuple[int, int]]] = {}
    recreated: list[str] = []
    for topic, count in counts.items():
        before = previous.partition_counts.get(topic)
        if before is None:
            before = 0  # created since the previous sample: every partition starts at 0
        parts: dict[int, tuple[int, int]] = {}
        backwards = False
        for p in range(count):
            end = ends.get((topic, p))
            start = previous.ends.get((topic, p), 0 if p >= before else None)
            if end is None or start is None:
                continue
            if end < start:
                backwards = True
                break
            parts[p] = (start, end)
        if backwards:
            recreated.append(topic)
            continue
        spans[topic] = parts
    if recreated:
        findings.note(
            f"{len(recreated)} topic(s) whose end offsets went backwards since the previous "
            f"sample (deleted and created again?) have no record read this sample: "
            f"{', '.join(recreated[:10])}"
        )
    return spans


def _rotate(items: list[int], turn: int, size: int) -> list[int]:
    """`size` of `items`, starting `turn * size` along and wrapping round."""
    if len(items) <= size:
        return items
    first = (turn * size) % len(items)
    return [items[(first + i) % len(items)] for i in range(size)]


def _group_tables(
    ts: datetime, groups: GroupsObserved | None, tools: ToolGroups | None
) -> dict[str, pa.Table]:
    """The `groups`, `members` and `committed` tables of a sample."""
    described: list[DescribedGroup] = []
    committed: dict[str, list[tuple[str, int, int]]] = {}
    if groups is not None:
        described += groups.read.described
        committed = groups.committed
    if tools is not None:
        described += tools.share or []
        described += tools.streams or []
    g: dict[str, list[Any]] = defaultdict(list)
    m: dict[str, list[Any]] = defaultdict(list)
    for group in described:
        g["group_id"].append(group.group_id)
        g["protocol"].append(group.protocol)
        g["assignor"].append(group.assignor or None)
        g["state"].append(group.state)
        g["members"].append(len(group.members))
        g["simple"].append(group.simple)
        for member in group.members:
            owned = member.assignment or ((None, None),)
            for topic, partition in owned:
                m["group_id"].append(group.group_id)
                m["member_id"].append(member.member_id)
                m["client_id"].append(member.client_id or None)
                m["topic"].append(topic)
                m["partition"].append(partition)
    if tools is not None and tools.streams is not None:
        # Kafka's tool gives a streams group's tasks, not partitions: its topics are the
        # ones it committed offsets for, recorded as assignments of no member.
        for group_id, topics in tools.streams_topics.items():
            for topic in sorted(topics):
                m["group_id"].append(group_id)
                m["member_id"].append("")
                m["client_id"].append(None)
                m["topic"].append(topic)
                m["partition"].append(None)
    c: dict[str, list[Any]] = defaultdict(list)
    for group_id, offsets in committed.items():
        for topic, partition, offset in offsets:
            c["group_id"].append(group_id)
            c["topic"].append(topic)
            c["partition"].append(partition)
            c["offset"].append(offset)
    return {
        "groups": sample_rows("groups", ts, **g),
        "members": sample_rows("members", ts, **m),
        "committed": sample_rows("committed", ts, **c),
    }
