"""Another group protocol for a classic group: the same counts, and what a scale event costs.

A classic consumer group stops (eager strategies) or runs two rounds (cooperative-sticky)
whenever a member joins or leaves; under the consumer protocol of KIP-848 the broker
assigns and only the partitions that move pause (`docs/simulation.md`, section 4.1). A
group that moves to it keeps its strategy's counts: the client's `range` becomes the
broker's `range` (the same cut), every other strategy the broker's default `uniform`
(balanced counts, sticky). This module states that switch with the numbers the planning
grid gives for both at the planned size (`GroupTable.scale_event`).

The share-group alternative of a topic (fewer partitions, no order) is
`planner.recommend.share.share_alternative`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planner.notes import Note, note
from planner.simulate.group_table import GroupTable

__all__ = ["CONSUMER_PROTOCOL_COUNTERPART", "consumer_protocol_alternative"]

#: The broker's assignor (as a grid key) that keeps a classic strategy's counts.
CONSUMER_PROTOCOL_COUNTERPART = {
    "range": "consumer:range",
    "roundrobin": "consumer:uniform",
    "sticky": "consumer:uniform",
    "cooperative-sticky": "consumer:uniform",
}


def consumer_protocol_alternative(
    table: GroupTable, *, strategy: str, members: int, limit: float
) -> Note | None:
    """The consumer protocol for a classic group planned at `members` with `strategy`.

    Args:
        table: The group's table, simulated with the strategy and its counterpart
            (`CONSUMER_PROTOCOL_COUNTERPART`) and with their scale-event costs.
        strategy: The classic strategy the plan recommends.
        members: The group size the plan recommends.
        limit: The most load one member may carry, in consumers (as `size_group`'s).

    Returns:
        A note (code `consumer-protocol-alternative`) with, for one member joining and
        one leaving at that size, whether the group stops, and the partition-seconds
        without an owner under each protocol; and the members the counterpart needs.
        None when the table lacks what it takes (a strategy or size not simulated, no
        event costs).
    """
    counterpart = CONSUMER_PROTOCOL_COUNTERPART.get(strategy)
    if counterpart is None or table.scale_event is None:
        return None
    if strategy not in table.sizes or counterpart not in table.sizes:
        return None
    try:
        classic = table.scale_event(strategy, members)
        broker = table.scale_event(counterpart, members)
    except ValueError:  # the size is not in the grid
        return None
    needed = table.sizes[counterpart].smallest_fit(limit)

    def paused(event: Mapping[str, Any]) -> float:
        return float(event["grow_paused_partition_s"]) + float(event["shrink_paused_partition_s"])

    return note(
        "consumer-protocol-alternative",
        strategy=strategy,
        assignor=counterpart.split(":", 1)[1],
        members=members,
        members_needed=needed,
        stops_group=bool(classic["stops_group"]),
        classic_paused_partition_s=paused(classic),
        consumer_paused_partition_s=paused(broker),
        classic_rounds=int(classic["grow_rounds"]),
        moved_on_join=int(broker["grow_moved"]),
    )
