"""Hand-built plans of groups on every protocol, and a topic's protocol alternatives.

The outputs' tests (Spark rows, report, JSON, store, `show`, output suites) carry these
through: the numbers are typed in, so what they assert is the carrying, not the sizing
core's arithmetic (which `tests/planner` checks).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from planner.notes import Note, note
from planner.recommend import GroupInfo, GroupPlan, TopicHistory, TopicPlan, plan_topic
from planner.sizing import SideCapacity
from tests.store.rows import facts_row

__all__ = ["ALTERNATIVES", "GROUPS", "KEYED_ALTERNATIVES", "plan_with_protocols"]


def _group(group_id: str, protocol: str, current: str, strategy: str, planned_as: str) -> GroupPlan:
    return GroupPlan(
        group_id=group_id,
        current_members=3,
        current_strategy=current,
        recommended_members=4,
        members_now=4,
        members_at_horizon=4,
        strategy=strategy,
        busiest_utilisation=0.5,
        fits=True,
        status="under-provisioned",
        idle_members_now=0,
        notes=(),
        topics=("orders",),
        protocol=protocol,
        planned_as=planned_as,
    )


#: One group per protocol (and Kafka Streams on the classic protocol).
GROUPS: tuple[GroupPlan, ...] = (
    _group("billing", "classic", "range", "cooperative-sticky", "cooperative-sticky"),
    _group("audit", "consumer", "uniform", "uniform", "consumer:uniform"),
    _group("thumbnails", "share", "simple", "simple", "share:simple"),
    _group("enricher", "classic", "stream", "stream", "cooperative-sticky"),
)

#: A keyless topic's alternatives for its classic group.
ALTERNATIVES: tuple[Note, ...] = (
    note(
        "consumer-protocol-alternative",
        strategy="range",
        assignor="uniform",
        members=4,
        members_needed=None,
        moved_on_join=2,
        consumer_paused_partition_s=15.5,
        classic_paused_partition_s=72.0,
        stops_group=True,
        classic_rounds=1,
    ),
    note(
        "share-alternative",
        members=6,
        partitions=3,
        classic_partitions=12,
        bound_partitions=3,
        bound="producer",
        current_partitions=None,
        replicas_saved=27,
        file_handles_saved=36,
        batch_memory_saved_bytes=9 * 16_384,
    ),
)

#: A keyed topic's: the consumer protocol, and why no share group.
KEYED_ALTERNATIVES: tuple[Note, ...] = (ALTERNATIVES[0], note("share-not-for-keyed"))


#: Tp and Tc, and the group, `plan_with_protocols` plans its topic with.
_CAPACITIES = (SideCapacity(10.0), SideCapacity(2.0))
_PLANNED_FOR = (GroupInfo("billing", "range", 3),)


def protocol_plan_facts(history: TopicHistory) -> dict[str, Any]:
    """The sizing job's facts row of what `plan_with_protocols` planned `history` from."""
    return facts_row(history, *_CAPACITIES, _PLANNED_FOR)


def plan_with_protocols(
    *, keyed: bool = False, topic: str = "orders"
) -> tuple[TopicPlan, TopicHistory]:
    """A plan of `topic` by the core, its groups replaced by `GROUPS` and its
    alternatives by `ALTERNATIVES` (`KEYED_ALTERNATIVES` when keyed)."""
    ts = np.arange(14 * 24, dtype=np.float64) * 3600.0 + 1_763_000_000.0
    history = TopicHistory(
        topic,
        ts,
        mib_in=np.full(ts.size, 12.0),
        current_partitions=12,
        keyed=keyed,
        retention_ms=604_800_000,
    )
    plan = plan_topic(history, *_CAPACITIES, brokers=3, groups=_PLANNED_FOR)
    groups = tuple(dataclasses.replace(g, topics=(topic,)) for g in GROUPS)
    return (
        dataclasses.replace(
            plan,
            groups=groups,
            alternatives=KEYED_ALTERNATIVES if keyed else ALTERNATIVES,
        ),
        history,
    )
