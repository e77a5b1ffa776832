"""`KafkaAdminSource`: the settings, and one collection from end to end."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pyarrow as pa

from planner.collect.base import Collected
from planner.collect.kafka_admin.calls import AdminCalls, names
from planner.collect.kafka_admin.consumer_groups import other_group_notes
from planner.collect.kafka_admin.findings import Bad, Findings
from planner.collect.kafka_admin.isolated import read_groups_isolated
from planner.collect.kafka_admin.metadata import (
    read_brokers,
    read_metadata,
    retention,
    topics_table,
)
from planner.collect.kafka_admin.offsets import (
    read_end_offsets,
    sample_sizes,
    throughput,
    windows,
)
from planner.collect.kafka_groups import DescribedGroup, GroupScan, group_rows
from planner.figures.dataset import DataInterval

__all__ = ["KafkaAdminSource"]

_LIBRDKAFKA_LOG = logging.getLogger("planner.collect.kafka_admin.librdkafka")


class KafkaAdminSource:
    """Topics, brokers, consumer groups and sampled throughput from a live Kafka cluster.

    Attributes:
        name: The source's name in the planner config and in reports.
        bootstrap_servers: librdkafka's `bootstrap.servers` (host:port, comma-separated).
        calls: Time-outs and retries of the admin calls.
        extra: The further librdkafka settings (security...).
        max_sample_records, sample_timeout_s, sample_group_id, group_tools, kafka_home,
            tools_config: The settings of the same names (`tools_config` is
            `group_tools_command_config`); the observer (`planner.observe`) shares them.
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
        group_tools: bool = True,
        kafka_home: Path | None = None,
        group_tools_command_config: Path | None = None,
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
            group_tools: Describe share groups (KIP-932) and streams groups (KIP-1071)
                with Apache Kafka's own tools, which confluent-kafka cannot (three JVM
                starts, about 3 s each). Skipped, with a note, when no Kafka
                installation is found.
            kafka_home: The Kafka installation whose tools to run; None: one on `PATH`,
                else the planner's own (`planner.adapters.kafka_dist.find`).
            group_tools_command_config: A Java client properties file for the tools
                (`--command-config`), for a cluster that needs TLS or SASL: librdkafka's
                `config` does not translate to Java's settings, so a secured cluster's
                share and streams groups are skipped, with a note, without it.

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
        self.extra = extra
        self._window_s = float(sample_window_s)
        self.max_sample_records = max_sample_records
        self.sample_timeout_s = float(sample_timeout_s)
        self.sample_group_id = sample_group_id
        self.group_tools = group_tools
        self.kafka_home = kafka_home
        self.tools_config = group_tools_command_config
        self.calls = AdminCalls(
            where=f"{self.name}: Kafka at {self.bootstrap_servers}",
            timeout_s=float(request_timeout_s),
            retries=retries,
            retry_delay_s=float(retry_delay_s),
        )

    def client_config(self, **overrides: object) -> dict[str, Any]:
        """The librdkafka settings of a client of this cluster, with `overrides`."""
        # Any: librdkafka settings are scalars, but `logger` is a Python object.
        timeout_ms = int(self.calls.timeout_s * 1000)
        settings: dict[str, Any] = {
            "socket.timeout.ms": timeout_ms,
            "socket.connection.setup.timeout.ms": timeout_ms,
            "logger": _LIBRDKAFKA_LOG,
        }
        settings.update(self.extra)
        settings.update(overrides)
        settings["bootstrap.servers"] = self.bootstrap_servers
        return settings

    def admin_client(self, **overrides: object) -> Any:
        """A new confluent-kafka `AdminClient` of this cluster (`overrides` as in
        `client_config`).

        Raises:
            ValueError: librdkafka refuses a setting.
        """
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import AdminClient

        try:
            return AdminClient(self.client_config(**overrides))
        except KafkaException as exc:  # a setting librdkafka does not accept
            raise ValueError(f"{self.calls.where}: bad client config: {exc}") from None

    def _described_by_tools(self) -> tuple[GroupScan, list[str], set[str]]:
        """Share and streams groups as `groups` rows, read with Kafka's own tools, the
        notes about them (`group_tools.describe_with_tools`), and the kinds (`share`,
        `streams`) whose tool was read; nothing when switched off."""
        from planner.collect.kafka_admin import group_tools as tools

        scan, notes, read_kinds = GroupScan(), list[str](), set[str]()
        if not self.group_tools:
            return scan, notes, read_kinds
        found = tools.describe_with_tools(
            self.bootstrap_servers,
            self.extra,
            kafka_home=self.kafka_home,
            command_config=self.tools_config,
            timeout_s=max(30.0, 3 * self.calls.timeout_s),
        )
        notes.extend(found.notes)
        kinds: tuple[tuple[str, list[DescribedGroup] | None, dict[str, set[str]], str], ...] = (
            ("share", found.share, {}, "described by kafka-share-groups"),
            (
                "streams",
                found.streams,
                found.streams_topics,
                "(KIP-1071) described by kafka-streams-groups, topics from their "
                "committed offsets, one member per stream thread",
            ),
        )
        for kind, groups, topics, how in kinds:
            if groups is None:
                continue
            read_kinds.add(kind)
            kept = group_rows(groups, _topics_from(topics))
            scan.rows += kept.rows
            scan.rejected += kept.rejected
            scan.empty += kept.empty
            if groups:
                notes.append(
                    f"{len(groups)} {kind} group(s) {how}: {names([g.group_id for g in groups])}"
                )
        return scan, notes, read_kinds

    def describe_groups(self) -> list[DescribedGroup]:
        """What the broker reports about every consumer group, as the client reads it.

        Classic and consumer-protocol (KIP-848) groups, each with its protocol, state,
        assignor and members' assignments; share groups and other kinds are not
        consumer groups to the client library and are left out (see
        `planner.collect.kafka_admin.consumer_groups`).

        Raises:
            SourceUnavailable: the cluster could not be reached within the retries.
        """
        self.admin_client()  # a setting librdkafka refuses is named here, not in a child
        read, _ = read_groups_isolated(self.client_config(), self.calls)
        return read.described

    def collect(self, interval: DataInterval, *, run: DataInterval | None = None) -> Collected:
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
        from concurrent.futures import ThreadPoolExecutor

        admin = self.admin_client()
        findings = Findings(self.calls.where, f"{self.name}:{self.bootstrap_servers}")
        # Kafka's group tools (a JVM start each) run beside everything else, so their
        # seconds overlap the sample window instead of adding to it.
        pool = ThreadPoolExecutor(1, thread_name_prefix="kafka-group-tools")
        try:
            tools = pool.submit(self._described_by_tools)
            return self._collect(admin, findings, tools, interval, run or interval)
        finally:
            # A collection that failed does not wait for the tools (their own time-out
            # stops them); one that succeeded has their result already.
            pool.shutdown(wait=False, cancel_futures=True)

    def _collect(
        self,
        admin: Any,
        findings: Findings,
        tools: Future[tuple[GroupScan, list[str], set[str]]],
        interval: DataInterval,
        run: DataInterval,
    ) -> Collected:
        metadata = read_metadata(self.calls, admin)
        # A partition without a leader has no end offset to read (see `windows`).
        partitions = [
            (t, p)
            for t, parts in metadata.topics.items()
            for p, part in parts.items()
            if part.leader >= 0
        ]
        first = read_end_offsets(self.calls, admin, partitions)
        deadline = first.mono_s + self._window_s
        # The other reads run inside the window, so the window costs no extra time.
        read_brokers(self.calls, admin, metadata, findings)
        retention_ms = retention(self.calls, admin, list(metadata.topics), findings)
        self._groups(findings, tools)
        time.sleep(max(0.0, deadline - time.monotonic()))
        second = read_end_offsets(self.calls, admin, partitions)
        bad: list[Bad] = []
        spans_of = windows(first, second, metadata, bad)
        sizes = sample_sizes(
            self.client_config(**{"group.id": self.sample_group_id}),
            spans_of,
            max_records=self.max_sample_records,
            timeout_s=self.sample_timeout_s,
        )
        throughput(
            first,
            second,
            spans_of,
            sizes,
            bad,
            interval=interval,
            sample_timeout_s=self.sample_timeout_s,
            max_sample_records=self.max_sample_records,
            findings=findings,
        )
        keyed = {t: (s.keyed > 0 if s.records else None) for t, s in sizes.items()}
        topics_table(metadata, retention_ms, keyed, findings)
        if not run.start <= first.wall < run.end:
            findings.note(
                f"the topics, groups and brokers are the cluster as it is now "
                f"({first.wall.isoformat(timespec='seconds')}), not as it was in {run}: "
                f"a topic idle now reads as unkeyed, a group gone as none. To plan a past "
                f"interval from what the cluster did in it, run `partition-planner observe` "
                f"and set [sources.kafka] observations (docs/observations.md)"
            )
        return findings.collected

    def _groups(
        self, findings: Findings, tools: Future[tuple[GroupScan, list[str], set[str]]]
    ) -> None:
        # In a child process (`isolated`); its librdkafka logs go to its own logger of
        # the same name, since a Logger pickles by name.
        read, scan = read_groups_isolated(self.client_config(), self.calls)
        for text in read.notes:
            findings.note(text)
        by_tools, tool_notes, kinds = tools.result()
        for text in tool_notes:
            findings.note(text)
        scan.rows += by_tools.rows
        scan.rejected += by_tools.rejected
        scan.empty += by_tools.empty
        # A group a tool described (a row, a refusal, or empty) is said once, there.
        described = {r["group_id"] for r in by_tools.rows} | {r[0] for r in by_tools.rejected}
        described |= set(by_tools.empty)
        read.others = [o for o in read.others if o[0] not in described]
        findings.reject_groups(read.failures + scan.rejected)
        raw = pa.table(
            {
                "group_id": pa.array([r["group_id"] for r in scan.rows], pa.string()),
                "topic": pa.array([r["topic"] for r in scan.rows], pa.string()),
                "strategy": pa.array([r["strategy"] for r in scan.rows], pa.string()),
                "members": pa.array([r["members"] for r in scan.rows], pa.int32()),
                "protocol": pa.array([r["protocol"] for r in scan.rows], pa.string()),
                "stream_threads": pa.array(
                    [r.get("stream_threads") for r in scan.rows], pa.int32()
                ),
            }
        )
        findings.add("groups", raw)
        for group_names, what in (
            (scan.empty, "empty consumer group(s) (no members, no assignor) skipped"),
            (scan.simple, "simple consumer group(s) (members assign themselves) skipped"),
            (scan.from_offsets, "group(s) without assignments: topics from committed offsets"),
        ):
            if group_names:
                findings.note(f"{len(group_names)} {what}: {names(group_names)}")
        for text in other_group_notes(read.others, kinds):
            findings.note(text)


def _topics_from(topics: Mapping[str, set[str]]) -> Callable[[str], set[str]]:
    """Group id -> the topics `topics` names for it (none when it names none)."""
    return lambda group: set(topics.get(group, ()))
