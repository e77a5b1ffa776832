"""Fixtures of the live tests: topics on the reference Kafka, created once per session."""

from __future__ import annotations

import pytest

from planner.adapters.kraft import KRaftCluster
from tests.integration.topics import GROUP_PARTITIONS, create_topics


@pytest.fixture(scope="session")
def group_topics(kafka: KRaftCluster) -> dict[str, str]:
    """t1 (5 partitions), t2 (7) and t3 (3) under fresh names: short name -> real name."""
    return create_topics(kafka.bootstrap, GROUP_PARTITIONS, prefix="groups-")
