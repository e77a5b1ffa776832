"""Run-level input failures stop the run before sizing, and leave nothing for the jobs.

Each case is a small fleet (a few topics, two days) written straight into the figures
dataset, with one thing wrong with it as a whole: a required column missing, a table
empty, a key given twice, more than the allowed share of rows or topics bad, or a bad
fleet-default capacity row. `validate_inputs` must stop (its result saved, failed) and
leave no `set_aside.json`, so no Spark job can run on those figures.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from planner.figures.dataset import DataInterval
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
) -> Workspace:
    """Ten good topics over two days, with what the case changes."""
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
