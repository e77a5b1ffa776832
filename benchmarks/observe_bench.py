"""Benchmark: what `partition-planner observe` costs, on a 2,000-partition broker (issue 34).

Set-up: one real Apache Kafka 4.4.0 node in KRaft mode with the tests' settings
(`tests/support/kafka.py`: 512 MiB heap, C1 JIT, serial GC, 5 offsets partitions), with
the Prometheus JMX exporter's Java agent attached the way `tests/support/jmx_exporter.py`
attaches it (the repository's rules, `includeObjectNames` limited here to the request
meters `kafka.network:type=RequestMetrics,name={Requests,Errors}PerSec,*`). On it: 100
topics x 20 partitions (every tenth topic keyed), one producer thread sending 2,000
records/s of 200 bytes round the topics (librdkafka, `linger.ms` 1000: librdkafka sends
one partition's batch per Produce request, so a short linger would make the load's
requests as many as its records), and 5 classic consumer groups (7 librdkafka members
in all, 10 topics each, auto-commit every 5 s, `fetch.min.bytes` 1 MB and
`fetch.wait.max.ms` 500, so that each member fetches about twice a second, a steady
reference for the observer's own fetches), all in this process.

Measured, on a schedule, after the groups own their partitions and a warm-up (45 s: the
broker's CPU settles): a reference window of the broker *without the observer* (half
before the observer runs, half after it, so that a drift in the load shows and cancels),
then the real command, `python -m planner.cli observe --config <toml> --every P
--duration D` (a config with `[sources.kafka] bootstrap`, `observations` in a temporary
folder, `group_tools = false`), for N+1 samples. The first sample is start-up (Python's
imports, the clients, the group child's spawn, `DescribeConfigs` of every topic, no
record read) and is reported apart; the steady state is the N periods from the log line
of sample 1 to that of sample N+1, as long as the reference.

- Observer CPU: user + system seconds from /proc/<pid>/stat of the observer and every
  process under it (the long-lived group child and multiprocessing's resource tracker),
  read when each sample's line appears (children reaped meanwhile count through their
  parent's cutime/cstime); the whole run's from wait4 (launch to exit).
- Observer wall time per sample: `took_s` of the sample table it wrote (the reads and
  building the tables; the Parquet append and fsync that follow are not in it).
- Broker CPU: /proc/<pid>/stat of the broker's JVM over the same windows, with and
  without the observer, and per period (the noise to judge the difference by: when the
  difference is within the reference halves' own, the script says it is not resolved);
  the whole machine's busy CPU from /proc/stat, to show what else ran on the two cores.
- Requests per sample: the broker's own `RequestsPerSec` counters per API (summed over
  versions), scraped from the agent at the windows' edges (outside the CPU windows):
  (count in the observer's window - the reference's rate x that window) / samples.
  Errors the same from `ErrorsPerSec` (error != NONE).
- Dataset bytes per sample: the sample folders on disk, whole and per table.

Not measured: Kafka's group tools (`group_tools = false`: share and streams groups,
three JVM starts every `group_tools_every_s`, 300 s by default); compaction and pruning
(once a day); the periodic `DescribeConfigs` of every topic (every 600 s, so only in the
first sample here); the JMX agent's own cost (the same in both windows). The key
reservoir's day starts with the run, so the `keys` table is that of a day's first
minutes, larger than a day's average (the rows written per day grow with the log of the
keyed records offered). The load
(producer and consumers) runs in this process and shares the two cores with the
observer and the broker; on a busy machine CPU seconds are the steadier figure, wall
times less so.

Usage:
    .venv/bin/python benchmarks/observe_bench.py [--partitions 2000] [--topics 100]
        [--period 10] [--samples 8] [--rate 2000] [--groups 5] [--warmup 45] [--json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_TICK = os.sysconf("SC_CLK_TCK")
REQUEST_METERS = [
    "kafka.network:type=RequestMetrics,name=RequestsPerSec,*",
    "kafka.network:type=RequestMetrics,name=ErrorsPerSec,*",
]
_SERIES = re.compile(r"^(\w+)\{(.*)\}\s+(\S+)$")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
_TOOK = re.compile(r"took ([\d.]+) s")
VALUE_BYTES = 200
LINGER_MS = 1000
KEYS = 1000


# --- /proc --------------------------------------------------------------------------------


def _stat_fields(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process, and of its children it reaped."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / _TICK


def _tree(root: int) -> list[int]:
    """`root` and every process under it."""
    parent_of: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None:
                parent_of[int(entry)] = int(fields[1])
    children: dict[int, list[int]] = defaultdict(list)
    for pid, parent in parent_of.items():
        children[parent].append(pid)
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, ()))
    return found


def _machine_busy_s() -> float:
    """CPU seconds the whole machine has spent busy (all cores, /proc/stat)."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / _TICK


