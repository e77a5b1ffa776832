"""The fleet report's "New topics planned": the creation plans in the store, linked."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from planner.pipeline.creation_plans import new_topics_dir, recent_creation_plans
from planner.store import RecommendationStore, sqlite_url
from tests.store.conftest import run_for


def _row(topic: str, status: str, partitions: int | None) -> dict[str, Any]:
    return {"topic": topic, "status": status, "recommended_partitions": partitions}


def _plan(store: RecommendationStore, topic: str, day: str, partitions: int) -> None:
    request = {"topic": topic, "requested_at": f"{day}T12:00:00+00:00", "parameters": {}}
    run = dataclasses.replace(run_for(day, request=request), scope=f"topic:{topic}")
    store.publish_run(run, [_row(topic, "create", partitions)])


def test_the_newest_plan_of_each_topic_is_linked_when_its_page_is_published(
    tmp_path: Path,
) -> None:
    report = tmp_path / "report"
    with RecommendationStore(sqlite_url(tmp_path / "store.db")) as store:
        _plan(store, "payments.v2", "2026-11-20", 12)
        store.publish_run(run_for("2026-11-21"), [_row("orders", "ok", None)])
        _plan(store, "payments.v2", "2026-11-22", 18)  # planned again: the newest counts
        _plan(store, "ledger.v3", "2026-11-23", 6)
        page = new_topics_dir(report) / "payments.v2" / "topics" / "payments.v2.html"
        page.parent.mkdir(parents=True)
        page.write_text("<!DOCTYPE html>")
        links = recent_creation_plans(store, report, most=20)
        assert [(n.topic, n.partitions, n.status) for n in links] == [
            ("ledger.v3", 6, "create"),
            ("payments.v2", 18, "create"),
        ]
        ledger, payments = links
        assert ledger.href is None  # its site is not beside this report
        assert payments.href == "../report-new-topics/payments.v2/topics/payments.v2.html"
        assert f"{payments.requested_at:%Y-%m-%d %H:%M}" == "2026-11-22 12:00"
        # Both were published after the last fleet run (the 21st's).
        assert ledger.since_last_run and payments.since_last_run
        assert [n.topic for n in recent_creation_plans(store, report, most=1)] == ["ledger.v3"]
        store.publish_run(run_for("2026-11-24"), [_row("orders", "ok", None)])
        assert not any(n.since_last_run for n in recent_creation_plans(store, report))
