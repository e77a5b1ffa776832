"""Kafka's perf tools and topic/group tools, run as processes against one cluster.

`partition-planner measure` drives these. Each tool is a main class of Kafka's
`kafka-tools` jar, run as ``java -cp '<home>/libs/*' <class>``
(:meth:`KafkaDistribution.java_command`), which is what Kafka's ``bin/*.sh`` scripts do,
with the heap those scripts ask for:

- ``kafka-producer-perf-test.sh``: ``org.apache.kafka.tools.ProducerPerformance``, 512 MiB;
- ``kafka-consumer-perf-test.sh``: ``org.apache.kafka.tools.ConsumerPerformance``, 512 MiB;
- ``kafka-share-consumer-perf-test.sh``: ``org.apache.kafka.tools.ShareConsumerPerformance``,
  512 MiB;
- ``kafka-topics.sh``: ``org.apache.kafka.tools.TopicCommand``, 256 MiB;
- ``kafka-consumer-groups.sh``:
  ``org.apache.kafka.tools.consumer.group.ConsumerGroupCommand``, 256 MiB;
- ``kafka-share-groups.sh``: ``org.apache.kafka.tools.consumer.group.ShareGroupCommand``,
  256 MiB;
- ``kafka-configs.sh``: ``org.apache.kafka.tools.ConfigCommand``, 256 MiB.

The options are those of Kafka 4.2 and later: KIP-1147 renamed the consumer tool's
``--messages`` to ``--num-records`` and both perf tools' ``--producer.config`` /
``--consumer.config`` to ``--command-config``, and gave the producer tool
``--bootstrap-server``. Older tools are refused (:func:`check_version`) rather than
driven with guessed options.

Security settings come from one Java properties file (``--command-config``), given to
every tool as it is. The topic and group tools get it with two admin timeouts put in
front (a later key wins in a properties file, so the user's own values still do), so
that a cluster that accepts connections but never answers fails in seconds, not after
the admin client's default minute.

Share groups (KIP-932) need two things the other tools do not. A new share group starts
at the latest offset, so a measurement over records written beforehand first sets the
group's `share.auto.offset.reset` to `earliest` with the configs tool; in Kafka 4.4.0 that
dynamic group config outlives the group's deletion, so the clean-up removes it as well.
And 4.4.0's share perf tool waits for its consumer threads only `--timeout` ms (plus
100) in all, then interrupts them and exits 1: its `--timeout` is a deadline for the whole
run, not only the longest wait for records, so callers give it the whole run's budget.
"""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.adapters.kafka_dist import KafkaDistribution

__all__ = [
    "MIN_VERSION",
    "ClusterUnreachable",
    "KafkaTools",
    "ToolFailed",
    "ToolRun",
    "TopicNotFound",
    "check_version",
    "parse_bootstrap",
    "reachable",
]

PRODUCER_MAIN = "org.apache.kafka.tools.ProducerPerformance"
CONSUMER_MAIN = "org.apache.kafka.tools.ConsumerPerformance"
TOPICS_MAIN = "org.apache.kafka.tools.TopicCommand"
GROUPS_MAIN = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
SHARE_CONSUMER_MAIN = "org.apache.kafka.tools.ShareConsumerPerformance"
SHARE_GROUPS_MAIN = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
CONFIGS_MAIN = "org.apache.kafka.tools.ConfigCommand"

#: The oldest Kafka whose tools take the options used here (KIP-1147).
MIN_VERSION = (4, 2)
PERF_HEAP_MB = 512
ADMIN_HEAP_MB = 256
#: Admin timeouts put before the user's settings: a request, and a whole admin call.
ADMIN_TIMEOUTS = {"request.timeout.ms": "10000", "default.api.timeout.ms": "30000"}
#: An admin tool's process gets this long before it is stopped.
ADMIN_PROCESS_TIMEOUT_S = 120.0
_STOP_GRACE_S = 10.0

