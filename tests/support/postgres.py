"""A throwaway PostgreSQL 15 server for tests: initdb + pg_ctl in a temporary folder.

The cluster lives in a fresh folder under the system temp dir, listens on a free
loopback port (its Unix socket stays inside that folder), trusts every local
connection, and is stopped and deleted on exit. PostgreSQL refuses to run as root
(`initdb` and `pg_ctl` both check), so when the tests run as root the server's own
commands run as the unprivileged `postgres` user (Debian's package creates it), or
`nobody`, through `runuser`; the folder is handed to that user. Client commands (`psql`)
and the tests' own connections go over TCP as the database superuser `postgres`.

Start-up (initdb, start, create the database) takes about two seconds here; `fsync` and
synchronous commit are off because the data is thrown away, which does not weaken what
the tests check: a client killed mid-transaction is rolled back by the server whatever
its durability settings.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.ports import free_port

BIN_DIR = Path("/usr/lib/postgresql/15/bin")
SUPERUSER = "postgres"
#: SQLAlchemy driver names, most preferred first; psycopg (3) is SQLAlchemy 2.1's default.
DRIVERS = ("psycopg", "psycopg2", "pg8000")


def installed_driver() -> str | None:
    """The first PostgreSQL DBAPI driver importable here, or None."""
    for driver in DRIVERS:
        if importlib.util.find_spec(driver) is not None:
            return driver
    return None


@dataclass(frozen=True)
class PostgresServer:
    """A running throwaway server.

    Attributes:
        port: Its TCP port on 127.0.0.1.
        database: The database created for the tests.
        root: The temporary folder (data, socket, log).
        startup_s: Seconds from initdb to the database being ready.
    """

    port: int
    database: str
    root: Path
    startup_s: float

    def url(self, driver: str | None = None, *, database: str | None = None) -> str:
        """A SQLAlchemy URL of the test database, or of `database` on this server.

        Args:
            driver: The DBAPI driver (default: the installed one).
            database: Another database on the server.
        """
        name = driver or installed_driver()
        scheme = "postgresql" if name is None else f"postgresql+{name}"
        return f"{scheme}://{SUPERUSER}@127.0.0.1:{self.port}/{database or self.database}"

    def psql(self, sql: str, *, database: str | None = None) -> str:
        """Run SQL with `psql` (no Python driver needed); stdout, unaligned, tuples only.

        Raises:
            subprocess.CalledProcessError: the SQL failed (psql stops at the first error).
        """
        out = subprocess.run(
            [
                str(BIN_DIR / "psql"),
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                SUPERUSER,
                "-d",
                database or self.database,
                "-f",
                "-",
            ],
            input=sql,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        return out.stdout

    def log_tail(self, lines: int = 40) -> str:
        """The end of the server log, for failure messages."""
        try:
            text = (self.root / "server.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


def _server_user() -> str | None:
    """The account the server runs as: None for the current one unless that is root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists")


def _as_server_user(user: str | None, argv: Sequence[str]) -> list[str]:
    return list(argv) if user is None else ["runuser", "-u", user, "--", *argv]


def _run(argv: Sequence[str], what: str, timeout_s: float) -> None:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s)
    if result.returncode != 0:
        raise RuntimeError(
            f"{what} failed with exit code {result.returncode}:\n{result.stdout}{result.stderr}"
        )


@contextlib.contextmanager
def running_postgres(
    database: str = "planner_test", *, timeout_s: float = 60.0
) -> Iterator[PostgresServer]:
    """Start a PostgreSQL 15 cluster in a temp folder, yield it, then stop and delete it.

    Args:
        database: Name of the database to create.
        timeout_s: Limit for initdb and for the server to accept connections.

    Raises:
        RuntimeError: the binaries are missing, or the server did not start (the
            message carries its log).
    """
    if not (BIN_DIR / "initdb").exists():
        raise RuntimeError(
            f"PostgreSQL 15 is not installed ({BIN_DIR}/initdb missing): "
            "apt-get install postgresql-15 (scripts/setup.sh does)"
        )
    user = _server_user()
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="planner-pg-"))
    data, sockets, log = root / "data", root / "sock", root / "server.log"
    sockets.mkdir()
    if user is not None:
        entry = pwd.getpwnam(user)
        for path in (root, sockets):
            os.chown(path, entry.pw_uid, entry.pw_gid)
    pg_ctl = str(BIN_DIR / "pg_ctl")
    running = False
    try:
        _run(
            _as_server_user(
                user,
                [
                    str(BIN_DIR / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    SUPERUSER,
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-sync",
                ],
            ),
            "initdb",
            timeout_s,
        )
        for attempt in range(3):  # another process may take the free port first
            port = free_port()
            options = (
                f"-k {sockets} -p {port} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            start = _as_server_user(
                user,
                [
                    pg_ctl,
                    "-D",
                    str(data),
                    "-l",
                    str(log),
                    "-w",
                    "-t",
                    str(int(timeout_s)),
                    "-o",
                    options,
                    "start",
                ],
            )
            try:
                _run(start, "pg_ctl start", timeout_s + 10)
                running = True
                break
            except RuntimeError:
                if attempt == 2 or "could not bind" not in log.read_text(errors="replace"):
                    raise RuntimeError(
                        f"PostgreSQL did not start:\n{log.read_text(errors='replace')}"
                    ) from None
        server = PostgresServer(port, database, root, 0.0)
        server.psql(f'CREATE DATABASE "{database}"', database="postgres")
        server = PostgresServer(port, database, root, time.monotonic() - started)
        yield server
    finally:
        if running:
            stop = [pg_ctl, "-D", str(data), "-w", "-t", "30", "stop"]
            try:
                _run(_as_server_user(user, [*stop, "-m", "fast"]), "pg_ctl stop", 40)
            except (RuntimeError, subprocess.TimeoutExpired):
                _run(_as_server_user(user, [*stop, "-m", "immediate"]), "pg_ctl stop", 40)
        shutil.rmtree(root, ignore_errors=True)
