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

import base64
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pyarrow as pa

from planner.collect.base import Collected, retry
from planner.collect.kafka_groups import INTERNAL_PREFIX
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
_TRANSIENT_ERRORS = frozenset({"timeout", "canceled", "unavailable", "internal"})
_MAX_POINTS = 11_000  # Prometheus refuses a range query with more points per series.


class PrometheusQueryError(FiguresError):
    """Prometheus answered, but not with figures: a rejected query or an unusable answer.

    Retrying cannot help, so it is raised at once; the message names the server, the
    column, the query and what Prometheus said.
    """


class _Transient(OSError):
    """A failure worth retrying (5xx, 429, timeout); an OSError so `retry` retries it."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: urllib turns a redirected POST into a GET without the query
    and would forward the Authorization header to wherever it points."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        return None


@dataclass(frozen=True)
class _Series:
    """One series of a range-query answer: its labels and (evaluation s, value) points."""

    labels: Mapping[str, str]
    times: list[int]
    values: list[float]

    @property
    def topic(self) -> str | None:
        topic = self.labels.get("topic")
        return topic if topic else None

    def describe(self) -> str:
        inner = ",".join(f'{k}="{v}"' for k, v in sorted(self.labels.items()))
        return "{" + inner + "}"


def _duration(seconds: int) -> str:
    """A PromQL duration for whole seconds: 3600 -> `1h`, 300 -> `5m`, 90 -> `90s`."""
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _check_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise ValueError(f"Prometheus URL {url!r}: expected http(s)://host[:port][/prefix]")
    if parts.username is not None or parts.password is not None:
        raise ValueError(
            "Prometheus URL must not carry credentials: pass basic_auth or bearer_token "
            "(read from the config or the environment)"
        )
    if parts.query or parts.fragment:
        raise ValueError(f"Prometheus URL {url!r}: no query string or fragment, please")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


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
        max_points_per_query: int = _MAX_POINTS,
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
        self.url = _check_url(url)
        self.name = name
        step_s = step.total_seconds()
        if step_s < 1 or step_s != int(step_s):
            raise ValueError(f"Prometheus step must be whole seconds, at least 1; got {step}")
        self.step = step
        self._step_s = int(step_s)
        if bearer_token is not None and basic_auth is not None:
            raise ValueError("give bearer_token or basic_auth, not both")
        if timeout_s <= 0 or (query_timeout_s is not None and query_timeout_s <= 0):
            raise ValueError("timeouts must be above zero seconds")
        if attempts < 1 or first_delay_s < 0:
            raise ValueError("attempts must be 1 or more and first_delay_s 0 or more")
        if not 1 <= max_points_per_query <= _MAX_POINTS:
            raise ValueError(f"max_points_per_query must be within 1..{_MAX_POINTS}")
        self._fixed_window: list[str] = []
        self.queries = self._resolve(queries or {})
        self._timeout_s = timeout_s
        self._query_timeout_s = timeout_s if query_timeout_s is None else query_timeout_s
        self._attempts = attempts
        self._first_delay_s = first_delay_s
        self._sleep = sleep
        self._max_points = max_points_per_query
        self._max_bytes = max_response_bytes
        self._headers = {
            "Accept": "application/json",
            "Accept-Encoding": "gzip",
            "Content-Type": "application/x-www-form-urlencoded",
            "User-Agent": "kafka-partition-planner",
        }
        if bearer_token is not None:
            self._headers["Authorization"] = f"Bearer {bearer_token}"
        if basic_auth is not None:
            pair = f"{basic_auth[0]}:{basic_auth[1]}".encode()
            self._headers["Authorization"] = f"Basic {base64.b64encode(pair).decode('ascii')}"
        self._opener = urllib.request.build_opener(_NoRedirect())

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
    ) -> list[_Series]:
        """All series of one query over `steps` windows from `start_s`, merged over chunks."""
        merged: dict[tuple[tuple[str, str], ...], _Series] = {}
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
    ) -> list[_Series]:
        form = {
            "query": query,
            "start": str(begin_s),
            "end": str(end_s),
            "step": str(self._step_s),
            "timeout": str(self._query_timeout_s),  # float seconds, as the API accepts
        }
        what = f"Prometheus {self.url} ({column} query {query!r})"
        payload = retry(
            lambda: self._post(column, query, urllib.parse.urlencode(form).encode()),
            what=what,
            attempts=self._attempts,
            first_delay_s=self._first_delay_s,
            sleep=self._sleep,
        )
        for key in ("warnings", "infos"):
            for text in payload.get(key) or []:
                notes.append(f"{self.source}: Prometheus {key[:-1]} on the {column} query: {text}")
        return self._parse(column, query, payload)

    def _post(self, column: str, query: str, body: bytes) -> dict[str, Any]:
        """One POST to `/api/v1/query_range`; transient failures raise OSError."""
        request = urllib.request.Request(
            f"{self.url}/api/v1/query_range", data=body, headers=self._headers, method="POST"
        )
        try:
            with self._opener.open(request, timeout=self._timeout_s) as response:
                data = self._read(response, column, query)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc, column, query) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise _Transient(f"no answer within {self._timeout_s:g} s") from exc
            raise _Transient(f"cannot connect: {exc.reason}") from exc
        except TimeoutError as exc:
            raise _Transient(f"no answer within {self._timeout_s:g} s") from exc
        except http.client.HTTPException as exc:
            raise _Transient(f"broken HTTP answer: {exc!r}") from exc
        payload = self._decode(data, column, query)
        if payload.get("status") == "error":
            raise self._api_error(payload, None, column, query)
        return payload

    def _read(self, response: Any, column: str, query: str) -> bytes:
        """The body, decompressed, refusing more than `max_response_bytes`."""
        limit = self._max_bytes
        data: bytes = response.read(limit + 1)
        too_big = len(data) > limit
        if not too_big and (response.headers.get("Content-Encoding") or "").lower() == "gzip":
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                data = inflater.decompress(data, limit + 1)
            except zlib.error as exc:
                raise _Transient(f"corrupt gzip answer: {exc}") from exc
            too_big = len(data) > limit or bool(inflater.unconsumed_tail)
        if too_big:
            raise PrometheusQueryError(
                f"{self.url}: the {column} answer is larger than {limit} bytes "
                f"(query {query!r}); use a larger step, a shorter interval or raise "
                "max_response_bytes"
            )
        return data

    def _decode(self, data: bytes, column: str, query: str) -> dict[str, Any]:
        try:
            payload = json.loads(data)
        except ValueError:
            payload = None
        if not isinstance(payload, dict) or "status" not in payload:
            head = data[:200].decode("utf-8", errors="replace")
            raise PrometheusQueryError(
                f"{self.url}: the {column} answer is not a Prometheus API answer "
                f"(query {query!r}); it starts: {head!r}"
            )
        return payload

    def _http_error(
        self, exc: urllib.error.HTTPError, column: str, query: str
    ) -> _Transient | PrometheusQueryError:
        try:
            body = exc.read(64 * 1024) if exc.fp is not None else b""
        except (OSError, http.client.HTTPException):
            body = b""
        if (exc.headers.get("Content-Encoding") or "").lower() == "gzip":
            try:
                body = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(body, 64 * 1024)
            except zlib.error:
                body = b""
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if isinstance(payload, dict) and payload.get("status") == "error":
            return self._api_error(payload, exc.code, column, query)
        text = body[:300].decode("utf-8", errors="replace").strip()
        detail = f"HTTP {exc.code} {exc.reason}" + (f": {text}" if text else "")
        if exc.code >= 500 or exc.code in {408, 429}:
            return _Transient(detail)
        if 300 <= exc.code < 400:
            detail += f" (redirected to {exc.headers.get('Location')}; give the final URL)"
        return PrometheusQueryError(f"{self.url}: the {column} query failed, {detail}: {query}")

    def _api_error(
        self, payload: Mapping[str, Any], code: int | None, column: str, query: str
    ) -> _Transient | PrometheusQueryError:
        kind = str(payload.get("errorType") or "unknown")
        message = str(payload.get("error") or "no message")
        status = f"HTTP {code}, " if code is not None else ""
        if kind in _TRANSIENT_ERRORS or (code is not None and (code >= 500 or code == 429)):
            return _Transient(f"{status}{kind}: {message}")
        return PrometheusQueryError(
            f"{self.url} rejected the {column} query ({status}{kind}): {message}; query: {query}"
        )

    def _parse(self, column: str, query: str, payload: Mapping[str, Any]) -> list[_Series]:
        def bad(why: str) -> PrometheusQueryError:
            return PrometheusQueryError(
                f"{self.url}: unusable answer to the {column} query ({why}); query: {query}"
            )

        data = payload.get("data")
        if not isinstance(data, dict):
            raise bad("no data")
        kind = data.get("resultType")
        if kind != "matrix":
            raise bad(f"result type {kind!r}, a range query must give a matrix")
        result = data.get("result")
        if not isinstance(result, list):
            raise bad("result is not a list")
        out: list[_Series] = []
        for entry in result:
            if not isinstance(entry, dict):
                raise bad("a series is not an object")
            labels = entry.get("metric")
            points = entry.get("values")
            if not isinstance(labels, dict) or not isinstance(points, list):
                raise bad("a series without metric or values")
            try:
                times = [round(float(p[0])) - self._step_s for p in points]
                values = [float(p[1]) for p in points]
            except (TypeError, ValueError, IndexError) as exc:
                raise bad(f"a malformed point: {exc}") from None
            out.append(_Series({str(k): str(v) for k, v in labels.items()}, times, values))
        return out

    def _frame(self, column: str, series: Sequence[_Series]) -> tuple[pa.Table, list[pa.Table]]:
        """One column's samples as (topic, ts seconds, value), less series-level faults."""
        by_topic: dict[str | None, list[_Series]] = {}
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
        [topic_of[i] for i in index],
    )
