"""One local SparkSession for the whole test session, and the small fleet's figures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.spark.fleet import Fleet, write_fleet

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: The settings file the job tests pass with --config: few shuffle partitions, as the
#: shared session, so that a job run does not retune the session for the next test.
TEST_CONFIG = """\
[figures]
history_days = 30

[spark.conf]
"spark.sql.shuffle.partitions" = "2"
"""


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """A local[2] SparkSession: two shuffle partitions, no web UI, UTC, Arrow on."""
    from spark_jobs.session import build_session
    from spark_jobs.settings import SparkSettings

    session = build_session(
        SparkSettings(master="local[2]", shuffle_partitions=2, driver_memory="1g", ui=False),
        "planner-tests",
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    """The small fleet of `tests.spark.fleet`, written once (read-only for tests)."""
    return write_fleet(tmp_path_factory.mktemp("figures"))


@pytest.fixture(scope="session")
def test_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A planner config file with the test session's Spark settings."""
    path = tmp_path_factory.mktemp("config") / "planner.toml"
    path.write_text(TEST_CONFIG)
    return path
