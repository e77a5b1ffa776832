"""A real Airflow: API server, scheduler and DAG processor on loopback, LocalExecutor,
metadata in a throwaway PostgreSQL 15. `partition_planner` is backfilled over two data
intervals with `airflow backfill create`, the runs waited for (bounded) through the REST
API, and their results checked in the store and the published site. Every process is
stopped at the end. (`plan_new_topic` triggered on such a scheduler is
tests/dags/test_new_topic_ui.py's, through the UI.)
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner.store import PUBLISHED, RecommendationStore
from tests.dags.conftest import BIN, PlannerHome, airflow_env, write_config
from tests.support.ports import free_port
from tests.support.postgres import PostgresServer, running_postgres

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.first]

# Two UTC days of the sample fleet (its last whole day is 2026-11-20): a backfill of more
# than one interval, run in order, each published. (A third day cost CI three minutes.)
BACKFILL_DAYS = ("20261119T0000Z", "20261120T0000Z")
WAIT_S = 1500.0


class Airflow:
    """Airflow's REST API on loopback, with a token from the simple auth manager."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self._token: str | None = None

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
        return json.loads(text) if text else None

    def login(self) -> None:
        # all_admins mode hands a token to anyone on this loopback-only server.
        self._token = self._call("GET", "/auth/token")["access_token"]

    def get(self, path: str) -> Any:
        return self._call("GET", path)

    def post(self, path: str, body: Any) -> Any:
        return self._call("POST", path, body)

    def patch(self, path: str, body: Any) -> Any:
        return self._call("PATCH", path, body)


def _wait(what: str, check: Any, timeout_s: float, logs: Path) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(urllib.error.URLError, ConnectionError, KeyError):
            value = check()
            if value:
                return value
        time.sleep(2)
    tails = "\n".join(
        f"--- {p.name}\n" + p.read_text(errors="replace")[-3000:]
        for p in sorted(logs.glob("*.log"))
    )
    raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}\n{tails}")


@contextlib.contextmanager
def running_airflow(env: dict[str, str], logs: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """The three Airflow services, each in its own process group; stopped on exit."""
    logs.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for name, args in (
            ("api-server", ["api-server", "--port", env["AIRFLOW_TEST_PORT"]]),
            ("dag-processor", ["dag-processor"]),
            ("scheduler", ["scheduler"]),
        ):
            out = (logs / f"{name}.log").open("wb")
            procs.append(
                subprocess.Popen(
                    [str(BIN / "airflow"), *args],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    start_new_session=True,
                )
            )
        yield procs
    finally:
        for proc in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


@pytest.fixture(scope="module")
def metadata_db() -> Iterator[PostgresServer]:
    with running_postgres("airflow") as server:
        yield server


def _env(home: Path, metadata: PostgresServer, planner: Path, port: int) -> dict[str, str]:
    url = metadata.url("psycopg", database="airflow")
    env = airflow_env(home, planner)
    env.update(
        {
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": "2",
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            # No cron runs: this test triggers and backfills. Unpaused, partition_planner
            # would also start its latest scheduled interval (yesterday, which the sample
            # fleet does not cover: it fails, is retried, and takes the executor's slots
            # from the runs under test for a minute and a half).
            "AIRFLOW__SCHEDULER__USE_JOB_SCHEDULE": "False",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": url,
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC": url,
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{port}/execution/",
            "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{port}",
            "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_hex(32),
            "AIRFLOW__API__SECRET_KEY": secrets.token_hex(32),
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "10",
            "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "2",
            "AIRFLOW_TEST_PORT": str(port),
        }
    )
    return env


# Two fleet runs, each three Spark submissions: minutes. (A run triggered on this real
# scheduler is tests/dags/test_new_topic_ui.py's, through the UI.)
@pytest.mark.timeout(3600)
def test_a_real_scheduler_runs_a_two_day_backfill(
    metadata_db: PostgresServer, sample_landing: Path, tmp_path: Path
) -> None:
    port = free_port()
    root = tmp_path / "planner"
    config = write_config(root, sample_landing)
    env = _env(tmp_path / "airflow", metadata_db, config, port)
    home = PlannerHome(root, config, env)
    migrated = home.airflow("db", "migrate", timeout=600)
    assert migrated.returncode == 0, migrated.stderr[-3000:]
    logs = tmp_path / "logs"

    with running_airflow(env, logs):
        api = Airflow(port)
        _wait("the API server", lambda: api.get("/api/v2/version"), 180, logs)
        api.login()
        _wait("the DAG to be parsed", lambda: api.get("/api/v2/dags/partition_planner"), 240, logs)
        api.patch("/api/v2/dags/partition_planner", {"is_paused": False})

        backfill = home.airflow(
            "backfill",
            "create",
            "--dag-id",
            "partition_planner",
            # Runs whose logical date (the interval's start, for this timetable) lies in
            # [from, to]: the intervals of the 19th and 20th.
            "--from-date",
            "2026-11-19",
            "--to-date",
            "2026-11-20",
            timeout=120,
        )
        assert backfill.returncode == 0, backfill.stdout[-2000:] + backfill.stderr[-2000:]

        def backfill_done() -> list[dict[str, Any]] | None:
            runs = api.get("/api/v2/dags/partition_planner/dagRuns?run_type=backfill")["dag_runs"]
            states = [r["state"] for r in runs]
            finished = len(runs) >= len(BACKFILL_DAYS) and all(
                s in ("success", "failed") for s in states
            )
            return runs if finished else None

        runs = _wait("the backfill runs", backfill_done, len(BACKFILL_DAYS) * WAIT_S, logs)
    assert sorted(r["state"] for r in runs) == ["success"] * len(BACKFILL_DAYS), runs
    starts = sorted(r["data_interval_start"][:10] for r in runs)
    assert starts == ["2026-11-19", "2026-11-20"]

    with RecommendationStore(home.store_url) as store:
        published = [r for r in store.runs() if r.status == PUBLISHED and r.scope == "fleet"]
        assert sorted(r.key for r in published) == list(BACKFILL_DAYS)
    datasets = root / "work" / "datasets" / "recommendations"
    assert sorted(p.name for p in datasets.iterdir()) == [f"run={k}" for k in BACKFILL_DAYS]
    assert (root / "report" / "index.html").is_file()
