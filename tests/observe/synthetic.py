"""A cluster on paper, sampled as `partition-planner observe` would: exact counters.

Every counter is a known function of time, so what collection makes of the samples can
be checked against the truth to the record: end offsets grow at each topic's rate from
its creation, committed offsets follow each group's own schedule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np
import pyarrow as pa

from planner.observe.dataset import ObservationsDataset
from planner.observe.reservoir import KeyReservoir
from planner.observe.tables import sample_rows
from planner.partitioners import hash_to_hashed


@dataclass
class PaperTopic:
    """A topic producing `rate` records/s over its partitions from `created` on."""

    name: str
    partitions: int
    rate: float
    record_bytes: int = 100
    keyed: bool = False
    created: datetime | None = None
    deleted: datetime | None = None
    # Records per offset (1: no transactions; 0.5: one marker per record).
    record_share: float = 1.0
    # Moments when a partition has no leader: (partition, start, end).
    leaderless: list[tuple[int, datetime, datetime]] = field(default_factory=list)
    # Quiet spells: no records produced in [start, end).
    lulls: list[tuple[datetime, datetime]] = field(default_factory=list)
    # Keys and how often each is produced (a keyed topic's records read draw from it).
    key_weights: dict[bytes, float] | None = None
    # Each partition's replicas, leader first (`topics.replicas`); None: not recorded.
    replicas: str | None = None

    def offsets(self, at: datetime) -> float:
        """Offsets appended by `at` (records and markers)."""
        if self.created is not None and at < self.created:
            return 0.0
        start = self.created or datetime(2026, 1, 1, tzinfo=at.tzinfo)
        seconds = (at - start).total_seconds()
        for lo, hi in self.lulls:
            quiet = (min(at, hi) - max(start, lo)).total_seconds()
            seconds -= max(0.0, quiet)
        return seconds * self.rate / self.record_share

    def exists(self, at: datetime) -> bool:
        return (self.created is None or at >= self.created) and (
            self.deleted is None or at < self.deleted
        )


@dataclass
class PaperGroup:
    """A group reading one topic; `consumed(at)` is its committed offsets' total."""

    group_id: str
    topic: str
    members: int
    consumed: Callable[[datetime], float]
    protocol: str = "classic"
    assignor: str = "range"
    active: Callable[[datetime], bool] = lambda _at: True


