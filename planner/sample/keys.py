"""Key samples of keyed topics: Zipf-distributed counts with a few hot keys.

A key sample is what a team gets from counting the keys of a slice of a topic: one row
per distinct key with how many records carried it. Real key popularity is heavy-tailed
(customers, merchants, devices): the count of the key of rank `r` falls roughly as
`r ** -s` with `s` between 0.6 and 1.2 here. On top of that, one to three hot keys
(a marketplace's biggest merchant, a default tenant, a test account) take 2-12 % of all
records each; those are the keys no partition count can spread.

Counts are the expected counts plus Gaussian noise of the Poisson scale
(`sqrt(expected)`), at least 1 (a key in a sample was seen), drawn for a whole sample
at once. Rows are in rank order (most popular first); the keys themselves are random
ids, so nothing about a key's text tells its rank.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from planner.sample import streams
from planner.sample.fleet import Fleet, KeySpec
from planner.sample.names import key_strings

__all__ = ["RECORDS_PER_KEY", "key_sample"]

RECORDS_PER_KEY = 50
"""Records in a sample per distinct key, on average: a sample of 100,000 keys counts 5 M."""


def key_sample(fleet: Fleet, spec: KeySpec) -> pa.Table:
    """The key sample of one keyed topic: `topic`, `key` or `key_hex`, `count`.

    Args:
        fleet: The fleet (for its seed and topic names).
        spec: Which topic, key style, size, Zipf exponent and hot keys.
    """
    rng = streams.stream(fleet.seed, streams.KEYS, spec.topic)
    name = fleet.topics.names[spec.topic]
    column, keys = key_strings(rng, spec.style, spec.keys, name)
    n = spec.keys
    total = float(RECORDS_PER_KEY * n)
    ranks = np.arange(1, n + 1, dtype=np.float64)
    zipf = ranks**-spec.zipf_exponent
    hot = np.array(spec.hot_shares, dtype=np.float64)
    expected = zipf / zipf.sum() * total * (1.0 - hot.sum())
    expected[: hot.size] += hot * total
    noisy = expected + np.sqrt(expected) * rng.standard_normal(n)
    counts = np.maximum(np.rint(noisy), 1.0)
    return pa.table(
        {
            "topic": pa.repeat(pa.scalar(name, pa.string()), n),
            column: keys,
            "count": pa.array(counts),
        }
    )
