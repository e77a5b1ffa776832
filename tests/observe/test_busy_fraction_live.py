"""A group's busy-fraction capacity, live: a Java consumer group whose JVM runs the JMX
exporter agent, scraped by a real Prometheus, observed by `partition-planner observe` on
a real Apache Kafka 4.4.0.

Three members (`tests/collect/java/PacedConsumer.java`) take 2,000 µs per record, so
each processes 500 records/s flat out; the topic's six partitions get 600 records/s,
about 200 per member: 40 % busy, keeping up. The agent loads the repository's
`deploy/jmx-exporter/kafka-consumer.yml` unchanged, and the planner is configured as a
user would (`[sources.prometheus.consumer_metrics]` with the default queries), so the
test checks the names the rules give as much as the matching by client id.

What it asserts is what Kafka's `poll-idle-ratio-avg` can tell (docs/model.md section 9):
the learned Tc_g has the source `busy-fraction`, says more than the rate seen (a lower
bound would say 200) and never more than the members can do (500, plus the tolerance of
15 %). It does not reach 500: the metric averages per poll, not over time, and on this
consumer the short polls outnumber the long ones (measured: about 300).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from planner.adapters.kraft import KRaftCluster, free_port
from planner.collect.observations import ObservationsSource
from planner.collect.sources import build_sources
from planner.config import load_config
from planner.figures import DataInterval
from tests.support import kafka as reference_kafka
from tests.support.java import compiled
from tests.support.jmx_exporter import AGENT, instant
from tests.support.load import SteadyTopic, create_topics, produce_steadily
from tests.support.prometheus import launched

pytestmark = [pytest.mark.kafka, pytest.mark.integration, pytest.mark.first]

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "jmx-exporter" / "kafka-consumer.yml"
PACED = ROOT / "tests" / "collect" / "java" / "PacedConsumer.java"
GROUP = "paced"
MEMBERS = 3
MICROS_PER_RECORD = 2_000
CAPACITY = 1e6 / MICROS_PER_RECORD  # records/s one member does flat out
TOPIC = SteadyTopic("orders", 6, 600, 100)
EVERY_S = 2.0
STEP_S = 10.0
READ_S = 10.0
# Kafka's rates divide by at least one whole 30 s sample window, so for 30 s after a
# member starts its records-consumed-rate reads low: the interval read starts later.
RAMP_S = 32.0


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KRaftCluster]:
    with reference_kafka.single_node(tmp_path_factory.mktemp("kafka-busy")) as cluster:
        yield cluster


@contextlib.contextmanager
def paced_group(bootstrap: str, port: int, log: Path) -> Iterator[subprocess.Popen[str]]:
    """The group's JVM, with the exporter agent on `port` (its log in `log`: the agent
    prints a stack trace for a scrape cut short when Prometheus stops); leaves when the
    test ends."""
    kafka = reference_kafka.distribution()
    agent = kafka.agent(AGENT)
    assert agent is not None, f"the JMX exporter agent is not installed in {kafka.home}"
    command = kafka.java_command(
        "PacedConsumer",
        [bootstrap, GROUP, "classic", str(MEMBERS), str(MICROS_PER_RECORD), "1000", TOPIC.name],
        heap_mb=128,
        jvm_options=[
            *reference_kafka.TEST_JVM_OPTIONS,
            f"-javaagent:{agent}=127.0.0.1:{port}:{RULES}",
        ],
        extra_classpath=[compiled("paced-consumer", [PACED], kafka)],
    )
    jvm = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log.open("ab"),
        text=True,
    )
    try:
        assert jvm.stdout is not None and jvm.stdout.readline().strip() == "ready"
        yield jvm
    finally:
        assert jvm.stdin is not None
        jvm.stdin.close()  # the members leave
        try:
            jvm.wait(30)
        except subprocess.TimeoutExpired:
            jvm.kill()
            jvm.wait()


@contextlib.contextmanager
def observer(config: Path, log: Path) -> Iterator[None]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner.cli", "observe", "--config", str(config)],
        cwd=ROOT,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _scraping(url: str, within_s: float) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if instant(url, 'up{job="consumers"} == 1'):
            return
        time.sleep(0.2)
    raise AssertionError(f"Prometheus did not scrape the consumers' agent within {within_s} s")


def _groups(source: ObservationsSource, interval: DataInterval) -> list[dict[str, object]]:
    collected = source.collect(interval)
    table = pa.concat_tables([part.table for part in collected.parts["groups"]])
    rows = table.filter(pc.equal(table.column("group_id"), GROUP)).to_pylist()
    assert rows, (table.to_pylist(), collected.notes)
    return rows


class Traffic:
    """`TOPIC`'s records at their rate from a thread until `stop_at` (seconds since the
    epoch), which may move while it runs."""

    def __init__(self, bootstrap: str, stop_at: float) -> None:
        self.bootstrap, self.stop_at = bootstrap, stop_at
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while (now := time.time()) < self.stop_at:
            produce_steadily(self.bootstrap, [TOPIC], until_s=min(self.stop_at, now + 5.0))

    def join(self) -> None:
        self.thread.join(60)


def _minute_after(moment_s: float) -> float:
    return float(-(-int(moment_s) // 60) * 60)


def test_a_group_keeping_up_at_40_percent_learns_its_capacity_from_its_own_metrics(
    broker: KRaftCluster, tmp_path: Path
) -> None:
    began = time.monotonic()
    bootstrap = broker.bootstrap
    create_topics(bootstrap, [TOPIC], replication_factor=1, config={})
    # The traffic runs before the members start, so their rates hold only traffic; the
    # interval starts on a whole minute (the figures' rule) once they are right.
    start_s = _minute_after(time.time() + 18.0 + RAMP_S)
    traffic = Traffic(bootstrap, start_s + READ_S + 3.0)
    port = free_port()
    scrape = tmp_path / "prometheus.yml"
    scrape.write_text(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n"
        f"  - job_name: consumers\n    static_configs:\n      - targets: ['127.0.0.1:{port}']\n"
    )
    (tmp_path / "prometheus-data").mkdir()
    obs = tmp_path / "observations"
    try:
        with contextlib.ExitStack() as stack:
            url, _ = stack.enter_context(
                launched(scrape, tmp_path / "prometheus-data", tmp_path / "prometheus.log")
            )
            config = tmp_path / "planner.toml"
            config.write_text(
                '[sources]\nuse = ["kafka"]\n[sources.kafka]\n'
                f'bootstrap = "{bootstrap}"\nobservations = "{obs}"\n'
                f"observe_every_s = {EVERY_S}\nstep_s = {STEP_S}\ngroup_tools = false\n"
                "sample_timeout_s = 3\nrequest_timeout_s = 3\n"
                f'[sources.prometheus]\nurl = "{url}"\n[sources.prometheus.consumer_metrics]\n'
                'naming = "jmx-exporter"\n'
            )
            stack.enter_context(observer(config, tmp_path / "observer.log"))
            stack.enter_context(paced_group(bootstrap, port, tmp_path / "consumers.log"))
            _scraping(url, 30.0)
            if time.time() + RAMP_S > start_s:  # a slow start: a minute later
                start_s += 60.0
                traffic.stop_at = start_s + READ_S + 3.0
            interval = DataInterval(
                datetime.fromtimestamp(start_s, UTC),
                datetime.fromtimestamp(start_s + READ_S, UTC),
            )
            # The observer's samples around the interval's end must be in.
            time.sleep(max(0.0, start_s + READ_S + 2 * EVERY_S + 1 - time.time()))
            (source,) = build_sources(load_config(config))
            assert isinstance(source, ObservationsSource) and source.consumer_metrics
            rows = _groups(source, interval)
    finally:
        traffic.stop_at = 0.0
        traffic.join()
    took_s = time.monotonic() - began

    (row,) = rows
    learned = row["consumer_records_per_s"]
    evidence = str(row["capacity_evidence"])
    print(f"learned Tc_g {learned} ({evidence}); wall time {took_s:.1f} s")
    assert row["capacity_source"] == "busy-fraction", evidence
    assert isinstance(learned, float)
    # The evidence names the window and the readings behind it: every member's, every
    # sampling period of the interval (a few may be missed on a loaded machine), and the
    # rate they consumed at (about 200 records/s each; less when the producer falls
    # behind on a loaded machine).
    assert evidence.startswith("busy-fraction ") and " member reading(s)" in evidence
    readings = int(evidence.split(": ", 1)[1].split(" member")[0])
    assert readings >= MEMBERS * (READ_S / EVERY_S) * 0.8, evidence
    seen = float(evidence.split(" at a median ", 1)[1].split(" records/s")[0].replace(",", ""))
    assert 0.7 * TOPIC.records_per_s / MEMBERS < seen < 1.1 * TOPIC.records_per_s / MEMBERS
    # The metrics say a member could do more than it did, and never more than it can.
    assert 1.25 * seen < learned <= 1.15 * CAPACITY, evidence
    assert row["lag_trend"] != "growing", row