@dataclass
class Snapshot:
    """CPU counters at one moment."""

    at: float
    broker_s: float
    machine_s: float
    observer_s: float = 0.0  # the observer process (its reaped children included)
    children_s: float = 0.0  # the live processes under it


def snapshot(broker_pid: int, observer_pid: int | None = None) -> Snapshot:
    shot = Snapshot(time.monotonic(), _cpu_s(broker_pid), _machine_busy_s())
    if observer_pid is not None:
        for pid in _tree(observer_pid):
            if pid == observer_pid:
                shot.observer_s = _cpu_s(pid)
            else:
                shot.children_s += _cpu_s(pid)
    return shot


# --- the broker's request counters --------------------------------------------------------


def scrape(port: int) -> dict[str, dict[str, float]]:
    """The agent's request meters: {"requests": {api: count}, "errors": {api/error: count}}."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60) as response:
        text = response.read().decode()
    out: dict[str, dict[str, float]] = {
        "requests": defaultdict(float),
        "errors": defaultdict(float),
    }
    for line in text.splitlines():
        match = _SERIES.match(line)
        if match is None:
            continue
        name, labels, value = match.group(1), dict(_LABEL.findall(match.group(2))), match.group(3)
        if name == "kafka_network_requestmetrics_requests_total":
            out["requests"][labels.get("request", "?")] += float(value)
        elif name == "kafka_network_requestmetrics_errors_total" and labels.get("error") != "NONE":
            out["errors"][f"{labels.get('request', '?')}/{labels.get('error', '?')}"] += float(
                value
            )
    return out


def _minus(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {k: after.get(k, 0.0) - before.get(k, 0.0) for k in set(after) | set(before)}


# --- the broker and its load --------------------------------------------------------------


def exporter_config(folder: Path) -> Path:
    """The repository's exporter rules, reading only the request meters."""
    import yaml

    from tests.support.jmx_exporter import RULES

    config: dict[str, Any] = yaml.safe_load(RULES.read_text())
    config["includeObjectNames"] = REQUEST_METERS
    path = folder / "jmx-exporter.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def start_broker(folder: Path) -> tuple[Any, int]:
    """One node with the tests' settings (`single_node`) plus the exporter agent."""
    from planner.adapters.kraft import KRaftCluster, free_port
    from tests.support.jmx_exporter import AGENT
    from tests.support.kafka import (
        SINGLE_NODE_HEAP_MB,
        TEST_JVM_OPTIONS,
        TEST_PROPERTIES,
        distribution,
    )

    kafka = distribution()
    agent = kafka.agent(AGENT)
    if agent is None:
        raise SystemExit(f"the JMX exporter agent is not installed in {kafka.home / 'agents'}")
    port = free_port()
    folder.mkdir(parents=True, exist_ok=True)
    cluster = KRaftCluster(
        kafka,
        folder,
        heap_mb=SINGLE_NODE_HEAP_MB,
        base_jvm_options=TEST_JVM_OPTIONS,
        properties=TEST_PROPERTIES,
        jvm_options={1: [f"-javaagent:{agent}=127.0.0.1:{port}:{exporter_config(folder)}"]},
    )
    cluster.start(timeout_s=120)
    return cluster, port


