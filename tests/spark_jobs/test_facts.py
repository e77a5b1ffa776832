"""The run's facts, worked out on the driver (`spark_jobs.facts`), and the set-aside
rule the small tables are read with (`RunFigures.snapshot`)."""

from __future__ import annotations

import itertools
import string
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession

from planner.figures.dataset import DataInterval, write_interval
from planner.figures.schema import TABLES
from planner.figures.set_aside import SetAside, SetAsideTopic
from spark_jobs.facts import (
    by_unit,
    capacity_for_topics,
    changelog_topics,
    group_facts,
    topic_facts,
    unit_facts,
)
from spark_jobs.figures import locate_run
from spark_jobs.units import Unit
from tests.spark_jobs.fleet import RUN_DAY, snapshot_tables, throughput_rows


def _table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    schema = TABLES[name].schema
    return pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema)


def _cap(
    topic: str,
    tp: tuple[Any, Any],
    tc: tuple[Any, Any],
    source: str,
    record_bytes: float | None = None,
    share_fetch: tuple[Any, Any] = (None, None),
) -> dict[str, Any]:
    return {
        "topic": topic,
        "producer_mib_per_s": tp[0],
        "producer_records_per_s": tp[1],
        "consumer_mib_per_s": tc[0],
        "consumer_records_per_s": tc[1],
        "share_fetch_mib_per_s": share_fetch[0],
        "share_fetch_records_per_s": share_fetch[1],
        "record_bytes": record_bytes,
        "source": source,
    }


_SIDE = ("mib_per_s", "records_per_s", "source", "measured_by", "record_bytes")


def _sides(tp: tuple[Any, ...], tc: tuple[Any, ...], sf: tuple[Any, Any] = (None, None)) -> dict:
    return {
        **{f"tp_{k}": v for k, v in zip(_SIDE, tp, strict=True)},
        **{f"tc_{k}": v for k, v in zip(_SIDE, tc, strict=True)},
        "sf_mib_per_s": sf[0],
        "sf_records_per_s": sf[1],
    }


def test_capacity_falls_back_to_the_default_one_side_at_a_time() -> None:
    capacity = _table(
        "capacity",
        [
            _cap("*", (8.0, 16_000.0), (1.0, 2_000.0), "fleet", 1024.0),
            _cap("own", (10.0, 20_000.0), (2.0, 4_000.0), "perf-own", 512.0),
            _cap("consumer-only", (None, None), (3.0, None), "perf-c", 100.0),
            _cap("records-only", (None, 9_000.0), (None, None), "perf-r"),
        ],
    )
    topics = ["own", "consumer-only", "records-only", "none"]
    # Each side's record size comes from the row the side came from. A side's columns:
    # MiB/s, records/s, where from, measured by, record bytes.
    fleet_p = (8.0, 16_000.0, "*", "fleet", 1024.0)
    fleet_c = (1.0, 2_000.0, "*", "fleet", 1024.0)
    assert capacity_for_topics(topics, capacity) == {
        "own": _sides(
            (10.0, 20_000.0, "topic", "perf-own", 512.0), (2.0, 4_000.0, "topic", "perf-own", 512.0)
        ),
        "consumer-only": _sides(fleet_p, (3.0, None, "topic", "perf-c", 100.0)),
        # The topic's own producer side is taken whole: its MiB/s stays unknown rather
        # than borrowing the default's, measured on other records.
        "records-only": _sides((None, 9_000.0, "topic", "perf-r", None), fleet_c),
        "none": _sides(fleet_p, fleet_c),
    }


def test_without_a_default_a_topic_without_figures_has_none() -> None:
    capacity = _table("capacity", [_cap("own", (10.0, None), (2.0, None), "p")])
    found = capacity_for_topics(["own", "none"], capacity)
    assert found == {
        "own": _sides((10.0, None, "topic", "p", None), (2.0, None, "topic", "p", None)),
        "none": _sides((None,) * 5, (None,) * 5),
    }


