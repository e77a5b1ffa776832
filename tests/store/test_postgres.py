"""The store's schema on a real PostgreSQL 15, through `psql` (no Python driver needed).

These run even where no PostgreSQL driver is installed: the DDL the store runs is
compiled for PostgreSQL by SQLAlchemy and executed by the server itself, so a type or
index that PostgreSQL rejects fails here. The store's statements end to end on
PostgreSQL are the `[postgresql]` cases of the other store tests.
"""

from __future__ import annotations

import os
import random
import socket
import string
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from planner.store.records import MAX_TOPIC_BYTES
from planner.store.tables import schema_statements
from tests.support.postgres import PostgresServer, running_postgres

pytestmark = pytest.mark.integration


@pytest.fixture
def empty_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A new, empty database on the session's server; its name."""
    name = f"ddl_{uuid.uuid4().hex[:12]}"
    postgres_server.psql(f'CREATE DATABASE "{name}"', database="postgres")
    yield name
    postgres_server.psql(f'DROP DATABASE "{name}" WITH (FORCE)', database="postgres")


def _ddl() -> str:
    from sqlalchemy.dialects import postgresql

    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    return ";\n".join(schema_statements(dialect)) + ";\n"


def test_the_schema_is_created_and_created_again(
    postgres_server: PostgresServer, empty_database: str
) -> None:
    postgres_server.psql(_ddl(), database=empty_database)
    postgres_server.psql(_ddl(), database=empty_database)  # IF NOT EXISTS: idempotent

    columns = postgres_server.psql(
        "SELECT table_name || '.' || column_name || ' ' || data_type "
        "FROM information_schema.columns WHERE table_schema = 'public' "
        "AND column_name IN ('interval_start', 'validation', 'warnings', 'groups', "
        "'detail', 'mib_in_peak_per_s', 'topic', 'keyed') ORDER BY 1",
        database=empty_database,
    ).splitlines()
    assert columns == [
        "apply_attempts.topic text",  # the audit of `apply` (issue 36)
        "recommendations.detail jsonb",
        "recommendations.groups jsonb",
        "recommendations.keyed boolean",
        "recommendations.mib_in_peak_per_s double precision",
        "recommendations.topic text",
        "recommendations.warnings jsonb",
        "runs.interval_start timestamp with time zone",
        "runs.validation jsonb",
    ]
    indexes = postgres_server.psql(
        "SELECT indexname || ': ' || indexdef FROM pg_indexes "
        "WHERE schemaname = 'public' ORDER BY indexname",
        database=empty_database,
    ).splitlines()
    assert [line.split(":")[0] for line in indexes] == [
        "apply_attempts_pkey",
        "ix_apply_attempts_topic",
        "ix_recommendations_topic_run",
        "ix_runs_status_interval",
        "recommendations_pkey",
        "runs_pkey",
        "uq_runs_published_key",
    ]
    assert indexes[2].endswith("USING btree (topic, run_id)")
    assert indexes[-1].endswith("WHERE ((status)::text = 'published'::text)")


def test_one_published_attempt_per_run_key_and_rows_go_with_their_run(
    postgres_server: PostgresServer, empty_database: str
) -> None:
    postgres_server.psql(_ddl(), database=empty_database)
    run = (
        "INSERT INTO runs (run_key, interval_start, interval_end, started_at, finished_at, "
        "status, topics, increases, missing_capacity, rejected_rows, validation, source) "
        "VALUES ('20261121T0000Z', '2026-11-21Z', '2026-11-22Z', now(), now(), '{status}', "
        "0, 0, 0, 0, '{{}}', '{{}}');\n"
    )
    postgres_server.psql(
        run.format(status="replaced")
        + run.format(status="failed")
        + run.format(status="published")
        + "INSERT INTO recommendations (run_id, topic, status, warnings, rationale, groups, "
        "detail) SELECT max(id), 'orders', 'ok', '[]', '[]', '[]', '{}' FROM runs;\n",
        database=empty_database,
    )
    with pytest.raises(subprocess.CalledProcessError) as caught:
        postgres_server.psql(run.format(status="published"), database=empty_database)
    assert 'unique constraint "uq_runs_published_key"' in caught.value.stderr
    # A new topic planned by hand over the same interval is a run of its own.
    postgres_server.psql(
        run.format(status="published")
        .replace("(run_key,", "(scope, run_key,", 1)
        .replace("VALUES (", "VALUES ('topic:payments.new', ", 1),
        database=empty_database,
    )
    left = postgres_server.psql(
        "DELETE FROM runs WHERE status = 'published' AND scope = 'fleet';\n"
        "SELECT count(*) FROM recommendations;",
        database=empty_database,
    )
    assert left.strip() == "0"  # ON DELETE CASCADE


def test_the_server_runs_unprivileged_and_is_removed_on_exit() -> None:
    with running_postgres("probe") as server:
        assert server.psql("SELECT current_database()").strip() == "probe"
        data = server.root / "data"
        owner = os.stat(data / "postmaster.pid").st_uid
        if os.geteuid() == 0:
            assert owner != 0  # PostgreSQL would not run as root
        assert server.startup_s < 30
        port = server.port
    assert not server.root.exists()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_the_longest_topic_name_fits_postgresqls_indexes(
    postgres_server: PostgresServer, empty_database: str
) -> None:
    postgres_server.psql(_ddl(), database=empty_database)
    rng = random.Random(7)

    def insert(size: int) -> str:
        # Random letters do not compress, so the index entry is as long as the name.
        topic = "".join(rng.choice(string.ascii_letters) for _ in range(size))
        return (
            "INSERT INTO recommendations (run_id, topic, status, warnings, rationale, "
            f"groups, detail) SELECT max(id), '{topic}', 'ok', '[]', '[]', '[]', '{{}}' "
            "FROM runs;\n"
        )

    postgres_server.psql(
        "INSERT INTO runs (run_key, interval_start, interval_end, started_at, finished_at, "
        "status, topics, increases, missing_capacity, rejected_rows, validation, source) "
        "VALUES ('20261121T0000Z', '2026-11-21Z', '2026-11-22Z', now(), now(), 'published', "
        "1, 0, 0, 0, '{}', '{}');\n" + insert(MAX_TOPIC_BYTES),
        database=empty_database,
    )
    with pytest.raises(subprocess.CalledProcessError) as caught:
        postgres_server.psql(insert(2_800), database=empty_database)
    assert "exceeds btree version 4 maximum 2704" in caught.value.stderr