def create_topics(bootstrap: str, names: list[str], partitions: int) -> None:
    import confluent_kafka.admin as admin_module

    admin = admin_module.AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    new_topic = admin_module.NewTopic  # type: ignore[attr-defined]
    futures = admin.create_topics([new_topic(n, partitions, 1) for n in names], request_timeout=120)
    for future in futures.values():
        future.result(timeout=180)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        topics = admin.list_topics(timeout=30).topics
        led = sum(
            1 for n in names if n in topics for p in topics[n].partitions.values() if p.leader >= 0
        )
        if led == len(names) * partitions:
            return
        time.sleep(0.5)
    raise RuntimeError("the topics' partitions have no leaders after 120 s")


@dataclass
class Load:
    """One producer thread round the topics; consumer groups polled from one thread."""

    bootstrap: str
    topics: list[str]
    keyed: set[str]
    rate: float
    groups: list[tuple[str, str, int, list[str]]]  # group id, assignor, members, topics
    stop: threading.Event = field(default_factory=threading.Event)
    assigned: threading.Event = field(default_factory=threading.Event)
    sent: int = 0
    consumed: int = 0
    backlogged: int = 0
    started: float = 0.0
    stopped: float = 0.0
    errors: list[str] = field(default_factory=list)

    def start(self) -> None:
        self.threads = [
            threading.Thread(target=self._produce, daemon=True),
            threading.Thread(target=self._consume, daemon=True),
        ]
        for thread in self.threads:
            thread.start()

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)

    def check(self) -> None:
        """Fail when the load failed (before measuring on a broken load, not after)."""
        if self.errors or not all(t.is_alive() for t in self.threads):
            raise RuntimeError(f"the load failed: {self.errors[:3]}")

    def _produce(self) -> None:
        import confluent_kafka

        # librdkafka sends one partition's batch per Produce request: a long linger keeps
        # the load's requests to the busy partitions' count per second, not the records'.
        producer = confluent_kafka.Producer(
            {"bootstrap.servers": self.bootstrap, "linger.ms": LINGER_MS, "log_level": 3}
        )
        rng = random.Random(0)
        value = bytes(rng.getrandbits(8) for _ in range(VALUE_BYTES))
        keys = [f"customer-{i:05d}".encode() for i in range(KEYS)]
        cumulative = list(itertools.accumulate(1 / (i + 1) for i in range(KEYS)))  # Zipf-like

        def report(err, _msg) -> None:  # type: ignore[no-untyped-def]
            if err is not None and len(self.errors) < 10:
                self.errors.append(str(err))

        try:
            self.started = time.monotonic()
            while not self.stop.is_set():
                due = int((time.monotonic() - self.started) * self.rate)
                if due <= self.sent:
                    time.sleep(0.005)
                    continue
                for _ in range(min(due - self.sent, 1000)):
                    topic = self.topics[self.sent % len(self.topics)]
                    key = None
                    if topic in self.keyed:
                        key = rng.choices(keys, cum_weights=cumulative)[0]
                    try:
                        producer.produce(topic, value=value, key=key, on_delivery=report)
                    except BufferError:  # the broker is behind: wait, count it
                        self.backlogged += 1
                        producer.poll(0.1)
                        break
                    self.sent += 1
                producer.poll(0)
        except Exception as exc:  # reported by `check`
            self.errors.append(repr(exc))
        finally:
            self.stopped = time.monotonic()
            producer.flush(10)

    def _consume(self) -> None:
        import confluent_kafka

        members = []
        try:
            for group_id, assignor, count, topics in self.groups:
                for _ in range(count):
                    member = confluent_kafka.Consumer(
                        {
                            "bootstrap.servers": self.bootstrap,
                            "group.id": group_id,
                            "partition.assignment.strategy": assignor,
                            "auto.offset.reset": "latest",
                            "enable.auto.commit": True,
                            "auto.commit.interval.ms": 5000,
                            "fetch.min.bytes": 1_000_000,
                            "fetch.wait.max.ms": 500,
                            "log_level": 3,
                        }
                    )
                    member.subscribe(topics)
                    members.append(member)
            while not self.stop.is_set():
                for member in members:
                    for message in member.consume(num_messages=1000, timeout=0.02):
                        if message.error() is None:
                            self.consumed += 1
                if not self.assigned.is_set() and all(m.assignment() for m in members):
                    self.assigned.set()
        except Exception as exc:  # reported by `check`
            self.errors.append(repr(exc))
        finally:
            for member in members:
                member.close()


