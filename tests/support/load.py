"""Steady traffic on a real Kafka: producers at known rates, consumer groups reading along.

`produce_steadily` paces a confluent-kafka producer against the wall clock: at every
tick it sends what the rate says is due since it began, so a stall (a loaded machine)
is caught up at once and the long-run rate stays exact. `Readers` runs one consumer per
group in a thread, from the earliest offset, reading for as long as the test wants.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Readers", "SteadyTopic", "create_topics", "leaders", "produce_steadily"]

KEY_BYTES = 8


@dataclass(frozen=True)
class SteadyTopic:
    """A topic and the traffic a test gives it.

    Attributes:
        name: Topic name.
        partitions: Partition count.
        records_per_s: Records produced per second.
        value_bytes: Bytes of each record's value.
        keys: Distinct keys cycled through (each `KEY_BYTES` long); 0 for no keys.
        groups: The consumer groups that read it.
    """

    name: str
    partitions: int
    records_per_s: int
    value_bytes: int
    keys: int = 0
    groups: tuple[str, ...] = ()

    @property
    def payload_bytes(self) -> int:
        """Key and value bytes of one record, without Kafka's framing."""
        return self.value_bytes + (KEY_BYTES if self.keys else 0)

    def key(self, index: int) -> bytes | None:
        return f"k{index % self.keys:07d}".encode() if self.keys else None


def create_topics(
    bootstrap: str,
    topics: Iterable[SteadyTopic],
    *,
    replication_factor: int,
    config: Mapping[str, str],
) -> None:
    """Create `topics` and wait until the cluster has them."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    wanted = [
        NewTopic(t.name, t.partitions, replication_factor, config=dict(config)) for t in topics
    ]
    for future in admin.create_topics(wanted, operation_timeout=60).values():
        future.result(timeout=90)


def leaders(bootstrap: str, topic: str) -> dict[int, int]:
    """Partition -> the node id that leads it now."""
    from confluent_kafka.admin import AdminClient

    metadata = AdminClient({"bootstrap.servers": bootstrap}).list_topics(topic, timeout=30)
    return {p: meta.leader for p, meta in metadata.topics[topic].partitions.items()}


def produce_steadily(
    bootstrap: str, topics: Sequence[SteadyTopic], *, until_s: float, tick_s: float = 0.005
) -> dict[str, int]:
    """Produce to every topic at its rate until the wall clock reaches `until_s`.

    Args:
        bootstrap: The cluster's bootstrap servers.
        topics: The topics and their rates.
        until_s: Wall-clock end, seconds since the epoch.
        tick_s: Seconds between pacing checks.

    Returns:
        Records sent per topic, every one acknowledged by all in-sync replicas.

    Raises:
        RuntimeError: A record was not delivered.
    """
    from confluent_kafka import Producer

    failures: list[str] = []

    def delivered(error: Any, message: Any) -> None:
        if error is not None:
            failures.append(f"{message.topic()}: {error}")

    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5})
    sent = dict.fromkeys((t.name for t in topics), 0)
    values = {t.name: b"v" * t.value_bytes for t in topics}
    began = time.time()
    while (now := time.time()) < until_s:
        for topic in topics:
            due = int((now - began) * topic.records_per_s)
            for index in range(sent[topic.name], due):
                producer.produce(
                    topic.name, values[topic.name], key=topic.key(index), on_delivery=delivered
                )
            sent[topic.name] = max(due, sent[topic.name])
        producer.poll(0)
        time.sleep(tick_s)
    left = producer.flush(60)
    if left or failures:
        raise RuntimeError(f"{left} records undelivered; failures: {failures[:5]}")
    return sent


class Readers:
    """One consumer thread per group, reading its topics from the earliest offset.

    Each record's arrival is noted: a consumer cannot receive a batch before the broker
    has served the fetch that carried it.

    Args:
        bootstrap: The cluster's bootstrap servers.
        topics: The topics; each is read by the groups it names.
    """

    def __init__(self, bootstrap: str, topics: Sequence[SteadyTopic]) -> None:
        self._bootstrap = bootstrap
        groups: dict[str, list[str]] = {}
        for topic in topics:
            for group in topic.groups:
                groups.setdefault(group, []).append(topic.name)
        self._groups = groups
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.read = dict.fromkeys(groups, 0)
        self.received: dict[str, dict[tuple[str, int, int], float]] = {g: {} for g in groups}
        """Per group, (topic, partition, offset) -> wall-clock ms the record reached it."""
        self._assigned = {g: threading.Event() for g in groups}
        self._errors: list[str] = []
        self._threads = [
            threading.Thread(target=self._run, args=(g, names), daemon=True)
            for g, names in groups.items()
        ]

    def __enter__(self) -> Readers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    def _run(self, group: str, names: list[str]) -> None:
        from confluent_kafka import Consumer

        consumer = Consumer(
            {
                "bootstrap.servers": self._bootstrap,
                "group.id": group,
                "auto.offset.reset": "earliest",
            }
        )
        try:
            consumer.subscribe(names, on_assign=lambda _c, _p: self._assigned[group].set())
            while not self._stop.is_set():
                message = consumer.poll(0.1)
                if message is None:
                    continue
                if message.error() is not None:
                    if not message.error().retriable():
                        self._errors.append(f"{group}: {message.error()}")
                    continue
                at_ms = time.time() * 1000
                with self._lock:
                    self.read[group] += 1
                    self.received[group][
                        (message.topic(), message.partition(), message.offset())
                    ] = at_ms
        finally:
            consumer.close()

    def wait_assigned(self, timeout_s: float) -> None:
        """Wait until every group has its partitions."""
        deadline = time.monotonic() + timeout_s
        for group, assigned in self._assigned.items():
            if not assigned.wait(max(0.0, deadline - time.monotonic())):
                raise RuntimeError(f"group {group} got no partitions in {timeout_s:.0f} s")

    def wait_read(self, records: Mapping[str, int], timeout_s: float) -> None:
        """Wait until each group has read `records[group]` records."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._errors:
                raise RuntimeError(f"consumer errors: {self._errors[:5]}")
            with self._lock:
                if all(self.read[g] >= n for g, n in records.items()):
                    return
            time.sleep(0.1)
        raise RuntimeError(f"read {self.read} of {dict(records)} in {timeout_s:.0f} s")
