"""Both jobs through spark-submit on a real standalone cluster give the local answer.

Locally each job runs on its own (`main`); on the cluster both run in one submitted
application, as the DAGs submit them (`spark_jobs/size_and_simulate.py`).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from spark_jobs import simulate_assignments, size_partitions
from spark_jobs.outputs import run_path
from tests.spark_jobs.fleet import Fleet
from tests.spark_jobs.standalone import standalone_cluster

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
RUN = "20261121T0000Z"
DATASETS = ("sizing", "simulations", "recommendations")


def _args(fleet: Fleet, out: Path, config: Path) -> list[str]:
    return [
        "--figures",
        str(fleet.root),
        "--out",
        str(out),
        "--interval",
        RUN,
        "--config",
        str(config),
    ]


def test_a_standalone_cluster_gives_the_local_answer(
    spark: SparkSession, fleet: Fleet, test_config: Path, tmp_path: Path
) -> None:
    local = tmp_path / "local"
    assert size_partitions.main(_args(fleet, local, test_config)) == 0
    assert simulate_assignments.main(_args(fleet, local, test_config)) == 0

    # Submitted as the DAGs submit them: both jobs in one application.
    remote = tmp_path / "cluster"
    with standalone_cluster(tmp_path / "spark") as cluster:
        done = subprocess.run(
            [
                str(cluster.home / "bin" / "spark-submit"),
                "--master",
                cluster.url,
                "--conf",
                "spark.executor.memory=1g",
                "--conf",
                "spark.cores.max=2",
                str(ROOT / "spark_jobs" / "size_and_simulate.py"),
                *_args(fleet, remote, test_config),
            ],
            env=cluster.submit_env(sys.executable),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        for dataset in DATASETS:
            assert f"size_and_simulate: run {RUN}: {dataset}" in done.stdout
        # The work ran on the cluster's executors, not in a local driver.
        app_logs = list((tmp_path / "spark" / "work").glob("app-*/*/stderr"))
        assert app_logs

    for dataset in DATASETS:
        mine, theirs = run_path(local, dataset, RUN), run_path(remote, dataset, RUN)
        names = sorted(p.name for p in mine.iterdir())
        assert names == sorted(p.name for p in theirs.iterdir())
        for name in names:
            assert pq.read_table(theirs / name).equals(pq.read_table(mine / name)), name
            # Every file is written by a Python task with PyArrow: the same bytes from
            # another JVM and other processes.
            assert (theirs / name).read_bytes() == (mine / name).read_bytes(), name
