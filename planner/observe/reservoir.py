"""A bounded key sample per topic and day, kept as hashes: key values never leave the cluster.

The key-skew check (`planner.simulate.find_hot_keys`, `partition_loads`) needs how often
each key occurs, and where each partitioner puts it. It does not need the key itself:
every partitioner places a key on `g(key) mod n` with `g` independent of `n`
(`planner.partitioners.KeyHashes`), so the three `g`s (the positive murmur2 of the Java
client, the unsigned CRC-32 of librdkafka's `consistent`, the sign-folded FNV-1a) and
whether the key is empty (`consistent_random` spreads empty keys) are all a partition
count needs (`planner.partitioners.hash_to_hashed`). The observer stores those and
nothing else of a key.

**Which records.** Each sample reads a bounded number of the records appended since the
previous one, from a few partitions per topic (`planner.observe.sampler`). A record read
stands for `weight` records produced: the records its partition grew by over those it
read there, times the partitions that grew over those read. Weights differ by orders of
magnitude (a hot partition read as little as a cold one), so counting the sampled
records would give the sample of the reads, not of the records produced. The reservoir
is Duffield, Lund and Thorup's priority sample: each record gets the priority
`weight / u` (`u` uniform in (0, 1]); the day keeps the `size` highest, and each kept
record stands for `max(weight, tau)` records, `tau` being the next highest priority (0
while no more than `size` were offered). Those estimates are unbiased for any subset of
the records, a key's count among them (`estimate`), whether the reservoir is full or
not, and their variance is near the best any sample of `size` records can have.

**Append-only.** A record is written only when its priority enters the day's top
`size + 1` as known when it arrives; the top `size + 1` of everything written is then
exactly the top of everything offered, so `tau` is known (what was pushed out stays on
disk until the day is compacted and is ignored by `estimate`). The records written per
day grow as `size * (1 + ln(n / size))` for `n` records offered: a few times `size`. An
observer that restarts rebuilds the thresholds from the day's rows (`restore`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import numpy as np
import numpy.typing as npt

__all__ = ["KeyReservoir", "estimate"]


@dataclass
class KeyReservoir:
    """The day's top priorities per topic, to decide which offered records to write.

    Attributes:
        size: Records per topic and day in the sample.
        rng: The source of `u` (seeded in tests).
    """

    size: int
    rng: np.random.Generator = field(default_factory=np.random.default_rng)
    _top: dict[tuple[str, date], npt.NDArray[np.float64]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"a key reservoir holds at least one record, got {self.size}")

    def restore(self, topic: str, day: date, priorities: npt.ArrayLike) -> None:
        """Take the priorities already written for `topic` on `day` (after a restart)."""
        have = np.asarray(priorities, dtype=np.float64)
        self._keep(topic, day, have)

    def offer(
        self, topic: str, day: date, weights: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
        """Offer records standing for `weights` produced records each.

        Returns:
            The positions of the offered records to write, and their priorities (write
            each record's weight beside it: `estimate` needs both).
        """
        w = np.asarray(weights, dtype=np.float64)
        if w.size == 0:
            return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.float64)
        if not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError("each offered record stands for a positive, finite weight")
        # 1 - random() lies in (0, 1]: no division by zero, and a priority >= its weight.
        priority = w / (1.0 - self.rng.random(w.size))
        top = self._top.get((topic, day))
        if top is not None and top.size > self.size:
            entering = np.flatnonzero(priority > top[0])
        else:
            entering = np.arange(w.size)
        self._keep(topic, day, priority[entering])
        # Of those entering, a later record of this same batch may push an earlier one
        # out again; both are written, and `estimate` keeps the right ones.
        return entering, priority[entering]

    def forget_before(self, day: date) -> None:
        """Drop the thresholds of days before `day` (their reservoirs are closed)."""
        for key in [k for k in self._top if k[1] < day]:
            del self._top[key]

    def _keep(self, topic: str, day: date, priorities: npt.NDArray[np.float64]) -> None:
        if priorities.size == 0:
            return
        have = self._top.get((topic, day))
        merged = priorities if have is None else np.concatenate([have, priorities])
        # One more than the sample: its lowest is `tau`, the estimates' threshold.
        keep = self.size + 1
        if merged.size > keep:
            merged = np.partition(merged, merged.size - keep)[-keep:]
        self._top[(topic, day)] = np.sort(merged)


def estimate(
    priorities: npt.ArrayLike, weights: npt.ArrayLike, size: int
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
    """One topic's day sample from the rows written for it: which rows, and how many
    produced records each stands for.

    Args:
        priorities: The priorities written (any order, pushed-out ones included).
        weights: Each row's weight when it was offered.
        size: The reservoir's size.

    Returns:
        The positions of the `size` highest priorities, and each one's estimate
        `max(weight, tau)`; summed over any subset (a key's rows), an unbiased estimate
        of the records of that subset produced that day until the last row written.
    """
    p = np.asarray(priorities, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if p.size <= size:
        return np.arange(p.size), w.copy()
    order = np.argpartition(p, p.size - size - 1)
    kept = order[-size:]
    tau = p[order[p.size - size - 1]]
    return kept, np.maximum(w[kept], tau)
