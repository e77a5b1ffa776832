"""Live Kafka clients for the admin collector's tests: groups of every kind, paced producers.

Groups: librdkafka members (classic and consumer protocol, and share consumers) polled
from one thread, Java classic members run by `java/GroupProbe.java`, which also reports
what Kafka's own `Admin` says of a group. Producers: a fixed rate from a thread, batched.
Every wait polls a condition against a generous deadline, for a loaded machine.
"""

from __future__ import annotations

import json
import select
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import confluent_kafka
import confluent_kafka.admin

from planner.adapters.kraft import KRaftCluster
from planner.collect.kafka_admin.calls import is_transient

__all__ = [
    "JAVA",
    "REQUEST_TIMEOUT_S",
    "GroupSpec",
    "LiveGroups",
    "PacedProducer",
    "admin_client",
    "create_topics",
    "java_view",
    "jvms_ready",
    "leave",
    "records_and_end",
    "unsettled_groups",
    "wait_for",
]

JAVA = Path(__file__).parent / "java" / "GroupProbe.java"
REQUEST_TIMEOUT_S = 30.0
"""Admin requests' time-out in the tests: long, since librdkafka 2.16 can abort the whole
process when a coordinator request (describe a group) fails or times out
(confluentinc/librdkafka#4605, fix proposed in #5397)."""


def admin_client(bootstrap: str) -> Any:
    return confluent_kafka.admin.AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})


def create_topics(bootstrap: str, topics: list[Any]) -> None:
    admin = admin_client(bootstrap)  # kept: the futures fail once their client is collected
    for future in admin.create_topics(topics).values():
        future.result(timeout=30)


@dataclass(frozen=True)
class GroupSpec:
    """One live group: who runs its members and how they are assigned."""

    group_id: str
    kind: str  # "classic" / "consumer" (librdkafka), "java" (classic), "share"
    assignor: str  # strategy, broker assignor ("" for its default), or Java assignor class
    members: int
    topics: tuple[str, ...]


def _member(bootstrap: str, spec: GroupSpec) -> Any:
    common = {"bootstrap.servers": bootstrap, "group.id": spec.group_id, "log_level": 3}
    if spec.kind == "share":
        return confluent_kafka.ShareConsumer(common)
    common["auto.offset.reset"] = "earliest"
    if spec.kind == "consumer":
        settings = {**common, "group.protocol": "consumer", "enable.auto.commit": False}
        if spec.assignor:  # else the broker's default
            settings["group.remote.assignor"] = spec.assignor
        return confluent_kafka.Consumer(settings)
    return confluent_kafka.Consumer(
        {
            **common,
            "partition.assignment.strategy": spec.assignor,
            "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 1000,
            "max.poll.interval.ms": 30000,
            "enable.auto.commit": False,
        }
    )


