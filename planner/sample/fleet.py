"""The per-topic model of a sample fleet: sizes, cycles, growth, partitions, keys, events.

`build_fleet` draws every parameter of the fleet once, from one seed, as NumPy arrays
(one entry per topic or per group); `planner.sample.series` turns the parameters into
hourly rates and `planner.sample.landing` writes the landing files. Keeping the
parameters apart from the rows is what lets a test compare a fitted growth with the
growth the generator used, and lets the rates be generated one day at a time.

Capacities are drawn in `planner.sample.capacity`, consumer groups in
`planner.sample.groups`; every draw comes from its own stream (`planner.sample.streams`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np
import numpy.typing as npt

from planner.sample import streams
from planner.sample.capacity import (
    MIB,
    Capacity,
    PerfSpec,
    draw_capacity,
    draw_perf,
    effective_capacity,
)
from planner.sample.groups import Groups, draw_groups, group_rows
from planner.sample.names import KEY_STYLES, topic_names
from planner.sample.racks import first_leaders
from planner.sample.streams import Floats, Ints, choice, normalise
from planner.sizing import DEFAULT_HEADROOM_PCT, DEFAULT_HORIZON_DAYS

__all__ = [
    "PROFILES",
    "Events",
    "Fleet",
    "KeySpec",
    "Topics",
    "build_fleet",
    "daily_shape",
    "keyed_count",
    "keys_per_sample",
    "weekly_factors",
]

PROFILES: tuple[str, ...] = ("business", "flat", "nightly")
"""Daily shapes: peak in local business hours, nearly flat (machines), nightly batch."""


_HEADROOM = 1.0 + DEFAULT_HEADROOM_PCT / 100.0  # sized as the planner sizes by default
_REPLICAS_PER_BROKER = 3_000  # below the rule-of-thumb ceiling of about 4,000
_RACKS = ("use1-az1", "use1-az2", "use1-az4")
_UTC_OFFSETS_H = np.array([-8.0, -5.0, 0.0, 1.0, 5.5, 8.0, 9.0])
_UTC_OFFSET_WEIGHTS = np.array([0.14, 0.26, 0.14, 0.24, 0.08, 0.08, 0.06])
_RETENTION_DAYS = np.array([1, 3, 7, 14, 30, 90])
_RETENTION_WEIGHTS = np.array([0.08, 0.15, 0.52, 0.12, 0.10, 0.03])
# Java-like clients (murmur2), librdkafka's default (CRC-32), and librdkafka set to FNV-1a
# (what teams choose to land keys where their Go/Sarama producers put them).
_PARTITIONERS = ("murmur2_random", "consistent_random", "fnv1a_random")
_PARTITIONER_WEIGHTS = np.array([0.62, 0.33, 0.05])
# Partition counts teams pick: divisors-friendly numbers, powers of two, round tens.
_NICE_PARTITIONS = np.array(
    [
        *(1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 30, 32, 36, 40, 48, 50, 60, 64, 72, 80, 96),
        *(100, 120, 128, 144, 160, 192, 200, 240, 256, 300, 320, 384, 400, 480, 512, 640),
        *(768, 1024),
    ]
)
_HOUSE_DEFAULT_PARTITIONS = np.array([1, 3, 6, 12])
_HOUSE_DEFAULT_WEIGHTS = np.array([0.15, 0.35, 0.32, 0.18])


@dataclass(frozen=True)
class Topics:
    """Per-topic parameters; entry `i` of every array is topic `names[i]`.

    Attributes:
        names: Topic names, sorted.
        level_bytes_per_s: Weekly mean bytes/s in at the end of the history.
        record_bytes: Mean record size in bytes (100 B to 10 KiB).
        growth_per_year: Yearly growth as a fraction (0.4 = +40 %/year; below 0 shrinks).
        profile: Index into `PROFILES`.
        utc_offset_h: The time zone the topic's traffic follows, hours east of UTC.
        amplitude: Share of the traffic that follows the daily shape (0 = flat).
        peak_hour: Local hour of the daily peak.
        concentration: How narrow the daily peak is (von Mises concentration).
        weekend_factor: Weekend level relative to a weekday (1 = no weekly cycle).
        noise_sigma: Standard deviation of the hourly log-normal noise.
        fan_out: Consumer groups reading the topic (those in the groups table).
        partitions: Partition count today.
        needed_partitions: The generator's estimate of what the planner will require.
        replication_factor: Replicas per partition.
        keyed: Producers set keys and rely on per-key order.
        partitioner: Producers' partitioner, librdkafka names.
        retention_ms: retention.ms.
        first_leader: Broker index (from 0) leading partition 0; the other replicas
            follow from it (`planner.sample.racks.replica_assignment`).
    """

    names: tuple[str, ...]
    level_bytes_per_s: Floats
    record_bytes: Floats
    growth_per_year: Floats
    profile: Ints
    utc_offset_h: Floats
    amplitude: Floats
    peak_hour: Floats
    concentration: Floats
    weekend_factor: Floats
    noise_sigma: Floats
    fan_out: Ints
    partitions: Ints
    needed_partitions: Ints
    replication_factor: Ints
    keyed: npt.NDArray[np.bool_]
    partitioner: tuple[str, ...]
    retention_ms: Ints
    first_leader: Ints


@dataclass(frozen=True)
class Events:
    """Hours where a topic's rate is multiplied (bursts in, or replays out).

    Attributes:
        topic: Topic index per affected hour.
        hour: Hour index from the start of the history.
        factor: Multiplier for that topic and hour.
    """

    topic: Ints
    hour: Ints
    factor: Floats


@dataclass(frozen=True)
class KeySpec:
    """The key sample of one keyed topic.

    Attributes:
        topic: Topic index.
        style: One of `planner.sample.names.KEY_STYLES`.
        keys: Distinct keys in the sample.
        zipf_exponent: Counts fall as rank ** -exponent.
        hot_shares: Shares of all records taken by the hot keys (a few percent each).
    """

    topic: int
    style: str
    keys: int
    zipf_exponent: float
    hot_shares: tuple[float, ...]


@dataclass(frozen=True)
class Fleet:
    """A whole sample fleet's parameters.

    Attributes:
        seed: The seed everything was drawn from.
        start: First hour of the history (UTC midnight).
        days: Days of hourly history.
        topics: Per-topic parameters.
        capacity: Capacity rows.
        perf: Topics measured with the perf tools.
        groups: Consumer groups.
        bursts: Hours of producer bursts (multiply bytes and records in).
        replays: Hours where a group re-reads (multiply bytes out).
        brokers: Broker count.
        racks: Rack of each broker.
        key_specs: Key samples of keyed topics.
    """

    seed: int
    start: datetime
    days: int
    topics: Topics
    capacity: Capacity
    perf: tuple[PerfSpec, ...]
    groups: Groups
    bursts: Events
    replays: Events
    brokers: int
    racks: tuple[str, ...]
    key_specs: tuple[KeySpec, ...]

    @property
    def end(self) -> datetime:
        """The exclusive end of the history (UTC midnight)."""
        return self.start + timedelta(days=self.days)

    @property
    def hours(self) -> int:
        """Hourly samples per topic."""
        return self.days * 24


def keyed_count(topics: int) -> int:
    """Keyed topics in a fleet: about 2 %, and at least three so small fleets have some."""
    return min(topics, max(3, round(0.02 * topics)))


def keys_per_sample(topics: int) -> int:
    """Distinct keys per key sample: 100,000 at 10,000 topics, scaled down, at least 1,000."""
    return int(min(100_000, max(1_000, 10 * topics)))


def _nice_ceil(x: Floats) -> Ints:
    """The smallest common partition count >= x (x above the table: x rounded up)."""
    top = np.ceil(x).astype(np.int64)
    i = np.searchsorted(_NICE_PARTITIONS, top, side="left")
    inside = _NICE_PARTITIONS[np.minimum(i, _NICE_PARTITIONS.size - 1)]
    return np.where(i < _NICE_PARTITIONS.size, inside, top).astype(np.int64)


def _nice_floor(x: Floats) -> Ints:
    """The largest common partition count <= x, at least 1."""
    i = np.searchsorted(_NICE_PARTITIONS, np.floor(x), side="right") - 1
    return np.asarray(_NICE_PARTITIONS[np.maximum(i, 0)], dtype=np.int64)


def _sizes(rng: np.random.Generator, n: int) -> tuple[Floats, Floats]:
    """Weekly mean bytes/s and record size per topic.

    Three log-normal tiers: many small topics (80 %, median 3 KiB/s), a middle (18 %,
    median 300 KiB/s) and a few big ones (2 %, at least one; median 8 MiB/s, the largest
    at tens of MiB/s).
    """
    tier = choice(rng, n, np.array([0.80, 0.18, 0.02]))
    tier[int(rng.integers(n))] = 2
    medians = np.array([3 * 1024.0, 300 * 1024.0, 8 * MIB])[tier]
    sigmas = np.array([1.5, 1.0, 0.7])[tier]
    level = np.clip(rng.lognormal(np.log(medians), sigmas), 2.0, 150 * MIB)
    record = np.clip(rng.lognormal(math.log(700.0), 0.9, n), 100.0, 10_240.0)
    # Past about 100,000 records/s, producers batch several events into one record.
    record = np.clip(np.maximum(record, level / 100_000.0), 100.0, 10_240.0)
    return level, np.round(record)


def _growth(rng: np.random.Generator, n: int) -> Floats:
    kind = choice(rng, n, np.array([0.82, 0.08, 0.10]))
    steady = rng.uniform(0.0, 0.8, n)
    fast = rng.uniform(0.8, 2.0, n)
    shrinking = rng.uniform(-0.5, -0.05, n)
    return np.select([kind == 0, kind == 1], [steady, fast], shrinking)


def _cycles(rng: np.random.Generator, n: int) -> tuple[Ints, dict[str, Floats]]:
    """Each topic's daily profile, and the parameters of its daily and weekly cycles."""
    profile = choice(rng, n, np.array([0.60, 0.28, 0.12]))
    business, flat = profile == 0, profile == 1
    return profile, {
        "utc_offset_h": _UTC_OFFSETS_H[choice(rng, n, _UTC_OFFSET_WEIGHTS)],
        "amplitude": np.select(
            [business, flat],
            [rng.uniform(0.5, 0.9, n), rng.uniform(0.03, 0.15, n)],
            rng.uniform(0.4, 0.8, n),
        ),
        "peak_hour": np.select(
            [business, flat],
            [rng.uniform(10.5, 15.5, n), rng.uniform(0.0, 24.0, n)],
            rng.uniform(1.0, 4.5, n),
        ),
        "concentration": np.select(
            [business, flat], [rng.uniform(1.5, 3.0, n), np.ones(n)], rng.uniform(3.0, 6.0, n)
        ),
        "weekend_factor": np.select(
            [business, flat],
            [rng.uniform(0.35, 0.8, n), rng.uniform(0.9, 1.0, n)],
            rng.uniform(0.6, 1.0, n),
        ),
    }


