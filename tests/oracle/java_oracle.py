"""Kafka's own classes as a differential oracle, in one long-lived JVM.

``java/KafkaOracle.java`` is compiled against the reference Kafka's jars (cached by
``tests.support.java.compiled``) and started once; each request is one JSON line on its
stdin, each answer one JSON line on its stdout (the protocol is described at the top of
the Java source). A request that takes longer than ``timeout_s`` kills the JVM, starts a
fresh one for the next request and raises :class:`OracleTimeout`. The JVM's stderr (Kafka's
own log lines, such as its complaints about partitions claimed twice) goes to a file shown
in every error.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import subprocess
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from planner.adapters.kafka_dist import KafkaDistribution
from tests.support.java import compiled

SOURCES = (
    Path(__file__).with_name("java") / "KafkaOracle.java",
    Path(__file__).with_name("java") / "BrokerAssignors.java",
    Path(__file__).with_name("java") / "StreamsAssignor.java",
    Path(__file__).with_name("java") / "RackAssignors.java",
    Path(__file__).with_name("java") / "StreamsClassicAssignor.java",
)
MAIN_CLASS = "KafkaOracle"
HEAP_MB = 128
# One small JVM on a shared 2-core machine: the serial collector and C1 only start fast and
# keep to one or two threads; each request is far too small for C2 to pay off.
TEST_JVM_OPTIONS = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
# Timing Kafka's classes needs the JVM they run in production: both JIT tiers.
BENCHMARK_JVM_OPTIONS = ("-XX:+UseSerialGC",)

TopicPartitions = list[tuple[str, int]]


class OracleError(RuntimeError):
    """The JVM died or answered something that is not an answer."""


class OracleTimeout(OracleError):
    """Kafka's classes did not answer in time (the JVM was restarted)."""


class KafkaRejected(Exception):
    """Kafka's classes threw on this input (the message is the Java exception)."""


@dataclass(frozen=True)
class JavaAssignment:
    """What Kafka's assignor returned.

    Attributes:
        assignment: Member id -> partitions, in the order Kafka listed them.
        general: For the sticky strategies, whether Kafka took its general path (differing
            subscriptions) rather than the constrained one; None for range and roundrobin.
    """

    assignment: dict[str, TopicPartitions]
    general: bool | None