class LiveGroups:
    """Live groups: the librdkafka members polled from one thread (a consumer is polled by
    one thread only), one JVM per Java group. A `drained` group's member commits once it
    owns partitions and leaves, so the group stays, empty. `stop` makes them all leave."""

    def __init__(
        self,
        kafka: KRaftCluster,
        specs: list[GroupSpec],
        *,
        drained: GroupSpec | None = None,
        classes: Path | None = None,
    ) -> None:
        self.kafka, self.specs, self.drained_spec, self.classes = kafka, specs, drained, classes
        self.stopping = threading.Event()
        self.drained = threading.Event()
        self.failure: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.jvms: list[subprocess.Popen[str]] = []

    def __enter__(self) -> LiveGroups:
        for spec in self.specs:
            if spec.kind == "java":
                assert self.classes is not None
                args = ["members", self.kafka.bootstrap, spec.group_id, spec.assignor]
                args += [str(spec.members), ",".join(spec.topics)]
                command = self.kafka.distribution.java_command(
                    "GroupProbe", args, heap_mb=128, extra_classpath=[self.classes]
                )
                self.jvms.append(
                    subprocess.Popen(
                        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
                    )
                )
        self.thread.start()
        return self

    def java_ready(self, *, within_s: float) -> str | None:
        """None once every Java group printed "ready" (each member owns partitions)."""
        return jvms_ready(self.jvms, within_s=within_s)

    def _run(self) -> None:
        members: list[Any] = []
        drained: Any = None
        try:
            for spec in self.specs:
                for _ in range(spec.members if spec.kind != "java" else 0):
                    members.append(_member(self.kafka.bootstrap, spec))
                    members[-1].subscribe(list(spec.topics))
            if self.drained_spec is not None:
                drained = _member(self.kafka.bootstrap, self.drained_spec)
                drained.subscribe(list(self.drained_spec.topics))
            while not self.stopping.is_set():
                for member in members:
                    member.poll(0.02)
                if drained is not None:
                    drained.poll(0.02)
                    if drained.assignment():
                        start = [
                            confluent_kafka.TopicPartition(tp.topic, tp.partition, 0)
                            for tp in drained.assignment()
                        ]
                        drained.commit(offsets=start, asynchronous=False)
                        drained.close()
                        drained = None
                        self.drained.set()
        except BaseException as exc:  # surfaced by `check`
            self.failure.append(exc)
        finally:
            for member in members:
                member.close()

    def check(self) -> None:
        assert not self.failure, self.failure
        for jvm in self.jvms:
            assert jvm.poll() is None, f"a Java group exited with {jvm.returncode}"

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        self.thread.join(60)
        leave(self.jvms)


def leave(jvms: list[subprocess.Popen[str]]) -> None:
    """Close each Java group's standard input, so its members leave, and wait for them
    (killed after a minute)."""
    for jvm in jvms:
        assert jvm.stdin is not None
        jvm.stdin.close()
    for jvm in jvms:
        try:
            jvm.wait(60)
        except subprocess.TimeoutExpired:
            jvm.kill()
            jvm.wait()


def jvms_ready(jvms: list[subprocess.Popen[str]], *, within_s: float) -> str | None:
    """None once every JVM printed "ready" on its standard output (`GroupProbe members`,
    `PacedConsumer`: each member owns partitions), else what went wrong."""
    deadline = time.monotonic() + within_s
    for jvm in jvms:
        assert jvm.stdout is not None
        while not select.select([jvm.stdout], [], [], 0.5)[0]:
            if jvm.poll() is not None or time.monotonic() > deadline:
                return f"a Java group is not ready (exit {jvm.poll()})"
        line = jvm.stdout.readline().strip()
        if line != "ready":
            return f"a Java group said {line!r}"
    return None


def wait_for(condition: Callable[[], str | None], *, within_s: float, what: str) -> None:
    """Poll `condition` (None when met, else what is still missing) until the deadline."""
    deadline = time.monotonic() + within_s
    missing = condition()
    while missing is not None:
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not within {within_s:.0f} s: {missing}")
        time.sleep(0.5)
        missing = condition()


def unsettled_groups(bootstrap: str, specs: list[GroupSpec]) -> str | None:
    """What keeps the consumer groups in `specs` from being settled, or None: each is
    stable, has all its members, every member owns partitions, together all of them (and,
    under the consumer protocol, each member has reached its target)."""
    admin = admin_client(bootstrap)
    partitions = {t: len(m.partitions) for t, m in admin.list_topics(timeout=10).topics.items()}
    # Long time-outs: librdkafka 2.16 can abort the process when a coordinator request
    # fails or times out (confluentinc/librdkafka#4605), so none should.
    futures = admin.describe_consumer_groups(
        [s.group_id for s in specs], request_timeout=REQUEST_TIMEOUT_S
    )
    for spec in specs:
        try:
            group = futures[spec.group_id].result(timeout=REQUEST_TIMEOUT_S + 5)
        except confluent_kafka.KafkaException as exc:
            # The group coordinator may still be loading or moving: ask again.
            if is_transient(exc.args[0]):
                return f"{spec.group_id}: {exc}"
            raise
        owned = [
            {(tp.topic, tp.partition) for tp in m.assignment.topic_partitions}
            for m in group.members
        ]
        want = {(t, p) for t in spec.topics for p in range(partitions[t])}
        if group.state != confluent_kafka.ConsumerGroupState.STABLE or len(owned) != spec.members:
            return f"{spec.group_id}: {group.state}, {len(owned)} of {spec.members} members"
        if not all(owned) or set().union(*owned) != want:
            return f"{spec.group_id}: members own {owned}, want {sorted(want)}"
        for member in group.members:
            target = member.target_assignment
            if target is not None and set(target.topic_partitions) != set(
                member.assignment.topic_partitions
            ):
                return f"{spec.group_id}: {member.member_id} still reconciling"
    return None