_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>\d{1,5})")
_VERSION = re.compile(r"(?P<major>\d+)\.(?P<minor>\d+)")
_TOPIC_ERROR = re.compile(r"Error while executing topic command\s*:\s*(?P<message>.+)")
_PARTITION_COUNT = re.compile(r"\bPartitionCount:\s*(?P<count>\d+)")
_GROUP_ERROR = re.compile(r"could not be deleted due to:\s*(?P<message>.+)")
# The configs tool prints the broker's refusal inside a Java exception's text.
_CONFIG_ERROR = re.compile(
    r"(?:InvalidConfigurationException|InvalidRequestException):\s*(?P<message>.+)"
)
# Lines on a tool's stderr that are not its error: log4j's own status lines, a stack
# frame, an exception's "Caused by".
_NOISE = re.compile(r"^(\s+at |Caused by:|\S+Z main (ERROR|WARN) |SLF4J|\.\.\. \d+ more)")


class ToolFailed(RuntimeError):
    """A tool exited with an error, or ran past its time; the message is one line."""


class TopicNotFound(ToolFailed):
    """The named topic does not exist on the cluster."""


class ClusterUnreachable(ToolFailed):
    """None of the bootstrap servers accepts a TCP connection."""


@dataclass(frozen=True)
class ToolRun:
    """One finished tool process.

    Attributes:
        command: The argument list it ran with.
        returncode: Its exit code.
        stdout: Everything it printed on standard output.
        stderr: Everything it printed on standard error.
        seconds: Wall-clock time it took, in seconds.
    """

    command: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def error(self) -> str:
        """The tool's own one-line account of what went wrong (or its exit code)."""
        for pattern in (_TOPIC_ERROR, _GROUP_ERROR, _CONFIG_ERROR):
            for line in (self.stdout + "\n" + self.stderr).splitlines():
                if match := pattern.search(line):
                    return match["message"].strip()[:300]
        for line in self.stderr.splitlines():
            if line.strip() and not _NOISE.match(line):
                return line.strip()[:300]
        return f"exit code {self.returncode}"


def parse_bootstrap(text: str) -> tuple[tuple[str, int], ...]:
    """``HOST:PORT[,HOST:PORT...]`` as (host, port) pairs (an IPv6 host in brackets).

    Raises:
        ValueError: A part is not ``HOST:PORT`` or a port is out of range; the message
            names the part.
    """
    servers = []
    for part in text.split(","):
        part = part.strip()
        match = _HOST_PORT.fullmatch(part)
        if match is None:
            raise ValueError(f"expected HOST:PORT[,HOST:PORT...], got {part!r}")
        port = int(match["port"])
        if not 1 <= port <= 65535:
            raise ValueError(f"port {port} of {part!r} is not between 1 and 65535")
        servers.append((match["host"].strip("[]"), port))
    return tuple(servers)


def reachable(servers: Sequence[tuple[str, int]], *, timeout_s: float = 5.0) -> str | None:
    """Why no server in ``servers`` accepts a TCP connection, or None when one does.

    A Kafka client given an unreachable bootstrap retries for a minute or more; this
    answers within ``timeout_s`` per server.
    """
    problems = []
    for host, port in servers:
        try:
            socket.create_connection((host, port), timeout=timeout_s).close()
        except OSError as exc:
            problems.append(f"{host}:{port}: {exc.strerror or exc}")
        else:
            return None
    return "; ".join(problems)


def check_version(distribution: KafkaDistribution) -> str | None:
    """Why ``distribution``'s tools cannot be driven here, or None when they can."""
    match = _VERSION.match(distribution.version)
    if match and (int(match["major"]), int(match["minor"])) >= MIN_VERSION:
        return None
    oldest = ".".join(map(str, MIN_VERSION))
    return (
        f"Apache Kafka {distribution.version} in {distribution.home} is older than {oldest}: "
        f"its perf tools take other options (KIP-1147); give --kafka-home with Kafka "
        f"{oldest} or later"
    )


