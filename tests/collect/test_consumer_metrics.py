"""The consumers' own metrics read from a real Prometheus and matched to groups by client id.

The history is written as the two usual exporters name the Java consumer's gauges
(tests/support/prometheus.py turns it into TSDB blocks with promtool and serves them):
each member has a known rate and a known busy share, its `poll-idle-ratio-avg` written as
Kafka computes it for polls alike (`w / (2w + p)`, an idle share `f` reading `f / (1 +
f)`). The expected capacities and reading counts come from those parameters and from
Prometheus' rule that an evaluation at `t` reads the latest scrape at or before `t`,
never from the code under test.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from planner.collect.consumer_metrics import (
    ConsumerMetrics,
    ConsumerMetricsSettings,
    busy_by_group,
    owners_by_client,
)
from planner.collect.observations import ObservationsSource
from planner.collect.prometheus_api import PrometheusClient, PrometheusQueryError
from planner.figures import DataInterval
from planner.figures.schema import TIMESTAMP
from planner.observe.settings import ObserveSettings
from tests.support.prometheus import PrometheusServer, running_prometheus

START = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
START_S = int(START.timestamp())
LENGTH_S = 600
SCRAPE_S = 15
OFFSET_S = 5  # scrapes 5 s past each step: never on an evaluation instant
STEP_S = 15  # the observer's period: readings and member samples every 15 s
JMX_RATE = "kafka_consumer_consumer_fetch_manager_metrics_records_consumed_rate"
JMX_IDLE = "kafka_consumer_consumer_metrics_poll_idle_ratio_avg"
MM_RATE = "kafka_consumer_fetch_manager_records_consumed_rate"
MM_IDLE = "kafka_consumer_poll_idle_ratio_avg"


def kafka_ratio(busy: float) -> float:
    """`poll-idle-ratio-avg` of a member busy `busy` of the time in polls alike."""
    idle = 1.0 - busy
    return idle / (1.0 + idle)


@dataclass(frozen=True)
class Member:
    """One consumer instance's gauges.

    Attributes:
        client_id: Its client id.
        records_per_s: Its `records-consumed-rate`.
        busy: Its busy share (written as Kafka's ratio).
        nan_from_s: Seconds after START from which the idle ratio reads NaN, until
            `nan_to_s` (Kafka's Avg with no poll in its window).
        instance: Its `instance` label (two instances may share a client id).
    """

    client_id: str
    records_per_s: float
    busy: float
    nan_from_s: int = -1
    nan_to_s: int = -1
    instance: str = "app:9404"

    def idle_at(self, offset_s: int) -> float:
        if self.nan_from_s <= offset_s < self.nan_to_s:
            return math.nan
        return kafka_ratio(self.busy)


MEMBERS = (
    Member("paced-0", 200.0, 0.40),  # 500 records/s flat out
    Member("paced-1", 180.0, 0.40, nan_from_s=120, nan_to_s=180),  # 450; NaN for a minute
    Member("paced-2", 240.0, 0.30),  # 800, but owns partitions only from minute 5
    Member("lazy-0", 3.0, 0.02),  # busy 2 %: says nothing
    Member("blind-0", 100.0, 0.5, nan_from_s=0, nan_to_s=LENGTH_S + 60),  # NaN throughout
    Member("ghost-0", 300.0, 0.5),  # a client no group of the observations has
    Member("app", 100.0, 0.5),  # one client id in two groups
    Member("app", 100.0, 0.25, instance="app2:9404"),
)


def _gauge(name: str, lines: list[str], series: dict[str, list[tuple[int, float]]]) -> None:
    lines.append(f"# TYPE {name} gauge")
    for labels, points in series.items():
        lines.extend(
            f"{name}{{{labels}}} {'NaN' if math.isnan(v) else repr(v)} {t}" for t, v in points
        )


@dataclass(frozen=True)
class ConsumerHistory:
    """The members' gauges as both exporters name them (what `running_prometheus` needs:
    `openmetrics()`)."""

    members: tuple[Member, ...] = MEMBERS
    # Micrometer: records-consumed-rate per topic only, adding up to the member's rate.
    micrometer: dict[str, tuple[float, float, float]] = field(
        default_factory=lambda: {"mm-0": (150.0, 50.0, 0.25)}
    )

    def scrapes(self) -> list[int]:
        return list(range(START_S + OFFSET_S, START_S + LENGTH_S + 60, SCRAPE_S))

    def openmetrics(self) -> str:
        times = self.scrapes()
        lines: list[str] = []
        rates: dict[str, list[tuple[int, float]]] = {}
        idle: dict[str, list[tuple[int, float]]] = {}
        for m in self.members:
            labels = f'client_id="{m.client_id}",instance="{m.instance}"'
            rates[labels] = [(t, m.records_per_s) for t in times]
            idle[labels] = [(t, m.idle_at(t - START_S)) for t in times]
            # The per-topic meter under the same name: the default query must skip it.
            rates[labels + ',topic="orders"'] = [(t, m.records_per_s * 7) for t in times]
        _gauge(JMX_RATE, lines, rates)
        _gauge(JMX_IDLE, lines, idle)
        mm_rates: dict[str, list[tuple[int, float]]] = {}
        mm_idle: dict[str, list[tuple[int, float]]] = {}
        for client, (orders, payments, busy) in self.micrometer.items():
            labels = f'client_id="{client}",kafka_version="4.4.0"'
            mm_rates[labels + ',topic="orders"'] = [(t, orders) for t in times]
            mm_rates[labels + ',topic="payments"'] = [(t, payments) for t in times]
            mm_idle[labels] = [(t, kafka_ratio(busy)) for t in times]
        _gauge(MM_RATE, lines, mm_rates)
        _gauge(MM_IDLE, lines, mm_idle)
        lines.append("# EOF")
        return "\n".join(lines) + "\n"


def reading_at(member: Member, t: int) -> tuple[float, float] | None:
    """What Prometheus answers for `member` at `t`: the latest scrape at or before it."""
    scraped = [s for s in ConsumerHistory().scrapes() if s <= t]
    if not scraped or t - scraped[-1] > 300:
        return None
    return member.records_per_s, member.idle_at(scraped[-1] - START_S)


# The observer's view: who owned partitions of which topic, sampled every STEP_S.
OWNERSHIP: dict[tuple[str, str], dict[str, tuple[int, int]]] = {
    # (group, topic) -> client id -> [from, to) seconds after START
    ("paced", "orders"): {
        "paced-0": (0, LENGTH_S),
        "paced-1": (0, LENGTH_S),
        "paced-2": (300, LENGTH_S),
    },
    ("lazy", "orders"): {"lazy-0": (0, LENGTH_S)},
    ("blind", "orders"): {"blind-0": (0, LENGTH_S)},
    ("quiet", "orders"): {"quiet-0": (0, LENGTH_S)},  # no metrics at all
    ("a", "orders"): {"app": (0, LENGTH_S)},
    ("b", "payments"): {"app": (0, LENGTH_S)},
    ("mm", "orders"): {"mm-0": (0, LENGTH_S)},
    ("mm", "payments"): {"mm-0": (0, LENGTH_S)},
}


def members_table() -> pa.Table:
    rows: dict[str, list[object]] = {
        k: [] for k in ("ts", "group_id", "member_id", "client_id", "topic", "partition")
    }
    for (group, topic), clients in OWNERSHIP.items():
        for client, (lo, hi) in clients.items():
            for t in range(lo, hi, STEP_S):
                rows["ts"].append((START_S + t) * 1_000_000)
                rows["group_id"].append(group)
                rows["member_id"].append(f"{client}-member")
                rows["client_id"].append(client)
                rows["topic"].append(topic)
                rows["partition"].append(0)
    # A member without a client id, and a group's topic marker without a partition:
    # neither places a reading.
    for extra in [("paced", "x", "", "orders", 1), ("paced", "", "paced-0", "events", None)]:
        rows["ts"].append(START_S * 1_000_000)
        for key, value in zip(
            ("group_id", "member_id", "client_id", "topic", "partition"), extra, strict=True
        ):
            rows[key].append(value)
    return pa.table(
        {
            "ts": pa.array(rows["ts"], pa.int64()).cast(TIMESTAMP),
            "group_id": pa.array(rows["group_id"], pa.string()),
            "member_id": pa.array(rows["member_id"], pa.string()),
            "client_id": pa.array(rows["client_id"], pa.string()),
            "topic": pa.array(rows["topic"], pa.string()),
            "partition": pa.array(rows["partition"], pa.int32()),
        }
    )


def expected(group: str, topic: str) -> tuple[float, int, int, int] | None:
    """The capacity, reading count and window (seconds) the history gives a group: the
    median of rate / busy over the readings of members owning partitions then."""
    each: list[float] = []
    times: list[int] = []
    for client, (lo, hi) in OWNERSHIP[(group, topic)].items():
        for member in (m for m in MEMBERS if m.client_id == client):
            # Readings at every step of the run interval, both ends included; a reading
            # counts where the sample nearest it (at most a step away) had the client.
            for t in range(0, LENGTH_S + 1, STEP_S):
                owned = lo <= min(t, LENGTH_S - STEP_S) < hi
                got = reading_at(member, START_S + t)
                if not owned or got is None or math.isnan(got[1]) or member.busy < 0.05:
                    continue
                each.append(got[0] / member.busy)
                times.append(START_S + t)
    if not each:
        return None
    return float(np.median(each)), len(each), min(times), max(times)


@pytest.fixture(scope="module")
def prometheus() -> Iterator[PrometheusServer]:
    with running_prometheus(ConsumerHistory()) as server:  # type: ignore[arg-type]
        yield server


def _read(url: str, settings: ConsumerMetricsSettings) -> dict[tuple[str, str], object]:
    metrics = ConsumerMetrics(PrometheusClient(url), settings)
    readings = metrics.readings(START_S, START_S + LENGTH_S, STEP_S)
    owners, shared = owners_by_client(members_table())
    found = busy_by_group(readings, owners, gap_s=STEP_S, shared=shared)
    return dict(found)


def test_each_group_gets_the_capacity_of_its_own_members_readings(
    prometheus: PrometheusServer,
) -> None:
    found = _read(prometheus.url, ConsumerMetricsSettings())
    paced = expected("paced", "orders")
    assert paced is not None
    capacity, count, first, last = paced
    got = found[("paced", "orders")]
    assert got.source == "busy-fraction"  # type: ignore[attr-defined]
    assert got.records_per_s == pytest.approx(capacity)  # type: ignore[attr-defined]
    # paced-2 (800 records/s) counts from minute 5 only, paced-1's NaN minute not at all.
    assert got.evidence.startswith(f"{count} member reading(s)")  # type: ignore[attr-defined]
    assert (got.window_start_s, got.window_end_s) == (first, last)  # type: ignore[attr-defined]
    assert count == 40 + (40 - 4) + 21  # the oracle itself, spelled out


def test_readings_that_say_nothing_give_no_capacity(prometheus: PrometheusServer) -> None:
    found = _read(prometheus.url, ConsumerMetricsSettings())
    # Busy 2 %, NaN throughout, no metrics, a client id in two groups: nothing learned;
    # the client with metrics but no group is in no result.
    for key in [("lazy", "orders"), ("blind", "orders"), ("quiet", "orders")]:
        assert key not in found
    assert ("a", "orders") not in found and ("b", "payments") not in found
    assert set(found) == {("paced", "orders")}


def test_micrometer_names_add_up_the_per_topic_rates(prometheus: PrometheusServer) -> None:
    found = _read(prometheus.url, ConsumerMetricsSettings(naming="micrometer"))
    # 150 + 50 records/s while busy 25 %: 800 flat out, on both topics it owns.
    assert set(found) == {("mm", "orders"), ("mm", "payments")}
    for got in found.values():
        assert got.records_per_s == pytest.approx(800.0)  # type: ignore[attr-defined]


def test_a_query_override_and_a_bad_query(prometheus: PrometheusServer) -> None:
    # Half of each rate: the capacity halves, so the override is what was read.
    halved = ConsumerMetricsSettings(records_consumed_rate=f'{JMX_RATE}{{topic=""}} / 2')
    found = _read(prometheus.url, halved)
    full = expected("paced", "orders")
    assert full is not None
    assert found[("paced", "orders")].records_per_s == pytest.approx(full[0] / 2)  # type: ignore[attr-defined]
    with pytest.raises(PrometheusQueryError, match="poll_idle_ratio"):
        _read(prometheus.url, ConsumerMetricsSettings(poll_idle_ratio="sum by (("))


def test_settings_refuse_what_cannot_work() -> None:
    with pytest.raises(ValueError, match="naming"):
        ConsumerMetricsSettings(naming="opentelemetry")
    with pytest.raises(ValueError, match="min_busy"):
        ConsumerMetricsSettings(min_busy=0.0)


def test_the_observations_source_notes_what_it_read_and_left_out(
    prometheus: PrometheusServer, tmp_path: Path
) -> None:
    metrics = ConsumerMetrics(PrometheusClient(prometheus.url), ConsumerMetricsSettings())
    settings = ObserveSettings(observe_every_s=STEP_S, step_s=60.0)
    source = ObservationsSource(tmp_path, settings, consumer_metrics=metrics)
    run = DataInterval(START, datetime.fromtimestamp(START_S + LENGTH_S, UTC))
    notes: list[str] = []
    found = source._busy(members_table(), run, STEP_S, notes)
    assert set(found) == {("paced", "orders")}
    # 8 JMX-named series (two instances of "app"), 7 client ids; "app" is in two groups.
    assert "8 consumer series of 7 client id(s) read" in notes[0]
    assert "for 1 group and topic pair(s)" in notes[0]
    assert notes[1].endswith("(give each application its own client.id): app")
    assert len(notes) == 2
    # Without the metrics configured, nothing is read and nothing is said.
    assert ObservationsSource(tmp_path, settings)._busy(members_table(), run, 15.0, []) == {}
