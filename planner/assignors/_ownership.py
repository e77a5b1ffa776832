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
        live_claimants: Partition -> every claim on it by a member still in the group,
            valid or not, a member listed once per claim (the cooperative protocol
            revokes from all of them).
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
    * claims on topics that no member subscribes to, or that have no partitions, are
      dropped;
    * a partition claimed more than once by members still in the group is dropped from
      all of them: Kafka's sticky assignors do this for claims of the same generation,
      and ``previous`` carries no generations (all claims are of the last one). A member
      listing a partition twice counts as two claims, as in Kafka;
    * a partition of a topic its owner no longer subscribes to is dropped and marks
      ``revocation_required`` (whether or not the partition number still exists);
    * a partition whose number is beyond the topic's partition count is dropped. Kafka
      4.4 keeps such a claim when its owner still subscribes to the topic and then
      assigns a partition that does not exist, or one partition twice, or throws
      (``docs/assignors.md``, "Known gaps"): the planner does not reproduce that.

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
        for topic, partition in claims:
            claimants.setdefault(TopicPartition(topic, partition), []).append(member_id)
    revocation_required = False
    live_claimants: dict[TopicPartition, tuple[str, ...]] = {}
    for tp, members in claimants.items():
        live_claimants[tp] = tuple(members)
        if tp.topic not in subscribed_topics or len(members) > 1:
            continue
        member_id = members[0]
        if tp.topic not in subscriptions[member_id]:
            revocation_required = True
        elif 0 <= tp.partition < partitions_per_topic[tp.topic]:
            owned[member_id].append(tp)
    return Ownership(owned, revocation_required, live_claimants)
