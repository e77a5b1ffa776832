"""The Spark steps of a run, in order; each is the task of that id in the DAGs.

A leaf module: the DAG files' operators (`planner.pipeline.operators`, imported at parse
time) and the run plan that describes each step (`planner.pipeline.tasks`) both read it.
`size_and_simulate` runs both Spark jobs in one application
(`spark_jobs.size_and_simulate`).
"""

from __future__ import annotations

__all__ = ["SPARK_STEPS"]

SPARK_STEPS = ("validate_inputs", "size_and_simulate", "validate_outputs")
