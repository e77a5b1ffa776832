"""Both jobs in one Spark application: `size_partitions`, then `simulate_assignments`.

This is how the DAGs run them (task `size_and_simulate`). The two jobs stay two jobs,
each with its own `main` for running one alone (re-simulating after a settings change,
a test); run together they share one driver JVM, one set of Python workers and one
executor allocation. A second application would pay all of that again: on `local[2]`
about 5 s of JVM and session start-up and 1.5 s of Python worker start-up, a quarter
of the two jobs' time on the 10,000-topic sample fleet (docs/benchmarks.md); on YARN or
Kubernetes, a second round of container or pod scheduling as well.

`simulate_assignments` starts only once `sizing` is written and swapped into place, and
reads it back from there, exactly as it does when run alone. A run that fails in either
job exits non-zero, as the two tasks did when they were two applications: a failure in
the second leaves the run's new `sizing` in place (whole) and nothing of what the
second was writing, and the run publishes nothing, since the DAG publishes only after
validating all three datasets.

    python -m spark_jobs.size_and_simulate --figures FIGURES --out OUT --interval 2026-11-21
    spark-submit --master spark://host:7077 spark_jobs/size_and_simulate.py \\
        --figures FIGURES --out OUT --interval 20261121T0000Z
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_jobs import simulate_assignments, size_partitions
from spark_jobs.figures import RunFigures
from spark_jobs.runner import main_for
from spark_jobs.settings import JobSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["main", "run"]


def run(
    spark: SparkSession, figures: RunFigures, settings: JobSettings, args: argparse.Namespace
) -> dict[str, Path]:
    """Both jobs' bodies on one running session, in order.

    Returns:
        Dataset name -> its run folder (`sizing`, `simulations`, `recommendations`).
    """
    written = size_partitions.run(spark, figures, settings, args)
    written.update(simulate_assignments.run(spark, figures, settings, args))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Run both jobs; see `python -m spark_jobs.size_and_simulate --help`."""
    return main_for(
        "size_and_simulate",
        "Size every topic of a data interval, then simulate its consumer groups, in one "
        "Spark application (writes the sizing, simulations and recommendations datasets).",
        run,
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
