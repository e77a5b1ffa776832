"""One local Spark session for the expectation tests, and frames in the canonical schemas."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

# Set before anything imports Great Expectations, which logs about 200 INFO lines.
logging.getLogger("great_expectations").setLevel(logging.WARNING)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A `local[2]` SparkSession: UI off, two shuffle partitions, UTC.

    Code generation and adaptive execution are off: the test frames have a few rows, and
    compiling each of the few hundred small queries a validation runs cost more than
    running them (a warm validation took about 2.5 s with them, 1.5 s without).
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        # Another test package's session: use it as it is, and leave stopping it to its
        # owner.
        yield active
        return
    # Python workers (the jobs' Arrow functions) run this interpreter, with the venv.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("expectations-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def figures_frame(spark: Any, table: str, rows: Sequence[Mapping[str, Any]]) -> Any:
    """A Spark DataFrame of the canonical figures `table`; columns a row leaves out are null.

    Every column is nullable, as in a frame read from Parquet, so a test can give a
    required column no value and see the suite catch it.
    """
    from pyspark.sql.pandas.types import from_arrow_schema
    from pyspark.sql.types import StructType

    from planner.figures.schema import TABLES

    spec = TABLES[table]
    names = [c.name for c in spec.columns]
    unknown = {k for row in rows for k in row} - set(names)
    assert not unknown, f"columns not in {table}: {unknown}"
    schema = StructType(
        [f.__class__(f.name, f.dataType, True) for f in from_arrow_schema(spec.schema)]
    )
    return spark.createDataFrame([tuple(row.get(n) for n in names) for row in rows], schema)
