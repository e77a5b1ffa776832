"""Frames in the canonical schemas (the `spark` session is tests/conftest.py's)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

# Set before anything imports Great Expectations, which logs about 200 INFO lines.
logging.getLogger("great_expectations").setLevel(logging.WARNING)


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
