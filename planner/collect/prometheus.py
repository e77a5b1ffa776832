"""Throughput figures from Prometheus: per-topic rates of Kafka's broker topic meters.

Kafka brokers count, per topic, the bytes and records producers append
(`BrokerTopicMetrics` `BytesInPerSec`, `MessagesInPerSec`) and the bytes consumers fetch
(`BytesOutPerSec`); the Prometheus JMX exporter's Java agent, with the rules of the
exporter project's Kafka example (ours: `deploy/jmx-exporter/kafka-broker.yml`),
publishes them as the counters `kafka_server_brokertopicmetrics_{bytesin,messagesin,
bytesout}_total` with a `topic` label, one series per broker. Only the partition leader's
append marks the topic meters, and followers count what they copy on replication meters
of their own (KIP-153), so summing over brokers gives each topic's client traffic once,
not once per replica. Bytes in are record batches as appended, Kafka's framing included
(a 61-byte header per batch, a few bytes per record); bytes out count each consumer
group's fetches. Kafka's internal topics (`__consumer_offsets` takes every offset commit)
are left out, as the Kafka admin source leaves them out. All of this was checked against
Apache Kafka 4.4.0, exporter agent 1.0.1 and Prometheus 2.42 (docs/figures.md).

Which window a sample describes
-------------------------------
A canonical throughput row at `ts` T describes the half-open step [T, T+step). The rate
of that step is `rate(counter[step])` evaluated at T+step, because a PromQL range selector
looks *back* from its evaluation instant. So for an interval [start, end) holding n
whole steps, the source asks `/api/v1/query_range` for start+step .. start+n*step (both
ends inclusive: Prometheus evaluates at query start + k*step for every instant up to and
including the query end, n points), and moves every returned timestamp back by one
step. Consecutive windows tile the interval with neither gaps nor overlaps, and a daily
interval reads exactly its own 24 hours. Labelling the rate with its evaluation instant,
as dashboards do, would put the figures of [T-step, T) at T: one step late, and a day
would carry the previous day's last hour instead of its own.

The window equals the step on purpose: a shorter one would sample only part of each
step (missing bursts in between), a longer one would blur neighbouring steps into each
other. The step must span several scrape intervals, since `rate()` needs two scrapes in
a window; an hour against the usual 15-60 s scrapes is ample.

`rate()` sees only the scrapes inside a window and extrapolates their slope to the
window's edges when the first and last scrape lie within 1.1 average scrape intervals of
them, so the counts between the last scrape of one window and the first of the next are
shared out by slope and the windows still add up to the counter's increase. A counter
that drops is read as a restart from zero (a broker restart), so restarts do not turn
into negative or huge rates; what a broker counted after its last scrape before dying is
lost to every tool. Prometheus 2.x selects the scrapes in [E-step, E], 3.x in
(E-step, E]: they differ only for a scrape exactly on a step boundary, which 2.x counts in
both windows. A window that has not closed yet when the query runs gives the rate over
the part seen so far: collect an interval after it ends (plus a scrape interval).

What is rejected, and why
-------------------------
`records_in_per_s` and `bytes_in_per_s` are both required, so a topic that has one and
not the other at some `ts` is rejected for that `ts` with the name of the missing column:
inventing a zero would size the topic for no traffic. `bytes_out_per_s` is optional: a
topic nobody consumes, or a Prometheus without the bytes-out meter at all, leaves it
null. Series-level faults (a series with no `topic` label, several series for one topic
because an overriding query did not aggregate by topic) reject one row per series. The
rest (an illegal Kafka topic name, a NaN, infinite or negative rate) is checked by
`planner.figures.conform` like every other source's rows, one rejected row per sample,
its reason ending with the topic and the sample's start. Rejected rows carry no row
number: a query result has none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa

from planner.collect.base import Collected
from planner.collect.kafka_groups import INTERNAL_PREFIX
from planner.collect.prometheus_api import (
    MAX_POINTS,
    PrometheusClient,
    PrometheusQueryError,
    Series,
)
from planner.figures.conform import Conformed, FiguresError, conform, empty, rejections
from planner.figures.dataset import DataInterval
from planner.figures.schema import TIMESTAMP

__all__ = [
    "COLUMNS",
    "DEFAULT_QUERIES",
    "STEP_TOKEN",
    "PrometheusQueryError",
    "PrometheusSource",
]

STEP_TOKEN = "$step"
"""Written in a query where the range window goes; replaced by the step, e.g. `1h`."""

DEFAULT_QUERIES: Mapping[str, str] = {
    column: f"sum by (topic) (rate(kafka_server_brokertopicmetrics_{meter}_total"
    f'{{topic!="",topic!~"{INTERNAL_PREFIX}.*"}}[{STEP_TOKEN}]))'
    for column, meter in (
        ("bytes_in_per_s", "bytesin"),
        ("records_in_per_s", "messagesin"),
        ("bytes_out_per_s", "bytesout"),
    )
}
"""PromQL per throughput column, over the names the JMX exporter's Kafka rules give the
broker topic meters (`deploy/jmx-exporter/kafka-broker.yml`). `topic!=""` leaves out each
broker's all-topics meter, which has no `topic` label; `topic!~"__.*"` leaves out Kafka's
internal topics (`__consumer_offsets` counts every offset commit as bytes in), which
the planner does not size, as the Kafka admin source skips them."""

COLUMNS = tuple(DEFAULT_QUERIES)
_REQUIRED = ("bytes_in_per_s", "records_in_per_s")


def _duration(seconds: int) -> str:
    """A PromQL duration for whole seconds: 3600 -> `1h`, 300 -> `5m`, 90 -> `90s`."""
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


class PrometheusSource:
    """Per-topic throughput rates from a Prometheus server's HTTP API.

    Attributes:
        name: The source's name in the planner config and in reports.
        url: The server's base URL (with any path prefix), no trailing slash.
        step: The sample length; one row per topic per step.
        queries: The PromQL per throughput column, the step already written in.
    """

    name: str

    def __init__(
        self,
        url: str,
        *,
        queries: Mapping[str, str | None] | None = None,
        step: timedelta = timedelta(hours=1),
        timeout_s: float = 30.0,
        query_timeout_s: float | None = None,
        attempts: int = 4,
        first_delay_s: float = 0.5,
        bearer_token: str | None = None,
        basic_auth: tuple[str, str] | None = None,
        name: str = "prometheus",
        max_points_per_query: int = MAX_POINTS,
        max_response_bytes: int = 256 * 1024 * 1024,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        """Configure the source; nothing is contacted until `collect`.

        Args:
            url: Base URL, e.g. `https://prometheus.example:9090` or one with a path
                prefix behind a proxy. Credentials do not belong in it.
            queries: Overrides of `DEFAULT_QUERIES` per column (`bytes_in_per_s`,
                `records_in_per_s`, `bytes_out_per_s`). Write `$step` where the range
                window goes so the window follows the step. An empty string or None
                for `bytes_out_per_s` skips that optional column.
            step: Sample length, whole seconds (default 1 h).
            timeout_s: Seconds to wait for the connection and for each read.
            query_timeout_s: Seconds Prometheus may spend evaluating one request (its
                `timeout` parameter, capped by the server's `--query.timeout`); default
                `timeout_s`. A server-side timeout is answered with 503 and retried.
            attempts: Tries per request before giving up (connection refused, timeouts,
                5xx and 429 answers are retried; a rejected query is not).
            first_delay_s: Seconds before the second try; doubled after each failure.
            bearer_token: Sent as `Authorization: Bearer ...`.
            basic_auth: (user, password) for HTTP basic authentication.
            name: The source's name.
            max_points_per_query: Points per series per request; longer intervals are
                split into several requests (Prometheus refuses more than 11,000).
            max_response_bytes: Largest answer accepted (after decompression); a larger
                one is an error rather than a memory blow-up.
            sleep: Replaces `time.sleep` between tries.

        Raises:
            ValueError: a malformed URL, step or query mapping, or two kinds of
                credentials at once.
        """
        self._client = PrometheusClient(
            url,
            timeout_s=timeout_s,
            query_timeout_s=query_timeout_s,
            attempts=attempts,
            first_delay_s=first_delay_s,
            bearer_token=bearer_token,
            basic_auth=basic_auth,
            max_response_bytes=max_response_bytes,
            sleep=sleep,
        )
        self.url = self._client.url
        self.name = name
        step_s = step.total_seconds()
        if step_s < 1 or step_s != int(step_s):
            raise ValueError(f"Prometheus step must be whole seconds, at least 1; got {step}")
        self.step = step
        self._step_s = int(step_s)
        if not 1 <= max_points_per_query <= MAX_POINTS:
            raise ValueError(f"max_points_per_query must be within 1..{MAX_POINTS}")
        self._fixed_window: list[str] = []
        self.queries = self._resolve(queries or {})
        self._max_points = max_points_per_query

    def __repr__(self) -> str:  # never the credentials
        return f"PrometheusSource({self.url!r}, step={_duration(self._step_s)})"

    @property
    def source(self) -> str:
        """The `source` value of every row: `prometheus:<url>`."""
        return f"prometheus:{self.url}"

    def _resolve(self, overrides: Mapping[str, str | None]) -> dict[str, str]:
        unknown = sorted(set(overrides) - set(COLUMNS))
        if unknown:
            raise ValueError(
                f"Prometheus queries: unknown column(s) {', '.join(unknown)} "
                f"(known: {', '.join(COLUMNS)})"
            )
        window = _duration(self._step_s)
        resolved: dict[str, str] = {}
        for column in COLUMNS:
            query = overrides.get(column, DEFAULT_QUERIES[column])
            if not query or not query.strip():
                if column in _REQUIRED:
                    raise ValueError(f"Prometheus queries: {column} is required, give a query")
                continue
            if STEP_TOKEN not in query:
                self._fixed_window.append(column)
            resolved[column] = query.strip().replace(STEP_TOKEN, window)
        return resolved

    def collect(self, interval: DataInterval) -> Collected:
        """Query every column's rates over `interval`, one sample per topic per step.

        Raises:
            SourceUnavailable: the server could not be reached (or kept failing) within
                the tries; names the URL, the query and the last error.
            PrometheusQueryError: the server rejected a query or gave an unusable answer.
            FiguresError: the interval is shorter than one step.
        """
        span_s = int((interval.end - interval.start).total_seconds())
        steps, rest_s = divmod(span_s, self._step_s)
        if steps == 0:
            raise FiguresError(
                f"{self.source}: interval {interval} is shorter than the step "
                f"{_duration(self._step_s)}"
            )
        collected = Collected()
        if rest_s:
            collected.notes.append(
                f"{self.source}: the last {rest_s} s of {interval} make no whole step of "
                f"{_duration(self._step_s)} and were not collected"
            )
        collected.notes.extend(
            f"{self.source}: the {column} query has no {STEP_TOKEN}, so its range window "
            "does not follow the step; a sample may not cover its whole step"
            for column in self._fixed_window
        )
        start_s = int(interval.start.timestamp())
        frames: dict[str, pa.Table] = {}
        refused: list[pa.Table] = []
        for column, query in self.queries.items():
            series = self._fetch(column, query, start_s, steps, collected.notes)
            frame, bad = self._frame(column, series)
            frames[column] = frame
            refused.extend(bad)
            if not series:
                collected.notes.append(
                    f"{self.source}: the {column} query returned no series"
                    + (
                        "; every topic lacks this required column"
                        if column in _REQUIRED
                        else " (is the meter exported?); the column is left empty"
                    )
                )
        raw, missing = _join(frames, self.source)
        refused.append(missing)
        conformed = conform("throughput", raw, source=self.source, first_row=0)
        refused.append(_with_context(conformed.rejected, raw))
        table = conformed.table
        collected.add("throughput", Conformed(table, pa.concat_tables(refused), None))
        topics = len(set(table.column("topic").to_pylist()))
        collected.notes.append(
            f"{self.source}: {table.num_rows} samples of {topics} topics over {steps} steps "
            f"of {_duration(self._step_s)}"
        )
        return collected

    def _fetch(
        self, column: str, query: str, start_s: int, steps: int, notes: list[str]
    ) -> list[Series]:
        """All series of one query over `steps` windows from `start_s`, merged over chunks."""
        merged: dict[tuple[tuple[str, str], ...], Series] = {}
        for first in range(0, steps, self._max_points):
            last = min(first + self._max_points, steps)
            # Point k is evaluated at the end of window k and describes the window.
            begin = start_s + (first + 1) * self._step_s
            end = start_s + last * self._step_s
            for series in self._query_range(column, query, begin, end, notes):
                key = tuple(sorted(series.labels.items()))
                if key in merged:
                    merged[key].times.extend(series.times)
                    merged[key].values.extend(series.values)
                else:
                    merged[key] = series
        return list(merged.values())

    def _query_range(
        self, column: str, query: str, begin_s: int, end_s: int, notes: list[str]
    ) -> list[Series]:
        answer = self._client.query_range(
            column, query, begin_s=begin_s, end_s=end_s, step_s=self._step_s
        )
        for kind, text in answer.warnings:
            notes.append(f"{self.source}: Prometheus {kind} on the {column} query: {text}")
        # Point k is evaluated at the end of window k and describes the window.
        return [
            Series(one.labels, [t - self._step_s for t in one.times], one.values)
            for one in answer.series
        ]

    def _frame(self, column: str, series: Sequence[Series]) -> tuple[pa.Table, list[pa.Table]]:
        """One column's samples as (topic, ts seconds, value), less series-level faults."""
        by_topic: dict[str | None, list[Series]] = {}
        for one in series:
            by_topic.setdefault(one.topic, []).append(one)
        topics: list[str] = []
        times: list[int] = []
        values: list[float] = []
        bad: list[tuple[str, str]] = []
        for topic, group in by_topic.items():
            if topic is None:
                bad.extend(
                    (
                        one.describe(),
                        f"a {column} series without a topic label ({len(one.times)} samples); "
                        "the query must keep the topic label, e.g. sum by (topic) (...)",
                    )
                    for one in group
                )
            elif len(group) > 1:
                bad.extend(
                    (
                        one.describe(),
                        f"{len(group)} {column} series carry topic {topic!r}; the query must "
                        "give one series per topic, e.g. sum by (topic) (...)",
                    )
                    for one in group
                )
            else:
                (one,) = group
                topics.extend([topic] * len(one.times))
                times.extend(one.times)
                values.extend(one.values)
        frame = pa.table(
            {
                "topic": pa.array(topics, pa.string()),
                "ts_s": pa.array(times, pa.int64()),
                column: pa.array(values, pa.float64()),
            }
        )
        refused = []
        if bad:
            refused.append(
                rejections(
                    "throughput",
                    self.source,
                    [None] * len(bad),
                    ["topic"] * len(bad),
                    [value for value, _ in bad],
                    [reason for _, reason in bad],
                )
            )
        return frame, refused


def _join(frames: Mapping[str, pa.Table], source: str) -> tuple[pa.Table, pa.Table]:
    """The columns side by side per (topic, ts); rows lacking a required column refused."""
    keys = ["topic", "ts_s"]
    both = frames["bytes_in_per_s"].join(
        frames["records_in_per_s"], keys=keys, join_type="full outer", use_threads=False
    )
    if "bytes_out_per_s" in frames:
        both = both.join(
            frames["bytes_out_per_s"], keys=keys, join_type="left outer", use_threads=False
        )
    both = both.sort_by([("topic", "ascending"), ("ts_s", "ascending")])
    has: dict[str, np.ndarray] = {
        c: ~np.asarray(both.column(c).is_null().to_numpy(zero_copy_only=False), dtype=bool)
        for c in _REQUIRED
    }
    lacking = ~(has["bytes_in_per_s"] & has["records_in_per_s"])
    topic_of = both.column("topic").to_pylist()
    second_of = both.column("ts_s").to_pylist()
    fields: list[str | None] = []
    reasons: list[str] = []
    for i in np.flatnonzero(lacking).tolist():
        gone, there = (
            ("records_in_per_s", "bytes_in_per_s")
            if has["bytes_in_per_s"][i]
            else ("bytes_in_per_s", "records_in_per_s")
        )
        fields.append(gone)
        reasons.append(
            f"no {gone} sample where {there} has one; {gone} is required "
            f"(topic {topic_of[i]!r}, sample at {_iso(second_of[i])})"
        )
    refused = rejections(
        "throughput", source, [None] * len(reasons), fields, [None] * len(reasons), reasons
    )
    kept = both.filter(pa.array(~lacking))
    seconds = kept.column("ts_s").combine_chunks()
    raw = kept.drop_columns(["ts_s"]).append_column(
        "ts", pa.array(seconds.to_numpy() * 1_000_000, pa.int64()).cast(TIMESTAMP)
    )
    return raw, refused


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _with_context(rejected: pa.Table, raw: pa.Table) -> pa.Table:
    """conform's rejections with the topic and sample start in the reason, no row number."""
    if rejected.num_rows == 0:
        return empty("rejected")
    index = rejected.column("row").to_pylist()  # first_row=0: the row's index in `raw`
    topic_of = raw.column("topic").to_pylist()
    start_of = raw.column("ts").to_pylist()
    reasons = [
        f"{reason} (topic {topic_of[i]!r}, sample at {start_of[i]:%Y-%m-%dT%H:%M:%SZ})"
        for reason, i in zip(rejected.column("reason").to_pylist(), index, strict=True)
    ]
    return rejections(
        "throughput",
        rejected.column("source")[0].as_py(),
        [None] * rejected.num_rows,
        rejected.column("field").to_pylist(),
        rejected.column("value").to_pylist(),
        reasons,
    )