def daily_shape(
    local_hour: Floats, amplitude: Floats, peak_hour: Floats, concentration: Floats
) -> Floats:
    """The daily cycle, mean 1 over a day: a von Mises bump around the peak hour.

    `exp(k cos(theta)) / I0(k)` has mean 1 over a full turn, so the mix
    `(1 - a) + a * bump` keeps the day's mean at 1 whatever the amplitude `a`.
    """
    theta = 2.0 * np.pi * (local_hour - peak_hour) / 24.0
    bump = np.exp(concentration * np.cos(theta)) / np.i0(concentration)
    return np.asarray((1.0 - amplitude) + amplitude * bump, dtype=np.float64)


def weekly_factors(weekend_factor: Floats) -> tuple[Floats, Floats]:
    """Weekday and weekend multipliers whose mean over a week is 1."""
    norm = 7.0 / (5.0 + 2.0 * weekend_factor)
    return norm, weekend_factor * norm


def _events(
    rng: np.random.Generator, rate_per_day: Floats, hours: int, low: float, high: float
) -> Events:
    """Events of 1-4 hours at random starts, `rate_per_day` per topic, log-uniform factors."""
    counts = rng.poisson(rate_per_day * hours / 24.0)
    topic = np.repeat(np.arange(counts.size), counts)
    start = rng.integers(0, max(hours, 1), topic.size)
    length = rng.integers(1, 5, topic.size)
    factor = np.exp(rng.uniform(math.log(low), math.log(high), topic.size))
    offsets = np.arange(4)
    t = np.repeat(topic, 4)
    h = (start[:, None] + offsets[None, :]).ravel()
    f = np.repeat(factor, 4)
    keep = (np.tile(offsets, topic.size) < np.repeat(length, 4)) & (h < hours)
    return Events(t[keep].astype(np.int64), h[keep].astype(np.int64), f[keep])


