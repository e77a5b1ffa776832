"""The Spark driver's class archive: which one applies, and that drivers map it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from planner.pipeline import jobs
from spark_jobs.class_archive import ARCHIVE_DIR_ENV, DUMP_OPTION, archive_options, archive_path

ROOT = Path(__file__).resolve().parents[2]
SETUP_DIR = ROOT / "var" / "cache" / "spark-cds"


@pytest.fixture
def archive_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(ARCHIVE_DIR_ENV, str(tmp_path))
    return tmp_path


def test_an_archive_is_named_only_once_made(archive_dir: Path) -> None:
    path = archive_path()
    assert path is not None and path.parent == archive_dir
    assert archive_options("-Xss4m") == "-Xss4m"
    path.write_bytes(b"")
    assert archive_options("-Xss4m") == f"-Xss4m -XX:SharedArchiveFile={path}"
    assert archive_options("") == f"-XX:SharedArchiveFile={path}"
    # Options that name an archive, or make one, are left as they are.
    own = "-XX:SharedArchiveFile=/opt/app.jsa"
    assert archive_options(own) == own
    assert archive_options(f"{DUMP_OPTION}/tmp/x.jsa") == f"{DUMP_OPTION}/tmp/x.jsa"


def test_the_archive_is_keyed_by_the_jdk_and_sparks_jars(
    archive_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = archive_path()
    # Another JDK: a java binary elsewhere.
    other = tmp_path / "jdk" / "bin"
    other.mkdir(parents=True)
    (other / "java").write_bytes(b"#!/bin/sh\n")
    (other / "java").chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(other.parent))
    assert archive_path() not in (None, ours)
    monkeypatch.delenv("JAVA_HOME")
    assert archive_path() == ours


def test_the_maker_checks_and_leaves_an_archive_it_finds(
    archive_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from spark_jobs import make_class_archive

    path = archive_path()
    assert path is not None
    assert make_class_archive.main(["--check"]) == 1
    path.write_bytes(b"made before")
    assert make_class_archive.main(["--check"]) == 0
    # Found: nothing is started and the archive stays as it was.
    assert make_class_archive.main([]) == 0
    assert path.read_bytes() == b"made before"
    assert capsys.readouterr().out.split() == [str(path)] * 3


def test_submissions_to_a_local_master_carry_the_archive(archive_dir: Path) -> None:
    path = archive_path()
    assert path is not None
    path.write_bytes(b"")
    option = f"-XX:SharedArchiveFile={path}"
    assert option in jobs.launch_conf(None, "local[2]")["spark.driver.extraJavaOptions"]
    # A cluster's driver may start on a machine without the file.
    for master in ("yarn", "spark://spark-master:7077", "local-cluster[2,1,1024]", None):
        assert option not in jobs.launch_conf(None, master)["spark.driver.extraJavaOptions"]


@pytest.mark.slow
@pytest.mark.integration
def test_the_archive_setup_made_is_mapped_by_a_local_session(tmp_path: Path) -> None:
    # scripts/setup.sh makes the archive before any test runs; a set-up that stopped
    # making it, or made one this JDK cannot map, fails here.
    path = archive_path()
    assert path is not None and path.is_file(), f"setup made no class archive at {path}"
    log = tmp_path / "classes.log"
    # -Xshare:on refuses to start at all if the archive cannot be mapped, and the class
    # log says where each class came from.
    script = textwrap.dedent(
        f"""
        import json, sys
        from spark_jobs.session import build_session, stop_session
        from spark_jobs.settings import SparkSettings
        settings = SparkSettings(
            master="local[1]",
            driver_java_options="-Xshare:on -Xlog:class+load=info:file={log}",
        )
        spark = build_session(settings, "class-archive-test")
        spark.range(10).count()
        options = spark.sparkContext.getConf().get("spark.driver.extraJavaOptions")
        stop_session(spark)
        print(json.dumps({{"options": options}}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    options = json.loads(done.stdout.strip().splitlines()[-1])["options"]
    assert f"-XX:SharedArchiveFile={path}" in options
    lines = log.read_text(errors="replace").splitlines()
    # Lambda proxies are made at run time whatever the archive holds; the driver's other
    # Spark classes come from the archive, not from the jars (a few it had not loaded
    # when the archive was made do).
    spark_classes = [
        line for line in lines if " org.apache.spark." in line and "$$Lambda" not in line
    ]
    from_archive = [line for line in spark_classes if "shared objects file (top)" in line]
    assert len(spark_classes) > 3000
    assert len(from_archive) > 0.95 * len(spark_classes), (len(from_archive), len(spark_classes))
