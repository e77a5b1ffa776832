"""One consumer group, member by member: several topics, any subscriptions, a previous owner.

`simulate_group` is the detailed view behind a grid row and the tool for groups that
read several topics. Range cuts every topic separately, so its first members get the
extra partition of *every* topic: the per-member, per-topic columns show how that adds
up. Identical subscriptions without previous ownership use the same closed forms as
the grid (owner = position arithmetic, loads by `bincount`); anything else asks
`planner.assignors.assign`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner import fit
from planner.assignors import assign, java_order_key
from planner.simulate import closed_forms as cf
from planner.simulate.churn import assignments_moved, moved_between, revoked
from planner.simulate.grid import (
    imbalance,
    load_limit,
)
from planner.simulate.strategies import (
    ALL_STRATEGIES,
    NEW_PROTOCOL_STRATEGIES,
    protocol_of,
    split_key,
)

__all__ = ["GroupResult", "member_detail", "simulate_group"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Assignment = dict[str, tuple[tuple[str, int], ...]]
PreviousAssignment = Mapping[str, Sequence[tuple[str, int]]]


@dataclass(frozen=True, eq=False)
class GroupResult:
    """One group's assignment and load, member by member and topic by topic.

    Loads are in the caller's load unit. Members are in member-id order (Java string
    order), topics in topic-name order (Java string order).

    Attributes:
        strategy: The assignment strategy (Kafka's name).
        members: Member ids.
        topics: Topic names.
        assignment: Member id -> its `(topic, partition)` pairs, settled (for
            cooperative-sticky after the follow-up rebalance).
        partition_counts: Partitions per member and topic, shape (members, topics).
        loads: Load per member and topic, shape (members, topics).
        member_partitions: Partitions per member, all topics.
        member_loads: Load per member, all topics.
        max_load: Load of the busiest member.
        min_load: Load of the least busy member.
        mean_load: Total load of all topics / number of members (idle members count).
        imbalance: `max_load / mean_load`, 1.0 when the total load is zero.
        idle_members: Members that own no partition.
        load_limit: `consumer_capacity x (1 - keep_free_pct / 100)`.
        within_capacity: `max_load <= load_limit` (relative tolerance 1e-9).
        max_partition_load: Load of the busiest partition of any subscribed topic.
        moved: With `previous`: partitions whose owner changed (a departed owner counts
            as a change); else None.
        revoked: With `previous`: partitions revoked during the rebalance, every
            previously owned one under the eager protocol (range, roundrobin, sticky),
            `moved` under cooperative-sticky; else None.
    """

    strategy: str
    members: tuple[str, ...]
    topics: tuple[str, ...]
    assignment: Assignment
    partition_counts: IntArray
    loads: FloatArray
    member_partitions: IntArray
    member_loads: FloatArray
    max_load: float
    min_load: float
    mean_load: float
    imbalance: float
    idle_members: int
    load_limit: float
    within_capacity: bool
    max_partition_load: float
    moved: int | None
    revoked: int | None

    def rows(self) -> list[dict[str, Any]]:
        """One dict per member: id, partitions and load in total and per topic."""
        out: list[dict[str, Any]] = []
        for i, member in enumerate(self.members):
            row: dict[str, Any] = {
                "member": member,
                "partitions": int(self.member_partitions[i]),
                "load": float(self.member_loads[i]),
            }
            for j, topic in enumerate(self.topics):
                row[f"partitions[{topic}]"] = int(self.partition_counts[i, j])
                row[f"load[{topic}]"] = float(self.loads[i, j])
            out.append(row)
        return out


def simulate_group(
    topic_loads: Mapping[str, npt.ArrayLike],
    subscriptions: Mapping[str, Sequence[str]],
    strategy: str,
    *,
    consumer_capacity: float,
    keep_free_pct: float = 30.0,
    previous: PreviousAssignment | None = None,
) -> GroupResult:
    """Simulate one consumer group reading one or more topics.

    Args:
        topic_loads: Topic -> the load of each of its partitions (its length is the
            partition count), in the caller's load unit (e.g. from `partition_loads`).
        subscriptions: Member id -> the topics it subscribes to.
        strategy: A strategy key of `ALL_STRATEGIES`. The consumer protocol's and share
            groups' (`consumer:uniform`, `consumer:range`, `share:simple`) are assigned
            by `planner.assignors.assign(..., protocol=...)`, members in the order
            given (the broker's member map); a share group's shared partition splits
            its load evenly between its members.
        consumer_capacity: What one consumer processes, in the same load unit (> 0).
        keep_free_pct: Share of `consumer_capacity` kept free, in percent (0 <= x < 100).
        previous: Member id -> the `(topic, partition)` pairs it owned before this
            rebalance (members absent from `subscriptions` have left); for the broker's
            assignors, each member's current target assignment. Sticky strategies stay
            close to it; `moved` and `revoked` are counted against it (a share group's
            `moved` counts (member, partition) assignments taken away).

    Returns:
        The group's settled assignment and loads.
    """
    if strategy not in ALL_STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}: use {', '.join(ALL_STRATEGIES)}")
    if not subscriptions:
        raise ValueError("a group needs at least one member")
    limit = load_limit(consumer_capacity, keep_free_pct)
    weights = {t: np.asarray(w, dtype=np.float64).reshape(-1) for t, w in topic_loads.items()}
    members = tuple(sorted(subscriptions, key=java_order_key))
    subscribed = {t for m in members for t in subscriptions[m]}
    missing = sorted(subscribed - set(weights))
    if missing:
        raise ValueError(f"no partition loads for subscribed topics {missing!r}")
    topics = tuple(sorted(subscribed, key=java_order_key))

    if strategy in NEW_PROTOCOL_STRATEGIES:
        assignment, counts, loads = _broker_assignment(
            strategy, topics, weights, subscriptions, members, previous
        )
        moved = None if previous is None else _broker_moved(strategy, assignment, previous, weights)
        return _result(
            strategy, members, topics, assignment, counts, loads, weights,
            limit=limit, moved=moved, revoked=moved,
        )  # fmt: skip
    identical = len({frozenset(subscriptions[m]) for m in members}) == 1
    if identical and previous is None:
        owners = _closed_form_owners(strategy, topics, weights, len(members))
    else:
        owners = _assigned_owners(strategy, topics, weights, subscriptions, members, previous)

    counts = np.zeros((len(members), len(topics)), dtype=np.int64)
    loads = np.zeros((len(members), len(topics)))
    assignment_lists: dict[str, list[tuple[str, int]]] = {m: [] for m in members}
    for j, topic in enumerate(topics):
        owner = owners[topic]
        owned = owner >= 0  # -1: no subscriber
        counts[:, j] = np.bincount(owner[owned], minlength=len(members))
        loads[:, j] = np.bincount(
            owner[owned], weights=weights[topic][owned], minlength=len(members)
        )
        # Partitions grouped by owner position, in partition order within each owner.
        order = np.argsort(owner, kind="stable")
        bounds = np.searchsorted(owner[order], np.arange(len(members) + 1))
        for i, member in enumerate(members):
            parts = order[bounds[i] : bounds[i + 1]].tolist()
            assignment_lists[member].extend((topic, p) for p in parts)
    assignment = {m: tuple(tps) for m, tps in assignment_lists.items()}
    moved, revoked = _churn(strategy, assignment, previous, weights)
    return _result(
        strategy, members, topics, assignment, counts, loads, weights,
        limit=limit, moved=moved, revoked=revoked,
    )  # fmt: skip


def _result(
    strategy: str,
    members: tuple[str, ...],
    topics: tuple[str, ...],
    assignment: Assignment,
    counts: IntArray,
    loads: FloatArray,
    weights: Mapping[str, FloatArray],
    *,
    limit: float,
    moved: int | None,
    revoked: int | None,
) -> GroupResult:
    member_partitions = counts.sum(axis=1)
    member_loads = loads.sum(axis=1)
    total = float(sum(float(weights[t].sum()) for t in topics))
    max_load = float(member_loads.max())
    mean_load = total / len(members)
    return GroupResult(
        strategy=strategy,
        members=members,
        topics=topics,
        assignment=assignment,
        partition_counts=counts,
        loads=loads,
        member_partitions=member_partitions,
        member_loads=member_loads,
        max_load=max_load,
        min_load=float(member_loads.min()),
        mean_load=mean_load,
        imbalance=float(imbalance(max_load, mean_load)),
        idle_members=int(np.count_nonzero(member_partitions == 0)),
        load_limit=limit,
        within_capacity=bool(fit.fits(max_load, limit)),
        max_partition_load=max(
            (float(weights[t].max()) for t in topics if weights[t].size), default=0.0
        ),
        moved=moved,
        revoked=revoked,
    )


def _broker_assignment(
    strategy: str,
    topics: tuple[str, ...],
    weights: Mapping[str, FloatArray],
    subscriptions: Mapping[str, Sequence[str]],
    members: tuple[str, ...],
    previous: PreviousAssignment | None,
) -> tuple[Assignment, IntArray, FloatArray]:
    """The broker's assignment (consumer protocol or share group) through `assign`,
    members' partitions and loads per topic; a partition held by several members of a
    share group splits its load evenly between them (`planner.simulate.member_loads`)."""
    protocol, assignor = split_key(strategy)
    partitions_per_topic = {t: int(weights[t].size) for t in topics}
    result = assign(
        assignor,
        partitions_per_topic,
        {m: list(subscriptions[m]) for m in subscriptions},
        previous,
        protocol=protocol,
    )
    holders: dict[tuple[str, int], int] = {}
    for tps in result.values():
        for topic, p in tps:
            holders[(topic, p)] = holders.get((topic, p), 0) + 1
    column = {t: j for j, t in enumerate(topics)}
    counts = np.zeros((len(members), len(topics)), dtype=np.int64)
    loads = np.zeros((len(members), len(topics)))
    assignment: dict[str, tuple[tuple[str, int], ...]] = {}
    for i, member in enumerate(members):
        owned = tuple((str(t), int(p)) for t, p in result.get(member, ()))
        assignment[member] = owned
        for topic, p in owned:
            counts[i, column[topic]] += 1
            loads[i, column[topic]] += weights[topic][p] / holders[(topic, p)]
    return assignment, counts, loads


def _broker_moved(
    strategy: str,
    assignment: Assignment,
    previous: PreviousAssignment,
    weights: Mapping[str, FloatArray],
) -> int:
    # The consumer protocol counts partitions whose owner changed; a share group, the
    # (member, partition) assignments taken from members (partitions are shared).
    counts = {t: int(w.size) for t, w in weights.items()}
    if protocol_of(strategy) == "share":
        return assignments_moved(assignment, previous, counts)
    return moved_between(assignment, previous, counts)


def _closed_form_owners(
    strategy: str, topics: tuple[str, ...], weights: Mapping[str, FloatArray], n_members: int
) -> dict[str, IntArray]:
    """Owner position of every partition when all members subscribe to all `topics`."""
    c = np.array([n_members], dtype=np.int64)
    if strategy == "range":
        # Each topic is cut separately: the same first members get every topic's extra.
        return {t: cf.range_owners(weights[t].size, c)[0] for t in topics}
    # roundrobin, and a fresh sticky assignment, deal the partitions of all topics
    # (sorted by topic, then partition) to the members in turn.
    sizes = [weights[t].size for t in topics]
    dealt = cf.roundrobin_owners(sum(sizes), c)[0]
    bounds = np.cumsum([0, *sizes])
    return {t: dealt[bounds[j] : bounds[j + 1]] for j, t in enumerate(topics)}


def _assigned_owners(
    strategy: str,
    topics: tuple[str, ...],
    weights: Mapping[str, FloatArray],
    subscriptions: Mapping[str, Sequence[str]],
    members: tuple[str, ...],
    previous: PreviousAssignment | None,
) -> dict[str, IntArray]:
    partitions_per_topic = {t: int(weights[t].size) for t in topics}
    subs = {m: list(subscriptions[m]) for m in members}
    result: Mapping[str, Sequence[tuple[str, int]]] = assign(
        strategy, partitions_per_topic, subs, previous
    )
    if strategy == "cooperative-sticky" and previous is not None:
        # This round leaves out partitions moving between live members; the follow-up
        # rebalance, with this round as the owners, hands them over.
        result = assign(strategy, partitions_per_topic, subs, result)
    position = {m: i for i, m in enumerate(members)}
    owners = {t: np.full(weights[t].size, -1, dtype=np.int64) for t in topics}
    for member, tps in result.items():
        for topic, partition in tps:
            owners[topic][partition] = position[member]
    return owners


def _churn(
    strategy: str,
    assignment: Assignment,
    previous: PreviousAssignment | None,
    weights: Mapping[str, FloatArray],
) -> tuple[int | None, int | None]:
    # Counted against `previous` by the one churn module; revoked by its protocol rule
    # (everything previously owned under the eager protocol).
    if previous is None:
        return None, None
    counts = {t: int(w.size) for t, w in weights.items()}
    moved = moved_between(assignment, previous, counts)
    owned = moved_between({}, previous, counts)  # every previously owned partition
    return moved, int(revoked(strategy, np.array([moved]), owned)[0])


def member_detail(
    partition_loads: npt.ArrayLike,
    num_members: int,
    strategy: str,
    *,
    consumer_capacity: float,
    keep_free_pct: float = 30.0,
    topic: str = "topic",
    member_ids: Sequence[str] | None = None,
) -> GroupResult:
    """Per-member detail of one grid row: one topic, `num_members` identical members.

    Args:
        partition_loads: Load of each partition (its length is `P`), in the load unit.
        num_members: Group size `C` (>= 1).
        strategy: A strategy key of `ALL_STRATEGIES`.
        consumer_capacity: What one consumer processes, in the same load unit (> 0).
        keep_free_pct: Share of `consumer_capacity` kept free, in percent (0 <= x < 100).
        topic: Topic name used in the assignment.
        member_ids: Member ids (default `consumer-000`, `consumer-001`, ... which sort in
            numeric order); only their order matters.

    Returns:
        The group's assignment and loads, as `simulate_group` gives them.
    """
    if num_members < 1:
        raise ValueError(f"num_members must be at least 1, got {num_members}")
    if member_ids is None:
        width = len(str(num_members - 1))
        member_ids = [f"consumer-{i:0{max(3, width)}d}" for i in range(num_members)]
    if len(member_ids) != num_members or len(set(member_ids)) != num_members:
        raise ValueError("member_ids needs num_members distinct ids")
    return simulate_group(
        {topic: partition_loads},
        {m: [topic] for m in member_ids},
        strategy,
        consumer_capacity=consumer_capacity,
        keep_free_pct=keep_free_pct,
    )
