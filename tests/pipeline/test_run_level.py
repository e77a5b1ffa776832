"""Run-level input failures stop the run before sizing, and leave nothing for the jobs.

Each case is a small fleet (a few topics, two days) written straight into the figures
dataset, with one thing wrong with it as a whole: a required column missing, a table
empty, a key given twice, more than the allowed share of rows or topics bad, or a bad
fleet-default capacity row. Rows the collection refused (the interval's `rejected`
table) count as bad rows like those the suites find. `validate_inputs` must stop (its
result saved, failed) and leave no `set_aside.json`, so no Spark job can run on those
figures.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from planner.figures.conform import rejections
from planner.figures.dataset import DataInterval
from planner.figures.refused import UNLISTED_TOPIC
from planner.figures.schema import TABLES
from planner.pipeline.state import load_stage
from planner.pipeline.validation import ValidationStageFailed, validate_inputs
from planner.pipeline.workspace import Workspace
from spark_jobs.figures import MissingFigures
from tests.pipeline.broken import _samples, _topic_row, _write

pytestmark = [pytest.mark.slow, pytest.mark.integration]

RUN_DAY = date(2026, 11, 21)
RUN_KEY = "20261121T0000Z"
TOPICS = tuple(f"t{i}" for i in range(10))


def _table(name: str, rows: list[dict[str, Any]]) -> pa.Table:
    schema = TABLES[name].schema
    loose = pa.schema([f.with_nullable(True) for f in schema])
    return pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], loose)


def _fleet(
    root: Path,
    *,
    topics: list[dict[str, Any]] | None = None,
    capacity: list[dict[str, Any]] | None = None,
    samples: dict[str, int] | None = None,
    bad_samples: set[str] = frozenset(),  # type: ignore[assignment]
    drop_column: tuple[str, str] | None = None,
    rejected: pa.Table | None = None,
) -> Workspace:
    """Ten good topics over two days, with what the case changes (`rejected`: the rows
    the run's collection refused)."""
    workspace = Workspace.under(root)
    topic_rows = topics if topics is not None else [_topic_row(t) for t in TOPICS]
    for back in (1, 0):
        day = RUN_DAY - timedelta(days=back)
        throughput: list[dict[str, Any]] = []
        for t in TOPICS:
            for k in range((samples or {}).get(t, 1)):
                # Copies k > 0 five minutes apart: more samples, no key given twice.
                rows = [
                    {**r, "ts": r["ts"] + timedelta(minutes=5 * k)} for r in _samples(t, day, 2.0)
                ]
                if t in bad_samples:
                    for row in rows:
                        row["bytes_in_per_s"] = math.nan
                throughput += rows
        tables = {"throughput": _table("throughput", throughput)}
        if back == 0:
            tables.update(
                topics=_table("topics", topic_rows),
                capacity=_table(
                    "capacity",
                    capacity
                    or [
                        {
                            "topic": "*",
                            "producer_mib_per_s": 10.0,
                            "consumer_mib_per_s": 4.0,
                            "source": "t",
                        }
                    ],
                ),
                cluster=_table("cluster", [{"broker_id": b, "source": "t"} for b in (1, 2, 3)]),
            )
            if drop_column:
                name, column = drop_column
                tables[name] = tables[name].drop_columns([column])
            if rejected is not None:
                tables["rejected"] = rejected
        _write(workspace.figures, DataInterval.day(day), tables)
    return workspace


def _stopped(spark: Any, workspace: Workspace, **kwargs: Any) -> str:
    with pytest.raises(ValidationStageFailed) as stopped:
        validate_inputs(spark, workspace, RUN_KEY, lookback_days=30, **kwargs)
    state = workspace.run_state(RUN_KEY)
    saved = load_stage(state, "inputs")
    assert saved is not None and not saved.success and saved.message == str(stopped.value)
    assert not (state / "set_aside.json").exists()
    return str(stopped.value)


def test_a_required_column_missing_stops_the_run(spark: Any, tmp_path: Path) -> None:
    # Spark reads the file with the table's schema: the column comes back as nulls, and
    # the files' own schemas say it is missing.
    message = _stopped(spark, _fleet(tmp_path, drop_column=("topics", "keyed")))
    assert "topics.parquet lacks the required column keyed" in message


def test_an_empty_topics_table_stops_the_run(spark: Any, tmp_path: Path) -> None:
    workspace = _fleet(tmp_path, topics=[])
    with pytest.raises(MissingFigures, match="the topics table is empty"):
        validate_inputs(spark, workspace, RUN_KEY, lookback_days=30)
    assert not (workspace.run_state(RUN_KEY) / "set_aside.json").exists()


def test_a_key_given_twice_stops_the_run(spark: Any, tmp_path: Path) -> None:
    rows = [_topic_row(t) for t in TOPICS] + [{**_topic_row("t3"), "partitions": 9}]
    message = _stopped(spark, _fleet(tmp_path, topics=rows))
    assert "expect_column_values_to_be_unique on topic: one row per topic" in message
    assert "t3" in message and "[run-level]" in message


def test_a_bad_fleet_default_capacity_row_stops_the_run(spark: Any, tmp_path: Path) -> None:
    capacity = [
        {"topic": "*", "producer_mib_per_s": -10.0, "consumer_mib_per_s": 4.0, "source": "t"}
    ]
    message = _stopped(spark, _fleet(tmp_path, capacity=capacity))
    assert "the fleet default row '*' breaks" in message
    assert "producer_mib_per_s = -10.0" in message


def _too_many_replicas(root: Path, bad: int) -> Workspace:
    rows = [
        {**_topic_row(t), "replication_factor": 9 if i < bad else 3} for i, t in enumerate(TOPICS)
    ]
    return _fleet(root, topics=rows)


def test_more_than_the_allowed_share_of_topics_set_aside_stops_the_run(
    spark: Any, tmp_path: Path
) -> None:
    # Three of ten topics claim more replicas than the brokers listed: a broker missing
    # from the figures, most likely, and 30 % is past the default 20 %.
    message = _stopped(spark, _too_many_replicas(tmp_path / "a", 3))
    assert "3 of the run's 10 topics (30 %) would be set aside, more than the 20 % allowed" in (
        message
    )
    assert "3 brokers listed, the topic has 9 replicas: a broker down or missing" in message


def test_the_share_is_configurable(spark: Any, tmp_path: Path) -> None:
    workspace = _too_many_replicas(tmp_path, 3)
    result = validate_inputs(spark, workspace, RUN_KEY, lookback_days=30, max_bad_share=0.3)
    assert result.success
    assert result.set_aside["set_aside"] == ["t0", "t1", "t2"]
    assert (workspace.run_state(RUN_KEY) / "set_aside.json").is_file()


def test_at_the_share_exactly_the_topics_are_set_aside(spark: Any, tmp_path: Path) -> None:
    # Two of ten: 20 %, not more than the default.
    result = validate_inputs(spark, _too_many_replicas(tmp_path, 2), RUN_KEY, lookback_days=30)
    assert result.success and result.set_aside["topics"] == 2
    assert "2 topics set aside" in result.message


def test_more_than_the_allowed_share_of_a_tables_rows_stops_the_run(
    spark: Any, tmp_path: Path
) -> None:
    # One topic of ten (10 % of the topics), but sampled twelve times as often as the
    # others, and every one of its samples NaN: 12 x 48 of 21 x 48 rows, 57 %.
    workspace = _fleet(tmp_path, samples={"t0": 12}, bad_samples={"t0"})
    message = _stopped(spark, workspace)
    assert "throughput.input: 576 of 1,008 rows (57 %) break row-level rules" in message
    assert "more than the 20 % allowed ([validation] max_bad_row_share)" in message


def _refused(table: str, *rows: tuple[int, str, str, str]) -> pa.Table:
    """Rows the collection refused from `landing:<table>.csv`: (row, topic, field, value)."""
    return rejections(
        table,
        f"landing:{table}.csv",
        [r[0] for r in rows],
        [r[2] for r in rows],
        [r[3] for r in rows],
        ["not a number"] * len(rows),
        [r[1] for r in rows],
    )


def test_rows_refused_at_collection_count_toward_a_tables_share(spark: Any, tmp_path: Path) -> None:
    # The capacity table as collected holds the `*` row only: the other, every figure
    # unreadable, was refused. One of two rows bad, past 20 %; the suites alone see a
    # good table.
    refused = _refused("capacity", (3, "t1", "consumer_mib_per_s", "n/a"))
    message = _stopped(spark, _fleet(tmp_path, rejected=refused))
    assert message == (
        "the run stops: capacity.input: 1 of 2 rows (50 %) are bad: 1 refused at collection "
        "(e.g. landing:capacity.csv: row 3: field 'consumer_mib_per_s' = 'n/a': not a "
        "number), more than the 20 % allowed ([validation] max_bad_row_share): the figures "
        "look wrong as a whole, not in a few topics"
    )


def test_refused_rows_and_rows_breaking_rules_add_up(spark: Any, tmp_path: Path) -> None:
    # One topics row breaks a rule (10 % of the topics set aside) and two more were
    # refused at collection: 3 of 12 rows of the topics table, 25 %. Later copies of a
    # key and rows of unlisted topics are rejected too, but are not bad figures.
    rows = [{**_topic_row(t), "replication_factor": 9 if t == "t0" else 3} for t in TOPICS]
    refused = pa.concat_tables(
        [
            _refused("topics", (12, "u1", "partitions", "many"), (13, "u2", "keyed", "maybe")),
            rejections(
                "throughput",
                "landing:throughput.csv",
                list(range(2, 200)),
                ["topic"] * 198,
                ["gone"] * 198,
                [UNLISTED_TOPIC] * 198,
                ["gone"] * 198,
            ),
        ]
    )
    message = _stopped(spark, _fleet(tmp_path, topics=rows, rejected=refused))
    assert "topics.input: 3 of 12 rows (25 %) are bad: 2 refused at collection (e.g. " in message
    assert "field 'partitions' = 'many'" in message and "field 'keyed' = 'maybe'" in message
    assert "and 1 breaking row-level rules, more than the 20 % allowed" in message
    assert "throughput" not in message.split("the run stops:")[1]


def test_a_refused_fleet_default_capacity_row_stops_the_run(spark: Any, tmp_path: Path) -> None:
    # Both capacity rows refused: the table is wrong as a whole, and its `*` row, which
    # sizes every topic without a row of its own, is gone. Both reasons are given.
    capacity = [{"topic": "t1", "consumer_mib_per_s": 4.0, "source": "t"}]
    refused = _refused("capacity", (2, "*", "producer_mib_per_s", "fast"))
    message = _stopped(spark, _fleet(tmp_path, capacity=capacity, rejected=refused))
    assert message.splitlines() == [
        "the run stops: capacity.input: the fleet default row '*' was refused at collection: "
        "landing:capacity.csv: row 2: field 'producer_mib_per_s' = 'fast': not a number: "
        "every topic without a capacity row of its own is sized with it, so the run stops "
        "rather than set most of the fleet aside",
        "and capacity.input: 1 of 2 rows (50 %) are bad: 1 refused at collection (e.g. "
        "landing:capacity.csv: row 2: field 'producer_mib_per_s' = 'fast': not a number), "
        "more than the 20 % allowed ([validation] max_bad_row_share): the figures look "
        "wrong as a whole, not in a few topics",
    ]


def test_rows_refused_within_the_share_are_not_a_failure(spark: Any, tmp_path: Path) -> None:
    # One of ten topics rows refused (1 of 11, 9 %): the run goes on, nothing set aside.
    refused = _refused("topics", (12, "u1", "partitions", "many"))
    workspace = _fleet(tmp_path, rejected=refused)
    result = validate_inputs(spark, workspace, RUN_KEY, lookback_days=30)
    assert result.success and result.set_aside["topics"] == 0
    assert (workspace.run_state(RUN_KEY) / "set_aside.json").is_file()
