"""PrometheusSource's default queries against real brokers exported the usual way.

Three Apache Kafka 4.4.0 nodes run the Prometheus JMX exporter's Java agent with the
repository's rules (`deploy/jmx-exporter/kafka-broker.yml`); a real Prometheus 2.42
scrapes them every second (tests/support/jmx_exporter.py). The test produces at known
rates to two topics (one keyed, one not, replicated three times) while two consumer
groups read one of them, then collects with the default queries and a 10 s step, the
collector's own parameter (an hour in production).

The truth comes from the brokers, not from the producer's intentions, which a loaded
machine bends: the topics stamp each batch with the broker's append time, so the logs
say how many records and bytes every partition had appended by any instant
(tests/support/kafka_log.py), and the consumers note when each batch reached them, which
is after the broker served it. A scrape at t that took d seconds reads counters that
hold at least what was appended (or received) by t and at most what was appended by
t + d; `rate()` over a window is the increase between its first and last scrape,
extrapolated to the edges (tests/support/prometheus.py `rate_factor`, checked against
Prometheus itself in test_prometheus.py). Together they bound, per window, what the
collected rate must be: "within the scrape's resolution", however loaded the machine.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pytest

from planner.collect.base import Collected
from planner.collect.idle import IDLE_LABEL
from planner.collect.prometheus import PrometheusSource
from planner.collect.run import merge
from planner.figures import DataInterval
from planner.figures.conform import conform
from tests.support.jmx_exporter import ExportedKafka, exported_kafka, instant, raw_samples
from tests.support.kafka_log import LOG_APPEND_TIME, Batch, Running, appended, batches
from tests.support.load import Readers, SteadyTopic, create_topics, leaders, produce_steadily
from tests.support.prometheus import rate_factor

pytestmark = [pytest.mark.integration, pytest.mark.kafka]

STEP_S = 10
"""The collector's step here: ten one-second scrapes per window."""
WINDOWS = 3
"""Whole windows of production compared with what the brokers logged."""
LEAD_S = 2.0
"""Seconds of production before the first compared window starts."""
TAIL_S = 1.5
"""Seconds of production after the last one ends, so its last scrape sees traffic."""
SLACK_MS = 1
"""Prometheus and Kafka both keep whole milliseconds."""
MIN_RECORDS_PER_S = 5
"""The least the brokers must have appended per window for a comparison to mean much."""
BATCH_HEADER_BYTES = 61
"""A v2 record batch's header; a batch of one record pays all of it."""
RECORD_FRAMING_MAX_BYTES = 12
"""A record's own framing at these sizes: length, attributes, timestamp and offset deltas,
key and value lengths and a header count, each a byte or two (varints)."""

ORDERS = SteadyTopic(
    "orders", partitions=6, records_per_s=300, value_bytes=200, keys=64, groups=("billing", "audit")
)
CLICKS = SteadyTopic("clicks", partitions=3, records_per_s=500, value_bytes=100)
TOPICS = (ORDERS, CLICKS)
IDLE = SteadyTopic("refunds", partitions=3, records_per_s=0, value_bytes=0)
"""Created with the others and never written to or read."""
# Column -> (the meter it reads, whether its truth is records (0) or bytes (1)).
METERS = {
    "records_in_per_s": ("messagesin", 0),
    "bytes_in_per_s": ("bytesin", 1),
    "bytes_out_per_s": ("bytesout", 1),
}


@dataclass(frozen=True)
class Truth:
    """Per partition, what a meter must hold by any instant: at least `least`, at most `most`.

    A broker marks a topic's bytes-in and messages-in meters on the same append that the
    log stamps, so for them both are the log's running totals. A consumer receives a batch
    only after the broker served it, and the broker cannot serve it before appending it,
    so bytes out lie between what the groups had received and what the groups could have
    fetched (every group, everything appended).
    """

    least: Running
    most: Running


