"""Another group protocol for a classic group: the same counts, and what a scale event costs.

A classic consumer group stops (eager strategies) or runs two rounds (cooperative-sticky)
whenever a member joins or leaves; under the consumer protocol of KIP-848 the broker
assigns and only the partitions that move pause (`docs/simulation.md`, section 4.1). A
group that moves to it keeps its strategy's counts: the client's `range` becomes the
broker's `range` (the same cut), every other strategy the broker's default `uniform`
(balanced counts, sticky). This module states that switch with the numbers of both at
the planned size, from the closed forms the planning grid's event-cost columns come from
(`planner.simulate.churn`).

The share-group alternative of a topic (fewer partitions, no order) is
`planner.recommend.share.share_alternative`.
"""

from __future__ import annotations

from collections.abc import Sequence

from planner.notes import Note, note
from planner.simulate.churn import KAFKA_DEFAULTS, ProtocolTimings
from planner.simulate.multi_topic import group_churn, group_event_costs

__all__ = [
    "CONSUMER_PROTOCOL_ALTERNATIVE",
    "CONSUMER_PROTOCOL_COUNTERPART",
    "consumer_protocol_alternative",
]

#: The code of the consumer-protocol alternative: a group's note, listed with its
#: topics' alternatives too.
CONSUMER_PROTOCOL_ALTERNATIVE = "consumer-protocol-alternative"

#: The broker's assignor (as a strategy key) that keeps a classic strategy's counts.
CONSUMER_PROTOCOL_COUNTERPART = {
    "range": "consumer:range",
    "roundrobin": "consumer:uniform",
    "sticky": "consumer:uniform",
    "cooperative-sticky": "consumer:uniform",
}


def consumer_protocol_alternative(
    partitions: Sequence[int],
    *,
    strategy: str,
    members: int,
    members_needed: int | None,
    group_id: str | None = None,
    current_strategy: str | None = None,
    timings: ProtocolTimings = KAFKA_DEFAULTS,
) -> Note | None:
    """The consumer protocol for a classic group planned at `members` with `strategy`,
    offered only where it gains.

    The measure is the partition-seconds without an owner for one member joining and
    one leaving (`planner.simulate.churn`'s closed forms, the same the planning grid's
    columns come from), at the planned size, against the planned strategy and against
    the group's strategy today. The consumer protocol pauses only what moves, but each
    move waits for the member to revoke and the other to be told: against
    cooperative-sticky, which also moves only what must, it often pauses more. So:

    - it gains against neither: no alternative (the measure says keep the classic plan);
    - it gains against the strategy today only: offered, saying that it does not beat
      the planned strategy by that measure and what else it changes (no group-wide
      barrier: no JoinGroup round every member must answer, so no wait for the slowest
      member's poll);
    - it gains against the planned strategy: offered with both comparisons.

    Args:
        partitions: Each topic's planned partition count.
        strategy: The classic strategy the plan recommends.
        members: The group size the plan recommends (at least 1).
        members_needed: The fewest members the counterpart assignor
            (`CONSUMER_PROTOCOL_COUNTERPART`) needs for the load (None: not known).
        group_id: The group, named in the sentence (a topic lists its groups' notes).
        current_strategy: The group's classic strategy today, compared at the planned size
            too (None, or one without closed forms: compared with the planned only).
        timings: The protocol settings (Kafka 4.4.0's defaults).

    Returns:
        A note (code `consumer-protocol-alternative`) with the three costs, or None: a
        strategy without a counterpart, or no gain by the measure.
    """
    counterpart = CONSUMER_PROTOCOL_COUNTERPART.get(strategy)
    if counterpart is None or members < 1:
        return None
    classic = group_event_costs(partitions, members, strategy, timings)
    broker = group_event_costs(partitions, members, counterpart, timings)
    consumer_paused = _paused(broker)
    planned_paused = _paused(classic)
    today: dict[str, object] = {}
    gains = consumer_paused < planned_paused
    if current_strategy in CONSUMER_PROTOCOL_COUNTERPART and current_strategy != strategy:
        now = group_event_costs(partitions, members, current_strategy, timings)
        today = {
            "current_strategy": current_strategy,
            "current_paused_partition_s": _paused(now),
            "current_stops_group": bool(now["stops_group"]),
            "current_rounds": int(now["grow_rounds"]),
        }
        gains = gains or consumer_paused < _paused(now)
    if not gains:
        return None
    named = {} if group_id is None else {"group_id": group_id}
    return note(
        CONSUMER_PROTOCOL_ALTERNATIVE,
        **named,
        strategy=strategy,
        assignor=counterpart.split(":", 1)[1],
        members=members,
        members_needed=members_needed,
        stops_group=bool(classic["stops_group"]),
        classic_paused_partition_s=planned_paused,
        consumer_paused_partition_s=consumer_paused,
        classic_rounds=int(classic["grow_rounds"]),
        moved_on_join=group_churn(partitions, members, counterpart)["grow_moved"],
        **today,
    )


def _paused(event: dict[str, float | int | bool]) -> float:
    """Partition-seconds without an owner for one member joining and one leaving."""
    return float(event["grow_paused_partition_s"]) + float(event["shrink_paused_partition_s"])
