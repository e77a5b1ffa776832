"""A group as the broker's group coordinator hands it to its assignors (KIP-848, KIP-932).

The consumer protocol's ``uniform`` and ``range`` and the share groups' ``simple`` run on
the broker. Each receives the members with their subscriptions and their *current target
assignment* (what the coordinator last decided for them, not what they reported), and
walks Java hash tables keyed by member id, topic id and partition. This module turns the
planner's inputs into that view:

* members in the iteration order of the coordinator's ``HashMap<String, ...>`` of member
  specs, filled in the order of ``subscriptions`` (standing for the order of the group's
  own member map);
* each member's subscribed topics in the iteration order of the coordinator's
  ``HashSet<String>`` of its topic names (see :func:`subscribed_order`), which Kafka's
  ``TopicIds`` maps to topic ids one by one, skipping names without a topic;
* topic ids, given or stand-ins (:mod:`planner.assignors._topic_ids`);
* the previous target assignment of each member still in the group, per topic in the order
  the coordinator's replay of its target-assignment record builds it
  (``Collectors.toMap`` into a ``HashMap``, each partition list into ``new HashSet<>(list)``),
  the partitions of one topic taken in the order given.

Topics that do not exist (or have 0 partitions) are not in the broker's metadata: they are
dropped from subscriptions, as the coordinator's topic-id resolver drops them; whether the
group is homogeneous is still decided on topic *names*, as the coordinator does.

**Assumption about the order of a member's topic names.** The coordinator builds a member's
set with ``new HashSet<>(names)`` (``ConsumerGroupMember.Builder.setSubscribedTopicNames``,
likewise ``ShareGroupMember``), and within one bucket the set keeps the order of that list.
Once the member's subscription record is replayed, the list is the record's, which
``GroupCoordinatorRecordHelpers.new*GroupMemberSubscriptionRecord`` sorts (Java string
order): that is the set every member has between heartbeats, and the one assumed here, so
the order of a Subscription as given does not matter. The one exception is the member whose
own heartbeat triggers the new target assignment: Kafka then uses the set built from the
heartbeat's list, which differs from ours only for two names that share a bucket, and only
if that member's topics are the ones the homogeneous builders read (the first member in
member-map order). The planner does not see heartbeats, so it cannot follow that case.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import Any

from planner.assignors._java_hashing import (
    JavaHashTable,
    capacity_for_copy,
    copied_set_order,
    hash_map_order,
    int_hash,
    table_size_for,
)
from planner.assignors._members import (
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
    TopicPartition,
    prepare,
    sorted_java,
)
from planner.assignors._topic_ids import TopicId, TopicIds, resolve_topic_ids

_MASK32 = 0xFFFFFFFF
_LONGEST_CHAIN = 8  # a ninth entry in one bucket grows a small table (or makes a tree)

InstanceIds = Mapping[str, str]
"""Member id -> its ``group.instance.id`` (static members only)."""


@dataclass(frozen=True)
class ServerGroup:
    """The coordinator's view of one group, ready for a broker-side assignor.

    Attributes:
        given: Member ids in the order given (the order of the result).
        members: Member ids in the coordinator's ``HashMap`` iteration order.
        partitions: Topic -> partition count, existing topics only.
        topics: Member id -> the existing topics it subscribes to, in the order of the
            coordinator's set of its topic names (:func:`subscribed_order`).
        subscribed: Member id -> every topic name it subscribes to, existing or not (the
            size of Kafka's ``TopicIds``, which sizes the sets copied from it).
        homogeneous: Every member subscribes to the same topic names.
        ids: Topic -> its id (given or stand-in) for every topic seen.
        previous: Member id -> topic -> partitions, each in the order the coordinator's
            tables iterate them; members still in the group only.
        instance_ids: Member id -> ``group.instance.id`` of static members.
    """

    given: list[str]
    members: list[str]
    partitions: dict[str, int]
    topics: dict[str, list[str]]
    subscribed: dict[str, frozenset[str]]
    homogeneous: bool
    ids: dict[str, TopicId]
    previous: dict[str, dict[str, list[int]]]
    instance_ids: dict[str, str]

    def topic_hash(self, topic: str) -> int:
        """``Uuid.hashCode()`` of the topic's id."""
        return self.ids[topic].java_hash()


def server_group(
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None,
    *,
    topic_ids: TopicIds | None,
    instance_ids: InstanceIds | None,
    shared: bool,
) -> ServerGroup:
    """Check the inputs and build the coordinator's view of the group.

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics, in the order the group's member map
            holds the members.
        previous: Member id -> its previous target assignment, or None for a fresh group.
        topic_ids: Topic -> id; missing topics get stand-in ids.
        instance_ids: Member id -> ``group.instance.id`` for static members.
        shared: A share group (a partition may be the target of several members).

    Returns:
        The group as the broker-side assignors see it.

    Raises:
        TypeError: Malformed inputs.
        ValueError: A negative partition count, a malformed topic id, or (consumer
            protocol) a partition in two members' previous target assignments.
    """
    counts, subs, prev = prepare(partitions_per_topic, subscriptions, previous)
    existing = {t: n for t, n in counts.items() if n > 0}
    topics = {m: subscribed_topics(s, existing) for m, s in subs.items()}
    homogeneous = len(set(subs.values())) <= 1
    seen = {t for ts in topics.values() for t in ts}
    kept = kept_targets(prev, subs, existing, shared=shared)
    seen.update(t for per_topic in kept.values() for t in per_topic)
    ids = resolve_topic_ids(sorted_java(seen), _known(topic_ids, seen))
    ordered_previous = {
        m: _replayed(per_topic, lambda t: ids[t].java_hash()) for m, per_topic in kept.items()
    }
    statics = _check_instance_ids(instance_ids, subs)
    return ServerGroup(
        given=list(subs),
        members=hash_map_order(subs),
        partitions=existing,
        topics=topics,
        subscribed=subs,
        homogeneous=homogeneous,
        ids=ids,
        previous=ordered_previous,
        instance_ids=statics,
    )


@lru_cache(maxsize=4096)  # a planning grid asks for the same Subscription over and over
def subscribed_order(names: frozenset[str]) -> tuple[str, ...]:
    """A member's subscribed topic names in the order Kafka's broker-side assignors walk them.

    Kafka hands each member's topics to its assignors as ``TopicIds``, which iterates the
    member's ``HashSet<String>`` of names; the coordinator rebuilds that set from its
    subscription record, whose names are sorted (see the module docstring).

    Example:
        >>> subscribed_order(frozenset({"b", "zz"}))  # "zz" is in bucket 0, "b" in bucket 2
        ('zz', 'b')
    """
    return tuple(copied_set_order(sorted_java(names)))


def subscribed_topics(names: frozenset[str], partitions: Mapping[str, int]) -> list[str]:
    """The topics of :func:`subscribed_order` that exist (``TopicIds`` skips the names the
    metadata does not know; a topic of 0 partitions stands for one that does not exist)."""
    return [t for t in subscribed_order(names) if partitions.get(t, 0) > 0]


def kept_targets(
    previous: Mapping[str, list[tuple[str, int]]] | None,
    subscriptions: Mapping[str, object],
    existing: Mapping[str, int],
    *,
    shared: bool,
) -> dict[str, dict[str, list[int]]]:
    """The previous targets the coordinator still holds: member -> topic -> partitions
    (in the order given), for members still in the group and partitions that exist.

    Raises:
        ValueError: (consumer protocol) a partition in two members' previous targets.
    """
    kept: dict[str, dict[str, list[int]]] = {}
    owner: dict[tuple[str, int], str] = {}
    for member_id, owned in (previous or {}).items():
        if member_id not in subscriptions:
            continue  # a member that left: the coordinator deleted its target assignment
        per_topic: dict[str, list[int]] = {}
        for topic, partition in owned:
            # A partition that is not in the metadata (a deleted topic, a partition past
            # the count) cannot be in a target assignment the coordinator built.
            if not 0 <= partition < existing.get(topic, 0):
                continue
            if not shared:
                first = owner.setdefault((topic, partition), member_id)
                if first != member_id:
                    raise ValueError(
                        f"partition {topic}-{partition} is in the previous target assignment "
                        f"of both {first!r} and {member_id!r}; the consumer protocol gives a "
                        "partition to one member"
                    )
            partitions = per_topic.setdefault(topic, [])
            if partition not in partitions:
                partitions.append(partition)
        kept[member_id] = per_topic
    return kept


def clean_targets(
    previous: Mapping[str, list[tuple[str, int]]],
    subscriptions: Mapping[str, object],
    existing: Mapping[str, int],
    *,
    shared: bool,
) -> tuple[dict[str, list[tuple[str, int]]], set[str], bool] | None:
    """The previous targets of the members still in the group, if :func:`kept_targets`
    would keep every entry as it is (each partition exists and appears once, or for a
    share group once per member), with the topics they name and whether no partition is
    in two members' targets; else None.

    Checked in a few passes at C speed over all entries, so that a planning grid's
    rebalances need not walk them one Python step each.
    """
    if subscriptions.keys() >= previous.keys():
        kept = dict(previous)
    else:
        kept = {m: owned for m, owned in previous.items() if m in subscriptions}
    return clean_entries(kept, list(chain.from_iterable(kept.values())), existing, shared=shared)


def plain_clean_targets(
    previous: Mapping[str, Any],
    subs: Mapping[str, object],
    existing: Mapping[str, int],
    *,
    shared: bool,
) -> tuple[dict[str, list[tuple[str, int]]], set[str], bool] | None:
    """:func:`clean_targets` of a previous target that ``check_previous`` would take as it
    is (str member ids, lists or tuples of TopicPartitions of a str and an int, as an
    earlier result gives), checked in a few passes at C speed; else None (then nothing
    of ``previous`` was consumed)."""
    if not (
        isinstance(previous, Mapping)
        and set(map(type, previous)) <= _STR
        and set(map(type, previous.values())) <= _SEQUENCES
    ):
        return None
    entries = list(chain.from_iterable(previous.values()))
    if not (
        set(map(type, entries)) <= _TOPIC_PARTITION
        and set(map(type, map(_TOPIC, entries))) <= _STR
        and set(map(type, map(_PARTITION, entries))) <= _INT
    ):
        return None
    if subs.keys() >= previous.keys():
        kept: dict[str, list[tuple[str, int]]] = dict(previous)
        flat = entries
    else:
        kept = {m: owned for m, owned in previous.items() if m in subs}
        flat = list(chain.from_iterable(kept.values()))
    return clean_entries(kept, flat, existing, shared=shared)


def clean_entries(
    kept: dict[str, list[tuple[str, int]]],
    flat: list[tuple[str, int]],
    existing: Mapping[str, int],
    *,
    shared: bool,
) -> tuple[dict[str, list[tuple[str, int]]], set[str], bool] | None:
    """:func:`clean_targets` on the targets ``kept`` of members still in the group, whose
    entries, all well-formed, ``flat`` lists."""
    topics = set(map(_TOPIC, flat))
    if any(existing.get(t, 0) <= 0 for t in topics):
        return None
    if len(topics) == 1:
        partitions = list(map(_PARTITION, flat))
        if min(partitions) < 0 or max(partitions) >= existing[next(iter(topics))]:
            return None
        held_once = len(set(partitions)) == len(partitions)  # ints hash faster than pairs
    else:
        if topics and not all(0 <= p < existing[t] for t, p in flat):
            return None
        held_once = len(set(flat)) == len(flat)
    if not held_once and (
        not shared or any(len(set(owned)) != len(owned) for owned in kept.values())
    ):
        return None
    return kept, topics, held_once


_TOPIC = itemgetter(0)
_PARTITION = itemgetter(1)
_SEQUENCES: set[type] = {list, tuple}
_STR: set[type] = {str}
_INT: set[type] = {int}
_TOPIC_PARTITION: set[type] = {TopicPartition}


def _known(topic_ids: TopicIds | None, seen: set[str]) -> TopicIds | None:
    if topic_ids is None:
        return None
    if not isinstance(topic_ids, Mapping):
        raise TypeError("topic_ids must map topic names to topic ids")
    return {t: i for t, i in topic_ids.items() if t in seen}


def _check_instance_ids(
    instance_ids: InstanceIds | None, subs: Mapping[str, object]
) -> dict[str, str]:
    if instance_ids is None:
        return {}
    if not isinstance(instance_ids, Mapping):
        raise TypeError("instance_ids must map member ids to group.instance.id values")
    out = {}
    for member_id, instance in instance_ids.items():
        if not isinstance(member_id, str) or not isinstance(instance, str):
            raise TypeError(f"instance ids must be str -> str, got {member_id!r}: {instance!r}")
        if member_id in subs:
            out[member_id] = instance
    if len(set(out.values())) != len(out):
        raise ValueError("two members of the group have the same group.instance.id")
    return out


def _replayed(
    per_topic: dict[str, list[int]], topic_hash: Callable[[str], int]
) -> dict[str, list[int]]:
    """One member's target assignment in the iteration order of the coordinator's replay:
    topics in a default ``HashMap<Uuid, ...>``, partitions in ``new HashSet<>(list)``."""
    if len(per_topic) <= 1:
        return {t: int_set_order(ps) for t, ps in per_topic.items()}
    topic_table: JavaHashTable[str] = JavaHashTable(topic_hash)
    for topic in per_topic:
        topic_table.add(topic)
    return {t: int_set_order(per_topic[t]) for t in topic_table.order()}


def int_set_order(values: list[int]) -> list[int]:
    """The iteration order of ``new HashSet<Integer>(values)`` (distinct values)."""
    capacity = table_size_for(capacity_for_copy(len(values)))
    if not values or (min(values) >= 0 and max(values) < capacity):
        return sorted(values)  # one value per bucket, buckets in value order
    buckets = [(v ^ (v >> 16)) & (capacity - 1) for v in (v & _MASK32 for v in values)]
    if len(values) <= _LONGEST_CHAIN or max(Counter(buckets).values()) <= _LONGEST_CHAIN:
        # The set is sized not to grow: bucket order, insertion order within a bucket.
        return [values[i] for i in sorted(range(len(values)), key=buckets.__getitem__)]
    table: JavaHashTable[int] = JavaHashTable(
        int_hash, initial_capacity=capacity_for_copy(len(values))
    )
    for value in values:
        table.add(value)
    return table.order()


def as_assignment(
    members: list[str], chosen: Mapping[str, Mapping[str, object]]
) -> dict[str, list[TopicPartition]]:
    """Member -> sorted TopicPartitions from member -> topic -> partitions (any iterable)."""
    out: dict[str, list[TopicPartition]] = {}
    for member_id in members:
        tps = [
            TopicPartition(t, p)
            for t, parts in chosen.get(member_id, {}).items()
            for p in parts  # type: ignore[attr-defined]
        ]
        out[member_id] = sorted(tps)
    return out
