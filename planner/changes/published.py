"""A published plan as typed values, read from either of its two published forms.

A run is published twice: as `recommendations.json` beside the report (the report
model's fields: `planner.report.exports.recommendations`) and as store rows (the
`recommendations` dataset's fields: `Recommendation.as_row()`). They name a few things
differently (the coded notes' `params` are an object in the file and JSON text in the
dataset; the cost panel is one `cost` object in the file and `cost_*` columns in the
dataset). `read_published` takes either and gives the same `PlannedTopic`s, so every
export format and `apply` decide from one shape, whichever the person pointed at.

Example:

    >>> [t] = read_published([{"topic": "orders", "status": "increase",
    ...     "current_partitions": 6, "recommended_partitions": 8, "keyed": False,
    ...     "replication_factor": 3, "run": "20261120T0000Z", "groups": []}])
    >>> (t.topic, t.current_partitions, t.recommended_partitions, t.run)
    ('orders', 6, 8, '20261120T0000Z')
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.notes import Note, Severity, render_coded
from planner.protocols import DEFAULT_PROTOCOL
from planner.recommend.creation import CREATE_COST_FIELDS

__all__ = [
    "PlanCost",
    "PlannedGroup",
    "PlannedTopic",
    "PublishedPlanError",
    "read_published",
]


class PublishedPlanError(ValueError):
    """A published record this version cannot read (a field of the wrong type)."""


@dataclass(frozen=True)
class PlanCost:
    """The plan's cost panel at the recommended count (`planner.cost.PartitionCost`).

    Attributes:
        replicas_total: Partition replicas of the topic on the cluster.
        replicas_per_broker: The topic's replicas on the busiest broker.
        replicas_per_broker_limit: The configured limit per broker.
        producer_batch_memory_bytes: One producer's batch buffers for every partition.
        consumer_threads: Threads one group needs to read every partition at once.
    """

    replicas_total: int
    replicas_per_broker: int
    replicas_per_broker_limit: int
    producer_batch_memory_bytes: int
    consumer_threads: int


@dataclass(frozen=True)
class PlannedGroup:
    """One consumer group's plan, as published.

    Attributes:
        group_id: The group.
        topics: Every topic it reads.
        protocol: Its group protocol (`classic`, `consumer`, `share`, `streams`).
        strategy: The assignor recommended (None: no plan).
        status: `ok`, `under-provisioned`, `over-provisioned`, `deploy`, `unplanned`.
        current_members: Members today.
        recommended_members: Members to run (None: no plan).
        members_now: Members today's peak needs (None: no plan).
        standby_members: Of `recommended_members`, those owning no partition.
        notes: Its notes in coded form.
    """

    group_id: str
    topics: tuple[str, ...]
    protocol: str
    strategy: str | None
    status: str
    current_members: int
    recommended_members: int | None
    members_now: int | None
    standby_members: int
    notes: tuple[Note, ...]


@dataclass(frozen=True)
class PlannedTopic:
    """One topic's plan, as published.

    Attributes:
        topic: The topic.
        status: The plan's status (`ok`, `increase`, `plan-increase`, `create`, ...).
        run: The run key the plan was published under (None: not said).
        current_partitions: Partitions the plan saw (None: the topic does not exist).
        recommended_partitions: The count to have (None: not sized).
        replication_factor: Replicas per partition (None: unknown).
        keyed: Whether producers rely on per-key order.
        tc_records_per_s: Tc, records/s one consumer takes (None: not measured).
        tc_mib_per_s: Tc, MiB/s one consumer takes (None: not measured).
        cost: The cost panel at the recommended count (None: not published).
        warnings: The topic's warnings in coded form (rendered sentences for rows
            published before warnings had codes, as code `uncoded`).
        groups: The consumer groups reading it.
    """

    topic: str
    status: str
    run: str | None
    current_partitions: int | None
    recommended_partitions: int | None
    replication_factor: int | None
    keyed: bool
    tc_records_per_s: float | None
    tc_mib_per_s: float | None
    cost: PlanCost | None
    warnings: tuple[Note, ...]
    groups: tuple[PlannedGroup, ...]


#: The code given to a sentence published before warnings had codes.
UNCODED = "uncoded"


def read_published(
    records: Iterable[Mapping[str, Any]], *, run: str | None = None
) -> list[PlannedTopic]:
    """The topics of a published run, from `recommendations.json` objects or store rows.

    Args:
        records: One mapping per topic, in either published form.
        run: The run key, for records that do not carry one (store rows).

    Raises:
        PublishedPlanError: a record without a topic name, or a field of the wrong type.
    """
    out = []
    for index, record in enumerate(records):
        where = f"record {index + 1}"
        topic = record.get("topic")
        if not isinstance(topic, str) or not topic:
            raise PublishedPlanError(f"{where}: no topic name")
        try:
            out.append(_topic(record, run))
        except (TypeError, ValueError, KeyError) as exc:
            raise PublishedPlanError(f"{where} (topic {topic!r}): {exc}") from None
    return out


def _topic(r: Mapping[str, Any], run: str | None) -> PlannedTopic:
    return PlannedTopic(
        topic=str(r["topic"]),
        status=str(r.get("status") or ""),
        run=_text(r.get("run")) or run,
        current_partitions=_whole(r.get("current_partitions"), "current_partitions"),
        recommended_partitions=_whole(r.get("recommended_partitions"), "recommended_partitions"),
        replication_factor=_whole(r.get("replication_factor"), "replication_factor"),
        keyed=bool(r.get("keyed")),
        tc_records_per_s=_number(r.get("tc_records_per_s"), "tc_records_per_s"),
        tc_mib_per_s=_number(r.get("tc_mib_per_s"), "tc_mib_per_s"),
        cost=_cost(r),
        warnings=_notes(r.get("warnings_coded"), r.get("warnings")),
        groups=tuple(_group(g) for g in r.get("groups") or () if isinstance(g, Mapping)),
    )


def _cost(r: Mapping[str, Any]) -> PlanCost | None:
    # The file's `cost` object, or the dataset's `cost_*` columns.
    found = r.get("cost")
    source = (
        found if isinstance(found, Mapping) else {n: r.get(f"cost_{n}") for n in CREATE_COST_FIELDS}
    )
    values = {n: _whole(source.get(n), f"cost {n}") for n in CREATE_COST_FIELDS}
    if any(v is None for v in values.values()):
        return None
    return PlanCost(**{n: int(v) for n, v in values.items() if v is not None})


def _group(g: Mapping[str, Any]) -> PlannedGroup:
    current = _whole(g.get("current_members"), "current_members")
    return PlannedGroup(
        group_id=str(g["group_id"]),
        topics=tuple(str(t) for t in g.get("topics") or ()),
        protocol=_text(g.get("protocol")) or DEFAULT_PROTOCOL,
        strategy=_text(g.get("strategy")),
        status=str(g.get("status") or ""),
        current_members=current or 0,
        recommended_members=_whole(g.get("recommended_members"), "recommended_members"),
        members_now=_whole(g.get("members_now"), "members_now"),
        standby_members=_whole(g.get("standby_members"), "standby_members") or 0,
        notes=_notes(g.get("notes_coded"), g.get("notes")),
    )


def _notes(coded: Any, sentences: Any) -> tuple[Note, ...]:
    """Coded notes as `Note`s, their sentence rendered now (`render_coded`: today's
    wording; the published one for a code this version does not know)."""
    if isinstance(coded, Sequence) and not isinstance(coded, str) and coded:
        out = []
        for c in coded:
            if not isinstance(c, Mapping):
                continue
            params = c.get("params")
            params = json.loads(params) if isinstance(params, str) else params
            severity: Severity = "info" if c.get("severity") == "info" else "warning"
            out.append(Note(str(c["code"]), severity, dict(params or {}), render_coded(c) or ""))
        return tuple(out)
    if isinstance(sentences, Sequence) and not isinstance(sentences, str):
        return tuple(Note(UNCODED, "warning", {}, str(s)) for s in sentences)
    return ()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _whole(value: Any, name: str) -> int | None:
    # NaN: a null that went through pandas; an integral float: a nullable int column.
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, bool):
        raise TypeError(f"{name}: expected a whole number, got {value!r}")
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int):
        return value
    raise TypeError(f"{name}: expected a whole number, got {value!r}")


def _number(value: Any, name: str) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value == value and value > 0 else None
    raise TypeError(f"{name}: expected a number, got {value!r}")
