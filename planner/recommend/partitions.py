"""Choosing the partition count: never below the rule, never below what the topic has.

Kafka cannot shrink a topic, so the floor is the larger of the rule's requirement (at
the end of the planning horizon) and the current count. Above the floor the planner
may go a little higher for a count that splits evenly over more group sizes (24 over 23:
24 divides over 1, 2, 3, 4, 6, 8, 12 and 24 consumers, 23 over 1 and 23 only), within a
configurable slack and never past a cap.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

from planner.recommend import creation

__all__ = [
    "SIZED_STATUSES",
    "PartitionChoice",
    "Status",
    "choose_partitions",
    "even_group_sizes",
    "is_sized",
]

#: `ok`: the topic has enough partitions to the end of the horizon.
#: `plan-increase`: enough today, not by the end of the horizon.
#: `increase`: not enough today.
#: `create`: the topic does not exist yet (`planner.recommend.creation`).
Status = Literal["ok", "plan-increase", "increase", "create"]
#: The statuses of a topic the planner sized: it has a partition count. Every other
#: status a run gives a topic (`missing-capacity`, `no-figures`, `unknown-topic`,
#: `error`, `invalid-figures`: the report's "could not be sized") means *unsized*: no
#: count, and a reason instead. The one place this is decided; the Spark jobs, the
#: report and the publish guard (`planner.guard`) ask `is_sized`.
SIZED_STATUSES: tuple[Status, ...] = get_args(Status)


def is_sized(status: str) -> bool:
    """Whether a topic of this status was sized (see `SIZED_STATUSES`)."""
    return status in SIZED_STATUSES


@dataclass(frozen=True)
class PartitionChoice:
    """The recommended partition count and why.

    Attributes:
        recommended: The count to have (>= current, >= required at the horizon).
        current: The topic's partition count today (None for a new topic).
        required_now: The rule's requirement for today's peak plus headroom.
        required: The rule's requirement at the end of the horizon.
        status: `ok`, `plan-increase`, `increase`, or `create` for a new topic.
        candidates: Counts considered, each with the group sizes it splits evenly over.
        reason: The choice in plain words.
        over_provision: `recommended - required_now`: partitions added now for growth
            (and evenness) so a keyed topic is remapped once, not twice.
    """

    recommended: int
    current: int | None
    required_now: int
    required: int
    status: Status
    candidates: tuple[tuple[int, tuple[int, ...]], ...]
    reason: str
    over_provision: int


def even_group_sizes(partitions: int, max_group_size: int | None = None) -> tuple[int, ...]:
    """Group sizes (1 .. `max_group_size`, default the count) that split it evenly."""
    limit = partitions if max_group_size is None else min(partitions, max_group_size)
    return tuple(g for g in range(1, limit + 1) if partitions % g == 0)


def _sizes_text(sizes: tuple[int, ...]) -> str:
    return ", ".join(str(s) for s in sizes)


def choose_partitions(
    required: int,
    current: int | None,
    *,
    required_now: int | None = None,
    evenness_slack_pct: float = 20.0,
    max_partitions: int = 1_000,
    max_group_size: int | None = None,
    acceptable: Callable[[int], bool] | None = None,
) -> PartitionChoice:
    """Pick the partition count to recommend.

    Args:
        required: The rule's requirement at the end of the horizon (>= 1); raised to
            `required_now` when that is higher.
        current: Partitions the topic has now, or None for a new topic.
        required_now: The requirement for today's peak (defaults to `required`).
        evenness_slack_pct: How far above the floor, in percent, to look for a count
            that splits evenly over more group sizes (0 disables it).
        max_partitions: Never go above this to find a friendlier count; a requirement
            above it is still recommended, with a warning in the reason.
        max_group_size: Largest consumer group considered when counting even splits
            (default: up to the partition count).
        acceptable: Extra condition a count above the floor must meet to be chosen
            (for a keyed topic: its busiest partition fits); the floor itself is
            always a candidate.
    """
    if required < 1:
        raise ValueError(f"required must be at least 1, got {required}")
    if current is not None and current < 1:
        raise ValueError(f"current partitions must be at least 1, got {current}")
    if evenness_slack_pct < 0 or not math.isfinite(evenness_slack_pct):
        raise ValueError("evenness_slack_pct must be zero or above")
    if max_partitions < 1:
        raise ValueError("max_partitions must be at least 1")
    now = required if required_now is None else required_now
    # Partitions cannot be removed: what today needs is needed at the end of the horizon
    # too, even where the horizon's own requirement came out lower (a key that is hot
    # only at the horizon is left out of the horizon's skew search, not today's).
    required = max(required, now)
    have = current or 0

    status: Status
    if have >= required:
        status = "ok"
    elif have >= now:
        status = "plan-increase"
    else:
        status = "increase"
    if creation.is_creation(current):
        status = "create"

    if status == "ok" and current is not None:
        reason = (
            f"the topic's {current} partition{'s cover' if current != 1 else ' covers'} "
            f"the {required} the rule asks for at the end of the horizon"
        )
        if current > required:
            reason += f"; Kafka cannot shrink a topic, so it stays at {current}"
        sizes = even_group_sizes(current, max_group_size)
        return PartitionChoice(
            current, current, now, required, status, ((current, sizes),), reason, current - now
        )

    floor = max(required, have)
    upper = max(floor, min(max_partitions, math.floor(floor * (1 + evenness_slack_pct / 100))))
    candidates = tuple(
        (n, even_group_sizes(n, max_group_size))
        for n in range(floor, upper + 1)
        if n == floor or acceptable is None or acceptable(n)
    )
    # Most even splits wins; on a tie, the smaller count (every partition has a cost).
    best, best_sizes = max(candidates, key=lambda c: (len(c[1]), -c[0]))

    if best == floor:
        reason = f"{best} is the rule's requirement at the end of the horizon"
    else:
        floor_sizes = dict(candidates)[floor]
        reason = (
            f"{best} rather than the required {floor}: it splits evenly over "
            f"{len(best_sizes)} group sizes ({_sizes_text(best_sizes)}) against "
            f"{len(floor_sizes)} ({_sizes_text(floor_sizes)}), within the "
            f"{evenness_slack_pct:g} % evenness slack"
        )
    if floor > max_partitions:
        reason += (
            f"; this is above the {max_partitions}-partition cap: consider faster consumers "
            f"(a higher Tc) or splitting the topic"
        )
    return PartitionChoice(
        best,
        current,
        now,
        required,
        status,
        candidates[:12],
        reason,
        best - now,
    )