# --- the observer -------------------------------------------------------------------------


@dataclass
class ObserverRun:
    """What the observer's run gave: one snapshot per sample line, its output, its rusage."""

    launched: Snapshot
    lines: list[tuple[Snapshot, float]] = field(default_factory=list)  # (at the line, took)
    scrapes: dict[str, Any] = field(default_factory=dict)
    stderr: list[str] = field(default_factory=list)
    stdout: str = ""
    returncode: int | None = None
    rusage_cpu_s: float = 0.0
    elapsed_s: float = 0.0


def run_observer(
    config: Path, broker_pid: int, port: int, *, period: float, samples: int
) -> ObserverRun:
    """Run `observe` for samples + 1 samples; snapshot at each sample's line."""
    duration = samples * period + period / 2  # samples at 0, P, ..., samples x P
    command = [
        sys.executable,
        "-m",
        "planner.cli",
        "observe",
        "--config",
        str(config),
        "--every",
        f"{period:g}",
        "--duration",
        f"{duration:g}",
    ]
    before = scrape(port)
    started = time.monotonic()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    run = ObserverRun(snapshot(broker_pid, process.pid))
    run.scrapes["launch"] = before
    assert process.stderr is not None and process.stdout is not None
    for line in process.stderr:
        if "took" in line and line.split(" ", 3)[2] == "sample":
            shot = snapshot(broker_pid, process.pid)  # first: before the scrape's cost
            took = _TOOK.search(line)
            run.lines.append((shot, float(took.group(1)) if took else float("nan")))
            if len(run.lines) == 1:
                run.scrapes["first"] = scrape(port)
            elif len(run.lines) == samples + 1:
                run.scrapes["last"] = scrape(port)
        run.stderr.append(line.rstrip("\n"))
    run.stdout = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    run.returncode = process.returncode
    run.elapsed_s = time.monotonic() - started
    run.rusage_cpu_s = usage.ru_utime + usage.ru_stime
    return run


def reference_window(broker_pid: int, port: int, seconds: float, period: float) -> dict[str, Any]:
    """The broker with the load and no observer, for `seconds` (a snapshot every period)."""
    before = scrape(port)
    first = snapshot(broker_pid)
    shots = [first]
    while shots[-1].at - first.at < seconds - 1e-3:
        time.sleep(max(0.0, min(period, first.at + seconds - time.monotonic())))
        shots.append(snapshot(broker_pid))
    last = shots[-1]
    after = scrape(port)
    return {
        "seconds": last.at - first.at,
        "broker_cpu_pct_per_period": [
            100 * (b.broker_s - a.broker_s) / (b.at - a.at)
            for a, b in itertools.pairwise(shots)
            if b.at > a.at
        ],
        "broker_cpu_s": last.broker_s - first.broker_s,
        "machine_busy_s": last.machine_s - first.machine_s,
        "requests": _minus(after["requests"], before["requests"]),
        "errors": _minus(after["errors"], before["errors"]),
    }


def dataset_sizes(folder: Path) -> list[dict[str, Any]]:
    """Each sample folder, oldest first: its bytes per table and its took_s."""
    import pyarrow.parquet as pq

    found = []
    for sample in sorted(folder.glob("day=*/s=*")):
        tables = {p.stem: p.stat().st_size for p in sample.iterdir() if p.is_file()}
        took = pq.read_table(sample / "sample.parquet", columns=["took_s"]).column(0)[0].as_py()
        found.append({"name": sample.name, "tables": tables, "took_s": took})
    return found


# --- the measurement ----------------------------------------------------------------------


