"""One writer at a time: an advisory lock on a file, across processes.

Used where several processes may write the same thing at once: Airflow runs (a backfill
starts several runs together, each collecting into the same figures dataset) and
publishes of one site. POSIX `flock`: the kernel releases the lock when the holder
closes the file or dies, so a killed writer never leaves it held.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["exclusive"]


@contextlib.contextmanager
def exclusive(path: str | Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the `with` block.

    Blocks until the lock is free.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock, also when the process dies
