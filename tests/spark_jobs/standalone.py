"""A real Spark standalone cluster on loopback: one master and one worker.

Both run from the pyspark distribution in the virtual environment
(`bin/spark-class org.apache.spark.deploy.master.Master` / `...worker.Worker`), bound
to 127.0.0.1 on free ports, with the master's REST submission server off. Start-up is
bounded (each daemon must log that it is up within `startup_s`), and the daemons are
always stopped, each by its own process group, even when start-up fails.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import pyspark

SPARK_HOME = Path(pyspark.__file__).parent


@dataclass(frozen=True)
class Cluster:
    """A running standalone cluster."""

    url: str
    home: Path
    logs: Path

    def submit_env(self, python: str) -> dict[str, str]:
        """Environment for spark-submit: the venv's Python for driver and executors."""
        return {
            **os.environ,
            "SPARK_HOME": str(self.home),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYSPARK_PYTHON": python,
            "PYSPARK_DRIVER_PYTHON": python,
        }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _daemon_env(work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",
        "SPARK_WORKER_DIR": str(work),
    }


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        # A session of its own, so that stopping it reaches whatever it started.
        return subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )


def _wait_for(process: subprocess.Popen[bytes], log: Path, line: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        if line in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
    raise RuntimeError(f"{log.name}: no {line!r} in time (exit {process.poll()}):\n{tail}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@contextmanager
def standalone_cluster(
    base: Path, *, cores: int = 2, memory: str = "2g", startup_s: float = 120.0
) -> Iterator[Cluster]:
    """Start a master and a worker under `base`, yield the cluster, stop both."""
    logs = base / "logs"
    work = base / "work"
    logs.mkdir(parents=True)
    work.mkdir()
    env = _daemon_env(work)
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    started: list[subprocess.Popen[bytes]] = []
    try:
        deadline = time.monotonic() + startup_s
        master = _start(
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(_free_port()),
            ],
            logs / "master.log",
            env,
        )
        started.append(master)
        _wait_for(master, logs / "master.log", "I have been elected leader", deadline)
        worker = _start(
            [
                "org.apache.spark.deploy.worker.Worker",
                url,
                "--host",
                "127.0.0.1",
                "--cores",
                str(cores),
                "--memory",
                memory,
                "--webui-port",
                str(_free_port()),
                "--work-dir",
                str(work),
            ],
            logs / "worker.log",
            env,
        )
        started.append(worker)
        _wait_for(worker, logs / "worker.log", "Successfully registered with master", deadline)
        yield Cluster(url, SPARK_HOME, logs)
    finally:
        for process in reversed(started):
            _stop(process)