def test_a_group_s_own_tc_is_never_the_topic_s() -> None:
    # Whichever order the rows come in, a row naming a group gives that group's Tc
    # (planner.collect.consumption), and the topic's sides come from its own row or `*`.
    own = _cap("own", (10.0, None), (2.0, None), "p")
    fleet = _cap("*", (8.0, None), (1.0, None), "fleet")
    group = {**_cap("own", (None, None), (None, 420.0), "g"), "group_id": "indexer"}
    other = {**_cap("bare", (None, None), (None, 99.0), "g"), "group_id": "indexer"}
    for rows in ([own, group, fleet, other], [group, other, fleet, own]):
        found = capacity_for_topics(["own", "bare"], _table("capacity", rows))
        assert found == {
            "own": _sides((10.0, None, "topic", "p", None), (2.0, None, "topic", "p", None)),
            "bare": _sides((8.0, None, "*", "fleet", None), (1.0, None, "*", "fleet", None)),
        }


def test_share_fetch_is_taken_whole_from_the_topics_row_or_the_default() -> None:
    capacity = _table(
        "capacity",
        [
            _cap("*", (8.0, None), (1.0, None), "fleet", share_fetch=(20.0, 40_000.0)),
            _cap("own", (10.0, None), (2.0, None), "perf", share_fetch=(None, 9_000.0)),
        ],
    )
    found = capacity_for_topics(["own", "none"], capacity)
    assert {t: (f["sf_mib_per_s"], f["sf_records_per_s"]) for t, f in found.items()} == {
        "own": (None, 9_000.0),
        "none": (20.0, 40_000.0),
    }


GROUPS = [
    {"group_id": "solo", "topic": "a", "strategy": "range", "members": 2},
    {"group_id": "pair", "topic": "a", "strategy": "roundrobin", "members": 5},
    {"group_id": "pair", "topic": "b", "strategy": "roundrobin", "members": 5},
    {"group_id": "also", "topic": "a", "strategy": "sticky", "members": 1},
]


def _groups(rows: list[dict[str, Any]]) -> pa.Table:
    return _table("groups", [{"protocol": "classic", **r} for r in rows])


def test_group_facts_keep_one_topic_groups_and_count_every_reader() -> None:
    assert group_facts(_groups(GROUPS)) == {
        "a": {
            "groups": [
                {"group_id": "also", "strategy": "sticky", "members": 1, "protocol": "classic"},
                {"group_id": "solo", "strategy": "range", "members": 2, "protocol": "classic"},
            ],
            "consuming_groups": 3,
            "share_groups": 0,
            "streams_readers": [],
            "max_members": 5,
        },
        "b": {
            "groups": [],
            "consuming_groups": 1,
            "share_groups": 0,
            "streams_readers": [],
            "max_members": 5,
        },
    }


def test_share_groups_are_counted_apart_among_the_readers() -> None:
    """A share group reads the topic's bytes (it counts in `consuming_groups`, the
    fan-out) and its members are not capped by the partitions (`share_groups`, which
    `plan_topic` sizes the topic's partitions by); one reading several topics is
    planned apart but counts on each."""
    share = {"group_id": "workers", "topic": "b", "strategy": "simple", "members": 9}
    also = {"group_id": "spread", "strategy": "simple", "members": 2, "protocol": "share"}
    rows = [*GROUPS, {**share, "protocol": "share"}, {**also, "topic": "a"}, {**also, "topic": "b"}]
    found = group_facts(_groups(rows))
    assert (found["b"]["consuming_groups"], found["b"]["share_groups"]) == (3, 2)
    assert [g["group_id"] for g in found["b"]["groups"]] == ["workers"]
    assert (found["a"]["consuming_groups"], found["a"]["share_groups"]) == (4, 1)
    assert found["b"]["max_members"] == 9


def test_a_group_of_unknown_size_does_not_set_the_largest() -> None:
    rows = [
        {"group_id": "sized", "topic": "a", "strategy": "range", "members": 0},
        {"group_id": "unsized", "topic": "a", "strategy": "range", "members": None},
        {"group_id": "only", "topic": "b", "strategy": "range", "members": None},
    ]
    found = group_facts(_groups(rows))
    assert (found["a"]["max_members"], found["b"]["max_members"]) == (0, None)


