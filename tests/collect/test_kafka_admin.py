"""KafkaAdminSource against a real Apache Kafka 4.4.0, and its faults.

On the one-node `kafka`: the tests create their own topics (fresh names), run live groups
of every kind the broker knows (classic groups of librdkafka and Java consumers with all
four client strategies, consumer-protocol groups with the broker's `uniform` and `range`
assignors, a share group, Kafka Streams applications on the classic and the streams
protocol), produce records of known sizes at known rates from threads
(batched, and transactional) while the source samples, and check every table it returns.
What the broker reports about each group is compared with what Kafka's own Java `Admin`
reports (`java/GroupProbe.java`), which also records what confluent-kafka cannot read:
the share group's members and assignments.

On the three-broker `kafka_cluster` (racks a, b, c): brokers and racks, replication
factor 3, and a broker stopped during a collection (started again afterwards).
"""

from __future__ import annotations

import gc
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import confluent_kafka
import pyarrow as pa
import pytest

from planner.adapters.kraft import KRaftCluster, free_port
from planner.collect.base import Collected, SourceUnavailable
from planner.collect.kafka_admin import DescribedGroup, KafkaAdminSource
from planner.collect.kafka_admin.calls import AdminCalls, Refused
from planner.collect.kafka_admin.findings import Findings
from planner.collect.kafka_admin.offsets import (
    OffsetsSample,
    read_end_offsets,
    sample_sizes,
    throughput,
)
from planner.figures.dataset import DataInterval
from tests.collect.kafka_live import (
    JAVA,
    REQUEST_TIMEOUT_S,
    GroupSpec,
    LiveGroups,
    PacedProducer,
    admin_client,
    create_topics,
    java_view,
    records_and_end,
    unsettled_groups,
    wait_for,
)
from tests.support.java import compiled
from tests.support.kafka import distribution

WINDOW_S = 3.0
BUSY_RATE = 200.0  # records/s to the keyed topic, batched by the producer
BUSY_SIZES = (100, 300, 500)  # value bytes, in turn
BUSY_KEYS = 7
HEADER = ("trace", b"0123456789abcdef")
# key "user-N" (6 bytes) + mean value (300) + header name (5) and value (16)
BUSY_RECORD_BYTES = 6 + sum(BUSY_SIZES) / len(BUSY_SIZES) + len(HEADER[0]) + len(HEADER[1])
KEYLESS_RATE = 50.0
KEYLESS_VALUE = 1000
TRANSACTIONS = 10
TXN_RECORDS = 2  # records per transaction: each commit adds one marker offset, +50%
RATE_TOLERANCE = 0.1  # pacing and window edges on a loaded 2-core machine
PAST = DataInterval.day(date(2026, 1, 1))
SETTLE_S = 90.0  # groups settle in seconds; generous for a loaded machine


def keyed_record(i: int) -> dict[str, Any]:
    return {
        "key": f"user-{i % BUSY_KEYS}".encode(),
        "value": b"v" * BUSY_SIZES[i % len(BUSY_SIZES)],
        "headers": [HEADER],
    }


def keyless_record(_: int) -> dict[str, Any]:
    return {"value": b"k" * KEYLESS_VALUE}


@dataclass(frozen=True)
class Fleet:
    busy: str  # 3 partitions, keyed records in batches, retention.ms 1 h
    keyless: str  # 2 partitions, keyless records
    quiet: str  # 2 partitions, no records, no retention.ms of its own
    forever: str  # 1 partition, retention.ms -1
    txn: str  # 1 partition, transactional records
    internal: str  # starts with "__"


@pytest.fixture(scope="module")
def fleet(kafka: KRaftCluster) -> Fleet:
    from confluent_kafka.admin import NewTopic

    suffix = uuid.uuid4().hex[:8]
    names = Fleet(
        busy=f"admin-busy-{suffix}",
        keyless=f"admin-keyless-{suffix}",
        quiet=f"admin-quiet-{suffix}",
        forever=f"admin-forever-{suffix}",
        txn=f"admin-txn-{suffix}",
        internal=f"__admin-internal-{suffix}",
    )
    create_topics(
        kafka.bootstrap,
        [
            NewTopic(names.busy, 3, 1, config={"retention.ms": "3600000"}),
            NewTopic(names.keyless, 2, 1),
            NewTopic(names.quiet, 2, 1),
            NewTopic(names.forever, 1, 1, config={"retention.ms": "-1"}),
            NewTopic(names.txn, 1, 1),
            NewTopic(names.internal, 1, 1),
        ],
    )
    return names


