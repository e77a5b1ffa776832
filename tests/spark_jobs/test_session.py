"""How the jobs start and stop Spark: the Python worker daemon, and the stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path
from typing import Any

from planner.pipeline.jobs import launch_env
from spark_jobs.session import daemon_conf, driver_address_conf, local_ip_env
from spark_jobs.worker_daemon import DAEMON_MODULE, without_bundled_pyspark

ROOT = Path(__file__).resolve().parents[2]


def _package(site: Path) -> Path:
    """A pyspark package under `site` with its bundled zip; returns the zip."""
    (site / "pyspark" / "python" / "lib").mkdir(parents=True)
    (site / "pyspark" / "__init__.py").write_text("")
    bundled = site / "pyspark" / "python" / "lib" / "pyspark.zip"
    with zipfile.ZipFile(bundled, "w") as archive:
        archive.writestr("pyspark/__init__.py", "")
    return bundled


def test_the_zip_inside_the_installed_pyspark_leaves_the_path(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    bundled = _package(site)
    py4j = bundled.parent / "py4j-0.10.9.9-src.zip"
    py4j.write_bytes(b"")
    path = [str(tmp_path), str(bundled), str(py4j), str(site)]
    # The daemon's path as Spark sets it: the bundled zip first, py4j's next.
    assert without_bundled_pyspark(path) == [str(tmp_path), str(py4j), str(site)]


def test_a_zip_of_another_spark_stays(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    _package(site)
    distribution = tmp_path / "opt" / "spark" / "python" / "lib"
    distribution.mkdir(parents=True)
    foreign = distribution / "pyspark.zip"
    foreign.write_bytes((site / "pyspark" / "python" / "lib" / "pyspark.zip").read_bytes())
    path = [str(foreign), str(site)]
    assert without_bundled_pyspark(path) == path


def test_without_an_installed_pyspark_the_zip_stays(tmp_path: Path) -> None:
    bundled = _package(tmp_path / "elsewhere")
    path = [str(bundled), str(tmp_path / "empty-site")]
    assert without_bundled_pyspark(path) == path
    assert without_bundled_pyspark([str(tmp_path)]) == [str(tmp_path)]


def test_the_daemon_module_is_asked_for_only_where_workers_are_this_interpreter() -> None:
    me = sys.executable
    assert daemon_conf("local[2]", {}, me) == {"spark.python.daemon.module": DAEMON_MODULE}
    assert daemon_conf("local", {}, me) == {"spark.python.daemon.module": DAEMON_MODULE}
    # A cluster's executors may have the project only as --py-files, added after the
    # daemon starts: PySpark's own daemon there.
    assert daemon_conf("spark://127.0.0.1:7077", {}, me) == {}
    assert daemon_conf("yarn", {}, me) == {}
    assert daemon_conf("local-cluster[2,1,1024]", {}, me) == {}
    # Workers on another interpreter, or a daemon the settings name.
    assert daemon_conf("local[2]", {}, "/usr/bin/python3.9-not-here") == {}
    named = {"spark.python.daemon.module": "pyspark.daemon"}
    assert daemon_conf("local[2]", named, me) == {}
    # Every interpreter named for the workers must be this one.
    assert daemon_conf("local[2]", {}, me, me) == {"spark.python.daemon.module": DAEMON_MODULE}
    assert daemon_conf("local[2]", {}, me, "/opt/other/bin/python3") == {}


#: What Spark logs when it picks another interface than the loopback the host name
#: resolves to (`spark_jobs.session.driver_address_conf`).
LOOPBACK_WARNING = "resolves to a loopback address"


def _reported(command: list[str], cwd: Path, **env_vars: str) -> tuple[Any, str]:
    """What a Spark script run in a process of its own printed last, as JSON, and its
    stderr (where Spark logs)."""
    env = {
        **{k: v for k, v in os.environ.items() if k != "SPARK_LOCAL_IP"},
        "PYTHONPATH": str(ROOT),
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        **env_vars,
    }
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_a_local_session_runs_the_installed_pyspark_and_stops_cleanly(tmp_path: Path) -> None:
    # A session of its own, in a fresh process: the tests' shared session may have been
    # built by another package's fixture, and must stay up.
    import pyspark

    script = textwrap.dedent(
        """
        import json, os, threading
        from pyspark import SparkContext
        from spark_jobs.session import build_session, stop_session
        from spark_jobs.settings import SparkSettings

        def origin(batches):
            import pyarrow as pa
            import pyspark
            for _ in batches:
                yield pa.RecordBatch.from_pydict({"origin": [pyspark.__file__]})

        settings = SparkSettings(master="local[2]", shuffle_partitions=2, driver_memory="1g")
        spark = build_session(settings, "stop-test")
        conf = spark.sparkContext.getConf()
        daemon = conf.get("spark.python.daemon.module")
        address = [conf.get("spark.driver.host"), conf.get("spark.driver.bindAddress"),
                   os.environ.get("SPARK_LOCAL_IP")]
        rows = spark.range(0, 2, 1, 2).mapInArrow(origin, "origin string").collect()
        server = spark.sparkContext._accumulatorServer
        stop_session(spark)
        stopped = SparkContext._active_spark_context is None
        ends = [t for t in threading.enumerate() if t.name == "accumulator-server-shutdown"]
        for thread in ends:
            thread.join(timeout=10)
        closed = server.socket.fileno() == -1
        again = build_session(settings, "stop-test-again")
        second = again.range(0, 4, 1, 2).mapInArrow(origin, "origin string").count()
        stop_session(again)
        print(json.dumps({"daemon": daemon, "address": address,
                          "origins": sorted({row.origin for row in rows}),
                          "stopped": stopped, "closed": closed, "second": second,
                          "left": any(t.is_alive() for t in ends)}))
        """
    )
    result, log = _reported([sys.executable, "-c", script], tmp_path)
    assert result == {
        "daemon": DAEMON_MODULE,
        # The driver on loopback, and SPARK_LOCAL_IP set for the JVM's launch only.
        "address": ["127.0.0.1", "127.0.0.1", None],
        # Not the copy in pyspark.zip: the installed, byte-compiled package.
        "origins": [pyspark.__file__],
        "stopped": True,
        "closed": True,
        "second": 2,
        "left": False,
    }
    assert ".zip" not in pyspark.__file__
    assert LOOPBACK_WARNING not in log


def test_under_spark_submit_a_local_master_gets_the_daemon_too(tmp_path: Path) -> None:
    # As the DAG submits the jobs: spark-submit owns the master, the job builds the session.
    import pyspark

    script = tmp_path / "probe.py"
    script.write_text(
        textwrap.dedent(
            """
            import json
            from spark_jobs.session import build_session, stop_session
            from spark_jobs.settings import SparkSettings

            def origin(batches):
                import pyarrow as pa
                import pyspark
                for _ in batches:
                    yield pa.RecordBatch.from_pydict({"origin": [pyspark.__file__]})

            spark = build_session(SparkSettings(shuffle_partitions=2), "probe")
            conf = spark.sparkContext.getConf()
            daemon = conf.get("spark.python.daemon.module")
            address = [conf.get("spark.driver.host"), conf.get("spark.driver.bindAddress")]
            rows = spark.range(0, 2, 1, 2).mapInArrow(origin, "origin string").collect()
            print(json.dumps({"master": spark.sparkContext.master, "daemon": daemon,
                              "address": address,
                              "origins": sorted({row.origin for row in rows})}))
            stop_session(spark)
            """
        )
    )
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    # With the environment the DAGs' run plan gives a local master's submission.
    env = launch_env("local[2]")
    result, log = _reported([str(submit), "--master", "local[2]", str(script)], tmp_path, **env)
    assert result == {
        "master": "local[2]",
        "daemon": DAEMON_MODULE,
        "address": ["127.0.0.1", "127.0.0.1"],
        "origins": [pyspark.__file__],
    }
    assert LOOPBACK_WARNING not in log


def test_only_a_local_master_puts_the_driver_on_loopback() -> None:
    loopback = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
    assert driver_address_conf("local[2]", {}) == loopback
    assert driver_address_conf("local", {}) == loopback
    assert local_ip_env("local[*]") == {"SPARK_LOCAL_IP": "127.0.0.1"}
    # A cluster's executors must reach the driver on an address they can route to.
    for master in (
        "spark://10.0.0.5:7077",
        "yarn",
        "k8s://https://api:443",
        "local-cluster[2,1,1024]",
    ):
        assert driver_address_conf(master, {}) == {}
        assert local_ip_env(master) == {}
        assert "SPARK_LOCAL_IP" not in launch_env(master)
    # A setting of the config wins.
    assert driver_address_conf("local[2]", {"spark.driver.host": "10.1.2.3"}) == {
        "spark.driver.bindAddress": "127.0.0.1"
    }
    assert launch_env(None) == {"PYSPARK_PYTHON": sys.executable}
