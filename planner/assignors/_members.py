"""Kafka's vocabulary and the input checks shared by every assignor.

Kafka names used here: a *member id* identifies a group member; its *Subscription*
is the set of topics it asked for; an *Assignment* maps each member id to the
`TopicPartition`s it reads. Members are ordered as Java's ``String.compareTo`` orders
them, which compares UTF-16 code units, so ``consumer10`` sorts before ``consumer2``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple, TypeAlias


class TopicPartition(NamedTuple):
    """One partition of one topic; compares equal to the plain tuple ``(topic, partition)``."""

    topic: str
    partition: int


Subscription: TypeAlias = Collection[str]
"""The topics one member subscribes to."""

Assignment: TypeAlias = dict[str, list[TopicPartition]]
"""Member id -> the partitions it is assigned, sorted by (topic, partition)."""

PartitionsPerTopic: TypeAlias = Mapping[str, int]
"""Topic -> partition count."""

Subscriptions: TypeAlias = Mapping[str, Subscription]
"""Member id -> Subscription."""

PreviousAssignment: TypeAlias = Mapping[str, Iterable[tuple[str, int]] | Iterable[list[Any]]]
"""Member id -> partitions it owned in the last generation: ``(topic, partition)`` pairs,
as tuples or as the two-item lists `json.load` gives."""


def java_order_key(text: str) -> bytes:
    """Sort key that orders strings as Java's ``String.compareTo`` does.

    Java compares UTF-16 code units; big-endian UTF-16 bytes compare the same way
    (a proper prefix sorts first). It differs from Python's code-point order only
    between characters above U+FFFF (surrogate pairs, D800-DFFF) and U+E000-U+FFFF.

    Args:
        text: A member id or topic name.

    Returns:
        Bytes whose natural order is Java's string order.
    """
    return text.encode("utf-16-be", "surrogatepass")


def sorted_java(items: Iterable[str]) -> list[str]:
    """Return ``items`` sorted in Java string order.

    Without characters above U+FFFF, UTF-16 code units are the code points and Python's
    own order is Java's: the encoding is only paid for when it matters.
    """
    listed = list(items)
    joined = "".join(listed)
    if joined.isascii() or max(joined, default="") < "\U00010000":
        return sorted(listed)
    return sorted(listed, key=java_order_key)


def check_partitions_per_topic(partitions_per_topic: PartitionsPerTopic) -> None:
    """Reject partition counts that are not non-negative integers.

    Raises:
        TypeError: A topic is not a string or a count is not an int.
        ValueError: A count is negative.
    """
    for topic, count in partitions_per_topic.items():
        if not isinstance(topic, str):
            raise TypeError(f"topic names must be str, got {topic!r}")
        if isinstance(count, bool) or not isinstance(count, int):
            raise TypeError(f"partition count of topic {topic!r} must be an int, got {count!r}")
        if count < 0:
            raise ValueError(f"partition count of topic {topic!r} is negative: {count}")


def normalise_subscriptions(subscriptions: Subscriptions) -> dict[str, frozenset[str]]:
    """Check member ids and Subscriptions and turn each Subscription into a frozenset.

    Equal Subscriptions come back as the same frozenset object, so assignors can work
    per distinct Subscription rather than per member. A bare string is refused as a
    Subscription: ``"orders"`` would otherwise be read as the topics ``o``, ``r``, ``d``...

    Args:
        subscriptions: Member id -> subscribed topics.

    Returns:
        Member id -> frozenset of topics.

    Raises:
        TypeError: On a malformed member id or Subscription.
    """
    interned: dict[frozenset[str], frozenset[str]] = {}
    member_ids = list(subscriptions)
    topic_lists = list(subscriptions.values())
    if set(map(type, member_ids)) <= {str} and set(map(type, topic_lists)) <= _PLAIN_COLLECTIONS:
        # Fast path (no per-member Python code): plain containers of plain ids.
        if topic_lists and topic_lists.count(topic_lists[0]) == len(topic_lists):
            # Every member lists the same topics (a planning grid's groups): one set.
            shared = frozenset(topic_lists[0])
            interned[shared] = shared
            result = dict.fromkeys(member_ids, shared)
        else:
            topic_sets = list(map(frozenset, topic_lists))
            result = dict(
                zip(member_ids, map(interned.setdefault, topic_sets, topic_sets), strict=True)
            )
    else:
        result = {}
        for member_id, topics in subscriptions.items():
            if not isinstance(member_id, str):
                raise TypeError(f"member ids must be str, got {member_id!r}")
            if isinstance(topics, str | bytes):
                raise TypeError(
                    f"subscription of member {member_id!r} must be a collection of topic "
                    f"names, got {topics!r}"
                )
            try:
                topic_set = frozenset(topics)
            except TypeError as exc:
                raise TypeError(
                    f"subscription of member {member_id!r} must be a collection of topic "
                    f"names, got {topics!r}"
                ) from exc
            result[member_id] = interned.setdefault(topic_set, topic_set)
    for topic_set in interned:
        for topic in topic_set:
            if not isinstance(topic, str):
                raise TypeError(f"a member subscribes to a non-str topic {topic!r}")
    return result


_PLAIN_COLLECTIONS: set[type] = {list, tuple, set, frozenset}


def _pair(member_id: str, entry: object) -> TopicPartition:
    """One ``(topic, partition)`` entry as a TopicPartition; a 2-item list counts too."""
    # JSON has no tuples: `json.load` gives ``["orders", 0]`` for ``("orders", 0)``.
    if (
        isinstance(entry, tuple | list)
        and len(entry) == 2
        and isinstance(entry[0], str)
        and not isinstance(entry[1], bool)
        and isinstance(entry[1], int)
    ):
        return TopicPartition(entry[0], entry[1])
    raise TypeError(
        f"previous assignment of {member_id!r} holds {entry!r}, "
        "expected a (topic, partition) pair such as ('orders', 0) or [\"orders\", 0]"
    )


def check_previous(previous: PreviousAssignment) -> dict[str, list[tuple[str, int]]]:
    """Check previous ownership and return it as TopicPartitions.

    Each entry is a ``(topic, partition)`` pair: a tuple, a TopicPartition, or the
    two-item list JSON gives for one (``["orders", 0]``).

    Returns:
        Member id -> its partitions, in the order given.

    Raises:
        TypeError: On a malformed entry (a bare string, a partition that is not an int,
            a pair of the wrong length); the message names the member and the entry.
    """
    out: dict[str, list[tuple[str, int]]] = {}
    failure: TypeError | None = None
    if (
        isinstance(previous, Mapping)
        and set(map(type, previous)) <= _STR
        and set(map(type, previous.values())) <= _SEQUENCES
    ):
        owned_lists: list[Any] = list(previous.values())
        out = dict(zip(previous, map(list, owned_lists), strict=True))  # copies
    else:
        for member_id, owned in previous.items():
            if type(owned) is not list and type(owned) is not tuple:
                if not isinstance(member_id, str):
                    failure = TypeError(f"member ids must be str, got {member_id!r}")
                    break
                if isinstance(owned, str | bytes) or not isinstance(owned, Iterable):
                    failure = TypeError(
                        f"previous assignment of {member_id!r} must be a list of partitions"
                    )
                    break
            elif not isinstance(member_id, str):
                failure = TypeError(f"member ids must be str, got {member_id!r}")
                break
            out[member_id] = list(owned)  # type: ignore[arg-type]  # entries checked below
    # Earlier results passed back in hold well-formed TopicPartitions only: checked in a
    # few passes over all entries at C speed rather than one Python step per entry.
    entries = list(chain.from_iterable(out.values()))
    if not (
        set(map(type, entries)) <= _TOPIC_PARTITION
        and set(map(type, map(_TOPIC, entries))) <= _STR
        and set(map(type, map(_PARTITION, entries))) <= _INT
    ):
        for member_id, owned in out.items():
            out[member_id] = [
                entry
                if type(entry) is TopicPartition and type(entry[0]) is str and type(entry[1]) is int
                else _pair(member_id, entry)
                for entry in owned
            ]
    if failure is not None:  # raised after the members before it, as one pass would
        raise failure
    return out


_TOPIC_PARTITION: set[type] = {TopicPartition}
_SEQUENCES: set[type] = {list, tuple}
_STR: set[type] = {str}
_INT: set[type] = {int}
_TOPIC = itemgetter(0)
_PARTITION = itemgetter(1)


def eligible_topics(
    partitions_per_topic: PartitionsPerTopic, topics: Iterable[str]
) -> frozenset[str]:
    """The topics of a Subscription that exist and have at least one partition."""
    return frozenset(t for t in topics if partitions_per_topic.get(t, 0) > 0)


def empty_assignment(member_ids: Iterable[str]) -> Assignment:
    """Every member with an empty list, so idle members are present in the result."""
    return {member_id: [] for member_id in member_ids}


_partition_cache: dict[tuple[str, int], tuple[TopicPartition, ...]] = {}


def topic_partitions(topic: str, count: int) -> tuple[TopicPartition, ...]:
    """The partitions ``0..count-1`` of ``topic`` (memoised: assignors slice them a lot).

    Args:
        topic: Topic name.
        count: Partition count.

    Returns:
        The TopicPartitions in partition order.
    """
    key = (topic, count)
    cached = _partition_cache.get(key)
    if cached is None:
        if len(_partition_cache) > 4096:  # bound memory for long-running callers
            _partition_cache.clear()
        cached = tuple(TopicPartition(topic, i) for i in range(count))
        _partition_cache[key] = cached
    return cached


def prepare(
    partitions_per_topic: PartitionsPerTopic,
    subscriptions: Subscriptions,
    previous: PreviousAssignment | None,
) -> tuple[dict[str, int], dict[str, frozenset[str]], dict[str, list[tuple[str, int]]] | None]:
    """Check the inputs and copy them into plain dicts, sets and lists.

    Args:
        partitions_per_topic: Topic -> partition count.
        subscriptions: Member id -> subscribed topics.
        previous: Member id -> partitions owned in the last generation, or None; each
            a ``(topic, partition)`` tuple or the ``[topic, partition]`` list JSON
            gives.

    Returns:
        The same three inputs, normalised (previous ownership as TopicPartitions).

    Raises:
        TypeError: On malformed input.
        ValueError: On a negative partition count.
    """
    check_partitions_per_topic(partitions_per_topic)
    subs = normalise_subscriptions(subscriptions)
    prev: dict[str, list[tuple[str, int]]] | None = None
    if previous is not None:
        prev = check_previous(previous)
    return dict(partitions_per_topic), subs, prev
