"""The input suites on real Spark frames: good figures pass, each broken rule fails alone.

A bad frame breaks several rules in different rows; the test asserts that exactly those
expectations fail (the set of failed keys), so one validation checks many rules and that
no other rule fires by mistake.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from expectations.validate import ValidationFailed, ValidationReport, validate
from tests.expectations.conftest import figures_frame

# Each module starts a Spark session (about 10 s) before its first validation.
pytestmark = pytest.mark.slow

T0 = datetime(2026, 11, 21, tzinfo=UTC)
HOUR = timedelta(hours=1)
BETWEEN = "expect_column_values_to_be_between"
NOT_NULL = "expect_column_values_to_not_be_null"
IN_SET = "expect_column_values_to_be_in_set"
REGEX = "expect_column_values_to_match_regex"
NOT_IN_SET = "expect_column_values_to_not_be_in_set"
UNIQUE = "expect_column_values_to_be_unique"
COMPOUND_UNIQUE = "expect_compound_columns_to_be_unique"
QUERY = "unexpected_rows_expectation"


def failed(report: ValidationReport) -> set[tuple[str, str]]:
    return {o.key for o in report.failures}


def sample(topic: str, hour: int, **overrides: Any) -> dict[str, Any]:
    row = {
        "topic": topic,
        "ts": T0 + hour * HOUR,
        "bytes_in_per_s": 1_048_576.0 * (1 + hour),
        "records_in_per_s": 1000.0 + hour,
        "bytes_out_per_s": 2_097_152.0,
        "source": "landing:/data/throughput/a.csv",
    }
    return {**row, **overrides}


# --- throughput.input ---------------------------------------------------------------


@pytest.fixture(scope="module")
def throughput_bad(spark: Any) -> ValidationReport:
    rows = [
        sample("orders", 0),
        sample("orders", 1, bytes_in_per_s=float("nan")),
        sample("orders", 2, records_in_per_s=float("inf")),
        sample("orders", 3, bytes_out_per_s=-1.0),
        sample("bad topic!", 0),
        sample("evil\n<b>topic</b>", 0),
        sample("..", 0),
        sample("payments", 0),
        sample("payments", 0, bytes_in_per_s=5.0),
        sample("audit", 0, source=None),
        # An optional rate may be missing: not a failure.
        sample("audit", 1, bytes_out_per_s=None),
    ]
    return validate(figures_frame(spark, "throughput", rows), "throughput.input")


def test_throughput_good_passes(spark: Any) -> None:
    rows = [sample(t, h) for t in ("orders", "payments.v2", "a_b-c") for h in range(3)]
    report = validate(figures_frame(spark, "throughput", rows), "throughput.input")
    assert report.success, report.message()
    assert len(report.outcomes) == 21
    report.raise_for_failure()


def test_throughput_bad_fails_on_exactly_the_broken_rules(throughput_bad: ValidationReport) -> None:
    assert not throughput_bad.success
    assert failed(throughput_bad) == {
        (BETWEEN, "bytes_in_per_s"),
        (BETWEEN, "records_in_per_s"),
        (BETWEEN, "bytes_out_per_s"),
        (REGEX, "topic"),
        (NOT_IN_SET, "topic"),
        (COMPOUND_UNIQUE, "topic,ts"),
        (NOT_NULL, "source"),
    }


def test_throughput_bad_rows_are_named_by_topic_and_ts(throughput_bad: ValidationReport) -> None:
    duplicate = throughput_bad[COMPOUND_UNIQUE, "topic,ts"]
    assert duplicate.unexpected_count == 2
    assert {e["topic"] for e in duplicate.examples} == {"payments"}
    assert {e["topic"] for e in throughput_bad[REGEX, "topic"].examples} == {
        "bad topic!",
        "evil\n<b>topic</b>",
    }
    out = throughput_bad[BETWEEN, "bytes_out_per_s"]
    assert out.unexpected_count == 1
    # Spark hands timestamps back as naive datetimes in the local time zone.
    local = datetime.fromtimestamp((T0 + 3 * HOUR).timestamp())
    assert out.examples == ({"topic": "orders", "ts": local, "bytes_out_per_s": -1.0},)
    # NaN and infinity are caught by the same finite-number rule as a negative rate.
    assert throughput_bad[BETWEEN, "bytes_in_per_s"].unexpected_count == 1
    assert throughput_bad[BETWEEN, "records_in_per_s"].unexpected_count == 1


def test_failure_message_names_suite_expectations_and_examples(
    throughput_bad: ValidationReport,
) -> None:

    message = throughput_bad.message()
    assert message.startswith("suite throughput.input failed 7 of 21 expectations:")
    assert "expect_compound_columns_to_be_unique on topic,ts: one row per (topic, ts)" in message
    assert "2 of 11 rows" in message
    assert "'bad topic!'" in message
    # A name that breaks the rule is quoted, so it cannot break the message's lines.
    assert "'evil\\n<b>topic</b>'" in message
    lines = message.splitlines()
    assert len(lines) == 9
    assert all(line.startswith("  - ") for line in lines[1:-1])
    assert lines[-1].startswith("  topics involved: ")
    assert "payments" in lines[-1] and "'bad topic!'" in lines[-1]
    with pytest.raises(ValidationFailed) as caught:
        throughput_bad.raise_for_failure()
    assert str(caught.value) == message
    assert caught.value.report is throughput_bad
    summary = throughput_bad.summary()
    assert summary["failed"] == 7 and summary["evaluated"] == 21
    assert {f["target"] for f in summary["failures"]} >= {"topic,ts", "source"}


def test_throughput_empty_fails_only_on_row_count(spark: Any) -> None:
    report = validate(figures_frame(spark, "throughput", []), "throughput.input")
    assert failed(report) == {("expect_table_row_count_to_be_between", "table")}


def test_throughput_wrong_type_and_missing_column(spark: Any) -> None:
    from pyspark.sql import functions as F

    rows = [sample("orders", 0), sample("orders", 1)]
    df = figures_frame(spark, "throughput", rows)
    df = df.withColumn("records_in_per_s", F.col("records_in_per_s").cast("bigint"))
    report = validate(df.drop("source"), "throughput.input")
    assert failed(report) == {
        ("expect_table_columns_to_match_set", "table"),
        ("expect_column_values_to_be_of_type", "records_in_per_s"),
        ("expect_column_values_to_be_of_type", "source"),
        (NOT_NULL, "source"),
    }
    assert report["expect_table_columns_to_match_set", "table"].examples == (
        {"missing": ["source"]},
    )
    # A rule on a missing column cannot be evaluated: it fails with GX's reason.
    assert report[NOT_NULL, "source"].error
    assert "could not be evaluated" in report.message()


# --- topics.input ---------------------------------------------------------------------


def topic(name: str, **overrides: Any) -> dict[str, Any]:
    row = {
        "topic": name,
        "partitions": 12,
        "replication_factor": 3,
        "keyed": False,
        "partitioner": "murmur2_random",
        "retention_ms": 604_800_000,
        "source": "landing:/data/topics/t.csv",
    }
    return {**row, **overrides}


@pytest.fixture(scope="module")
def good_topics(spark: Any) -> Any:
    return figures_frame(
        spark,
        "topics",
        [topic("orders", keyed=True), topic("payments", retention_ms=None), topic("audit")],
    )


def test_topics_good_passes(good_topics: Any) -> None:
    report = validate(good_topics, "topics.input", broker_count=3)
    assert report.success, report.message()
    assert report.parameters == {"broker_count": 3, "min_coverage": 0.8}


def test_replication_factor_above_broker_count_fails(good_topics: Any) -> None:
    report = validate(good_topics, "topics.input", broker_count=2)
    assert failed(report) == {(BETWEEN, "replication_factor")}
    outcome = report[BETWEEN, "replication_factor"]
    assert outcome.unexpected_count == 3
    assert "broker_count=2" in report.message()


def test_topics_bad_fails_on_exactly_the_broken_rules(spark: Any) -> None:
    rows = [
        topic("orders"),
        topic("orders", partitions=24),
        topic("zero", partitions=0),
        topic("random", partitioner="random"),
        topic("unknown-keying", keyed=None),
        topic("negative-retention", retention_ms=-5),
        topic("x" * 250),
    ]
    report = validate(figures_frame(spark, "topics", rows), "topics.input", broker_count=3)
    assert failed(report) == {
        (UNIQUE, "topic"),
        (BETWEEN, "partitions"),
        (IN_SET, "partitioner"),
        (NOT_NULL, "keyed"),
        (BETWEEN, "retention_ms"),
        (REGEX, "topic"),
    }
    assert report[BETWEEN, "partitions"].examples == ({"topic": "zero", "partitions": 0},)


def test_parameters_are_checked_before_validating(good_topics: Any) -> None:
    with pytest.raises(ValueError, match=r"topics.input: parameters missing broker_count"):
        validate(good_topics, "topics.input")
    with pytest.raises(ValueError, match=r"at least 1, got 0 \(is the cluster table empty\?\)"):
        validate(good_topics, "topics.input", broker_count=0)
    with pytest.raises(ValueError, match=r"unknown brokers"):
        validate(good_topics, "topics.input", broker_count=3, brokers=3)
    with pytest.raises(ValueError, match=r"throughput.input: parameters unknown broker_count"):
        validate(good_topics, "throughput.input", broker_count=3)
    with pytest.raises(KeyError, match=r"no suite called 'topics.raw'"):
        validate(good_topics, "topics.raw")


def test_a_pandas_frame_is_refused() -> None:
    import pandas as pd

    with pytest.raises(TypeError, match=r"takes a Spark DataFrame, got pandas"):
        validate(pd.DataFrame({"topic": ["orders"]}), "throughput.input")


# --- capacity.input -------------------------------------------------------------------


FIGURES = (
    "producer_mib_per_s",
    "producer_records_per_s",
    "consumer_mib_per_s",
    "consumer_records_per_s",
)


def capacity(name: str, **overrides: Any) -> dict[str, Any]:
    row = {
        "topic": name,
        "producer_mib_per_s": 40.0,
        "producer_records_per_s": 40_000.0,
        "consumer_mib_per_s": 10.0,
        "consumer_records_per_s": 10_000.0,
        "record_bytes": 1024.0,
        "source": "perf:/data/perf/orders.producer.txt",
        "measured_at": T0,
    }
    return {**row, **overrides}


def test_capacity_good_passes(spark: Any) -> None:
    rows = [
        capacity("*"),
        capacity("orders", producer_records_per_s=None, consumer_records_per_s=None),
        capacity("payments", consumer_mib_per_s=None, record_bytes=None, measured_at=None),
        capacity("jobs", share_fetch_mib_per_s=30.0, share_fetch_records_per_s=30_000.0),
        # Share-fetch figures alone are a row's figure (Tp and Tc then come from `*`).
        capacity(
            "tasks",
            **dict.fromkeys(FIGURES),
            share_fetch_mib_per_s=None,
            share_fetch_records_per_s=5_000.0,
        ),
        # One group's own Tc on a topic that has its own row too.
        capacity(
            "orders",
            **{**dict.fromkeys(FIGURES), "consumer_records_per_s": 420.0},
            group_id="indexer",
        ),
    ]
    report = validate(figures_frame(spark, "capacity", rows), "capacity.input")
    assert report.success, report.message()


def test_capacity_empty_passes(spark: Any) -> None:
    # No capacity at all: each topic's recommendation says so; the run goes on.
    assert validate(figures_frame(spark, "capacity", []), "capacity.input").success


def test_capacity_bad_fails_on_exactly_the_broken_rules(spark: Any) -> None:
    none = dict.fromkeys(("producer_mib_per_s", "producer_records_per_s", "consumer_mib_per_s"))
    rows = [
        capacity("no-figure", **none, consumer_records_per_s=None),
        capacity("zero", producer_mib_per_s=0.0),
        capacity("negative", consumer_records_per_s=-1.0),
        capacity("share-zero", share_fetch_mib_per_s=0.0),
        capacity("share-inf", share_fetch_records_per_s=float("inf")),
        capacity("nan-size", record_bytes=float("nan")),
        capacity("a/b"),
        capacity("*"),
        capacity("*", producer_mib_per_s=50.0),
        # A group's row: Tc only, on a named topic.
        capacity("orders", group_id="indexer"),
        capacity("*", **{**dict.fromkeys(FIGURES), "consumer_records_per_s": 1.0}, group_id="any"),
    ]
    report = validate(figures_frame(spark, "capacity", rows), "capacity.input")
    assert failed(report) == {
        (QUERY, "capacity.has_figure"),
        (QUERY, "capacity.group_tc_only"),
        (BETWEEN, "producer_mib_per_s"),
        (BETWEEN, "consumer_records_per_s"),
        (BETWEEN, "share_fetch_mib_per_s"),
        (BETWEEN, "share_fetch_records_per_s"),
        (BETWEEN, "record_bytes"),
        (REGEX, "topic"),
        (COMPOUND_UNIQUE, "topic,group_id"),
    }
    assert sorted(
        (e["topic"], e["group_id"]) for e in report[QUERY, "capacity.group_tc_only"].examples
    ) == [("*", "any"), ("orders", "indexer")]
    no_figure = report[QUERY, "capacity.has_figure"]
    assert no_figure.unexpected_count == 1
    assert no_figure.examples == (
        {"topic": "no-figure", "source": "perf:/data/perf/orders.producer.txt"},
    )
    assert no_figure.topics == ("no-figure",)
    # Above zero is strict: 0 MiB/s is not a capacity.
    assert report[BETWEEN, "producer_mib_per_s"].examples[0]["producer_mib_per_s"] == 0.0


# --- groups.input ---------------------------------------------------------------------


def group(group_id: str, name: str, strategy: str = "range", **overrides: Any) -> dict[str, Any]:
    row = {"group_id": group_id, "topic": name, "strategy": strategy, "members": 4}
    return {**row, **overrides}


def test_groups_good_passes(spark: Any) -> None:
    rows = [
        group("billing", "orders", "cooperative-sticky"),
        group("billing", "payments", "cooperative-sticky"),
        group("audit", "orders", "roundrobin", members=0),
        group("search", "orders", "sticky", source=None),
        group("mobile", "orders", "uniform", protocol="consumer"),
        group("jobs", "orders", "simple", protocol="share", members=40),
        group("enricher", "orders", "stream"),
        group(
            "indexer",
            "orders",
            consumer_records_per_s=500.0,
            capacity_source="saturation",
            capacity_evidence="saturation 2026-11-20 09:00-11:00 UTC: 8 windows",
            lag_records=7_500_000,
            lag_seconds=3_000.0,
            lag_trend="growing",
        ),
        group("archiver", "orders", capacity_source="topic-default", lag_records=0),
    ]
    report = validate(figures_frame(spark, "groups", rows), "groups.input")
    assert report.success, report.message()


def test_a_group_s_own_capacity_and_lag_break_their_rules(spark: Any) -> None:
    rows = [
        group("zero", "orders", consumer_records_per_s=0.0, capacity_source="given"),
        group("unsourced", "orders", consumer_records_per_s=500.0),
        group("default", "orders", consumer_records_per_s=500.0, capacity_source="topic-default"),
        group("empty", "orders", capacity_source="saturation"),
        group("guessed", "orders", consumer_records_per_s=5.0, capacity_source="guess"),
        group("negative", "orders", lag_records=-1, lag_seconds=-0.5, lag_trend="rising"),
    ]
    report = validate(figures_frame(spark, "groups", rows), "groups.input")
    assert failed(report) == {
        (BETWEEN, "consumer_records_per_s"),
        (QUERY, "groups.capacity_has_source"),
        (IN_SET, "capacity_source"),
        (BETWEEN, "lag_records"),
        (BETWEEN, "lag_seconds"),
        (IN_SET, "lag_trend"),
    }
    unsourced = report[QUERY, "groups.capacity_has_source"].examples
    assert sorted(e["group_id"] for e in unsourced) == ["default", "empty", "unsourced"]


def test_groups_bad_fails_on_exactly_the_broken_rules(spark: Any) -> None:
    rows = [
        group("mixed", "orders", "range"),
        group("mixed", "payments", "sticky"),
        group("new-protocol", "orders", "uniform"),  # classic, by default
        group("queue", "orders", "simple", protocol="queue"),
        group("two-protocols", "orders", "range", protocol="consumer"),
        group("two-protocols", "payments", "range"),
        group("custom", "orders", "MyAssignor"),
        group("", "orders"),
        group("negative", "orders", members=-1),
        group("twice", "orders"),
        group("twice", "orders"),
    ]
    report = validate(figures_frame(spark, "groups", rows), "groups.input")
    assert failed(report) == {
        (QUERY, "groups.one_strategy"),
        (QUERY, "groups.protocol_assignor"),
        (IN_SET, "strategy"),
        (IN_SET, "protocol"),
        ("expect_column_value_lengths_to_be_between", "group_id"),
        (BETWEEN, "members"),
        (COMPOUND_UNIQUE, "group_id,topic"),
    }
    assert sorted(report[QUERY, "groups.one_strategy"].examples, key=lambda e: e["group_id"]) == [
        {"group_id": "mixed", "strategies": "classic range, classic sticky"},
        {"group_id": "two-protocols", "strategies": "classic range, consumer range"},
    ]
    wrong = report[QUERY, "groups.protocol_assignor"].examples
    assert sorted((e["group_id"], e["protocol"], e["strategy"]) for e in wrong) == [
        ("custom", "classic", "MyAssignor"),  # also outside every protocol's names
        ("new-protocol", "classic", "uniform"),
        ("queue", "queue", "simple"),  # also an unknown protocol
    ]


# --- keys.input -----------------------------------------------------------------------


def test_keys_good_passes(spark: Any) -> None:
    rows = [
        {"topic": "orders", "key": "customer-1", "count": 120.0},
        {"topic": "orders", "key": "customer-2", "count": 0.0},
        {"topic": "orders", "key_hex": "00ff10", "count": 3.0},
        {"topic": "payments", "key": "customer-1", "count": 7.5},
        # A record without a key is counted too.
        {"topic": "payments", "count": 2.0},
    ]
    assert validate(figures_frame(spark, "keys", rows), "keys.input").success


def test_keys_bad_fails_on_exactly_the_broken_rules(spark: Any) -> None:
    rows = [
        {"topic": "orders", "key": "k", "key_hex": "6b", "count": 1.0},
        {"topic": "orders", "key_hex": "xyz", "count": 1.0},
        {"topic": "orders", "key": "nan", "count": float("nan")},
        {"topic": "orders", "key": "twice", "count": 1.0},
        {"topic": "orders", "key": "twice", "count": 2.0},
    ]
    report = validate(figures_frame(spark, "keys", rows), "keys.input")
    assert failed(report) == {
        (QUERY, "keys.text_or_hex"),
        (REGEX, "key_hex"),
        (BETWEEN, "count"),
        (COMPOUND_UNIQUE, "topic,key,key_hex,hash_murmur2,hash_crc32,hash_fnv1a"),
    }
    unique = report[COMPOUND_UNIQUE, "topic,key,key_hex,hash_murmur2,hash_crc32,hash_fnv1a"]
    assert unique.unexpected_count == 2


def test_observation_suites_take_pandas_frames_and_name_the_broken_rule() -> None:
    import pandas as pd

    # Two rows of one sample and topic; the second read more records than offsets, and
    # more keyed records than records.
    rows = pd.DataFrame(
        {
            "ts": pd.to_datetime(["2026-11-26T00:00:00Z"] * 2),
            "topic": ["orders", "orders"],
            "window_start": pd.to_datetime(["2026-11-25T23:59:00Z"] * 2),
            "records_read": [10, 4],
            "bytes_read": [1000, 400],
            "keyed_read": [10, 5],
            "offsets_read": [12, 3],
            "partitions_grown": [6, 6],
            "partitions_read": [6, 6],
            "error": [None, None],
        }
    )
    report = validate(rows, "records.observed")
    assert not report.success
    failed = {(o.expectation_type, o.target) for o in report.failures}
    assert failed == {
        ("expect_compound_columns_to_be_unique", "ts,topic"),
        ("expect_column_pair_values_a_to_be_greater_than_b", "offsets_read,records_read"),
        ("expect_column_pair_values_a_to_be_greater_than_b", "records_read,keyed_read"),
    }
    assert validate(rows.iloc[:1], "records.observed").success


def test_the_observed_topics_suite_takes_kafka_s_replica_syntax_or_none() -> None:
    import pandas as pd

    rows = pd.DataFrame(
        {
            "ts": pd.to_datetime(["2026-11-26T00:00:00Z"] * 3),
            "topic": ["orders", "legacy", "typo"],
            "partitions": [2, 1, 2],
            "replication_factor": [2, 1, 2],
            "retention_ms": [604_800_000] * 3,
            # None: no leader, a reassignment, or an observer older than the column.
            "replicas": ["1:2,2:1", None, "1:2;2:1"],
        }
    )
    report = validate(rows, "topics.observed")
    assert not report.success
    assert {(o.expectation_type, o.target) for o in report.failures} == {
        ("expect_column_values_to_match_regex", "replicas")
    }
    assert validate(rows.iloc[:2], "topics.observed").success


# --- racks: replica lists on topics, client.rack on groups ------------------------------


def test_replica_lists_of_the_topics_shape(spark: Any) -> None:
    three = ",".join(["1:2:3", "2:3:1", "3:1:2"] * 4)  # 12 partitions, 3 replicas each
    rows = [
        topic("fits", replicas=three),
        topic("unknown"),
        topic("short", replicas="1:2:3,2:3:1"),
        topic("thin", replicas=",".join(["1:2"] * 12)),
        topic("garbled", replicas="1;2;3"),
    ]
    report = validate(figures_frame(spark, "topics", rows), "topics.input", broker_count=3)
    assert failed(report) == {(QUERY, "topics.replicas_match"), (REGEX, "replicas")}
    assert [e["topic"] for e in report[QUERY, "topics.replicas_match"].examples] == [
        "short",
        "thin",
        "garbled",
    ]
    assert report[REGEX, "replicas"].unexpected_count == 1


def test_client_racks_one_list_per_group_none_blank(spark: Any) -> None:
    rows = [
        group("spread", "orders", client_rack="a,b,c"),
        group("spread", "payments", client_rack="a,b,c"),
        group("elsewhere", "orders", client_rack="no-broker-here"),
        group("unknown", "orders"),
        group("torn", "orders", client_rack="a"),
        group("torn", "payments", client_rack="b"),
        group("gap", "orders", client_rack="a,,b"),
    ]
    report = validate(figures_frame(spark, "groups", rows), "groups.input")
    assert failed(report) == {(QUERY, "groups.one_client_rack"), (REGEX, "client_rack")}
    assert [e["group_id"] for e in report[QUERY, "groups.one_client_rack"].examples] == ["torn"]
    assert report[REGEX, "client_rack"].unexpected_count == 1
