"""The bundled example topic: 30 days of hourly figures, capacities, keys, groups.

`load_example()` returns what `planner.recommend.plan_topic` takes, and the brokers'
racks and replicas its cross-zone figure takes (one group gives `client.rack`, the other
not, as given in `topic.json`). The data was made
by `scripts/make_example.py` (deterministic) and is shipped with the package so the
demo runs without a cluster.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from planner.adapters.key_sample import read_key_sample
from planner.cross_zone import client_racks, replica_lists
from planner.recommend import GroupInfo, TopicHistory
from planner.sizing import SideCapacity

__all__ = ["Example", "load_example"]

_MIB = 2**20


@dataclass(frozen=True)
class Example:
    """Inputs of `plan_topic` for the bundled topic, and of its cross-zone figure
    (`planner.recommend.cross_zone.with_cross_zone`).

    Attributes:
        replicas: Each partition's replicas, leader first (broker ids).
        broker_racks: Broker id -> its `broker.rack`.
    """

    history: TopicHistory
    producer: SideCapacity
    consumer: SideCapacity
    brokers: int
    groups: tuple[GroupInfo, ...]
    capacity_source: str
    replicas: tuple[tuple[int, ...], ...] = ()
    broker_racks: Mapping[int, str | None] = field(default_factory=dict)


def _group(row: dict[str, Any]) -> GroupInfo:
    rack = row.pop("client_rack", None)
    return GroupInfo(**row, client_racks=client_racks(rack) if rack else ())


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
        groups=tuple(_group(dict(g)) for g in meta["groups"]),
        capacity_source=cap["source"],
        replicas=replica_lists(meta["replicas"]),
        broker_racks={i + 1: rack for i, rack in enumerate(meta["cluster"]["broker_racks"])},
    )
