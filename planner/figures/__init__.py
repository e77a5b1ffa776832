"""The canonical figures dataset: schema, conforming source rows, and the on-disk layout."""

from planner.figures.conform import Conformed, FiguresError, conform, dedupe, empty, rejections
from planner.figures.dataset import (
    DataInterval,
    interval_path,
    list_intervals,
    read_manifest,
    read_table,
    write_interval,
)
from planner.figures.schema import BYTE_UNITS, REJECTED, SNAPSHOT_TABLES, TABLES, TIMESTAMP

__all__ = [
    "BYTE_UNITS",
    "REJECTED",
    "SNAPSHOT_TABLES",
    "TABLES",
    "TIMESTAMP",
    "Conformed",
    "DataInterval",
    "FiguresError",
    "conform",
    "dedupe",
    "empty",
    "interval_path",
    "list_intervals",
    "read_manifest",
    "read_table",
    "rejections",
    "write_interval",
]