@dataclass(frozen=True)
class Groups:
    range: GroupSpec  # classic, librdkafka, 2 members on busy + quiet
    cooperative: GroupSpec  # classic, librdkafka, 1 member on keyless
    roundrobin: GroupSpec  # classic, librdkafka, 2 members on quiet
    sticky: GroupSpec  # classic, Java's StickyAssignor, 2 members on busy
    uniform: GroupSpec  # consumer protocol, the broker's default (uniform), 2 members on busy
    server_range: GroupSpec  # consumer protocol, the broker's range, 1 member on 2 topics
    share: GroupSpec  # share group, 3 members on forever (1 partition)
    drained: GroupSpec  # classic; its member committed and left: empty

    @property
    def live(self) -> list[GroupSpec]:
        return [
            self.range,
            self.cooperative,
            self.roundrobin,
            self.sticky,
            self.uniform,
            self.server_range,
            self.share,
        ]

    @property
    def consumer_groups(self) -> list[GroupSpec]:
        return [g for g in self.live if g.kind != "share"]


@pytest.fixture(scope="module")
def group_probe() -> Path:
    return compiled("group-probe", [JAVA], distribution())


@pytest.fixture(scope="class")
def groups(kafka: KRaftCluster, fleet: Fleet, group_probe: Path) -> Iterator[Groups]:
    """Every kind of live group, settled; they leave after the class's tests."""
    suffix = uuid.uuid4().hex[:8]

    def spec(name: str, kind: str, assignor: str, members: int, *topics: str) -> GroupSpec:
        return GroupSpec(f"admin-{name}-{suffix}", kind, assignor, members, topics)

    made = Groups(
        range=spec("range", "classic", "range", 2, fleet.busy, fleet.quiet),
        cooperative=spec("coop", "classic", "cooperative-sticky", 1, fleet.keyless),
        roundrobin=spec("rr", "classic", "roundrobin", 2, fleet.quiet),
        sticky=spec(
            "sticky", "java", "org.apache.kafka.clients.consumer.StickyAssignor", 2, fleet.busy
        ),
        uniform=spec("uniform", "consumer", "", 2, fleet.busy),  # the broker's default
        server_range=spec("srange", "consumer", "range", 1, fleet.busy, fleet.keyless),
        share=spec("share", "share", "", 3, fleet.forever),
        drained=spec("drained", "classic", "range", 1, fleet.forever),
    )
    with LiveGroups(kafka, made.live, drained=made.drained, classes=group_probe) as live:

        def unsettled() -> str | None:
            live.check()
            if not live.drained.is_set():
                return "the drained group's member has not left"
            return unsettled_groups(kafka.bootstrap, made.consumer_groups)

        wait_for(unsettled, within_s=SETTLE_S, what="the live groups settled")
        yield made
        live.check()


STREAMS_JAVA = Path(__file__).with_name("java") / "StreamsApp.java"


@dataclass(frozen=True)
class StreamsApps:
    classic: GroupSpec  # Kafka Streams on the classic protocol: assignor `stream`
    kip1071: GroupSpec  # Kafka Streams on KIP-1071's streams protocol


