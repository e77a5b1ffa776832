"""The Java clients of the live tests: a consumer group harness and a keyed producer.

Both are small programs under ``tests/integration/java/``, compiled against the reference
Kafka's jars (``tests/support/java.py``) and run with the Kafka's own class path, so the
client is exactly Kafka 4.4.0's ``kafka-clients``. Each JVM gets a bounded heap and writes
its log to a file (the client's group coordination at INFO), shown when a test fails.
"""

from __future__ import annotations

import base64
import json
import queue
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from planner.adapters.kraft import KRaftCluster
from tests.support.java import compiled

JAVA_DIR = Path(__file__).parent / "java"
HEAP_MB = 192
_LOG_CONFIG = JAVA_DIR / "log4j2.properties"


def classes(kafka: KRaftCluster) -> Path:
    """The compiled Java programs of the live tests (compiled once, cached by source hash)."""
    return compiled("integration", sorted(JAVA_DIR.glob("*.java")), kafka.distribution)


def _command(kafka: KRaftCluster, main: str, args: Sequence[str], log: Path) -> list[str]:
    return kafka.distribution.java_command(
        main,
        args,
        heap_mb=HEAP_MB,
        # A short-lived client JVM: no JIT tiers beyond C1, one GC thread; starts faster.
        jvm_options=["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"],
        system_properties={"log4j2.configurationFile": str(_LOG_CONFIG), "live.log": str(log)},
        extra_classpath=[classes(kafka)],
    )


def thread_dump(pid: int) -> str:
    """A JVM's threads and where each one is (``jcmd <pid> Thread.print``), for a hang."""
    try:
        done = subprocess.run(
            ["jcmd", str(pid), "Thread.print"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"(no thread dump: {error})"
    return done.stdout[-20000:] or done.stderr


def _tail(path: Path, lines: int = 60) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"


class JavaHarness:
    """One JVM of a test harness (``tests/integration/java/*.java``): JSON commands in, a
    line each on stdin, and one JSON answer a line on stdout (``{"ok": ...}``).

    Args:
        kafka: The broker.
        main: The harness's main class.
        args: Its arguments.
        name: Names its log files in ``folder``.
        folder: Where the JVM writes its log and its stderr.
    """

    def __init__(
        self, kafka: KRaftCluster, main: str, args: Sequence[str], name: str, folder: Path
    ) -> None:
        self.main = main
        self.log = folder / f"{name}.log"
        self._stderr = (folder / f"{name}.stderr").open("wb")
        self._process = subprocess.Popen(
            _command(kafka, main, args, self.log),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self._replies: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._replies.put(line)
        self._replies.put(b"")  # the program ended

    def ask(self, command: Mapping[str, Any], timeout_s: float = 30) -> dict[str, Any]:
        """Send one command and wait for its answer; an error or no answer fails the test
        with the JVM's threads and log."""
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(command).encode() + b"\n")
        self._process.stdin.flush()
        try:
            line = self._replies.get(timeout=timeout_s)
        except queue.Empty:
            raise AssertionError(
                f"{self.main} gave no answer to {command} in {timeout_s} s; its threads:\n"
                f"{thread_dump(self._process.pid)}\n{self.log_tail()}"
            ) from None
        if not line:
            raise AssertionError(f"{self.main} exited on {command}\n{self.log_tail()}")
        reply: dict[str, Any] = json.loads(line)
        if not reply.get("ok"):
            raise AssertionError(f"{self.main}: {reply.get('error')}\n{self.log_tail()}")
        return reply

    def log_tail(self, lines: int = 60) -> str:
        return f"--- {self.log} ---\n{_tail(self.log, lines)}"

    def close(self) -> None:
        """Ask the JVM to quit (members leave cleanly), kill it if it does not."""
        try:
            if self._process.poll() is None:
                self.ask({"op": "quit"}, timeout_s=60)
        except (AssertionError, OSError):
            pass
        finally:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait(timeout=10)
            self._stderr.close()


class JavaGroup(JavaHarness):
    """Java ``KafkaConsumer``s of one classic group, run by ``LiveGroup.java`` in one JVM.

    Args:
        kafka: The broker.
        strategy: The ``partition.assignment.strategy`` by its protocol name.
        group_id: The group's id.
        folder: Where the JVM writes its log.
    """

    def __init__(self, kafka: KRaftCluster, strategy: str, group_id: str, folder: Path) -> None:
        self.strategy = strategy
        self.group_id = group_id
        super().__init__(
            kafka, "LiveGroup", [kafka.bootstrap, group_id, strategy], group_id, folder
        )

    def join(self, name: str, topics: Sequence[str]) -> None:
        """Start a member whose ``client.id`` is ``name``, subscribed to ``topics``."""
        self.ask({"op": "join", "name": name, "topics": list(topics)}, timeout_s=10)

    def leave(self, name: str) -> None:
        """Close the member (it leaves the group); returns once ``close()`` returned."""
        self.ask({"op": "leave", "name": name}, timeout_s=40)

    def settle(self, partitions: int, *, quiet_s: float, timeout_s: float) -> dict[str, Any]:
        """Wait until the group has settled on all ``partitions``; LiveGroup's report."""
        return self.ask(
            {
                "op": "settle",
                "partitions": partitions,
                "quiet_ms": int(quiet_s * 1000),
                "timeout_ms": int(timeout_s * 1000),
            },
            timeout_s=timeout_s + 15,
        )


def produce_with_java(
    kafka: KRaftCluster,
    records: Sequence[tuple[str, bytes | str | None, int]],
    *,
    log: Path,
    timeout_s: float = 300,
) -> list[int]:
    """Send ``(topic, key, value_bytes)`` records from one Java ``KafkaProducer``, in order.

    A ``bytes`` key goes through ``ByteArraySerializer``, a ``str`` key through
    ``StringSerializer`` (UTF-8), ``None`` is a keyless record; the value is
    ``value_bytes`` zero bytes. The producer keeps Kafka's default partitioning.

    Returns:
        The partition each send's ``RecordMetadata`` reported, in order.
    """

    def key(value: bytes | str | None) -> dict[str, str] | None:
        if value is None:
            return None
        if isinstance(value, str):
            return {"text": value}
        return {"bytes": base64.b64encode(value).decode()}

    document = {
        "records": [
            {"topic": topic, "key": key(k), "value_bytes": size} for topic, k, size in records
        ],
    }
    started = time.monotonic()
    process = subprocess.Popen(
        _command(kafka, "KeyedProducer", [kafka.bootstrap], log),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        stdout, stderr = process.communicate(json.dumps(document).encode(), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        threads = thread_dump(process.pid)
        process.kill()
        process.communicate()
        raise AssertionError(
            f"KeyedProducer still running after {timeout_s} s; its threads:\n{threads}\n"
            f"{_tail(log)}\nbroker:\n{kafka.log_tail(30)}"
        ) from None
    if process.returncode != 0:
        raise AssertionError(
            f"KeyedProducer failed ({process.returncode}) after "
            f"{time.monotonic() - started:.1f} s:\n{stderr.decode(errors='replace')}\n{_tail(log)}"
        )
    partitions: list[int] = json.loads(stdout)["partitions"]
    return partitions