@dataclass(frozen=True)
class KafkaTools:
    """The tools of one Kafka installation, pointed at one cluster.

    Attributes:
        distribution: Where the tools' jars are.
        bootstrap: ``HOST:PORT[,...]`` of the cluster.
        command_config: A Java properties file with the clients' settings (security,
            and for the producer ``acks``, ``compression.type`` ...), or None.
        scratch: A private folder for the admin tools' properties file.
        echo: Called with each line the perf tools print, as it comes; None: silent.
    """

    distribution: KafkaDistribution
    bootstrap: str
    command_config: Path | None
    scratch: Path
    echo: Callable[[str], None] | None = None

    # -- topics and groups -----------------------------------------------------------

    def create_topic(self, topic: str, *, replication_factor: int | None) -> ToolRun:
        """Create ``topic`` with one partition.

        Args:
            topic: Its name.
            replication_factor: Replicas per partition; None leaves it to the cluster's
                ``default.replication.factor``.

        Raises:
            ToolFailed: The cluster refused (the message is the tool's, e.g. a
                replication factor above the brokers) or did not answer.
        """
        args = ["--create", "--topic", topic, "--partitions", "1"]
        if replication_factor is not None:
            args += ["--replication-factor", str(replication_factor)]
        done = self._admin(TOPICS_MAIN, args)
        if done.returncode != 0:
            raise ToolFailed(f"kafka-topics --create {topic}: {done.error()}")
        return done

    def partition_count(self, topic: str) -> int:
        """How many partitions ``topic`` has.

        Raises:
            TopicNotFound: It does not exist.
            ToolFailed: The tool failed otherwise.
        """
        done = self._admin(TOPICS_MAIN, ["--describe", "--topic", topic])
        if done.returncode != 0:
            error = done.error()
            if "does not exist" in error:
                raise TopicNotFound(f"topic {topic!r} does not exist on {self.bootstrap}")
            raise ToolFailed(f"kafka-topics --describe {topic}: {error}")
        match = _PARTITION_COUNT.search(done.stdout)
        if match is None:
            raise ToolFailed(f"kafka-topics --describe {topic}: no PartitionCount in its output")
        return int(match["count"])

    def delete_topic(self, topic: str) -> bool:
        """Delete ``topic``; False when there was no such topic.

        Raises:
            ToolFailed: The tool failed.
        """
        done = self._admin(TOPICS_MAIN, ["--delete", "--topic", topic])
        if done.returncode == 0:
            return True
        if "does not exist" in done.error():
            return False
        raise ToolFailed(f"kafka-topics --delete {topic}: {done.error()}")

    def delete_group(self, group: str, *, attempts: int = 5) -> bool:
        """Delete the consumer group ``group``; False when there was no such group.

        The tool exits 0 even when a deletion fails, so its output decides. A group whose
        last member is still leaving is not empty yet: that is retried.

        Raises:
            ToolFailed: The group could not be deleted.
        """
        return self._delete_group(
            GROUPS_MAIN, "kafka-consumer-groups", group, attempts=attempts, within_s=None
        )

    def delete_share_group(self, group: str, *, within_s: float = 60.0) -> bool:
        """Delete the share group ``group``; False when there was no such share group.

        A share consumer that did not close (its tool was stopped) stays a member until
        the broker's ``group.share.session.timeout.ms`` (45 s by default) expires it, so
        a non-empty group is retried for ``within_s`` seconds.

        Raises:
            ToolFailed: The group could not be deleted.
        """
        return self._delete_group(
            SHARE_GROUPS_MAIN, "kafka-share-groups", group, attempts=None, within_s=within_s
        )

    def _delete_group(
        self,
        main_class: str,
        tool: str,
        group: str,
        *,
        attempts: int | None,
        within_s: float | None,
    ) -> bool:
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            done = self._admin(main_class, ["--delete", "--group", group])
            text = done.stdout + done.stderr
            if "was successful" in text:
                return True
            if "GroupIdNotFoundException" in text:
                return False
            last = (attempts is not None and attempt >= attempts) or (
                within_s is not None and time.monotonic() - started >= within_s
            )
            if "GroupNotEmptyException" not in text or last:
                raise ToolFailed(f"{tool} --delete {group}: {done.error()}")
            time.sleep(1.0)

    def set_group_config(self, group: str, config: Mapping[str, str]) -> ToolRun:
        """Set dynamic group configs of ``group`` (it need not exist yet).

        Raises:
            ToolFailed: The cluster refused a key or value (the message is the broker's).
        """
        pairs = ",".join(f"{key}={value}" for key, value in config.items())
        args = ["--alter", "--entity-type", "groups", "--entity-name", group]
        done = self._admin(CONFIGS_MAIN, [*args, "--add-config", pairs])
        if done.returncode != 0:
            raise ToolFailed(f"kafka-configs --alter group {group}: {done.error()}")
        return done

    def delete_group_config(self, group: str, keys: Sequence[str]) -> bool:
        """Remove the dynamic group configs ``keys`` of ``group`` (Kafka 4.4.0 accepts
        keys that are not set, so this always returns True on success).

        Raises:
            ToolFailed: The tool failed.
        """
        args = ["--alter", "--entity-type", "groups", "--entity-name", group]
        done = self._admin(CONFIGS_MAIN, [*args, "--delete-config", ",".join(keys)])
        if done.returncode != 0:
            raise ToolFailed(f"kafka-configs --delete-config group {group}: {done.error()}")
        return True

    # -- the perf tools ----------------------------------------------------------------

    def produce(
        self, topic: str, *, records: int, record_bytes: int, warmup_records: int
    ) -> ToolRun:
        """Run the producer perf tool unthrottled; its exit code is not judged here.

        Args:
            topic: The topic to write to.
            records: Records to send.
            record_bytes: Size of each record's value, bytes (no key).
            warmup_records: Records left out of the steady-state summary (KIP-1052).
        """
        args = [
            "--bootstrap-server",
            self.bootstrap,
            "--topic",
            topic,
            "--num-records",
            str(records),
            "--record-size",
            str(record_bytes),
            "--throughput",
            "-1",
            "--warmup-records",
            str(warmup_records),
            *self._config_args(self.command_config),
        ]
        return self._perf(PRODUCER_MAIN, args)

    def consume(self, topic: str, *, records: int, group: str, timeout_ms: int) -> ToolRun:
        """Run the consumer perf tool from the start of ``topic``; exit code not judged.

        Args:
            topic: The topic to read.
            records: Records to read before it stops.
            group: The consumer group id it joins.
            timeout_ms: How long it waits for the next records before it gives up, ms.
        """
        args = [*self._read_args(topic, records, group), "--timeout", str(timeout_ms)]
        return self._perf(CONSUMER_MAIN, args)

    def share_consume(
        self,
        topic: str,
        *,
        records: int,
        group: str,
        members: int,
        deadline_ms: int,
        reporting_interval_ms: int,
    ) -> ToolRun:
        """Run the share-consumer perf tool; its exit code is not judged here.

        It prints a row per member and reporting interval (``--show-detailed-stats``),
        one summary row per member (``--show-consumer-stats``) and the group's summary.

        Args:
            topic: The topic to read.
            records: Records to read, all members together, before it stops.
            group: The share group its members join.
            members: Share consumers in the group (the tool's ``--threads``), each with
                its own connection and thread.
            deadline_ms: The tool's ``--timeout``: in Kafka 4.4.0 the whole run must end
                within it (see the module docstring), ms.
            reporting_interval_ms: How often each member prints its progress, ms.
        """
        args = [
            *self._read_args(topic, records, group),
            "--threads",
            str(members),
            "--timeout",
            str(deadline_ms),
            "--show-detailed-stats",
            "--reporting-interval",
            str(reporting_interval_ms),
            "--show-consumer-stats",
        ]
        return self._perf(SHARE_CONSUMER_MAIN, args)

    # -- processes ---------------------------------------------------------------------

    def _config_args(self, path: Path | None) -> list[str]:
        return [] if path is None else ["--command-config", str(path)]

    def _read_args(self, topic: str, records: int, group: str) -> list[str]:
        """What both consumer perf tools take: where, what, how much, and as which group."""
        return [
            "--bootstrap-server",
            self.bootstrap,
            "--topic",
            topic,
            "--num-records",
            str(records),
            "--group",
            group,
            *self._config_args(self.command_config),
        ]

    def _admin_config(self) -> Path:
        path = self.scratch / "admin.properties"
        if not path.is_file():
            ours = "".join(f"{key}={value}\n" for key, value in ADMIN_TIMEOUTS.items())
            theirs = "" if self.command_config is None else self.command_config.read_text()
            path.write_text(ours + theirs + "\n")
        return path

    def _admin(self, main_class: str, args: Sequence[str]) -> ToolRun:
        command = self.distribution.java_command(
            main_class,
            ["--bootstrap-server", self.bootstrap, *args, *self._config_args(self._admin_config())],
            heap_mb=ADMIN_HEAP_MB,
        )
        return run_tool(command, timeout_s=ADMIN_PROCESS_TIMEOUT_S)

    def _perf(self, main_class: str, args: Sequence[str]) -> ToolRun:
        command = self.distribution.java_command(main_class, args, heap_mb=PERF_HEAP_MB)
        return run_tool(command, echo=self.echo)


