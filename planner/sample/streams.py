"""Random streams and weighted draws for the sample fleet.

Every aspect of the model (names, sizes, cycles, capacity, groups ...) draws from its
own stream, `numpy.random.default_rng([seed, stream])`, and so does every day of
throughput and every key sample. The same seed then gives the same fleet whatever order
files are generated in, and changing one aspect's model does not shift the numbers of
another.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "NAMES",
    "Floats",
    "Ints",
    "choice",
    "normalise",
    "stream",
]

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

# Stream ids: one per aspect of the model, and per file family.
NAMES, SIZES, CYCLES, GROWTH, KEYED, CONFIG, CAPACITY = 1, 2, 3, 4, 5, 6, 7
EVENTS, GROUPS, KEY_SPECS, NOISE_LEVEL, REPLICAS = 8, 9, 10, 11, 12
HOURLY_NOISE, KEYS, PERF = 20, 21, 22


def stream(seed: int, *ids: int) -> np.random.Generator:
    """The random stream of `ids` (an aspect, and a day or topic where it has several)."""
    return np.random.default_rng([seed, *ids])


def choice(rng: np.random.Generator, n: int, weights: Floats | Ints) -> Ints:
    """`n` indices drawn with replacement, with probability proportional to `weights`."""
    p = np.asarray(weights, dtype=np.float64)
    return rng.choice(p.size, size=n, p=p / p.sum()).astype(np.int64)


def normalise(weights: Floats) -> Floats:
    """Weights scaled to sum to 1 (a probability vector)."""
    return np.asarray(weights / weights.sum(), dtype=np.float64)
