"""The one place a SparkSession is built."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from spark_jobs.class_archive import archive_options
from spark_jobs.settings import DEFAULT_MASTER, SparkSettings
from spark_jobs.worker_daemon import DAEMON_MODULE

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "LOOPBACK",
    "build_session",
    "choose_master",
    "daemon_conf",
    "driver_address_conf",
    "is_local_master",
    "local_ip_env",
    "stop_session",
    "under_spark_submit",
]

#: The driver's address in the local modes.
LOOPBACK = "127.0.0.1"
_DAEMON_KEY = "spark.python.daemon.module"
_JAVA_OPTIONS_KEY = "spark.driver.extraJavaOptions"
_DRIVER_ADDRESS_KEYS = ("spark.driver.host", "spark.driver.bindAddress")

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
    conf = settings.spark_conf()
    launched = _launched_conf() if submitted else {}
    seen = {**launched, **conf}
    running_on = master if master is not None else launched.get("spark.master", "")
    pythons = [os.environ["PYSPARK_PYTHON"], seen.get("spark.pyspark.python")]
    conf.update(daemon_conf(running_on, seen, *(p for p in pythons if p)))
    conf.update(driver_address_conf(running_on, seen))
    if not submitted and is_local_master(running_on):
        # The JVM starts here, so its options still count (under spark-submit the
        # submission carries them: `planner.pipeline.jobs.launch_conf`).
        options = conf.get(_JAVA_OPTIONS_KEY, "")
        conf[_JAVA_OPTIONS_KEY] = archive_options(options)
    for key, value in conf.items():
        builder = builder.config(key, value)
    # The JVM PySpark launches here inherits this process's environment (under
    # spark-submit it is running already: the submitter sets the variable, as the DAGs'
    # run plan does).
    with _environment_defaults(local_ip_env(master) if master is not None else {}):
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


def is_local_master(master: str) -> bool:
    """Whether `master` runs the executors as threads of the driver's JVM (`local[...]`).

    `local-cluster[...]` is not: its executors are JVMs of their own, started like a
    standalone cluster's.
    """
    return master == "local" or master.startswith("local[")


def driver_address_conf(master: str, conf: Mapping[str, str]) -> dict[str, str]:
    """`spark.driver.host` and `spark.driver.bindAddress` on loopback, in the local modes.

    Spark's default is the machine's address: where the host name resolves to 127.0.0.1
    (Debian's default /etc/hosts) it picks the first other interface's, warns ("resolves
    to a loopback address ... using 192.0.2.2 instead"), and the driver's RPC, block
    manager and web UI ports open on that interface, reachable from the network though
    only the driver's own threads ever use them. On a cluster master the executors must
    reach the driver, so nothing is set there; a value in the settings always wins.

    Args:
        master: The master the session runs on.
        conf: The session's settings.

    Returns:
        The settings to add (empty when none).
    """
    if not is_local_master(master):
        return {}
    return {key: LOOPBACK for key in _DRIVER_ADDRESS_KEYS if key not in conf}


def local_ip_env(master: str) -> dict[str, str]:
    """`SPARK_LOCAL_IP` for the JVM of a local-mode driver (empty for other masters).

    Spark looks for the machine's address, and warns about a loopback host name, when its
    configuration classes load in the JVM that spark-submit starts, before any setting of
    the job is read: only this variable, in that JVM's environment, makes it
    look no further than loopback.
    """
    return {"SPARK_LOCAL_IP": LOOPBACK} if is_local_master(master) else {}


def daemon_conf(master: str, conf: Mapping[str, str], *worker_pythons: str) -> dict[str, str]:
    """`spark.python.daemon.module` for `spark_jobs.worker_daemon`, where it is safe.

    Safe where the Python workers are the driver's own interpreter on the driver's
    machine, so that they import `spark_jobs` from where the driver does: a local
    master whose workers run `sys.executable`. On a cluster the executors may have the
    project only as `--py-files`, which a worker adds to its path after the daemon has
    started; there PySpark's own daemon stays. A daemon module named in the settings
    always wins.

    Args:
        master: The master the session runs on.
        conf: The session's settings.
        worker_pythons: Every interpreter named for the workers (PYSPARK_PYTHON,
            `spark.pyspark.python`); all must be the driver's own.

    Returns:
        The setting to add (empty when none).
    """
    if _DAEMON_KEY in conf or not is_local_master(master):
        return {}
    for python in worker_pythons:
        if not os.path.exists(python) or not os.path.samefile(python, sys.executable):
            return {}
    return {_DAEMON_KEY: DAEMON_MODULE}


@contextlib.contextmanager
def _environment_defaults(values: Mapping[str, str]) -> Iterator[None]:
    """`values` in `os.environ` where unset, for the block only: a later spark-submit
    from this process (to a cluster, say) must not inherit a local mode's loopback."""
    added = {k: v for k, v in values.items() if k not in os.environ}
    os.environ.update(added)
    try:
        yield
    finally:
        for key in added:
            os.environ.pop(key, None)


def _launched_conf() -> dict[str, str]:
    # Under spark-submit the driver JVM, already running, holds the submission's
    # settings (the master among them); a SparkConf reads them once PySpark has joined
    # that JVM, which building the session would do next anyway.
    from pyspark import SparkConf, SparkContext

    SparkContext._ensure_initialized()
    return dict(SparkConf().getAll())


def stop_session(session: SparkSession) -> None:
    """Stop `session` without waiting out PySpark's accumulator-server poll.

    `SparkContext.stop()` shuts down the server that takes accumulator updates from
    Python tasks, and that waits until the server's handler next wakes from polling its
    connection, once a second: after `size_partitions`, whose last Python task ends
    just before the stop, 0.97 s of doing nothing. Every update has been received and
    acknowledged by then (tasks send theirs before they finish, and the jobs are done),
    so the server is shut down on a thread of its own, which ends within the second,
    and the rest of the stop (the JVM, the gateway) goes on at once.
    """
    context = session.sparkContext
    server = getattr(context, "_accumulatorServer", None)
    if server is not None:
        context._accumulatorServer = None  # type: ignore[assignment]
        threading.Thread(
            target=server.shutdown, name="accumulator-server-shutdown", daemon=True
        ).start()
    session.stop()