@dataclass(frozen=True)
class Run:
    """One production run and what came of it.

    Attributes:
        windows: Starts of the compared windows, all inside the production.
        collected: The default queries over the run's interval.
        logged: Per topic, the batches the brokers appended (from node 1's replicas).
        sent: Records produced per topic.
        leaders: Per topic, partition -> leading node id.
        instances: Prometheus's `instance` label -> node id.
        scrapes: Per meter, per (instance, topic), the (seconds, value) samples scraped.
        durations_s: Per instance, scrape timestamp in ms -> seconds the scrape took.
        truths: Per (meter, topic), the bounds on its counters.
    """

    windows: list[datetime]
    collected: Collected
    logged: dict[str, list[Batch]]
    sent: dict[str, int]
    leaders: dict[str, dict[int, int]]
    instances: dict[str, int]
    scrapes: dict[str, dict[tuple[str, str], list[tuple[float, float]]]]
    durations_s: dict[str, dict[int, float]]
    truths: dict[tuple[str, str], Truth]
    resent_bytes: float = 0.0
    """Bytes out beyond one copy of every batch per group (`test_bytes_out_counts_...`)."""

    def rows(self, topic: str) -> list[dict[str, Any]]:
        (part,) = self.collected.parts["throughput"]
        table: pa.Table = part.table
        return [r for r in table.to_pylist() if r["topic"] == topic and r["ts"] in self.windows]

    def led_by(self, instance: str, topic: str) -> list[int]:
        node = self.instances[instance]
        return [p for p, leader in self.leaders[topic].items() if leader == node]

    def held(self, meter: str, topic: str, instance: str, at_s: float) -> tuple[float, float]:
        """The least and most a broker's counter can read in a scrape stamped `at_s`."""
        truth = self.truths[(meter, topic)]
        pick = next(kind for name, kind in METERS.values() if name == meter)
        partitions = self.led_by(instance, topic)
        took_s = self.durations_s[instance][round(at_s * 1000)]
        least = truth.least.by(at_s * 1000 - SLACK_MS, partitions)[pick]
        most = truth.most.by((at_s + took_s) * 1000 + SLACK_MS, partitions)[pick]
        if meter == "bytesout":
            most += self.resent_bytes
        return least, most

    def rate_bounds(self, column: str, topic: str, window: datetime) -> tuple[float, float]:
        """The least and most `rate()` can give over `window`, summed over brokers."""
        meter, _ = METERS[column]
        start_s = window.timestamp()
        end_s = start_s + STEP_S
        least = most = 0.0
        for (instance, name), samples in self.scrapes[meter].items():
            inside = [(t, v) for t, v in samples if name == topic and start_s <= t <= end_s]
            if len(inside) < 2:
                continue  # rate() has no value for this broker in this window either
            (first_s, first), (last_s, last) = inside[0], inside[-1]
            factor = rate_factor(
                [t for t, _ in inside], first, last - first, start_s=start_s, end_s=end_s
            )
            first_least, first_most = self.held(meter, topic, instance, first_s)
            last_least, last_most = self.held(meter, topic, instance, last_s)
            least += (last_least - first_most) * factor
            most += (last_most - first_least) * factor
        return least, most

    def logged_in(self, topic: str, window: datetime) -> tuple[int, int]:
        """Records and bytes the brokers appended to `topic` during `window`."""
        start_ms = window.timestamp() * 1000
        end_ms = start_ms + STEP_S * 1000
        inside = [b for b in self.logged[topic] if start_ms <= b.append_ms < end_ms]
        return sum(b.records for b in inside), sum(b.size_bytes for b in inside)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExportedKafka]:
    """Three Kafka nodes with the JMX exporter agent, scraped every second; this module only."""
    with exported_kafka(tmp_path_factory.mktemp("kafka-exported")) as running:
        yield running


