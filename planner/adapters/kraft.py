"""A local Apache Kafka in KRaft mode: one combined node, or a small cluster with racks.

Used by the tests (the reference Kafka for everything the planner claims about Kafka) and
by ``make kafka`` (a broker on 127.0.0.1 to try the collectors on). Every node is a
combined broker and controller (``process.roles=broker,controller``); the controllers
form a static quorum (``controller.quorum.voters``), so a three-node cluster keeps
working, and keeps answering metadata requests, with one node stopped.

The settings are Kafka's defaults except where a one-machine trial needs otherwise: the
internal topics' replication factors follow the node count, the first rebalance is not
delayed, and the heap is bounded (Kafka's start script asks for 1 GiB per broker).

Run as a program for ``make kafka``::

    python -m planner.adapters.kraft start --dir var/kafka-broker --port 9092 [--jmx-port 7071]
    python -m planner.adapters.kraft stop --dir var/kafka-broker

``--jmx-port`` starts the broker with the Prometheus JMX exporter's Java agent (installed
beside the jars, ``agents/``) and the repository's rules
(``deploy/jmx-exporter/kafka-broker.yml``), serving ``/metrics`` on 127.0.0.1 only, like
the broker itself.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from planner.adapters.kafka_dist import PROJECT_ROOT, KafkaDistribution, KafkaNotFound, find

__all__ = ["KRaftCluster", "KRaftNode", "NodeNotReady", "free_port"]

HOST = "127.0.0.1"
DEFAULT_HEAP_MB = 512
#: What Kafka's `kafka-server-start.sh` gives a broker (G1), less its heap and logging.
DEFAULT_JVM_OPTIONS = ("-XX:+UseG1GC",)
_BROKER_MAIN = "kafka.Kafka"
#: The JMX exporter agent's Maven artifact (``agents/<artifact>-<version>.jar``).
JMX_AGENT = "jmx_prometheus_javaagent"
#: The exporter rules the compose deployment and the tests' brokers load.
JMX_RULES = PROJECT_ROOT / "deploy" / "jmx-exporter" / "kafka-broker.yml"
#: Where ``make kafka`` keeps the broker's data and log unless KAFKA_DIR says otherwise.
DEFAULT_BROKER_DIR = Path("var/kafka-broker")
_STORAGE_MAIN = "kafka.tools.StorageTool"
_LOG_CONFIG = """\
Configuration:
  Appenders:
    File:
      name: file
      fileName: "{log}"
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: INFO
      AppenderRef:
        - ref: file
    Logger:
      - name: kafka.request.logger
        level: WARN
      - name: org.apache.kafka.controller
        level: INFO
"""


class NodeNotReady(RuntimeError):
    """A node did not come up (or exited); the message ends with its log's last lines."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@dataclass
class KRaftNode:
    """One combined broker-controller node and its process."""

    node_id: int
    port: int
    controller_port: int
    rack: str | None
    folder: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def bootstrap(self) -> str:
        return f"{HOST}:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.folder / "server.log"

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the node's log (and of its stdout/stderr, where the JVM writes)."""
        parts = []
        for path in (self.log_path, self.folder / "stdout.log"):
            try:
                text = path.read_text(errors="replace").splitlines()[-lines:]
            except OSError:
                continue
            parts.append(f"--- {path} ---\n" + "\n".join(text))
        return "\n".join(parts)


