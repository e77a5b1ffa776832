"""The one place a SparkSession is built."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING

from spark_jobs.settings import DEFAULT_MASTER, SparkSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["build_session", "choose_master", "under_spark_submit"]

log = logging.getLogger(__name__)


def under_spark_submit() -> bool:
    """Whether this driver was launched by spark-submit (which then owns the master).

    PySpark itself decides this way whether to start a JVM or join the one spark-submit
    started.
    """
    return "PYSPARK_GATEWAY_PORT" in os.environ


def choose_master(configured: str | None, *, submitted: bool) -> str | None:
    """The master to set on the session builder; None leaves spark-submit's in place.

    Under spark-submit its `--master` wins: whoever submits (an operator, the Airflow
    Spark connection) has chosen the cluster, and a `[spark] master` left in a shared
    config file must not send the job elsewhere. Run directly, the settings' master
    applies, else `local[2]`.
    """
    if submitted:
        return None
    return configured or DEFAULT_MASTER


def build_session(settings: SparkSettings, app_name: str) -> SparkSession:
    """A SparkSession for one job run, configured from `settings`.

    The master is spark-submit's when spark-submit launched the driver, else the
    settings' one, else `local[2]` (`choose_master`). Python workers run the driver's
    own interpreter unless PYSPARK_PYTHON says otherwise, so they see the same virtual
    environment (pandas, pyarrow, and the `planner` package) as the driver.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    submitted = under_spark_submit()
    master = choose_master(settings.master, submitted=submitted)
    if master is not None:
        builder = builder.master(master)
    for key, value in settings.spark_conf().items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    running = session.sparkContext.master
    if submitted and settings.master and settings.master != running:
        log.warning(
            "spark-submit's master %s is used; the configured master %s is ignored",
            running,
            settings.master,
        )
    return session
