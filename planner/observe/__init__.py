"""Observing a live cluster over time: `partition-planner observe` and its dataset.

- `tables`: what one sample records;
- `dataset`: the observations on disk (append-only, crash-safe, compacted, bounded);
- `sampler`: one sample of the cluster (adapter: confluent-kafka, Kafka's tools);
- `groups`: the consumer groups and committed offsets, in a long-lived child process;
- `reservoir`: the day's key sample per topic, as the partitioners' hashes;
- `observer`: the loop;
- `settings`: the `[sources.kafka]` keys that drive it.

How collection turns observations into figures: `planner.collect.observations` and the
rules in `planner.observed`. The whole story: docs/observations.md.
"""
