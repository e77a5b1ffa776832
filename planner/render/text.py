"""A topic plan as terminal text: the recommendation first, then the why."""

from __future__ import annotations

from planner.cost import PartitionCost
from planner.group_labels import group_label
from planner.notes import LISTED_WITH_TOPIC
from planner.recommend import GroupPlan, TopicPlan

__all__ = ["render_cost", "render_plan"]

_STATUS = {
    "ok": "enough partitions to the end of the horizon",
    "plan-increase": "enough partitions today, not by the end of the horizon",
    "increase": "not enough partitions for today's peak",
}


def _mib(value: float) -> str:
    return f"{value / 2**20:,.2f} MiB"


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:,.2f} GiB"


def _cross_zone(g: GroupPlan) -> list[str]:
    # The group's fetches by zone (`planner.cross_zone`), where the plan located them,
    # and the advice the figure supports; unknown racks are said to be unknown.
    cz = g.cross_zone
    if cz is None:
        return []
    if cz.racks_known:
        leaders, followers = cz.fetch.from_leaders, cz.fetch.follower_fetching
        costs = [cz.cost_per_day(leaders), cz.cost_per_day(followers)]
        priced = ["" if c is None else f" ({c:,.2f} a day)" for c in costs]
        where = (
            f"{_gib(leaders.cross_zone_bytes_per_day)} across zones from leaders{priced[0]}, "
            f"{_gib(followers.cross_zone_bytes_per_day)} with follower fetching{priced[1]}"
        )
        if leaders.unknown_bytes_per_day > 0:
            # Partitions the plan adds have no replicas yet: counted neither way.
            where += f"; zone not known for {_gib(leaders.unknown_bytes_per_day)}"
    else:
        where = "zones not known (no client.rack)"
    return [
        f"  - group {g.group_id}: reads {_gib(cz.bytes_per_day)} a day; {where}",
        *(f"  - group {g.group_id}: {note}" for note in g.cross_zone_advice),
    ]


def render_plan(plan: TopicPlan, *, capacity_source: str | None = None) -> str:
    """Render one topic's plan for a terminal (plain text, 90 columns)."""
    c = plan.choice
    current = "new topic" if c.current is None else f"{c.current}"
    lines = [
        f"Topic {plan.topic}",
        f"  Partitions     {current} -> {c.recommended}   ({plan.status}: {_STATUS[plan.status]})",
        f"  Deciding       {plan.sizing.deciding_dimension.replace('_', ' ')}, "
        f"{plan.sizing.deciding_side} side",
    ]
    for g in plan.groups:
        change = (
            f"keep {g.current_members}"
            if g.recommended_members == g.current_members
            else f"{g.current_members} -> {g.recommended_members}"
        )
        # Its protocol and assignor: today's, the recommended one, what the plan ran.
        assignor = group_label(
            g.protocol, g.current_strategy, g.strategy, planned_as=g.planned_as, arrow="->"
        )
        lines.append(
            f"  Group {g.group_id:<18} {change} members, {assignor}   [{g.status}: "
            f"{g.members_now} needed now, {g.members_at_horizon} at the horizon"
            f"{f', {g.standby_members} standing by' if g.standby_members else ''}]"
        )
    lines.append("")
    lines.append("Why")
    lines.extend(f"  - {sentence}" for sentence in plan.rationale)
    if capacity_source:
        lines.append(f"  - capacities (Tp, Tc): {capacity_source}")
    for g in plan.groups:
        for note in g.notes:
            # The topic's "Other protocols" lists these.
            if note.code not in LISTED_WITH_TOPIC:
                lines.append(f"  - group {g.group_id}: {note}")
        lines += _cross_zone(g)

    # The plan's warnings already carry the cost warnings; list them once, at the end.
    lines += ["", *render_cost(plan.cost, with_warnings=False)]

    rows = plan.grid.where(plan.grid.partitions == c.recommended)
    lines += [
        "",
        f"Busiest member vs group size at {c.recommended} partitions "
        "(share of one consumer at the horizon)",
    ]
    header = f"  {'members':>7}  " + "  ".join(f"{s:>18}" for s in sorted(set(rows.strategy)))
    lines.append(header)
    sizes = [m for m in sorted(set(rows.members.tolist())) if m <= c.recommended + 2]
    for size in _sample_sizes(sizes):
        cells = []
        for strategy in sorted(set(rows.strategy)):
            r = rows.where((rows.members == size) & (rows.strategy == strategy))
            mark = "" if bool(r.within_capacity[0]) else " !"
            cells.append(f"{float(r.max_load[0]):>9.0%} mv {int(r.grow_moved[0]):>3}{mark:<2}")
        lines.append(f"  {size:>7}  " + "  ".join(f"{cell:>18}" for cell in cells))
    lines.append("  (mv: partitions that move when one more member joins; ! over the limit)")

    if plan.alternatives:
        lines += ["", "Other protocols"]
        lines.extend(f"  - {a}" for a in plan.alternatives)
    if plan.warnings:
        lines += ["", "Warnings"]
        lines.extend(f"  ! {w}" for w in plan.warnings)
    return "\n".join(lines)


def render_cost(cost: PartitionCost, *, with_warnings: bool = True) -> list[str]:
    """The cost panel of one partition count, as lines of text."""
    return [
        f"Cost of {cost.partitions} partitions",
        f"  producer batch memory  {_mib(cost.producer_batch_memory_bytes)} "
        f"({cost.producer_buffer_share:.1%} of buffer.memory)",
        f"  replicas per broker    {cost.replicas_per_broker:,} (limit "
        f"{cost.replicas_per_broker_limit:,}; latency rule {cost.latency_rule_limit:,})",
        _broker_failure(cost),
        f"  file handles / broker  {cost.file_handles_per_broker:,} "
        f"({cost.segments_per_replica:,} segment(s) x 3 files per replica)",
        f"  consumer threads       {cost.consumer_threads} for full parallelism",
        *(f"  ! {warning}" for warning in cost.warnings if with_warnings),
    ]


def _broker_failure(cost: PartitionCost) -> str:
    if cost.election_unavailability_ms is None:
        # Replication factor 1: nothing to elect (the cost panel's warning says why).
        return (
            f"  broker failure         up to {cost.leaders_per_broker} partitions offline until "
            f"the broker returns (no other replica to elect)"
        )
    return (
        f"  broker failure         {cost.leaders_per_broker} leaders to elect, about "
        f"{cost.election_unavailability_ms:,.0f} ms of unavailability"
    )


def _sample_sizes(sizes: list[int], most: int = 14) -> list[int]:
    if len(sizes) <= most:
        return sizes
    step = max(1, len(sizes) // most)
    picked = sizes[::step]
    return picked if picked[-1] == sizes[-1] else [*picked, sizes[-1]]