class KRaftCluster:
    """One or more local KRaft nodes, formatted on first start, stopped on exit.

    Args:
        distribution: The Kafka to run.
        folder: Where each node keeps its configuration, data and log (``node-<id>/``).
        nodes: How many combined nodes (1 for a single node, 3 for a replicated cluster).
        racks: ``broker.rack`` of each node, or None for no racks.
        ports: Client port of each node; free ports are picked when None.
        heap_mb: Maximum heap of each node, MiB.
        properties: More broker settings (they win over the ones written here).
        jvm_options: Per node id, more JVM options (a ``-javaagent``, say).
        base_jvm_options: JVM options of every node, before the per-node ones: Kafka's
            own start script's collector by default; the tests trade peak speed for less
            CPU (`tests/support/kafka.py`).
        die_with_parent: Have Linux kill the nodes if this process dies first (tests);
            off for a broker that must outlive the command that started it.
    """

    def __init__(
        self,
        distribution: KafkaDistribution,
        folder: Path,
        *,
        nodes: int = 1,
        racks: Sequence[str] | None = None,
        ports: Sequence[int] | None = None,
        heap_mb: int = DEFAULT_HEAP_MB,
        properties: Mapping[str, str] | None = None,
        jvm_options: Mapping[int, Sequence[str]] | None = None,
        base_jvm_options: Sequence[str] = DEFAULT_JVM_OPTIONS,
        die_with_parent: bool = True,
    ) -> None:
        if nodes < 1:
            raise ValueError(f"a cluster needs at least one node, got {nodes}")
        if racks is not None and len(racks) != nodes:
            raise ValueError(f"{len(racks)} racks given for {nodes} nodes")
        if ports is not None and len(ports) != nodes:
            raise ValueError(f"{len(ports)} ports given for {nodes} nodes")
        self.distribution = distribution
        self.folder = folder
        self.heap_mb = heap_mb
        self.properties = dict(properties or {})
        self.jvm_options = {k: list(v) for k, v in (jvm_options or {}).items()}
        self.base_jvm_options = list(base_jvm_options)
        self.die_with_parent = die_with_parent
        self.nodes = [
            KRaftNode(
                node_id=i + 1,
                port=ports[i] if ports is not None else free_port(),
                controller_port=free_port() if ports is None else ports[i] + 1,
                rack=None if racks is None else racks[i],
                folder=folder / f"node-{i + 1}",
            )
            for i in range(nodes)
        ]

    @property
    def bootstrap(self) -> str:
        """Every running node's ``host:port``, comma-separated, for a client's bootstrap."""
        return ",".join(n.bootstrap for n in self.nodes if n.running) or self.nodes[0].bootstrap

    @property
    def version(self) -> str:
        return self.distribution.version

    def node(self, node_id: int) -> KRaftNode:
        for node in self.nodes:
            if node.node_id == node_id:
                return node
        raise KeyError(f"no node {node_id}; nodes are {[n.node_id for n in self.nodes]}")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(n.log_tail(lines) for n in self.nodes)

    # -- configuration ---------------------------------------------------------------

    def _server_properties(self, node: KRaftNode) -> dict[str, str]:
        voters = ",".join(f"{n.node_id}@{HOST}:{n.controller_port}" for n in self.nodes)
        replicas = str(min(3, len(self.nodes)))
        props = {
            "process.roles": "broker,controller",
            "node.id": str(node.node_id),
            "controller.quorum.voters": voters,
            "listeners": f"PLAINTEXT://{HOST}:{node.port},CONTROLLER://{HOST}:{node.controller_port}",
            "advertised.listeners": f"PLAINTEXT://{HOST}:{node.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": str(node.data_dir),
            "offsets.topic.replication.factor": replicas,
            "transaction.state.log.replication.factor": replicas,
            "transaction.state.log.min.isr": str(min(2, len(self.nodes))),
            "share.coordinator.state.topic.replication.factor": replicas,
            "share.coordinator.state.topic.min.isr": str(min(2, len(self.nodes))),
            # A trial cluster's first group should not wait Kafka's 3 s for more members.
            "group.initial.rebalance.delay.ms": "0",
        }
        if node.rack is not None:
            props["broker.rack"] = node.rack
        props.update(self.properties)
        return props

    def _write_config(self, node: KRaftNode) -> Path:
        node.folder.mkdir(parents=True, exist_ok=True)
        path = node.folder / "server.properties"
        lines = [f"{k}={v}" for k, v in self._server_properties(node).items()]
        path.write_text("\n".join(lines) + "\n")
        (node.folder / "log4j2.yaml").write_text(_LOG_CONFIG.format(log=node.log_path))
        return path

    def _cluster_id(self) -> str:
        """The cluster id all nodes are formatted with, kept in the cluster's folder."""
        path = self.folder / "cluster.id"
        if path.is_file():
            return path.read_text().strip()
        # Kafka's ids are 16 random bytes in URL-safe base64 without padding (22 chars).
        import base64

        cluster_id = "-"
        # Like Kafka's Uuid.randomUuid, never one starting with "-": the storage tool's
        # `--cluster-id -x...` would read it as an option and fail (1 start in 64).
        while cluster_id.startswith("-"):
            cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        self.folder.mkdir(parents=True, exist_ok=True)
        path.write_text(cluster_id + "\n")
        return cluster_id

    def _format(self, node: KRaftNode, config: Path) -> None:
        if (node.data_dir / "meta.properties").is_file():
            return
        command = self.distribution.java_command(
            _STORAGE_MAIN,
            ["format", "--cluster-id", self._cluster_id(), "--config", str(config)],
            heap_mb=256,
            system_properties={"log4j2.configurationFile": str(node.folder / "log4j2.yaml")},
        )
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise NodeNotReady(
                f"formatting node {node.node_id} failed (exit {done.returncode}):\n"
                f"{done.stdout}\n{done.stderr}"
            )

    # -- processes -----------------------------------------------------------------------

    def start(self, timeout_s: float = 60.0) -> KRaftCluster:
        """Format the nodes that need it, start them all, wait until every one serves."""
        configs = [self._write_config(n) for n in self.nodes]
        for node, config in zip(self.nodes, configs, strict=True):
            self._format(node, config)
        for node, config in zip(self.nodes, configs, strict=True):
            self._spawn(node, config)
        self.wait_ready(timeout_s)
        return self

    def start_node(self, node_id: int, timeout_s: float = 60.0) -> None:
        """Start one stopped node again and wait until the cluster lists it."""
        node = self.node(node_id)
        if not node.running:
            self._spawn(node, self._write_config(node))
        self.wait_ready(timeout_s)

    def _spawn(self, node: KRaftNode, config: Path) -> None:
        command = self.distribution.java_command(
            _BROKER_MAIN,
            [str(config)],
            heap_mb=self.heap_mb,
            jvm_options=[*self.base_jvm_options, *self.jvm_options.get(node.node_id, [])],
            system_properties={"log4j2.configurationFile": str(node.folder / "log4j2.yaml")},
        )
        if self.die_with_parent:
            command = _with_parent_death_signal(command)
        out = (node.folder / "stdout.log").open("ab")
        try:
            node.process = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=not self.die_with_parent,
            )
        finally:
            out.close()
        (node.folder / "pid").write_text(f"{node.process.pid}\n")

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        """Wait until every running node accepts clients and the cluster lists them all.

        Raises:
            NodeNotReady: A node exited or the time ran out; names the node and shows its log.
        """
        deadline = time.monotonic() + timeout_s
        running = [n for n in self.nodes if n.running or n.process is not None]
        for node in running:
            while not _port_open(node.port):
                self._check_alive(node)
                if time.monotonic() > deadline:
                    raise NodeNotReady(
                        f"Kafka node {node.node_id} not listening on {node.bootstrap} after "
                        f"{timeout_s:.0f} s\n{node.log_tail()}"
                    )
                time.sleep(0.1)
        want = {n.node_id for n in running}
        last: object = None
        while time.monotonic() < deadline:
            for node in running:
                self._check_alive(node)
            try:
                listed = _broker_ids(self.bootstrap)
            except Exception as exc:  # still starting: the metadata request itself fails
                last = exc
            else:
                if want <= listed:
                    return
                last = f"brokers listed: {sorted(listed)}, want {sorted(want)}"
            time.sleep(0.2)
        raise NodeNotReady(
            f"Kafka cluster {self.bootstrap} not ready after {timeout_s:.0f} s ({last})\n"
            f"{self.log_tail()}"
        )

    def _check_alive(self, node: KRaftNode) -> None:
        if node.process is not None and node.process.poll() is not None:
            raise NodeNotReady(
                f"Kafka node {node.node_id} exited with code {node.process.returncode}\n"
                f"{node.log_tail()}"
            )

    def stop_node(self, node_id: int, *, timeout_s: float = 30.0) -> None:
        """Stop one node: a clean shutdown (SIGTERM), killed if it takes too long."""
        node = self.node(node_id)
        if node.process is not None:
            _terminate(node.process, timeout_s)
        node.process = None

    def stop(self, *, timeout_s: float = 30.0) -> None:
        """Stop every node (all at once: a node waiting for the others' votes would hang)."""
        for node in self.nodes:
            if node.running and node.process is not None:
                node.process.send_signal(signal.SIGTERM)
        for node in self.nodes:
            if node.process is not None:
                _terminate(node.process, timeout_s)
            node.process = None

    def __enter__(self) -> KRaftCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def running(
    folder: Path,
    *,
    distribution: KafkaDistribution | None = None,
    timeout_s: float = 60.0,
    **options: object,
) -> Iterator[KRaftCluster]:
    """Start a :class:`KRaftCluster` in ``folder``; stop it on exit, whatever happens."""
    cluster = KRaftCluster(distribution or find(), folder, **options)  # type: ignore[arg-type]
    try:
        cluster.start(timeout_s)
        yield cluster
    finally:
        cluster.stop()


