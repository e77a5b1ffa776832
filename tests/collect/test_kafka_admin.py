"""KafkaAdminSource against a real Kafka-protocol broker (tansu 0.6.0), and its faults.

The broker tests create their own topics (fresh names), run real consumer groups
(librdkafka, `range` and `cooperative-sticky`), produce records of known sizes at known
rates from a thread while the source samples, and check every table it returns.

What tansu 0.6.0 does differently from Apache Kafka, found while writing these tests,
and what is tested instead:

- High watermark: tansu reports the base offset of a partition's *last batch* plus one,
  not the last offset plus one (15 records in one batch read as end offset 1). The
  producers here send one record per batch (`batch.num.messages` 1), for which both
  agree; the source itself follows Kafka's definition.
- Consumer groups: librdkafka asks `ConsumerGroupDescribe` (KIP-848) first and falls back
  to `DescribeGroups` only when the broker answers GROUP_ID_NOT_FOUND, as Kafka does for
  classic groups. tansu answers it for classic groups with no members and a member id in
  the assignor field; its `DescribeGroups` has the members but an empty protocol name,
  metadata and assignments. So no path gives a classic group's assignor or topics. Here
  the live groups must come out rejected with the reason, and an empty group (its
  consumers closed) skipped; the mapping of a real Kafka description is tested in
  `test_kafka_groups.py` on confluent-kafka's own description objects, filled the way
  Kafka fills them.
- `ListGroups` lists only groups that have committed offsets, so the live groups here
  commit their starting offsets once they are assigned.
- `DescribeConfigs` returns only the settings given when the topic was created (Kafka
  returns every setting with its default); racks: tansu has no `broker.rack`; one broker.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pyarrow as pa
import pytest

from planner.collect.base import Collected, SourceUnavailable
from planner.collect.kafka_admin import KafkaAdminSource
from planner.figures.dataset import DataInterval
from tests.support.broker import Broker, free_port

confluent_kafka = pytest.importorskip("confluent_kafka")

WINDOW_S = 2.0
BUSY_RATE = 200.0  # records/s to the keyed topic
BUSY_SIZES = (100, 300, 500)  # value bytes, in turn
BUSY_KEYS = 7
HEADER = ("trace", b"0123456789abcdef")
# key "user-N" (6 bytes) + mean value (300) + header name (5) and value (16)
BUSY_RECORD_BYTES = 6 + sum(BUSY_SIZES) / len(BUSY_SIZES) + len(HEADER[0]) + len(HEADER[1])
KEYLESS_RATE = 50.0
KEYLESS_VALUE = 1000
RATE_TOLERANCE = 0.08  # pacing jitter on a 2-core machine; a wrong count is off by 2x+
PAST = DataInterval.day(date(2026, 1, 1))


@dataclass(frozen=True)
class Fleet:
    busy: str  # 3 partitions, keyed records, retention.ms 1 h
    keyless: str  # 2 partitions, keyless records
    quiet: str  # 2 partitions, no records
    forever: str  # 1 partition, retention.ms -1
    internal: str  # starts with "__"


@pytest.fixture(scope="module")
def fleet(kafka_broker: Broker) -> Fleet:
    from confluent_kafka.admin import AdminClient, NewTopic

    suffix = uuid.uuid4().hex[:8]
    names = Fleet(
        busy=f"admin-busy-{suffix}",
        keyless=f"admin-keyless-{suffix}",
        quiet=f"admin-quiet-{suffix}",
        forever=f"admin-forever-{suffix}",
        internal=f"__admin-internal-{suffix}",
    )
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap})
    futures = admin.create_topics(
        [
            NewTopic(names.busy, 3, 1, config={"retention.ms": "3600000"}),
            NewTopic(names.keyless, 2, 1),
            NewTopic(names.quiet, 2, 1),
            NewTopic(names.forever, 1, 1, config={"retention.ms": "-1"}),
            NewTopic(names.internal, 1, 1),
        ]
    )
    for future in futures.values():
        future.result(timeout=15)
    return names


def _consumer(broker: Broker, group_id: str, strategy: str) -> object:
    return confluent_kafka.Consumer(
        {
            "bootstrap.servers": broker.bootstrap,
            "group.id": group_id,
            "partition.assignment.strategy": strategy,
            "session.timeout.ms": 6000,
            "max.poll.interval.ms": 10000,
            "heartbeat.interval.ms": 500,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "log_level": 3,
        }
    )


@dataclass(frozen=True)
class Groups:
    range_id: str  # two live members on busy + quiet
    sticky_id: str  # one live cooperative-sticky member on keyless
    drained_id: str  # consumed, committed, closed: empty


@pytest.fixture(scope="module")
def groups(kafka_broker: Broker, fleet: Fleet) -> Iterator[Groups]:
    """Two live groups and one drained one, all joined together from one thread (a
    consumer is polled by one thread only); the drained one's member leaves once every
    member has its partitions."""
    suffix = uuid.uuid4().hex[:8]
    ids = Groups(f"admin-range-{suffix}", f"admin-sticky-{suffix}", f"admin-drained-{suffix}")
    settled, stop = threading.Event(), threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        live = [
            (_consumer(kafka_broker, ids.range_id, "range"), [fleet.busy, fleet.quiet]),
            (_consumer(kafka_broker, ids.range_id, "range"), [fleet.busy, fleet.quiet]),
            (_consumer(kafka_broker, ids.sticky_id, "cooperative-sticky"), [fleet.keyless]),
        ]
        drained = (_consumer(kafka_broker, ids.drained_id, "range"), [fleet.forever])
        members = [*live, drained]
        try:
            for consumer, topics in members:
                consumer.subscribe(topics)  # type: ignore[attr-defined]
            while not stop.is_set():
                for consumer, _ in members:
                    consumer.poll(0.05)  # type: ignore[attr-defined]
                if settled.is_set() or not all(c.assignment() for c, _ in members):  # type: ignore[attr-defined]
                    continue
                # tansu lists only groups that committed offsets: commit where each
                # member starts, as a consumer's first auto-commit would.
                for consumer, _ in members:
                    start = [
                        confluent_kafka.TopicPartition(tp.topic, tp.partition, 0)
                        for tp in consumer.assignment()  # type: ignore[attr-defined]
                    ]
                    consumer.commit(offsets=start, asynchronous=False)  # type: ignore[attr-defined]
                drained[0].close()  # type: ignore[attr-defined]
                members = live
                settled.set()
        except BaseException as exc:  # surfaced by the fixture
            failure.append(exc)
            settled.set()
        finally:
            for consumer, _ in members:
                consumer.close()  # type: ignore[attr-defined]

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert settled.wait(30), f"groups did not settle\n{kafka_broker.log_tail()}"
    assert not failure, failure
    try:
        yield ids
    finally:
        stop.set()
        thread.join(15)


class PacedProducer:
    """Produces to `topic` at `rate` records/s from its own thread, on a fixed schedule
    (a late record is sent at once, so the count over any window stays rate x window)."""

    def __init__(self, broker: Broker, topic: str, rate: float, *, keyed: bool) -> None:
        self.broker, self.topic, self.rate, self.keyed = broker, topic, rate, keyed
        self.stop = threading.Event()
        self.sent = 0
        self.errors: list[object] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _record(self, i: int) -> dict[str, object]:
        if self.keyed:
            return {
                "key": f"user-{i % BUSY_KEYS}".encode(),
                "value": b"v" * BUSY_SIZES[i % len(BUSY_SIZES)],
                "headers": [HEADER],
            }
        return {"value": b"k" * KEYLESS_VALUE}

    def _run(self) -> None:
        producer = confluent_kafka.Producer(
            {
                "bootstrap.servers": self.broker.bootstrap,
                # One record per batch: tansu's end offset is exact only then (see above).
                "batch.num.messages": 1,
                "linger.ms": 0,
            }
        )

        def report(err, _msg) -> None:  # type: ignore[no-untyped-def]
            if err is not None:
                self.errors.append(err)

        start = time.monotonic()
        while not self.stop.is_set():
            pause = start + self.sent / self.rate - time.monotonic()
            if pause > 0:
                time.sleep(min(pause, 0.05))
                continue
            producer.produce(self.topic, on_delivery=report, **self._record(self.sent))
            producer.poll(0)
            self.sent += 1
        producer.flush(10)

    def __enter__(self) -> PacedProducer:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(15)
        assert not self.errors, self.errors[:3]


@dataclass(frozen=True)
class Run:
    collected: Collected
    before: datetime
    after: datetime
    seconds: float

    def table(self, name: str) -> pa.Table:
        return pa.concat_tables(part.table for part in self.collected.parts[name])

    def rows(self, name: str, key: str) -> dict[str, dict[str, object]]:
        return {row[key]: row for row in self.table(name).to_pylist()}

    def rejected(self) -> list[dict[str, object]]:
        return [row for t in self.collected.rejected for row in t.to_pylist()]


@pytest.fixture(scope="module")
def run(kafka_broker: Broker, fleet: Fleet, groups: Groups) -> Run:
    """One collection of a past interval while both producers run."""
    source = KafkaAdminSource(kafka_broker.bootstrap, sample_window_s=WINDOW_S, request_timeout_s=5)
    with (
        PacedProducer(kafka_broker, fleet.busy, BUSY_RATE, keyed=True),
        PacedProducer(kafka_broker, fleet.keyless, KEYLESS_RATE, keyed=False),
    ):
        time.sleep(0.5)  # past the producers' connection set-up
        before, started = datetime.now(UTC), time.monotonic()
        collected = source.collect(PAST)
        seconds = time.monotonic() - started
        after = datetime.now(UTC)
    return Run(collected, before, after, seconds)


def _note(run: Run, *words: str) -> str:
    found = [n for n in run.collected.notes if all(w in n for w in words)]
    assert found, f"no note with {words}: {run.collected.notes}"
    return found[0]


@pytest.mark.integration
@pytest.mark.slow
class TestAgainstBroker:
    def test_topics_partitions_replicas_retention_and_keys(
        self, run: Run, fleet: Fleet, kafka_broker: Broker
    ) -> None:
        topics = run.rows("topics", "topic")
        expected = {
            fleet.busy: (3, True, 3_600_000),
            fleet.keyless: (2, False, None),
            fleet.quiet: (2, False, None),
            fleet.forever: (1, False, None),
        }
        for name, (partitions, keyed, retention_ms) in expected.items():
            row = topics[name]
            assert (row["partitions"], row["keyed"], row["retention_ms"]) == (
                partitions,
                keyed,
                retention_ms,
            ), name
            assert row["replication_factor"] == 1  # one broker
            assert row["partitioner"] == "murmur2_random"
            assert row["source"] == f"kafka-admin:{kafka_broker.bootstrap}"
        assert fleet.internal not in topics
        assert fleet.internal in _note(run, "internal topic")
        assert fleet.forever in _note(run, "retention.ms = -1")
        # tansu returns only the settings given at creation (Kafka would give the default).
        assert fleet.keyless in _note(run, "no usable retention.ms")
        unseen = _note(run, "no record read")
        assert fleet.quiet in unseen and fleet.busy not in unseen

    def test_throughput_records_and_bytes_per_s(self, run: Run, fleet: Fleet) -> None:
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
            assert run.before <= row["ts"] <= run.before + timedelta(seconds=1)
        assert {row["ts"] for row in rates.values()} == {busy["ts"]}
        assert "not in the interval" in _note(run, "throughput was sampled at")
        # the window is the configured one, plus at most the size sample
        assert WINDOW_S <= run.seconds < WINDOW_S + 5

    def test_cluster_is_the_metadata_brokers(self, run: Run, kafka_broker: Broker) -> None:
        from confluent_kafka.admin import AdminClient

        brokers = (
            AdminClient({"bootstrap.servers": kafka_broker.bootstrap})
            .list_topics(timeout=5)
            .brokers
        )
        cluster = run.table("cluster").to_pylist()
        assert sorted(r["broker_id"] for r in cluster) == sorted(brokers)
        assert all(r["rack"] is None for r in cluster)  # tansu has no broker.rack

    def test_groups_tansu_cannot_describe_are_rejected_empty_skipped(
        self, run: Run, groups: Groups, kafka_broker: Broker
    ) -> None:
        rows = run.table("groups").to_pylist()
        ours = {groups.range_id, groups.sticky_id, groups.drained_id}
        assert not [r for r in rows if r["group_id"] in ours]
        rejected = [r for r in run.rejected() if r["table"] == "groups"]

        def rejections_of(group_id: str) -> list[tuple[object, ...]]:
            return [
                (r["field"], r["value"], r["source"], r["reason"])
                for r in rejected
                if repr(group_id) in str(r["reason"])
            ]

        for group_id in (groups.range_id, groups.sticky_id):
            [(field, value, source, reason)] = rejections_of(group_id)
            assert (field, value) == ("members", "0")
            assert source == f"kafka-admin:{kafka_broker.bootstrap}"
            assert "STABLE but lists no members" in str(reason)
        assert rejections_of(groups.drained_id) == []  # EMPTY: skipped, not rejected
        _note(run, "empty consumer group(s)")


@pytest.mark.integration
def test_a_run_of_now_whose_size_sample_runs_out_of_time(
    kafka_broker: Broker, fleet: Fleet
) -> None:
    """The current interval gets no "not in the interval" note; a topic whose window
    records cannot be read in time is rejected with the reason, not given a size."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    source = KafkaAdminSource(
        kafka_broker.bootstrap, sample_window_s=0.5, sample_timeout_s=0.001, request_timeout_s=5
    )
    with PacedProducer(kafka_broker, fleet.busy, 100.0, keyed=True):
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


def test_broker_down_fails_within_a_bounded_time() -> None:
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
