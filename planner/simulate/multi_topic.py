"""The multi-topic grid: a group reading several topics, every size at once.

A group subscribed to several topics shares its members between them: with `range`
each topic is cut separately (the first members get the extra partition of every
topic), with `roundrobin` and a fresh `sticky` assignment all partitions are dealt
together. Every member is assumed to subscribe to every topic of the group (the
`groups` table records subscriptions per group, not per member). With identical
subscriptions and no previous owner, `planner.simulate.simulate_group` computes a fresh
assignment from the closed forms: `range` cuts each topic on its own, the others deal
all partitions (topics in Java order, then partitions) to the members in turn.

`search_sizes` uses the same closed forms (`planner.simulate.closed_forms`), vectorised
over every size at once, so a group of thousands of partitions costs milliseconds, not
one `simulate_group` call per size; a test checks every row against `simulate_group`.
It evaluates sizes from 1 until the busiest member fits both today and at the end of
the horizon (and at least the size asked for), and `multi_topic_table` turns that into
the table of candidate sizes `planner.recommend.group.size_group` decides on, as the
one-topic grid does for a group reading one topic.

The churn at a size (a member joining, the last one leaving) comes from the same closed
forms as the one-topic grid's (`group_churn`): `range` moves what each topic's own cut
moves, the others move what one topic of all the group's partitions would; a test checks
them against `simulate_group` run with the previous assignment, through the real
assignors. Pure: NumPy and `planner.simulate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.simulate import member_loads as ml
from planner.simulate.churn import KAFKA_DEFAULTS, ProtocolTimings, churn, event_costs
from planner.simulate.strategies import shape_of

__all__ = [
    "SHARE_GROUP_MAX_SIZE",
    "SizeSearch",
    "group_churn",
    "group_event_costs",
    "member_loads",
    "search_sizes",
    "size_rows",
]

# Group sizes evaluated per step of the search (a sizes x partitions matrix each).
_CHUNK = 256
#: The most members a share group may have: the broker's `group.share.max.size` default
#: (Kafka 4.4.0). A share group's search stops there unless the floor asks for more.
SHARE_GROUP_MAX_SIZE = 200

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def member_loads(
    weights: Sequence[FloatArray],
    sizes: IntArray,
    strategy: str,
    cuts: ml.Cut | None = None,
    *,
    topics: Sequence[str] | None = None,
) -> FloatArray:
    """Every member's load under a fresh assignment, all sizes concatenated (`C` per
    size): `planner.simulate.member_loads.member_loads`, with the cut made here when
    the caller has none.

    Args:
        weights: Partition loads of each topic, topics in Java string order.
        sizes: Group sizes (each >= 1).
        strategy: A strategy key (`planner.simulate.strategies.ALL_STRATEGIES`).
        cuts: The partitions' cut for these sizes (`member_loads.cut`), if known.
        topics: The topics' names (for the broker's topic-id order).
    """
    if cuts is None:
        cuts = ml.cut([w.size for w in weights], sizes, strategy, topics=_names(topics, weights))
    return ml.member_loads(weights, cuts)


def _names(topics: Sequence[str] | None, weights: Sequence[FloatArray]) -> Sequence[str]:
    # Stand-in names where the caller gave none (only the broker's orders read them).
    if topics is not None:
        return topics
    return [ml.GRID_TOPIC] if len(weights) == 1 else [f"topic-{i}" for i in range(len(weights))]


def size_rows(
    weights: Sequence[FloatArray],
    sizes: IntArray,
    strategy: str,
    cuts: ml.Cut | None = None,
    *,
    topics: Sequence[str] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Member statistics of fresh assignments of one group, for every group size.

    Args:
        weights: Partition loads of each topic, topics in Java string order.
        sizes: Group sizes (each >= 1).
        strategy: A strategy key (`planner.simulate.strategies.ALL_STRATEGIES`).
        cuts: The partitions' cut for these sizes, when the caller has it.
        topics: The topics' names (for the broker's topic-id order).

    Returns:
        Per size: `max_load`, `min_load`, `max_member_partitions`,
        `min_member_partitions`, `idle_members`.
    """
    if cuts is None:
        cuts = ml.cut([w.size for w in weights], sizes, strategy, topics=_names(topics, weights))
    top, bottom = ml.busiest(ml.member_loads(weights, cuts), cuts)
    most, fewest, idle = ml.partition_extremes(cuts)
    return {
        "max_load": top,
        "min_load": bottom,
        "max_member_partitions": most,
        "min_member_partitions": fewest,
        "idle_members": idle,
    }


def group_churn(partitions: Sequence[int], members: int, strategy: str) -> dict[str, int]:
    """Partitions moved and revoked when a member joins or the last one leaves.

    The group is fresh (as `size_rows` assigns it) with `members` members, every one
    subscribed to every topic; the joiner sorts after the others
    (`planner.simulate.churn` says what each strategy moves).

    Args:
        partitions: Each topic's partition count.
        members: The group's size (>= 1).
        strategy: A strategy key.

    Returns:
        `grow_moved`, `grow_revoked`, `shrink_moved`, `shrink_revoked`.
    """
    if members < 1:
        raise ValueError(f"a group has at least one member, got {members}")
    moved = churn(strategy, partitions, np.array([members], dtype=np.int64))
    return {name: int(values[0]) for name, values in moved.items()}