def _port_open(port: int) -> bool:
    try:
        socket.create_connection((HOST, port), timeout=0.5).close()
    except OSError:
        return False
    return True


def _broker_ids(bootstrap: str) -> set[int]:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 2000, "log_level": 0})
    return set(admin.list_topics(timeout=2).brokers)


def _terminate(process: subprocess.Popen[bytes], timeout_s: float) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _with_parent_death_signal(command: list[str]) -> list[str]:
    """Have Linux kill the JVM when its parent dies (a test run killed with SIGKILL).

    util-linux's ``setpriv`` sets PR_SET_PDEATHSIG and execs the JVM in the same process,
    which is safer than a ``preexec_fn`` in a process that runs threads.
    """
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", *command] if setpriv else command


# -- `make kafka` / `make kafka-stop` -------------------------------------------------------


def _cli(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m planner.adapters.kraft",
        description="Start or stop a single-node Apache Kafka (KRaft) on 127.0.0.1.",
    )
    parser.add_argument("action", choices=["start", "stop"])
    # Defaults from the environment, so `make kafka KAFKA_DIR=... JMX_PORT=...` and a
    # direct run with the same variables exported behave alike.
    parser.add_argument(
        "--dir", type=Path, default=Path(os.environ.get("KAFKA_DIR") or DEFAULT_BROKER_DIR)
    )
    parser.add_argument("--port", type=int, default=int(os.environ.get("KAFKA_PORT") or 9092))
    parser.add_argument(
        "--jmx-port",
        type=int,
        default=int(os.environ["JMX_PORT"]) if os.environ.get("JMX_PORT") else None,
        help="serve the broker's JMX metrics for Prometheus on 127.0.0.1:PORT",
    )
    parser.add_argument("--jmx-rules", type=Path, default=JMX_RULES)
    parser.add_argument("--kafka-home", type=Path, default=None)
    args = parser.parse_args(argv)
    folder: Path = args.dir
    if args.action == "stop":
        return _stop(folder)
    return _start(folder, args.port, args.jmx_port, args.jmx_rules, args.kafka_home)