class JavaOracle:
    """A running ``KafkaOracle`` JVM.

    Args:
        kafka: The Kafka whose jars the program runs on.
        folder: Where the JVM's log goes.
        timeout_s: Longest wait for one answer, in seconds.
        jvm_options: Options of the JVM.
    """

    def __init__(
        self,
        kafka: KafkaDistribution,
        folder: Path,
        *,
        timeout_s: float = 60.0,
        jvm_options: Sequence[str] = TEST_JVM_OPTIONS,
    ) -> None:
        self.kafka = kafka
        self.classes = compiled("kafka-oracle", SOURCES, kafka)
        self.log_path = folder / "kafka-oracle.log"
        self.timeout_s = timeout_s
        self.jvm_options = tuple(jvm_options)
        self.requests = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._buffer = bytearray()

    # -- process ---------------------------------------------------------------------

    def start(self) -> None:
        command = self.kafka.java_command(
            MAIN_CLASS,
            heap_mb=HEAP_MB,
            jvm_options=self.jvm_options,
            extra_classpath=[self.classes],
        )
        self._log = self.log_path.open("ab")
        self._buffer.clear()
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def request(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Send one request and return its answer.

        Raises:
            KafkaRejected: Kafka's classes threw on the input.
            OracleTimeout: No answer within ``timeout_s`` (the JVM is restarted).
            OracleError: The JVM died or answered garbage.
        """
        if self._process is None:
            self.start()
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        line = json.dumps(payload, separators=(",", ":")).encode("ascii") + b"\n"
        try:
            process.stdin.write(line)
            process.stdin.flush()
        except BrokenPipeError as exc:
            raise self._died("the oracle JVM closed its input") from exc
        answer = self._read_line(process, time.monotonic() + self.timeout_s, payload)
        self.requests += 1
        reply = json.loads(answer)
        if not reply.get("ok"):
            raise KafkaRejected(reply.get("error", "no error message"))
        return dict(reply)

    def _read_line(
        self, process: subprocess.Popen[bytes], deadline: float, payload: Mapping[str, Any]
    ) -> bytes:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        while (end := self._buffer.find(b"\n")) < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                raise OracleTimeout(
                    f"Kafka's classes gave no answer within {self.timeout_s:.0f} s to "
                    f"{json.dumps(payload)[:2000]}\n{self.log_tail()}"
                )
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise self._died("the oracle JVM exited")
                self._buffer += chunk
        answer = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return answer

    def _died(self, what: str) -> OracleError:
        self.close()
        return OracleError(f"{what}; its log ({self.log_path}) ends with:\n{self.log_tail()}")

    # -- typed requests --------------------------------------------------------------

    def assign(
        self,
        strategy: str,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Iterable[str]],
        previous: Mapping[str, Iterable[tuple[str, int]]] | None = None,
        *,
        generations: Mapping[str, int] | None = None,
        group_instance_ids: Mapping[str, str] | None = None,
    ) -> JavaAssignment:
        """Kafka's assignment of the same input ``planner.assignors.assign`` takes.

        Members are listed in ``subscriptions``' order (Kafka's leader fills a HashMap in
        the JoinGroup response's order). A member with an entry in ``previous`` was in the
        last generation (1, or ``generations[member]``) and owned those partitions; any
        other member is new (no generation, nothing owned). Members only in ``previous``
        left the group and are not sent.

        Raises:
            KafkaRejected: Kafka's assignor threw.
        """
        members: list[dict[str, Any]] = []
        for member_id, topics in subscriptions.items():
            member: dict[str, Any] = {"id": member_id, "topics": list(topics)}
            if previous is not None and member_id in previous:
                member["owned"] = [[t, p] for t, p in previous[member_id]]
                if generations is not None and member_id in generations:
                    member["generation"] = generations[member_id]
            if group_instance_ids is not None and member_id in group_instance_ids:
                member["instance"] = group_instance_ids[member_id]
            members.append(member)
        reply = self.request(
            {
                "op": "assign",
                "strategy": strategy,
                "topics": dict(partitions_per_topic),
                "members": members,
            }
        )
        assignment = {m: [(t, p) for t, p in tps] for m, tps in reply["assignment"].items()}
        return JavaAssignment(assignment, reply.get("general"))

    def rack_assign(
        self,
        strategy: str,
        replica_racks: Mapping[str, Sequence[Sequence[str | None]]],
        subscriptions: Mapping[str, Iterable[str]],
        member_racks: Mapping[str, str],
        previous: Mapping[str, Iterable[tuple[str, int]]] | None = None,
    ) -> JavaAssignment:
        """Kafka's assignment with racks (KIP-881), as :meth:`assign` but for its inputs.

        Args:
            strategy: A classic strategy name.
            replica_racks: Topic -> per partition, the racks of its replicas (the leader
                first; None for a broker without ``broker.rack``). The partition count is
                the list's length.
            subscriptions: Member id -> topics, in JoinGroup order.
            member_racks: Member id -> ``client.rack`` (absent: none).
            previous: Member id -> partitions owned in generation 1 (absent: a new member).

        Raises:
            KafkaRejected: Kafka's assignor threw.
        """
        members: list[dict[str, Any]] = []
        for member_id, topics in subscriptions.items():
            member: dict[str, Any] = {"id": member_id, "topics": list(topics)}
            if member_id in member_racks:
                member["rack"] = member_racks[member_id]
            if previous is not None and member_id in previous:
                member["owned"] = [[t, p] for t, p in previous[member_id]]
            members.append(member)
        topics = {t: [list(r) for r in per_partition] for t, per_partition in replica_racks.items()}
        reply = self.request(
            {"op": "rack_assign", "strategy": strategy, "topics": topics, "members": members}
        )
        assignment = {m: [(t, p) for t, p in tps] for m, tps in reply["assignment"].items()}
        return JavaAssignment(assignment, reply.get("general"))

    def server_assign(
        self,
        assignor: str,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Iterable[str]],
        previous: Mapping[str, Iterable[tuple[str, int]]] | None = None,
        *,
        topic_ids: Mapping[str, str],
        instance_ids: Mapping[str, str] | None = None,
        heartbeat: bool = False,
    ) -> dict[str, TopicPartitions]:
        """The broker-side assignor's (``uniform``, ``range``, ``simple``) result.

        Members are sent in ``subscriptions``' order, each with its topics in the order
        given and its previous target assignment, grouped by topic in order of first
        appearance. Kafka's member classes build each member's set of topic names: from the
        list as a heartbeat carries it with ``heartbeat``, else replayed from the member's
        subscription record (the coordinator's state between heartbeats, which
        ``planner.assignors`` assumes). Members missing from the answer got nothing
        (Kafka's empty assignment).
        """
        reply = self.request(
            self._server_group(
                "server_assign",
                assignor,
                partitions_per_topic,
                subscriptions,
                previous,
                topic_ids=topic_ids,
                instance_ids=instance_ids,
                heartbeat=heartbeat,
            )
        )
        out = {m: [] for m in subscriptions}
        out.update({m: sorted((t, p) for t, p in tps) for m, tps in reply["assignment"].items()})
        return out

    def server_topics(
        self,
        assignor: str,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Iterable[str]],
        *,
        topic_ids: Mapping[str, str],
        heartbeat: bool = False,
    ) -> dict[str, list[str]]:
        """Each member's existing topics in the order Kafka's ``TopicIds`` hands them to
        the assignors (the member's set built as for :meth:`server_assign`)."""
        reply = self.request(
            self._server_group(
                "server_topics",
                assignor,
                partitions_per_topic,
                subscriptions,
                None,
                topic_ids=topic_ids,
                instance_ids=None,
                heartbeat=heartbeat,
            )
        )
        return {m: list(ts) for m, ts in reply["topics"].items()}

    @staticmethod
    def _server_group(
        op: str,
        assignor: str,
        partitions_per_topic: Mapping[str, int],
        subscriptions: Mapping[str, Iterable[str]],
        previous: Mapping[str, Iterable[tuple[str, int]]] | None,
        *,
        topic_ids: Mapping[str, str],
        instance_ids: Mapping[str, str] | None,
        heartbeat: bool,
    ) -> dict[str, Any]:
        members: list[dict[str, Any]] = []
        for member_id, topics in subscriptions.items():
            member: dict[str, Any] = {"id": member_id, "topics": list(dict.fromkeys(topics))}
            grouped: dict[str, list[int]] = {}
            for t, p in (previous or {}).get(member_id, []):
                if 0 <= p < partitions_per_topic.get(t, 0) and p not in grouped.setdefault(t, []):
                    grouped[t].append(p)
            member["target"] = [[t, ps] for t, ps in grouped.items() if ps]
            if instance_ids and member_id in instance_ids:
                member["instance"] = instance_ids[member_id]
            members.append(member)
        topics = {
            t: {"id": topic_ids[t], "partitions": n}
            for t, n in partitions_per_topic.items()
            if n > 0
        }
        return {
            "op": op,
            "assignor": assignor,
            "topics": topics,
            "members": members,
            "heartbeat": heartbeat,
        }

    def server_bench(
        self,
        assignor: str,
        partition_counts: Sequence[int],
        *,
        scenario: str = "fresh",
        warmup: int = 3,
        repeat: int = 5,
    ) -> tuple[float, int]:
        """Best time in seconds of the benchmark grid on the broker's assignor, and its size."""
        reply = self.request(
            {
                "op": "server_bench",
                "assignor": assignor,
                "partitionCounts": list(partition_counts),
                "scenario": scenario,
                "warmup": warmup,
                "repeat": repeat,
            }
        )
        return float(reply["seconds"]), int(reply["assignments"])

    def murmur2(
        self, keys: Sequence[bytes], partition_counts: Sequence[int]
    ) -> tuple[list[int], list[list[int]]]:
        """``Utils.murmur2`` of each key, and the producer's partition for each count."""
        reply = self.request(
            {
                "op": "murmur2",
                "keys": [base64.b64encode(k).decode("ascii") for k in keys],
                "partitions": list(partition_counts),
            }
        )
        return list(reply["hashes"]), [list(row) for row in reply["partitions"]]

    def string_map_order(self, strings: Sequence[str]) -> list[str]:
        """Iteration order of a ``HashMap<String, ?>`` filled with ``strings`` in order."""
        return list(self.request({"op": "hash_order", "strings": list(strings)})["order"])

    def partition_set_order(self, steps: Sequence[tuple[str, str, int]]) -> TopicPartitions:
        """Iteration order of a ``HashSet<TopicPartition>`` after ``(op, t, p)`` steps.

        ``op`` is ``"add"`` or ``"remove"``.
        """
        reply = self.request({"op": "hash_order", "partitions": [list(s) for s in steps]})
        return [(t, p) for t, p in reply["order"]]

    def int_map_order(self, steps: Sequence[tuple[str, int]], *, capacity: int) -> list[int]:
        """Iteration order of ``new HashMap<Integer, ?>(capacity)`` after ``(op, n)`` steps.

        ``op`` is ``"put"``, ``"compute"`` (``computeIfAbsent``) or ``"remove"``.
        """
        reply = self.request(
            {"op": "hash_order", "ints": [list(s) for s in steps], "capacity": capacity}
        )
        return [int(n) for n in reply["order"]]

    def bench(
        self,
        strategy: str,
        partition_counts: Sequence[int],
        *,
        scenario: str = "fresh",
        warmup: int = 3,
        repeat: int = 5,
    ) -> tuple[float, int]:
        """Best time in seconds of the benchmark grid inside the JVM, and its size.

        Args:
            strategy: The assignor.
            partition_counts: The grid's partition counts (every group size 1..P each).
            scenario: ``"fresh"`` (nobody owns anything) or ``"grow"`` (a settled group
                of C members, one member joins).
            warmup: Untimed rounds first, for the JIT.
            repeat: Timed rounds; the best counts.
        """
        reply = self.request(
            {
                "op": "bench",
                "strategy": strategy,
                "partitionCounts": list(partition_counts),
                "scenario": scenario,
                "warmup": warmup,
                "repeat": repeat,
            }
        )
        return float(reply["seconds"]), int(reply["assignments"])


@contextlib.contextmanager
def running_oracle(
    kafka: KafkaDistribution,
    folder: Path,
    *,
    timeout_s: float = 60.0,
    jvm_options: Sequence[str] = TEST_JVM_OPTIONS,
) -> Iterator[JavaOracle]:
    """A started :class:`JavaOracle`, closed on exit."""
    oracle = JavaOracle(kafka, folder, timeout_s=timeout_s, jvm_options=jvm_options)
    oracle.start()
    try:
        yield oracle
    finally:
        oracle.close()
