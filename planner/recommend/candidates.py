"""A topic's candidate partition counts, and the grid simulated at them.

Decided here once, for `plan_topic` and for the jobs that plan a whole fleet
(`spark_jobs`): which counts a topic's plan weighs and simulates, their cost panels
(`topic_candidates`), and the consumer-group grid at any of them (`topic_grid`: loads
in consumers at the end of the horizon, capacity 1.0, the member headroom). The jobs
simulate the candidates' grids in a later step than the plan, on loads the plan placed;
they call `topic_grid` as `plan_topic` does, so the two cannot drift.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy.typing as npt

from planner.cost import PartitionCost
from planner.fit import member_headroom_pct
from planner.recommend.group import grid_extra_members, grid_parameters
from planner.recommend.partitions import PartitionChoice, even_group_sizes
from planner.recommend.types import Candidate, GroupInfo, PlanSettings
from planner.simulate import GridResult, TopicLoad, grid_from_loads, simulate_grid

__all__ = ["simulated_counts", "topic_candidates", "topic_grid"]


def simulated_counts(choice: PartitionChoice, partition_grid: Iterable[int]) -> tuple[int, ...]:
    """The counts whose grid is simulated, in increasing order: today's, the
    requirement today and at the end of the horizon, the recommended one, and the
    settings' `partition_grid`."""
    counts = {choice.required_now, choice.required, choice.recommended, *partition_grid}
    if choice.current is not None:
        counts.add(choice.current)
    return tuple(sorted(counts))


def topic_candidates(
    choice: PartitionChoice,
    *,
    partition_grid: Iterable[int],
    cost_of: Callable[[int], PartitionCost],
) -> tuple[Candidate, ...]:
    """Every count the choice considered or the plan simulates, with its cost panel.

    Args:
        choice: The topic's partition choice.
        partition_grid: Counts simulated for every topic (`PlanSettings.partition_grid`).
        cost_of: The topic's cost panel at a count (`topic_cost` bound to its cluster,
            retention and targets).

    Returns:
        The candidates in increasing order of partitions.
    """
    simulated = set(simulated_counts(choice, partition_grid))
    considered = {n for n, _ in choice.candidates}
    return tuple(
        Candidate(
            partitions=n,
            cost=cost_of(n),
            is_current=n == choice.current,
            is_required_now=n == choice.required_now,
            is_required=n == choice.required,
            is_recommended=n == choice.recommended,
            considered=n in considered,
            simulated=n in simulated,
            even_group_sizes=even_group_sizes(n),
        )
        for n in sorted(simulated | considered)
    )


def topic_grid(
    load: TopicLoad,
    counts: Sequence[int],
    *,
    groups: Sequence[GroupInfo],
    settings: PlanSettings,
    other_group_sizes: Iterable[int] = (),
    placed: Mapping[int, npt.ArrayLike] | None = None,
) -> GridResult:
    """A topic's consumer-group grid at `counts`, in consumers at the end of the horizon.

    Every group size from 1 to `P + extra` at each count `P`, the strategies and the
    extra sizes the groups reading only the topic need (`grid_parameters`); strategies
    in name order, which is the order of the fleet's `simulations` rows (each
    strategy's values are computed on their own, so the order only orders the rows).

    Args:
        load: The topic's load in consumers at the end of the horizon, with its key
            sample when it has one (hashed at each count).
        counts: Partition counts to simulate.
        groups: The groups that read only the topic.
        settings: The planning settings (headroom, minimum group size).
        other_group_sizes: Sizes of groups that read the topic among others: the grid
            holds their sizes too.
        placed: Each count's partition loads already placed from `load`'s key sample
            (`planner.simulate.loads_by_count`), used instead of hashing it again; None
            to place them here.
    """
    strategies, extra = grid_parameters(groups, consumers_at_horizon=load.load, settings=settings)
    extra = max(extra, grid_extra_members(settings.min_group_members, other_group_sizes))
    keep_free = member_headroom_pct(settings.headroom_pct)
    if placed is None:
        return simulate_grid(
            load,
            consumer_capacity=1.0,
            keep_free_pct=keep_free,
            partition_counts=counts,
            strategies=sorted(strategies),
            extra_members=extra,
        )
    return grid_from_loads(
        {p: placed[p] for p in counts},
        consumer_capacity=1.0,
        keep_free_pct=keep_free,
        strategies=sorted(strategies),
        extra_members=extra,
    )
