"""The run's facts: one row per topic with everything the planner needs besides figures.

A topic's facts are its snapshot (partitions, replication factor, keyed, partitioner,
retention), its Tp and Tc (its own capacity row or the fleet default `*`) and the
consumer groups that read it. They come from the run's small snapshot tables (a row per
topic, a row per group and topic) and are worked out here, on the driver, with PyArrow
and Python: as Spark joins and aggregations, the same work took 13 small jobs on a cold
JVM, 3.5 s of the 10,000-topic run, for tables of some thousand rows. Each planning
task gets the facts of its own unit (`by_unit`), as it reads its unit's samples itself.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from planner.choices import DEFAULT_PARTITIONER
from planner.cross_zone import replica_lists
from planner.protocols import is_streams
from planner.streams import internal_topic_of

if TYPE_CHECKING:
    import pyarrow as pa

    from spark_jobs.units import Unit

__all__ = [
    "DEFAULT_TOPIC",
    "GROUP_CAPACITY_FIELDS",
    "by_unit",
    "capacity_for_topics",
    "changelog_topics",
    "group_facts",
    "topic_facts",
    "unit_facts",
]

#: The capacity row every topic without its own figures falls back to.
DEFAULT_TOPIC = "*"
#: Capacity sides: the table's column prefix, and the short prefix of the facts.
_SIDES = (("producer", "tp"), ("consumer", "tc"), ("share_fetch", "sf"))
#: A group's own capacity and lag: the figures' `groups` column -> `GroupInfo`'s field.
GROUP_CAPACITY_FIELDS = {
    "consumer_records_per_s": "capacity_records_per_s",
    "capacity_source": "capacity_source",
    "capacity_evidence": "capacity_evidence",
    "lag_records": "lag_records",
    "lag_seconds": "lag_seconds",
    "lag_trend": "lag_trend",
}
_BASE = ("group_id", "strategy", "members", "protocol")
_GROUP_FIELDS = (
    *_BASE,
    *GROUP_CAPACITY_FIELDS,
    "client_rack",
    "stream_threads",
    "standby_replicas",
)
_SNAPSHOT = ("partitions", "replication_factor", "keyed", "partitioner", "retention_ms")


def _has(row: Mapping[str, Any] | None, side: str) -> bool:
    return row is not None and (
        row[f"{side}_mib_per_s"] is not None or row[f"{side}_records_per_s"] is not None
    )


def capacity_for_topics(topics: Iterable[str], capacity: pa.Table) -> dict[str, dict[str, Any]]:
    """Tp, Tc and the share-fetch rate for every topic, its own or the fleet default `*`.

    A side is taken whole from one row: if the topic's own capacity row has any
    producer figure (MiB/s or records/s), both producer figures come from it, else both
    from the `*` row; the same for the consumer side. A perf-test run measures one side
    in both units at once, with the topic's record size, so a topic's own records/s is
    never paired with a default MiB/s measured on other records. A side that neither
    row has is null (its source too). Capacity rows without a group are unique by topic
    (the figures table's key is topic and group).

    Returns:
        Topic -> `tp_mib_per_s, tp_records_per_s, tp_source, tp_measured_by,
        tp_record_bytes, tc_..., sf_mib_per_s, sf_records_per_s` (one partition's
        share-fetch throughput, taken whole from one row as a side is); `*_source` is
        `topic`, `*` or None; `*_record_bytes` the record size the side was measured
        with, from the same row.
    """
    # A row naming a group gives that group's own Tc (figures `capacity.group_id`), never
    # the topic's: the topic's sides come from its row without a group, or from `*`.
    rows = {
        r["topic"]: r
        for r in capacity.to_pylist()
        if r["topic"] is not None and r.get("group_id") is None
    }
    fleet = rows.pop(DEFAULT_TOPIC, None)
    out: dict[str, dict[str, Any]] = {}
    for topic in topics:
        own = rows.get(topic)
        facts: dict[str, Any] = {}
        for side, short in _SIDES:
            row = own if _has(own, side) else fleet if _has(fleet, side) else None
            facts[f"{short}_mib_per_s"] = None if row is None else row[f"{side}_mib_per_s"]
            facts[f"{short}_records_per_s"] = None if row is None else row[f"{side}_records_per_s"]
            if short == "sf":
                continue
            facts[f"{short}_source"] = (
                None if row is None else "topic" if row is own else DEFAULT_TOPIC
            )
            facts[f"{short}_measured_by"] = None if row is None else row["source"]
            facts[f"{short}_record_bytes"] = None if row is None else row["record_bytes"]
        out[topic] = facts
    return out


def group_facts(groups: pa.Table) -> dict[str, dict[str, Any]]:
    """Per topic: the groups that read only it, and how many groups read it at all.

    Args:
        groups: The run's groups, with their protocol (`RunFigures.planned_groups`).

    Returns:
        Topic -> `groups` (group_id, strategy, members, protocol, and the group's own
        capacity and lag columns, `GROUP_CAPACITY_FIELDS`, of the groups that read only
        this topic, by group id), `consuming_groups`, `share_groups`,
        `max_members` (None when no reader knows its size). Groups that read several
        topics count in `consuming_groups` (they fetch the topic's bytes) and, for
        share groups, in `share_groups` (their members are not capped by the
        partitions), but are planned on their own by `simulate_assignments`. A row
        without a group id belongs to no group and is not counted.
    """
    rows = [
        r
        for r in groups.select(
            ["topic", *(c for c in _GROUP_FIELDS if c in groups.column_names)]
        ).to_pylist()
        if r["group_id"] is not None
    ]
    reach: dict[str, set[str]] = {}
    for r in rows:
        if r["topic"] is not None:
            reach.setdefault(r["group_id"], set()).add(r["topic"])
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        facts = out.setdefault(
            r["topic"],
            {
                "groups": [],
                "readers": set(),
                "shares": set(),
                "streams": set(),
                "max_members": None,
            },
        )
        if len(reach.get(r["group_id"], ())) == 1:
            # The capacity and lag columns only where the figures have them: a group
            # without them is planned as before they existed.
            facts["groups"].append(
                {k: r.get(k) for k in _GROUP_FIELDS if k in _BASE or r.get(k) is not None}
            )
        facts["readers"].add(r["group_id"])
        if is_streams(r["protocol"], r["strategy"]):
            facts["streams"].add(r["group_id"])
        if r["protocol"] == "share":
            facts["shares"].add(r["group_id"])
        if r["members"] is not None and (
            facts["max_members"] is None or r["members"] > facts["max_members"]
        ):
            facts["max_members"] = r["members"]
    return {
        topic: {
            "groups": sorted(f["groups"], key=_group_order),
            "consuming_groups": len(f["readers"]),
            "share_groups": len(f["shares"]),
            "streams_readers": sorted(f["streams"]),
            "max_members": f["max_members"],
        }
        for topic, f in out.items()
        if topic is not None
    }


def _group_order(group: Mapping[str, Any]) -> tuple[Any, ...]:
    # By group id (unique among a topic's groups: the table's key is group and topic);
    # the other fields only order rows a table with duplicates would repeat.
    return tuple((group[k] is not None, group[k]) for k in ("group_id", "strategy", "members"))


def topic_facts(
    topics: pa.Table,
    *,
    capacity: pa.Table,
    groups: pa.Table,
    cluster: pa.Table | None = None,
    changelog_rates: Mapping[str, tuple[float, int]] | None = None,
) -> list[dict[str, Any]]:
    """One row per topic of the run with everything the planner needs besides figures.

    `groups` are the run's groups with their protocol; every group that reads a topic
    counts in the fan-out its bytes out are divided by.

    Returns:
        Rows of `topic, partitions, replication_factor, keyed, partitioner (the default
        partitioner where the snapshot has none), retention_ms`, the columns of
        `capacity_for_topics`, `groups`, `consuming_groups`, `share_groups`,
        `streams_readers` (the Kafka Streams applications reading it),
        `streams_internal` (`(application, kind)` when it is one's internal topic,
        `planner.streams.internal_topic_of`), `max_members` (0 where unknown),
        `replicas` (the topics table's text, or None) and `broker_racks` (`broker_id,
        rack` pairs from `cluster` for the brokers its replicas name, as a list: facts
        also travel as Arrow rows), by topic; topics without a name are left out. A
        Kafka Streams application's group carries `changelogs`: its changelog topics
        in the topics table (`planner.standbys.Changelog`'s fields), each with its
        mean bytes in and sample count from `changelog_rates` (topic -> `(bytes/s,
        samples)`, `changelog_rates`), for its standbys' cost.
    """
    columns = ["topic", *_SNAPSHOT, *(["replicas"] if "replicas" in topics.column_names else [])]
    snapshot = [r for r in topics.select(columns).to_pylist() if r["topic"] is not None]
    racks = _broker_racks(cluster)
    sides = capacity_for_topics((r["topic"] for r in snapshot), capacity)
    readers = group_facts(groups)
    unread = {
        "groups": [],
        "consuming_groups": 0,
        "share_groups": 0,
        "streams_readers": [],
        "max_members": None,
    }
    # Every Kafka Streams application of the run, for the topics that are theirs.
    apps = sorted({a for f in readers.values() for a in f["streams_readers"]})
    logs = _changelogs(snapshot, apps, changelog_rates or {})
    out = []
    for row in sorted(snapshot, key=lambda r: r["topic"]):
        read = _with_changelogs(readers.get(row["topic"], unread), logs)
        replicas = _readable(row.get("replicas"))
        out.append(
            {
                **row,
                "partitioner": row["partitioner"] or DEFAULT_PARTITIONER,
                **sides[row["topic"]],
                **read,
                "max_members": read["max_members"] or 0,
                "streams_internal": internal_topic_of(row["topic"], apps),
                "replicas": replicas,
                "broker_racks": _named_racks(replicas, racks),
            }
        )
    return out


def changelog_topics(topics: pa.Table, groups: pa.Table) -> list[str]:
    """The topics of `topics` that are a Kafka Streams application's changelog
    (`planner.streams.internal_topic_of`, the applications being `groups`' Streams
    groups): the ones `changelog_rates` is asked for."""
    apps = sorted({a for f in group_facts(groups).values() for a in f["streams_readers"]})
    names = (t for t in topics.column("topic").to_pylist() if t is not None)
    return sorted(
        t for t in names if (found := internal_topic_of(t, apps)) and found[1] == "changelog"
    )


def _changelogs(
    snapshot: Sequence[Mapping[str, Any]],
    apps: Sequence[str],
    rates: Mapping[str, tuple[float, int]],
) -> dict[str, list[dict[str, Any]]]:
    # Application -> its changelog topics as `planner.standbys.Changelog` takes them.
    out: dict[str, list[dict[str, Any]]] = {}
    for row in snapshot:
        found = internal_topic_of(row["topic"], apps)
        if found is None or found[1] != "changelog":
            continue
        rate, samples = rates.get(row["topic"], (None, 0))
        out.setdefault(found[0], []).append(
            {
                "topic": row["topic"],
                "partitions": row["partitions"],
                "bytes_in_per_s": rate,
                "samples": samples,
            }
        )
    return out


def _with_changelogs(
    read: dict[str, Any], logs: Mapping[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    # Each Streams group reading the topic gets its application's changelogs; other
    # groups' facts stay as they were.
    if not any(is_streams(g.get("protocol"), g["strategy"]) for g in read["groups"]):
        return read
    groups = [
        {**g, "changelogs": logs.get(g["group_id"], [])}
        if is_streams(g.get("protocol"), g["strategy"])
        else g
        for g in read["groups"]
    ]
    return {**read, "groups": groups}


def _broker_racks(cluster: pa.Table | None) -> dict[int, str | None]:
    if cluster is None or "rack" not in cluster.column_names:
        return {}
    return {
        int(r["broker_id"]): r["rack"] or None
        for r in cluster.select(["broker_id", "rack"]).to_pylist()
        if r["broker_id"] is not None
    }


def _readable(replicas: str | None) -> str | None:
    # Collection refuses a text the parser cannot read; one that got past it (a dataset
    # written by hand) costs the topic its cross-zone figure, never the run.
    if not replicas:
        return None
    try:
        replica_lists(replicas)
    except ValueError:
        return None
    return replicas


def _named_racks(replicas: str | None, racks: Mapping[int, str | None]) -> list[dict[str, Any]]:
    # Only the brokers a topic's replicas name travel with it: a task gets its own
    # topics' facts, not the whole cluster for every topic. The text was checked at
    # collection (`planner.figures.conform`).
    if not replicas:
        return []
    named = {b for brokers in replica_lists(replicas) for b in brokers}
    return [{"broker_id": b, "rack": racks.get(b)} for b in sorted(named)]


def by_unit(facts: Sequence[Mapping[str, Any]], units: Sequence[Unit]) -> dict[int, bytes]:
    """Each unit's facts rows, pickled apart, so a task decodes only its own.

    A topic is in the unit whose range holds its name (`Unit.owns`); a unit may have
    none (its samples may still hold unknown topics).
    """
    out: dict[int, bytes] = {}
    for unit in units:
        lo, hi = unit.lo, unit.hi
        mine = [
            f for f in facts if (lo is None or f["topic"] >= lo) and (hi is None or f["topic"] < hi)
        ]
        out[unit.unit] = pickle.dumps(mine, protocol=pickle.HIGHEST_PROTOCOL)
    return out


def unit_facts(pickled: bytes) -> list[dict[str, Any]]:
    """A unit's facts rows, as `by_unit` packed them."""
    rows: list[dict[str, Any]] = pickle.loads(pickled)
    return rows