def _stop(folder: Path) -> int:
    pid_file = folder / "node-1" / "pid"
    pid = _live_pid(pid_file)
    if pid is None:
        print(f"no Kafka running from {folder}")
        return 0
    os.kill(pid, signal.SIGTERM)
    for _ in range(300):
        if _live_pid(pid_file) is None:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
    pid_file.unlink(missing_ok=True)
    print(f"stopped Kafka (pid {pid}) from {folder}")
    return 0


def _start(
    folder: Path, port: int, jmx_port: int | None, jmx_rules: Path, kafka_home: Path | None
) -> int:
    node = folder / "node-1"
    stop_hint = _stop_hint(folder)
    pid = _live_pid(node / "pid")
    if pid is not None:
        metrics = _metrics_url(pid)
        print(
            f"Apache Kafka is already running from {folder}\n"
            f"bootstrap:  {_advertised(node / 'server.properties')}\n"
            + (f"metrics:    {metrics}\n" if metrics else "")
            + f"stop it:    {stop_hint}"
        )
        return 0
    if _port_open(port) or _port_open(port + 1):
        print(f"port {port} or {port + 1} is taken on {HOST}: set KAFKA_PORT to another")
        return 1
    if jmx_port is not None and (_port_open(jmx_port) or jmx_port in (port, port + 1)):
        print(f"port {jmx_port} is taken on {HOST}: set JMX_PORT to another")
        return 1
    try:
        distribution = find(kafka_home)
    except KafkaNotFound as exc:
        print(exc)
        return 1
    jvm_options: dict[int, list[str]] = {}
    if jmx_port is not None:
        agent = _jmx_agent(distribution, jmx_port, jmx_rules)
        if isinstance(agent, str):
            print(agent)
            return 1
        jvm_options[1] = agent
    cluster = KRaftCluster(
        distribution,
        folder,
        ports=[port],
        properties={"auto.create.topics.enable": "true"},
        jvm_options=jvm_options,
        die_with_parent=False,
    )
    started = time.monotonic()
    try:
        cluster.start()
    except NodeNotReady as exc:
        cluster.stop()
        print(exc)
        return 1
    metrics = f"http://{HOST}:{jmx_port}/metrics" if jmx_port is not None else None
    print(
        f"Apache Kafka {distribution.version} (KRaft, one node) is up in "
        f"{time.monotonic() - started:.1f} s\n"
        f"bootstrap:  {cluster.bootstrap}\n"
        + (f"metrics:    {metrics} (JMX exporter, rules {jmx_rules})\n" if metrics else "")
        + f"log:        {cluster.nodes[0].log_path}\n"
        f"stop it:    {stop_hint}"
    )
    return 0


