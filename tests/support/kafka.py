"""The reference Apache Kafka of the tests: the jars ``make test`` installs, run in KRaft.

Two clusters, each started once per test session and only when a test asks for it:

- ``kafka``: one combined broker-controller node (about 3.5 s to start);
- ``kafka_cluster``: three nodes with ``broker.rack`` a, b and c (about 10 s), for
  replication, racks and a broker that goes down. A test that stops a node starts it
  again before it ends.

Each node has a bounded heap, keeps its data and log under pytest's temporary folder, and
dies with the test process. A failing test that used either cluster gets the log's last
lines in its report (see ``tests/conftest.py``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from planner.adapters.kafka_dist import KafkaDistribution, project_install
from planner.adapters.kraft import KRaftCluster

SINGLE_NODE_HEAP_MB = 512
CLUSTER_NODE_HEAP_MB = 384
RACKS = ("a", "b", "c")
# The client JIT only and the serial collector: a test broker lives minutes and moves
# megabytes, so C2's compilations and G1's threads were most of its CPU on two cores
# (three nodes, first 20 s: 18.7 CPU-s with Kafka's G1 and tiered JIT, 10.8 with these).
TEST_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

# Settings every test cluster shares: topics exist only when a test creates them, and the
# internal topics have a few partitions (Kafka's 50 cost seconds on the first group).
TEST_PROPERTIES = {
    "auto.create.topics.enable": "false",
    "offsets.topic.num.partitions": "5",
    "transaction.state.log.num.partitions": "5",
    "share.coordinator.state.topic.num.partitions": "5",
}


def distribution() -> KafkaDistribution:
    """The installed reference Kafka; a clear failure when ``make test`` did not install it."""
    installed = project_install()
    if installed is None:
        raise RuntimeError(
            "Apache Kafka is not installed in var/kafka: run `make test` (or scripts/setup.sh), "
            "which fetches the version pinned in scripts/kafka/pom.xml from Maven Central"
        )
    return installed


@contextlib.contextmanager
def single_node(folder: Path, **properties: str) -> Iterator[KRaftCluster]:
    """One KRaft node with the tests' settings (plus ``properties``)."""
    cluster = KRaftCluster(
        distribution(),
        folder,
        heap_mb=SINGLE_NODE_HEAP_MB,
        base_jvm_options=TEST_JVM_OPTIONS,
        properties={**TEST_PROPERTIES, **properties},
    )
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@contextlib.contextmanager
def rack_cluster(folder: Path, **properties: str) -> Iterator[KRaftCluster]:
    """Three KRaft nodes in racks a, b and c with the tests' settings."""
    cluster = KRaftCluster(
        distribution(),
        folder,
        nodes=len(RACKS),
        racks=RACKS,
        heap_mb=CLUSTER_NODE_HEAP_MB,
        base_jvm_options=TEST_JVM_OPTIONS,
        properties={**TEST_PROPERTIES, **properties},
    )
    try:
        cluster.start(timeout_s=90)
        yield cluster
    finally:
        cluster.stop()
