"""The names a planner input may take, light enough for a DAG file's form to offer.

`PARTITIONERS`: the librdkafka `partitioner` values `planner.partitioners` reproduces
(`random` has no key hash). `STRATEGIES`: Kafka's `partition.assignment.strategy`
names `planner.assignors` implements. `PROTOCOLS` and `ASSIGNORS`: the group protocols
and every assignor name a group of one of them may report (`planner.protocols`; which
pairs are valid is `planner.protocols.check_group_strategy`'s to say). Standard library
only (no NumPy), so that `dags/plan_new_topic.py` takes its choices from here instead of
a copy.
"""

from __future__ import annotations

from typing import Final

from planner.assignors import STRATEGIES
from planner.protocols import GROUP_STRATEGIES, PROTOCOLS

__all__ = ["ASSIGNORS", "DEFAULT_PARTITIONER", "PARTITIONERS", "PROTOCOLS", "STRATEGIES"]

ASSIGNORS: Final[tuple[str, ...]] = tuple(
    dict.fromkeys(name for names in GROUP_STRATEGIES.values() for name in names)
)

#: A topic's partitioner when nothing says otherwise: the Java client's (murmur2 of the
#: key, keyless records spread), in librdkafka's name for it.
DEFAULT_PARTITIONER: Final = "murmur2_random"

PARTITIONERS: Final[tuple[str, ...]] = (
    "murmur2_random",
    "murmur2",
    "consistent_random",
    "consistent",
    "fnv1a_random",
    "fnv1a",
)
