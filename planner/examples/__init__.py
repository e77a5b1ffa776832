"""The bundled example topic: 30 days of hourly figures, capacities, keys, groups.

`load_example()` returns what `planner.recommend.plan_topic` takes. The data was made
by `scripts/make_example.py` (deterministic) and is shipped with the package so the
demo runs without a cluster.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

import numpy as np

from planner.adapters.key_sample import read_key_sample
from planner.recommend import GroupInfo, TopicHistory
from planner.sizing import SideCapacity

__all__ = ["Example", "load_example"]

_MIB = 2**20


@dataclass(frozen=True)
class Example:
    """Inputs of `plan_topic` for the bundled topic."""

    history: TopicHistory
    producer: SideCapacity
    consumer: SideCapacity
    brokers: int
    groups: tuple[GroupInfo, ...]
    capacity_source: str


def load_example() -> Example:
    """Load the bundled example topic."""
    folder = resources.files(__name__)
    meta = json.loads(folder.joinpath("topic.json").read_text(encoding="utf-8"))
    with resources.as_file(folder.joinpath("throughput.csv")) as path:
        figures = np.loadtxt(path, delimiter=",", skiprows=1)
    with resources.as_file(folder.joinpath("keys.csv")) as path:
        keys, counts = read_key_sample(path)
    cap = meta["capacity"]
    history = TopicHistory(
        topic=meta["topic"],
        ts_s=figures[:, 0],
        mib_in=figures[:, 1] / _MIB,
        records_in=figures[:, 2],
        mib_out=figures[:, 3] / _MIB,
        current_partitions=meta["partitions"],
        replication_factor=meta["replication_factor"],
        keyed=meta["keyed"],
        partitioner=meta["partitioner"],
        retention_ms=meta["retention_ms"],
        keys=keys,
        key_counts=counts,
    )
    return Example(
        history=history,
        producer=SideCapacity(cap["producer_mib_per_s"], cap["producer_records_per_s"]),
        consumer=SideCapacity(cap["consumer_mib_per_s"], cap["consumer_records_per_s"]),
        brokers=meta["cluster"]["brokers"],
        groups=tuple(GroupInfo(**g) for g in meta["groups"]),
        capacity_source=cap["source"],
    )
