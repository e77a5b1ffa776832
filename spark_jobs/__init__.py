"""PySpark jobs that size a whole fleet and simulate its consumer groups.

- `size_partitions`: the run's figures -> the `sizing` dataset (`plan_topic` per topic).
- `simulate_assignments`: `sizing` and the run's groups -> `simulations` and
  `recommendations`.

Each is a chain of DataFrame -> DataFrame transforms with a thin `main(argv)`; the Arrow
functions they apply per topic (`planning`, `simulation`, `groups`, `consumers`) import no
Spark.
See docs/spark-jobs.md.
"""
