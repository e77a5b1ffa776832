"""`partition-planner apply`: a published run's partition changes, made on the cluster.

- `decide` (pure): each change against the count on the cluster now: `apply`, `no-op`
  (a rerun) or `refused` (keyed without `--allow-key-remap`, changed since the plan,
  gone, or already there).
- `cluster`: Kafka's Admin API (`CreatePartitions`, `CreateTopics`, with
  `validate_only` for dry runs), its errors sorted into kinds.
- `run`: one topic at a time, each verified, each recorded in the store's audit; a
  cluster that stops answering stops the run with a report of what was done.
- `report` (pure): the report's text.
"""
