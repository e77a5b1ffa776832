"""Which Tc a consumer group is sized with: its own (`Tc_g`) or the topic's.

The figures may carry each group's own capacity on a topic, learned from how it consumes
or given (`planner.group_capacity`, docs/model.md section 9). This module decides, once,
which capacity a group's members are sized with, and how that changes the load the
planner works in. Loads elsewhere are in *consumers*: units of the topic's Tc (`max(rate_d
/ Tc_d)`, `planner.recommend.topic`). A group whose member does `Tc_g` records/s while
the topic's Tc is `Tc` carries `Tc / Tc_g` of those units per unit of the topic's load:
its `load_factor`. The one comparison needs both in records/s, so a topic whose Tc is
known in MiB/s only is converted with its mean record size; where neither is known the
group is sized with the topic's Tc (factor 1), as before `Tc_g` existed.

Example: a topic with Tc 1,000 records/s read by an archiver with `Tc_g` 2,000
(`saturation`) and an indexer with `Tc_g` 250 (`given`): factors 0.5 and 4.0; a topic
load of 3 consumers is 1.5 of the archiver's members' worth and 12 of the indexer's; the
topic's partitions follow the indexer's 4.0. A `lower-bound` of 500 gives factor 1.0
(the bound says "at least 500", never "slower than 1,000").
"""

from __future__ import annotations

from collections.abc import Iterable

from planner.recommend.types import ConsumerCapacity, GroupInfo, GroupLag
from planner.sizing import SideCapacity

__all__ = [
    "AT_LEAST_SOURCES",
    "OWN_CAPACITY_SOURCES",
    "ConsumerCapacity",
    "GroupLag",
    "consumer_capacity",
    "group_lag",
    "group_records_per_s",
    "load_factor",
    "slowest_factor",
    "topic_records_per_s",
]

#: Sources whose `Tc_g` is the group's capacity itself, used as it is. A `lower-bound`
#: (the group kept up) and a `busy-fraction` (Kafka's `poll-idle-ratio-avg` reads a
#: lightly loaded member busier than it is: seen 45 % low, docs/model.md section 9) are
#: only "at least", so they may speed a group up, never slow it.
OWN_CAPACITY_SOURCES = ("given", "saturation")
AT_LEAST_SOURCES = ("busy-fraction", "lower-bound")
_MIB = 2**20


def topic_records_per_s(consumer: SideCapacity, record_bytes: float | None) -> float | None:
    """The topic's Tc in records/s: measured, or its MiB/s at `record_bytes` (bytes).

    None when neither is known: then a group's `Tc_g` cannot be compared with it.
    """
    if consumer.records_per_s is not None and consumer.records_per_s > 0:
        return consumer.records_per_s
    if consumer.mib_per_s is not None and consumer.mib_per_s > 0 and record_bytes:
        return consumer.mib_per_s * _MIB / record_bytes
    return None


def _own(group: GroupInfo) -> float | None:
    # The group's figure when it says something: positive, with a source that is not the
    # topic's (a figure without a source counts as given, as a landing row's own does).
    tc_g = group.capacity_records_per_s
    if tc_g is None or not tc_g > 0 or group.capacity_source == "topic-default":
        return None
    return tc_g


def group_records_per_s(group: GroupInfo, topic_tc: float | None) -> float | None:
    """The Tc one member of the group is sized with, records/s.

    `Tc_g` for `given` and `saturation`; for `busy-fraction` and `lower-bound` (both
    "at least") the larger of the topic's Tc and the bound; otherwise the topic's Tc.
    None when the topic's Tc is unknown in records/s: the group then follows the topic's
    Tc in whatever unit it has (factor 1), since a bound alone cannot size anything.

    Args:
        group: The group, with its figures.
        topic_tc: The topic's Tc, records/s (`topic_records_per_s`).
    """
    tc_g = _own(group)
    if topic_tc is None or tc_g is None:
        return topic_tc
    if group.capacity_source in AT_LEAST_SOURCES:
        return max(topic_tc, tc_g)
    return tc_g


def load_factor(group: GroupInfo, topic_tc: float | None) -> float:
    """The group's load per unit of the topic's load (`topic Tc / group Tc`).

    1.0 when the group is sized with the topic's Tc; above 1 for a slower group.
    """
    used = group_records_per_s(group, topic_tc)
    if topic_tc is None or used is None or used == topic_tc:
        return 1.0
    return topic_tc / used


def slowest_factor(groups: Iterable[GroupInfo], topic_tc: float | None, *, others: bool) -> float:
    """The factor the topic's partitions are sized with: its slowest group's.

    Args:
        groups: The groups planned on the topic (share groups are left out by the
            caller: partitions do not cap them).
        topic_tc: The topic's Tc, records/s.
        others: Whether groups not among `groups` read it too (groups of several topics,
            or none known): their `Tc_g` is not at hand, so they count at the topic's Tc.
    """
    factors = [load_factor(g, topic_tc) for g in groups]
    if others or not factors:
        factors.append(1.0)
    return max(factors)


def consumer_capacity(
    group: GroupInfo, topic_tc: float | None, record_bytes: float | None
) -> ConsumerCapacity:
    """The capacity a group's plan states (its figure, or the topic's).

    Args:
        group: The group, with its figures.
        topic_tc: The topic's Tc, records/s (None: unknown in records).
        record_bytes: The topic's mean record size, bytes (None: unknown).
    """
    tc_g = _own(group)
    source = (group.capacity_source or "given") if tc_g is not None else "topic-default"
    records = tc_g if tc_g is not None else topic_tc
    mib = records * record_bytes / _MIB if records is not None and record_bytes else None
    evidence = group.capacity_evidence if tc_g is not None else None
    return ConsumerCapacity(records, mib, source, evidence)


def group_lag(group: GroupInfo) -> GroupLag | None:
    """The group's lag as observed, None when the figures have none of it."""
    if group.lag_records is None and group.lag_seconds is None and group.lag_trend is None:
        return None
    return GroupLag(group.lag_records, group.lag_seconds, group.lag_trend)
