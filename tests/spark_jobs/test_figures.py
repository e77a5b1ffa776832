"""Finding a run's figures: its interval, its history window, and what is missing."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession

from planner.figures.dataset import DataInterval, write_interval
from spark_jobs.figures import MissingFigures, history_spans, locate_run
from tests.spark_jobs.fleet import RUN_DAY, Fleet, snapshot_tables, throughput_rows


def _day(d: int) -> DataInterval:
    return DataInterval.day(date(2026, 11, d))


def _at(d: int, h: int = 0) -> datetime:
    return datetime(2026, 11, d, h, tzinfo=UTC)


def test_the_window_reads_the_lookback_before_the_run_and_nothing_after() -> None:
    run = _day(21)
    spans = history_spans(run, [_day(d) for d in range(15, 24)], lookback_days=3)
    assert [(i.key, pieces) for i, pieces in spans] == [
        ("20261121T0000Z", ((_at(21), _at(22)),)),
        ("20261119T0000Z", ((_at(19), _at(20)),)),
        ("20261120T0000Z", ((_at(20), _at(21)),)),
    ]


def test_the_run_s_own_interval_is_read_whole_even_past_the_lookback() -> None:
    week = DataInterval(_at(14), _at(21))
    spans = history_spans(week, [week, _day(13)], lookback_days=1)
    assert spans == [(week, ((_at(14), _at(21)),))]


def test_overlaps_go_to_the_run_then_to_the_later_interval() -> None:
    # A daily run, an hourly rerun inside the previous day, and a two-day interval
    # that overlaps the run.
    run = _day(21)
    rerun = DataInterval(_at(20, 6), _at(20, 7))
    wide = DataInterval(_at(19, 12), _at(21, 12))
    spans = dict(history_spans(run, [run, rerun, wide, _day(19)], lookback_days=3))
    assert spans[run] == ((_at(21), _at(22)),)
    assert spans[rerun] == ((_at(20, 6), _at(20, 7)),)
    assert spans[wide] == ((_at(19, 12), _at(20, 6)), (_at(20, 7), _at(21)))
    assert spans[_day(19)] == ((_at(19), _at(19, 12)),)


def test_a_run_is_found_by_key_by_day_or_by_span(fleet: Fleet) -> None:
    for text in ("20261121T0000Z", "2026-11-21", "2026-11-21T00:00/2026-11-22T00:00"):
        found = locate_run(fleet.root, text, lookback_days=30)
        assert found.run == fleet.run
        assert found.tables["keys"] > 0
    assert len(locate_run(fleet.root, "2026-11-21", lookback_days=30).history) == 15
    assert (
        len(locate_run(fleet.root, "2026-11-21", lookback_days=2).history) == 2
    )  # the 20th and the run


def test_a_missing_interval_names_the_folder_and_what_is_there(fleet: Fleet) -> None:
    with pytest.raises(MissingFigures) as caught:
        locate_run(fleet.root, "2026-12-01", lookback_days=30)
    message = str(caught.value)
    assert f"figures {fleet.root}: no interval 20261201T0000Z" in message
    assert "20261121T0000Z" in message


def test_a_span_that_is_not_the_stored_interval_is_refused(fleet: Fleet) -> None:
    with pytest.raises(MissingFigures, match=r"spans .* not the"):
        locate_run(fleet.root, "2026-11-21T00:00/2026-11-21T12:00", lookback_days=30)


@pytest.mark.parametrize("drop", ["capacity", "topics", "cluster"])
def test_a_missing_required_table_is_named(tmp_path: Path, drop: str) -> None:
    tables = {"throughput": throughput_rows(RUN_DAY), **snapshot_tables()}
    del tables[drop]
    write_interval(tmp_path, DataInterval.day(RUN_DAY), tables)
    with pytest.raises(MissingFigures, match=f"the run's interval has no {drop} table"):
        locate_run(tmp_path, "2026-11-21", lookback_days=30)


def test_an_empty_throughput_table_is_refused(tmp_path: Path) -> None:
    empty = throughput_rows(RUN_DAY).slice(0, 0)
    write_interval(tmp_path, DataInterval.day(RUN_DAY), {"throughput": empty, **snapshot_tables()})
    with pytest.raises(MissingFigures, match="the throughput table is empty"):
        locate_run(tmp_path, "2026-11-21", lookback_days=30)


def test_samples_come_only_from_their_interval_s_pieces(
    spark: SparkSession, tmp_path: Path
) -> None:
    # The run's file holds a stray sample from the day before; the day before holds its
    # own. Each interval contributes only its span: the stray one is dropped.
    run_rows = throughput_rows(RUN_DAY)
    stray = run_rows.slice(0, 1).set_column(
        1, run_rows.schema.field("ts"), pa.array([_at(20, 5)], pa.timestamp("us", tz="UTC"))
    )
    write_interval(
        tmp_path,
        DataInterval.day(RUN_DAY),
        {"throughput": pa.concat_tables([run_rows, stray]), **snapshot_tables()},
    )
    before = RUN_DAY - timedelta(days=1)
    write_interval(tmp_path, DataInterval.day(before), {"throughput": throughput_rows(before)})
    run = locate_run(tmp_path, "2026-11-21", lookback_days=30)
    samples = run.throughput(spark)
    topic = run_rows.column("topic")[0].as_py()
    at_five = samples.where(f"topic = '{topic}' AND ts = '2026-11-20 05:00:00'").collect()
    assert len(at_five) == 1
    assert at_five[0]["bytes_in_per_s"] != stray.column("bytes_in_per_s")[0].as_py()
    assert samples.count() == 2 * run_rows.num_rows


def test_groups_are_read_with_their_protocol(spark: SparkSession, tmp_path: Path) -> None:
    """Every group reaches the jobs with its protocol (`classic` where the file has
    none) and its assignor as the broker names it: the core maps them
    (`planner.protocols.planned_strategy`)."""
    from tests.spark_jobs.fleet import _table

    rows = [
        {"group_id": "old", "topic": "a", "strategy": "range", "members": 2},  # no protocol
        {"group_id": "kip848", "topic": "a", "strategy": "uniform", "protocol": "consumer"},
        {"group_id": "kip848r", "topic": "a", "strategy": "range", "protocol": "consumer"},
        {"group_id": "app", "topic": "a", "strategy": "stream", "protocol": "classic"},
        {"group_id": "join", "topic": "a", "strategy": "sticky", "protocol": "streams"},
        {"group_id": "join", "topic": "b", "strategy": "sticky", "protocol": "streams"},
        {"group_id": "queue", "topic": "a", "strategy": "simple", "protocol": "share"},
    ]
    tables = {
        "throughput": throughput_rows(RUN_DAY),
        **snapshot_tables(),
        "groups": _table("groups", [{"members": 3, **r, "source": "t"} for r in rows]),
    }
    write_interval(tmp_path, DataInterval.day(RUN_DAY), tables)
    run = locate_run(tmp_path, "2026-11-21", lookback_days=30)
    raw = run.table(spark, "groups").select("group_id", "protocol", "strategy").collect()
    assert ("kip848", "consumer", "uniform") in {tuple(r) for r in raw}  # as validated
    read = run.planned_groups().select(["group_id", "protocol", "strategy"]).to_pylist()
    frame = run.planned_groups_frame(spark).select("group_id", "protocol", "strategy")
    assert [r.asDict() for r in frame.collect()] == read
    assert sorted(tuple(r.values()) for r in read) == [
        ("app", "classic", "stream"),
        ("join", "streams", "sticky"),
        ("join", "streams", "sticky"),
        ("kip848", "consumer", "uniform"),
        ("kip848r", "consumer", "range"),
        ("old", "classic", "range"),
        ("queue", "share", "simple"),
    ]
