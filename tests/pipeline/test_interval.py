"""Which day `partition-planner plan` plans without `--interval`, and the refusals.

The end-to-end case (a sample export ending days before yesterday, planned without
`--interval`) is the `planned` fixture itself (tests/pipeline/conftest.py); these tests
cover the choice and its messages without Spark. With live sources the choice asks a
real Prometheus (tests.support.prometheus, a history of 2026-11-19 and -20) at a stopped
clock, and the Kafka admin source not at all.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from planner.cli import main
from planner.collect.base import SourceUnavailable
from planner.config import PlannerConfig
from planner.figures.dataset import DataInterval
from planner.pipeline.interval import (
    DayCover,
    NoFiguresForInterval,
    SampleDays,
    choose_interval,
    landing_days,
)
from tests.support.ports import free_port
from tests.support.prometheus import FrontProxy, History, PrometheusServer, running_prometheus

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


# --- live sources: asked before any step ------------------------------------------------

HISTORY = History()  # 2026-11-19 and 2026-11-20, hourly rates (tests.support.prometheus)


@pytest.fixture(scope="module")
def prometheus() -> Iterator[PrometheusServer]:
    with running_prometheus(HISTORY) as server:
        yield server


def _prometheus_config(url: str, *sources: str, **settings: Any) -> PlannerConfig:
    return PlannerConfig(
        sources=sources or ("prometheus",),
        source_settings={
            "landing": {"path": "var/landing"},
            "prometheus": {"url": url, **settings},
            "kafka": {"bootstrap": "127.0.0.1:9"},
        },
    )


@pytest.mark.integration
def test_yesterday_held_by_prometheus_is_planned_after_one_quick_question(
    prometheus: PrometheusServer,
) -> None:
    now = datetime(2026, 11, 21, 4, 30, tzinfo=UTC)
    with FrontProxy(prometheus.url) as front:
        began = time.monotonic()
        choice = choose_interval(_prometheus_config(front.url), asked=None, landing=None, now=now)
        took_s = time.monotonic() - began
    assert front.requests == 1 and took_s < 2
    assert choice.interval == DataInterval.day(date(2026, 11, 20))
    assert choice.reason == (
        f"2026-11-20 (no --interval given: yesterday, UTC; prometheus:{front.url} holds 24 "
        "of its 24 windows of 1h)"
    )


@pytest.mark.integration
def test_yesterday_partly_complete_is_planned_and_the_reason_says_how_much(
    prometheus: PrometheusServer,
) -> None:
    # 30 s after midnight yesterday's last hour has not settled (60 s) yet.
    now = datetime(2026, 11, 20, 0, 0, 30, tzinfo=UTC)
    choice = choose_interval(_prometheus_config(prometheus.url), asked=None, landing=None, now=now)
    assert choice.interval == DataInterval.day(date(2026, 11, 19))
    assert "holds 23 of its 24 windows of 1h" in choice.reason


@pytest.mark.integration
def test_prometheus_without_yesterday_stops_at_once_naming_the_days_it_holds(
    prometheus: PrometheusServer,
) -> None:
    now = datetime(2026, 11, 25, 4, 30, tzinfo=UTC)
    with FrontProxy(prometheus.url) as front:
        began = time.monotonic()
        with pytest.raises(NoFiguresForInterval) as refused:
            choose_interval(_prometheus_config(front.url), asked=None, landing=None, now=now)
        took_s = time.monotonic() - began
    assert front.requests == 2 and took_s < 2  # the day, then one window a day for 30
    assert str(refused.value) == (
        "no --interval given, and no source holds yesterday, 2026-11-24 (UTC):\n"
        f"- prometheus:{front.url} none of the 24 windows of 1h of 2026-11-24; it holds "
        "2026-11-19 .. 2026-11-20 (2 days) (one window a day looked at, 03:00-04:00 UTC); "
        "plan one of those days with --interval DAY (e.g. --interval 2026-11-20)"
    )


@pytest.mark.integration
def test_prometheus_holding_only_today_says_so(prometheus: PrometheusServer) -> None:
    now = datetime(2026, 11, 19, 10, 30, tzinfo=UTC)  # its history starts at 00:00 today
    with pytest.raises(NoFiguresForInterval) as refused:
        choose_interval(_prometheus_config(prometheus.url), asked=None, landing=None, now=now)
    message = str(refused.value)
    assert "none of the 24 windows of 1h of 2026-11-18; it holds 2026-11-19 (1 day)" in message
    assert "it holds only today so far" in message
    assert "--interval 2026-11-19T00:00/2026-11-19T10:00" in message


@pytest.mark.integration
def test_a_prometheus_with_nothing_names_the_query_that_finds_nothing(
    prometheus: PrometheusServer,
) -> None:
    nothing = "sum by (topic) (rate(kafka_server_no_such_meter_total[$step]))"
    config = _prometheus_config(prometheus.url, queries={"bytes_in_per_s": nothing})
    now = datetime(2026, 11, 21, 4, 30, tzinfo=UTC)
    with pytest.raises(NoFiguresForInterval) as refused:
        choose_interval(config, asked=None, landing=None, now=now)
    message = str(refused.value)
    assert "nor any of the 30 days before or today" in message
    assert "rate(kafka_server_no_such_meter_total[1h])" in message


def test_kafka_alone_stops_at_once_without_asking_the_cluster() -> None:
    config = _prometheus_config("http://127.0.0.1:9", "kafka")  # nothing listens on 9
    began = time.monotonic()
    with pytest.raises(NoFiguresForInterval) as refused:
        choose_interval(config, asked=None, landing=None, now=NOW)
    assert time.monotonic() - began < 0.5
    assert str(refused.value) == (
        "no --interval given, and no source holds yesterday, 2026-11-25 (UTC):\n"
        "- kafka-admin:127.0.0.1:9 reads the cluster only as it is when collect runs (a "
        "throughput sample of now, kept only for the current interval), so it holds no "
        "past day; run `partition-planner observe` to record the cluster over time, or add "
        "Prometheus ([sources.prometheus]) or a landing export with throughput files"
    )


def test_plan_on_kafka_alone_stops_before_collecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "planner.toml"
    config.write_text('[sources]\nuse = ["kafka"]\n[sources.kafka]\nbootstrap = "127.0.0.1:9"\n')
    out = tmp_path / "out"
    began = time.monotonic()
    assert main(["plan", "--config", str(config), "--out", str(out)]) == 1
    assert time.monotonic() - began < 5  # it was 22 s, then "the throughput table is empty"
    err = capsys.readouterr().err
    assert "no source holds yesterday" in err and "partition-planner observe" in err
    assert "nothing was collected or published" in err
    assert not out.exists()


def test_kafka_with_landing_files_holding_yesterday_plans_it(tmp_path: Path) -> None:
    landing = _landing(tmp_path / "landing")  # throughput 2026-11-04 .. 2026-11-07 06:00
    config = PlannerConfig(
        sources=("landing", "kafka"),
        source_settings={"landing": {"path": str(landing)}, "kafka": {"bootstrap": "k:9092"}},
    )
    now = datetime(2026, 11, 7, 12, tzinfo=UTC)
    choice = choose_interval(config, asked=None, landing=None, now=now)
    assert choice.interval == DataInterval.day(date(2026, 11, 6))
    assert choice.reason == (
        "2026-11-06 (no --interval given: yesterday, UTC; the landing files "
        f"({landing}) hold throughput for it)"
    )
    with pytest.raises(NoFiguresForInterval) as refused:
        choose_interval(config, asked=None, landing=None, now=NOW)
    lines = str(refused.value).splitlines()
    assert lines[1].startswith("- kafka-admin:k:9092 reads the cluster only as it is")
    assert lines[2] == (
        f"- the landing files ({landing}) hold 2026-11-04 .. 2026-11-07 (4 days); plan one "
        "of those days with --interval (e.g. --interval 2026-11-06)"
    )


def test_a_cover_another_source_gives_is_taken_as_given() -> None:
    """The seam the observations of a live cluster plug into (`live_days.FINDERS`)."""
    config = PlannerConfig(sources=("kafka",), source_settings={"kafka": {"bootstrap": "k:1"}})
    observed = DayCover("observations:/var/obs", 1380, 1440, "1m", "", "")
    choice = choose_interval(config, asked=None, landing=None, now=NOW, live=[observed])
    assert choice.interval == DataInterval.day(YESTERDAY)
    assert choice.reason.endswith("observations:/var/obs holds 1380 of its 1440 windows of 1m)")


def test_an_unreachable_prometheus_fails_the_run_before_collecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    settings = {"attempts": 1}
    with pytest.raises(SourceUnavailable, match=f"Prometheus {url}"):
        choose_interval(_prometheus_config(url, **settings), asked=None, landing=None, now=NOW)
    config = tmp_path / "planner.toml"
    config.write_text(
        f'[sources]\nuse = ["prometheus"]\n[sources.prometheus]\nurl = "{url}"\nattempts = 1\n'
    )
    out = tmp_path / "out"
    assert main(["plan", "--config", str(config), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "cannot tell which day the live sources hold" in err and url in err
    assert "give --interval" in err and not out.exists()


def test_observations_that_cover_yesterday_plan_it_and_a_half_day_is_refused(
    tmp_path: Path,
) -> None:
    from planner.observe.dataset import ObservationsDataset
    from tests.observe.synthetic import PaperTopic, every, write_samples

    obs = tmp_path / "obs"
    config = PlannerConfig(
        sources=("kafka",),
        source_settings={
            "kafka": {"bootstrap": "k:9092", "observations": str(obs), "observe_every_s": 600}
        },
    )
    day = datetime(2026, 11, 25, tzinfo=UTC)
    topic = PaperTopic("orders", 2, rate=1.0)
    # Observed from 11:50 on the 25th: half of the day.
    moments = every(day + timedelta(hours=11, minutes=50), day + timedelta(days=1, hours=1), 600)
    write_samples(ObservationsDataset(obs), [topic], [], moments, every_s=600)
    with pytest.raises(NoFiguresForInterval) as refused:
        choose_interval(config, asked=None, landing=None, now=NOW)
    text = str(refused.value)
    assert f"- kafka-observations:{obs} holds none of" not in text
    assert "covers 50% of 2026-11-25 (73 samples, 2026-11-25T11:50Z .. " in text
    assert "--interval 2026-11-25T12:00Z/2026-11-26T00:00Z" in text
    # Observed from before its start: planned.
    early = every(day - timedelta(minutes=5), day + timedelta(hours=11, minutes=45), 600)
    write_samples(ObservationsDataset(obs), [topic], [], early, every_s=600)
    choice = choose_interval(config, asked=None, landing=None, now=NOW)
    assert choice.interval == DataInterval.day(YESTERDAY)
    assert f"kafka-observations:{obs} holds 24 of its 24 windows of 1h" in choice.reason
