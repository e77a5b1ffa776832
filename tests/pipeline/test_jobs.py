"""The Spark steps of a run: files, arguments, and the settings a submission must carry."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from planner.figures.dataset import DataInterval
from planner.pipeline import jobs
from planner.pipeline.operators import SPARK_STEPS
from planner.pipeline.tasks import RunPlan
from planner.pipeline.workspace import Workspace
from spark_jobs.settings import DEFAULT_JAVA_OPTIONS


def _plan(config: Path | None) -> RunPlan:
    workspace = Workspace(
        figures=Path("/data/figures"),
        work=Path("/data/work"),
        report=Path("/data/report"),
        store_url="sqlite://",
    )
    return RunPlan(DataInterval.day(date(2026, 11, 21)), "fleet", config, workspace)


def test_a_submission_carries_the_driver_settings_of_the_config(tmp_path: Path) -> None:
    config = tmp_path / "planner.toml"
    config.write_text(
        '[spark.conf]\n"spark.driver.memory" = "3g"\n"spark.sql.shuffle.partitions" = "4"\n'
    )
    steps = _plan(config).spark()
    assert set(steps) == set(SPARK_STEPS)
    for step in SPARK_STEPS:
        # Only what must be set before the driver starts; the job sets the rest itself.
        assert steps[step]["conf"] == {
            "spark.driver.memory": "3g",
            "spark.driver.extraJavaOptions": DEFAULT_JAVA_OPTIONS,
        }
        assert steps[step]["args"][-2:] == ["--config", str(config)]
        assert Path(steps[step]["application"]).is_file()


def test_without_a_config_a_submission_carries_the_jobs_defaults() -> None:
    assert jobs.launch_conf(None) == {
        "spark.driver.memory": "2g",
        "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseParallelGC",
    }
    assert _plan(None).to_xcom()["spark"]["size_and_simulate"]["conf"] == jobs.launch_conf(None)
