"""The ``sticky`` assignor: balanced first, then as close to the previous assignment as possible."""

from __future__ import annotations

from collections import deque

from planner.assignors._java_hashing import hash_map_order
from planner.assignors._members import (
    Assignment,
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
    TopicPartition,
    empty_assignment,
    java_order_key,
    prepare,
    sorted_java,
    topic_partitions,
)
from planner.assignors._ownership import clean_ownership
from planner.assignors._racks import Racks, sticky_racks
from planner.assignors._sticky_general import general_assign
from planner.assignors._sticky_librdkafka import librdkafka_sticky_target
from planner.assignors._sticky_racks import constrained_with_racks

CLIENTS: tuple[str, ...] = ("java", "librdkafka")
"""Client flavours of the sticky assignors: Kafka's Java client, and librdkafka."""


def check_racks(client: str, racks: Racks | None) -> None:
    """Reject racks for a client whose rack-aware variant is not modelled.

    Raises:
        ValueError: Racks given with ``client="librdkafka"``.
        TypeError: ``racks`` is not a :class:`Racks`.
    """
    if racks is None:
        return
    if not isinstance(racks, Racks):
        raise TypeError(f"racks must be a planner.assignors.Racks, got {type(racks).__name__}")
    if client != "java":
        raise ValueError(
            f"rack-aware assignment (racks) is modelled for the Java client only, not {client!r}"
        )


def check_client(client: object) -> None:
    """Reject a client flavour other than those of :data:`CLIENTS`.

    Raises:
        ValueError: Unknown client.
    """
    if not isinstance(client, str) or client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}; valid clients: {', '.join(CLIENTS)}")


class StickyAssignor:
    """Kafka's ``sticky`` strategy (KIP-54), with Kafka's tie-breaking.

    Goals, in order: (1) balance: counts differ by at most one, or no member with two
    or more partitions more than another holds a partition of a topic the less-loaded
    member subscribes to; (2) stickiness: every valid previous owner keeps as many of
    its partitions as (1) allows. Invalid claims are dropped first (see
    :func:`planner.assignors._ownership.clean_ownership`): members that left, partitions
    that no longer exist, topics the owner no longer subscribes to, and partitions
    claimed twice (dropped from every claimant, as Kafka does within one generation).

    Identical subscriptions take Kafka's constrained path, with closed forms:

    * quotas: ``N`` partitions over ``C`` members give ``N div C`` to each and one more
      to ``N mod C`` of them;
    * each member keeps its previously owned partitions up to its quota, lowest
      partition number first (then topic); members owning at least ``N div C + 1`` keep
      that many while extra slots remain, taken in the iteration order of Java's
      ``HashMap`` of member ids (:mod:`planner.assignors._java_hashing`; members whose
      ids share a hash bucket in the order ``subscriptions`` lists them, which stands
      for the order of the JoinGroup response);
    * the partitions left over, sorted by (topic, partition), are dealt in member-id
      order to the members below ``N div C``, round after round, then one each to the
      members that may still take one more;
    * hence a fresh group gets partition ``j`` of the sorted list on member ``j mod C``,
      exactly as ``roundrobin``.

    Other subscriptions take Kafka's general path (:mod:`planner.assignors._sticky_general`).

    With ``racks`` (members' ``client.rack``, replicas' racks; KIP-881), when Kafka's
    condition holds (:func:`planner.assignors._racks.use_rack_aware`), a member keeps only
    owned partitions with a replica on its rack and free partitions go to members on a
    matching rack first (:mod:`planner.assignors._sticky_racks` for identical
    subscriptions); otherwise racks change nothing.

    ``client="librdkafka"`` reproduces librdkafka's port instead (confluent-kafka):
    the same counts and number of moved partitions with identical subscriptions, but
    no constrained path, so other partitions move
    (:mod:`planner.assignors._sticky_librdkafka`).

    Example:
        The uneven round-robin input, balanced:

        >>> from planner.assignors.sticky import StickyAssignor
        >>> result = StickyAssignor().assign(
        ...     {"t0": 1, "t1": 2, "t2": 3},
        ...     {"c0": ["t0"], "c1": ["t0", "t1"], "c2": ["t0", "t1", "t2"]},
        ... )
        >>> {m: [f"{t}p{p}" for t, p in tps] for m, tps in result.items()}
        {'c0': ['t0p0'], 'c1': ['t1p0', 't1p1'], 'c2': ['t2p0', 't2p1', 't2p2']}

        Growing an identical-subscription group: ``c2`` joins ``c0`` and ``c1``, which
        each keep their two lowest partitions; the new member takes the rest.

        >>> grown = StickyAssignor().assign(
        ...     {"t": 6},
        ...     {"c0": ["t"], "c1": ["t"], "c2": ["t"]},
        ...     previous={
        ...         "c0": [("t", 0), ("t", 2), ("t", 4)],
        ...         "c1": [("t", 1), ("t", 3), ("t", 5)],
        ...     },
        ... )
        >>> {m: [p for _, p in tps] for m, tps in grown.items()}
        {'c0': [0, 2], 'c1': [1, 3], 'c2': [4, 5]}
    """

    name = "sticky"

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        client: str = "java",
        racks: Racks | None = None,
    ) -> Assignment:
        """Assign partitions; see the class docstring.

        Args:
            partitions_per_topic: Topic -> partition count.
            subscriptions: Member id -> subscribed topics.
            previous: Member id -> partitions owned in the last generation, or None for
                a fresh group.
            client: ``"java"`` (Kafka's Java client) or ``"librdkafka"``.
            racks: Members' ``client.rack`` and replicas' racks, or None (Java client only).

        Returns:
            Member id -> partitions, every member present, lists sorted by (topic, partition).

        Raises:
            ValueError: Unknown client, or racks with ``client="librdkafka"``.
        """
        check_client(client)
        check_racks(client, racks)
        ppt, subs, prev = prepare(partitions_per_topic, subscriptions, previous)
        if client == "librdkafka":
            return librdkafka_sticky_target(ppt, subs, prev)
        return sticky_target(ppt, subs, prev, racks)


