"""The jobs' DataFrame -> DataFrame transforms, on small inline frames."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql import DataFrame, SparkSession
from pyspark.testing import assertDataFrameEqual

from spark_jobs.planning import sizing_row
from spark_jobs.recommend import multi_topic_plans, recommendations
from spark_jobs.schemas import SIMULATIONS, SIZING, figures_schema
from spark_jobs.settings import JobSettings
from spark_jobs.simulate_assignments import (
    group_inputs,
    group_rows,
    multi_topic_groups,
    plan_groups,
    simulation_inputs,
    simulations_output,
)
from spark_jobs.simulation import simulate_topics
from spark_jobs.size_partitions import key_rows, throughput_mib
from tests.spark_jobs import arrow_inputs as ai

MIB = float(2**20)
TS = datetime(2026, 11, 21, tzinfo=UTC)


def _figures(spark: SparkSession, table: str, rows: list[dict[str, Any]]) -> DataFrame:
    schema = figures_schema(table)
    return spark.createDataFrame(
        [tuple(row.get(f.name) for f in schema.fields) for row in rows], schema
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
        [("a", TS, 3.0, 10.0, 6.0, None), ("b", TS, 0.5, 1.0, None, None)],
        "topic string, ts timestamp, mib_in double, records_in double, mib_out double, "
        "mib_out_busiest double",
    )
    assertDataFrameEqual(throughput_mib(df), expected)


GROUPS = [
    {"group_id": "solo", "topic": "a", "strategy": "range", "members": 2},
    {"group_id": "pair", "topic": "a", "strategy": "roundrobin", "members": 5},
    {"group_id": "pair", "topic": "b", "strategy": "roundrobin", "members": 5},
    {"group_id": "also", "topic": "a", "strategy": "sticky", "members": 1},
]


def test_multi_topic_groups_are_the_groups_with_several_topics(spark: SparkSession) -> None:
    groups = _figures(spark, "groups", GROUPS)
    expected = spark.createDataFrame(
        [
            ("pair", "a", "roundrobin", 5, None, None, None, None),
            ("pair", "b", "roundrobin", 5, None, None, None, None),
        ],
        "group_id string, topic string, strategy string, members int, protocol string, "
        "client_rack string, consumer_records_per_s double, capacity_source string",
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
        "topic", "simulate_counts", "largest_group", "partition_loads"
    )
    counts = {
        r["topic"]: sorted(c["partitions"] for c in r["candidates"] if c["simulated"])
        for r in sized.collect()
    }
    expected = spark.createDataFrame(
        [("a", counts["a"], 5, None), ("b", counts["b"], 5, None)],
        "topic string, simulate_counts array<int>, largest_group int, "
        "partition_loads array<struct<partitions:int,loads:array<double>>>",
    )
    assertDataFrameEqual(got, expected)


def test_write_simulations_writes_every_grid_row_and_group_row_once(
    spark: SparkSession, sized: DataFrame, tmp_path: Path
) -> None:

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


def _recommend(sized: DataFrame, results: DataFrame) -> dict[str, dict[str, Any]]:
    # The recommendations as the job's task makes them, from the frames' rows.
    table = recommendations(sized.toArrow(), multi_topic_plans(results.toArrow()))
    assert table.column_names[:8] == [
        "run",
        "topic",
        "status",
        "status_detail",
        "recommended_consumers",
        "standby_consumers",
        "consumers_group_id",
        "strategy",
    ]
    return {r["topic"]: r for r in table.to_pylist()}


def test_recommend_picks_the_largest_group_and_keeps_every_group(
    spark: SparkSession, sized: DataFrame
) -> None:
    groups = _figures(spark, "groups", GROUPS)
    results = plan_groups(
        group_inputs(multi_topic_groups(groups), sized), run="r", settings=JobSettings()
    )
    rows = _recommend(sized, results)
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
    assert a["standby_consumers"] == 0 and c["standby_consumers"] is None


def test_recommend_without_groups_sizes_one_group(spark: SparkSession, sized: DataFrame) -> None:
    no_groups = _figures(spark, "groups", [])
    lonely = sized.where("topic = 'b'")
    results = plan_groups(
        group_inputs(multi_topic_groups(no_groups), lonely),
        run="r",
        settings=JobSettings(),
    )
    (row,) = _recommend(lonely, results).values()
    assert row["groups"] == []
    assert row["consumers_group_id"] is None
    assert row["recommended_consumers"] == row["one_group_members"] >= 1
    assert row["rationale"][-1].startswith("consumers: no consumer group with a plan reads")


def test_a_one_partition_topic_s_consumers_include_a_standby(spark: SparkSession) -> None:
    # One partition and the default min_group_members = 2: a group of 3 is told 2, one
    # of them standing by. A topic no group reads has no group to keep a standby for: it
    # is told what its load needs, 1, none standing by (issue 38: "2, standby 1" for
    # nobody's consumers was not true).
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
    out = _recommend(sized, results)
    one = out["one"]
    assert (one["recommended_partitions"], one["recommended_consumers"]) == (1, 2)
    assert one["standby_consumers"] == 1
    assert one["rationale"][-1].endswith(
        "; 1 of them owns no partition and stands by to take over from a member that "
        "fails (min_group_members)"
    )
    lone = out["lone"]
    assert (lone["recommended_partitions"], lone["recommended_consumers"]) == (1, 1)
    assert lone["standby_consumers"] == 0
    assert lone["rationale"][-1].startswith(
        "consumers: no consumer group with a plan reads the topic; one group reading only "
        "it would need 1 member today"
    )
    assert "stands by" not in lone["rationale"][-1]
    (group,) = out["one"]["groups"]
    assert (group["status"], group["recommended_members"], group["standby_members"]) == (
        "over-provisioned",
        2,
        1,
    )
    assert out["lone"]["one_group_standby"] == 0

    # The grids reach the floor however high it is set.
    def floor_of_seven(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        return simulate_topics(batches, run="r", headroom_pct=30.0, min_group_members=7)

    high = simulation_inputs(sized, readers).mapInArrow(floor_of_seven, SIMULATIONS).collect()
    past = {r["topic"]: 0 for r in high}
    for r in high:
        past[r["topic"]] = max(past[r["topic"]], r["members"] - r["partitions"])
    assert past == {"one": 7, "lone": 7}
