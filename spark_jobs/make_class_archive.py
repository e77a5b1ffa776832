"""Make the Spark driver's class-data-sharing archive (`spark_jobs.class_archive`).

    python -m spark_jobs.make_class_archive [--force | --check]

Starts a local session whose JVM writes the archive as it exits, runs work that loads the
classes the planner's applications load, and puts the archive where
`class_archive.archive_path` says, for this JDK and this Spark. Does nothing when that
archive exists. `--check` only says whether it exists (exit 0) or not (exit 1).
`scripts/setup.sh` runs it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

from spark_jobs.class_archive import DUMP_OPTION, archive_path

__all__ = ["main"]


def _train(spark: Any) -> None:
    """Work that loads the classes the planner's applications load: Parquet both ways,
    aggregations and joins, SQL with generators and higher-order functions (the suites'
    query rules), and Arrow batches to and from Python (the jobs' tasks)."""
    with tempfile.TemporaryDirectory(prefix="spark-cds-") as tmp:
        frame = spark.range(200).selectExpr(
            "CAST(id % 7 AS STRING) AS topic",
            "id AS ts",
            "CAST(id AS DOUBLE) * 1.5 AS bytes_in",
            "array(named_struct('g', CAST(id % 3 AS STRING), 'n', id)) AS groups",
        )
        frame.write.parquet(f"{tmp}/t")
        again = spark.read.parquet(f"{tmp}/t").coalesce(1).persist()
        again.createOrReplaceTempView("cds_training")
        again.groupBy("topic").agg({"bytes_in": "max", "ts": "count"}).collect()
        spark.sql(
            "SELECT topic, g.g, size(filter(groups, x -> x.n > 3)) AS n FROM cds_training "
            "LATERAL VIEW explode(groups) AS g WHERE exists(groups, x -> x.n < 0) OR ts > 10"
        ).limit(200).collect()
        again.join(again.select("topic").distinct(), "topic").count()
        again.select("topic", "ts").mapInArrow(_same, "topic string, ts long").count()
        again.toPandas()
        again.unpersist()


def _same(batches: Iterator[Any]) -> Iterator[Any]:
    yield from batches


def main(argv: list[str] | None = None) -> int:
    """Make the archive for this JDK and Spark if it is missing; print where it is."""
    args = sys.argv[1:] if argv is None else argv
    path = archive_path()
    if path is None:
        print("class archive: no java or no pyspark found; skipped", file=sys.stderr)
        return 0
    if "--check" in args:
        print(path)
        return 0 if path.is_file() else 1
    if path.is_file() and "--force" not in args:
        print(path)
        return 0
    # Imported only now: a check that finds the archive stays out of pyspark (setup.sh
    # runs one each time, and must be quick when everything is installed).
    from spark_jobs.session import build_session, stop_session
    from spark_jobs.settings import SparkSettings

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    settings = SparkSettings(master="local[2]", conf={"spark.ui.showConsoleProgress": "false"})
    settings = dataclasses.replace(
        settings,
        # The dump warns about each class it cannot keep (Spark's generated accessors).
        driver_java_options=(
            f"{settings.driver_java_options} {DUMP_OPTION}{partial} -Xlog:cds=error"
        ),
    )
    try:
        spark = build_session(settings, "spark-class-archive")
        launched = getattr(spark.sparkContext._gateway, "proc", None)
        try:
            _train(spark)
        finally:
            stop_session(spark)
        # The JVM writes the archive as it exits, and it exits when its stdin closes
        # (PySpark's gateway watches it): close it and wait for the archive.
        if launched is not None:
            launched.stdin.close()
            launched.wait(timeout=300)
    except Exception as exc:  # an archive only saves time: say why and go on
        partial.unlink(missing_ok=True)
        print(f"class archive: not made ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 0
    if not partial.is_file():
        print(f"class archive: the JVM wrote no {partial}; not made", file=sys.stderr)
        return 0
    partial.replace(path)
    for old in path.parent.glob("spark-*.jsa"):
        if old != path:
            old.unlink()
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
