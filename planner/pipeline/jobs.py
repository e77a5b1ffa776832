"""The Spark applications of a run and their arguments, spelled once for every launcher.

The `plan` command calls the applications' `main(argv)` in one SparkSession of its own;
the Airflow DAGs submit their files with `spark-submit` and the same arguments. Both
build the argument lists here, so the two paths cannot drift apart.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from planner.figures.dataset import DataInterval
from planner.pipeline.workspace import Workspace

__all__ = [
    "APPLICATIONS",
    "LAUNCH_SETTINGS",
    "application_path",
    "job_arguments",
    "launch_conf",
    "launch_env",
    "run_key",
    "validation_arguments",
]

#: Spark applications by task name: the module whose file spark-submit runs.
APPLICATIONS = {
    "validate_inputs": "planner.pipeline.validation",
    "size_and_simulate": "spark_jobs.size_and_simulate",
    "validate_outputs": "planner.pipeline.validation",
}

#: Spark settings that count only when the driver's JVM starts: a job sets the others on
#: its session, but under spark-submit the JVM is running before the job reads its
#: config, so these must be on the submission (`--conf`).
LAUNCH_SETTINGS = ("spark.driver.memory", "spark.driver.extraJavaOptions")
#: Spark's log configuration for the submissions (in the `spark_jobs` package).
SPARK_LOG_CONFIG = "log4j2.properties"

_KEY = re.compile(r"^\d{8}T\d{4}Z$")


def run_key(run: str) -> str:
    """The run key of an interval key, a UTC day or START/END (`20261121T0000Z`)."""
    text = run.strip()
    if _KEY.match(text):
        return text
    return DataInterval.parse(text).key


def application_path(task: str) -> Path:
    """The Python file spark-submit runs for `task` (from the installed packages)."""
    spec = importlib.util.find_spec(APPLICATIONS[task])
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"{APPLICATIONS[task]} is not installed")
    return Path(spec.origin)


def _common(workspace: Workspace, interval: str, config: Path | None) -> list[str]:
    args = ["--interval", interval]
    if config is not None:
        args += ["--config", str(config)]
    return args


def launch_conf(config: Path | None, master: str | None = None) -> dict[str, str]:
    """The `LAUNCH_SETTINGS` of a run's config (its values, else the jobs' defaults).

    A submission without them would start the driver with spark-submit's defaults (a
    1 GiB heap, and JIT and collector choices slower for these jobs on two cores;
    `spark_jobs.settings`) whatever the config says. A submission to a local `master`
    also maps the driver's classes from the class archive where there is one
    (`spark_jobs.class_archive`).
    """
    from spark_jobs.class_archive import archive_options
    from spark_jobs.session import is_local_master
    from spark_jobs.settings import load_settings

    conf = load_settings(config).spark.spark_conf()
    launch = {key: conf[key] for key in LAUNCH_SETTINGS}
    options = launch["spark.driver.extraJavaOptions"]
    spec = importlib.util.find_spec("spark_jobs")
    if "log4j2.configurationFile" not in options and spec is not None and spec.origin:
        # Spark's start-up INFO lines stay out of the task log; warnings stay in.
        path = Path(spec.origin).parent / SPARK_LOG_CONFIG
        launch["spark.driver.extraJavaOptions"] = (
            f"{options} -Dlog4j2.configurationFile={path.as_uri()}".strip()
        )
    if master is not None and is_local_master(master):
        key = "spark.driver.extraJavaOptions"
        launch[key] = archive_options(launch[key])
    return launch


def launch_env(master: str | None) -> dict[str, str]:
    """The environment of a step's spark-submit, for a submission to `master`.

    Spark's Python workers run this environment's interpreter (which has the planner,
    pandas and pyarrow; Spark's default `python3` may not). In the local modes the driver
    also stays on loopback (`SPARK_LOCAL_IP`, `spark_jobs.session.local_ip_env`): Spark
    reads it in spark-submit's JVM, before the job's own settings.

    Args:
        master: The master the step is submitted to; None when unknown (nothing but the
            interpreter is set then).
    """
    from spark_jobs.session import local_ip_env

    return {"PYSPARK_PYTHON": sys.executable, **(local_ip_env(master) if master else {})}


def job_arguments(workspace: Workspace, interval: str, config: Path | None) -> list[str]:
    """Arguments of the Spark jobs (`size_partitions`, `simulate_assignments`, or both
    in one application, `size_and_simulate`) for one run.

    Args:
        workspace: Where the figures are and the datasets go.
        interval: The run's data interval (START/END, a UTC day, or its key).
        config: The planner config file the jobs read their settings from.
    """
    from planner.figures.set_aside import FILE

    return [
        "--figures",
        str(workspace.figures),
        "--out",
        str(workspace.datasets),
        # What validate_inputs set aside: the jobs must not run on unvalidated figures.
        "--set-aside",
        str(workspace.run_state(run_key(interval)) / FILE),
        *_common(workspace, interval, config),
    ]


def validation_arguments(
    stage: str, workspace: Workspace, interval: str, config: Path | None
) -> list[str]:
    """Arguments of `planner.pipeline.validation` for one stage of one run."""
    return [
        stage,
        "--figures",
        str(workspace.figures),
        "--work",
        str(workspace.work),
        *_common(workspace, interval, config),
    ]
