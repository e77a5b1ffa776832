"""PrometheusSource against a real Prometheus whose history holds known hourly rates."""

from __future__ import annotations

import base64
import json
import socket
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from planner.collect.base import Collected, SourceUnavailable
from planner.collect.idle import IDLE_LABEL
from planner.collect.landing import LandingSource
from planner.collect.prometheus import DEFAULT_QUERIES, PrometheusSource
from planner.collect.prometheus_api import PrometheusQueryError
from planner.collect.run import collect_interval
from planner.figures import DataInterval, FiguresError
from planner.figures.dataset import read_table
from tests.support.ports import free_port
from tests.support.prometheus import (
    FrontProxy,
    History,
    PrometheusServer,
    Reply,
    rate_factor,
    running_prometheus,
)

COLUMNS = ("bytes_in_per_s", "records_in_per_s", "bytes_out_per_s")
ILLEGAL = "not a legal Kafka topic name"
HISTORY = History()


@pytest.fixture(scope="session")
def history() -> History:
    """Two days of known broker topic counters (see tests.support.prometheus)."""
    return HISTORY


@pytest.fixture(scope="session")
def prometheus(history: History) -> Iterator[PrometheusServer]:
    """A real Prometheus serving `history`."""
    with running_prometheus(history) as server:
        yield server


@pytest.fixture(scope="session")
def two_days(history: History) -> DataInterval:
    return DataInterval(history.start, history.end)


@pytest.fixture(scope="session")
def collected(prometheus: PrometheusServer, two_days: DataInterval) -> Collected:
    """The default queries over the whole history, collected once."""
    return PrometheusSource(prometheus.url).collect(two_days)


def _table(collected: Collected) -> pa.Table:
    (part,) = collected.parts["throughput"]
    return part.table


def _rejected(collected: Collected) -> list[dict[str, Any]]:
    return [row for table in collected.rejected for row in table.to_pylist()]


def _rows(table: pa.Table, topic: str) -> list[dict[str, Any]]:
    return [row for row in table.to_pylist() if row["topic"] == topic]


