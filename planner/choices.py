"""The names a planner input may take, light enough for a DAG file's form to offer.

`PARTITIONERS`: the librdkafka `partitioner` values `planner.partitioners` reproduces
(`random` has no key hash). `STRATEGIES`: Kafka's `partition.assignment.strategy`
names `planner.assignors` implements. Standard library only (no NumPy), so that
`dags/plan_new_topic.py` takes its choices from here instead of a copy.
"""

from __future__ import annotations

from typing import Final

from planner.assignors import STRATEGIES

__all__ = ["PARTITIONERS", "STRATEGIES"]

PARTITIONERS: Final[tuple[str, ...]] = (
    "murmur2_random",
    "murmur2",
    "consistent_random",
    "consistent",
    "fnv1a_random",
    "fnv1a",
)
