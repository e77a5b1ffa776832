"""Previous ownership as the sticky assignors read it: claims cleaned the way Kafka cleans them."""

from __future__ import annotations

from dataclasses import dataclass

from planner.assignors._members import (
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
    TopicPartition,
)


@dataclass(frozen=True)
class Ownership:
    """Valid previous ownership of the members still in the group.

    Attributes:
        owned: Member id -> partitions it keeps a claim on, in the order given.
        revocation_required: Some member still in the group owned a partition of a topic
            it no longer subscribes to (Kafka then skips its "move only new partitions
            first" balancing pass).
        live_claimants: Partition -> every member still in the group that claimed it,
            valid or not (the cooperative protocol revokes from all of them).
    """

    owned: dict[str, list[TopicPartition]]
    revocation_required: bool
    live_claimants: dict[TopicPartition, tuple[str, ...]]


def clean_ownership(
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None,
    subscribed_topics: frozenset[str],
) -> Ownership:
    """Drop the claims Kafka would not honour.

    Rules, in Kafka's order:

    * members absent from ``subscriptions`` (they left) lose everything;
    * a member listing a partition twice counts it once;
    * partitions of topics that no member subscribes to, that do not exist, or whose
      number is beyond the topic's partition count are dropped;
    * a partition claimed by two or more members still in the group is dropped from
      all of them: Kafka's sticky assignors do this for claims of the same generation,
      and ``previous`` carries no generations (all claims are of the last one);
    * a partition of a topic its owner no longer subscribes to is dropped and marks
      ``revocation_required``.

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics.
        previous: Member id -> partitions owned in the last generation, or None.
        subscribed_topics: Topics some member subscribes to that exist.

    Returns:
        The cleaned ownership.
    """
    owned: dict[str, list[TopicPartition]] = {m: [] for m in subscriptions}
    if not previous:
        return Ownership(owned, False, {})
    claimants: dict[TopicPartition, list[str]] = {}
    for member_id, claims in previous.items():
        if member_id not in subscriptions:
            continue
        for topic, partition in dict.fromkeys(claims):
            tp = TopicPartition(topic, partition)
            claimants.setdefault(tp, []).append(member_id)
    revocation_required = False
    live_claimants: dict[TopicPartition, tuple[str, ...]] = {}
    for tp, members in claimants.items():
        live_claimants[tp] = tuple(members)
        if (
            tp.topic not in subscribed_topics
            or not 0 <= tp.partition < partitions_per_topic[tp.topic]
        ):
            continue
        if len(members) > 1:
            continue
        member_id = members[0]
        if tp.topic in subscriptions[member_id]:
            owned[member_id].append(tp)
        else:
            revocation_required = True
    return Ownership(owned, revocation_required, live_claimants)
