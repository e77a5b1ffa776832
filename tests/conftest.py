"""Shared fixtures. Servers are real; each is started once per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.broker import Broker, running_broker


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[Broker]:
    """A real Kafka-protocol broker (tansu) on loopback, memory storage."""
    with running_broker() as broker:
        yield broker
