"""kafka-python 3.0.12 as a differential oracle: its assignors called without a broker.

Known bugs of that version (STACK.md), kept out of the oracle's inputs:
* round-robin raises ``KeyError`` when members' subscriptions differ (its inner loop
  takes a ``(group_instance_id, member_id)`` pair where it wants a member id), so it is
  only compared on identical subscriptions;
* range and round-robin drop members when static and dynamic members are mixed
  (``itertools.groupby`` on unsorted input): every member here is dynamic;
* it orders member ids in Python code-point order, not Java's UTF-16 order: the
  generated ids have no characters above U+FFFF;
* its sticky assignor keeps the first of two same-generation claimants where Java drops
  both: the oracle is never given doubly claimed partitions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription


class FakeCluster:
    """The two metadata calls kafka-python's assignors make."""

    def __init__(self, partitions_per_topic: Mapping[str, int]) -> None:
        self._partitions = {t: set(range(n)) for t, n in partitions_per_topic.items()}

    def topics(self) -> set[str]:
        return set(self._partitions)

    def partitions_for_topic(self, topic: str) -> set[int] | None:
        return self._partitions.get(topic)


class Member(NamedTuple):
    """The fields of a JoinGroup response member that the assignors read."""

    member_id: str
    group_instance_id: str | None
    metadata: Any


def members(
    subscriptions: Mapping[str, Sequence[str]],
    previous: Mapping[str, Sequence[tuple[str, int]]] | None = None,
    generation: int = 1,
) -> list[Member]:
    """Decoded JoinGroup members; ``previous`` goes into the sticky user data."""
    result = []
    for member_id, topics in subscriptions.items():
        user_data: Any = b""
        if previous is not None and member_id in previous:
            by_topic: dict[str, list[int]] = {}
            for topic, partition in previous[member_id]:
                by_topic.setdefault(topic, []).append(partition)
            user_data = StickyAssignorUserData(list(by_topic.items()), generation)
        metadata = ConsumerProtocolSubscription(version=0, topics=list(topics), user_data=user_data)
        result.append(Member(member_id, None, metadata))
    return result


def kafka_python_assign(
    strategy: str,
    partitions_per_topic: Mapping[str, int],
    subscriptions: Mapping[str, Sequence[str]],
    previous: Mapping[str, Sequence[tuple[str, int]]] | None = None,
) -> dict[str, list[tuple[str, int]]]:
    """kafka-python's answer on the same input, as plain sorted tuples."""
    cluster = FakeCluster(partitions_per_topic)
    group = members(subscriptions, previous)
    assignor: Any
    if strategy == "range":
        assignor = RangePartitionAssignor
    elif strategy == "roundrobin":
        assignor = RoundRobinPartitionAssignor
    elif strategy == "sticky":
        assignor = StickyPartitionAssignor()
    else:
        raise ValueError(strategy)
    result = assignor.assign(cluster, group)
    return {m: sorted((tp.topic, tp.partition) for tp in a.partitions()) for m, a in result.items()}
