"""Figures from a live cluster, read through Kafka's admin API (confluent-kafka, librdkafka).

One collection (`KafkaAdminSource.collect`) writes four tables:

- `cluster`: the brokers with their racks; a broker that replicas name but the cluster
  description leaves out is a row too, marked down (`live` false), with a note
  (`metadata`).
- `topics`: partitions, replication factor, `retention_ms`, and `keyed` from the
  records the throughput sample read; internal topics skipped (`metadata`).
- `groups`: one row per (consumer group, subscribed topic) with the planner strategy
  of the group's assignor and its member count (`consumer_groups` reads the groups,
  `planner.collect.kafka_groups` maps them; share groups cannot be described by the
  client library and are named in a note).
- `throughput`: records/s and bytes/s per topic, sampled now from end offsets and the
  records appended in between (`offsets`).

A `topics` landing file listed before this source in the config overrides what it says
of a topic (keyed, partitioner), since the first source wins.

Faults (`calls`): every admin call has a request timeout (`request_timeout_s`, also
librdkafka's socket timeouts) and is retried `retries` times with exponential backoff on
errors a retry can cure (transport, time-outs, coordinator moves, leader changes). A
cluster that cannot be reached raises `SourceUnavailable` naming the bootstrap servers
and the last error after about `(retries + 1) * request_timeout_s` plus the backoff
(0.5, 1, 2 s ...): the first call is the metadata read. An error a retry cannot cure
(authentication, authorization) raises it at once. A broker that is down is not a
fault: its partitions keep their other replicas, and only a partition left without a
leader loses its topic's throughput sample (rejected, with the reason). The group calls
run in a child process (`isolated`): librdkafka 2.16 can abort the process on a failed
group describe, and a child's abort costs one retry instead of the run.

Security settings (`security.protocol`, `sasl.*`, `ssl.*`) go in `config`, filled from
the planner config or the environment by the caller; nothing here reads either, and
messages name only the bootstrap servers. librdkafka's own log lines go to the Python
logger `planner.collect.kafka_admin.librdkafka`.

Verified against Apache Kafka 4.4.0 (one node, and three brokers in racks a, b, c with
one stopped) by `tests/collect/test_kafka_admin.py`; see `docs/figures.md`.
"""

from planner.collect.kafka_admin.source import KafkaAdminSource
from planner.collect.kafka_groups import DescribedGroup, DescribedMember

__all__ = ["DescribedGroup", "DescribedMember", "KafkaAdminSource"]