def _wait_scraped_after(url: str, moment_s: float, timeout_s: float = 60.0) -> None:
    """Wait until Prometheus holds a scrape of every broker taken after `moment_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        stamps = instant(url, 'timestamp(up{job="kafka-brokers"} == 1)')
        if len(stamps) == 3 and min(float(s["value"][1]) for s in stamps) > moment_s:
            return
        time.sleep(0.2)
    raise AssertionError(f"no scrape of every broker after {moment_s} within {timeout_s:.0f} s")


def _truths(logged: dict[str, list[Batch]], readers: Readers) -> dict[tuple[str, str], Truth]:
    truths: dict[tuple[str, str], Truth] = {}
    for topic in TOPICS:
        in_log = appended(logged[topic.name])
        truths[("messagesin", topic.name)] = truths[("bytesin", topic.name)] = Truth(in_log, in_log)
    batches_read = [(g, b) for g in ORDERS.groups for b in logged[ORDERS.name]]
    # A batch reached a group when its first record did.
    arrived = [
        readers.received[g][(ORDERS.name, b.partition, b.base_offset)] for g, b in batches_read
    ]
    received = Running(
        (b.partition, at_ms, b.records, b.size_bytes)
        for (_, b), at_ms in zip(batches_read, arrived, strict=True)
    )
    fetchable = Running(
        (b.partition, b.append_ms, b.records, b.size_bytes) for _, b in batches_read
    )
    truths[("bytesout", ORDERS.name)] = Truth(received, fetchable)
    return truths


@pytest.fixture(scope="module")
def run(exported: ExportedKafka) -> Run:
    """Produce for three whole windows while two groups read along, then collect."""
    bootstrap = exported.cluster.bootstrap
    url = exported.prometheus_url
    create_topics(bootstrap, (*TOPICS, IDLE), replication_factor=3, config=LOG_APPEND_TIME)
    with Readers(bootstrap, TOPICS) as readers:
        readers.wait_assigned(timeout_s=60)
        # Production starts at least LEAD_S before the first window: the topic meters
        # exist from the first append, and the consumers are fetching by then.
        first = (int(time.time() + LEAD_S) // STEP_S + 1) * STEP_S
        end = first + WINDOWS * STEP_S
        sent = produce_steadily(bootstrap, TOPICS, until_s=end + TAIL_S)
        readers.wait_read(dict.fromkeys(ORDERS.groups, sent[ORDERS.name]), timeout_s=60)
    # The last offset commits happened as the readers closed: the counters are final.
    _wait_scraped_after(url, time.time() + exported.scrape_s)
    # The figures layer starts an interval on a whole minute: collect from the minute
    # before the first window and compare only the windows of production.
    start = datetime.fromtimestamp(first - first % 60, UTC)
    interval = DataInterval(start, datetime.fromtimestamp(end, UTC))
    # Waiting for a scrape after the last window did what `settle` does in production,
    # where the collector cannot wait for a scrape it does not know the interval of.
    source = PrometheusSource(url, step=timedelta(seconds=STEP_S), settle=timedelta(0))
    collected = source.collect(interval)
    logged = batches(exported.cluster.node(1).data_dir, [t.name for t in TOPICS])
    topics = "|".join(t.name for t in TOPICS)
    scrapes = {
        meter: raw_samples(
            url,
            f'kafka_server_brokertopicmetrics_{meter}_total{{topic=~"{topics}"}}',
            start_s=first,
            end_s=end,
        )
        for meter, _ in METERS.values()
    }
    durations = raw_samples(
        url, 'scrape_duration_seconds{job="kafka-brokers"}', start_s=first, end_s=end
    )
    groups_read = len(ORDERS.groups) * sum(b.size_bytes for b in logged[ORDERS.name])
    return Run(
        resent_bytes=_total(url, "bytesout", ORDERS.name) - groups_read,
        windows=[datetime.fromtimestamp(first + k * STEP_S, UTC) for k in range(WINDOWS)],
        collected=collected,
        logged=logged,
        sent=sent,
        leaders={t.name: leaders(bootstrap, t.name) for t in TOPICS},
        instances=exported.instances,
        scrapes=scrapes,
        durations_s={
            instance: {round(t * 1000): d for t, d in samples}
            for (instance, _), samples in durations.items()
        },
        truths=_truths(logged, readers),
    )


def _value(url: str, query: str) -> float:
    """The one value an instant query gives now."""
    (sample,) = instant(url, query)
    return float(sample["value"][1])


def _total(url: str, meter: str, topic: str) -> float:
    """A topic's counter summed over brokers, now."""
    return _value(url, f'sum(kafka_server_brokertopicmetrics_{meter}_total{{topic="{topic}"}})')


# --- names --------------------------------------------------------------------------------


