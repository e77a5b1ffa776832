"""The reference Kafka itself: installed from Maven Central, started, found, stopped."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from planner.adapters import kafka_dist
from planner.adapters.kafka_dist import KafkaNotFound, from_home, pinned_version
from planner.adapters.kraft import KRaftCluster, free_port
from tests.support.java import compiled
from tests.support.kafka import distribution

ROOT = Path(__file__).resolve().parents[2]


def test_the_installed_kafka_is_the_version_the_pom_pins() -> None:
    installed = distribution()
    assert installed.version == pinned_version()
    assert (installed.libs / f"kafka_2.13-{installed.version}.jar").is_file()
    assert installed.agent("jmx_prometheus_javaagent") is not None


def test_the_running_broker_is_the_pinned_apache_kafka(kafka: KRaftCluster) -> None:
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    log = kafka.nodes[0].log_path.read_text()
    assert f"Kafka version: {kafka.version}" in log
    topic = f"kraft-smoke-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(timeout=15)
    producer = Producer({"bootstrap.servers": kafka.bootstrap})
    for i in range(30):
        producer.produce(topic, key=f"k{i}", value=b"x" * 10)
    assert producer.flush(15) == 0
    consumer = Consumer(
        {"bootstrap.servers": kafka.bootstrap, "group.id": topic, "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([topic])
    seen = 0
    for _ in range(200):
        message = consumer.poll(0.1)
        if message is not None and message.error() is None:
            seen += 1
        if seen == 30:
            break
    consumer.close()
    assert seen == 30


def test_auto_created_topics_are_off_in_the_tests(kafka: KRaftCluster) -> None:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
    metadata = admin.list_topics(topic=f"never-created-{uuid.uuid4().hex[:6]}", timeout=5)
    assert all(t.error is not None for t in metadata.topics.values())


def test_the_rack_cluster_has_three_brokers_in_racks_a_b_c(kafka_cluster: KRaftCluster) -> None:
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": kafka_cluster.bootstrap})
    described = admin.describe_cluster(request_timeout=10).result()
    assert sorted((n.id, n.rack) for n in described.nodes) == [(1, "a"), (2, "b"), (3, "c")]


def test_make_kafka_starts_reports_and_stops_a_broker(tmp_path: Path) -> None:
    import urllib.request

    port, jmx_port = free_port(), free_port()
    folder = tmp_path / "broker"
    command = [sys.executable, "-m", "planner.adapters.kraft"]
    env = {**os.environ, "KAFKA_PORT": str(port), "JMX_PORT": str(jmx_port)}
    stop_hint = f"stop it:    make kafka-stop KAFKA_DIR={folder}"
    try:
        started = subprocess.run(
            [*command, "start", "--dir", str(folder)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"bootstrap:  127.0.0.1:{port}" in started.stdout
        assert f"metrics:    http://127.0.0.1:{jmx_port}/metrics" in started.stdout
        # The hint names the folder: a plain `make kafka-stop` would look in var/kafka-broker.
        assert stop_hint in started.stdout
        # The agent serves the repository's rules' names (the planner's default queries).
        with urllib.request.urlopen(f"http://127.0.0.1:{jmx_port}/metrics", timeout=60) as got:
            metrics = got.read().decode()
        assert "kafka_server_brokertopicmetrics_bytesin_total" in metrics
        again = subprocess.run(
            [*command, "start", "--dir", str(folder)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert again.returncode == 0
        assert "already running" in again.stdout
        assert f"127.0.0.1:{port}" in again.stdout
        assert f"metrics:    http://127.0.0.1:{jmx_port}/metrics" in again.stdout
        assert stop_hint in again.stdout
    finally:
        stopped = subprocess.run(
            [*command, "stop"],
            capture_output=True,
            text=True,
            env={**os.environ, "KAFKA_DIR": str(folder)},
            timeout=60,
            check=False,
        )
    assert stopped.returncode == 0
    assert "stopped Kafka" in stopped.stdout
    pid = (
        int((folder / "node-1" / "pid").read_text())
        if (folder / "node-1" / "pid").exists()
        else None
    )
    assert pid is None


def test_make_kafka_passes_the_folder_and_the_exporter_port() -> None:
    def planned(*variables: str) -> str:
        # Under `make test` this make is a child of another: without the parent's
        # variables and with --no-print-directory it prints only its own commands.
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        done = subprocess.run(
            ["make", "--no-print-directory", "-n", *variables],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        return done.stdout.splitlines()[-1].strip()

    assert planned("kafka").endswith("start --dir 'var/kafka-broker'")
    assert planned("kafka", "KAFKA_DIR=/tmp/b", "JMX_PORT=7071").endswith(
        "start --dir '/tmp/b' --jmx-port '7071'"
    )
    assert planned("kafka-stop", "KAFKA_DIR=/tmp/b").endswith("stop --dir '/tmp/b'")


def test_a_taken_port_is_refused_with_the_variable_to_change(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "planner.adapters.kraft", "start", "--dir", str(tmp_path)],
            capture_output=True,
            text=True,
            env={**os.environ, "KAFKA_PORT": str(port)},
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert "KAFKA_PORT" in done.stdout


def test_find_prefers_the_named_home_then_path_then_the_project(tmp_path: Path) -> None:
    tarball = tmp_path / "kafka_2.13-9.9.9"
    (tarball / "libs").mkdir(parents=True)
    (tarball / "bin").mkdir()
    (tarball / "libs" / "kafka-clients-9.9.9.jar").write_bytes(b"")
    script = tarball / "bin" / "kafka-producer-perf-test.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    assert kafka_dist.find(tarball).version == "9.9.9"
    assert kafka_dist.find(path=str(tarball / "bin")).version == "9.9.9"
    assert kafka_dist.find(path=str(tmp_path)) == distribution()


def test_a_folder_without_kafka_jars_is_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(KafkaNotFound, match=str(tmp_path)):
        from_home(tmp_path)


def test_java_programs_compile_once_against_the_kafka_jars(tmp_path: Path) -> None:
    source = tmp_path / "Murmur.java"
    source.write_text(
        "public class Murmur { public static void main(String[] a) {"
        " System.out.println(org.apache.kafka.common.utils.Utils.murmur2(a[0].getBytes())); } }"
    )
    kafka = distribution()
    classes = compiled("murmur-test", [source], kafka)
    assert compiled("murmur-test", [source], kafka) == classes
    out = subprocess.run(
        kafka.java_command("Murmur", ["a"], extra_classpath=[classes]),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    from planner.partitioners import murmur2

    assert int(out) == murmur2(b"a")
