"""A publish that dies half-way leaves the previous rows intact and none of its own.

Two ways to die, on both backends: a publisher process SIGKILLed while its transaction
is open (after 2,000 of 4,000 rows were sent, replacing the same interval), and an
exception raised between two batches.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planner.store import RecommendationStore
from tests.store.conftest import run_for
from tests.store.rows import fleet_rows

ROOT = Path(__file__).resolve().parents[2]
#: Rerun 2026-11-21 in batches of 500 rows and stop, transaction open, after 2,000.
HOLD = ("2026-11-21", "500", "2000")


def _snapshot(store: RecommendationStore) -> tuple[list[Any], list[dict[str, Any]]]:
    return store.runs(), [r.as_row() for r in store.recommendations()]


def _sqlite_file(url: str) -> Path | None:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return Path(parsed.database or "") if parsed.get_backend_name() == "sqlite" else None


def test_a_publisher_killed_mid_transaction_changes_nothing(
    store_url: str, example_row: dict[str, Any], tmp_path: Path
) -> None:
    run = run_for("2026-11-21")
    with RecommendationStore(store_url) as store:
        store.publish_run(run, fleet_rows(example_row, 300, seed=1))
        before = _snapshot(store)
    rows_path = tmp_path / "rerun.json"
    rows_path.write_text(json.dumps(fleet_rows(example_row, 4_000, seed=2)))

    child = subprocess.Popen(
        [sys.executable, "-m", "tests.store.publisher", store_url, str(rows_path), *HOLD],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        seen: list[str] = []
        while not seen or seen[-1] != "sent 2000 of 4000":
            line = child.stdout.readline()
            assert line, f"publisher ended early: {seen} {child.communicate()[1]}"
            seen.append(line.strip())
        database = _sqlite_file(store_url)
        if database is not None:
            # The open write transaction's rollback journal: the kill lands mid-transaction.
            assert database.with_name(database.name + "-journal").exists()
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert seen == [f"sent {n} of 4000" for n in (500, 1000, 1500, 2000)]

    with RecommendationStore(store_url) as store:
        assert _snapshot(store) == before
        assert store.latest("fleet.topic-03999") is None
        # The store is usable at once: the same interval publishes cleanly.
        again = store.publish_run(run, fleet_rows(example_row, 100, seed=2))
        assert store.last_good_run() == again and again.topics == 100


def test_an_exception_between_batches_rolls_the_publish_back(
    store_url: str, example_row: dict[str, Any]
) -> None:
    def fail_after_two_batches(sent: int, total: int) -> None:
        if sent >= 2 * 250:
            raise RuntimeError(f"injected after {sent} of {total} rows")

    with RecommendationStore(store_url, batch_rows=250) as store:
        store.publish_run(run_for("2026-11-21"), fleet_rows(example_row, 300, seed=1))
        store.publish_run(run_for("2026-11-22"), fleet_rows(example_row, 200, seed=3))
        before = _snapshot(store)
        for day in ("2026-11-21", "2026-11-23"):  # a rerun, and a new interval
            with pytest.raises(RuntimeError, match="injected after 500 of 1000 rows"):
                store.publish_run(
                    run_for(day),
                    fleet_rows(example_row, 1_000, seed=4),
                    on_batch=fail_after_two_batches,
                )
        assert _snapshot(store) == before
