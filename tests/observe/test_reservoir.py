"""The day's key reservoir: a weighted sample of the records produced, kept as hashes."""

from __future__ import annotations

from collections import Counter
from datetime import date

import numpy as np
import pytest

from planner.observe.reservoir import KeyReservoir, estimate
from planner.partitioners import hash_keys, hash_to_hashed, partition_for_key

DAY = date(2026, 11, 26)


def test_the_hashes_place_keys_as_each_partitioner_does() -> None:
    rng = np.random.default_rng(5)
    keys = [b"", b"21", b"foobar", *(rng.bytes(int(n)) for n in rng.integers(1, 40, 500))]
    hashed = hash_to_hashed(keys)
    assert hashed.field("empty").to_pylist() == [len(k) == 0 for k in keys]
    for n in (1, 7, 12, 100):
        for column, partitioner in (
            ("murmur2", "murmur2_random"),
            ("crc32", "consistent"),
            ("fnv1a", "fnv1a_random"),
        ):
            expected = [partition_for_key(k, n, partitioner) for k in keys]
            assert (hashed.field(column).to_numpy() % n).tolist() == expected
    # The hashed form places keys as the keys themselves do, under every partitioner,
    # the keyless ones (null, and empty under consistent_random) included.
    with_null = [*keys, None]
    for partitioner in (
        "murmur2_random",
        "murmur2",
        "consistent_random",
        "consistent",
        "fnv1a_random",
        "fnv1a",
    ):
        for n in (1, 7, 100):
            assert hash_keys(hash_to_hashed(with_null), partitioner).partitions(n).tolist() == (
                hash_keys(with_null, partitioner).partitions(n).tolist()
            )


def _windows(rng: np.random.Generator) -> list[tuple[list[str], float]]:
    # A day of windows: the records read of each (at most 50) and the weight each stands
    # for (the window's production over what was read). Production varies 1 to 40 times
    # between windows, so an unweighted sample would over-represent the quiet ones,
    # where key "b" is hot.
    windows = []
    for i in range(300):
        busy = i % 3 == 0
        produced = 2000 if busy else 50
        shares = {"a": 0.6, "b": 0.1} if busy else {"a": 0.1, "b": 0.6}
        keys = rng.choice(
            ["a", "b", "c"], size=min(50, produced), p=[shares["a"], shares["b"], 0.3]
        )
        windows.append((list(keys), produced / len(keys)))
    return windows


def _sampled(
    windows: list[tuple[list[str], float]], size: int, seed: int
) -> tuple[Counter[str], int]:
    """Each key's estimated records from a reservoir of `size` fed `windows`, and the
    rows written."""
    reservoir = KeyReservoir(size, np.random.default_rng(seed))
    written: list[tuple[str, float, float]] = []
    for keys, weight in windows:
        at, priority = reservoir.offer("t", DAY, np.full(len(keys), weight))
        written += [(keys[i], weight, p) for i, p in zip(at, priority, strict=True)]
    kept, records = estimate([p for *_, p in written], [w for _, w, _ in written], size)
    found = Counter[str]()
    for i, n in zip(kept, records, strict=True):
        found[written[i][0]] += n
    return found, len(written)


def test_the_reservoir_is_a_sample_of_the_records_produced_not_of_the_reads() -> None:
    rng = np.random.default_rng(11)
    windows = _windows(rng)
    produced = Counter[str]()
    for keys, weight in windows:
        for key in keys:
            produced[key] += weight
    total = sum(produced.values())
    size = 2000
    found, written = _sampled(windows, size, 3)
    for key in "abc":
        assert found[key] / total == pytest.approx(produced[key] / total, abs=0.03)
    # The estimates add up to the records produced (unbiased; within a few per cent).
    assert sum(found.values()) == pytest.approx(total, rel=0.03)
    # Written a few times the reservoir, not every record offered (15,000 offered).
    assert size < written < 4 * size


def test_a_reservoir_not_yet_full_still_weighs_each_record_by_what_it_stands_for() -> None:
    # The observer at a short period: a few records read per window from every partition
    # alike, while one partition (where key "hot" lives) grows 20 times the others. All
    # reads fit in the reservoir; counting them would make "hot" 1 in 6 of the records
    # instead of 2 in 3.
    windows = []
    for _ in range(40):
        windows.append((["hot"] * 5, 200 / 5))
        for cold in range(5):
            windows.append(([f"c{cold}"] * 5, 20 / 5))
    produced = 40 * (200 + 5 * 20)
    found, written = _sampled(windows, 5000, 9)
    assert written == 40 * 6 * 5  # nothing pushed out
    assert found["hot"] == pytest.approx(40 * 200) and sum(found.values()) == produced
    # And full: many more reads than the sample holds, the estimates stay unbiased.
    shares = []
    for seed in range(30):
        found, _ = _sampled(windows, 100, seed + 100)
        shares.append(found["hot"] / produced)
    assert float(np.mean(shares)) == pytest.approx(200 / 300, abs=0.03)


def test_the_estimates_are_unbiased_for_a_subset_whatever_the_weights() -> None:
    # Priority sampling's promise, checked by brute force: over many seeds, the mean
    # estimate of a subset's weight is the subset's weight.
    weights = np.concatenate([np.full(50, 1.0), np.full(5, 300.0), np.full(20, 7.0)])
    subset = np.zeros(weights.size, dtype=bool)
    subset[45:60] = True  # straddles all three weights
    sums = []
    for seed in range(2000):
        reservoir = KeyReservoir(12, np.random.default_rng(seed))
        at, priority = reservoir.offer("t", DAY, weights)
        kept, records = estimate(priority, weights[at], 12)
        sums.append(records[subset[at[kept]]].sum())
    true = weights[subset].sum()
    assert float(np.mean(sums)) == pytest.approx(true, rel=0.05)


def test_a_restarted_reservoir_keeps_what_was_written_before() -> None:
    rng = np.random.default_rng(2)
    first = KeyReservoir(10, rng)
    _, priorities = first.offer("t", DAY, np.ones(100))
    again = KeyReservoir(10, rng)
    again.restore("t", DAY, priorities)
    at, _ = again.offer("t", DAY, np.full(1000, 1e-9))  # records that stand for almost none
    assert at.size == 0


def test_weights_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        KeyReservoir(5).offer("t", DAY, [1.0, 0.0])
