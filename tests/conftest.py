"""Shared fixtures. Servers are real; each is started once per test session."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from tests.support.broker import Broker, running_broker

# py4j logs "Closing down clientserver connection" at INFO from a finaliser that runs at
# interpreter exit, after pytest has closed the stream its handler writes to: the
# message then ends the run as a "--- Logging error ---" traceback. Its warnings stay.
logging.getLogger("py4j").setLevel(logging.WARNING)


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[Broker]:
    """A real Kafka-protocol broker (tansu) on loopback, memory storage."""
    with running_broker() as broker:
        yield broker
