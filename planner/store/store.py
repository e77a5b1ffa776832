"""The recommendation store: runs and their recommendations, with history.

One SQLAlchemy URL chooses the database: a SQLite file by default (embedded, nothing
to run), PostgreSQL in deployments (`postgresql+psycopg://user@host/db`). The same
statements run on both; every value travels as a bound parameter, so a topic name is
data whatever it contains.

Publishing is one transaction per run: the run's earlier published attempt (same data
interval: a rerun or a backfill) is marked `replaced` and its rows deleted, then the run
and all its rows are inserted, then the commit. A publish that dies at any point before
the commit leaves the store as it was. A failed run is recorded as an attempt of its own
and touches no published rows, so readers keep the last good run.

"Latest" follows the data, not the clock: the most recent *data interval* that was
published, so backfilling an old interval does not make it the latest.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from planner.figures.dataset import DataInterval
from planner.store.records import (
    COLUMNS,
    FAILED,
    FLEET_SCOPE,
    PUBLISHED,
    REPLACED,
    PreparedRow,
    Recommendation,
    Run,
    RunRecord,
    RunSummary,
    StoreError,
    check_scope,
    check_text,
    json_object,
    prepare_rows,
    run_counts,
)
from planner.store.tables import create_schema, tables

if TYPE_CHECKING:
    from sqlalchemy import Connection, Engine, RowMapping, Select

__all__ = ["RecommendationStore", "StoreUnavailable", "sqlite_url"]

#: Rows per INSERT batch: large enough to amortise round trips, small enough that a
#: 100,000-topic run does not build one giant statement.
BATCH_ROWS = 1_000
#: How often a publish is retried when a concurrent publish of the same interval
#: committed first (PostgreSQL reports that as a unique violation).
_PUBLISH_ATTEMPTS = 3
_BACKENDS = ("sqlite", "postgresql")

#: Called after each batch of a publish is sent, inside the transaction, with the rows
#: sent so far and the run's total. Raising aborts the publish; nothing is written.
BatchCallback = Callable[[int, int], None]


class StoreUnavailable(RuntimeError):
    """The store's database cannot be reached, or its driver is not installed."""


class _KeyTaken(Exception):
    """A concurrent publish of the same run key committed while this one ran."""


def sqlite_url(path: str | Path) -> str:
    """The URL of a SQLite store file at `path` (made absolute)."""
    return f"sqlite:///{Path(path).expanduser().resolve()}"


def _dumps(value: Any) -> str:
    # Values were made JSON-ready by prepare_rows; allow_nan=False makes a NaN that
    # slipped through fail here instead of writing JSON PostgreSQL would reject.
    return json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(",", ":"))


def _utc(moment: dt.datetime) -> dt.datetime:
    # SQLite returns naive datetimes (stored as UTC text); PostgreSQL aware ones in the
    # session's time zone. Both become aware UTC.
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