def test_the_exporter_rules_give_the_names_the_default_queries_read(
    exported: ExportedKafka, run: Run
) -> None:
    for meter, topics in (
        ("bytesin", {"orders", "clicks"}),
        ("messagesin", {"orders", "clicks"}),
        ("bytesout", {"orders"}),  # nobody reads clicks: its meter never starts
    ):
        name = f"kafka_server_brokertopicmetrics_{meter}_total"
        found = instant(exported.prometheus_url, f'count by (topic) ({name}{{topic=~".+"}})')
        assert {s["metric"]["topic"] for s in found} >= topics, name
        # Each broker also exports the meter over all its topics, without a topic label.
        everything = instant(exported.prometheus_url, f'{name}{{topic=""}}')
        assert len(everything) == 3, name
    (part,) = run.collected.parts["throughput"]
    assert {"orders", "clicks"} <= set(part.table.column("topic").to_pylist())


def test_the_counters_are_counters_to_prometheus(exported: ExportedKafka, run: Run) -> None:
    with urllib.request.urlopen(f"{exported.prometheus_url}/api/v1/metadata", timeout=30) as r:
        metadata = json.load(r)["data"]
    for meter, _ in METERS.values():
        (entry,) = metadata[f"kafka_server_brokertopicmetrics_{meter}"]
        assert entry["type"] == "counter", meter  # so rate() applies and resets are handled


# --- what the meters count ----------------------------------------------------------------


def test_summed_over_brokers_each_appended_batch_counts_once(
    exported: ExportedKafka, run: Run
) -> None:
    url = exported.prometheus_url
    for topic in TOPICS:
        logged = run.logged[topic.name]
        assert sum(b.records for b in logged) == run.sent[topic.name]
        # Three replicas, but only the leader's append marks the topic meters.
        assert _total(url, "messagesin", topic.name) == run.sent[topic.name]
        assert _total(url, "bytesin", topic.name) == sum(b.size_bytes for b in logged)
    # Followers count what they copy on the replication meter instead (KIP-153): twice
    # the bytes in over all topics, internal ones included, with two followers each.
    copied, appended_bytes = (
        _value(url, f'sum(kafka_server_brokertopicmetrics_{meter}_total{{topic=""}})')
        for meter in ("replicationbytesin", "bytesin")
    )
    assert copied == pytest.approx(2 * appended_bytes, rel=1e-3)


def test_bytes_out_counts_each_group_fetching_the_batches(run: Run) -> None:
    """Every group fetches every batch once; a fetch sent again counts again.

    On a loaded machine a consumer sometimes sends a fetch again (its response came after
    the client gave up on it, or a partition moved between members): the broker sends
    those batches a second time and `BytesOutPerSec` counts them twice. Seen in one
    full run here with a load average of 20-29 on 2 cores: one 495-byte batch. So the
    counter holds one copy per group plus, at most, a few whole batches of the topic.
    """
    assert run.resent_bytes >= 0
    sizes = {b.size_bytes for b in run.logged[ORDERS.name]}
    assert _whole_batches(round(run.resent_bytes), sizes, most=3), run.resent_bytes


def _whole_batches(total: int, sizes: set[int], *, most: int) -> bool:
    """Whether `total` bytes are the sizes of at most `most` batches (repeats allowed)."""
    reachable = {0}
    for _ in range(most):
        if total in reachable:
            return True
        reachable |= {r + s for r in reachable for s in sizes if r + s <= total}
    return total in reachable


@pytest.mark.parametrize(
    ("meter", "topic"),
    [
        ("messagesin", "orders"),
        ("messagesin", "clicks"),
        ("bytesin", "orders"),
        ("bytesin", "clicks"),
        ("bytesout", "orders"),
    ],
)
def test_every_scrape_reads_what_the_brokers_had_counted_by_then(
    run: Run, meter: str, topic: str
) -> None:
    checked = 0
    for (instance, name), samples in run.scrapes[meter].items():
        if name != topic:
            continue
        for at_s, value in samples:
            least, most = run.held(meter, topic, instance, at_s)
            assert least <= value <= most, (instance, at_s, least, value, most)
            checked += 1
    assert checked >= 3 * WINDOWS * STEP_S * 0.5  # most of one scrape a second per broker


# --- rates through the collector ------------------------------------------------------------


