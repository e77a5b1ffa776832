"""Kafka partition capacity planner: the domain library.

The core modules (`sizing`, `partitioners`, `assignors`, `simulate`, `recommend`) compute
on plain values and import nothing heavier than NumPy and PyArrow; adapters for files,
Kafka, Prometheus, Spark and the store live beside them and import their clients lazily.
"""

__version__ = "0.1.0"
