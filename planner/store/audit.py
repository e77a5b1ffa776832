"""The audit of `partition-planner apply`: every attempt on a topic, and its result.

`apply` writes a row before it asks Kafka for a change (outcome `started`) and
completes it after (`applied`, `failed`, ...), so a process killed in between leaves a
row that says so; dry runs, no-ops and refusals are written whole at once. Rows are
never deleted. `partition-planner show TOPIC` prints a topic's last ones.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from planner.store.records import check_text
from planner.store.tables import tables

if TYPE_CHECKING:
    from planner.store.store import RecommendationStore

__all__ = ["STARTED", "ApplyAttempt", "finish_attempt", "history", "record_attempt"]

#: The outcome of a row whose call to Kafka has not come back (yet).
STARTED = "started"


@dataclass(frozen=True)
class ApplyAttempt:
    """One attempt of `apply` on one topic.

    Attributes:
        apply_id: The `apply` invocation (one id for all its topics).
        run_key: The published run applied (None: a file that did not say).
        source: Where the run was read.
        topic: The topic.
        mode: `dry-run` or `execute`.
        planned_from: The count the plan saw (None: a topic to create).
        planned_to: The count to have.
        observed: The count on the cluster before the attempt (None: no such topic, or
            the cluster could not be read).
        outcome: `applied`, `would-apply`, `no-op`, `refused`, `failed`,
            `not-attempted`, `unverified`, or `started` (no result came back).
        reason: Why, in words.
        error: Kafka's error name, when it refused or failed.
        who: Who ran it.
        cluster: The brokers.
        started_at: When, UTC.
        finished_at: When the result came, UTC (None: `started`).
        id: The row's id (None before it is written).
    """

    apply_id: str
    run_key: str | None
    source: str
    topic: str
    mode: str
    planned_from: int | None
    planned_to: int
    observed: int | None
    outcome: str
    reason: str | None
    error: str | None
    who: str
    cluster: str
    started_at: dt.datetime
    finished_at: dt.datetime | None = None
    id: int | None = None


def record_attempt(store: RecommendationStore, attempt: ApplyAttempt) -> int:
    """Write `attempt`; returns its row id."""
    import sqlalchemy as sa

    t = tables().apply_attempts
    values = {
        name: getattr(attempt, name)
        for name in (
            "apply_id", "run_key", "source", "topic", "mode", "planned_from", "planned_to",
            "observed", "outcome", "reason", "error", "who", "cluster", "started_at",
            "finished_at",
        )
    }  # fmt: skip
    for name in ("source", "topic", "reason", "error", "who", "cluster"):
        if values[name] is not None:
            values[name] = check_text(values[name], f"apply attempt, {name}")
    with store.transaction(f"record the apply of {attempt.topic!r}") as conn:
        return int(conn.execute(sa.insert(t).values(values).returning(t.c.id)).scalar_one())


def finish_attempt(
    store: RecommendationStore,
    row_id: int,
    *,
    outcome: str,
    reason: str | None,
    error: str | None = None,
    observed: int | None = None,
) -> None:
    """Complete a `started` row with its result."""
    import sqlalchemy as sa

    t = tables().apply_attempts
    values: dict[str, Any] = {
        "outcome": outcome,
        "reason": None if reason is None else check_text(reason, "apply attempt, reason"),
        "error": error,
        "finished_at": dt.datetime.now(dt.UTC),
    }
    if observed is not None:
        values["observed"] = observed
    with store.transaction(f"complete apply row {row_id}") as conn:
        conn.execute(sa.update(t).where(t.c.id == row_id).values(values))


def history(
    store: RecommendationStore, topic: str | None = None, *, limit: int = 20
) -> list[ApplyAttempt]:
    """The newest attempts, of one topic or all, newest first."""
    import sqlalchemy as sa

    t = tables().apply_attempts
    query = sa.select(t).order_by(t.c.id.desc()).limit(limit)
    if topic is not None:
        query = query.where(t.c.topic == check_text(topic, "topic"))
    with store.transaction("read the apply history") as conn:
        rows = conn.execute(query).mappings().all()
    return [
        ApplyAttempt(
            **{k: v for k, v in row.items() if k not in ("started_at", "finished_at")},
            started_at=_utc(row["started_at"]),
            finished_at=None if row["finished_at"] is None else _utc(row["finished_at"]),
        )
        for row in rows
    ]


def _utc(moment: dt.datetime) -> dt.datetime:
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)