def measure(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from planner.adapters.kraft import KRaftCluster  # noqa: F401 - fail early if missing

    if args.partitions % args.topics:
        raise SystemExit(f"--partitions {args.partitions} is not a multiple of --topics")
    per_topic = args.partitions // args.topics
    topics = [f"bench-{i:03d}" for i in range(args.topics)]
    keyed = {t for i, t in enumerate(topics) if i % 10 == 0}
    per_group = max(1, len(topics) // (2 * args.groups))
    assignors = ["range", "roundrobin", "cooperative-sticky"]
    groups = [
        (
            f"bench-group-{g}",
            assignors[g % len(assignors)],
            2 if g < 2 else 1,
            topics[g * per_group : (g + 1) * per_group],
        )
        for g in range(args.groups)
    ]
    load_before = os.getloadavg()
    began = time.monotonic()
    cluster, port = start_broker(work / "kafka")
    try:
        broker_pid = cluster.nodes[0].process.pid
        bootstrap = cluster.bootstrap
        create_topics(bootstrap, topics, per_topic)
        load = Load(bootstrap, topics, keyed, args.rate, groups)
        load.start()
        try:
            if not load.assigned.wait(120):
                raise RuntimeError(
                    f"the consumer groups own no partitions after 120 s: {load.errors}"
                )
            scrape(port)  # the agent's first scrape is slow: not in any window
            time.sleep(args.warmup)
            load.check()
            set_up_s = time.monotonic() - began
            half = args.samples * args.period / 2
            measuring = (time.monotonic(), load.sent, load.backlogged)
            reference = [reference_window(broker_pid, port, half, args.period)]
            load.check()
            observations = work / "observations"
            config = work / "planner.toml"
            config.write_text(
                "[sources.kafka]\n"
                f'bootstrap = "{bootstrap}"\n'
                f'observations = "{observations}"\n'
                f"observe_every_s = {args.period:g}\n"
                "group_tools = false\n"
            )
            observer = run_observer(
                config, broker_pid, port, period=args.period, samples=args.samples
            )
            time.sleep(2)  # the observer's connections close
            reference.append(reference_window(broker_pid, port, half, args.period))
            load.check()
            produced = (load.sent - measuring[1]) / (time.monotonic() - measuring[0])
            backlogged = load.backlogged - measuring[2]
        finally:
            load.close()
    finally:
        cluster.stop()
    if observer.returncode != 0 or len(observer.lines) < args.samples + 1:
        tail = "\n".join(observer.stderr[-30:])
        raise RuntimeError(
            f"the observer exited {observer.returncode} after {len(observer.lines)} "
            f"sample(s):\n{tail}\n{observer.stdout}"
        )
    return summarize(
        args,
        observer=observer,
        reference=reference,
        dataset=dataset_sizes(observations),
        setting={
            "topics": args.topics,
            "partitions": args.partitions,
            "keyed_topics": len(keyed),
            "rate": args.rate,
            "groups": len(groups),
            "members": sum(g[2] for g in groups),
            "group_topics": sum(len(g[3]) for g in groups),
            "produced_per_s": round(produced, 1),
            "producer_queue_full": backlogged,
            "set_up_s": round(set_up_s, 1),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
    )


def summarize(
    args: argparse.Namespace,
    *,
    observer: ObserverRun,
    reference: list[dict[str, Any]],
    dataset: list[dict[str, Any]],
    setting: dict[str, Any],
) -> dict[str, Any]:
    n, period = args.samples, args.period
    shots = [shot for shot, _ in observer.lines]
    first, last = shots[0], shots[n]
    window_s = last.at - first.at

    def tree(s: Snapshot) -> float:
        return s.observer_s + s.children_s

    per_sample_cpu = [tree(b) - tree(a) for a, b in itertools.pairwise(shots[: n + 1])]
    steady_cpu = tree(last) - tree(first)
    took = [d["took_s"] for d in dataset]
    ref_s = sum(r["seconds"] for r in reference)
    ref_broker = sum(r["broker_cpu_s"] for r in reference)
    ref_machine = sum(r["machine_busy_s"] for r in reference)

    def rate(kind: str) -> dict[str, float]:
        total: dict[str, float] = defaultdict(float)
        for r in reference:
            for k, v in r[kind].items():
                total[k] += v
        return {k: v / ref_s for k, v in total.items()}

    def per_sample(
        kind: str, start: str, end: str, seconds: float, samples: int
    ) -> dict[str, float]:
        counted = _minus(observer.scrapes[end][kind], observer.scrapes[start][kind])
        base = rate(kind)
        return {
            k: (counted.get(k, 0.0) - base.get(k, 0.0) * seconds) / samples
            for k in set(counted) | set(base)
        }

    first_s = first.at - observer.launched.at
    requests = per_sample("requests", "first", "last", window_s, n)
    first_requests = per_sample("requests", "launch", "first", first_s, 1)
    errors = per_sample("errors", "first", "last", window_s, n)
    first_errors = per_sample("errors", "launch", "first", first_s, 1)
    ref_rate = rate("requests")
    halves = [{k: v / r["seconds"] for k, v in r["requests"].items()} for r in reference]
    with_rate = {
        k: v / window_s
        for k, v in _minus(
            observer.scrapes["last"]["requests"], observer.scrapes["first"]["requests"]
        ).items()
    }
    apis = sorted(
        set(requests) | set(first_requests),
        key=lambda k: (-abs(requests.get(k, 0.0)), -abs(first_requests.get(k, 0.0)), k),
    )
    by_api = [
        {
            "api": k,
            "reference_per_period": ref_rate.get(k, 0.0) * period,
            "reference_halves_per_period": [h.get(k, 0.0) * period for h in halves],
            "reference_drift_per_period": (
                max(h.get(k, 0.0) for h in halves) - min(h.get(k, 0.0) for h in halves)
            )
            * period
            / 2,
            "with_observer_per_period": with_rate.get(k, 0.0) * period,
            "observer_per_sample": requests.get(k, 0.0),
            "first_sample": first_requests.get(k, 0.0),
        }
        for k in apis
        if max(
            ref_rate.get(k, 0.0) * period,
            with_rate.get(k, 0.0) * period,
            abs(requests.get(k, 0.0)),
            abs(first_requests.get(k, 0.0)),
        )
        >= 0.05
    ]
    steady_sizes = [sum(d["tables"].values()) for d in dataset[1:]]
    tables = sorted({t for d in dataset for t in d["tables"]})
    return {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "kafka": "4.4.0",
        "period_s": period,
        "samples": n,
        "setting": setting,
        "reference": {
            "what": "the same broker and load without the observer",
            "seconds": ref_s,
            "halves_s": [r["seconds"] for r in reference],
            "broker_cpu_pct": 100 * ref_broker / ref_s,
            "broker_cpu_pct_halves": [100 * r["broker_cpu_s"] / r["seconds"] for r in reference],
            "broker_cpu_pct_per_period": [r["broker_cpu_pct_per_period"] for r in reference],
            "broker_cpu_pct_spread": 100
            * (
                max(r["broker_cpu_s"] / r["seconds"] for r in reference)
                - min(r["broker_cpu_s"] / r["seconds"] for r in reference)
            ),
            "machine_busy_pct": 100 * ref_machine / ref_s,
        },
        "observer": {
            "window_s": window_s,
            "cpu_s_per_sample": steady_cpu / n,
            "cpu_s_per_sample_median": statistics.median(per_sample_cpu),
            "cpu_s_per_sample_max": max(per_sample_cpu),
            "cpu_s_per_sample_process": (last.observer_s - first.observer_s) / n,
            "cpu_s_per_sample_children": (last.children_s - first.children_s) / n,
            "cpu_pct_of_core": 100 * steady_cpu / window_s,
            "took_s_median": statistics.median(took[1:]),
            "took_s_max": max(took[1:]),
            "first_sample": {
                "cpu_s": tree(first),
                "seconds_from_launch": first_s,
                "took_s": took[0],
            },
            "whole_run": {
                "cpu_s": observer.rusage_cpu_s,
                "elapsed_s": observer.elapsed_s,
                "samples": len(observer.lines),
            },
            "broker_cpu_pct": 100 * (last.broker_s - first.broker_s) / window_s,
            "broker_cpu_pct_per_period": [
                100 * (b.broker_s - a.broker_s) / (b.at - a.at)
                for a, b in itertools.pairwise(shots[: n + 1])
            ],
            "machine_busy_pct": 100 * (last.machine_s - first.machine_s) / window_s,
            "notes": [line for line in observer.stderr if "note(s)" in line][:3],
            "summary": observer.stdout.strip(),
        },
        "requests": by_api,
        "errors": [
            {
                "api_error": k,
                "observer_per_sample": errors.get(k, 0.0),
                "first_sample": first_errors.get(k, 0.0),
            }
            for k in sorted(set(errors) | set(first_errors))
            if abs(first_errors.get(k, 0.0)) >= 0.05 or abs(errors.get(k, 0.0)) >= 0.05
        ],
        "dataset": {
            "bytes_per_sample_median": statistics.median(steady_sizes),
            "first_sample_bytes": sum(dataset[0]["tables"].values()),
            "files_per_sample": len(dataset[-1]["tables"]),
            "bytes_per_day_at_period": statistics.median(steady_sizes) * 86400 / period,
            "by_table_median": {
                t: statistics.median(d["tables"].get(t, 0) for d in dataset[1:]) for t in tables
            },
        },
    }


def show(report: dict[str, Any]) -> None:
    s, ref, obs = report["setting"], report["reference"], report["observer"]
    period, n = report["period_s"], report["samples"]
    print(
        f"partition-planner observe on one Kafka {report['kafka']} broker (KRaft, the tests' "
        f"settings): {s['topics']} topics x {s['partitions'] // s['topics']} = "
        f"{s['partitions']:,} partitions, every {period:g} s, {n} samples measured after "
        f"the first; {report['cpus']} CPUs, load average "
        f"{s['load_average_before'][0]:.2f} before, {s['load_average_after'][0]:.2f} after"
    )
    print(
        f"load: 1 producer thread, {s['rate']:,.0f} records/s asked, "
        f"{s['produced_per_s']:,.0f} sent while measuring (queue full "
        f"{s['producer_queue_full']} times), {VALUE_BYTES} B, linger {LINGER_MS} ms, "
        f"{s['keyed_topics']} keyed topics; {s['groups']} classic groups "
        f"({s['members']} members) on {s['group_topics']} topics, auto-commit 5 s; "
        f"group tools off; set-up {s['set_up_s']:.0f} s"
    )
    print(
        f"reference: the same broker and load without the observer, "
        f"{' + '.join(f'{x:.0f}' for x in ref['halves_s'])} s (before and after the "
        f"observer's run); with the observer: {obs['window_s']:.0f} s (samples 2-{n + 1})"
    )
    print()
    print(f"{'':44} {'reference':>10} {'with observer':>14} {'difference':>11}")
    diff = obs["broker_cpu_pct"] - ref["broker_cpu_pct"]
    halves = " / ".join(f"{x:.1f}" for x in ref["broker_cpu_pct_halves"])
    print(
        f"{'broker CPU, % of one core':44} {ref['broker_cpu_pct']:>9.1f}% "
        f"{obs['broker_cpu_pct']:>13.1f}% {diff:>+10.1f}%   (reference halves {halves})"
    )
    spread = ref["broker_cpu_pct_spread"]
    if abs(diff) <= spread:
        print(
            f"  the difference is within the reference's own variation (its halves differ "
            f"by {spread:.1f} points): the broker's cost of the observer is not resolved here"
        )
    trace = [", ".join(f"{x:.0f}" for x in xs) for xs in ref["broker_cpu_pct_per_period"]]
    observed = ", ".join(f"{x:.0f}" for x in obs["broker_cpu_pct_per_period"])
    print(
        f"  broker CPU % per period: reference [{trace[0]}], with observer [{observed}], "
        f"reference [{trace[-1]}]"
    )
    print(
        f"{'machine busy, % of one core (all work)':44} {ref['machine_busy_pct']:>9.1f}% "
        f"{obs['machine_busy_pct']:>13.1f}% "
        f"{obs['machine_busy_pct'] - ref['machine_busy_pct']:>+10.1f}%"
    )
    print()
    print(f"observer, steady state ({n} samples)           mean   median      max")
    print(
        f"{'  CPU s per sample (process + group child)':44} {obs['cpu_s_per_sample']:>5.2f} "
        f"{obs['cpu_s_per_sample_median']:>8.2f} {obs['cpu_s_per_sample_max']:>8.2f}"
    )
    print(f"{'    of which the observer process':44} {obs['cpu_s_per_sample_process']:>5.2f}")
    print(
        f"{'    of which the group child (and tracker)':44} "
        f"{obs['cpu_s_per_sample_children']:>5.2f}"
    )
    label = f"  CPU, % of one core at the {period:g} s period"
    print(f"{label:44} {obs['cpu_pct_of_core']:>5.1f}")
    print(
        f"{'  wall s per sample (took_s, before append)':44} {'':>5} "
        f"{obs['took_s_median']:>8.2f} {obs['took_s_max']:>8.2f}"
    )
    f, w = obs["first_sample"], obs["whole_run"]
    print(
        f"first sample (start-up): {f['cpu_s']:.2f} CPU-s from launch to its line "
        f"({f['seconds_from_launch']:.1f} s), took_s {f['took_s']:.2f}; whole run: "
        f"{w['cpu_s']:.2f} CPU-s (wait4) over {w['elapsed_s']:.0f} s, {w['samples']} samples"
    )
    print()
    print("requests per sample, the broker's RequestsPerSec counters (all versions):")
    print(
        f"{'API':28} {'ref/period':>11} {'(halves)':>15} {'with obs/period':>16} "
        f"{'observer/sample':>17} {'first sample':>13}"
    )
    for r in report["requests"]:
        halves = "/".join(f"{x:.1f}" for x in r["reference_halves_per_period"])
        print(
            f"{r['api']:28} {r['reference_per_period']:>11.1f} {halves:>15} "
            f"{r['with_observer_per_period']:>16.1f} {r['observer_per_sample']:>10.1f} "
            f"± {r['reference_drift_per_period']:<4.1f} {r['first_sample']:>13.1f}"
        )
    print(
        "observer/sample = (count over the observer's window - the reference's rate x "
        "that window) / samples; first sample likewise, launch to its line. The load's "
        "own APIs (Produce, Heartbeat, OffsetCommit...) show the reference's noise there: "
        "compare its halves; ± is half the halves' difference per period, a rough "
        "measure of that noise"
    )
    if report["errors"]:
        print(
            "errors (ErrorsPerSec, error != NONE): "
            + "; ".join(
                f"{e['api_error']} {e['observer_per_sample']:.1f}/sample "
                f"({e['first_sample']:.1f} in the first)"
                for e in report["errors"]
            )
        )
    d = report["dataset"]
    print()
    print(
        f"dataset: {d['bytes_per_sample_median'] / 1024:.1f} KiB per sample (median, "
        f"{d['files_per_sample']} files; first sample {d['first_sample_bytes'] / 1024:.1f} "
        f"KiB), {d['bytes_per_day_at_period'] / 2**20:.0f} MiB per day at this period "
        f"before compaction"
    )
    print(
        "  by table (median bytes): "
        + ", ".join(
            f"{t} {v / 1024:.1f} KiB"
            for t, v in sorted(d["by_table_median"].items(), key=lambda kv: -kv[1])
        )
    )
    if obs["notes"]:
        print("observer notes: " + " | ".join(obs["notes"]))
    print(f"observer: {obs['summary']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=2000, help="partitions in all")
    parser.add_argument("--topics", type=int, default=100, help="topics (divides partitions)")
    parser.add_argument("--period", type=float, default=10.0, help="sampling period, seconds")
    parser.add_argument("--samples", type=int, default=8, help="samples measured after the first")
    parser.add_argument("--rate", type=float, default=2000.0, help="records/s produced in all")
    parser.add_argument("--groups", type=int, default=5, help="classic consumer groups")
    parser.add_argument(
        "--warmup",
        type=float,
        default=45.0,
        help="seconds of load before measuring (the broker's CPU settles: with 15 s the "
        "reference's first half read 6-11 points above its second, four runs in four)",
    )
    parser.add_argument("--work", type=Path, help="work folder (kept); default: a temporary one")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.samples < 2 or args.period <= 0 or args.topics < 2 * args.groups:
        parser.error("--samples at least 2, --period above 0, --topics at least 2 x --groups")
    work = args.work or Path(tempfile.mkdtemp(prefix="observe-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        report = measure(args, work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        show(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