def test_topic_facts_give_every_topic_its_snapshot_sides_and_readers() -> None:
    topics = _table(
        "topics",
        [
            {"topic": "b", "partitions": 2, "replication_factor": 3, "keyed": True},
            {
                "topic": "a",
                "partitions": 3,
                "replication_factor": 1,
                "keyed": False,
                "partitioner": "murmur2_sticky",
                "retention_ms": 1000,
            },
            {"topic": None, "partitions": 1, "replication_factor": 1, "keyed": False},
            {"topic": "unread", "partitions": None, "replication_factor": 1, "keyed": False},
        ],
    )
    capacity = _table("capacity", [_cap("*", (8.0, None), (1.0, None), "fleet")])
    facts = topic_facts(topics, capacity=capacity, groups=_groups(GROUPS))
    assert [f["topic"] for f in facts] == ["a", "b", "unread"]
    a, b, unread = facts
    assert (a["partitioner"], a["retention_ms"], b["partitioner"]) == (
        "murmur2_sticky",
        1000,
        "murmur2_random",
    )
    assert (b["keyed"], b["consuming_groups"], b["max_members"], b["tp_source"]) == (
        True,
        1,
        5,
        "*",
    )
    assert [g["group_id"] for g in a["groups"]] == ["also", "solo"]
    assert unread | {} == {
        "topic": "unread",
        "partitions": None,
        "replication_factor": 1,
        "keyed": False,
        "partitioner": "murmur2_random",
        "retention_ms": None,
        **_sides((8.0, None, "*", "fleet", None), (1.0, None, "*", "fleet", None)),
        "groups": [],
        "consuming_groups": 0,
        "share_groups": 0,
        "streams_readers": [],
        "max_members": 0,
        "streams_internal": None,
        # No replica lists in the topics table: no racks to carry.
        "replicas": None,
        "broker_racks": [],
    }


def test_kafka_streams_applications_and_their_internal_topics_are_told_apart() -> None:
    # A classic Kafka Streams application (assignor `stream`) reading `orders` and its
    # own repartition topic, a KIP-1071 one reading `orders`, and a plain group whose
    # name prefixes a topic: only an application's own topics are its internal ones.
    rows = [
        {"group_id": "wordcount", "topic": "orders", "strategy": "stream", "members": 2},
        {
            "group_id": "wordcount",
            "topic": "wordcount-KSTREAM-AGGREGATE-0000000003-repartition",
            "strategy": "stream",
            "members": 2,
        },
        {
            "group_id": "fraud",
            "topic": "orders",
            "strategy": "sticky",
            "members": 3,
            "protocol": "streams",
            "stream_threads": 4,
        },
        {"group_id": "audit", "topic": "orders", "strategy": "range", "members": 1},
    ]
    names = [
        "orders",
        "wordcount-KSTREAM-AGGREGATE-0000000003-repartition",
        "wordcount-counts-changelog",
        "fraud-scores-changelog",
        "audit-trail-changelog",
    ]
    topics = _table(
        "topics",
        [{"topic": n, "partitions": 6, "replication_factor": 1, "keyed": True} for n in names],
    )
    capacity = _table("capacity", [_cap("*", (8.0, None), (1.0, None), "fleet")])
    facts = {f["topic"]: f for f in topic_facts(topics, capacity=capacity, groups=_groups(rows))}
    assert facts["orders"]["streams_readers"] == ["fraud", "wordcount"]
    # A one-topic application's threads per instance reach the core with its group.
    fraud = next(g for g in facts["orders"]["groups"] if g["group_id"] == "fraud")
    assert fraud["stream_threads"] == 4
    assert facts["orders"]["streams_internal"] is None
    assert facts["wordcount-KSTREAM-AGGREGATE-0000000003-repartition"]["streams_internal"] == (
        "wordcount",
        "repartition",
    )
    assert facts["wordcount-counts-changelog"]["streams_internal"] == ("wordcount", "changelog")
    assert facts["fraud-scores-changelog"]["streams_internal"] == ("fraud", "changelog")
    # `audit` is no Kafka Streams application: its name proves nothing.
    assert facts["audit-trail-changelog"]["streams_internal"] is None