class RecommendationStore:
    """Runs and recommendations in a SQLite file or a PostgreSQL database.

    Args:
        url: SQLAlchemy URL, e.g. `sqlite:////var/lib/planner/store.db` or
            `postgresql+psycopg://planner@db.internal/planner`.
        batch_rows: Rows per INSERT batch when publishing.

    Raises:
        StoreError: a URL that is not SQLite or PostgreSQL.
        StoreUnavailable: the URL's driver is not installed.

    The tables are created on first use. Use it as a context manager, or call
    `close()`, to release its connections.
    """

    def __init__(self, url: str, *, batch_rows: int = BATCH_ROWS) -> None:
        import sqlalchemy as sa
        from sqlalchemy.engine import make_url

        if batch_rows < 1:
            raise StoreError(f"batch_rows must be >= 1, got {batch_rows}")
        try:
            parsed = make_url(url)
        except sa.exc.ArgumentError as exc:
            raise StoreError(f"store URL is not a database URL: {exc}") from None
        self._url = parsed.render_as_string(hide_password=True)
        backend = parsed.get_backend_name()
        if backend not in _BACKENDS:
            raise StoreError(f"store URL {self._url}: expected sqlite or postgresql, got {backend}")
        self._batch_rows = batch_rows
        options: dict[str, Any] = {"json_serializer": _dumps}
        if backend == "sqlite":
            database = parsed.database or ""
            if database and database != ":memory:" and not database.startswith("file:"):
                Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            # Wait for another writer rather than fail at once (seconds).
            options["connect_args"] = {"timeout": 30.0}
        else:
            options["pool_pre_ping"] = True
        try:
            self._engine: Engine = sa.create_engine(parsed, **options)
        except sa.exc.NoSuchModuleError as exc:
            raise StoreError(f"store URL {self._url}: {exc}") from None
        except ImportError as exc:
            raise StoreUnavailable(
                f"store URL {self._url}: the {parsed.drivername} driver is not installed "
                f"({exc}); for PostgreSQL install psycopg[binary]"
            ) from None
        if backend == "sqlite":
            _sqlite_transactions(self._engine)
        self._schema_ready = False

    @property
    def url(self) -> str:
        """The store's URL, password hidden."""
        return self._url

    def __repr__(self) -> str:
        return f"RecommendationStore({self._url!r})"

    def close(self) -> None:
        """Release the store's connections."""
        self._engine.dispose()

    def __enter__(self) -> RecommendationStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- writing ---------------------------------------------------------------------

    def publish_run(
        self,
        run: Run,
        rows: Iterable[Mapping[str, Any]] | pa.Table,
        summary: RunSummary | None = None,
        *,
        on_batch: BatchCallback | None = None,
    ) -> RunRecord:
        """Publish a run's recommendations, all or nothing.

        Args:
            run: The run (its data interval is the run key).
            rows: One recommendation per topic (mappings, or an Arrow table).
            summary: Validation results and rejected input rows.
            on_batch: Progress callback, see `BatchCallback`.

        Returns:
            The run as recorded.

        Raises:
            StoreError: a bad row, or no rows (nothing is written).
            StoreUnavailable: the database cannot be reached.
        """
        prepared = prepare_rows(rows, run.key)
        if not prepared:
            # Publishing nothing would replace the interval's rows with none: an empty
            # output is a failed run, not a result.
            raise StoreError(f"run {run.key}: no recommendation rows to publish")
        summary = summary or RunSummary()
        for _ in range(_PUBLISH_ATTEMPTS):
            try:
                with self._connect("publish run " + run.key) as conn:
                    run_id = self._publish(conn, run, prepared, summary, on_batch)
                return self._run(run_id)
            except _KeyTaken:
                continue  # the other publish is committed now: replace it
        raise StoreError(
            f"run {run.key}: {_PUBLISH_ATTEMPTS} concurrent publishes of this interval "
            "kept committing first; nothing was written by this one"
        )

    def record_failure(
        self, run: Run, message: str, summary: RunSummary | None = None
    ) -> RunRecord:
        """Record a run that failed: published rows, its interval's included, stay.

        Args:
            run: The run.
            message: Why it failed (suites, expectations and topics involved).
            summary: Validation results (the failing ones too) and rejected rows.

        Returns:
            The failed run as recorded.
        """
        import sqlalchemy as sa

        summary = summary or RunSummary()
        values = self._run_values(run, FAILED, {}, summary)
        values["message"] = check_text(message, f"run {run.key}, failure message")
        with self._connect(f"record failed run {run.key}") as conn:
            run_id = conn.execute(
                sa.insert(tables().runs).values(values).returning(tables().runs.c.id)
            ).scalar_one()
        return self._run(run_id)

    # --- reading ---------------------------------------------------------------------

    def runs(self, *, limit: int | None = None) -> list[RunRecord]:
        """Every recorded attempt, newest data interval first (then newest attempt)."""
        runs = tables().runs
        query = self._runs_query().order_by(runs.c.interval_start.desc(), runs.c.id.desc())
        if limit is not None:
            query = query.limit(_limit(limit))
        with self._connect("list runs") as conn:
            return [_run_record(row) for row in conn.execute(query).mappings()]

    def last_good_run(self, scope: str = FLEET_SCOPE) -> RunRecord | None:
        """The published run of `scope` with the newest data interval, or None."""
        runs = tables().runs
        query = (
            self._runs_query()
            .where(runs.c.status == PUBLISHED, runs.c.scope == check_scope(scope))
            .order_by(runs.c.interval_start.desc(), runs.c.id.desc())
            .limit(1)
        )
        with self._connect("find the last good run") as conn:
            row = conn.execute(query).mappings().first()
        return None if row is None else _run_record(row)

    def latest(self, topic: str) -> Recommendation | None:
        """The topic's recommendation from the newest published interval that has it."""
        found = self.history(topic, limit=1)
        return found[0] if found else None

    def history(self, topic: str, limit: int = 30) -> list[Recommendation]:
        """The topic's recommendations across published runs, newest interval first.

        Args:
            topic: The exact topic name (no patterns).
            limit: At most this many runs.
        """
        t = tables()
        query = (
            self._recommendations_query()
            .where(t.recommendations.c.topic == check_text(topic, "topic"))
            .order_by(t.runs.c.interval_start.desc(), t.runs.c.id.desc())
            .limit(_limit(limit))
        )
        with self._connect(f"read the history of topic {topic!r}") as conn:
            return [_recommendation(row) for row in conn.execute(query).mappings()]

    def recommendations(
        self, run_key: str | None = None, *, scope: str = FLEET_SCOPE
    ) -> list[Recommendation]:
        """Every topic of one published run (default: the last good run), by topic.

        Args:
            run_key: A data interval key, e.g. `20261121T0000Z`.
            scope: The run's scope (`fleet`, or `topic:<name>`).
        """
        t = tables()
        if run_key is None:
            last = self.last_good_run(scope)
            if last is None:
                return []
            run_key = last.key
        query = (
            self._recommendations_query()
            .where(
                t.runs.c.run_key == check_text(run_key, "run key"),
                t.runs.c.scope == check_scope(scope),
            )
            .order_by(t.recommendations.c.topic)
        )
        with self._connect(f"read run {run_key}") as conn:
            return [_recommendation(row) for row in conn.execute(query).mappings()]

    def topic_statuses(self, run: RunRecord) -> dict[str, str]:
        """Topic -> status of one published run: what the publish guard compares with
        (two columns, not the rows' detail: a 10,000-topic run's detail is megabytes)."""
        import sqlalchemy as sa

        t = tables().recommendations
        query = sa.select(t.c.topic, t.c.status).where(t.c.run_id == run.id)
        with self._connect(f"read the statuses of run {run.key}") as conn:
            return {row.topic: row.status for row in conn.execute(query)}

    @contextmanager
    def transaction(self, action: str) -> Iterator[Connection]:
        """A transaction on the store's tables (`planner.store.audit` writes through it).

        Args:
            action: What it is for, in words ("record the apply of 'orders'"), for the
                message of `StoreUnavailable`.
        """
        with self._connect(action) as conn:
            yield conn

    # --- internals -------------------------------------------------------------------

    @contextmanager
    def _connect(self, action: str) -> Iterator[Connection]:
        """A transaction, with the schema in place and connection errors explained."""
        import sqlalchemy as sa

        try:
            if not self._schema_ready:
                self._create_schema()
            with self._engine.begin() as conn:
                yield conn
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as exc:
            raise StoreUnavailable(f"store {self._url}: cannot {action}: {exc.orig}") from exc

    def _create_schema(self) -> None:
        import sqlalchemy as sa

        try:
            with self._engine.begin() as conn:
                create_schema(conn)
        except (sa.exc.IntegrityError, sa.exc.ProgrammingError):
            # Another process created the same objects between IF NOT EXISTS and the
            # insert into PostgreSQL's catalog; once is enough to see them.
            with self._engine.begin() as conn:
                create_schema(conn)
        self._schema_ready = True

    def _publish(
        self,
        conn: Connection,
        run: Run,
        rows: list[PreparedRow],
        summary: RunSummary,
        on_batch: BatchCallback | None,
    ) -> int:
        import sqlalchemy as sa

        t = tables()
        # A write first, so SQLite takes its write lock at once and PostgreSQL locks the
        # published attempt that this one replaces.
        replaced = (
            conn.execute(
                sa.update(t.runs)
                .where(
                    t.runs.c.scope == run.scope,
                    t.runs.c.run_key == run.key,
                    t.runs.c.status == PUBLISHED,
                )
                .values(status=REPLACED)
                .returning(t.runs.c.id)
            )
            .scalars()
            .all()
        )
        if replaced:
            conn.execute(
                sa.delete(t.recommendations).where(t.recommendations.c.run_id.in_(replaced))
            )
        values = self._run_values(run, PUBLISHED, run_counts(rows), summary)
        try:
            run_id: int = conn.execute(
                sa.insert(t.runs).values(values).returning(t.runs.c.id)
            ).scalar_one()
        except sa.exc.IntegrityError as exc:
            # uq_runs_published_key: another publish of this interval committed after
            # the UPDATE above looked. The caller rolls back and tries again.
            raise _KeyTaken from exc
        insert = sa.insert(t.recommendations)
        for start in range(0, len(rows), self._batch_rows):
            batch = rows[start : start + self._batch_rows]
            conn.execute(
                insert, [{"run_id": run_id, **r.columns, "detail": r.detail} for r in batch]
            )
            if on_batch is not None:
                on_batch(start + len(batch), len(rows))
        return run_id

    @staticmethod
    def _run_values(
        run: Run, status: str, counts: Mapping[str, int], summary: RunSummary
    ) -> dict[str, Any]:
        return {
            "scope": run.scope,
            "run_key": run.key,
            "interval_start": run.interval.start,
            "interval_end": run.interval.end,
            "started_at": run.started_at.astimezone(dt.UTC),
            "finished_at": dt.datetime.now(dt.UTC),
            "status": status,
            "topics": counts.get("topics", 0),
            "increases": counts.get("increases", 0),
            "missing_capacity": counts.get("missing_capacity", 0),
            "rejected_rows": summary.rejected_rows,
            "validation": json_object(summary.validation, f"run {run.key}, validation"),
            "source": json_object(run.source, f"run {run.key}, source"),
            "message": None,
        }

    def _run(self, run_id: int) -> RunRecord:
        query = self._runs_query().where(tables().runs.c.id == run_id)
        with self._connect(f"read run id {run_id}") as conn:
            return _run_record(conn.execute(query).mappings().one())

    @staticmethod
    def _runs_query() -> Select[Any]:
        import sqlalchemy as sa

        return sa.select(*_run_columns(""))

    @staticmethod
    def _recommendations_query() -> Select[Any]:
        import sqlalchemy as sa

        t = tables()
        return (
            sa.select(
                *(t.recommendations.c[name] for name in (*COLUMNS, "detail")),
                *_run_columns("run__"),
            )
            .join_from(t.recommendations, t.runs, t.recommendations.c.run_id == t.runs.c.id)
            .where(t.runs.c.status == PUBLISHED)
        )


