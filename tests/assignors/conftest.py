"""The session's Kafka oracle: Kafka 4.4.0's own assignors in one JVM (``tests/oracle``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.oracle.java_oracle import JavaOracle, running_oracle
from tests.support.kafka import distribution


@pytest.fixture(scope="session")
def kafka_oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JavaOracle]:
    """A JVM running Kafka's RangeAssignor, RoundRobinAssignor, StickyAssignor,
    CooperativeStickyAssignor and murmur2 on request; its log is in the fixture's folder."""
    with running_oracle(distribution(), tmp_path_factory.mktemp("kafka-oracle")) as oracle:
        yield oracle


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The oracle runs the reference Kafka's jars: `-m "not kafka"` leaves these out too.
    for item in items:
        if "kafka_oracle" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.kafka)