def test_a_streams_group_carries_its_changelogs_and_standby_replicas() -> None:
    # `fraud` gives num.standby.replicas; its changelog's observed rate travels with its
    # group, and an unsampled changelog has none (unknown, not 0). `audit` gets nothing.
    rows = [
        {
            "group_id": "fraud",
            "topic": "orders",
            "strategy": "sticky",
            "members": 3,
            "protocol": "streams",
            "standby_replicas": 1,
        },
        {"group_id": "audit", "topic": "orders", "strategy": "range", "members": 1},
    ]
    names = {"orders": 6, "fraud-scores-changelog": 6, "fraud-totals-changelog": 3}
    topics = _table(
        "topics",
        [
            {"topic": n, "partitions": p, "replication_factor": 1, "keyed": True}
            for n, p in names.items()
        ],
    )
    capacity = _table("capacity", [_cap("*", (8.0, None), (1.0, None), "fleet")])
    groups = _groups(rows)
    assert changelog_topics(topics, groups) == ["fraud-scores-changelog", "fraud-totals-changelog"]
    facts = {
        f["topic"]: f
        for f in topic_facts(
            topics,
            capacity=capacity,
            groups=groups,
            changelog_rates={"fraud-scores-changelog": (2048.0, 12)},
        )
    }
    by_id = {g["group_id"]: g for g in facts["orders"]["groups"]}
    assert by_id["fraud"]["standby_replicas"] == 1
    assert by_id["fraud"]["changelogs"] == [
        {
            "topic": "fraud-scores-changelog",
            "partitions": 6,
            "bytes_in_per_s": 2048.0,
            "samples": 12,
        },
        {"topic": "fraud-totals-changelog", "partitions": 3, "bytes_in_per_s": None, "samples": 0},
    ]
    assert "changelogs" not in by_id["audit"] and "standby_replicas" not in by_id["audit"]


_NAMES = st.text(string.ascii_lowercase[:4], min_size=1, max_size=3)


@settings(max_examples=60, deadline=None)
@given(names=st.sets(_NAMES, max_size=30), bounds=st.lists(_NAMES, max_size=5, unique=True))
def test_each_topic_s_facts_go_to_the_one_unit_whose_range_holds_it(
    names: set[str], bounds: list[str]
) -> None:
    edges: list[str | None] = [None, *sorted(bounds), None]
    units = [Unit(i, lo, hi, (), ()) for i, (lo, hi) in enumerate(itertools.pairwise(edges))]
    facts = [{"topic": n} for n in sorted(names)]
    packed = by_unit(facts, units)
    assert sorted(packed) == [u.unit for u in units]
    found = [f["topic"] for u in units for f in unit_facts(packed[u.unit])]
    assert found == sorted(names)  # each once, in unit (name) order
    for u in units:
        for f in unit_facts(packed[u.unit]):
            assert u.owns(f["topic"])


def test_the_set_aside_rule_reads_the_same_rows_through_arrow_and_spark(
    spark: SparkSession, tmp_path: Path
) -> None:
    """`snapshot` (PyArrow, the jobs' facts) and `table` (Spark) leave out the same rows:
    a set-aside topic's own rows, illegal names, a bad group whole; a set-aside topic's
    rows in other groups stay, and the default `*` capacity row is never left out."""
    tables = {"throughput": throughput_rows(RUN_DAY), **snapshot_tables()}
    write_interval(tmp_path, DataInterval.day(RUN_DAY), tables)
    run = locate_run(tmp_path, "2026-11-21", lookback_days=30)
    group_rows = tables["groups"].to_pylist()
    set_aside_topic = group_rows[0]["topic"]
    bad_group = next(r["group_id"] for r in group_rows if r["topic"] != set_aside_topic)
    aside = SetAside(
        run.key,
        topics=(SetAsideTopic(set_aside_topic, "a reason"),),
        groups=(bad_group,),
        dropped=("bad name!",),
    )
    fenced = run.without(aside)
    for name in ("topics", "capacity", "groups", "cluster"):
        through_arrow = fenced.snapshot(name).to_pylist()
        through_spark = [r.asDict() for r in fenced.table(spark, name).collect()]
        assert through_arrow == through_spark, name
    kept_groups = fenced.snapshot("groups").to_pylist()
    assert bad_group not in {r["group_id"] for r in kept_groups}
    assert len(kept_groups) < len(group_rows)
    topics_left = {r["topic"] for r in fenced.snapshot("topics").to_pylist()}
    assert set_aside_topic not in topics_left
    assert "*" in {r["topic"] for r in fenced.snapshot("capacity").to_pylist()}
    assert len(run.snapshot("topics")) == tables["topics"].num_rows