def java_view(kafka: KRaftCluster, classes: Path, group_ids: list[str]) -> dict[str, Any]:
    """Kafka's own Admin on `group_ids`: group id -> what it reports."""
    done = subprocess.run(
        kafka.distribution.java_command(
            "GroupProbe",
            ["describe", kafka.bootstrap, *group_ids],
            heap_mb=128,
            extra_classpath=[classes],
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return {view["group"]: view for view in map(json.loads, done.stdout.splitlines())}


class PacedProducer:
    """Produces to `topic` at `rate` records/s from its own thread, on a fixed schedule
    (a late record is sent at once, so the count over any window stays rate x window);
    `record(i)` gives the i-th record's `produce` arguments (key, value, headers).
    Records are batched (`linger.ms` 50): a partition's end offset grows by a batch's
    records at once."""

    def __init__(
        self, bootstrap: str, topic: str, rate: float, record: Callable[[int], dict[str, Any]]
    ) -> None:
        self.bootstrap, self.topic, self.rate, self.record = bootstrap, topic, rate, record
        self.stop, self.started = threading.Event(), threading.Event()
        self.sent = 0
        self.errors: list[object] = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        producer = confluent_kafka.Producer(
            {"bootstrap.servers": self.bootstrap, "linger.ms": 50, "log_level": 3}
        )

        def report(err, _msg) -> None:  # type: ignore[no-untyped-def]
            if err is not None:
                self.errors.append(err)

        try:
            start = time.monotonic()
            while not self.stop.is_set():
                pause = start + self.sent / self.rate - time.monotonic()
                if pause > 0:
                    time.sleep(min(pause, 0.05))
                    continue
                producer.produce(self.topic, on_delivery=report, **self.record(self.sent))
                self.sent += 1
                producer.poll(0)
                self.started.set()
        except BaseException as exc:
            self.errors.append(exc)
        finally:
            self.started.set()
            producer.flush(10)

    def __enter__(self) -> PacedProducer:
        self.thread.start()
        assert self.started.wait(30), f"the producer to {self.topic} did not start"
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(30)
        assert not self.errors, self.errors[:3]


def records_and_end(bootstrap: str, topic: str) -> tuple[int, int]:
    """How many records partition 0 of `topic` holds, and its end offset."""
    consumer = confluent_kafka.Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"admin-count-{uuid.uuid4().hex[:8]}",
            "enable.partition.eof": True,
            "log_level": 3,
        }
    )
    try:
        partition = confluent_kafka.TopicPartition(topic, 0)
        _, end = consumer.get_watermark_offsets(partition, timeout=10)
        consumer.assign([confluent_kafka.TopicPartition(topic, 0, 0)])
        records, deadline = 0, time.monotonic() + 30
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            if message.error() is not None:
                if message.error().code() == confluent_kafka.KafkaError._PARTITION_EOF:
                    return records, end
                raise AssertionError(message.error())
            records += 1
        raise AssertionError(f"{topic} not read to its end in 30 s")
    finally:
        consumer.close()