def _peak_estimate(level: Floats, cycles: dict[str, Floats]) -> Floats:
    """An upper envelope of the hourly level: the daily peak on a weekday."""
    hours = np.linspace(0.0, 24.0, 97)[None, :]
    shape = daily_shape(
        hours,
        cycles["amplitude"][:, None],
        cycles["peak_hour"][:, None],
        cycles["concentration"][:, None],
    ).max(axis=1)
    weekday, _ = weekly_factors(cycles["weekend_factor"])
    return np.asarray(level * shape * weekday, dtype=np.float64)


def _partitions(rng: np.random.Generator, needed: Ints) -> Ints:
    """Today's partition counts: 45 % fine, 35 % too few (where more than one partition
    is needed), 20 % generous; never below a house default except when too few."""
    n = needed.size
    kind = choice(rng, n, np.array([0.45, 0.35, 0.2]))
    house = _HOUSE_DEFAULT_PARTITIONS[choice(rng, n, _HOUSE_DEFAULT_WEIGHTS)]
    # One partition that suffices stays one; above that, teams round up to a common count.
    fine = np.where(needed <= 1, 1, _nice_ceil(needed * rng.uniform(1.0, 1.3, n)))
    fine = np.maximum(fine, house)
    too_few = _nice_floor(needed * rng.uniform(0.25, 0.7, n))
    generous = np.maximum(_nice_ceil(needed * rng.uniform(3.0, 8.0, n)), house)
    generous = np.minimum(generous, np.maximum(1024, fine))
    # A topic that needs one partition cannot have too few.
    too_few = np.where(too_few < needed, too_few, fine)
    return np.asarray(np.select([kind == 0, kind == 1], [fine, too_few], generous), np.int64)


