"""Kafka's own commands as `scripts/kafka-tools.sh` writes them beside the Maven jars.

The wrappers are written into a copy of the installed Kafka's layout (its `libs/` linked)
under pytest's temporary folder, so the test checks the script that `scripts/setup.sh`
runs, not whatever an earlier set-up left in `var/kafka`.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from planner.adapters.kraft import KRaftCluster
from planner.changes.decide import alter_command
from planner.recommend.creation import create_command
from tests.support.kafka import distribution

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "kafka-tools.sh"

#: Each wrapper, the option that makes Kafka's tool say who it is, its exit code and what
#: it prints then (Kafka 4.4.0). The argparse4j tools have no --version; the
#: producer perf tool exits 1 on --help.
IDENTITIES = {
    "kafka-topics.sh": ("--version", 0, "4.4.0"),
    "kafka-consumer-groups.sh": ("--version", 0, "4.4.0"),
    "kafka-share-groups.sh": ("--version", 0, "4.4.0"),
    "kafka-streams-groups.sh": ("--version", 0, "4.4.0"),
    "kafka-configs.sh": ("--version", 0, "4.4.0"),
    "kafka-producer-perf-test.sh": ("--help", 1, "usage: kafka-producer-perf-test"),
    "kafka-consumer-perf-test.sh": ("--version", 0, "4.4.0"),
    "kafka-share-consumer-perf-test.sh": ("--version", 0, "4.4.0"),
    "kafka-console-producer.sh": ("--version", 0, "4.4.0"),
    "kafka-console-consumer.sh": ("--version", 0, "4.4.0"),
    "kafka-get-offsets.sh": ("--version", 0, "4.4.0"),
    "kafka-reassign-partitions.sh": ("--version", 0, "4.4.0"),
    "kafka-metadata-quorum.sh": ("--help", 0, "usage: kafka-metadata-quorum"),
}
# A small heap and the first JIT tier: each check is a JVM that lives a second.
_QUICK_JVM = "-Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="module")
def kafka_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wrappers' folder, written over a copy of the installed Kafka's layout."""
    home = tmp_path_factory.mktemp("kafka-home")
    (home / "libs").symlink_to(distribution().libs)
    subprocess.run(["bash", str(SCRIPT), str(home)], check=True, timeout=60)
    return home / "bin"


def _on_path(kafka_bin: Path, **more: str) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{kafka_bin}{os.pathsep}{os.environ['PATH']}",
        "KAFKA_HEAP_OPTS": _QUICK_JVM,
        **more,
    }


def _run(command: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_every_wrapper_runs_its_kafka_tool(kafka_bin: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    assert sorted(p.name for p in kafka_bin.iterdir()) == sorted(IDENTITIES)
    env = _on_path(kafka_bin)
    # Two at a time, one JVM per core.
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {
            tool: pool.submit(_run, f"{tool} {option}", env)
            for tool, (option, _, _) in IDENTITIES.items()
        }
    for tool, (_, code, says) in IDENTITIES.items():
        done = runs[tool].result()
        out = done.stdout + done.stderr
        # A wrong class name would exit 1 with "Could not find or load main class".
        assert "main class" not in out, (tool, out)
        assert done.returncode == code, (tool, out)
        assert says in out, (tool, out)


def test_a_second_run_rewrites_nothing(kafka_bin: Path) -> None:
    before = {p.name: p.stat().st_mtime_ns for p in kafka_bin.iterdir()}
    subprocess.run(["bash", str(SCRIPT), str(kafka_bin.parent)], check=True, timeout=60)
    assert {p.name: p.stat().st_mtime_ns for p in kafka_bin.iterdir()} == before
    assert all(os.access(kafka_bin / name, os.X_OK) for name in before)


def test_a_wrapper_linked_from_elsewhere_finds_its_jars(kafka_bin: Path, tmp_path: Path) -> None:
    link = tmp_path / "kafka-topics.sh"
    link.symlink_to(kafka_bin / "kafka-topics.sh")
    done = _run(f"{link} --version", _on_path(tmp_path))
    assert (done.returncode, done.stdout.strip()) == (0, "4.4.0"), done.stderr


def test_the_reports_commands_run_as_written_against_a_broker(
    kafka_bin: Path, kafka: KRaftCluster
) -> None:
    from confluent_kafka import Consumer, TopicPartition

    topic = f"tools-{uuid.uuid4().hex[:8]}"
    env = _on_path(kafka_bin, BOOTSTRAP_SERVERS=kafka.bootstrap)
    # The report's "To create" line, exactly as the topic page prints it.
    created = _run(create_command(topic, partitions=3, replication_factor=1), env)
    assert created.returncode == 0, created.stdout + created.stderr
    listed = _run('kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --list', env)
    assert listed.returncode == 0, listed.stderr
    assert topic in listed.stdout.split()
    # And its "To apply" line for a topic that grows.
    altered = _run(alter_command(topic, partitions=6), env)
    assert altered.returncode == 0, altered.stdout + altered.stderr
    described = _run(
        f'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --describe --topic {topic}', env
    )
    assert "PartitionCount: 6" in described.stdout, described.stdout + described.stderr

    group = f"{topic}-group"
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": group})
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, 0)], asynchronous=False)
    finally:
        consumer.close()
    groups = _run('kafka-consumer-groups.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --list', env)
    assert groups.returncode == 0, groups.stderr
    assert group in groups.stdout.split()