@pytest.fixture(scope="class")
def streams_apps(kafka: KRaftCluster, fleet: Fleet) -> Iterator[StreamsApps]:
    """Two Kafka Streams applications, two stream threads each, settled: one on the
    classic protocol reading two co-partitioned topics, one on KIP-1071's."""
    import subprocess

    from planner.collect.kafka_admin import group_tools as tools

    suffix = uuid.uuid4().hex[:8]
    apps = StreamsApps(
        classic=GroupSpec(
            f"admin-kstream-{suffix}", "classic", "stream", 2, (fleet.keyless, fleet.quiet)
        ),
        kip1071=GroupSpec(f"admin-kip1071-{suffix}", "streams", "sticky", 2, (fleet.quiet,)),
    )
    kafka_home = distribution()
    classes = compiled("streams-app", [STREAMS_JAVA], kafka_home)
    jvms = [
        subprocess.Popen(
            kafka_home.java_command(
                "StreamsApp",
                [kafka.bootstrap, spec.group_id, protocol, str(spec.members), *spec.topics],
                heap_mb=192,
                jvm_options=["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"],
                extra_classpath=[classes],
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for spec, protocol in ((apps.classic, "classic"), (apps.kip1071, "streams"))
    ]
    try:

        def unsettled() -> str | None:
            if any(j.poll() is not None for j in jvms):
                return "a Streams application exited"  # wait_for fails on the deadline
            classic = unsettled_groups(kafka.bootstrap, [apps.classic])
            if classic is not None:
                return classic
            state = tools.run_tool(
                kafka_home.java_command(
                    tools.STREAMS_GROUP_COMMAND,
                    tools.tool_args(kafka.bootstrap, "--state", "--verbose"),
                )
            )
            offsets = tools.run_tool(
                kafka_home.java_command(
                    tools.STREAMS_GROUP_COMMAND, tools.tool_args(kafka.bootstrap, "--offsets")
                )
            )
            groups, topics = tools.parse_streams_groups(state, offsets)
            mine = [g for g in groups if g.group_id == apps.kip1071.group_id]
            if not mine or len(mine[0].members) != 2 or not topics.get(apps.kip1071.group_id):
                return f"streams group: {mine}, topics {topics}"
            return None

        wait_for(unsettled, within_s=SETTLE_S, what="the Streams applications settled")
        yield apps
    finally:
        for jvm in jvms:
            jvm.kill()
            jvm.wait()


@pytest.fixture(scope="class")
def broker_view(kafka: KRaftCluster, groups: Groups, group_probe: Path) -> dict[str, Any]:
    """What Kafka's Admin reports for every live group, once the share group is settled
    too (its three members each own the one partition)."""
    ids = [g.group_id for g in groups.live] + [groups.drained.group_id]
    views: dict[str, Any] = {}

    def unsettled() -> str | None:
        views.update(java_view(kafka, group_probe, ids))
        share = views[groups.share.group_id]
        members = share.get("members") or []
        if (
            share.get("state") != "Stable"
            or len(members) != 3
            or not all(m["assignment"] for m in members)
        ):
            return f"share group: {share}"
        return None

    wait_for(unsettled, within_s=SETTLE_S, what="the share group settled")
    return views


# -- one collection on the single node ------------------------------------------------


@dataclass(frozen=True)
class Run:
    collected: Collected
    before: datetime
    seconds: float

    def table(self, name: str) -> pa.Table:
        return pa.concat_tables(part.table for part in self.collected.parts[name])

    def rows(self, name: str, key: str) -> dict[str, dict[str, object]]:
        return {row[key]: row for row in self.table(name).to_pylist()}

    def rejected(self) -> list[dict[str, object]]:
        return [row for t in self.collected.rejected for row in t.to_pylist()]

    def note(self, *words: str) -> str:
        found = [n for n in self.collected.notes if all(w in n for w in words)]
        assert found, f"no note with {words}: {self.collected.notes}"
        return found[0]


def _collect(source: KafkaAdminSource, interval: DataInterval = PAST) -> Run:
    before, started = datetime.now(UTC), time.monotonic()
    collected = source.collect(interval)
    return Run(collected, before, time.monotonic() - started)


@pytest.fixture(scope="class")
def run(kafka: KRaftCluster, fleet: Fleet, groups: Groups, streams_apps: StreamsApps) -> Run:
    """One collection of a past interval while the groups are live and producers run."""
    source = KafkaAdminSource(
        kafka.bootstrap, sample_window_s=WINDOW_S, request_timeout_s=REQUEST_TIMEOUT_S
    )
    with (
        PacedProducer(kafka.bootstrap, fleet.busy, BUSY_RATE, keyed_record),
        PacedProducer(kafka.bootstrap, fleet.keyless, KEYLESS_RATE, keyless_record),
    ):
        time.sleep(0.5)  # past the producers' first batches
        return _collect(source)


@pytest.mark.integration
@pytest.mark.slow
class TestOneBroker:
    def test_topics_partitions_replicas_retention_and_keys(
        self, run: Run, fleet: Fleet, kafka: KRaftCluster
    ) -> None:
        topics = run.rows("topics", "topic")
        week_ms = 7 * 24 * 3600 * 1000  # Kafka's default: a topic without its own setting
        expected = {
            fleet.busy: (3, True, 3_600_000),
            fleet.keyless: (2, False, week_ms),
            fleet.quiet: (2, False, week_ms),
            fleet.forever: (1, False, None),
            fleet.txn: (1, False, week_ms),
        }
        for name, (partitions, keyed, retention_ms) in expected.items():
            row = topics[name]
            got = (row["partitions"], row["keyed"], row["retention_ms"])
            assert got == (partitions, keyed, retention_ms), name
            assert row["replication_factor"] == 1  # one broker
            assert row["partitioner"] == "murmur2_random"
            assert row["source"] == f"kafka-admin:{kafka.bootstrap}"
        assert fleet.internal not in topics
        internal = run.note("internal topic")
        assert fleet.internal in internal and "__consumer_offsets" in internal
        assert fleet.forever in run.note("retention.ms = -1")
        assert not [n for n in run.collected.notes if "no usable retention.ms" in n]
        unseen = run.note("no record read")
        assert fleet.quiet in unseen and fleet.busy not in unseen

    def test_throughput_counts_every_record_of_a_batch(self, run: Run, fleet: Fleet) -> None:
        rates = run.rows("throughput", "topic")
        busy, keyless, quiet = rates[fleet.busy], rates[fleet.keyless], rates[fleet.quiet]
        assert busy["records_in_per_s"] == pytest.approx(BUSY_RATE, rel=RATE_TOLERANCE)
        assert busy["bytes_in_per_s"] / busy["records_in_per_s"] == pytest.approx(
            BUSY_RECORD_BYTES, rel=0.02
        )
        assert keyless["records_in_per_s"] == pytest.approx(KEYLESS_RATE, rel=RATE_TOLERANCE)
        assert keyless["bytes_in_per_s"] == pytest.approx(
            KEYLESS_RATE * KEYLESS_VALUE, rel=RATE_TOLERANCE
        )
        assert (quiet["records_in_per_s"], quiet["bytes_in_per_s"]) == (0.0, 0.0)
        assert busy["bytes_out_per_s"] is None
        for row in rates.values():
            assert run.before <= row["ts"] <= run.before + timedelta(seconds=2)
        assert {row["ts"] for row in rates.values()} == {busy["ts"]}
        assert "not in the interval" in run.note("throughput was sampled at")
        # The window is the configured one (the rates above are exact only if the two end
        # offset reads are that far apart). How long the rest takes is the benchmark's
        # business, not a test's: Kafka's group tools start a JVM beside the window,
        # seconds more on a loaded machine.
        assert run.seconds >= WINDOW_S

    def test_transaction_markers_are_not_counted_as_records(
        self, run: Run, fleet: Fleet, kafka: KRaftCluster
    ) -> None:
        """A committed transaction of two records takes three offsets (its commit marker,
        which no consumer receives): the size sample finds the share of offsets that are
        records, and the rate counts records, not offsets (it would read 1.5x)."""
        producer = confluent_kafka.Producer(
            {
                "bootstrap.servers": kafka.bootstrap,
                "transactional.id": f"admin-{uuid.uuid4().hex}",
                "log_level": 3,
            }
        )
        producer.init_transactions(60)  # the first one creates Kafka's transaction log
        for _ in range(TRANSACTIONS):
            producer.begin_transaction()
            for i in range(TXN_RECORDS):
                producer.produce(fleet.txn, **keyless_record(i))
            producer.commit_transaction(30)
        records, end = records_and_end(kafka.bootstrap, fleet.txn)
        assert (records, end) == (TRANSACTIONS * TXN_RECORDS, TRANSACTIONS * (TXN_RECORDS + 1))

        spans = {fleet.txn: {0: (0, end)}}
        reader = {"bootstrap.servers": kafka.bootstrap, "group.id": "admin-sampler"}
        sizes = sample_sizes(reader, spans, max_records=500, timeout_s=30)
        size = sizes[fleet.txn]
        assert (size.records, size.offsets, size.bytes) == (records, end, records * KEYLESS_VALUE)
        # Two reads 2 s apart that saw those offsets appended.
        now = datetime.now(UTC)
        first = OffsetsSample(now, 0.0, {(fleet.txn, 0): 0}, {})
        second = OffsetsSample(now + timedelta(seconds=2), 2.0, {(fleet.txn, 0): end}, {})
        findings = Findings("test", "test")
        throughput(
            first,
            second,
            spans,
            sizes,
            [],
            interval=PAST,
            sample_timeout_s=30,
            max_sample_records=500,
            findings=findings,
        )
        [row] = findings.collected.parts["throughput"][0].table.to_pylist()
        assert row["records_in_per_s"] == pytest.approx(records / 2)
        assert row["bytes_in_per_s"] == pytest.approx(records * KEYLESS_VALUE / 2)

    def test_the_cluster_is_the_broker_live_without_a_rack(
        self, run: Run, kafka: KRaftCluster
    ) -> None:
        assert run.table("cluster").select(["broker_id", "rack", "live"]).to_pylist() == [
            {"broker_id": kafka.nodes[0].node_id, "rack": None, "live": True}
        ]
        assert not [n for n in run.collected.notes if "is down" in n]

    def test_groups_of_every_client_strategy_and_broker_assignor(
        self, run: Run, groups: Groups, fleet: Fleet, streams_apps: StreamsApps
    ) -> None:
        ours = {g.group_id for g in [*groups.live, groups.drained]}
        ours |= {streams_apps.classic.group_id, streams_apps.kip1071.group_id}
        rows = {
            (r["group_id"], r["topic"]): (r["protocol"], r["strategy"], r["members"])
            for r in run.table("groups").to_pylist()
            if r["group_id"] in ours
        }
        # Each group's protocol and assignor as the broker names them.
        assert rows == {
            (groups.range.group_id, fleet.busy): ("classic", "range", 2),
            (groups.range.group_id, fleet.quiet): ("classic", "range", 2),
            (groups.cooperative.group_id, fleet.keyless): ("classic", "cooperative-sticky", 1),
            (groups.roundrobin.group_id, fleet.quiet): ("classic", "roundrobin", 2),
            (groups.sticky.group_id, fleet.busy): ("classic", "sticky", 2),
            (groups.uniform.group_id, fleet.busy): ("consumer", "uniform", 2),
            (groups.server_range.group_id, fleet.busy): ("consumer", "range", 1),
            (groups.server_range.group_id, fleet.keyless): ("consumer", "range", 1),
            # Described by Kafka's own kafka-share-groups (confluent-kafka cannot).
            (groups.share.group_id, fleet.forever): ("share", "simple", 3),
            # Kafka Streams: a classic group whose members are the stream threads, and a
            # KIP-1071 streams group from kafka-streams-groups (topics by its offsets).
            (streams_apps.classic.group_id, fleet.keyless): ("classic", "stream", 2),
            (streams_apps.classic.group_id, fleet.quiet): ("classic", "stream", 2),
            (streams_apps.kip1071.group_id, fleet.quiet): ("streams", "sticky", 2),
        }
        assert streams_apps.kip1071.group_id in run.note("streams group(s) (KIP-1071)")
        assert groups.drained.group_id in run.note("empty consumer group(s)")
        assert groups.share.group_id in run.note("share group(s) described by kafka-share-groups")
        skipped = [n for n in run.collected.notes if "not consumer groups" in n]
        assert not [n for n in skipped if groups.share.group_id in n]
        assert not [r for r in run.rejected() if any(g in str(r["reason"]) for g in ours)]

    def test_a_kafka_streams_thread_owns_the_same_partition_numbers_of_each_input_topic(
        self, kafka: KRaftCluster, streams_apps: StreamsApps, fleet: Fleet
    ) -> None:
        """Tasks are partition numbers of the co-partitioned input topics (what
        `planner.protocols` plans a multi-topic Streams group on)."""
        source = KafkaAdminSource(kafka.bootstrap, request_timeout_s=REQUEST_TIMEOUT_S)
        [app] = [g for g in source.describe_groups() if g.group_id == streams_apps.classic.group_id]
        assert (app.protocol, app.assignor, len(app.members)) == ("classic", "stream", 2)
        numbers = []
        for member in app.members:
            by_topic = {
                t: sorted(p for topic, p in member.assignment if topic == t)
                for t in (fleet.keyless, fleet.quiet)
            }
            assert by_topic[fleet.keyless] == by_topic[fleet.quiet]
            numbers.append(tuple(by_topic[fleet.keyless]))
        assert sorted(numbers) == [(0,), (1,)]

    def test_what_the_broker_reports_of_a_group_is_what_kafkas_admin_reports(
        self, kafka: KRaftCluster, groups: Groups, broker_view: dict[str, Any]
    ) -> None:
        source = KafkaAdminSource(kafka.bootstrap, request_timeout_s=REQUEST_TIMEOUT_S)
        described: dict[str, DescribedGroup] = {g.group_id: g for g in source.describe_groups()}
        assignors = {
            groups.range.group_id: "range",
            groups.cooperative.group_id: "cooperative-sticky",
            groups.roundrobin.group_id: "roundrobin",
            groups.sticky.group_id: "sticky",  # the Java client's StickyAssignor
            groups.uniform.group_id: "uniform",  # the broker's default: nobody asked
            groups.server_range.group_id: "range",  # asked with group.remote.assignor
        }
        for spec in groups.consumer_groups:
            mine, java = described[spec.group_id], broker_view[spec.group_id]
            assert mine.protocol == ("consumer" if spec.kind == "consumer" else "classic")
            assert (mine.protocol, mine.state, mine.assignor) == (
                java["type"].lower(),
                java["state"].upper(),
                assignors[spec.group_id],
            ), spec
            assert (java["assignor"], java["protocol"]) == (mine.assignor, "consumer")
            for m in mine.members:
                if spec.kind == "consumer":  # a UUID the client made, base64
                    assert re.fullmatch(r"[A-Za-z0-9+/_-]{22}", m.member_id), m
                else:  # the broker's: client id and a UUID
                    assert m.member_id.startswith(f"{m.client_id}-"), m
            members = [
                (
                    m.member_id,
                    sorted(f"{t}:{p}" for t, p in m.assignment),
                    None
                    if m.target_assignment is None
                    else sorted(f"{t}:{p}" for t, p in m.target_assignment),
                )
                for m in mine.members
            ]
            assert members == [
                (
                    m["member_id"],
                    sorted(m["assignment"]),
                    m["target_assignment"] and sorted(m["target_assignment"]),
                )
                for m in java["members"]
            ], spec
            # Classic members have no target; consumer-protocol ones have reached theirs.
            for m in mine.members:
                assert m.target_assignment == (m.assignment if spec.kind == "consumer" else None)
        drained = described[groups.drained.group_id]
        assert (drained.protocol, drained.state, drained.members) == ("classic", "EMPTY", ())
        assert broker_view[groups.drained.group_id]["state"] == "Empty"
        assert groups.share.group_id not in described

    def test_a_share_group_is_described_by_kafkas_tool_as_confluent_kafka_cannot(
        self,
        run: Run,
        kafka: KRaftCluster,
        groups: Groups,
        fleet: Fleet,
        broker_view: dict[str, Any],
    ) -> None:
        share_id = groups.share.group_id
        # Kafka's Admin: a share group, no assignor named, and the broker's `simple`
        # assignor gives the one partition to each of the three members.
        java = broker_view[share_id]
        assert (java["type"], java["protocol"], java["assignor"]) == ("Share", "share", None)
        assert [m["assignment"] for m in java["members"]] == [[f"{fleet.forever}:0"]] * 3
        # confluent-kafka 2.16.1: not a consumer group; described, it reads as a dead
        # classic group without members, as a group that does not exist would.
        admin = admin_client(kafka.bootstrap)
        listed = admin.list_consumer_groups(request_timeout=REQUEST_TIMEOUT_S).result().valid
        assert share_id not in {g.group_id for g in listed}
        seen = admin.describe_consumer_groups([share_id], request_timeout=REQUEST_TIMEOUT_S)
        seen = seen[share_id].result()
        assert (seen.type, seen.state, seen.members) == (
            confluent_kafka.ConsumerGroupType.CLASSIC,
            confluent_kafka.ConsumerGroupState.DEAD,
            [],
        )
        # The assignors the broker offers, as it reports them.
        from confluent_kafka.admin import ConfigResource, ResourceType

        broker = ConfigResource(ResourceType.BROKER, str(kafka.nodes[0].node_id))
        configs = admin.describe_configs([broker])[broker].result(REQUEST_TIMEOUT_S)
        assert configs["group.share.assignors"].value == "simple"
        assert configs["group.consumer.assignors"].value == "uniform,range"
        # So the collector asks Kafka's own kafka-share-groups tool, which names the
        # members and their partitions (the row: test_groups_of_every_client_...).
        assert share_id in run.note("share group(s) described by kafka-share-groups")


@pytest.mark.integration
def test_a_run_of_now_whose_size_sample_runs_out_of_time(kafka: KRaftCluster, fleet: Fleet) -> None:
    """The current interval gets no "not in the interval" note; a topic whose window
    records cannot be read in time is rejected with the reason, not given a size."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    source = KafkaAdminSource(
        kafka.bootstrap,
        sample_window_s=0.5,
        sample_timeout_s=0.001,
        request_timeout_s=REQUEST_TIMEOUT_S,
    )
    with PacedProducer(kafka.bootstrap, fleet.busy, 100.0, keyed_record):
        time.sleep(0.3)
        collected = source.collect(DataInterval(now - timedelta(hours=1), now + timedelta(hours=1)))
    assert not [n for n in collected.notes if "not in the interval" in n]
    rates = {r["topic"]: r for p in collected.parts["throughput"] for r in p.table.to_pylist()}
    assert fleet.busy not in rates
    assert (rates[fleet.quiet]["records_in_per_s"], rates[fleet.quiet]["bytes_in_per_s"]) == (
        0.0,
        0.0,
    )
    [rejected] = [
        r
        for t in collected.rejected
        for r in t.to_pylist()
        if r["table"] == "throughput" and repr(fleet.busy) in r["reason"]
    ]
    assert rejected["field"] == "bytes_in_per_s"
    assert "size is unknown" in rejected["reason"] and "0.001 s" in rejected["reason"]


# -- three brokers in racks -----------------------------------------------------------


@dataclass(frozen=True)
class Racked:
    replicated: str  # 6 partitions, replication factor 3
    spread: str  # 3 partitions, one replica each, on brokers 1, 2 and 3
    group: GroupSpec  # one classic member on `replicated`
    bootstrap: str  # every node, stopped or not, as a user's config names them


@pytest.fixture(scope="module")
def racked(kafka_cluster: KRaftCluster, group_probe: Path) -> Iterator[Racked]:
    """Two topics and a Java consumer group (Java: its client rides out a broker stop)."""
    from confluent_kafka.admin import NewTopic

    suffix = uuid.uuid4().hex[:8]
    made = Racked(
        replicated=f"admin-rf3-{suffix}",
        spread=f"admin-spread-{suffix}",
        group=GroupSpec(
            f"admin-racked-{suffix}",
            "java",
            "org.apache.kafka.clients.consumer.RangeAssignor",
            1,
            (f"admin-rf3-{suffix}",),
        ),
        bootstrap=",".join(n.bootstrap for n in kafka_cluster.nodes),
    )
    create_topics(
        kafka_cluster.bootstrap,
        [
            NewTopic(made.replicated, 6, 3),
            NewTopic(made.spread, num_partitions=3, replica_assignment=[[1], [2], [3]]),
        ],
    )
    with LiveGroups(kafka_cluster, [made.group], classes=group_probe) as live:
        assert live.java_ready(within_s=SETTLE_S) is None
        yield made
        live.check()


def _brokers(run: Run) -> list[tuple[object, ...]]:
    return sorted((r["broker_id"], r["rack"], r["live"]) for r in run.table("cluster").to_pylist())


@pytest.mark.integration
@pytest.mark.slow
class TestThreeBrokers:
    def test_three_brokers_in_racks_and_three_replicas(self, racked: Racked) -> None:
        source = KafkaAdminSource(
            racked.bootstrap, sample_window_s=1, request_timeout_s=REQUEST_TIMEOUT_S
        )
        run = _collect(source)
        assert _brokers(run) == [(1, "a", True), (2, "b", True), (3, "c", True)]
        topics = run.rows("topics", "topic")
        assert (
            topics[racked.replicated]["partitions"],
            topics[racked.replicated]["replication_factor"],
        ) == (6, 3)
        assert (
            topics[racked.spread]["partitions"],
            topics[racked.spread]["replication_factor"],
        ) == (3, 1)
        assert (racked.group.group_id, racked.replicated) in {
            (r["group_id"], r["topic"]) for r in run.table("groups").to_pylist()
        }
        assert not [n for n in run.collected.notes if "is down" in n]
        # Replicas, leader first: the spread topic's one replica each where it was placed;
        # the replicated topic's three brokers per partition, led by the metadata's leader.
        assert topics[racked.spread]["replicas"] == "1,2,3"
        metadata = admin_client(racked.bootstrap).list_topics(racked.replicated, timeout=10)
        leaders = [metadata.topics[racked.replicated].partitions[p].leader for p in range(6)]
        lists = [
            tuple(map(int, item.split(":")))
            for item in topics[racked.replicated]["replicas"].split(",")
        ]
        assert [r[0] for r in lists] == leaders
        assert all(sorted(r) == [1, 2, 3] for r in lists)
        # The observer records the same lists and racks in its sample (one sample: the
        # collection from observations passes the last one on).
        from planner.observe.sampler import ClusterSampler

        sampler = ClusterSampler(source, every_s=60.0, observer="test")
        try:
            sample = sampler.sample(None)
        finally:
            sampler.close()
        observed = {r["topic"]: r["replicas"] for r in sample.tables["topics"].to_pylist()}
        assert observed[racked.replicated] == topics[racked.replicated]["replicas"]
        assert observed[racked.spread] == "1,2,3"
        assert {r["broker_id"]: r["rack"] for r in sample.tables["brokers"].to_pylist()} == {
            1: "a",
            2: "b",
            3: "c",
        }

    def test_a_broker_down_is_reported_and_healthy_topics_stay_valid(
        self, racked: Racked, kafka_cluster: KRaftCluster
    ) -> None:
        """Broker 2 stopped: it stays a row of `cluster`, marked down, so the broker count
        stays 3 and a topic with three replicas does not exceed it; the partition whose
        only replica is on broker 2 has no leader, so only its topic loses its sample."""
        source = KafkaAdminSource(
            racked.bootstrap, sample_window_s=2, request_timeout_s=REQUEST_TIMEOUT_S
        )
        # No client of this process may have a group request open while the broker
        # stops: librdkafka 2.16 can abort on one that fails (confluentinc/librdkafka#4605).
        gc.collect()
        kafka_cluster.stop_node(2)
        try:
            admin = admin_client(kafka_cluster.bootstrap)

            def still_listed() -> str | None:
                nodes = admin.describe_cluster(request_timeout=5).result(10).nodes
                ids = sorted(n.id for n in nodes)
                return None if ids == [1, 3] else f"the cluster lists brokers {ids}"

            wait_for(still_listed, within_s=60, what="broker 2 gone from the cluster")
            with PacedProducer(
                kafka_cluster.bootstrap, racked.replicated, KEYLESS_RATE, keyless_record
            ):
                time.sleep(0.5)
                run = _collect(source)
            metadata = admin.list_topics(timeout=10)
            # End offsets: the leaderless partition is asked again, then its topic left
            # out with the broker's error; the others are read.
            calls = AdminCalls(where="test", timeout_s=5, retries=1, retry_delay_s=0.1)
            wanted = [(racked.spread, p) for p in range(3)] + [(racked.replicated, 0)]
            offsets = read_end_offsets(calls, admin, wanted)
        finally:
            kafka_cluster.start_node(2, timeout_s=120)

        assert _brokers(run) == [(1, "a", True), (2, None, False), (3, "c", True)]
        held = [
            (name, p)
            for name, topic in metadata.topics.items()
            for p, partition in topic.partitions.items()
            if 2 in partition.replicas
        ]
        note = run.note("broker 2 is down")
        assert note.startswith(
            f"kafka-admin: Kafka at {racked.bootstrap}: broker 2 is down: it holds replicas of "
            f"{len(held)} partition(s) of {len({t for t, _ in held})} topic(s) and is not in "
            f"the cluster description"
        ), note
        assert note.endswith(
            f"1 partition(s) have no leader, so their topics get no throughput sample: "
            f"{racked.spread}-1"
        ), note
        # Healthy topics keep their replication factor, within the cluster's broker count.
        topics = run.rows("topics", "topic")
        brokers = len({r["broker_id"] for r in run.table("cluster").to_pylist()})
        assert (topics[racked.replicated]["replication_factor"], brokers) == (3, 3)
        assert (
            topics[racked.spread]["partitions"],
            topics[racked.spread]["replication_factor"],
        ) == (3, 1)
        assert all(row["replication_factor"] <= brokers for row in topics.values())
        # Replicas: the topic with a partition without a leader gets none (whom consumers
        # fetch from is not known); the replicated one is led by brokers 1 and 3 only,
        # and still lists broker 2, which holds its replicas while down.
        assert topics[racked.spread]["replicas"] is None
        lists = [item.split(":") for item in topics[racked.replicated]["replicas"].split(",")]
        assert all(r[0] != "2" and "2" in r for r in lists)
        # Throughput: the replicated topic is sampled (its partitions have new leaders);
        # the one with a partition offline is rejected, saying why.
        rates = run.rows("throughput", "topic")
        assert rates[racked.replicated]["records_in_per_s"] > 0
        assert racked.spread not in rates
        [rejected] = [
            r
            for r in run.rejected()
            if r["table"] == "throughput" and repr(racked.spread) in r["reason"]
        ]
        assert rejected["field"] == "records_in_per_s"
        assert "partition(s) 1 have no leader" in rejected["reason"]
        assert set(offsets.ends) == {(racked.spread, 0), (racked.spread, 2), (racked.replicated, 0)}
        assert offsets.errors == {
            racked.spread: "partition 1: Broker: Leader not available (LEADER_NOT_AVAILABLE)"
        }
        # The group is still described, wherever its coordinator moved.
        assert (racked.group.group_id, racked.replicated) in {
            (r["group_id"], r["topic"]) for r in run.table("groups").to_pylist()
        }


# -- faults ---------------------------------------------------------------------------


def test_an_unreachable_cluster_fails_within_a_bounded_time() -> None:
    bootstrap = f"127.0.0.1:{free_port()}"  # nothing listens there
    source = KafkaAdminSource(
        bootstrap, request_timeout_s=1, retries=1, retry_delay_s=0.2, sample_window_s=1
    )
    started = time.monotonic()
    with pytest.raises(SourceUnavailable) as caught:
        source.collect(PAST)
    seconds = time.monotonic() - started
    # two attempts of 1 s and one 0.2 s pause; generous for a loaded machine
    assert 2.0 <= seconds < 6.0
    message = str(caught.value)
    assert bootstrap in message and "failed 2 times" in message
    assert "transport failure" in message.lower() or "timed out" in message.lower()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"config": {"bootstrap.servers": "x:1"}}, "not in config"),
        ({"request_timeout_s": 0.5}, "request_timeout_s"),
        ({"sample_window_s": 0}, "sample_window_s"),
        ({"sample_timeout_s": float("nan")}, "sample_timeout_s"),
        ({"retries": -1}, "retries"),
        ({"max_sample_records": 0}, "max_sample_records"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        KafkaAdminSource("127.0.0.1:9092", **kwargs)  # type: ignore[arg-type]


def test_a_setting_librdkafka_refuses_is_a_config_error() -> None:
    source = KafkaAdminSource("127.0.0.1:9092", config={"no.such.setting": "x"})
    with pytest.raises(
        ValueError, match=r"kafka-admin: Kafka at 127.0.0.1:9092: bad client config"
    ):
        source.collect(PAST)


def test_a_curable_error_is_retried_and_an_incurable_one_refused_at_once() -> None:
    calls = AdminCalls(where="kafka-admin: Kafka at x:1", timeout_s=1, retries=2, retry_delay_s=0)
    KafkaError, KafkaException = confluent_kafka.KafkaError, confluent_kafka.KafkaException
    tries: list[str] = []

    def flaky() -> int:
        tries.append("flaky")
        if len(tries) < 3:
            raise KafkaException(KafkaError(KafkaError._TRANSPORT))
        return 42

    assert calls.call("read", flaky) == 42 and len(tries) == 3

    def forbidden() -> int:
        tries.append("forbidden")
        raise KafkaException(KafkaError(KafkaError.CLUSTER_AUTHORIZATION_FAILED))

    with pytest.raises(Refused, match=r"describe: .*CLUSTER_AUTHORIZATION_FAILED"):
        calls.call("describe", forbidden)
    assert tries.count("forbidden") == 1
    with pytest.raises(SourceUnavailable, match="kafka-admin: Kafka at x:1: describe: "):
        calls.must("describe", forbidden)

    def down() -> int:
        raise KafkaException(KafkaError(KafkaError._TRANSPORT))

    with pytest.raises(SourceUnavailable, match="kafka-admin: Kafka at x:1: read: failed 3 times"):
        calls.call("read", down)


def test_replicas_are_written_leader_first_and_only_when_the_leader_is_known() -> None:
    from planner.collect.kafka_admin.metadata import NO_LEADER, Partition, leader_first_replicas

    # Partition 1's leader moved to broker 3 (its preferred, 2, is behind): 3 goes first.
    moved = {0: Partition((1, 2, 3), 1), 1: Partition((2, 3, 1), 3)}
    assert leader_first_replicas(moved) == "1:2:3,3:2:1"
    assert leader_first_replicas({0: Partition((1, 2), NO_LEADER), 1: Partition((2, 1), 2)}) is None
    # Mid-reassignment: the counts differ, so the shape is not the topic's.
    assert leader_first_replicas({0: Partition((1, 2, 3), 1), 1: Partition((2, 1), 2)}) is None