def write_samples(
    dataset: ObservationsDataset,
    topics: Iterable[PaperTopic],
    groups: Iterable[PaperGroup],
    moments: Iterable[datetime],
    *,
    every_s: float,
    reservoir: KeyReservoir | None = None,
    seed: int = 0,
    racks: dict[int, str | None] | None = None,
) -> int:
    """Append a sample at each of `moments`; returns how many.

    Keyed topics with `key_weights` offer the keys of their records read to
    `reservoir` (a new one of 1,000 records per day by default), as the observer does.
    `racks` are the brokers and their `broker.rack` (default: broker 1, no rack).
    """
    racks = racks if racks is not None else {1: None}
    topics, groups = list(topics), list(groups)
    # Two streams: the reservoir's draws must not be the draws that chose the keys.
    reservoir = reservoir or KeyReservoir(1000, np.random.default_rng(seed + 1))
    rng = np.random.default_rng(seed)
    previous: datetime | None = None
    count = 0
    for at in moments:
        live = [t for t in topics if t.exists(at)]
        parts = [(t, p) for t in live for p in range(t.partitions)]

        def end(t: PaperTopic, p: int, at: datetime = at) -> int | None:
            if any(q == p and lo <= at < hi for q, lo, hi in t.leaderless):
                return None
            return int(t.offsets(at) / t.partitions)

        tables: dict[str, pa.Table] = {
            "sample": sample_rows(
                "sample",
                at,
                observer=["paper"],
                every_s=[every_s],
                previous_ts=[previous],
                topics=[len(live)],
                partitions=[len(parts)],
                groups_read=[True],
                tools_read=[False],
            ),
            "partitions": sample_rows(
                "partitions",
                at,
                topic=[t.name for t, _ in parts],
                partition=[p for _, p in parts],
                end_offset=[end(t, p) for t, p in parts],
                leader=[1] * len(parts),
            ),
            "topics": sample_rows(
                "topics",
                at,
                topic=[t.name for t in live],
                partitions=[t.partitions for t in live],
                replication_factor=[
                    t.replicas.split(",")[0].count(":") + 1 if t.replicas else 1 for t in live
                ],
                retention_ms=[604_800_000] * len(live),
                replicas=[t.replicas for t in live],
            ),
            "brokers": sample_rows(
                "brokers",
                at,
                broker_id=list(racks),
                rack=list(racks.values()),
                live=[True] * len(racks),
            ),
        }
        if previous is not None:
            grown = [t.offsets(at) - t.offsets(previous) for t in live]
            read = [min(500.0, g) for g in grown]
            records = [int(r * t.record_share) for r, t in zip(read, live, strict=True)]
            tables["records"] = sample_rows(
                "records",
                at,
                topic=[t.name for t in live],
                window_start=[previous] * len(live),
                records_read=records,
                bytes_read=[r * t.record_bytes for r, t in zip(records, live, strict=True)],
                keyed_read=[r if t.keyed else 0 for r, t in zip(records, live, strict=True)],
                offsets_read=[int(r) for r in read],
            )
            tables["keys"] = _keys(at, live, records, grown, reservoir, rng)
        active = [g for g in groups if g.active(at)]
        tables["groups"] = sample_rows(
            "groups",
            at,
            group_id=[g.group_id for g in groups],
            protocol=[g.protocol for g in groups],
            assignor=[g.assignor if g in active else None for g in groups],
            state=["STABLE" if g in active else "EMPTY" for g in groups],
            members=[g.members if g in active else 0 for g in groups],
            simple=[False] * len(groups),
        )
        member_rows: dict[str, list] = {
            k: [] for k in ("group_id", "member_id", "topic", "partition")
        }
        committed: dict[str, list] = {k: [] for k in ("group_id", "topic", "partition", "offset")}
        by_name = {t.name: t for t in topics}
        for g in groups:
            topic = by_name[g.topic]
            if not topic.exists(at):
                continue
            if g in active:
                for p in range(topic.partitions):
                    member_rows["group_id"].append(g.group_id)
                    member_rows["member_id"].append(f"m{p % g.members}")
                    member_rows["topic"].append(g.topic)
                    member_rows["partition"].append(p)
            for p in range(topic.partitions):
                committed["group_id"].append(g.group_id)
                committed["topic"].append(g.topic)
                committed["partition"].append(p)
                committed["offset"].append(int(g.consumed(at) / topic.partitions))
        tables["members"] = sample_rows("members", at, **member_rows)
        tables["committed"] = sample_rows("committed", at, **committed)
        dataset.append(at, tables)
        previous = at
        count += 1
    return count


def _keys(
    at: datetime,
    live: list[PaperTopic],
    records: list[int],
    grown: list[float],
    reservoir: KeyReservoir,
    rng: np.random.Generator,
) -> pa.Table:
    columns: dict[str, list] = {c: [] for c in ("topic", "murmur2", "crc32", "fnv1a", "empty")}
    columns["weight"], columns["priority"] = [], []
    for topic, read, offsets in zip(live, records, grown, strict=True):
        if not topic.key_weights or read == 0:
            continue
        names = list(topic.key_weights)
        p = np.array([topic.key_weights[k] for k in names], dtype=np.float64)
        drawn = rng.choice(len(names), size=read, p=p / p.sum())
        weights = np.full(read, offsets / read)
        chosen, priority = reservoir.offer(topic.name, at.date(), weights)
        hashed = hash_to_hashed([names[i] for i in drawn[chosen]])
        columns["topic"] += [topic.name] * chosen.size
        for name in ("murmur2", "crc32", "fnv1a", "empty"):
            columns[name] += hashed.field(name).to_pylist()
        columns["weight"] += weights[chosen].tolist()
        columns["priority"] += priority.tolist()
    return sample_rows("keys", at, day=[at.date()] * len(columns["topic"]), **columns)


def every(
    start: datetime, end: datetime, step_s: float, *, skip: Iterable[tuple[datetime, datetime]] = ()
) -> list[datetime]:
    """Moments from `start` to `end`, `step_s` apart, leaving out the `skip` spells."""
    out, at = [], start
    gaps = list(skip)
    while at < end:
        if not any(lo <= at < hi for lo, hi in gaps):
            out.append(at)
        at += timedelta(seconds=step_s)
    return out