@functools.cache
def _run_columns(prefix: str) -> tuple[Any, ...]:
    return tuple(column.label(prefix + column.name) for column in tables().runs.c)


def _limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise StoreError(f"limit must be a whole number >= 1, got {limit!r}")
    return limit


def _run_record(row: RowMapping, prefix: str = "") -> RunRecord:
    def get(name: str) -> Any:
        return row[prefix + name]

    return RunRecord(
        id=int(get("id")),
        key=get("run_key"),
        interval=DataInterval(_utc(get("interval_start")), _utc(get("interval_end"))),
        status=get("status"),
        started_at=_utc(get("started_at")),
        finished_at=_utc(get("finished_at")),
        topics=get("topics"),
        increases=get("increases"),
        missing_capacity=get("missing_capacity"),
        rejected_rows=get("rejected_rows"),
        validation=get("validation"),
        source=get("source"),
        message=get("message"),
        scope=get("scope"),
    )


def _recommendation(row: RowMapping) -> Recommendation:
    values = {name: row[name] for name in COLUMNS}
    for name in ("warnings", "rationale", "groups"):
        values[name] = tuple(values[name])
    return Recommendation(run=_run_record(row, "run__"), detail=row["detail"], **values)


def _sqlite_transactions(engine: Engine) -> None:
    """Make SQLAlchemy's transactions real SQLite transactions.

    Python's sqlite3 module (3.11) opens a transaction only before INSERT, UPDATE or
    DELETE: a SELECT or CREATE runs outside any transaction. Turning its own handling off
    and emitting BEGIN when SQLAlchemy begins gives consistent reads and atomic schema
    creation. Foreign keys are off by default in SQLite, per connection.
    """
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN")