def _jmx_agent(distribution: KafkaDistribution, port: int, rules: Path) -> list[str] | str:
    """The broker's ``-javaagent`` option, or why there can be none."""
    agent = distribution.agent(JMX_AGENT)
    if agent is None:
        return (
            f"the JMX exporter agent is not installed in {distribution.home / 'agents'}: "
            "run `make setup` (scripts/setup.sh installs it from Maven Central)"
        )
    if not rules.is_file():
        return f"no JMX exporter rules at {rules}"
    # host:port:config binds the agent's HTTP server to loopback, like the broker: a
    # trial broker's metrics are nobody else's business.
    return [f"-javaagent:{agent}={HOST}:{port}:{rules.resolve()}"]


def _metrics_url(pid: int) -> str | None:
    """The running broker's exporter address, read back from its ``-javaagent`` option."""
    try:
        arguments = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    for argument in arguments:
        text = argument.decode(errors="replace")
        if text.startswith("-javaagent:") and JMX_AGENT in text:
            host, port = text.split("=", 1)[1].split(":")[:2]
            return f"http://{host}:{port}/metrics"
    return None


def _stop_hint(folder: Path) -> str:
    """The command that stops the broker in ``folder``, as the person would type it."""
    if folder == DEFAULT_BROKER_DIR:
        return "make kafka-stop"
    return f"make kafka-stop KAFKA_DIR={shlex.quote(str(folder))}"


def _advertised(config: Path) -> str:
    for line in config.read_text().splitlines():
        if line.startswith("advertised.listeners="):
            return line.split("//", 1)[1]
    return f"unknown (no advertised.listeners in {config})"


def _live_pid(pid_file: Path) -> int | None:
    try:
        pid = int(pid_file.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    # A pid reused by something else is not our broker.
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return pid if _BROKER_MAIN.encode() in cmdline else None


if __name__ == "__main__":
    sys.exit(_cli())