def sticky_target(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    previous: dict[str, list[tuple[str, int]]] | None,
    racks: Racks | None = None,
) -> Assignment:
    """The sticky assignment of normalised inputs (shared with ``cooperative-sticky``)."""
    if not subscriptions:
        return {}
    topic_sets = set(subscriptions.values())
    subscribed = frozenset(
        t for topics in topic_sets for t in topics if partitions_per_topic.get(t, 0) > 0
    )
    rack_view = sticky_racks(partitions_per_topic, subscriptions, subscribed, racks)
    if len(topic_sets) == 1:
        if rack_view is not None:
            ownership = clean_ownership(partitions_per_topic, subscriptions, previous, subscribed)
            return constrained_with_racks(
                partitions_per_topic, subscriptions, ownership, subscribed, rack_view
            )
        return _constrained(partitions_per_topic, subscriptions, previous, subscribed)
    ownership = clean_ownership(partitions_per_topic, subscriptions, previous, subscribed)
    result = general_assign(partitions_per_topic, subscriptions, ownership, subscribed, rack_view)
    topic_key = {t: java_order_key(t) for t in subscribed}
    for partitions in result.values():
        partitions.sort(key=lambda tp: (topic_key[tp.topic], tp.partition))
    return result


def _constrained(
    partitions_per_topic: dict[str, int],
    subscriptions: dict[str, frozenset[str]],
    previous: dict[str, list[tuple[str, int]]] | None,
    subscribed: frozenset[str],
) -> Assignment:
    """Kafka's path for identical subscriptions (its ConstrainedAssignmentBuilder)."""
    members = sorted_java(subscriptions)
    topics = sorted_java(subscribed)
    all_partitions: list[TopicPartition] = []
    for topic in topics:
        all_partitions.extend(topic_partitions(topic, partitions_per_topic[topic]))
    n_members = len(members)
    assignment = empty_assignment(subscriptions)
    ownership = clean_ownership(partitions_per_topic, subscriptions, previous, subscribed)
    if not any(ownership.owned.values()):
        for i, member_id in enumerate(members):  # fresh: partition j -> member j mod C
            assignment[member_id] = all_partitions[i::n_members]
        return assignment

    topic_key = {t: java_order_key(t) for t in topics}
    min_quota, expected_over = divmod(len(all_partitions), n_members)
    max_quota = min_quota + (1 if expected_over else 0)
    over = 0
    under_min: list[str] = []
    exactly_min: list[str] = []  # members at min_quota that may still take one more
    assigned: set[TopicPartition] = set()
    # Kafka walks the members in the order of a HashMap (member id -> owned partitions)
    # filled from the leader's HashMap of Subscriptions. The order decides who keeps
    # min_quota + 1 only when more members own that many than there are such slots;
    # otherwise the lists built here are sorted below and any order gives the same result.
    contenders = sum(1 for m in members if len(ownership.owned[m]) >= max_quota)
    visit = members
    if 0 < expected_over < contenders:
        visit = hash_map_order(hash_map_order(subscriptions))
    for member_id in visit:
        owned = sorted(
            ownership.owned[member_id], key=lambda tp: (tp.partition, topic_key[tp.topic])
        )
        if len(owned) < min_quota:
            kept = owned
            under_min.append(member_id)
        elif len(owned) >= max_quota and over < expected_over:
            kept = owned[:max_quota]
            over += 1
            if over == expected_over:
                exactly_min.clear()
        else:
            kept = owned[:min_quota]
            if over < expected_over:
                exactly_min.append(member_id)
        assignment[member_id] = kept
        assigned.update(kept)
    under_min = sorted_java(under_min)
    exactly_min = sorted_java(exactly_min)

    waiting = deque(exactly_min)
    position = 0
    for tp in all_partitions:
        if tp in assigned:
            continue
        if position < len(under_min):
            member_id = under_min[position]
        elif under_min:
            position = 0
            member_id = under_min[0]
        elif waiting:
            member_id = waiting.popleft()
        else:  # unreachable when the quotas add up
            raise AssertionError(f"no member left to take {tp}")
        bucket = assignment[member_id]
        bucket.append(tp)
        if position < len(under_min) and under_min[position] == member_id:
            if len(bucket) == min_quota:
                del under_min[position]
                waiting.append(member_id)
            else:
                position += 1
    for partitions in assignment.values():
        partitions.sort(key=lambda tp: (topic_key[tp.topic], tp.partition))
    return assignment


# Follows Apache Kafka's org.apache.kafka.clients.consumer.StickyAssignor through
# org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor (constrained path for
# identical subscriptions, general path otherwise), with its KIP-881 rack awareness:
# KIP-54 "Sticky Partition Assignment Strategy"; KIP-341 for the generation rules.
