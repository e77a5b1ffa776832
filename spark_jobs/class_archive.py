"""A class-data-sharing archive of the Spark driver's classes, so a driver starts in half
the CPU.

A local Spark driver loads about 17,000 classes before its first job, and parsing and
verifying them is most of what its JVM does until then. JDK 17's dynamic archives (JEP
350) keep that work: a JVM started with `-XX:ArchiveClassesAtExit=F` writes the classes it
loaded into F when it exits, and a JVM started with `-XX:SharedArchiveFile=F` maps them
instead of loading them again. Measured on the 2-core machine (2026-11-28, load average
9-10): the driver's JVM used 4.6-4.9 CPU-seconds up to the end of its first job with the
archive and 9.1-11.8 s without; the session started in 5.5-6.7 s against 9.9-16.2 s.

An archive belongs to one JDK and one class path: the JVM checks both and ignores a
mismatched archive with a warning. The archive's file name therefore carries a key of the
java binary Spark launches and of Spark's jar folder, so that a changed JDK or PySpark
finds no archive (and runs as before) rather than a wrong one. Only a driver of a local
master gets the option: a cluster's driver may run on a machine without the file.

`scripts/setup.sh` makes it (`python -m spark_jobs.make_class_archive`, once per key)
under `var/cache/spark-cds/`; `archive_options` adds it to the driver's Java options
(`session.build_session` for the jobs run directly, `planner.pipeline.jobs.launch_conf`
for spark-submit). Without the archive nothing changes but the start-up time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from pathlib import Path

__all__ = [
    "ARCHIVE_DIR_ENV",
    "DUMP_OPTION",
    "archive_options",
    "archive_path",
    "spark_java",
]

#: Overrides where archives are kept (default: `var/cache/spark-cds` in the checkout).
ARCHIVE_DIR_ENV = "PLANNER_CDS_DIR"
_DEFAULT_DIR = Path(__file__).resolve().parents[1] / "var" / "cache" / "spark-cds"
_USE = "-XX:SharedArchiveFile="
#: The option that makes a JVM write the archive as it exits.
DUMP_OPTION = "-XX:ArchiveClassesAtExit="


def _archive_dir() -> Path:
    return Path(os.environ.get(ARCHIVE_DIR_ENV) or _DEFAULT_DIR)


def spark_java() -> Path | None:
    """The java binary Spark's launcher runs: `$JAVA_HOME/bin/java`, else `java` on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = Path(home) / "bin" / "java" if home else None
    if found is None or not found.exists():
        which = shutil.which("java")
        found = Path(which) if which else None
    return found.resolve() if found is not None and found.exists() else None


def _spark_jars() -> Path | None:
    spec = importlib.util.find_spec("pyspark")
    if spec is None or spec.origin is None:
        return None
    jars = Path(spec.origin).parent / "jars"
    return jars if jars.is_dir() else None


def archive_path() -> Path | None:
    """Where the archive for this JDK and this Spark is (whether it exists or not); None
    when either cannot be found."""
    java, jars = spark_java(), _spark_jars()
    if java is None or jars is None:
        return None
    digest = hashlib.sha256()
    stat = java.stat()
    digest.update(f"{java}\0{stat.st_size}\0{stat.st_mtime_ns}\0{jars}\0".encode())
    for jar in sorted(jars.iterdir()):
        digest.update(f"{jar.name}\0{jar.stat().st_size}\0".encode())
    return _archive_dir() / f"spark-{digest.hexdigest()[:16]}.jsa"


def archive_options(options: str) -> str:
    """`options` (a local driver's Java options) with the archive, where there is one.

    Unchanged when the options already name an archive (or dump one), or when no archive
    was made for this JDK and Spark. The caller decides the master is local.
    """
    if _USE in options or DUMP_OPTION in options:
        return options
    path = archive_path()
    if path is None or not path.is_file():
        return options
    return f"{options} {_USE}{path}".strip()
