"""The jobs' DataFrame -> DataFrame transforms, on small inline frames."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.testing import assertDataFrameEqual

from spark_jobs.planning import sizing_row
from spark_jobs.schemas import SIZING, figures_schema
from spark_jobs.settings import JobSettings
from spark_jobs.simulate_assignments import (
    group_inputs,
    group_rows,
    multi_topic_groups,
    plan_groups,
    recommend,
    simulation_inputs,
    simulations_output,
)
from spark_jobs.size_partitions import (
    capacity_for_topics,
    group_facts,
    key_rows,
    throughput_mib,
)
from tests.spark import arrow_inputs as ai

MIB = float(2**20)
TS = datetime(2026, 11, 21, tzinfo=UTC)


def _figures(spark: SparkSession, table: str, rows: list[dict[str, Any]]) -> DataFrame:
    schema = figures_schema(table)
    return spark.createDataFrame(
        [tuple(row.get(f.name) for f in schema.fields) for row in rows], schema
    )


def _topics(spark: SparkSession, *names: str) -> DataFrame:
    return _figures(
        spark,
        "topics",
        [{"topic": n, "partitions": 3, "replication_factor": 1, "keyed": False} for n in names],
    )


def test_throughput_mib_converts_bytes_to_mebibytes(spark: SparkSession) -> None:
    df = _figures(
        spark,
        "throughput",
        [
            {
                "topic": "a",
                "ts": TS,
                "bytes_in_per_s": 3 * MIB,
                "records_in_per_s": 10.0,
                "bytes_out_per_s": 6 * MIB,
                "source": "s",
            },
            {
                "topic": "b",
                "ts": TS,
                "bytes_in_per_s": 512.0 * 1024,
                "records_in_per_s": 1.0,
                "bytes_out_per_s": None,
                "source": "s",
            },
        ],
    )
    expected = spark.createDataFrame(
        [("a", TS, 3.0, 10.0, 6.0), ("b", TS, 0.5, 1.0, None)],
        "topic string, ts timestamp, mib_in double, records_in double, mib_out double",
    )
    assertDataFrameEqual(throughput_mib(df), expected)


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


CAPACITY_COLUMNS = (
    "topic string, tp_mib_per_s double, tp_records_per_s double, tp_source string, "
    "tp_measured_by string, tp_record_bytes double, tc_mib_per_s double, "
    "tc_records_per_s double, tc_source string, tc_measured_by string, tc_record_bytes double, "
    "sf_mib_per_s double, sf_records_per_s double"
)
NO_SHARE_FETCH = (None, None)


def test_capacity_falls_back_to_the_default_one_side_at_a_time(spark: SparkSession) -> None:
    capacity = _figures(
        spark,
        "capacity",
        [
            _cap("*", (8.0, 16_000.0), (1.0, 2_000.0), "fleet", 1024.0),
            _cap("own", (10.0, 20_000.0), (2.0, 4_000.0), "perf-own", 512.0),
            _cap("consumer-only", (None, None), (3.0, None), "perf-c", 100.0),
            _cap("records-only", (None, 9_000.0), (None, None), "perf-r"),
        ],
    )
    topics = _topics(spark, "own", "consumer-only", "records-only", "none")
    # Each side's record size comes from the row the side came from. A side's columns:
    # MiB/s, records/s, where from, measured by, record bytes.
    own_side = (10.0, 20_000.0, "topic", "perf-own", 512.0)
    own_side_c = (2.0, 4_000.0, "topic", "perf-own", 512.0)
    fleet_p = (8.0, 16_000.0, "*", "fleet", 1024.0)
    fleet_c = (1.0, 2_000.0, "*", "fleet", 1024.0)
    expected = spark.createDataFrame(
        [
            ("own", *own_side, *own_side_c, *NO_SHARE_FETCH),
            ("consumer-only", *fleet_p, 3.0, None, "topic", "perf-c", 100.0, *NO_SHARE_FETCH),
            # The topic's own producer side is taken whole: its MiB/s stays unknown
            # rather than borrowing the default's, measured on other records.
            ("records-only", None, 9_000.0, "topic", "perf-r", None, *fleet_c, *NO_SHARE_FETCH),
            ("none", *fleet_p, *fleet_c, *NO_SHARE_FETCH),
        ],
        CAPACITY_COLUMNS,
    )
    assertDataFrameEqual(capacity_for_topics(topics, capacity), expected)


def test_without_a_default_a_topic_without_figures_has_none(spark: SparkSession) -> None:
    capacity = _figures(spark, "capacity", [_cap("own", (10.0, None), (2.0, None), "p")])
    expected = spark.createDataFrame(
        [
            ("own", 10.0, None, "topic", "p", None, 2.0, None, "topic", "p", None, None, None),
            ("none", *(None,) * 12),
        ],
        CAPACITY_COLUMNS,
    )
    assertDataFrameEqual(capacity_for_topics(_topics(spark, "own", "none"), capacity), expected)


def test_share_fetch_is_taken_whole_from_the_topics_row_or_the_default(
    spark: SparkSession,
) -> None:
    capacity = _figures(
        spark,
        "capacity",
        [
            _cap("*", (8.0, None), (1.0, None), "fleet", share_fetch=(20.0, 40_000.0)),
            _cap("own", (10.0, None), (2.0, None), "perf", share_fetch=(None, 9_000.0)),
        ],
    )
    rows = capacity_for_topics(_topics(spark, "own", "none"), capacity).collect()
    found = {r["topic"]: (r["sf_mib_per_s"], r["sf_records_per_s"]) for r in rows}
    assert found == {"own": (None, 9_000.0), "none": (20.0, 40_000.0)}


GROUPS = [
    {"group_id": "solo", "topic": "a", "strategy": "range", "members": 2},
    {"group_id": "pair", "topic": "a", "strategy": "roundrobin", "members": 5},
    {"group_id": "pair", "topic": "b", "strategy": "roundrobin", "members": 5},
    {"group_id": "also", "topic": "a", "strategy": "sticky", "members": 1},
]


def test_group_facts_keep_one_topic_groups_and_count_every_reader(spark: SparkSession) -> None:
    groups = _figures(spark, "groups", GROUPS).fillna({"protocol": "classic"})
    expected = spark.createDataFrame(
        [
            ("a", [("also", "sticky", 1, "classic"), ("solo", "range", 2, "classic")], 3, 0, 5),
            ("b", [], 1, 0, 5),
        ],
        "topic string, groups array<struct<group_id:string,strategy:string,members:int,"
        "protocol:string>>, consuming_groups int, share_groups int, max_members int",
    )
    assertDataFrameEqual(group_facts(groups), expected)


def test_share_groups_are_counted_apart_among_the_readers(spark: SparkSession) -> None:
    """A share group reads the topic's bytes (it counts in `consuming_groups`, the
    fan-out) and its members are not capped by the partitions (`share_groups`, which
    `plan_topic` sizes the topic's partitions by); one reading several topics is
    planned apart but counts on each."""
    share = {"group_id": "workers", "topic": "b", "strategy": "simple", "members": 9}
    also = {"group_id": "spread", "strategy": "simple", "members": 2, "protocol": "share"}
    rows = [*GROUPS, {**share, "protocol": "share"}, {**also, "topic": "a"}, {**also, "topic": "b"}]
    groups = _figures(spark, "groups", rows).fillna({"protocol": "classic"})
    found = {r["topic"]: r for r in group_facts(groups).collect()}
    assert (found["b"]["consuming_groups"], found["b"]["share_groups"]) == (3, 2)
    assert [g["group_id"] for g in found["b"]["groups"]] == ["workers"]
    assert (found["a"]["consuming_groups"], found["a"]["share_groups"]) == (4, 1)


def test_multi_topic_groups_are_the_groups_with_several_topics(spark: SparkSession) -> None:
    groups = _figures(spark, "groups", GROUPS)
    expected = spark.createDataFrame(
        [("pair", "a", "roundrobin", 5, None), ("pair", "b", "roundrobin", 5, None)],
        "group_id string, topic string, strategy string, members int, protocol string",
    )
    assertDataFrameEqual(multi_topic_groups(groups), expected)


def test_key_rows_turn_text_and_hex_keys_into_bytes(spark: SparkSession) -> None:
    keys = _figures(
        spark,
        "keys",
        [
            {"topic": "t", "key": "ab", "count": 2.0},
            {"topic": "t", "key_hex": "6162", "count": 3.0},  # the same bytes as "ab"
            {"topic": "t", "key_hex": "00ff", "count": 1.0},
            {"topic": "t", "count": 4.0},  # the null key
        ],
    )
    expected = spark.createDataFrame(
        [("t", b"ab", 2.0), ("t", b"ab", 3.0), ("t", b"\x00\xff", 1.0), ("t", None, 4.0)],
        "topic string, key binary, count double",
    )
    assertDataFrameEqual(key_rows(keys), expected)


def _sizing(spark: SparkSession, rows: list[dict[str, Any]]) -> DataFrame:
    names = [f.name for f in SIZING.fields]
    return spark.createDataFrame([tuple(r[n] for n in names) for r in rows], SIZING)


@pytest.fixture(scope="module")
def sized(spark: SparkSession) -> DataFrame:
    """Three topics sized by the pure function: a and b planned, c without Tc."""
    settings = JobSettings()
    rows = [
        sizing_row(
            "a",
            ai.hourly("a", mib=4.0),
            ai.facts(
                "a",
                partitions=3,
                groups=[("solo", "range", 2), ("also", "sticky", 1)],
                consuming_groups=3,
            ),
            run="r",
            brokers=3,
            settings=settings,
        ),
        sizing_row(
            "b",
            ai.hourly("b", mib=1.0),
            ai.facts("b", partitions=2, consuming_groups=1),
            run="r",
            brokers=3,
            settings=settings,
        ),
        sizing_row(
            "c",
            ai.hourly("c"),
            ai.facts("c", tc_mib_per_s=None, tc_records_per_s=None),
            run="r",
            brokers=3,
            settings=settings,
        ),
    ]
    return _sizing(spark, rows)


def test_simulation_inputs_list_planned_topics_and_their_counts(
    spark: SparkSession, sized: DataFrame
) -> None:
    groups = _figures(spark, "groups", GROUPS)
    got = simulation_inputs(sized, groups).select(
        "topic", "simulate_counts", "extra_members", "partition_loads"
    )
    counts = {
        r["topic"]: sorted(c["partitions"] for c in r["candidates"] if c["simulated"])
        for r in sized.collect()
    }
    expected = spark.createDataFrame(
        [("a", counts["a"], 5, None), ("b", counts["b"], 5, None)],
        "topic string, simulate_counts array<int>, extra_members int, "
        "partition_loads array<struct<partitions:int,loads:array<double>>>",
    )
    assertDataFrameEqual(got, expected)


def test_write_simulations_writes_every_grid_row_and_group_row_once(
    spark: SparkSession, sized: DataFrame, tmp_path: Path
) -> None:
    from collections.abc import Iterator

    import pyarrow as pa

    from spark_jobs.outputs import write_run
    from spark_jobs.schemas import SIMULATIONS
    from spark_jobs.simulation import simulate_topics

    settings = JobSettings()
    groups = _figures(spark, "groups", GROUPS)
    inputs = simulation_inputs(sized, groups)
    results = plan_groups(
        group_inputs(multi_topic_groups(groups), sized), run="r", settings=settings
    )
    output = simulations_output(inputs, results, run="r", settings=settings)
    folder = write_run({"simulations": output}, tmp_path, "r")["simulations"]

    def grids(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return simulate_topics(batches, run="r", headroom_pct=settings.planning.headroom_pct)

    expected = inputs.mapInArrow(grids, SIMULATIONS).unionByName(group_rows(results))
    got = spark.read.schema(SIMULATIONS).parquet(str(folder))
    assert expected.count() > 0
    assert set(r["scope"] for r in got.select("scope").distinct().collect()) == {"topic", "group"}
    assertDataFrameEqual(got, expected)


def test_recommend_picks_the_largest_group_and_keeps_every_group(
    spark: SparkSession, sized: DataFrame
) -> None:
    groups = _figures(spark, "groups", GROUPS)
    results = plan_groups(
        group_inputs(multi_topic_groups(groups), sized), run="r", settings=JobSettings()
    )
    out = recommend(sized, results)
    rows = {r["topic"]: r for r in out.collect()}
    a = rows["a"]
    members = {g["group_id"]: g["recommended_members"] for g in a["groups"]}
    assert sorted(members) == ["also", "pair", "solo"]
    top = max(members.values())
    assert a["recommended_consumers"] == top
    assert a["consumers_group_id"] == min(g for g, m in members.items() if m == top)
    assert a["rationale"][-1].startswith(f"consumers: {top}, the recommended size of group")
    b = rows["b"]
    assert [g["group_id"] for g in b["groups"]] == ["pair"]
    assert b["consumers_group_id"] == "pair"
    assert b["strategy"] == b["groups"][0]["strategy"]
    c = rows["c"]
    assert c["status"] == "missing-capacity"
    assert c["recommended_consumers"] is None and c["strategy"] is None
    assert c["warnings"][0].startswith("no consumer capacity (Tc)")
    assert out.columns[:8] == [
        "run",
        "topic",
        "status",
        "status_detail",
        "recommended_consumers",
        "standby_consumers",
        "consumers_group_id",
        "strategy",
    ]
    assert a["standby_consumers"] == 0 and c["standby_consumers"] is None


def test_recommend_without_groups_sizes_one_group(spark: SparkSession, sized: DataFrame) -> None:
    no_groups = _figures(spark, "groups", [])
    lonely = sized.where("topic = 'b'")
    results = plan_groups(
        group_inputs(multi_topic_groups(no_groups), lonely),
        run="r",
        settings=JobSettings(),
    )
    row = recommend(lonely, results).collect()[0]
    assert row["groups"] == []
    assert row["consumers_group_id"] is None
    assert row["recommended_consumers"] == row["one_group_members"] >= 1
    assert row["rationale"][-1].startswith("consumers: no consumer group with a plan reads")


def test_a_one_partition_topic_s_consumers_include_a_standby(spark: SparkSession) -> None:
    # One partition and the default min_group_members = 2: a group of 3 is told 2, one
    # of them standing by; so is a topic no group reads.
    settings = JobSettings()
    rows = [
        sizing_row(
            topic,
            ai.hourly(topic, mib=0.1),
            ai.facts(topic, partitions=1, groups=groups),
            run="r",
            brokers=3,
            settings=settings,
        )
        for topic, groups in (("one", [("dash", "range", 3)]), ("lone", []))
    ]
    sized = _sizing(spark, rows)
    readers = _figures(
        spark, "groups", [{"group_id": "dash", "topic": "one", "strategy": "range", "members": 3}]
    )
    results = plan_groups(
        group_inputs(multi_topic_groups(readers), sized), run="r", settings=settings
    )
    out = {r["topic"]: r for r in recommend(sized, results).collect()}
    for topic in ("one", "lone"):
        row = out[topic]
        assert (row["recommended_partitions"], row["recommended_consumers"]) == (1, 2), topic
        assert row["standby_consumers"] == 1, topic
        assert row["rationale"][-1].endswith(
            "; 1 of them owns no partition and stands by to take over from a member that "
            "fails (min_group_members)"
        ), topic
    (group,) = out["one"]["groups"]
    assert (group["status"], group["recommended_members"], group["standby_members"]) == (
        "over-provisioned",
        2,
        1,
    )
    assert out["lone"]["one_group_standby"] == 1
    # The grids reach the floor however high it is set.
    high = simulation_inputs(sized, readers, min_group_members=7).collect()
    assert {r["topic"]: r["extra_members"] for r in high} == {"one": 7, "lone": 7}
