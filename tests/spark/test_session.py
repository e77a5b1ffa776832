"""How the jobs start and stop Spark: the Python worker daemon, and the stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

from spark_jobs.session import daemon_conf
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


def _reported(command: list[str], cwd: Path) -> object:
    """What a Spark script run in a process of its own printed last, as JSON."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
    }
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_local_session_runs_the_installed_pyspark_and_stops_cleanly(tmp_path: Path) -> None:
    # A session of its own, in a fresh process: the tests' shared session may have been
    # built by another package's fixture, and must stay up.
    import pyspark

    script = textwrap.dedent(
        """
        import json, threading
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
        daemon = spark.sparkContext.getConf().get("spark.python.daemon.module")
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
        print(json.dumps({"daemon": daemon, "origins": sorted({row.origin for row in rows}),
                          "stopped": stopped, "closed": closed, "second": second,
                          "left": any(t.is_alive() for t in ends)}))
        """
    )
    result = _reported([sys.executable, "-c", script], tmp_path)
    assert result == {
        "daemon": DAEMON_MODULE,
        # Not the copy in pyspark.zip: the installed, byte-compiled package.
        "origins": [pyspark.__file__],
        "stopped": True,
        "closed": True,
        "second": 2,
        "left": False,
    }
    assert ".zip" not in pyspark.__file__


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
            daemon = spark.sparkContext.getConf().get("spark.python.daemon.module")
            rows = spark.range(0, 2, 1, 2).mapInArrow(origin, "origin string").collect()
            print(json.dumps({"master": spark.sparkContext.master, "daemon": daemon,
                              "origins": sorted({row.origin for row in rows})}))
            stop_session(spark)
            """
        )
    )
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    result = _reported([str(submit), "--master", "local[2]", str(script)], tmp_path)
    assert result == {"master": "local[2]", "daemon": DAEMON_MODULE, "origins": [pyspark.__file__]}
