"""The one place a SparkSession is built."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from spark_jobs.settings import DEFAULT_MASTER, SparkSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["build_session", "under_spark_submit"]


def under_spark_submit() -> bool:
    """Whether this driver was launched by spark-submit (which then owns the master).

    PySpark itself decides this way whether to start a JVM or join the one spark-submit
    started.
    """
    return "PYSPARK_GATEWAY_PORT" in os.environ


def build_session(settings: SparkSettings, app_name: str) -> SparkSession:
    """A SparkSession for one job run, configured from `settings`.

    The master is the settings' one if given; else spark-submit's (`--master`), else
    `local[2]`. Python workers run the driver's own interpreter unless PYSPARK_PYTHON
    says otherwise, so they see the same virtual environment (pandas, pyarrow, and the
    `planner` package) as the driver.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    master = settings.master or (None if under_spark_submit() else DEFAULT_MASTER)
    if master is not None:
        builder = builder.master(master)
    for key, value in settings.spark_conf().items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    return session
