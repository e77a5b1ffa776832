"""An Airflow home of the tests' own, and the planner environment the DAGs read.

Each test session gets a fresh Airflow home with a migrated SQLite metadata database
(about 5 s). The DAGs read their configuration as in a deployment: the planner config
path from the environment (`PLANNER_CONFIG`), Spark from the `planner_spark` connection
(an `AIRFLOW_CONN_...` variable, `local[2]`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner.deployment import CONFIG_ENV, SPARK_CONN_ID

# The sample landing folder of the pipeline tests (written once per session).
from tests.pipeline.conftest import sample_landing as sample_landing

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class PlannerHome:
    """One planner deployment on disk: its config and where it writes."""

    root: Path
    config: Path
    env: Mapping[str, str]

    @property
    def store_url(self) -> str:
        return f"sqlite:///{self.root / 'store.db'}"

    @property
    def report(self) -> Path:
        return self.root / "report"

    def airflow(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        """The `airflow` command line in this home."""
        return subprocess.run(
            [str(BIN / "airflow"), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(self.env),
            cwd=self.root,
        )


def airflow_env(airflow_home: Path, config: Path | None) -> dict[str, str]:
    """The environment a deployment gives Airflow (see scripts/airflow-env.sh)."""
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "AIRFLOW_HOME": str(airflow_home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(ROOT / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
        f"AIRFLOW_CONN_{SPARK_CONN_ID.upper()}": '{"conn_type": "spark", "host": "local[2]"}',
        "PYSPARK_PYTHON": sys.executable,
    }
    if config is not None:
        env[CONFIG_ENV] = str(config)
    return env


def write_config(root: Path, landing: Path) -> Path:
    """A planner config with every path under `root`."""
    root.mkdir(parents=True, exist_ok=True)
    config = root / "planner.toml"
    config.write_text(
        f"""
[figures]
root = "figures"
history_days = 30

[sources]
use = ["landing"]

[sources.landing]
path = "{landing}"

[store]
url = "sqlite:///{root / "store.db"}"

[report]
dir = "report"

[work]
dir = "work"

[spark.conf]
"spark.sql.shuffle.partitions" = "4"
""",
        encoding="utf-8",
    )
    return config


def migrated_airflow_home(home: Path) -> Path:
    """`home` made an Airflow home with a migrated SQLite metadata database."""
    home.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [str(BIN / "airflow"), "db", "migrate"],
        capture_output=True,
        text=True,
        timeout=300,
        env=airflow_env(home, None),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return home


@pytest.fixture(scope="session")
def airflow_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated Airflow home (SQLite), shared by the session's DAG runs."""
    return migrated_airflow_home(tmp_path_factory.mktemp("airflow"))


def planner_home(airflow_home: Path, root: Path, landing: Path) -> PlannerHome:
    """A planner deployment under `root` that the DAGs in `airflow_home` use."""
    config = write_config(root, landing)
    return PlannerHome(root, config, airflow_env(airflow_home, config))
