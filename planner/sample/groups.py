"""Consumer groups of a sample fleet: who reads which topics, how, and with how many members.

About 0.3 groups per topic. Most read one topic; some read a run of related topics (a
pattern subscription, a sink connector), one row per (group, topic) as the groups table
has it. Member counts are sometimes right for the load, sometimes short, sometimes more
than the partitions (idle members), sometimes a lone consumer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from planner.assignors import STRATEGIES
from planner.sample.names import group_ids
from planner.sample.streams import Floats, Ints, choice

__all__ = [
    "SHARE_EVERY",
    "STRATEGY_WEIGHTS",
    "Groups",
    "draw_groups",
    "group_rows",
    "reported_as",
    "share_groups",
]

STRATEGY_WEIGHTS: dict[str, float] = {
    "range": 0.38,
    "roundrobin": 0.12,
    "sticky": 0.15,
    "cooperative-sticky": 0.35,
}
"""Shares of `partition.assignment.strategy` values across groups."""

# Which groups of a strategy run another protocol, by group index (no random draw, so a
# seed's fleet keeps every number it had), each planned as the strategy drawn
# (`planner.protocols.planned_strategy`): of the cooperative-sticky groups a third are
# KIP-848 groups on the broker's `uniform`, and a third of those reading one topic Kafka
# Streams applications (on the classic protocol, or KIP-1071 streams groups); a quarter
# of the range groups are KIP-848 groups on the broker's `range`, and a quarter of those
# reading several topics Streams applications over co-partitioned topics.
_OTHER_PROTOCOLS: dict[tuple[str, bool], tuple[tuple[str, str] | None, ...]] = {
    ("cooperative-sticky", False): (
        ("consumer", "uniform"),
        ("classic", "stream"),
        None,
        ("consumer", "uniform"),
        ("streams", "sticky"),
        None,
    ),
    ("cooperative-sticky", True): (("consumer", "uniform"), None, None),
    ("range", False): (("consumer", "range"), None, None, None),
    ("range", True): (("consumer", "range"), ("streams", "sticky"), None, None),
}


def reported_as(strategy: str, group: int, *, topics: int = 1) -> tuple[str, str]:
    """The (protocol, assignor) sample group number `group`, drawn as `strategy`, reports.

    Args:
        strategy: The classic strategy drawn for it.
        group: Its index.
        topics: How many topics it reads.
    """
    cycle = _OTHER_PROTOCOLS.get((strategy, topics > 1))
    other = cycle[group % len(cycle)] if cycle else None
    return other if other is not None else ("classic", strategy)


@dataclass(frozen=True)
class Groups:
    """Consumer groups and their subscriptions.

    Attributes:
        ids: Group ids, one per group.
        strategy: Index into `planner.assignors.STRATEGIES`, per group.
        members: Members today, per group.
        row_group: For each (group, topic) subscription, the group index.
        row_topic: For each subscription, the topic index.
    """

    ids: tuple[str, ...]
    strategy: Ints
    members: Ints
    row_group: Ints
    row_topic: Ints

    @property
    def topics_per_group(self) -> Ints:
        """How many topics each group subscribes to."""
        return np.bincount(self.row_group, minlength=len(self.ids)).astype(np.int64)


def group_rows(
    rng: np.random.Generator, n_topics: int, n_groups: int, keyed: Ints, popularity: Floats
) -> tuple[Ints, Ints]:
    """(group, topic) rows: most groups read one topic, some a run of related topics."""
    kind = choice(rng, n_groups, np.array([0.85, 0.12, 0.03]))
    size = np.select(
        [kind == 0, kind == 1],
        [np.ones(n_groups, np.int64), rng.integers(2, 6, n_groups)],
        rng.integers(6, 26, n_groups),
    )
    size = np.minimum(size, n_topics)
    # Every keyed topic is read by at least one single-topic group.
    size[: keyed.size] = 1
    # Even a small fleet has a multi-topic group (the planner simulates those as one).
    if n_topics > 1 and n_groups > keyed.size and not (size[keyed.size :] > 1).any():
        size[keyed.size] = min(n_topics, int(rng.integers(2, 6)))
    first = choice(rng, n_groups, popularity)
    first[: keyed.size] = keyed
    # Topics are sorted by name, so a run from the first topic shares its prefix, as a
    # pattern subscription (`orders\..*`) or a sink connector's topic list would.
    group = np.repeat(np.arange(n_groups), size)
    step = np.arange(size.sum()) - np.repeat(np.cumsum(size) - size, size)
    topic = (np.repeat(first, size) + step) % n_topics
    order = rng.permutation(n_groups)  # keyed groups should not all sort first
    return order[group].astype(np.int64), topic.astype(np.int64)


def draw_groups(
    rng: np.random.Generator,
    names: list[str],
    row_group: Ints,
    row_topic: Ints,
    n_groups: int,
    need: Floats,
    partitions: Ints,
) -> Groups:
    """Group ids, strategies and member counts (right-sized, short, idle members, one).

    `need` is each topic's partition requirement at its grown peak; a group reading it
    needs about as many consumers (one partition per consumer at full speed), summed
    over the topics it reads.
    """
    group_need = np.bincount(row_group, weights=need[row_topic], minlength=n_groups)
    need = np.maximum(np.ceil(group_need), 1)
    most = np.zeros(n_groups, dtype=np.int64)
    np.maximum.at(most, row_group, partitions[row_topic])
    total = np.bincount(row_group, weights=partitions[row_topic], minlength=n_groups)
    kind = choice(rng, n_groups, np.array([0.55, 0.20, 0.15, 0.10]))
    right = np.minimum(np.ceil(need * rng.uniform(1.0, 1.5, n_groups)), total)
    short = np.maximum(np.floor(need * rng.uniform(0.3, 0.75, n_groups)), 1)
    idle = most + rng.integers(1, 5, n_groups)  # more members than partitions: idle ones
    members = np.select([kind == 0, kind == 1, kind == 2], [right, short, idle], 1)
    strategy_names = list(STRATEGY_WEIGHTS)
    drawn = choice(rng, n_groups, np.array(list(STRATEGY_WEIGHTS.values())))
    strategy = np.array([STRATEGIES.index(s) for s in strategy_names])[drawn]
    # The first topic of each group names it (rows are sorted by group, then topic).
    starts = np.searchsorted(row_group, np.arange(n_groups))
    first = row_topic[np.minimum(starts, row_topic.size - 1)]
    multi = np.bincount(row_group, minlength=n_groups) > 1
    ids = group_ids(rng, [names[t] for t in first.tolist()], multi)
    return Groups(
        ids=tuple(ids),
        strategy=strategy.astype(np.int64),
        members=np.maximum(members, 1).astype(np.int64),
        row_group=row_group,
        row_topic=row_topic,
    )


SHARE_EVERY = 9
"""One keyless topic in this many also has a share group (KIP-932) of workers."""


def share_groups(
    names: tuple[str, ...], keyed: npt.NDArray[np.bool_], partitions: Ints, needed: Ints
) -> list[dict[str, object]]:
    """Share groups of workers on some keyless topics, as `groups` rows.

    Chosen by topic index, without a random draw, so a seed's other figures stay what
    they were. Sized in turn three ways, so that a fleet shows each outcome: a couple
    more members than the topic has partitions (a share group is not capped by the
    partition count), about what the load asks (the generator's estimate of the
    consumer side, `needed`), and a third of that (short of members).
    """
    keyless = np.flatnonzero(~keyed)
    rows: list[dict[str, object]] = []
    for k, t in enumerate(keyless[SHARE_EVERY // 2 :: SHARE_EVERY].tolist()):
        members = (
            int(partitions[t]) + 2,
            max(1, int(needed[t])),
            max(1, int(needed[t]) // 3),
        )[k % 3]
        rows.append(
            {
                "group_id": f"{names[t]}-workers",
                "topic": names[t],
                "protocol": "share",
                "strategy": "simple",
                "members": members,
            }
        )
    return rows
