"""The pipeline around the core: collect, validate, size, simulate, validate, publish.

One set of step functions, run two ways: in one process by `partition-planner plan`
(`planner.pipeline.run`), and as Airflow tasks and Spark submissions by the DAGs in
`dags/`. The steps meet in a `Workspace` (folders and the store, from the config) and
hand each other files, never in-memory state, so each can run in its own process.

- `workspace`: where everything lives.
- `jobs`: the Spark applications and their arguments.
- `validation`: the input and output suites on Spark (a Spark application itself).
- `row_checks`, `set_aside`: row-level input failures turned into topics set aside
  (status `invalid-figures`), or into a run-level stop when they are too many.
- `state`: what the validations hand the publish step (results, fingerprints).
- `interval`: which day `partition-planner plan` plans when not told; `live_days`:
  what each live source holds of a day, asked before any step; `sample_days`: the
  days a source holds.
- `publish`: store, site and Data Docs, only for a validated run.
- `connections`: Airflow connections over the config file.
- `run`: all of it in one process.

Importing this package imports none of Spark, GX, pandas or SQLAlchemy: each step
imports what it needs when it runs.
"""
