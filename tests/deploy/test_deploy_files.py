"""The files under deploy/, run for real where this machine can: the store's init SQL on
a real PostgreSQL 15, airflow-init.sh with a stand-in `airflow`, make-env.sh with Compose,
the Prometheus config with promtool."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.compose import ROOT, SECRET_VARS, run_compose
from tests.support.postgres import BIN_DIR, PostgresServer, running_postgres

DEPLOY = ROOT / "deploy"
INIT_SQL = DEPLOY / "postgres" / "10-planner-store.sql"
#: The test environment's bin folder: its `python` has the planner, as the image's does.
VENV_BIN = Path(sys.executable).parent


# --- the store's database: deploy/postgres/10-planner-store.sql --------------------------


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    """A fresh PostgreSQL 15 with the image's superuser, `airflow`, and its database."""
    with running_postgres("airflow") as server:
        server.psql("CREATE ROLE airflow SUPERUSER LOGIN", database="postgres")
        yield server


def _run_init_sql(server: PostgresServer, password: str | None) -> subprocess.CompletedProcess[str]:
    """Run the script as the postgres image's entrypoint does (psql, ON_ERROR_STOP)."""
    env = {k: v for k, v in os.environ.items() if k != "PLANNER_STORE_PASSWORD"}
    if password is not None:
        env["PLANNER_STORE_PASSWORD"] = password
    argv = [str(BIN_DIR / "psql"), "-v", "ON_ERROR_STOP=1", "--no-password", "--no-psqlrc"]
    argv += ["-h", "127.0.0.1", "-p", str(server.port), "-U", "airflow", "-d", "airflow"]
    argv += ["-f", str(INIT_SQL)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.integration
def test_init_sql_without_the_password_stops_and_says_so(postgres: PostgresServer) -> None:
    done = _run_init_sql(postgres, None)
    assert done.returncode != 0
    assert "PLANNER_STORE_PASSWORD is not set" in done.stdout + done.stderr
    assert postgres.psql("SELECT count(*) FROM pg_roles WHERE rolname = 'planner'").strip() == "0"


@pytest.mark.integration
def test_init_sql_creates_the_store_database_its_owner_can_use(postgres: PostgresServer) -> None:
    from planner.store import RecommendationStore

    password = 'it\'s a "secret"'  # quoted by psql, whatever it holds
    done = _run_init_sql(postgres, password)
    assert done.returncode == 0, done.stderr
    role = postgres.psql(
        "SELECT rolcanlogin, rolsuper, rolpassword LIKE 'SCRAM-SHA-256$%' "
        "FROM pg_authid WHERE rolname = 'planner'"
    )
    assert role.strip() == "t|f|t"
    owner = "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'planner_store'"
    assert postgres.psql(owner).strip() == "planner"
    # The store creates its tables on first use, as the planner role (PostgreSQL 15 gives
    # the public schema to the database owner only).
    url = f"postgresql+psycopg://planner@127.0.0.1:{postgres.port}/planner_store"
    with RecommendationStore(url) as store:
        assert store.runs() == []
    tables = postgres.psql(
        "SELECT tablename || ':' || tableowner FROM pg_tables WHERE schemaname = 'public' "
        "ORDER BY 1",
        database="planner_store",
    )
    assert tables.split() == ["apply_attempts:planner", "recommendations:planner", "runs:planner"]


# --- deploy/airflow-init.sh ---------------------------------------------------------------


@pytest.fixture
def init_env(tmp_path: Path) -> dict[str, str]:
    """airflow-init's environment, on temp folders, with an `airflow` that only records."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    airflow = fake_bin / "airflow"
    airflow.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/airflow.calls\n')
    airflow.chmod(0o755)
    config = (DEPLOY / "planner.toml").read_text().replace("/var/lib/planner", f"{tmp_path}/data")
    (tmp_path / "planner.toml").write_text(config)
    return {
        "PATH": f"{fake_bin}:{VENV_BIN}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PLANNER_CONFIG": str(tmp_path / "planner.toml"),
        "AIRFLOW_ADMIN_PASSWORD": "admin-password",
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": f"{tmp_path}/auth/passwords.json",
    }


def _airflow_init(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DEPLOY / "airflow-init.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_airflow_init_migrates_sets_the_admin_password_and_makes_the_folders(
    init_env: dict[str, str], tmp_path: Path
) -> None:
    passwords = Path(init_env["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"])
    passwords.parent.mkdir()
    passwords.write_text('{"admin": "old", "viewer": "generated"}\n')
    done = _airflow_init(init_env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "airflow.calls").read_text() == "db migrate\n"
    assert json.loads(passwords.read_text()) == {"admin": "admin-password", "viewer": "generated"}
    assert stat.S_IMODE(passwords.stat().st_mode) == 0o600
    data = tmp_path / "data"
    assert sorted(p.name for p in data.iterdir()) == ["figures", "landing", "work"]
    # A second run changes nothing it need not.
    assert _airflow_init(init_env).returncode == 0
    assert json.loads(passwords.read_text())["admin"] == "admin-password"


def test_airflow_init_stops_on_a_bad_config_before_migrating(
    init_env: dict[str, str], tmp_path: Path
) -> None:
    config = Path(init_env["PLANNER_CONFIG"])
    config.write_text(config.read_text() + "\n[unknown]\n")
    done = _airflow_init(init_env)
    assert done.returncode != 0
    assert "unknown" in done.stderr
    assert not (tmp_path / "airflow.calls").exists()


def test_airflow_init_needs_the_admin_password(init_env: dict[str, str]) -> None:
    del init_env["AIRFLOW_ADMIN_PASSWORD"]
    done = _airflow_init(init_env)
    assert done.returncode != 0
    assert "AIRFLOW_ADMIN_PASSWORD" in done.stderr


# --- deploy/make-env.sh -------------------------------------------------------------------


def test_make_env_writes_fresh_secrets_compose_accepts(tmp_path: Path) -> None:
    env_file = tmp_path / "secrets.env"
    script = str(DEPLOY / "make-env.sh")
    done = subprocess.run([script, str(env_file)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    values = dict(
        line.split("=", 1) for line in env_file.read_text().splitlines() if not line.startswith("#")
    )
    assert set(values) == set(SECRET_VARS)
    for name in ("AIRFLOW_DB_PASSWORD", "PLANNER_STORE_PASSWORD"):
        # Written unquoted into URLs and JSON connection strings: hex needs no escaping.
        int(values[name], 16)
    for name, value in values.items():
        # Nothing a .env file or Compose's interpolation would read specially.
        assert value.strip("=").replace("-", "").replace("_", "").isalnum(), name
    assert len(base64.urlsafe_b64decode(values["AIRFLOW_FERNET_KEY"])) == 32
    assert len(values["AIRFLOW_JWT_SECRET"]) >= 64  # HMAC-SHA512 key
    assert len(set(values.values())) == len(values)

    result = run_compose(["config", "--quiet"], {}, env_file=env_file)
    assert result.returncode == 0, result.stderr

    again = subprocess.run([script, str(env_file)], capture_output=True, text=True, check=False)
    assert again.returncode != 0 and "not overwriting" in again.stderr


# --- deploy/prometheus.yml ----------------------------------------------------------------


def test_prometheus_config_is_valid() -> None:
    done = subprocess.run(
        ["promtool", "check", "config", str(DEPLOY / "prometheus.yml")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
