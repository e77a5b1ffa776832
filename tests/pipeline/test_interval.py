"""Which day `partition-planner plan` plans without `--interval`, and the refusals.

The end-to-end case (a sample export ending days before yesterday, planned without
`--interval`) is the `planned` fixture itself (tests/pipeline/conftest.py); these tests
cover the choice and its messages without Spark.
"""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from planner.cli import main
from planner.config import PlannerConfig
from planner.figures.dataset import DataInterval
from planner.pipeline.interval import (
    NoFiguresForInterval,
    SampleDays,
    choose_interval,
    landing_days,
)

NOW = datetime(2026, 11, 26, 4, 30, tzinfo=UTC)
YESTERDAY = date(2026, 11, 25)
LANDING = PlannerConfig()  # the embedded defaults: landing files only


def _hours(first: date, last_hour: datetime) -> list[datetime]:
    """Hourly sample times from `first` 00:00 up to and including `last_hour`."""
    moment = datetime(first.year, first.month, first.day, tzinfo=UTC)
    out = []
    while moment <= last_hour:
        out.append(moment)
        moment += timedelta(hours=1)
    return out


def test_a_day_is_complete_when_its_last_hour_or_a_later_day_has_samples() -> None:
    # An export taken at noon on the 14th: the 14th is half a day.
    days = SampleDays.of(_hours(date(2026, 11, 12), datetime(2026, 11, 14, 12, tzinfo=UTC)))
    assert days.days == (date(2026, 11, 12), date(2026, 11, 13), date(2026, 11, 14))
    assert days.complete == (date(2026, 11, 12), date(2026, 11, 13))
    # A day that ends with its 23:00 sample is complete even as the last one.
    whole = SampleDays.of(_hours(date(2026, 11, 12), datetime(2026, 11, 13, 23, tzinfo=UTC)))
    assert whole.complete == (date(2026, 11, 12), date(2026, 11, 13))
    assert SampleDays.of([]).complete == ()


def test_yesterday_is_planned_when_the_figures_hold_it() -> None:
    days = SampleDays.of(_hours(date(2026, 11, 20), datetime(2026, 11, 26, 3, tzinfo=UTC)))
    choice = choose_interval(LANDING, asked=None, landing=None, now=NOW, days=days)
    assert choice.interval == DataInterval.day(YESTERDAY)
    assert choice.reason == "2026-11-25 (no --interval given: yesterday, UTC)"


def test_an_export_that_ended_a_week_ago_plans_its_last_complete_day_and_says_why() -> None:
    days = SampleDays.of(_hours(date(2026, 11, 1), datetime(2026, 11, 18, 9, tzinfo=UTC)))
    choice = choose_interval(LANDING, asked=None, landing=None, now=NOW, days=days)
    assert choice.interval == DataInterval.day(date(2026, 11, 17))
    assert choice.reason == (
        "2026-11-17 (no --interval given, and yesterday, 2026-11-25, has no throughput in "
        "the figures: they hold 2026-11-01 .. 2026-11-18 (18 days), and 2026-11-17 is the "
        "last complete day; plan another with --interval DAY)"
    )


def test_an_interval_asked_for_without_figures_names_the_days_there_and_the_flag() -> None:
    moments = _hours(date(2026, 11, 1), datetime(2026, 11, 3, 23, tzinfo=UTC))
    moments += _hours(date(2026, 11, 10), datetime(2026, 11, 10, 23, tzinfo=UTC))
    days = SampleDays.of(moments)
    with pytest.raises(NoFiguresForInterval) as refused:
        choose_interval(LANDING, asked="2026-11-25", landing=None, now=NOW, days=days)
    assert str(refused.value) == (
        "--interval 2026-11-25: the figures hold no throughput for 2026-11-25; they hold "
        "2026-11-01 .. 2026-11-03, 2026-11-10 (4 days); plan one of those days with "
        "--interval (e.g. --interval 2026-11-10)"
    )
    # A day they hold is planned as asked, and so is an interval overlapping one.
    asked = choose_interval(LANDING, asked="2026-11-02", landing=None, now=NOW, days=days)
    assert asked.interval == DataInterval.day(date(2026, 11, 2))
    assert asked.reason == "2026-11-02 (--interval 2026-11-02)"
    span = "2026-11-09T12:00/2026-11-10T06:00"
    assert choose_interval(LANDING, asked=span, landing=None, now=NOW, days=days).interval == (
        DataInterval.parse(span)
    )


def test_figures_without_any_complete_day_or_any_day_stop_the_run_before_collecting() -> None:
    half = SampleDays.of(_hours(date(2026, 11, 20), datetime(2026, 11, 20, 8, tzinfo=UTC)))
    with pytest.raises(NoFiguresForInterval, match="none of those days is complete"):
        choose_interval(LANDING, asked=None, landing=None, now=NOW, days=half)
    with pytest.raises(NoFiguresForInterval, match="no throughput at all"):
        choose_interval(LANDING, asked=None, landing=None, now=NOW, days=SampleDays.of([]))


def test_a_run_on_live_sources_plans_yesterday_without_looking(tmp_path: Path) -> None:
    live = PlannerConfig(sources=("prometheus", "landing"), source_settings={"landing": {}})
    choice = choose_interval(live, asked=None, landing=tmp_path / "absent", now=NOW)
    assert choice.interval == DataInterval.day(YESTERDAY)
    assert "live sources" in choice.reason


def _landing(root: Path) -> Path:
    """Two throughput files (CSV and Parquet) and a row collection rejects."""
    folder = root / "throughput"
    folder.mkdir(parents=True)
    with (folder / "a.csv").open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["topic", "ts", "bytes_in_per_s", "records_in_per_s"])
        for moment in _hours(date(2026, 11, 4), datetime(2026, 11, 5, 23, tzinfo=UTC)):
            out.writerow(["orders", moment.isoformat(), "1000", "10"])
        out.writerow(["orders", "not a time", "1000", "10"])  # rejected, not a day
    later = _hours(date(2026, 11, 6), datetime(2026, 11, 7, 6, tzinfo=UTC))
    pq.write_table(
        pa.table(
            {
                "topic": ["payments"] * len(later),
                "ts": pa.array(later, pa.timestamp("us", tz="UTC")),
                "bytes_in_per_s": [1.0] * len(later),
                "records_in_per_s": [1.0] * len(later),
            }
        ),
        folder / "b.parquet",
    )
    (folder / "notes.txt").write_text("not a landing file")
    return root


def test_the_landing_files_days_are_read_as_collection_reads_them(tmp_path: Path) -> None:
    days = landing_days(_landing(tmp_path / "landing"))
    assert days.days == tuple(date(2026, 11, d) for d in (4, 5, 6, 7))
    assert days.complete == tuple(date(2026, 11, d) for d in (4, 5, 6))
    assert landing_days(tmp_path / "nowhere").days == ()


def test_plan_refuses_an_interval_without_figures_before_collecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    landing = _landing(tmp_path / "landing")
    out = tmp_path / "out"
    args = ["plan", "--landing", str(landing), "--out", str(out)]
    assert main([*args, "--interval", "2026-11-20"]) == 1
    err = capsys.readouterr().err
    assert "--interval 2026-11-20: the figures hold no throughput for 2026-11-20" in err
    assert "2026-11-04 .. 2026-11-07 (4 days)" in err and "--interval 2026-11-06" in err
    assert "nothing was collected or published" in err
    assert not out.exists()
