"""Kill a step half-way, run it again: the run ends exactly as an undisturbed one.

The undisturbed run is the `planned` fixture (`partition-planner plan` on the sample
fleet). Here the same landing folder goes through the run again, into another folder,
one step at a time as the DAGs run them (`tests.pipeline.faults`: each task's own entry
point, in a process of its own): each step is stopped where its files are half written,
SIGKILLed with its JVM and Spark workers, and run again, as Airflow retries a task. And
once more with `partition-planner plan` itself, killed in its Spark job and run again.

Then, against the undisturbed run: the same `recommendations.json` and `summary.md`,
byte for byte; the same datasets, byte for byte; the same store rows and one published
run; and the same files in every folder, nothing left behind (no staging folder, no
temporary file, no second release).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from planner.store import RecommendationStore
from tests.pipeline.conftest import ROOT, RUN_DAY, RUN_KEY, Planned

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.first]

# A DAG run's tasks, in order, and where each is killed. `size_and_simulate` is killed
# with `sizing` swapped in and `simulations` staged: the two jobs' seam.
DAG_TASKS = (
    ("collect_figures", "figures"),
    ("validate_inputs", "state"),
    ("size_and_simulate", "recommendations"),
    ("validate_outputs", "state"),
    ("publish", "switch"),
)
_DEADLINE_S = 600.0


def _step(
    step: str, out: Path, landing: Path, started_at: str, pause: str | None = None
) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "tests.pipeline.faults"]
    args += ["--pause", pause] if pause else []
    return subprocess.Popen(
        [*args, step, str(out), str(landing), RUN_DAY, started_at],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # Its own process group: the kill takes the JVM and Spark's workers with it, as
        # Airflow's does when it kills a task.
        start_new_session=True,
        env={**os.environ, "PYSPARK_PYTHON": sys.executable, "PYTHONPATH": str(ROOT)},
    )


def _kill_half_way(child: subprocess.Popen[str], point: str) -> None:
    assert child.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + _DEADLINE_S
    while time.monotonic() < deadline:
        line = child.stdout.readline()
        if not line:
            break
        seen.append(line)
        if line.strip() == f"HALF-WAY {point}":
            os.killpg(child.pid, signal.SIGKILL)
            child.wait(timeout=60)
            assert child.returncode == -signal.SIGKILL
            return
    child.kill()
    raise AssertionError(f"never reached {point}:\n{''.join(seen)[-3000:]}")


def _finish(child: subprocess.Popen[str]) -> str:
    output, _ = child.communicate(timeout=_DEADLINE_S)
    assert child.returncode == 0, output[-4000:]
    return output


def _files(out: Path) -> dict[str, bytes | None]:
    """Every path under `out`, with the bytes of the files that must be identical.

    Release folders are named by when they were made, and GX's Data Docs files by the
    validation's time: those names are normalised; the index page and the topic pages
    carry the report's time, so only their presence is compared.
    """
    found: dict[str, bytes | None] = {}
    for path in sorted(out.rglob("*")):
        parts = list(path.relative_to(out).parts)
        if parts[0] == "report.releases" and len(parts) > 1 and not parts[1].startswith("."):
            parts[1] = "RELEASE"
        if "validation" in parts[2:3] and len(parts) > 3:
            continue  # Data Docs: names carry the validation time
        name = "/".join(parts)
        exact = (
            path.is_file()
            and not path.is_symlink()
            and (
                name.startswith("work/datasets/")
                or name.endswith(("recommendations.json", "summary.md"))
            )
        )
        found[name] = path.read_bytes() if exact else None
    return found


def _store(out: Path) -> tuple[list[Any], list[dict[str, Any]]]:
    with RecommendationStore(f"sqlite:///{out / 'store.db'}") as store:
        runs = [(r.key, r.scope, r.status, r.topics) for r in store.runs()]
        rows = sorted((r.as_row() for r in store.recommendations()), key=lambda r: r["topic"])
    return runs, rows


def _same_as_undisturbed(out: Path, planned: Planned) -> None:
    expected, got = _files(planned.out), _files(out)
    assert sorted(got) == sorted(expected), {
        "left behind": sorted(set(got) - set(expected)),
        "missing": sorted(set(expected) - set(got)),
    }
    different = [name for name in expected if got[name] != expected[name]]
    assert not different, different
    assert _store(out) == _store(planned.out)
    assert _store(out)[0] == [(RUN_KEY, "fleet", "published", len(_store(out)[1]))]


def test_each_dag_task_killed_half_way_and_retried_ends_as_an_undisturbed_run(
    planned: Planned, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    # The DAG run's start: every retry of its tasks sees the same one.
    started_at = datetime.now(UTC).isoformat()
    for step, point in DAG_TASKS:
        _kill_half_way(_step(step, out, planned.landing, started_at, point), point)
        _finish(_step(step, out, planned.landing, started_at))
    _same_as_undisturbed(out, planned)


def test_plan_killed_in_its_spark_job_and_run_again_ends_as_an_undisturbed_run(
    planned: Planned, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    started_at = datetime.now(UTC).isoformat()
    _kill_half_way(_step("plan", out, planned.landing, started_at, "sizing"), "sizing")
    assert list((out / "work" / "datasets" / "sizing").glob(".staging-*"))  # half written
    _finish(_step("plan", out, planned.landing, started_at))
    _same_as_undisturbed(out, planned)


def test_prepare_new_topic_killed_half_way_and_retried_ends_as_an_undisturbed_one(
    sample_landing: Path, tmp_path: Path
) -> None:
    # The plan_new_topic DAG's own first task; its Spark steps and publish are the ones
    # above. Collection is killed while it writes the request's figures.
    started_at = datetime.now(UTC).isoformat()
    undisturbed, retried = tmp_path / "undisturbed", tmp_path / "retried"
    # (The landing argument is the fleet's; the request writes a landing of its own.)
    _finish(_step("prepare_new_topic", undisturbed, sample_landing, started_at))
    child = _step("prepare_new_topic", retried, sample_landing, started_at, "figures")
    _kill_half_way(child, "figures")
    assert list(retried.glob("work/new-topics/*/figures/.staging-*"))  # half written
    _finish(_step("prepare_new_topic", retried, sample_landing, started_at))

    def files(root: Path) -> dict[str, Any]:
        # The figures' rows, but their `source` (the landing file's path, under each
        # run's own folder); the landing files; the rest (the run's config naming its
        # folders, manifests saying when they were written) by name only.
        import pyarrow.parquet as pq

        def content(path: Path) -> Any:
            if path.suffix == ".parquet":
                table = pq.read_table(path)
                return table.drop_columns(["source"]).to_pylist()
            return path.read_bytes() if path.suffix == ".csv" else None

        return {str(p.relative_to(root)): content(p) for p in sorted(root.rglob("*"))}

    assert files(retried) == files(undisturbed)