def run_tool(
    command: Sequence[str],
    *,
    timeout_s: float | None = None,
    echo: Callable[[str], None] | None = None,
) -> ToolRun:
    """Run one tool, collecting its output and passing each stdout line to ``echo``.

    An interrupt (Ctrl-C, or SIGTERM turned into one by the caller) or the timeout
    stops the tool before it propagates: the tool is in our process group, so a Ctrl-C
    at the terminal reaches it too, but a signal sent to this process alone would not.

    Raises:
        ToolFailed: It ran past ``timeout_s``.
        KeyboardInterrupt: Interrupted; the tool has been stopped.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    stdout: list[str] = []
    stderr: list[str] = []
    with _reading(process, stdout, stderr, echo):
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _stop(process)
            raise ToolFailed(
                f"{_tool_name(command)} did not finish within {timeout_s:.0f} s"
            ) from None
        except BaseException:
            _stop(process)
            raise
    return ToolRun(
        command=tuple(command),
        returncode=process.returncode,
        stdout="".join(stdout),
        stderr="".join(stderr),
        seconds=time.monotonic() - started,
    )


@contextlib.contextmanager
def _reading(
    process: subprocess.Popen[str],
    stdout: list[str],
    stderr: list[str],
    echo: Callable[[str], None] | None,
) -> Iterator[None]:
    # One thread per pipe: a tool that fills one pipe while we read the other would block.
    def pump(stream: object, into: list[str], show: Callable[[str], None] | None) -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append(line)
            if show is not None:
                show(line.rstrip("\n"))

    threads = [
        threading.Thread(target=pump, args=(process.stdout, stdout, echo), daemon=True),
        threading.Thread(target=pump, args=(process.stderr, stderr, None), daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        for thread in threads:
            thread.join(timeout=_STOP_GRACE_S)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=_STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _tool_name(command: Sequence[str]) -> str:
    names = {
        PRODUCER_MAIN: "kafka-producer-perf-test",
        CONSUMER_MAIN: "kafka-consumer-perf-test",
        TOPICS_MAIN: "kafka-topics",
        GROUPS_MAIN: "kafka-consumer-groups",
        SHARE_CONSUMER_MAIN: "kafka-share-consumer-perf-test",
        SHARE_GROUPS_MAIN: "kafka-share-groups",
        CONFIGS_MAIN: "kafka-configs",
    }
    return next((names[part] for part in command if part in names), command[0])