def test_the_snapshot_of_a_table_the_run_lacks_is_empty_with_its_schema(tmp_path: Path) -> None:
    tables = {"throughput": throughput_rows(RUN_DAY), **snapshot_tables()}
    del tables["groups"]
    write_interval(tmp_path, DataInterval.day(RUN_DAY), tables)
    run = locate_run(tmp_path, date(2026, 11, 21).isoformat(), lookback_days=30)
    groups = run.planned_groups()
    assert groups.num_rows == 0
    assert groups.schema == TABLES["groups"].schema


def test_topic_facts_carry_the_replicas_and_the_racks_of_the_brokers_they_name() -> None:
    topics = _table(
        "topics",
        [
            {
                "topic": "a",
                "partitions": 2,
                "replication_factor": 2,
                "keyed": False,
                "replicas": "1:4,4:1",
            },
            {"topic": "b", "partitions": 1, "replication_factor": 1, "keyed": False},
        ],
    )
    cluster = _table(
        "cluster",
        [{"broker_id": 1, "rack": "a"}, {"broker_id": 2, "rack": "b"}, {"broker_id": 3}],
    )
    capacity = _table("capacity", [_cap("*", (8.0, None), (1.0, None), "fleet")])
    a, b = topic_facts(topics, capacity=capacity, groups=_groups([]), cluster=cluster)
    # Broker 4 holds replicas but the cluster table does not list it: no rack known.
    assert a["replicas"] == "1:4,4:1"
    assert a["broker_racks"] == [{"broker_id": 1, "rack": "a"}, {"broker_id": 4, "rack": None}]
    assert (b["replicas"], b["broker_racks"]) == (None, [])


def test_a_replicas_text_the_parser_refuses_gives_no_replicas_not_an_error() -> None:
    # Collection refuses it; a dataset written another way must not stop the run.
    topics = _table(
        "topics",
        [
            {
                "topic": "a",
                "partitions": 1,
                "replication_factor": 2,
                "keyed": False,
                "replicas": "1:1",
            }
        ],
    )
    capacity = _table("capacity", [_cap("*", (8.0, None), (1.0, None), "fleet")])
    (a,) = topic_facts(topics, capacity=capacity, groups=_groups([]))
    assert (a["replicas"], a["broker_racks"]) == (None, [])


def test_changelog_rates_are_the_mean_bytes_in_of_the_run_s_samples(tmp_path: Path) -> None:
    # Two days of history: the changelog's rate is the mean over both; a topic without
    # samples is left out (unknown), never 0.
    from spark_jobs.size_partitions import changelog_rates

    samples = throughput_rows(RUN_DAY)
    (name,) = samples.column("topic").unique().to_pylist()[:1]
    for day in (RUN_DAY - timedelta(days=1), RUN_DAY):
        write_interval(
            tmp_path,
            DataInterval.day(day),
            {"throughput": throughput_rows(day), **snapshot_tables()},
        )
    run = locate_run(tmp_path, RUN_DAY.isoformat(), lookback_days=2)
    rates = changelog_rates(run, [name, "nobody-x-changelog"])
    mine = [
        r["bytes_in_per_s"]
        for day in (RUN_DAY - timedelta(days=1), RUN_DAY)
        for r in throughput_rows(day).to_pylist()
        if r["topic"] == name
    ]
    assert set(rates) == {name}
    rate, n = rates[name]
    assert n == len(mine) == 48
    assert rate == pytest.approx(sum(mine) / len(mine), rel=1e-12)
    assert changelog_rates(run, []) == {}
