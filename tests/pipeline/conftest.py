"""A sample fleet as a landing folder, planned once with the real `partition-planner plan`.

The fleet is the sample generator's (40 topics, 10 days, keyed topics and multi-topic
groups included), with two hostile additions that must reach the report as text:

- a consumer group whose id is markup (Kafka allows any group id), reading a real topic;
- throughput rows whose topic is markup (illegal in Kafka: rejected at collection, and
  shown as rejected examples on the index).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

# The Spark tests' one local session, for the tests that run steps in-process.

END = date(2026, 11, 21)  # exclusive end of the sample's history
RUN_DAY = "2026-11-20"  # the last whole day: the run's data interval
RUN_KEY = "20261120T0000Z"
HOSTILE_GROUP = '<script>alert("group")</script>'
HOSTILE_TOPIC = "<img src=x onerror=alert(1)>"
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Planned:
    """A landing folder and the output folder of one successful `plan` run."""

    landing: Path
    out: Path
    stdout: str
    stderr: str

    @property
    def store_url(self) -> str:
        return f"sqlite:///{self.out / 'store.db'}"


def show(topic: str, store_url: str) -> subprocess.CompletedProcess[str]:
    """`partition-planner show TOPIC --store URL`, in its own process."""
    return subprocess.run(
        [
            str(Path(sys.executable).parent / "partition-planner"),
            "show",
            topic,
            "--store",
            store_url,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )


def plan(
    landing: Path, out: Path, *extra: str, interval: str | None = RUN_DAY
) -> subprocess.CompletedProcess[str]:
    """`partition-planner plan` as a platform engineer runs it (its own process).

    `interval=None` leaves `--interval` out: the command picks the day.
    """
    return subprocess.run(
        [
            str(Path(sys.executable).parent / "partition-planner"),
            "plan",
            "--landing",
            str(landing),
            "--out",
            str(out),
            *(["--interval", interval] if interval else []),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )


def write_sample(folder: Path, topics: int = 40, days: int = 10) -> Path:
    """The sample generator's landing folder, with the hostile additions."""
    from planner.cli import main

    args = ["sample", "--topics", str(topics), "--days", str(days), "--out", str(folder)]
    assert main([*args, "--end", END.isoformat(), "--seed", "7"]) == 0
    with (folder / "topics" / "topics.csv").open() as handle:
        first_topic = next(csv.DictReader(handle))["topic"]
    with (folder / "groups" / "hostile.jsonl").open("w") as handle:
        row = {"group_id": HOSTILE_GROUP, "topic": first_topic, "strategy": "range", "members": 2}
        handle.write(json.dumps(row) + "\n")
    with (folder / "throughput" / "hostile.csv").open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["topic", "ts", "bytes_in_per_s", "records_in_per_s"])
        out.writerow([HOSTILE_TOPIC, f"{RUN_DAY}T05:00:00Z", "100", "1"])
    return folder


def unreadable_capacity(landing: Path) -> Path:
    """Every figure of the capacity file unreadable (`fast`, `n/a`), as a careless export
    writes it; returns the file."""
    path = landing / "capacity" / "capacity.csv"
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    figures = [c for c in rows[0] if c not in ("topic", "measured_at")]
    for row in rows:
        row.update({c: "fast" if i % 2 else "n/a" for i, c in enumerate(figures)})
    with path.open("w", newline="") as handle:
        out = csv.DictWriter(handle, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)
    return path


@pytest.fixture(scope="session")
def sample_landing(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample landing folder (read-only: copy it to change it)."""
    return write_sample(tmp_path_factory.mktemp("landing") / "landing")


@pytest.fixture(scope="session")
def planned(sample_landing: Path, tmp_path_factory: pytest.TempPathFactory) -> Planned:
    """The sample fleet planned and published once, without `--interval`.

    The sample's figures end on RUN_DAY, days before the machine's yesterday (its clock
    is past 2026-11-21): the newcomer's case, in which `plan` picks RUN_DAY itself.
    """
    out = tmp_path_factory.mktemp("planned") / "out"
    done = plan(sample_landing, out, interval=None)
    assert done.returncode == 0, done.stderr[-4000:]
    return Planned(sample_landing, out, done.stdout, done.stderr)


@pytest.fixture
def planned_copy(planned: Planned, tmp_path: Path) -> Planned:
    """A private copy of the planned output (tests that break things use this)."""
    out = tmp_path / "out"
    shutil.copytree(planned.out, out, symlinks=True)
    return Planned(planned.landing, out, planned.stdout, planned.stderr)
