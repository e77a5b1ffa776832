"""Store fixtures: the example's real recommendation, and a fresh store per backend.

Every store test runs on SQLite and on PostgreSQL. PostgreSQL is a real server started
once per session (`tests.support.postgres`); each test gets a database of its own on it.
The PostgreSQL variant is skipped, with the reason, when no PostgreSQL driver is
installed in the environment; the server is not started then.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from planner.examples import Example, load_example
from planner.figures import DataInterval
from planner.recommend import TopicPlan
from planner.store import RecommendationStore, Run, sqlite_url
from tests.store.rows import facts_row, recommendation_row
from tests.support.postgres import PostgresServer, installed_driver, running_postgres

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.integration)]
NO_DRIVER = "no PostgreSQL driver (psycopg) in the environment: add psycopg[binary] to run this"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL 15 server in a temp folder, for the whole session."""
    with running_postgres() as server:
        yield server


@pytest.fixture(scope="session")
def example() -> Example:
    """The bundled example topic's inputs."""
    return load_example()


@pytest.fixture(scope="session")
def example_plan(example: Example) -> TopicPlan:
    """The bundled example topic, planned by the core."""
    from planner.recommend import plan_topic

    return plan_topic(
        example.history,
        example.producer,
        example.consumer,
        brokers=example.brokers,
        groups=example.groups,
    )


@pytest.fixture(scope="session")
def example_facts(example: Example) -> dict[str, Any]:
    """The example topic's facts row, as the sizing job reads its figures."""
    return facts_row(
        example.history,
        example.producer,
        example.consumer,
        example.groups,
        capacity_source=example.capacity_source,
    )


@pytest.fixture(scope="session")
def example_row(
    example: Example, example_plan: TopicPlan, example_facts: dict[str, Any]
) -> dict[str, Any]:
    """The example topic's recommendation row, without a run (copy it to change it)."""
    return recommendation_row(example_plan, example.history, example_facts, brokers=example.brokers)


def run_for(day: str, **source: Any) -> Run:
    """A run of the UTC day `day` (YYYY-MM-DD), started at 01:00 the next day."""
    interval = DataInterval.parse(day)
    return Run(interval, interval.end + dt.timedelta(hours=1), source)


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """The URL of an empty store: a SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield sqlite_url(tmp_path / "store.db")
        return
    if installed_driver() is None:
        pytest.skip(NO_DRIVER)
    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = f"store_{uuid.uuid4().hex[:12]}"
    server.psql(f'CREATE DATABASE "{name}"', database="postgres")
    yield server.url(database=name)
    server.psql(f'DROP DATABASE "{name}" WITH (FORCE)', database="postgres")


@pytest.fixture
def fresh_store(store_url: str) -> Iterator[RecommendationStore]:
    """An empty store on each backend."""
    with RecommendationStore(store_url) as store:
        yield store
