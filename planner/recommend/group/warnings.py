"""The warnings on a consumer group's plan: falling behind, and members with nothing to do.

`planner.recommend.group.decision.size_group` adds them to a group's notes and to its
topics' warnings; each is a coded `planner.notes.Note`.
"""

from __future__ import annotations

from typing import Any

from planner import fit
from planner.notes import Note, note
from planner.recommend.types import ChoiceKey, GroupInfo
from planner.simulate.group_table import GroupTable

__all__ = ["falling_behind", "idle_warning"]


def falling_behind(
    group: GroupInfo,
    table: GroupTable,
    subject: dict[str, Any],
    *,
    members_now: int,
    fits: bool,
    current: str,
    shown: str,
    keys: dict[str, ChoiceKey],
) -> Note | None:
    # Where the group's offsets were observed, its lag's trend says whether it falls
    # behind: a Tc (the topic's, or a learned one) only infers it, and a group seen
    # keeping up is keeping up whatever the Tc says. Only a group never observed is
    # judged by its busiest member at today's peak with its current size and strategy.
    busiest = table.busiest_today
    observed = group.lag_trend is not None
    if observed and group.lag_trend != "growing":
        return None
    # Above one consumer's whole capacity (1.0), a member falls further behind every second.
    if not observed and (busiest is None or fit.fits(busiest, 1.0)):
        return None
    today_known = table.on_today or len(table.topics) == 1
    lag = {"lag_records": group.lag_records, "lag_seconds": group.lag_seconds} if observed else {}
    return note(
        "falling-behind",
        **subject,
        **lag,
        lag_growing=observed,
        busiest_utilisation=busiest,
        members=group.members,
        members_needed=members_now,
        fits=fits,
        partitions_today=list(table.partitions_today),
        partitions_planned=list(table.partitions),
        on_today=table.on_today,
        # Whether a member added today would own a partition.
        more_members_help=group.members < table.owners(current, today=today_known),
        # Named only when the group's own strategy needs more members than that.
        strategy=shown if current not in keys or keys[current][0] > members_now else None,
    )


def idle_warning(
    group: GroupInfo,
    table: GroupTable,
    subject: dict[str, Any],
    *,
    current: str,
    idle_now: int,
    standby: int,
    floor: int,
) -> Note | None:
    # Members owning no partition, today and at the planned counts, said apart when the
    # counts change (`idle_now` is at the planned counts). Standbys the minimum group
    # size asks for are planned, not warned about.
    today = table.partitions_today
    unchanged = any(c is None for c in today) or list(today) == list(table.partitions)
    params = {
        **subject,
        "current_members": group.members,
        "idle_members": idle_now,
        "standby_members": standby,
        "min_group_members": floor,
        "partitions_planned": list(table.partitions),
        "partitions_today": list(today),
    }
    if unchanged:
        if idle_now <= standby:
            return None
        return note("idle-members", **params, idle_members_today=None)
    owners_today = table.owners(current, today=True)
    idle_today = max(0, group.members - owners_today)
    if idle_today <= max(0, floor - owners_today):
        return None
    return note("idle-members", **params, idle_members_today=idle_today)
