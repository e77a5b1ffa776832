"""The small fleet's figures and the test config (`spark` is tests/conftest.py's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.spark_jobs.fleet import Fleet, write_fleet

#: The settings file the job tests pass with --config: few shuffle partitions, as the
#: shared session (tests/conftest.py), so that a job run does not retune the session for
#: the next test.
TEST_CONFIG = """\
[figures]
history_days = 30

[spark.conf]
"spark.sql.shuffle.partitions" = "2"
"""


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    """The small fleet of `tests.spark_jobs.fleet`, written once (read-only for tests)."""
    return write_fleet(tmp_path_factory.mktemp("figures"))


@pytest.fixture(scope="session")
def test_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A planner config file with the test session's Spark settings."""
    path = tmp_path_factory.mktemp("config") / "planner.toml"
    path.write_text(TEST_CONFIG)
    return path