def group_event_costs(
    partitions: Sequence[int],
    members: int,
    strategy: str,
    timings: ProtocolTimings = KAFKA_DEFAULTS,
) -> dict[str, float | int | bool]:
    """What a member joining or the last one leaving costs (`churn.COST_COLUMNS`), for
    the group `group_churn` describes, as plain numbers.

    Args:
        partitions: Each topic's partition count.
        members: The group's size (>= 1).
        strategy: A strategy key.
        timings: The protocol settings (Kafka 4.4.0's defaults).
    """
    if members < 1:
        raise ValueError(f"a group has at least one member, got {members}")
    size = np.array([members], dtype=np.int64)
    moved = churn(strategy, partitions, size)
    costs = event_costs(strategy, moved, size, int(sum(partitions)), timings)
    return {name: values[0].item() for name, values in costs.items()}


@dataclass
class SizeSearch:
    """One strategy's sizes 1..n: busiest member today and at the horizon, and stats.

    Attributes:
        strategy: The strategy (Kafka's name).
        stats: `size_rows` for sizes 1..n (loads at the end of the horizon).
        busiest_now: The busiest member's load today, sizes 1..n.
        now_fit: The smallest size of at least the floor that fits today (None: none).
        horizon_fit: The same at the end of the horizon.
    """

    strategy: str
    stats: dict[str, npt.NDArray[Any]]
    busiest_now: FloatArray
    now_fit: int | None
    horizon_fit: int | None


def search_sizes(
    horizon: Sequence[FloatArray],
    now: Sequence[FloatArray],
    strategy: str,
    limit: float,
    wanted: int,
    floor: int,
    now_scale: float | None = None,
    *,
    topics: Sequence[str] | None = None,
) -> SizeSearch:
    """Member statistics of one strategy for the sizes from 1 that a decision needs.

    Sizes in chunks from 1 until both today and the horizon fit with at least `floor`
    members and the current size (`wanted`) is covered.

    Args:
        horizon: Partition loads of each topic at the end of the horizon, topics in
            Java string order, in consumers.
        now: The same today.
        strategy: One of `STRATEGIES`.
        limit: The busiest member's load that fits (tolerance included), in consumers.
        wanted: The size to cover at least (the group's current size, or the floor).
        floor: The minimum group size.
        now_scale: When every topic grows alike (one topic), today's loads over the
            horizon's: today's busiest member is then the horizon's scaled, as the
            one-topic grid scales it (`now` is not read).
        topics: The topics' names, for the broker's topic-id orders (`uniform`,
            `simple`); stand-ins when not given.
    """
    # No group of more members than partitions needs simulating,
    # unless the minimum group size asks for more (standbys, owning nothing). Range cuts
    # each topic on its own: past the largest topic's partition count member i owns
    # partition i of every topic that has one, whatever the size, so only the idle count
    # changes and the search stops there (or at the floor).
    # A share group has no such cap: its members share partitions, up to the broker's
    # largest share group.
    shape = shape_of(strategy)
    if shape == "shared":
        owners = SHARE_GROUP_MAX_SIZE
    elif shape == "blocks":
        owners = max(w.size for w in horizon)
    else:
        owners = sum(w.size for w in horizon)
    most = max(owners, floor)
    names = _names(topics, horizon)
    chunks: list[dict[str, npt.NDArray[Any]]] = []
    busiest: list[FloatArray] = []
    now_fit = horizon_fit = None
    first = 1
    while first <= most:
        sizes = np.arange(first, min(most, first + _CHUNK - 1) + 1, dtype=np.int64)
        # Today's loads are on the same partitions as the horizon's: one cut for both.
        cuts = ml.cut([w.size for w in horizon], sizes, strategy, topics=names)
        stats = size_rows(horizon, sizes, strategy, cuts)
        today = (
            stats["max_load"] * now_scale
            if now_scale is not None
            else np.maximum.reduceat(ml.member_loads(now, cuts), cuts.starts)
        )
        chunks.append(stats)
        busiest.append(today)
        # A size below the floor is not a candidate: the first fit at or above it.
        if now_fit is None and (fits := np.flatnonzero((today <= limit) & (sizes >= floor))).size:
            now_fit = int(sizes[fits[0]])
        at_horizon = (stats["max_load"] <= limit) & (sizes >= floor)
        if horizon_fit is None and (fits := np.flatnonzero(at_horizon)).size:
            horizon_fit = int(sizes[fits[0]])
        last = int(sizes[-1])
        if now_fit is not None and horizon_fit is not None and last >= wanted:
            stop = max(now_fit, horizon_fit, wanted)
            break
        first = last + 1
    else:
        stop = most
    merged = {k: np.concatenate([c[k] for c in chunks])[:stop] for k in chunks[0]}
    return SizeSearch(strategy, merged, np.concatenate(busiest)[:stop], now_fit, horizon_fit)
