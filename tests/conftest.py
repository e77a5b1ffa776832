"""Shared fixtures. Servers are real; each is started once per test session."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner.adapters.kafka_dist import project_install
from planner.adapters.kraft import KRaftCluster
from tests.support import kafka as reference_kafka

# py4j logs "Closing down clientserver connection" at INFO from a finaliser that runs at
# interpreter exit, after pytest has closed the stream its handler writes to: the
# message then ends the run as a "--- Logging error ---" traceback. Its warnings stay.
logging.getLogger("py4j").setLevel(logging.WARNING)

_KAFKA_FIXTURES = ("kafka", "kafka_cluster")


def pytest_report_header() -> str:
    installed = project_install()
    if installed is None:
        return "Apache Kafka: not installed (run make test)"
    return f"Apache Kafka {installed.version} ({installed.home})"


@pytest.fixture(scope="session")
def kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KRaftCluster]:
    """A real Apache Kafka: one KRaft node (broker and controller) on a free loopback port."""
    with reference_kafka.single_node(tmp_path_factory.mktemp("kafka-single")) as cluster:
        yield cluster


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """The one local SparkSession of the test session, whatever package asks first.

    `local[2]`, two shuffle partitions, no web UI, UTC, Arrow on: the jobs' own session
    (`spark_jobs.session.build_session`). Code generation and adaptive execution are
    off: the test frames are small, and compiling each of the few hundred small queries
    a validation runs cost more than running them.
    """
    from spark_jobs.session import build_session
    from spark_jobs.settings import SparkSettings

    settings = SparkSettings(
        master="local[2]",
        shuffle_partitions=2,
        driver_memory="1g",
        ui=False,
        conf={
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.adaptive.enabled": "false",
            "spark.sql.codegen.wholeStage": "false",
            "spark.sql.codegen.factoryMode": "NO_CODEGEN",
        },
    )
    session = build_session(settings, "planner-tests")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def kafka_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KRaftCluster]:
    """Three real Apache Kafka nodes in racks a, b and c; started only when a test asks."""
    with reference_kafka.rack_cluster(tmp_path_factory.mktemp("kafka-racks")) as cluster:
        yield cluster


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Every test on the reference Kafka carries the `kafka` marker, so `-m kafka` (or
    # `-m "not kafka"`) selects them without each file having to say so.
    # Likewise `airflow` (the DAG tests) and `browser` (a headless Chromium), which
    # `make test-fast` leaves out with `slow`, `integration` and `kafka`.
    dags = Path(__file__).parent / "dags"
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if any(name in fixtures for name in _KAFKA_FIXTURES):
            item.add_marker(pytest.mark.kafka)
        if dags in Path(item.path).parents:
            item.add_marker(pytest.mark.airflow)
        if "browser" in fixtures:
            item.add_marker(pytest.mark.browser)
    # Files of minutes-long tests first: `make test` hands whole files to two workers in
    # collection order (`--no-loadscope-reorder`: xdist would otherwise start with the
    # files of most tests, which puts these few long ones last, one worker running them
    # alone at the end).
    items.sort(key=lambda item: item.get_closest_marker("first") is None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.failed:
        funcargs = getattr(item, "funcargs", {})
        for name in _KAFKA_FIXTURES:
            cluster = funcargs.get(name)
            if isinstance(cluster, KRaftCluster):
                report.sections.append(
                    (f"Apache Kafka ({name}) logs under {cluster.folder}", cluster.log_tail(60))
                )
    return report
