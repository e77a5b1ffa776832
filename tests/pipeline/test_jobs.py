"""The Spark steps of a run: files, arguments, and the settings a submission must carry."""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import date
from pathlib import Path

from planner.figures.dataset import DataInterval
from planner.pipeline import jobs
from planner.pipeline.steps import SPARK_STEPS
from planner.pipeline.tasks import RunPlan
from planner.pipeline.workspace import Workspace
from spark_jobs.settings import DEFAULT_JAVA_OPTIONS

#: The log configuration every submission's driver gets (in the spark_jobs package).
LOG_FILE = Path(__file__).resolve().parents[2] / "spark_jobs" / "log4j2.properties"
LOG_OPTION = f"-Dlog4j2.configurationFile={LOG_FILE.as_uri()}"


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
            "spark.driver.extraJavaOptions": f"{DEFAULT_JAVA_OPTIONS} {LOG_OPTION}",
        }
        assert steps[step]["args"][-2:] == ["--config", str(config)]
        assert Path(steps[step]["application"]).is_file()


def test_a_local_master_submission_keeps_the_driver_on_loopback() -> None:
    def env(master: str) -> dict[str, str]:
        steps = replace(_plan(None), spark_master=master).to_xcom()["spark"]
        assert len({repr(steps[step]["env"]) for step in SPARK_STEPS}) == 1
        return dict(steps["size_and_simulate"]["env"])

    python = {"PYSPARK_PYTHON": sys.executable}
    assert env("local[2]") == {**python, "SPARK_LOCAL_IP": "127.0.0.1"}
    # On a cluster the executors must reach the driver: Spark picks its address.
    assert env("spark://spark-master:7077") == python
    assert env("yarn") == python


def test_without_a_config_a_submission_carries_the_jobs_defaults() -> None:
    assert jobs.launch_conf(None) == {
        "spark.driver.memory": "2g",
        "spark.driver.extraJavaOptions": f"-XX:TieredStopAtLevel=1 -XX:+UseParallelGC {LOG_OPTION}",
    }


def test_spark_logs_its_warnings_only_unless_the_config_names_its_own_log_file(
    tmp_path: Path,
) -> None:
    # Spark's start-up INFO lines would fill the task log; its warnings stay.
    log_config = LOG_FILE.read_text()
    assert "rootLogger.level = warn" in log_config
    config = tmp_path / "planner.toml"
    own = "-Dlog4j2.configurationFile=file:///etc/spark/log4j2.properties"
    config.write_text(f'[spark.conf]\n"spark.driver.extraJavaOptions" = "{own}"\n')
    assert jobs.launch_conf(config)["spark.driver.extraJavaOptions"] == own
    assert _plan(None).to_xcom()["spark"]["size_and_simulate"]["conf"] == jobs.launch_conf(None)