def _hour(history: History, row: dict[str, Any]) -> int:
    return int((row["ts"] - history.start).total_seconds() // 3600)


def _instant_query(url: str, query: str, at_s: int) -> list[dict[str, Any]]:
    body = urllib.parse.urlencode({"query": query, "time": str(at_s)}).encode()
    with urllib.request.urlopen(f"{url}/api/v1/query", data=body, timeout=10) as response:
        payload = json.load(response)
    assert payload["status"] == "success"
    result: list[dict[str, Any]] = payload["data"]["result"]
    return result


# --- rates against the known history --------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("column", COLUMNS)
def test_rates_are_the_exact_hourly_sums_over_brokers(
    collected: Collected, history: History, column: str
) -> None:
    table = _table(collected)
    checked = 0
    for topic in ("orders", "payments", "clicks.v1"):
        rows = _rows(table, topic)
        assert len(rows) == history.hours
        for row in rows:
            hour = _hour(history, row)
            if not history.has_series(column, topic):
                assert row[column] is None
                continue
            expected = history.expected(column, topic, hour)
            assert row[column] == pytest.approx(expected, rel=1e-9), (topic, hour)
            checked += 1
    assert checked >= 2 * history.hours


@pytest.mark.integration
def test_each_sample_is_labelled_with_the_start_of_its_step(
    collected: Collected, history: History, two_days: DataInterval
) -> None:
    rows = _rows(_table(collected), "orders")
    starts = [row["ts"] for row in rows]
    assert starts[0] == two_days.start
    assert starts[-1] == two_days.end - timedelta(hours=1)
    assert [_hour(history, row) for row in rows] == list(range(history.hours))
    # The rate changes every hour, so a window one step off would give a neighbour's rate.
    first, second = (history.expected("bytes_in_per_s", "orders", h) for h in (0, 1))
    assert first != second
    assert rows[0]["bytes_in_per_s"] == pytest.approx(first, rel=1e-9)


@pytest.mark.integration
def test_one_day_reads_only_its_own_hours(prometheus: PrometheusServer, history: History) -> None:
    second_day = DataInterval.day((history.start + timedelta(days=1)).date())
    table = _table(PrometheusSource(prometheus.url).collect(second_day))
    rows = _rows(table, "payments")
    assert len(rows) == 24
    assert [_hour(history, row) for row in rows] == list(range(24, 48))
    for row in rows:
        expected = history.expected("records_in_per_s", "payments", _hour(history, row))
        assert row["records_in_per_s"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.integration
def test_rows_carry_the_server_as_source(
    collected: Collected, prometheus: PrometheusServer
) -> None:
    table = _table(collected)
    assert set(table.column("source").to_pylist()) == {f"prometheus:{prometheus.url}"}
    assert table.schema.field("ts").type == pa.timestamp("us", tz="UTC")


@pytest.mark.integration
def test_a_counter_reset_is_absorbed_by_rate(
    prometheus: PrometheusServer, collected: Collected, history: History
) -> None:
    broker = 2
    hour = history.restart_hour(broker)
    window_end = int(history.start.timestamp()) + (hour + 1) * 3600
    resets = _instant_query(
        prometheus.url,
        f'resets(kafka_server_brokertopicmetrics_bytesin_total{{topic="orders",broker="{broker}"}}[1h])',
        window_end,
    )
    assert [float(r["value"][1]) for r in resets] == [1.0]
    (row,) = [r for r in _rows(_table(collected), "orders") if _hour(history, r) == hour]
    for column in COLUMNS:
        assert row[column] == pytest.approx(history.expected(column, "orders", hour), rel=1e-9)


@pytest.mark.integration
def test_internal_topics_are_left_out(
    prometheus: PrometheusServer, collected: Collected, history: History
) -> None:
    offsets = 'kafka_server_brokertopicmetrics_bytesin_total{topic="__consumer_offsets"}'
    assert len(_instant_query(prometheus.url, offsets, int(history.end.timestamp()) - 1)) == 2
    assert _rows(_table(collected), "__consumer_offsets") == []
    assert not [r for r in _rejected(collected) if "__consumer_offsets" in str(r)]


@pytest.mark.integration
@pytest.mark.parametrize(
    ("end_after_s", "range_s"),
    [(3 * 3600, 3600), (5 * 3600 + 17 * 60, 420), (10 * 3600 + 30, 150)],
)
def test_the_rate_model_of_the_live_tests_is_prometheus_own(
    prometheus: PrometheusServer, history: History, end_after_s: int, range_s: int
) -> None:
    """`rate_factor`, which bounds the live tests' expected rates, agrees with rate()."""
    selector = 'kafka_server_brokertopicmetrics_bytesin_total{topic="orders",broker="1"}'
    end_s = int(history.start.timestamp()) + end_after_s
    (raw,) = _instant_query(prometheus.url, f"{selector}[{range_s}s]", end_s)
    times = [float(t) for t, _ in raw["values"]]
    values = [float(v) for _, v in raw["values"]]
    factor = rate_factor(
        times, values[0], values[-1] - values[0], start_s=end_s - range_s, end_s=end_s
    )
    (rate,) = _instant_query(prometheus.url, f"rate({selector}[{range_s}s])", end_s)
    assert (values[-1] - values[0]) * factor == pytest.approx(float(rate["value"][1]), rel=1e-12)


# --- only complete windows ------------------------------------------------------------


class _Clock:
    """A clock that stands still except when the source sleeps on it."""

    def __init__(self, now: datetime) -> None:
        self.now = now
        self.pauses: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += timedelta(seconds=seconds)


def _source(url: str, clock: _Clock, **kwargs: Any) -> PrometheusSource:
    return PrometheusSource(url, clock=clock, sleep=clock.sleep, **kwargs)


@pytest.mark.integration
def test_a_window_still_open_when_the_query_runs_is_left_out_with_a_note(
    prometheus: PrometheusServer, history: History
) -> None:
    # The server holds the whole day, as a live one would hold the part seen so far:
    # only the clock says the query runs at 10:30 on the first day.
    clock = _Clock(history.start + timedelta(hours=10, minutes=30))
    day = DataInterval.day(history.start.date())
    got = _source(prometheus.url, clock).collect(day)
    rows = _rows(_table(got), "orders")
    assert [_hour(history, row) for row in rows] == list(range(10))
    for row in rows:
        expected = history.expected("records_in_per_s", "orders", _hour(history, row))
        assert row["records_in_per_s"] == pytest.approx(expected, rel=1e-9)
    (note,) = [n for n in got.notes if "left out" in n]
    assert "14 window(s) of 1h from 2026-11-19T10:00:00Z to 2026-11-20T00:00:00Z" in note
    assert "at 2026-11-19T10:30:00Z" in note and "60 s" in note
    assert "collect again after 2026-11-20T00:01:00Z" in note
    assert got.covered == [history.start + timedelta(hours=h) for h in range(10)]
    assert clock.pauses == []  # the last window it asks for had settled long before


@pytest.mark.integration
def test_a_window_that_ended_moments_ago_is_waited_for(
    prometheus: PrometheusServer, history: History
) -> None:
    """As the scheduled run, which starts seconds after its day ends."""
    day = DataInterval.day(history.start.date())
    clock = _Clock(day.end + timedelta(seconds=5))
    got = _source(prometheus.url, clock).collect(day)
    assert clock.pauses == [55.0]
    assert [_hour(history, row) for row in _rows(_table(got), "orders")] == list(range(24))
    assert not [n for n in got.notes if "left out" in n]
    assert any("waited 55 s for the window ending at 2026-11-20T00:00:00Z" in n for n in got.notes)
    # Inside the day: the window that just ended is waited for, the open one left out.
    clock = _Clock(history.start + timedelta(hours=10, seconds=30))
    got = _source(prometheus.url, clock).collect(day)
    assert clock.pauses == [30.0]
    assert _hour(history, _rows(_table(got), "orders")[-1]) == 9
    # settle is the config's settle_s; 0 asks at once for every window that has ended.
    clock = _Clock(history.start + timedelta(hours=10, seconds=30))
    got = _source(prometheus.url, clock, settle=timedelta(0)).collect(day)
    assert clock.pauses == [] and _hour(history, _rows(_table(got), "orders")[-1]) == 9
    clock = _Clock(history.start + timedelta(hours=10, minutes=4))
    got = _source(prometheus.url, clock, settle=timedelta(minutes=5)).collect(day)
    assert clock.pauses == [60.0] and _hour(history, _rows(_table(got), "orders")[-1]) == 9


@pytest.mark.integration
def test_a_clock_that_does_not_move_leaves_an_unsettled_window_out(
    prometheus: PrometheusServer, history: History
) -> None:
    now = history.start + timedelta(hours=10, seconds=30)
    pauses: list[float] = []
    source = PrometheusSource(prometheus.url, clock=lambda: now, sleep=pauses.append)
    got = source.collect(DataInterval.day(history.start.date()))
    assert pauses == [30.0]
    assert _hour(history, _rows(_table(got), "orders")[-1]) == 8
    assert any("15 window(s) of 1h from 2026-11-19T09:00:00Z" in n for n in got.notes)


@pytest.mark.integration
def test_before_the_first_window_is_complete_nothing_is_asked(
    prometheus: PrometheusServer, history: History
) -> None:
    clock = _Clock(history.start + timedelta(minutes=50))
    with FrontProxy(prometheus.url) as front:
        got = _source(front.url, clock).collect(DataInterval.day(history.start.date()))
    assert front.requests == 0 and clock.pauses == []
    assert _table(got).num_rows == 0 and got.covered == []
    assert any("24 window(s) of 1h from 2026-11-19T00:00:00Z" in n for n in got.notes)


def test_a_negative_settle_is_refused() -> None:
    with pytest.raises(ValueError, match="settle must be 0 s or more"):
        PrometheusSource("http://prom:9090", settle=timedelta(seconds=-1))


@pytest.mark.integration
def test_windows_held_names_the_complete_windows_with_data_in_one_series(
    prometheus: PrometheusServer, history: History, around_the_start: DataInterval
) -> None:
    clock = _Clock(history.start + timedelta(hours=10, minutes=30))
    day = DataInterval.day(history.start.date())
    hours = [history.start + timedelta(hours=h) for h in range(10)]
    with FrontProxy(prometheus.url) as front:
        assert _source(front.url, clock).windows_held(day) == hours
        assert front.requests == 1
        # Split like collect when one request may not hold every point.
        split = _source(front.url, clock, max_points_per_query=4).windows_held(day)
        assert split == hours and front.requests == 1 + 3
    source = PrometheusSource(prometheus.url)
    assert source.windows_held(around_the_start) == hours[:3]  # none before the history
    # One window a day, counted back from the last complete one: 23:00 of each day held.
    month = DataInterval(history.start - timedelta(days=30), history.end + timedelta(days=3))
    daily = source.windows_held(month, every=timedelta(days=1))
    assert daily == [history.start + timedelta(hours=23), history.start + timedelta(hours=47)]
    with pytest.raises(ValueError, match="whole number of steps"):
        source.windows_held(day, every=timedelta(minutes=90))


# --- coverage: which windows prove a topic idle ---------------------------------------


@pytest.fixture(scope="session")
def around_the_start(history: History) -> DataInterval:
    """Three hours before the history (Prometheus holds nothing) and three in it."""
    return DataInterval(history.start - timedelta(hours=3), history.start + timedelta(hours=3))


@pytest.mark.integration
def test_windows_with_data_are_covered_and_windows_without_are_not(
    prometheus: PrometheusServer, history: History, around_the_start: DataInterval
) -> None:
    got = PrometheusSource(prometheus.url).collect(around_the_start)
    inside = [history.start + timedelta(hours=h) for h in range(3)]
    assert got.source == f"prometheus:{prometheus.url}"
    assert got.covered == inside
    assert got.covered_bytes_out == inside
    # Topics it saw but kept no row for are not idle: audit lacks records, orders/eu
    # has an illegal name; neither may get a zero row.
    assert got.withheld == {(t, m) for t in ("audit", "orders/eu") for m in inside}
    (note,) = [n for n in got.notes if "not covered" in n]
    assert "3 of 6 window(s) of 1h (from 2026-11-18T21:00:00Z to 2026-11-18T23:00:00Z)" in note


@pytest.mark.integration
def test_without_a_bytes_out_query_no_window_covers_bytes_out(
    prometheus: PrometheusServer, around_the_start: DataInterval
) -> None:
    source = PrometheusSource(prometheus.url, queries={"bytes_out_per_s": None})
    got = source.collect(around_the_start)
    assert len(got.covered) == 3 and got.covered_bytes_out == []


@pytest.mark.integration
def test_a_partial_answer_covers_nothing(
    prometheus: PrometheusServer, around_the_start: DataInterval
) -> None:
    partial = Reply(warnings=("store eu-1 unreachable, answer may be partial",))
    with FrontProxy(prometheus.url, [partial]) as front:
        got = PrometheusSource(front.url).collect(around_the_start)
    assert _table(got).num_rows == 3 * 3  # what it returned is still written
    assert got.covered == [] and got.withheld == set()


def _landing_topics(root: Path, topics: list[str]) -> Path:
    folder = root / "topics"
    folder.mkdir(parents=True)
    lines = ["topic,partitions,replication_factor,keyed"]
    lines += [f"{topic},6,3,false" for topic in topics]
    (folder / "topics.csv").write_text("\n".join(lines) + "\n")
    return root


@pytest.mark.integration
def test_a_listed_topic_without_series_gets_zero_rows_in_covered_windows_only(
    prometheus: PrometheusServer,
    history: History,
    around_the_start: DataInterval,
    tmp_path: Path,
) -> None:
    """`refunds` exists (the topics table lists it) and was never written to."""
    listed = ["orders", "payments", "clicks.v1", "audit", "refunds"]
    landing = _landing_topics(tmp_path / "landing", listed)
    figures = tmp_path / "figures"
    sources = [LandingSource(landing), PrometheusSource(prometheus.url)]
    report = collect_interval(sources, around_the_start, figures)
    table = read_table(figures, around_the_start, "throughput")
    assert table is not None
    source = f"prometheus:{prometheus.url}"
    refunds = _rows(table, "refunds")
    assert [row["ts"] for row in refunds] == [
        history.start + timedelta(hours=h) for h in range(3)
    ]  # and none in the three hours before, when Prometheus had nothing
    for row in refunds:
        assert (row["bytes_in_per_s"], row["records_in_per_s"]) == (0.0, 0.0)
        assert row["bytes_out_per_s"] == 0.0  # others have bytes-out series then
        assert row["source"] == source + IDLE_LABEL
    # audit's samples were rejected (no records): no zero is invented for it.
    assert _rows(table, "audit") == []
    orders = _rows(table, "orders")
    assert [_hour(history, row) for row in orders] == [0, 1, 2]
    assert {row["source"] for row in orders} == {source}
    (note,) = [n for n in report.notes if "zero-rate" in n]
    assert "1 topic(s) of the topics table had no sample in some (refunds)" in note
    assert "3 zero-rate row(s)" in note and "bytes out 0 in 3, unknown in 0" in note


# --- bytes out, optional ----------------------------------------------------------------


@pytest.mark.integration
def test_a_topic_without_bytes_out_keeps_a_null(collected: Collected) -> None:
    rows = _rows(_table(collected), "clicks.v1")
    assert rows and all(row["bytes_out_per_s"] is None for row in rows)
    assert all(row["bytes_in_per_s"] > 0 for row in rows)


@pytest.mark.integration
def test_an_absent_bytes_out_meter_leaves_the_column_null(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    absent = (
        'sum by (topic) (rate(kafka_server_brokertopicmetrics_fetchbytes_total{topic!=""}[$step]))'
    )
    got = PrometheusSource(prometheus.url, queries={"bytes_out_per_s": absent}).collect(two_days)
    table = _table(got)
    assert table.num_rows == 3 * 48
    assert table.column("bytes_out_per_s").null_count == table.num_rows
    assert any("bytes_out_per_s query returned no series" in note for note in got.notes)
    assert not any(r["field"] == "bytes_out_per_s" for r in _rejected(got))


@pytest.mark.integration
def test_bytes_out_can_be_switched_off(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    source = PrometheusSource(prometheus.url, queries={"bytes_out_per_s": None})
    assert "bytes_out_per_s" not in source.queries
    table = _table(source.collect(two_days))
    assert table.num_rows == 3 * 48
    assert table.column("bytes_out_per_s").null_count == table.num_rows


# --- queries from config ------------------------------------------------------------------


@pytest.mark.integration
def test_a_query_override_replaces_the_default(
    prometheus: PrometheusServer, history: History, two_days: DataInterval
) -> None:
    broker_one = (
        "sum by (topic) (rate(kafka_server_brokertopicmetrics_messagesin_total"
        '{topic!="",broker="1"}[$step]))'
    )
    source = PrometheusSource(prometheus.url, queries={"records_in_per_s": broker_one})
    assert source.queries["records_in_per_s"].endswith("[1h]))")
    assert source.queries["bytes_in_per_s"] == DEFAULT_QUERIES["bytes_in_per_s"].replace(
        "$step", "1h"
    )
    table = _table(source.collect(two_days))
    for row in _rows(table, "orders"):
        hour = _hour(history, row)
        assert row["records_in_per_s"] == pytest.approx(
            history.records_per_s("orders", 1, hour), rel=1e-9
        )
        assert row["bytes_in_per_s"] == pytest.approx(
            history.expected("bytes_in_per_s", "orders", hour), rel=1e-9
        )


@pytest.mark.integration
def test_a_query_with_a_fixed_window_gets_a_note(
    prometheus: PrometheusServer, history: History
) -> None:
    fixed = DEFAULT_QUERIES["bytes_out_per_s"].replace("$step", "5m")
    source = PrometheusSource(prometheus.url, queries={"bytes_out_per_s": fixed})
    got = source.collect(DataInterval(history.start, history.start + timedelta(hours=1)))
    assert any("bytes_out_per_s query has no $step" in note for note in got.notes)
    assert not any("bytes_in_per_s query has no" in note for note in got.notes)


@pytest.mark.integration
def test_queries_that_match_nothing_give_no_rows_and_say_so(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    nothing = "sum by (topic) (rate(kafka_server_no_such_meter_total[$step]))"
    queries = dict.fromkeys(("bytes_in_per_s", "records_in_per_s", "bytes_out_per_s"), nothing)
    got = PrometheusSource(prometheus.url, queries=queries).collect(two_days)
    assert _table(got).num_rows == 0
    assert _rejected(got) == []
    assert sum("returned no series" in note for note in got.notes) == 3


@pytest.mark.integration
def test_the_window_follows_the_step(prometheus: PrometheusServer, history: History) -> None:
    source = PrometheusSource(prometheus.url, step=timedelta(minutes=30))
    assert "[30m]" in source.queries["bytes_in_per_s"]
    day = DataInterval.day(history.start.date())
    rows = _rows(_table(source.collect(day)), "orders")
    assert len(rows) == 48
    for row in rows:  # rates are constant within an hour, so each half gives the hour's
        expected = history.expected("bytes_in_per_s", "orders", _hour(history, row))
        assert row["bytes_in_per_s"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.integration
def test_long_intervals_are_split_into_several_requests(
    prometheus: PrometheusServer, collected: Collected, two_days: DataInterval
) -> None:
    with FrontProxy(prometheus.url) as front:
        split = PrometheusSource(front.url, max_points_per_query=5).collect(two_days)
    assert front.requests == 3 * 10  # 48 steps in requests of 5 points, three queries
    expected = _table(collected).drop_columns(["source"])
    assert _table(split).drop_columns(["source"]).equals(expected)


@pytest.mark.integration
def test_a_trailing_part_step_is_left_out_with_a_note(
    prometheus: PrometheusServer, history: History
) -> None:
    interval = DataInterval(history.start, history.start + timedelta(hours=2, minutes=30))
    got = PrometheusSource(prometheus.url).collect(interval)
    assert len(_rows(_table(got), "orders")) == 2
    assert any("the last 1800 s" in note for note in got.notes)


def test_an_interval_shorter_than_the_step_is_an_error(history: History) -> None:
    interval = DataInterval(history.start, history.start + timedelta(minutes=30))
    with pytest.raises(FiguresError, match="shorter than the step 1h"):
        PrometheusSource("http://127.0.0.1:9").collect(interval)


# --- rejected rows ------------------------------------------------------------------------


@pytest.mark.integration
def test_an_illegal_topic_label_is_rejected_per_sample(
    collected: Collected, history: History
) -> None:
    assert _rows(_table(collected), "orders/eu") == []
    bad = [r for r in _rejected(collected) if r["value"] == "orders/eu"]
    assert len(bad) == history.hours
    assert all(r["field"] == "topic" and ILLEGAL in str(r["reason"]) for r in bad)
    assert all(r["row"] is None and r["table"] == "throughput" for r in bad)
    assert "sample at 2026-11-19T00:00:00Z" in str(bad[0]["reason"])


@pytest.mark.integration
def test_bytes_in_without_records_in_is_rejected_not_zeroed(
    collected: Collected, history: History
) -> None:
    assert _rows(_table(collected), "audit") == []
    bad = [r for r in _rejected(collected) if "'audit'" in str(r["reason"])]
    assert len(bad) == history.hours
    assert {r["field"] for r in bad} == {"records_in_per_s"}
    assert "no records_in_per_s sample where bytes_in_per_s has one" in str(bad[0]["reason"])


@pytest.mark.integration
def test_default_collection_rejects_nothing_else(collected: Collected, history: History) -> None:
    assert len(_rejected(collected)) == 2 * history.hours  # orders/eu and audit, above
    assert _table(collected).num_rows == 3 * history.hours


@pytest.mark.integration
def test_a_series_without_topic_label_is_rejected(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    # Without topic!="" the exporter's all-topics meter comes through as a topic-less sum.
    loose = "sum by (topic) (rate(kafka_server_brokertopicmetrics_bytesin_total[$step]))"
    got = PrometheusSource(prometheus.url, queries={"bytes_in_per_s": loose}).collect(two_days)
    bad = [r for r in _rejected(got) if "without a topic label" in str(r["reason"])]
    assert [(r["field"], r["value"]) for r in bad] == [("topic", "{}")]
    assert _table(got).num_rows == 3 * 48  # the topics themselves are unaffected


@pytest.mark.integration
def test_several_series_for_one_topic_are_rejected(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    per_broker = 'rate(kafka_server_brokertopicmetrics_bytesin_total{topic="orders"}[$step])'
    got = PrometheusSource(prometheus.url, queries={"bytes_in_per_s": per_broker}).collect(two_days)
    bad = [r for r in _rejected(got) if "carry topic 'orders'" in str(r["reason"])]
    assert sorted(str(r["value"]) for r in bad) == [
        f'{{broker="{b}",topic="orders"}}' for b in (1, 2, 3)
    ]
    assert "3 bytes_in_per_s series" in str(bad[0]["reason"])
    assert _table(got).num_rows == 0  # no topic has both required columns now
    missing = [r for r in _rejected(got) if r["field"] == "bytes_in_per_s"]
    assert len(missing) == 4 * 48  # orders, payments, clicks.v1 and orders/eu


@pytest.mark.integration
@pytest.mark.parametrize(
    ("query", "reason"),
    [
        (f"-1 * ({DEFAULT_QUERIES['bytes_out_per_s']})", "negative"),
        (f"0 * ({DEFAULT_QUERIES['bytes_out_per_s']}) / 0", "not a finite number"),
    ],
    ids=["negative", "nan"],
)
def test_bad_values_are_rejected(
    prometheus: PrometheusServer, two_days: DataInterval, query: str, reason: str
) -> None:
    got = PrometheusSource(prometheus.url, queries={"bytes_out_per_s": query}).collect(two_days)
    bad = [r for r in _rejected(got) if r["field"] == "bytes_out_per_s"]
    assert len(bad) == 2 * 48  # orders and payments have bytes out
    assert all(str(r["reason"]).startswith(reason) for r in bad)
    assert {row["topic"] for row in _table(got).to_pylist()} == {"clicks.v1"}


# --- faults -------------------------------------------------------------------------------


def test_prometheus_down_fails_after_bounded_retries(two_days: DataInterval) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there any more
    source = PrometheusSource(url, attempts=3, first_delay_s=0.05, timeout_s=1)
    began = time.monotonic()
    with pytest.raises(SourceUnavailable) as caught:
        source.collect(two_days)
    assert time.monotonic() - began < 3
    message = str(caught.value)
    assert url in message
    assert "failed 3 times" in message
    assert "Connection refused" in message
    assert "bytes_in_per_s query 'sum by (topic) (rate(" in message


def test_a_server_that_never_answers_times_out(two_days: DataInterval) -> None:
    with socket.socket() as silent:  # accepts connections into its backlog, never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        source = PrometheusSource(url, attempts=2, first_delay_s=0.05, timeout_s=0.3)
        began = time.monotonic()
        with pytest.raises(SourceUnavailable, match=r"failed 2 times, last error: no answer"):
            source.collect(two_days)
        assert time.monotonic() - began < 3


@pytest.mark.integration
def test_a_bad_query_fails_at_once_naming_it(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    broken = "sum by (topic) (rate(kafka_server_brokertopicmetrics_bytesin_total[$step])"
    with FrontProxy(prometheus.url) as front:
        source = PrometheusSource(front.url, queries={"bytes_in_per_s": broken})
        with pytest.raises(PrometheusQueryError) as caught:
            source.collect(two_days)
    assert front.requests == 1  # a 400 is not retried
    message = str(caught.value)
    assert "HTTP 400, bad_data" in message
    assert "parse error" in message
    assert broken.replace("$step", "1h") in message
    assert "bytes_in_per_s" in message


@pytest.mark.integration
def test_a_server_side_timeout_is_retried_then_reported(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    source = PrometheusSource(prometheus.url, query_timeout_s=1e-6, attempts=2, first_delay_s=0.01)
    with pytest.raises(SourceUnavailable, match=r"failed 2 times, last error: HTTP 503, timeout"):
        source.collect(two_days)


@pytest.mark.integration
def test_a_passing_outage_is_ridden_out(
    prometheus: PrometheusServer, collected: Collected, two_days: DataInterval
) -> None:
    outage = Reply(503, b'{"status":"error","errorType":"unavailable","error":"starting up"}')
    pauses: list[float] = []
    with FrontProxy(prometheus.url, [outage, outage]) as front:
        got = PrometheusSource(front.url, first_delay_s=0.5, sleep=pauses.append).collect(two_days)
    assert pauses == [0.5, 1.0]
    assert front.requests == 2 + 3
    assert _table(got).drop_columns(["source"]).equals(_table(collected).drop_columns(["source"]))


@pytest.mark.integration
def test_warnings_become_notes(prometheus: PrometheusServer, two_days: DataInterval) -> None:
    partial = Reply(warnings=("store eu-1 unreachable, answer may be partial",))
    with FrontProxy(prometheus.url, [partial]) as front:
        got = PrometheusSource(front.url).collect(two_days)
    (note,) = [n for n in got.notes if "warning" in n]
    assert "bytes_in_per_s" in note and "store eu-1 unreachable" in note


@pytest.mark.parametrize(
    ("reply", "match"),
    [
        (Reply(200, b"<html>Sign in</html>"), "not a Prometheus API answer"),
        (
            Reply(200, b'{"status":"success","data":{"resultType":"vector","result":[]}}'),
            "result type 'vector'",
        ),
        (
            Reply(302, b"", (("Location", "https://sso.example/login"),)),
            "redirected to https://sso.example/login",
        ),
        (Reply(404, b"404 page not found"), "HTTP 404"),
    ],
    ids=["html", "vector", "redirect", "not-found"],
)
def test_answers_that_are_not_figures_fail_clearly(
    two_days: DataInterval, reply: Reply, match: str
) -> None:
    with (
        FrontProxy("http://127.0.0.1:9", [reply]) as front,
        pytest.raises(PrometheusQueryError, match=match) as caught,
    ):
        PrometheusSource(front.url).collect(two_days)
    assert front.url in str(caught.value)
    assert front.requests == 1


@pytest.mark.integration
def test_too_large_an_answer_is_refused(
    prometheus: PrometheusServer, two_days: DataInterval
) -> None:
    source = PrometheusSource(prometheus.url, max_response_bytes=2_000)
    with pytest.raises(PrometheusQueryError, match="larger than 2000 bytes"):
        source.collect(two_days)


# --- credentials --------------------------------------------------------------------------


@pytest.mark.integration
def test_a_bearer_token_is_sent(prometheus: PrometheusServer, two_days: DataInterval) -> None:
    with FrontProxy(prometheus.url, authorization="Bearer t0ken") as front:
        got = PrometheusSource(front.url, bearer_token="t0ken").collect(two_days)
        assert _table(got).num_rows == 3 * 48
        with pytest.raises(PrometheusQueryError, match="HTTP 401"):
            PrometheusSource(front.url, bearer_token="wrong").collect(two_days)


@pytest.mark.integration
def test_basic_auth_is_sent(prometheus: PrometheusServer, two_days: DataInterval) -> None:
    expected = "Basic " + base64.b64encode(b"planner:s3cret").decode()
    with FrontProxy(prometheus.url, authorization=expected) as front:
        got = PrometheusSource(front.url, basic_auth=("planner", "s3cret")).collect(two_days)
    assert _table(got).num_rows == 3 * 48


def test_credentials_never_show() -> None:
    source = PrometheusSource("https://prom.example:9090/", bearer_token="t0ken")
    assert "t0ken" not in repr(source)
    assert source.source == "prometheus:https://prom.example:9090"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"url": "http://user:pw@prom:9090"}, "must not carry credentials"),
        ({"url": "prom:9090"}, "expected http"),
        ({"queries": {"bytes_per_s": "x"}}, "unknown column"),
        ({"queries": {"records_in_per_s": ""}}, "records_in_per_s is required"),
        ({"step": timedelta(milliseconds=1500)}, "whole seconds"),
        ({"bearer_token": "a", "basic_auth": ("u", "p")}, "not both"),
        ({"attempts": 0}, "attempts"),
    ],
)
def test_bad_configuration_is_refused(kwargs: dict[str, Any], match: str) -> None:
    arguments: dict[str, Any] = {"url": "http://prom:9090", **kwargs}
    with pytest.raises(ValueError, match=match):
        PrometheusSource(**arguments)