@pytest.mark.parametrize(
    ("column", "topic"),
    [
        ("records_in_per_s", "orders"),
        ("records_in_per_s", "clicks"),
        ("bytes_in_per_s", "orders"),
        ("bytes_in_per_s", "clicks"),
        ("bytes_out_per_s", "orders"),
    ],
)
def test_collected_rates_are_what_the_brokers_did_within_the_scrapes_resolution(
    run: Run, column: str, topic: str
) -> None:
    rows = run.rows(topic)
    assert [r["ts"] for r in rows] == run.windows
    for row in rows:
        records, _ = run.logged_in(topic, row["ts"])
        # A loaded machine makes the brokers append late and in bursts; enough records
        # for a meaningful comparison all the same.
        assert records >= MIN_RECORDS_PER_S * STEP_S, (topic, row["ts"], records)
        least, most = run.rate_bounds(column, topic, row["ts"])
        assert least > 0
        assert least * (1 - 1e-9) <= row[column] <= most * (1 + 1e-9), (row["ts"], least, most)


def test_a_topic_nobody_reads_has_no_bytes_out(run: Run) -> None:
    rows = run.rows("clicks")
    assert rows and all(row["bytes_out_per_s"] is None for row in rows)


@pytest.mark.parametrize("topic", TOPICS, ids=lambda t: t.name)
def test_bytes_in_is_the_payload_plus_kafkas_framing(run: Run, topic: SteadyTopic) -> None:
    """BytesInPerSec counts record batches as appended: keys, values and their framing.

    How much framing a record carries depends on how many records share a batch header,
    which changes from window to window with the producer's batching; its bounds do not.
    """
    logged = run.logged[topic.name]
    records = sum(b.records for b in logged)
    framing = (sum(b.size_bytes for b in logged) - records * topic.payload_bytes) / records
    # At least a byte for each of a record's seven framing fields; at most their varints
    # plus a whole batch header per record.
    least, most = 7, RECORD_FRAMING_MAX_BYTES + BATCH_HEADER_BYTES
    assert least <= framing <= most
    for row in run.rows(topic.name):
        collected = row["bytes_in_per_s"] / row["records_in_per_s"] - topic.payload_bytes
        # Both rates come from the same scrapes, so their ratio is the framing of the
        # batches between them, nearly exactly.
        assert least * 0.95 <= collected <= most * 1.05, (row["ts"], collected)


def test_internal_topics_stay_out_of_the_figures(exported: ExportedKafka, run: Run) -> None:
    # The groups' offset commits are appends to __consumer_offsets, counted as bytes in.
    assert _total(exported.prometheus_url, "bytesin", "__consumer_offsets") > 0
    (part,) = run.collected.parts["throughput"]
    assert not [t for t in part.table.column("topic").to_pylist() if t.startswith("__")]


def test_default_collection_rejects_nothing(run: Run) -> None:
    assert [row for table in run.collected.rejected for row in table.to_pylist()] == []


def test_a_topic_never_written_to_has_no_series_and_merges_as_idle(
    exported: ExportedKafka, run: Run
) -> None:
    """Why a covered window proves a topic idle: Kafka creates its meters on first use."""
    url = exported.prometheus_url
    for meter, _ in METERS.values():
        name = f"kafka_server_brokertopicmetrics_{meter}_total"
        assert instant(url, f'{name}{{topic="{IDLE.name}"}}') == [], meter
    assert set(run.windows) <= set(run.collected.covered)  # production windows all covered
    names = [t.name for t in (*TOPICS, IDLE)]
    topics = Collected()
    raw = pa.table(
        {
            "topic": names,
            "partitions": ["6"] * len(names),
            "replication_factor": ["3"] * len(names),
            "keyed": ["false"] * len(names),
        }
    )
    topics.add("topics", conform("topics", raw, source="kafka-admin:test"))
    tables, _, _ = merge([topics, run.collected])
    idle = [r for r in tables["throughput"].to_pylist() if r["topic"] == IDLE.name]
    assert sorted(r["ts"] for r in idle) == run.collected.covered
    measured_out = set(run.collected.covered_bytes_out)
    assert set(run.windows) <= measured_out  # orders' groups fetched in every one
    for row in idle:
        assert (row["records_in_per_s"], row["bytes_in_per_s"]) == (0.0, 0.0)
        assert row["bytes_out_per_s"] == (0.0 if row["ts"] in measured_out else None)
        assert row["source"] == f"prometheus:{url}{IDLE_LABEL}"
    # The written topics keep their own rows: no zero where they had one.
    for topic in TOPICS:
        mine = [r for r in tables["throughput"].to_pylist() if r["topic"] == topic.name]
        assert {r["source"] for r in mine} == {f"prometheus:{url}"}
