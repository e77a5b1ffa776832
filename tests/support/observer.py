"""`partition-planner observe` as the live tests run it: the real command in a child process.

The observer samples a test's own broker into an observations folder; the tests collect
intervals from it with `ObservationsSource`, as `collect` and `plan` do.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["observer_config", "sleep_until", "start_observer"]

ROOT = Path(__file__).resolve().parents[2]


def observer_config(
    path: Path, *, bootstrap: str, observations: Path, every_s: float, step_s: float
) -> Path:
    """Write a planner config that observes `bootstrap` into `observations` every
    `every_s` seconds, with windows of `step_s`; returns `path`.

    Share and streams groups are not described (`group_tools`: a JVM start each), and a
    sample's requests time out after 3 s, so a slow moment costs one sample, not several.
    """
    path.write_text(
        '[sources]\nuse = ["kafka"]\n[sources.kafka]\n'
        f'bootstrap = "{bootstrap}"\nobservations = "{observations}"\n'
        f"observe_every_s = {every_s}\nstep_s = {step_s}\ngroup_tools = false\n"
        "sample_timeout_s = 3\nrequest_timeout_s = 3\n"
    )
    return path


def start_observer(config: Path, log: Path) -> subprocess.Popen[bytes]:
    """`partition-planner observe --config CONFIG`, its output appended to `log`."""
    return subprocess.Popen(
        [sys.executable, "-m", "planner.cli", "observe", "--config", str(config)],
        cwd=ROOT,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def sleep_until(moment: float) -> None:
    """Sleep until the wall clock reaches `moment` (seconds since the epoch)."""
    time.sleep(max(0.0, moment - time.time()))
