"""How a topic's load spreads over its partitions, and the keys no partition count can fix.

Loads are rates in one unit the caller chooses (MiB/s, records/s, or a utilisation
normalised to one consumer) and must be used consistently: a topic's `load`, every
partition load, every member load and `consumer_capacity` are all in that unit.

- Keyless records: producers spread them evenly over time (Java client: sticky, then
  uniform and load-aware since KIP-794; librdkafka's `*_random` partitioners: random),
  so every partition carries `load / P`.
- Keyed records: a key always lands on `hash(key) mod P`, with the hash of the topic's
  producer client (`planner.partitioners`). A key-frequency sample (distinct keys and how
  many records or bytes each had) is hashed once per candidate partition count and the
  per-partition sums are scaled so that they add up to the topic's load. Sampled records
  the client spreads at run time (null keys under a `*_random` partitioner, empty keys
  under `consistent_random`; see `planner.partitioners.KEYLESS_BEHAVIOUR`) are spread
  evenly; under the other partitioners null keys all land on one partition.
- A hot key (one key whose own rate exceeds what one consumer can process) cannot be
  fixed by adding partitions: one key never spreads over more than one partition.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.choices import DEFAULT_PARTITIONER
from planner.partitioners import (
    PARTITIONERS,
    SPREAD,
    KeyHashes,
    hash_keys,
    is_hashed,
    key_array,
    partitions_for_keys,
)

FloatArray = npt.NDArray[np.float64]

__all__ = [
    "HotKey",
    "TopicLoad",
    "busiest_lower_bound",
    "find_hot_keys",
    "hot_key_partitions",
    "loads_by_count",
    "partition_loads",
]


def _check_rate(name: str, value: float, *, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or number < 0 or (positive and number == 0):
        bound = "above zero" if positive else "zero or above"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return number


@dataclass(frozen=True, eq=False)
class TopicLoad:
    """A topic's total load and, for a keyed topic, a key-frequency sample.

    Attributes:
        load: The topic's total rate, in the caller's load unit (e.g. MiB/s), >= 0.
        keys: Distinct sampled keys, as a sequence of `bytes` or `str` (its UTF-8
            bytes: what `json.load` gives; None for a null key) or a PyArrow
            binary/string array (chunked or not), or keys known only by their hashes
            (`planner.partitioners.hashed_key_array`, from a live cluster's sample);
            None for a keyless topic. A sequence is copied once into a PyArrow binary
            array.
        key_counts: How much of the sample each key had (records or bytes: only the
            shares matter), one finite number >= 0 per key, not all zero.
        partitioner: The producer's partitioner, a librdkafka `partitioner` name from
            `planner.partitioners.PARTITIONERS` (default `murmur2_random`, which places
            keyed records as the Java client does).
    """

    load: float
    keys: Sequence[bytes | None] | Any | None = None
    key_counts: npt.ArrayLike | None = None
    partitioner: str = DEFAULT_PARTITIONER

    def __post_init__(self) -> None:
        object.__setattr__(self, "load", _check_rate("load", self.load))
        if self.partitioner not in PARTITIONERS:
            raise ValueError(
                f"unknown partitioner {self.partitioner!r}: use {', '.join(PARTITIONERS)}"
            )
        if self.keys is None:
            if self.key_counts is not None:
                raise ValueError("key_counts given without keys")
            return
        if self.key_counts is None:
            raise ValueError("keys given without key_counts")
        import pyarrow as pa

        keys = self.keys
        if not isinstance(keys, pa.Array | pa.ChunkedArray):
            if isinstance(keys, str | bytes):
                raise ValueError("keys must be a sequence of keys, not a single key")
            # Hashed once per candidate partition count: copy into Arrow's layout once.
            # Text keys (what `json.load` gives) are their UTF-8 bytes.
            keys = key_array(keys)
        counts = np.asarray(self.key_counts, dtype=np.float64)
        if counts.ndim != 1 or counts.size != len(keys):
            raise ValueError(
                f"key_counts needs one count per key: {counts.size} counts, {len(keys)} keys"
            )
        if not np.all(np.isfinite(counts)) or np.any(counts < 0) or counts.sum() <= 0:
            raise ValueError("key_counts must be finite, zero or above, and not all zero")
        # A repeated key would split one key's rate over two entries and hide a hot key.
        # Every keyed plan hashes its sample anyway (`hashes`): hashed here, the check
        # needs only the keys whose hash is not unique (see `_distinct_keys`).
        hashes = hash_keys(keys, self.partitioner) if _hashable(keys) else None
        distinct = _distinct_keys(keys, hashes)
        if distinct != len(keys):
            raise ValueError(f"keys must be distinct: {len(keys) - distinct} repeated")
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "key_counts", counts)
        if hashes is not None:
            self.__dict__["hashes"] = hashes

    @cached_property
    def hashes(self) -> KeyHashes:
        """The key sample hashed with the topic's partitioner, once (keyed topics only).

        Every partition count the planner tries reuses these hashes.

        Raises:
            ValueError: a keyless topic.
        """
        if self.keys is None:
            raise ValueError("a keyless topic has no key hashes")
        return hash_keys(self.keys, self.partitioner)

    def with_load(self, load: float) -> TopicLoad:
        """The same key sample (already checked, and hashed if it was) with another load.

        Args:
            load: The topic's total rate, in the caller's load unit, >= 0.
        """
        return self._derived(_check_rate("load", load), self.keys, self.key_counts, None)

    def take(self, indices: npt.ArrayLike, load: float) -> TopicLoad:
        """The sub-sample of the keys at `indices`, with its own total load.

        A subset of distinct keys is distinct, and its hashes are the sample's own, so
        neither is computed again.

        Args:
            indices: Positions of the keys to keep (at least one).
            load: The sub-sample's total rate, in the caller's load unit, >= 0.

        Raises:
            ValueError: a keyless topic, or no index.
        """
        at = np.asarray(indices, dtype=np.intp)
        if self.keys is None or self.key_counts is None:
            raise ValueError("a keyless topic has no keys to take")
        if at.size == 0:
            raise ValueError("take needs at least one key")
        counts = np.asarray(self.key_counts, dtype=np.float64)[at]
        if counts.sum() <= 0:
            raise ValueError("key_counts must be finite, zero or above, and not all zero")
        keys: Any = self.keys
        hashes = self.__dict__.get("hashes")
        return self._derived(
            _check_rate("load", load),
            keys.take(at),
            counts,
            None if hashes is None else hashes.take(at),
        )

    def _derived(self, load: float, keys: Any, counts: Any, hashes: KeyHashes | None) -> TopicLoad:
        # A TopicLoad made from a checked one: skip __post_init__'s checks (the distinct
        # check of a 100,000-key sample costs about 10 ms), carry the hashes over.
        out = object.__new__(TopicLoad)
        values = {"load": load, "keys": keys, "key_counts": counts, "partitioner": self.partitioner}
        for f in fields(TopicLoad):
            object.__setattr__(out, f.name, values[f.name])
        if hashes is None and keys is self.keys:
            hashes = self.__dict__.get("hashes")
        if hashes is not None:
            out.__dict__["hashes"] = hashes
        return out

    @cached_property
    def _count_sum(self) -> float:
        # The sample's total, once: partition_loads divides by it for every count tried.
        return float(np.asarray(self.key_counts, dtype=np.float64).sum())

    @cached_property
    def _spreads(self) -> bool:
        # Whether any sampled record is spread by the client rather than placed by key.
        return bool(self.hashes.spread.any())

    @property
    def keyed(self) -> bool:
        """Whether the topic's load follows a key sample (False: keyless, uniform)."""
        return self.keys is not None

    @property
    def shares(self) -> FloatArray:
        """Each sampled key's share of the sample (0..1; empty for a keyless topic)."""
        if self.key_counts is None:
            return np.zeros(0)
        counts = np.asarray(self.key_counts, dtype=np.float64)
        shares: FloatArray = counts / counts.sum()
        return shares


def _hashable(keys: Any) -> bool:
    # The Arrow types `hash_keys` takes as they are; any other type is left to fail (or
    # not) where its hashes are asked for, as before.
    import pyarrow as pa

    t = keys.type
    return is_hashed(keys) or bool(
        pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_string(t)
        or pa.types.is_large_string(t)
    )


def _distinct_keys(keys: Any, hashes: KeyHashes | None = None) -> int:
    """How many distinct keys (a null counts as one value, as `count_distinct(mode="all")`).

    `len(unique)` counts a null as one value too, at half the cost of `count_distinct`
    (about 3.7 ms for 100,000 keys). With the keys' hashes, exactly the same count for
    a fraction of that: equal keys have equal hashes, so a key whose hash no other key
    has is distinct from every other key; only the keys sharing a hash, and the null
    keys (a null slot's hash may be of arbitrary bytes), can be repeats, and only they
    are counted by `unique` (sorting 100,000 hashes: about 0.3 ms).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    flat = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    if is_hashed(flat):
        # Keys known by their hashes are the same key when every hash is (a null is one).
        columns = [
            np.asarray(pc.fill_null(flat.field(f), 0).to_numpy(zero_copy_only=False), np.int64)
            for f in ("murmur2", "crc32", "fnv1a")
        ]
        columns.append(np.asarray(flat.is_null(), dtype=np.int64))
        return int(np.unique(np.stack(columns, axis=1), axis=0).shape[0])
    if hashes is None:
        return len(pc.unique(flat))
    ordered = np.sort(hashes.folded)
    shared = ordered[1:][ordered[1:] == ordered[:-1]]
    if not shared.size and not hashes.null.any():
        return len(flat)
    suspect = np.isin(hashes.folded, shared) | hashes.null
    others = len(flat) - int(np.count_nonzero(suspect))
    return others + len(pc.unique(flat.filter(pa.array(suspect))))


def partition_loads(topic: TopicLoad, num_partitions: int) -> FloatArray:
    """The load of every partition of the topic for one candidate partition count.

    Args:
        topic: The topic's load and, if keyed, its key sample.
        num_partitions: Candidate partition count (>= 1).

    Returns:
        `num_partitions` loads in the topic's load unit; they sum to `topic.load` (up to
        floating-point rounding).
    """
    if num_partitions < 1:
        raise ValueError(f"num_partitions must be at least 1, got {num_partitions}")
    if not topic.keyed:
        return np.full(num_partitions, topic.load / num_partitions)
    hashes = topic.hashes
    owners = hashes.partitions(num_partitions)
    counts = np.asarray(topic.key_counts, dtype=np.float64)
    scale = np.float64(topic.load) / topic._count_sum
    if not topic._spreads:
        # One pass: sum the sampled counts of each partition's keys, then scale.
        keyed: FloatArray = np.bincount(owners, weights=counts, minlength=num_partitions) * scale
        return keyed
    spread = hashes.spread
    per_partition = np.bincount(owners[~spread], weights=counts[~spread], minlength=num_partitions)
    evenly = float(counts[spread].sum()) / num_partitions
    loads: FloatArray = (per_partition + evenly) * scale
    return loads


def busiest_lower_bound(topic: TopicLoad, keys: int = 1024) -> Callable[[int], float]:
    """A cheap lower bound on `partition_loads(topic, p).max()`, for any count `p`.

    The busiest partition carries at least what the `keys` heaviest placed keys put on
    any one partition, and placing a few hundred keys costs a few microseconds where
    placing a 100,000-key sample costs about 0.25 ms. A search for the smallest count
    whose busiest partition fits can skip every count this bound already rules out.
    The bound is a sum of some of the terms of the exact load, in another order: it can
    exceed the exact figure by rounding only, below a relative 1e-11 for a million keys.

    Args:
        topic: The topic; a keyless topic's bound is 0 (its loads are even anyway).
        keys: How many of the heaviest keys to place.
    """
    if not topic.keyed or topic.load == 0:
        return lambda _p: 0.0
    counts = np.asarray(topic.key_counts, dtype=np.float64)
    hashes = topic.hashes
    placed = np.flatnonzero(~hashes.spread) if topic._spreads else np.arange(counts.size)
    if placed.size > keys:
        placed = placed[np.argpartition(counts[placed], placed.size - keys)[-keys:]]
    heaviest, heavy = hashes.take(placed), counts[placed]
    scale = np.float64(topic.load) / topic._count_sum

    def bound(num_partitions: int) -> float:
        if not heavy.size:
            return 0.0
        owners = heaviest.partitions(num_partitions)
        return float(np.bincount(owners, weights=heavy).max() * scale)

    return bound


def loads_by_count(topic: TopicLoad, partition_counts: Iterable[int]) -> dict[int, FloatArray]:
    """`partition_loads` for every distinct candidate partition count.

    Every partitioner places a key on `g(key) mod P` with `g` independent of `P` (the
    positive murmur2, the unsigned CRC-32, the sign-folded FNV-1a), so when `P` divides
    another candidate `Q`, `partition(key, P) = partition(key, Q) mod P`: partition `i`
    of `Q` folds onto partition `i mod P`. The key sample is then hashed once for `Q`
    only (once for the whole default grid 12, 24, 48, 96, 192), and `P`'s loads are a
    sum over `Q / P` rows of `Q`'s. Other counts are hashed once each.

    Args:
        topic: The topic's load and, if keyed, its key sample.
        partition_counts: Candidate partition counts (each >= 1).

    Returns:
        Partition count -> its partition loads, in the order the counts were given.
    """
    counts = list(dict.fromkeys(int(p) for p in partition_counts))
    if not topic.keyed:
        return {p: partition_loads(topic, p) for p in counts}
    done: dict[int, FloatArray] = {}
    for p in sorted(counts, reverse=True):
        source = next((q for q in done if q % p == 0), None)
        if source is None:
            done[p] = partition_loads(topic, p)
        else:
            folded: FloatArray = done[source].reshape(-1, p).sum(axis=0)
            done[p] = folded
    return {p: done[p] for p in counts}


@dataclass(frozen=True)
class HotKey:
    """One key whose rate alone exceeds one consumer's capacity.

    Attributes:
        key: The key's bytes (a string key as UTF-8); None for the null key under a
            partitioner that puts every null-key record on one partition. A key known
            only by its hashes has its label (`planner.partitioners.hashed_label`).
        rate: Its rate, `share x topic load`, in the topic's load unit.
        share: Its fraction of the sample (0..1).
        hash: For a key known only by its hashes, `g(key)` under the topic's
            partitioner (its partition is `hash % partitions`); None otherwise.
    """

    key: bytes | None
    rate: float
    share: float
    hash: int | None = None


def find_hot_keys(topic: TopicLoad, consumer_capacity: float) -> tuple[HotKey, ...]:
    """Keys that no number of partitions or consumers can spread, hottest first.

    A key's records all land on one partition, which one consumer reads; if the key's own
    rate (`share x topic.load`) is above `consumer_capacity`, that consumer falls behind
    whatever the partition count or group size. Records the client spreads at run time
    (e.g. null keys under `murmur2_random`) are not a key and never hot.

    Args:
        topic: The topic; a keyless topic has no hot keys.
        consumer_capacity: What one consumer processes, in the topic's load unit (> 0).

    Returns:
        The hot keys, highest rate first, equal rates in the order of their bytes
        (the null key first); empty if none.
    """
    capacity = _check_rate("consumer_capacity", consumer_capacity, positive=True)
    if not topic.keyed:
        return ()
    shares = topic.shares
    rates = shares * topic.load
    candidates = np.flatnonzero(rates > capacity)
    if not candidates.size:
        return ()
    sample: Any = topic.keys
    hashed = is_hashed(sample)
    keys = [_key_bytes(k) for k in sample.take(candidates).to_pylist()]
    placed = ~topic.hashes.spread[candidates]
    folded = topic.hashes.folded
    hot = [
        HotKey(
            key=key,
            rate=float(rates[i]),
            share=float(shares[i]),
            hash=int(folded[i]) if hashed and key is not None else None,
        )
        for key, i, keep in zip(keys, candidates.tolist(), placed.tolist(), strict=True)
        if keep
    ]
    # Hottest first; equal rates by the keys' bytes (the null key first), so the order
    # does not depend on the sample's.
    hot.sort(key=lambda h: (-h.rate, h.key is not None, h.key or b""))
    return tuple(hot)


def _key_bytes(key: bytes | str | dict[str, Any] | None) -> bytes | None:
    if isinstance(key, dict):  # a key known by its hashes: its label
        label: bytes = key["label"]
        return label
    return key.encode("utf-8") if isinstance(key, str) else key


def hot_key_partitions(
    hot_keys: Sequence[HotKey], num_partitions: int, partitioner: str
) -> list[int | None]:
    """Where each hot key lands on `num_partitions` partitions (None: spread at run time).

    A key given by its bytes is hashed with the topic's partitioner; one known only by
    its hashes is placed by its own `hash`.
    """
    by_bytes = [h for h in hot_keys if h.hash is None]
    placed = iter(
        partitions_for_keys(
            [h.key for h in by_bytes], num_partitions, partitioner, keyless="mark"
        ).tolist()
        if by_bytes
        else []
    )
    out: list[int | None] = []
    for h in hot_keys:
        place = h.hash % num_partitions if h.hash is not None else next(placed)
        out.append(None if place == SPREAD else int(place))
    return out
