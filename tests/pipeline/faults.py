"""Run one step of a run in this process, optionally stopping it half-way to be killed.

    python -m tests.pipeline.faults [--pause POINT] STEP OUT LANDING DAY [STARTED_AT]

STEP is a step of `partition-planner plan` or a task of the DAGs, run through the same
entry point the DAG task runs (`collect_figures` as `collect_task` does it,
`prepare_new_topic` as `new_topic_task` does it for the request `NEW_TOPIC`, the Spark
steps through their `main` with the run plan's arguments, `publish` as `publish_task`
does it, with the DAG run's fixed start), or `plan` itself. With `--pause POINT`, the
step runs its real code until POINT, prints `HALF-WAY <POINT>` and waits there, for the
test to SIGKILL its whole process group (the driver, its JVM and Spark's Python
workers). Nothing is mocked: the pause only holds the process still at a chosen place,
so that the kill lands there every time rather than wherever a timer happens to fall.

Points, each where the step's own files are half written:

- `figures`: collection, while the run interval's tables are written to its staging folder;
- `state`: a validation, its result written to a temporary file, not yet renamed;
- `sizing`, `recommendations`: a Spark job, that dataset staged, not yet swapped in
  (for `size_and_simulate`, `recommendations` comes after `sizing` was swapped in);
- `switch`: publishing, the store written and the release rendered, the site not yet
  switched.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

POINTS = ("figures", "state", "sizing", "recommendations", "switch")
#: The `plan_new_topic` request the `prepare_new_topic` step plans (the trigger form's).
NEW_TOPIC = {
    "topic": "payments.v2",
    "peak_mib_per_s": 40,
    "peak_records_per_s": 60000,
    "growth_per_year": 0.5,
    "keyed": False,
    "tp_mib_per_s": 10,
    "tc_mib_per_s": 4,
    "consumer_groups": ["fraud-scoring"],
}
_HOLD_S = 3600


def _hold(point: str) -> None:
    print(f"HALF-WAY {point}", flush=True)
    time.sleep(_HOLD_S)


def _pause_at(point: str, run_key: str) -> None:
    """Patch the step's code so that it holds at `point`."""
    if point == "figures":
        from planner.figures import dataset

        write_table = dataset._write_table
        written: list[Path] = []

        def hold_in_run_interval(table: Any, path: Path) -> None:
            write_table(table, path)
            if path.parent.name.startswith(f".staging-{run_key}-"):
                written.append(path)
                if len(written) == 3:
                    _hold(point)

        dataset._write_table = hold_in_run_interval  # type: ignore[assignment]
    elif point == "state":
        from planner import files

        class HoldingOs:
            """`os` for the state-file writer alone: holds before a stage file's rename."""

            def __getattr__(self, name: str) -> Any:
                return getattr(os, name)

            @staticmethod
            def replace(source: Any, target: Any) -> None:
                if Path(target).name in ("inputs.json", "outputs.json"):
                    _hold(point)
                os.replace(source, target)

        files.os = HoldingOs()  # type: ignore[assignment]
    elif point in ("sizing", "recommendations"):
        from spark_jobs import outputs

        stage = outputs._stage

        def hold_when_staged(output: Any, staging: Path) -> None:
            stage(output, staging)
            if staging.parent.name == point:
                _hold(point)

        outputs._stage = hold_when_staged  # type: ignore[assignment]
    elif point == "switch":
        from planner.report import publish

        fsync_tree = publish._fsync_tree

        def hold_before_switch(folder: Path) -> None:
            fsync_tree(folder)
            _hold(point)

        publish._fsync_tree = hold_before_switch
    else:
        raise SystemExit(f"unknown point {point!r}; points: {', '.join(POINTS)}")


def _steps(
    out: Path, landing: Path, day: str, started_at: datetime
) -> dict[str, Callable[[], int]]:
    from planner.config import load_config
    from planner.figures.dataset import DataInterval
    from planner.pipeline import jobs
    from planner.pipeline.workspace import Workspace

    workspace = Workspace.under(out)
    interval = DataInterval.parse(day)
    key = interval.key
    args = jobs.job_arguments(workspace, str(interval), None)

    def collect() -> int:
        # What `collect_task` does after reading its config and the run's interval.
        from planner.pipeline.tasks import collect_run

        print(collect_run(load_config(None), workspace, interval, landing))
        return 0

    def validate(stage: str) -> Callable[[], int]:
        def run() -> int:
            from planner.pipeline import validation

            return validation.main(jobs.validation_arguments(stage, workspace, str(interval), None))

        return run

    def job(module: str) -> Callable[[], int]:
        def run() -> int:
            import importlib

            main: Callable[[list[str]], int] = importlib.import_module(module).main
            return main(args)

        return run

    def publish() -> int:
        # As `publish_task`: the DAG run's start is the same on every retry.
        from planner.pipeline.publish import publish_run

        done = publish_run(
            workspace, key, config=load_config(None), lookback_days=30, started_at=started_at
        )
        print(f"published {done.topics} topics")
        return 0

    def prepare_new_topic() -> int:
        # What `new_topic_task` does after reading its config and the run's interval.
        import dataclasses

        from planner.pipeline.tasks import prepare_new_topic as prepare

        base = dataclasses.replace(
            load_config(None),
            figures_root=workspace.figures,
            work_dir=workspace.work,
            report_dir=workspace.report,
            store_url=workspace.store_url,
        )
        print(prepare(base, NEW_TOPIC, interval).to_xcom()["collected"])
        return 0

    def plan() -> int:
        from planner.cli import main

        return main(["plan", "--landing", str(landing), "--out", str(out), "--interval", day])

    return {
        "collect_figures": collect,
        "validate_inputs": validate("inputs"),
        "size_partitions": job("spark_jobs.size_partitions"),
        "simulate_assignments": job("spark_jobs.simulate_assignments"),
        "size_and_simulate": job("spark_jobs.size_and_simulate"),
        "validate_outputs": validate("outputs"),
        "publish": publish,
        "prepare_new_topic": prepare_new_topic,
        "plan": plan,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.pipeline.faults")
    p.add_argument("--pause", choices=POINTS)
    p.add_argument("step")
    p.add_argument("out", type=Path)
    p.add_argument("landing", type=Path)
    p.add_argument("day")
    p.add_argument("started_at", nargs="?", default=None)
    args = p.parse_args(argv)
    from planner.figures.dataset import DataInterval

    started = datetime.fromisoformat(args.started_at) if args.started_at else datetime.now(UTC)
    if args.pause:
        _pause_at(args.pause, DataInterval.parse(args.day).key)
    return _steps(args.out, args.landing, args.day, started)[args.step]()


if __name__ == "__main__":
    sys.exit(main())
