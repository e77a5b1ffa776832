"""Previous ownership as the sticky assignors read it: claims cleaned the way Kafka cleans them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planner.assignors._members import (
    PartitionsPerTopic,
    Subscriptions,
    TopicPartition,
)


@dataclass(frozen=True)
class Ownership:
    """Valid previous ownership of the members still in the group.

    Attributes:
        owned: Member id -> partitions it keeps a claim on.
        revocation_required: Some member still in the group owned a partition of a topic
            it no longer subscribes to (Kafka then skips its "move only new partitions
            first" balancing pass).
        first_claimant: Partition -> the first member still in the group that claimed
            it, valid or not.
        more_claimants: Partition -> every claim on it by a member still in the group, a
            member listed once per claim, for the partitions claimed more than once.
    """

    owned: dict[str, list[TopicPartition]]
    revocation_required: bool
    first_claimant: dict[tuple[str, int], str]
    more_claimants: dict[tuple[str, int], list[str]]

    def claimants(self, tp: tuple[str, int]) -> tuple[str, ...]:
        """Every claim on ``tp`` by a live member (the cooperative protocol revokes from
        all of them); empty when nobody in the group claimed it."""
        more = self.more_claimants.get(tp)
        if more is not None:
            return tuple(more)
        first = self.first_claimant.get(tp)
        return () if first is None else (first,)


def clean_ownership(
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: Mapping[str, Iterable[tuple[str, int]]] | None,
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
        return Ownership(owned, False, {}, {})
    first: dict[tuple[str, int], str] = {}
    more: dict[tuple[str, int], list[str]] = {}
    for member_id, claims in previous.items():
        if member_id not in subscriptions:
            continue
        for tp in claims:
            if tp in first:
                more.setdefault(tp, [first[tp]]).append(member_id)
            else:
                first[tp] = member_id
    revocation_required = False
    for tp, member_id in first.items():
        topic, partition = tp
        if topic not in subscribed_topics or tp in more:
            continue
        if topic not in subscriptions[member_id]:
            revocation_required = True
        elif 0 <= partition < partitions_per_topic[topic]:
            owned[member_id].append(
                tp if type(tp) is TopicPartition else TopicPartition(topic, partition)
            )
    return Ownership(owned, revocation_required, first, more)
