"""The audit of `apply`: rows written before a change and completed after, read back by
topic, printed by `show`; on SQLite and PostgreSQL, and in a store made before it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from planner.store import RecommendationStore
from planner.store.audit import STARTED, ApplyAttempt, finish_attempt, history, record_attempt
from planner.store.show import render_latest
from tests.store.conftest import run_for


def _attempt(topic: str, **changes: Any) -> ApplyAttempt:
    fields: dict[str, Any] = {
        "apply_id": "a1",
        "run_key": "20261120T0000Z",
        "source": "store sqlite:///x",
        "topic": topic,
        "mode": "execute",
        "planned_from": 12,
        "planned_to": 16,
        "observed": 12,
        "outcome": STARTED,
        "reason": "12 -> 16 partitions",
        "error": None,
        "who": "alice@host",
        "cluster": "kafka:9092",
        "started_at": dt.datetime(2026, 11, 27, 10, 0, tzinfo=dt.UTC),
    }
    return ApplyAttempt(**(fields | changes))


def test_an_attempt_is_written_before_and_completed_after(
    store_url: str, example_row: dict[str, Any]
) -> None:
    topic = example_row["topic"]
    with RecommendationStore(store_url) as store:
        store.publish_run(run_for("2026-11-20"), [example_row])
        row = record_attempt(store, _attempt(topic))
        # Killed here, the row says the change was started and not finished.
        [started] = history(store, topic)
        assert (started.outcome, started.finished_at) == (STARTED, None)
        finish_attempt(store, row, outcome="applied", reason="16 partitions, verified")
        record_attempt(
            store,
            _attempt(
                topic,
                apply_id="a2",
                outcome="refused",
                observed=13,
                reason="the topic has 13 partitions and the plan saw 12",
                finished_at=dt.datetime(2026, 11, 27, 11, 0, tzinfo=dt.UTC),
                started_at=dt.datetime(2026, 11, 27, 11, 0, tzinfo=dt.UTC),
            ),
        )
        record_attempt(store, _attempt("other", outcome="no-op"))
        rows = history(store, topic)
        assert [(r.apply_id, r.outcome) for r in rows] == [("a2", "refused"), ("a1", "applied")]
        assert rows[1].finished_at is not None and rows[1].started_at.tzinfo is not None
        assert len(history(store)) == 3
        text = render_latest(store, topic)
    applied = text.split("Applied (partition-planner apply, newest first)")[1]
    flat = " ".join(applied.split())
    assert (
        "2026-11-27 11:00:00 UTC execute by alice@host: 12 -> 16, was 13 (run 20261120T0000Z) "
        "-> refused the topic has 13 partitions and the plan saw 12"
    ) in flat
    assert (
        "2026-11-27 10:00:00 UTC execute by alice@host: 12 -> 16 (run 20261120T0000Z) -> applied"
        in flat
    )


def test_a_topic_never_applied_shows_no_audit(store_url: str, example_row: dict[str, Any]) -> None:
    with RecommendationStore(store_url) as store:
        store.publish_run(run_for("2026-11-20"), [example_row])
        assert "Applied" not in render_latest(store, example_row["topic"])


@pytest.mark.parametrize("bad", ["nul\x00in it"])
def test_text_postgresql_cannot_hold_is_refused(store_url: str, bad: str) -> None:
    from planner.store import StoreError

    with RecommendationStore(store_url) as store, pytest.raises(StoreError, match="who"):
        record_attempt(store, _attempt("t", who=bad))