def build_fleet(topics: int, days: int, seed: int, end: datetime) -> Fleet:
    """Draw every parameter of a fleet of `topics` topics with `days` days of history.

    Args:
        topics: Number of topics (>= 1).
        days: Days of hourly history (>= 1).
        seed: The random seed; the same seed gives the same fleet.
        end: Exclusive end of the history, a UTC midnight.
    """
    if topics < 1 or days < 1:
        raise ValueError("a fleet needs at least one topic and one day")
    if end.tzinfo is None or end != datetime(end.year, end.month, end.day, tzinfo=UTC):
        raise ValueError(f"the end of the history must be a UTC midnight, got {end}")
    end = end.astimezone(UTC)
    end_s = int(end.timestamp())
    n = topics
    names = topic_names(streams.stream(seed, streams.NAMES), n)
    level, record_bytes = _sizes(streams.stream(seed, streams.SIZES), n)
    growth = _growth(streams.stream(seed, streams.GROWTH), n)
    profile, cycles = _cycles(streams.stream(seed, streams.CYCLES), n)
    # Busier topics are smoother: the hourly noise falls with the record rate.
    noise = np.clip(0.35 / np.power(level / record_bytes, 0.25), 0.03, 0.3)
    noise = noise * streams.stream(seed, streams.NOISE_LEVEL).uniform(0.8, 1.2, n)

    rng = streams.stream(seed, streams.KEYED)
    k = keyed_count(n)
    keyed_idx = np.sort(rng.choice(n, size=k, replace=False, p=normalise(level**0.3)))
    keyed = np.zeros(n, dtype=np.bool_)
    keyed[keyed_idx] = True

    rng = streams.stream(seed, streams.CAPACITY)
    by_size = np.argsort(-level, kind="stable")
    n_perf = min(6, max(1, n // 8))
    perf_topics = np.sort(rng.choice(by_size[: max(n_perf, n // 4)], n_perf, replace=False))
    others = np.setdiff1d(np.arange(n), perf_topics)
    # Teams measure their big topics first.
    n_measured = round(0.2 * others.size)
    measured = others[:0]
    if n_measured:
        weights = normalise(np.sqrt(level[others]))
        measured = np.sort(rng.choice(others, n_measured, replace=False, p=weights))
    capacity = draw_capacity(rng, level, record_bytes, measured, end_s)
    perf = draw_perf(streams.stream(seed, streams.PERF), perf_topics, record_bytes, end_s)
    low_bytes, low_records = effective_capacity(n, capacity, perf, record_bytes)

    # What the planner will require: the 99th percentile (the envelope times the noise's
    # 99th percentile, exp(2.33 sigma)) grown over its horizon, plus its headroom.
    peak = _peak_estimate(level, cycles) * np.exp(2.33 * noise)
    grown = peak * np.where(growth > 0, np.power(1.0 + growth, DEFAULT_HORIZON_DAYS / 365.0), 1.0)
    target = grown * _HEADROOM
    need = np.fmax(target / low_bytes, target / record_bytes / low_records)
    needed = np.maximum(np.ceil(need), 1).astype(np.int64)

    rng = streams.stream(seed, streams.CONFIG)
    partitions = _partitions(rng, needed)
    rf = np.array([1, 2, 3, 4])[choice(rng, n, np.array([0.02, 0.05, 0.92, 0.01]))]
    partitioner = tuple(np.array(_PARTITIONERS)[choice(rng, n, _PARTITIONER_WEIGHTS)].tolist())
    retention_ms = _RETENTION_DAYS[choice(rng, n, _RETENTION_WEIGHTS)] * 86_400_000
    replicas = int((partitions * rf).sum())
    brokers = max(6, 3 * math.ceil(replicas / (3 * _REPLICAS_PER_BROKER)))
    rf = np.minimum(rf, brokers)
    # Its own stream: placing replicas shifts no other figure of a seed's fleet.
    first_leader = first_leaders(streams.stream(seed, streams.REPLICAS), n, brokers)

    rng = streams.stream(seed, streams.GROUPS)
    n_groups = max(k, round(0.3 * n), 1)
    popularity = np.power(level, 0.25) * rng.lognormal(0.0, 0.5, n)
    row_group, row_topic = group_rows(rng, n, n_groups, keyed_idx, popularity)
    pairs = np.unique(row_group * n + row_topic)  # a run may wrap onto itself: dedupe
    row_group, row_topic = pairs // n, pairs % n
    fan_out = np.bincount(row_topic, minlength=n).astype(np.int64)
    groups = draw_groups(rng, names, row_group, row_topic, n_groups, need, partitions)

    rng = streams.stream(seed, streams.EVENTS)
    hours = days * 24
    bursts = _events(rng, 0.05 * rng.lognormal(0.0, 0.7, n), hours, 1.5, 5.0)
    replay_rate = np.where(fan_out > 0, 0.03, 0.0)
    replays = _events(rng, replay_rate, hours, 1.0, 6.0)
    # A replay is one group re-reading at 1-6x the live rate: out grows by that share.
    replays = Events(
        replays.topic,
        replays.hour,
        1.0 + replays.factor / np.maximum(fan_out[replays.topic], 1),
    )

    key_specs = _key_specs(streams.stream(seed, streams.KEY_SPECS), keyed_idx, keys_per_sample(n))

    return Fleet(
        seed=seed,
        start=end - timedelta(days=days),
        days=days,
        topics=Topics(
            names=tuple(names),
            level_bytes_per_s=level,
            record_bytes=record_bytes,
            growth_per_year=growth,
            profile=profile,
            utc_offset_h=cycles["utc_offset_h"],
            amplitude=cycles["amplitude"],
            peak_hour=cycles["peak_hour"],
            concentration=cycles["concentration"],
            weekend_factor=cycles["weekend_factor"],
            noise_sigma=noise,
            fan_out=fan_out,
            partitions=partitions,
            needed_partitions=needed,
            replication_factor=rf.astype(np.int64),
            keyed=keyed,
            partitioner=partitioner,
            retention_ms=retention_ms.astype(np.int64),
            first_leader=first_leader,
        ),
        capacity=capacity,
        perf=perf,
        groups=groups,
        bursts=bursts,
        replays=replays,
        brokers=brokers,
        racks=tuple(_RACKS[i % len(_RACKS)] for i in range(brokers)),
        key_specs=key_specs,
    )


def _key_specs(rng: np.random.Generator, keyed: Ints, n_keys: int) -> tuple[KeySpec, ...]:
    """Key samples: about 5 % of keyed topics with binary keys (at least one when there
    are two or more), the rest entity ids, UUIDs or numeric ids."""
    k = keyed.size
    n_binary = max(1, round(0.05 * k)) if k >= 2 else 0
    styles = [KEY_STYLES[3 + (j % 2)] for j in range(n_binary)]
    styles += [KEY_STYLES[j] for j in choice(rng, k - n_binary, np.array([0.6, 0.25, 0.15]))]
    order = rng.permutation(k)
    return tuple(
        KeySpec(
            topic=int(t),
            style=styles[int(order[j])],
            keys=n_keys,
            zipf_exponent=float(rng.uniform(0.6, 1.2)),
            hot_shares=tuple(rng.uniform(0.02, 0.12, int(rng.integers(1, 4))).tolist()),
        )
        for j, t in enumerate(keyed.tolist())
    )
