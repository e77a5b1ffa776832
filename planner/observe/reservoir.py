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
read there, times the partitions that grew over those read. So that the day's sample is
one of the day's records, not of the windows' reads, the reservoir keeps the records of
highest priority `log(u) / weight` (`u` uniform in (0, 1)): Efraimidis and Spirakis'
weighted reservoir (A-Res), whose top `size` priorities are a sample drawn with
probability proportional to weight, without replacement.

**Append-only.** A record is written only when its priority enters the day's top
`size` as known when it arrives; the top `size` of everything written is then exactly
the reservoir (what it pushed out stays on disk until the day is compacted and is
ignored by `top`). The records written per day grow as `size * (1 + ln(n / size))` for
`n` records offered: a few times `size`. An observer that restarts rebuilds the
thresholds from the day's rows (`restore`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import numpy as np
import numpy.typing as npt

__all__ = ["KeyReservoir", "top"]


@dataclass
class KeyReservoir:
    """The day's top priorities per topic, to decide which offered records to keep.

    Attributes:
        size: Records per topic and day.
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
            The positions of the offered records to write, and their priorities.
        """
        w = np.asarray(weights, dtype=np.float64)
        if w.size == 0:
            return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.float64)
        if not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise ValueError("each offered record stands for a positive, finite weight")
        # 1 - random() lies in (0, 1]: log never sees zero.
        priority = np.log1p(-self.rng.random(w.size)) / w
        top = self._top.get((topic, day))
        if top is not None and top.size >= self.size:
            entering = np.flatnonzero(priority > top[0])
        else:
            entering = np.arange(w.size)
        self._keep(topic, day, priority[entering])
        # Of those entering, a later record of this same batch may push an earlier one
        # out again; both are written, and `top` keeps the right ones.
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
        if merged.size > self.size:
            merged = np.partition(merged, merged.size - self.size)[-self.size :]
        self._top[(topic, day)] = np.sort(merged)


def top(priorities: npt.ArrayLike, size: int) -> npt.NDArray[np.intp]:
    """The positions of the `size` highest priorities: one day's reservoir of one topic."""
    p = np.asarray(priorities, dtype=np.float64)
    if p.size <= size:
        return np.arange(p.size)
    return np.argpartition(p, p.size - size)[-size:]
