"""Consumer-protocol (KIP-848) and share (KIP-932) groups on the reference Kafka, for the
live tests of the broker-side assignors.

Members are Kafka's Java clients (``java/ModernGroup.java``: ``KafkaConsumer`` with
``group.protocol=consumer``, ``KafkaShareConsumer``) or confluent-kafka's (``Consumer``
with ``group.protocol=consumer``, ``ShareConsumer``), each polling in its own thread. The
broker's view of the group (member ids, assignments, target assignments, epochs) and the
topic ids come from Kafka's Java Admin, run by the same ``ModernGroup`` JVM for both
clients.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.adapters.kraft import KRaftCluster
from planner.assignors import assign
from tests.integration.java_clients import JavaHarness

Pairs = list[tuple[str, int]]


class ModernJavaGroup(JavaHarness):
    """The ``ModernGroup`` JVM: Java members of one group, and Admin's view of it.

    Args:
        kafka: The broker.
        group_id: The group.
        kind: ``consumer`` or ``share``.
        assignor: ``group.remote.assignor`` of its consumers (``uniform``, ``range``), or
            ``simple`` for a share group.
        folder: Where the JVM writes its log.
    """

    def __init__(
        self, kafka: KRaftCluster, group_id: str, kind: str, assignor: str, folder: Path
    ) -> None:
        self.group_id = group_id
        args = [kafka.bootstrap, group_id, kind, assignor]
        super().__init__(kafka, "ModernGroup", args, group_id, folder)

    def join(self, name: str, topics: Sequence[str]) -> None:
        self.ask({"op": "join", "name": name, "topics": list(topics)})

    def leave(self, name: str) -> None:
        self.ask({"op": "leave", "name": name}, timeout_s=45)

    def describe(self) -> dict[str, Any]:
        return self.ask({"op": "describe"})

    def topic_ids(self, topics: Sequence[str]) -> dict[str, str]:
        return dict(self.ask({"op": "topic_ids", "topics": list(topics)})["ids"])


class LibrdkafkaMembers:
    """confluent-kafka members of one group, each polling in its own thread.

    Args:
        bootstrap: The broker.
        group_id: The group.
        kind: ``consumer`` (``Consumer`` with ``group.protocol=consumer``) or ``share``
            (``ShareConsumer``).
        assignor: ``group.remote.assignor`` of the consumers; unused for share groups.
    """

    def __init__(self, bootstrap: str, group_id: str, kind: str, assignor: str) -> None:
        self.bootstrap = bootstrap
        self.group_id = group_id
        self.kind = kind
        self.assignor = assignor
        self._threads: dict[str, tuple[threading.Thread, threading.Event]] = {}
        self.own: dict[str, Pairs] = {}
        self.failures: dict[str, BaseException] = {}

    def join(self, name: str, topics: Sequence[str]) -> None:
        stop = threading.Event()
        thread = threading.Thread(
            target=self._run, args=(name, list(topics), stop), name=f"member-{name}", daemon=True
        )
        self._threads[name] = (thread, stop)
        thread.start()

    def _run(self, name: str, topics: list[str], stop: threading.Event) -> None:
        import confluent_kafka

        config: dict[str, Any] = {
            "bootstrap.servers": self.bootstrap,
            "group.id": self.group_id,
            "client.id": name,
            "topic.metadata.refresh.interval.ms": 1000,
        }
        try:
            if self.kind == "share":
                share = confluent_kafka.ShareConsumer(config)
                try:
                    share.subscribe(topics)
                    while not stop.is_set():
                        share.poll(0.1)
                finally:
                    share.close()
                return
            config.update(
                {
                    "group.protocol": "consumer",
                    "group.remote.assignor": self.assignor,
                    "enable.auto.commit": False,
                }
            )
            consumer = confluent_kafka.Consumer(config)
            try:
                consumer.subscribe(topics)
                while not stop.is_set():
                    consumer.poll(0.1)  # errors (an unknown topic at first) are expected
                    self.own[name] = sorted(
                        (tp.topic, tp.partition) for tp in consumer.assignment()
                    )
            finally:
                consumer.close()
        except BaseException as error:  # reported by check()
            self.failures[name] = error

    def leave(self, name: str) -> None:
        thread, stop = self._threads.pop(name)
        stop.set()
        thread.join(timeout=45)
        assert not thread.is_alive(), f"{name} did not close in 45 s"
        self.own.pop(name, None)
        self.check()

    def check(self) -> None:
        assert not self.failures, f"confluent-kafka members failed: {self.failures}"

    def close(self) -> None:
        for name in list(self._threads):
            thread, stop = self._threads.pop(name)
            stop.set()
            thread.join(timeout=45)


@dataclass(frozen=True)
class Settled:
    """A settled group as Admin describes it.

    Attributes:
        member_ids: Member name (``client.id``) -> the broker's member id.
        assignment: Member id -> its partitions, sorted.
        description: Admin's whole description (for messages).
    """

    member_ids: dict[str, str]
    assignment: dict[str, Pairs]
    description: dict[str, Any]


def _pairs(raw: list[list[Any]]) -> Pairs:
    return [(str(t), int(p)) for t, p in raw]


def settle(
    describer: ModernJavaGroup,
    names: Sequence[str],
    partitions: Mapping[str, int],
    *,
    share: bool,
    own: Mapping[str, Pairs] | None = None,
    quiet_s: float = 1.0,
    timeout_s: float = 90.0,
) -> Settled:
    """Wait until the group has exactly ``names`` as members, every partition of
    ``partitions`` assigned (once, or for a share group at least once), each consumer's
    assignment equal to its target and to what the client itself reports (``own``, Java
    members are read from the describer), the epochs caught up, all unchanged for
    ``quiet_s``.

    Raises:
        AssertionError: Not settled within ``timeout_s``; says why.
    """
    deadline = time.monotonic() + timeout_s
    last: str | None = None
    since = time.monotonic()
    why = "not described yet"
    while time.monotonic() < deadline:
        described = describer.describe()
        views = {**described.get("own", {}), **(own or {})}
        why_now = _unsettled(described, names, partitions, share=share, own=views)
        signature = json.dumps(described, sort_keys=True)
        if signature != last or why_now is not None:
            last, since, why = signature, time.monotonic(), why_now or "changing"
        elif time.monotonic() - since >= quiet_s:
            members = described["members"]
            return Settled(
                member_ids={m["client_id"]: m["member_id"] for m in members},
                assignment={m["member_id"]: _pairs(m["assignment"]) for m in members},
                description=described,
            )
        time.sleep(0.25)
    raise AssertionError(
        f"group {describer.group_id} did not settle in {timeout_s} s: {why}; last {last}\n"
        f"{describer.log_tail()}"
    )


def _unsettled(
    described: dict[str, Any],
    names: Sequence[str],
    partitions: Mapping[str, int],
    *,
    share: bool,
    own: Mapping[str, Any],
) -> str | None:
    if str(described.get("state", "")).lower() != "stable":
        return f"state {described.get('state')}"
    if described.get("group_epoch") != described.get("assignment_epoch"):
        return "target assignment behind the group epoch"
    members = described["members"]
    if sorted(m["client_id"] for m in members) != sorted(names):
        return f"members {[m['client_id'] for m in members]}"
    held = [tuple(tp) for m in members for tp in m["assignment"]]
    wanted = {(t, p) for t, n in partitions.items() for p in range(n)}
    if set(held) != wanted or (not share and len(held) != len(wanted)):
        return f"partitions held {sorted(held)}"
    for m in members:
        if not share and m.get("target") != m["assignment"]:
            return f"{m['client_id']} still moving to its target"
        if m["client_id"] in own and [list(p) for p in own[m["client_id"]]] != m["assignment"]:
            return f"{m['client_id']} reports {own[m['client_id']]}"
    return None


def predictions(
    strategy: str,
    protocol: str,
    partitions: Mapping[str, int],
    subscriptions: Mapping[str, Sequence[str]],
    previous: Mapping[str, Pairs] | None,
    topic_ids: Mapping[str, str],
) -> list[dict[str, Pairs]]:
    """``assign``'s result for every order of the members, without repeats.

    The broker's assignors walk the members in the order of a ``HashMap`` keyed by member
    id, filled in the order of the coordinator's own member map: members whose ids share a
    bucket are met in that order, which a client cannot see. One distinct result means the
    order does not matter for this group.
    """
    seen: list[dict[str, Pairs]] = []
    for order in itertools.permutations(subscriptions):
        result = assign(
            strategy,
            partitions,
            {m: list(subscriptions[m]) for m in order},
            previous,
            protocol=protocol,
            topic_ids=topic_ids,
        )
        plain = {m: [(tp[0], tp[1]) for tp in tps] for m, tps in result.items()}
        if plain not in seen:
            seen.append(plain)
    return seen


def wait_for_members(
    describer: ModernJavaGroup, names: Sequence[str], timeout_s: float = 60
) -> None:
    """Wait until Admin lists exactly ``names`` as the group's members."""
    deadline = time.monotonic() + timeout_s
    listed: list[str] = []
    while time.monotonic() < deadline:
        described = describer.describe()
        listed = sorted(m["client_id"] for m in described.get("members", []))
        if listed == sorted(names):
            return
        time.sleep(0.25)
    raise AssertionError(f"members {listed}, expected {sorted(names)}\n{describer.log_tail()}")


def create_topics_named(bootstrap: str, counts: Mapping[str, int], timeout_s: float = 30) -> None:
    """Create topics under the given names; returns once the metadata has them whole."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(name, num_partitions=n, replication_factor=1) for name, n in counts.items()]
    )
    for future in futures.values():
        future.result(timeout=timeout_s)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        listed = admin.list_topics(timeout=10).topics
        if all(t in listed and len(listed[t].partitions) == n for t, n in counts.items()):
            return
        time.sleep(0.2)
    raise AssertionError(f"topics {dict(counts)} not complete in the metadata after {timeout_s} s")
