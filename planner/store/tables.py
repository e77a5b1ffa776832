"""The store's tables, in SQLAlchemy Core, portable between SQLite and PostgreSQL.

    runs                     one row per publish or failure (an attempt)
      id                     surrogate key
      scope                  fleet, or topic:<name> for a new topic planned by hand
      run_key                data interval key, e.g. 20261121T0000Z
      interval_start/_end    the data interval, UTC
      started_at/finished_at UTC
      status                 published | failed | replaced
      topics, increases, missing_capacity, rejected_rows
      validation, source     JSON
      message                why a failed run failed
    recommendations          one row per topic per published run
      run_id -> runs.id, topic      primary key
      ... one column per field in `planner.store.records.COLUMNS` ...
      detail                 JSON: every other field of the row
    apply_attempts           one row per topic per `partition-planner apply` (dry runs too)
      id, apply_id           the row; the invocation it belongs to (one per apply)
      run_key, source        the published run applied, and where it was read
      topic, mode            the topic; dry-run | execute
      planned_from/_to       the change: the count the plan saw, the count to have
      observed               the count on the cluster before the attempt (NULL: no topic)
      outcome, reason        applied | would-apply | no-op | refused | failed |
                             not-attempted | unverified | started; why, in words
      error                  Kafka's error name when the cluster refused or failed
      who, cluster           who ran it; the brokers (no credentials)
      started_at/finished_at UTC (finished_at NULL while started)

Core rather than the ORM: the store moves batches of plain rows in and out, and
`executemany` inserts of dictionaries are what a publish is; mapped classes would add
an identity map and unit of work that a write-once, read-as-values store never uses.

Portability choices: `JSON` (a `JSONB` variant on PostgreSQL, so warnings and detail
can be queried and indexed there), `Double` for figures, `Text` for names (no length
limit: the store takes any topic string), timestamps with a time zone (stored as UTC;
SQLite keeps them as ISO text, which sorts in time order). Partial unique index
`uq_runs_published_key` allows one `published` attempt per (scope, run key) on both backends,
so two concurrent publishes of one interval cannot both stay published.

Schema creation is `CREATE TABLE/INDEX IF NOT EXISTS`, run on first use: idempotent,
and safe when several processes open a new store at once. docs/store.md says how a
migration tool (Alembic) takes over when the schema first changes.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.store.records import COLUMNS, FLEET_SCOPE, PUBLISHED, Kind

if TYPE_CHECKING:
    from sqlalchemy import Connection, MetaData, Table
    from sqlalchemy.engine.interfaces import Dialect
    from sqlalchemy.sql.ddl import ExecutableDDLElement

__all__ = ["Tables", "create_schema", "schema_statements", "tables"]


class Tables(NamedTuple):
    """The store's metadata and its tables."""

    metadata: MetaData
    runs: Table
    recommendations: Table
    apply_attempts: Table


@functools.cache
def tables() -> Tables:
    """Build the table definitions (once: SQLAlchemy is imported only when needed)."""
    import sqlalchemy as sa
    from sqlalchemy.dialects import postgresql

    def json_type() -> sa.types.TypeEngine[Any]:
        # none_as_null: a Python None is SQL NULL, not the JSON literal `null`.
        return sa.JSON(none_as_null=True).with_variant(
            postgresql.JSONB(none_as_null=True), "postgresql"
        )

    def utc() -> sa.DateTime:
        return sa.DateTime(timezone=True)

    metadata = sa.MetaData()
    runs = sa.Table(
        "runs",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        # Kafka names are at most 249 characters; the store takes longer ones (MAX_TOPIC_BYTES).
        sa.Column("scope", sa.Text, nullable=False, server_default=FLEET_SCOPE),
        sa.Column("run_key", sa.String(32), nullable=False),
        sa.Column("interval_start", utc(), nullable=False),
        sa.Column("interval_end", utc(), nullable=False),
        sa.Column("started_at", utc(), nullable=False),
        sa.Column("finished_at", utc(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("topics", sa.Integer, nullable=False),
        sa.Column("increases", sa.Integer, nullable=False),
        sa.Column("missing_capacity", sa.Integer, nullable=False),
        sa.Column("rejected_rows", sa.Integer, nullable=False),
        sa.Column("validation", json_type(), nullable=False),
        sa.Column("source", json_type(), nullable=False),
        sa.Column("message", sa.Text, nullable=True),
    )
    status = runs.c.status == sa.literal_column(f"'{PUBLISHED}'")
    sa.Index(
        "uq_runs_published_key",
        runs.c.scope,
        runs.c.run_key,
        unique=True,
        sqlite_where=status,
        postgresql_where=status,
    )
    sa.Index("ix_runs_status_interval", runs.c.status, runs.c.interval_start)

    column_type: dict[Kind, sa.types.TypeEngine[Any]] = {
        "text": sa.Text(),
        "int": sa.Integer(),
        "float": sa.Double(),
        "bool": sa.Boolean(),
        "texts": json_type(),
        "objects": json_type(),
    }
    recommendations = sa.Table(
        "recommendations",
        metadata,
        sa.Column(
            "run_id",
            sa.Integer,
            sa.ForeignKey("runs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        *(
            sa.Column(
                name,
                column_type[kind],
                primary_key=name == "topic",
                # Lists are stored as [] when empty, so readers never meet NULL there.
                nullable=name not in ("topic", "status") and kind not in ("texts", "objects"),
            )
            for name, kind in COLUMNS.items()
        ),
        sa.Column("detail", json_type(), nullable=False),
    )
    # History and trend queries go by topic, then run.
    sa.Index("ix_recommendations_topic_run", recommendations.c.topic, recommendations.c.run_id)
    # The audit of `apply`: a new table, so a store made before gains it on first use
    # (CREATE TABLE IF NOT EXISTS) and no migration is needed; never deleted from.
    apply_attempts = sa.Table(
        "apply_attempts",
        metadata,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("apply_id", sa.String(36), nullable=False),
        sa.Column("run_key", sa.String(32), nullable=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("topic", sa.Text, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("planned_from", sa.Integer, nullable=True),
        sa.Column("planned_to", sa.Integer, nullable=False),
        sa.Column("observed", sa.Integer, nullable=True),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("who", sa.Text, nullable=False),
        sa.Column("cluster", sa.Text, nullable=False),
        sa.Column("started_at", utc(), nullable=False),
        sa.Column("finished_at", utc(), nullable=True),
    )
    sa.Index("ix_apply_attempts_topic", apply_attempts.c.topic, apply_attempts.c.id)
    return Tables(metadata, runs, recommendations, apply_attempts)


def _ddl() -> list[ExecutableDDLElement]:
    from sqlalchemy.schema import CreateIndex, CreateTable

    statements: list[ExecutableDDLElement] = []
    for table in tables().metadata.sorted_tables:
        statements.append(CreateTable(table, if_not_exists=True))
        statements.extend(
            CreateIndex(index, if_not_exists=True)
            for index in sorted(table.indexes, key=lambda i: str(i.name))
        )
    return statements


def create_schema(connection: Connection) -> None:
    """Create the tables and indexes that do not exist yet (idempotent)."""
    for statement in _ddl():
        connection.execute(statement)


def schema_statements(dialect: Dialect) -> list[str]:
    """The DDL `create_schema` runs, as SQL text for `dialect` (for review and tests)."""
    return [str(statement.compile(dialect=dialect)).strip() for statement in _ddl()]
