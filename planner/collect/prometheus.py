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
both windows.

Only complete windows
---------------------
Asked for a window that has not ended, Prometheus evaluates `rate()` over the scrapes it
has so far and extrapolates them by at most half a scrape interval, so the row would
describe part of the window as the whole (seen live: 100.8 records/s at 17:45 and 256 at
17:51 for an hour whose true rate was 2,000). So `collect` takes the time it runs at
(`clock`) and asks only for the windows that ended at least `settle` before it; a note
names how many were left out, from when to when, and when to collect again. A window
that has ended but not settled is waited for instead (at most `settle`): a scheduled run
starts seconds after its day ends and would otherwise always lose the last hour. `settle`
(default 60 s) is the time a window's last scrape may need to be stored: that scrape
starts at most one scrape interval before the window's end and is stored when it
completes, within its scrape timeout, which Prometheus keeps at or below the interval
(10 s by default). The planner does not know the scrape interval, so the default covers
any up to a minute, which is what deployments use (15-60 s), and costs nothing on an
hourly step; a server that receives samples later (remote write, an agent, Thanos'
sidecar) needs a larger `settle_s` in the config. A window closed that long still has
its rate: `rate()` at E uses scrapes up to E only.

Which windows are covered
-------------------------
A window in which both required queries returned a sample of some topic, with no
warning (a partial answer), is *covered* (`Collected.covered`): Prometheus was
evaluating the brokers' meters then, and a topic with no series had no appends (Kafka
creates a topic's meters on first use; a topic never written to since its leaders
started has none). The merge writes zero rows for such topics (`planner.collect.idle`).
A window without data (Prometheus down, not yet running, not scraping the brokers) is
not covered, and nothing is invented for it. The bytes-out column is covered where its
query returned some sample too; elsewhere a zero row's bytes out stays unknown. Not
detected: one broker's target down while the others are scraped, which lowers the sums
of the topics it leads and makes a topic led by it alone look idle for that window.

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

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from planner.collect.base import Collected
from planner.collect.group_offsets import GroupOffsets, GroupQueries
from planner.collect.kafka_groups import INTERNAL_PREFIX
from planner.collect.prometheus_api import (
    MAX_POINTS,
    PrometheusClient,
    RangeAnswer,
    Series,
    join_chunks,
)
from planner.figures.conform import Conformed, FiguresError, conform, empty, rejections
from planner.figures.dataset import DataInterval
from planner.figures.schema import TIMESTAMP

__all__ = [
    "COLUMNS",
    "DEFAULT_QUERIES",
    "DEFAULT_SETTLE",
    "STEP_TOKEN",
    "PrometheusSource",
    "promql_duration",
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
DEFAULT_SETTLE = timedelta(seconds=60)
"""How long after its end a window counts as complete (see the module docstring)."""
_REQUIRED = ("bytes_in_per_s", "records_in_per_s")


def promql_duration(seconds: int) -> str:
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
        settle: How long after its end a window counts as complete.
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
        settle: timedelta = DEFAULT_SETTLE,
        clock: Callable[[], datetime] | None = None,
        groups: GroupQueries | None = None,
        group_sample_s: int = 60,
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
            sleep: Replaces `time.sleep` between tries and while a window settles.
            settle: How long after a window's end it counts as complete: the time its
                last scrapes may take to be stored (default 60 s; see the module
                docstring). Raise it for a Prometheus that receives samples late
                (remote write, an agent, Thanos' sidecar uploads).
            clock: The current time, UTC (default `datetime.now(UTC)`); the windows not
                complete by then are left out, except that a collection started less
                than `settle` after a window ended waits for it.
            groups: A lag exporter's queries (`planner.collect.group_offsets.PRESETS`):
                each consumer group's capacity and lag over the run's complete windows
                are read from its offsets (`Collected.group_figures`). None: not read.
            group_sample_s: Seconds between the offsets' points (about the exporter's
                scrape interval).

        Raises:
            ValueError: a malformed URL, step, settle or query mapping, or two kinds of
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
        if settle < timedelta(0):
            raise ValueError(f"Prometheus settle must be 0 s or more; got {settle}")
        self.settle = settle
        self._clock = clock or (lambda: datetime.now(UTC))
        self._pause = sleep or time.sleep
        self._fixed_window: list[str] = []
        self.queries = self._resolve(queries or {})
        self._max_points = max_points_per_query
        self.group_offsets = (
            None
            if groups is None
            else GroupOffsets(
                self._client, groups, sample_s=group_sample_s, max_points=max_points_per_query
            )
        )

    def __repr__(self) -> str:  # never the credentials
        return f"PrometheusSource({self.url!r}, step={promql_duration(self._step_s)})"

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
        window = promql_duration(self._step_s)
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

    def collect(self, interval: DataInterval, *, run: DataInterval | None = None) -> Collected:
        """Query every column's rates over `interval`, one sample per topic per step.

        Only windows that had ended `settle` before the query ran are asked for (see the
        module docstring); a note names the ones left out. The windows in which both
        required queries had data are `covered` (`planner.collect.base`).

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
                f"{promql_duration(self._step_s)}"
            )
        collected = Collected(source=self.source)
        if rest_s:
            collected.notes.append(
                f"{self.source}: the last {rest_s} s of {interval} make no whole step of "
                f"{promql_duration(self._step_s)} and were not collected"
            )
        now = self._settled_now(interval.start, steps, collected.notes)
        complete = self._complete_steps(interval.start, steps, now)
        if complete < steps:
            collected.notes.append(self._unfinished(interval.start, complete, steps, now))
        collected.notes.extend(
            f"{self.source}: the {column} query has no {STEP_TOKEN}, so its range window "
            "does not follow the step; a sample may not cover its whole step"
            for column in self._fixed_window
        )
        if self.group_offsets is not None:
            self._group_figures(interval, run or interval, now, collected)
        if complete == 0:
            collected.add("throughput", Conformed(empty("throughput"), empty("rejected"), None))
            return collected
        start_s = int(interval.start.timestamp())
        frames: dict[str, pa.Table] = {}
        refused: list[pa.Table] = []
        seen: dict[str, np.ndarray] = {}
        warned: dict[str, set[int]] = {}
        glimpsed: list[pa.Table] = []
        for column, query in self.queries.items():
            series, warned[column] = self._fetch(column, query, start_s, complete, collected.notes)
            frame, bad, faulty = self._frame(column, series)
            frames[column] = frame
            refused.extend(bad)
            glimpsed.append(faulty)
            seen[column] = _windows(series)
            if not series:
                collected.notes.append(
                    f"{self.source}: the {column} query returned no series"
                    + (
                        "; every topic lacks this required column"
                        if column in _REQUIRED
                        else " (is the meter exported?); the column is left empty"
                    )
                )
        raw, missing, unpaired = _join(frames, self.source)
        refused.append(missing)
        conformed = conform("throughput", raw, source=self.source, first_row=0)
        refused.append(_with_context(conformed.rejected, raw))
        table = conformed.table
        collected.add("throughput", Conformed(table, pa.concat_tables(refused), None))
        glimpsed += [unpaired, _rejected_pairs(conformed.rejected, raw)]
        self._cover(collected, seen, warned, glimpsed, start_s, complete)
        topics = len(set(table.column("topic").to_pylist()))
        collected.notes.append(
            f"{self.source}: {table.num_rows} samples of {topics} topics over {complete} "
            f"steps of {promql_duration(self._step_s)}"
        )
        return collected

    def _group_figures(
        self, interval: DataInterval, run: DataInterval, now: datetime, collected: Collected
    ) -> None:
        """The consumer groups' figures over the run's complete windows, from the lag
        exporter's offsets (`planner.collect.group_offsets`), as the observer's windows:
        one per step from the run's start."""
        assert self.group_offsets is not None
        steps = int((run.end - run.start).total_seconds()) // self._step_s
        complete = self._complete_steps(run.start, steps, now)
        if complete == 0:
            collected.notes.append(
                f"{self.source}: no complete window of {promql_duration(self._step_s)} in "
                f"{run}: no consumer group figures"
            )
            return
        start_s = int(run.start.timestamp())
        bounds = [start_s + k * self._step_s for k in range(complete + 1)]
        figures, notes = self.group_offsets.figures(
            bounds, history_from_s=int(interval.start.timestamp()), source=self.source
        )
        collected.group_figures.update(figures)
        collected.notes.extend(notes)

    def windows_held(
        self,
        span: DataInterval,
        *,
        now: datetime | None = None,
        every: timedelta | None = None,
    ) -> list[datetime]:
        """The starts of the windows of `span` in which Prometheus holds throughput.

        One request, `count(<the bytes_in_per_s query>)`: the server evaluates the rates
        as a collection would, but answers one number per window, so this costs about
        what collecting that one column of `span` costs, and a one-series answer. Only
        windows that had ended `settle` before `now` are asked for. `planner.pipeline`
        asks it which windows of yesterday there are before a `plan` run starts.

        Args:
            span: The span to look in.
            now: The time of the question (default: the source's clock).
            every: Look at one window per `every` (a whole number of steps), counting
                back from the last complete one: one a day over a month names the days
                held without reading them whole. Default: every window.

        Raises:
            SourceUnavailable, PrometheusQueryError: as `collect`.
            ValueError: `every` is not a whole number of steps.
        """
        every_s = self._step_s if every is None else int(every.total_seconds())
        if every_s < self._step_s or every_s % self._step_s:
            raise ValueError(f"every must be a whole number of steps of {self.step}, got {every}")
        start_s = int(span.start.timestamp())
        steps = int((span.end - span.start).total_seconds()) // self._step_s
        complete = self._complete_steps(span.start, steps, now or self._clock())
        if complete == 0:
            return []
        last_end = start_s + complete * self._step_s
        first_end = last_end - (last_end - start_s - self._step_s) // every_s * every_s
        query = f"count({self.queries['bytes_in_per_s']})"
        held: set[int] = set()
        chunks = self._client.query_range_chunks(
            "bytes_in_per_s coverage",
            query,
            begin_s=first_end,
            end_s=last_end,
            step_s=every_s,
            max_points=self._max_points,
        )
        for _, _, answer in chunks:
            held.update(t for one in answer.series for t in one.times)
        return [datetime.fromtimestamp(t - self._step_s, UTC) for t in sorted(held)]

    def _settled_now(self, start: datetime, steps: int, notes: list[str]) -> datetime:
        """The time to collect at: now, or, when a window has ended but not settled, the
        moment it has (after waiting at most `settle`).

        A scheduled run starts seconds after its interval ends (Airflow's daily run at
        00:00): without the wait its last hour would always be left out.
        """
        now = self._clock()
        ended = self._complete_steps(start, steps, now + self.settle)
        if ended == self._complete_steps(start, steps, now):
            return now
        wait_s = (start + ended * self.step + self.settle - now).total_seconds()
        self._pause(wait_s)
        last_end = start + ended * self.step
        notes.append(
            f"{self.source}: waited {wait_s:g} s for the window ending at "
            f"{last_end:%Y-%m-%dT%H:%M:%SZ} to settle (its last scrapes get "
            f"{self.settle.total_seconds():g} s)"
        )
        return self._clock()

    def _complete_steps(self, start: datetime, steps: int, now: datetime) -> int:
        """How many of the `steps` windows from `start` had ended `settle` before `now`."""
        settled_s = (now - self.settle - start).total_seconds()
        return max(0, min(steps, int(settled_s // self._step_s)))

    def _unfinished(self, start: datetime, complete: int, steps: int, now: datetime) -> str:
        first = start + complete * self.step
        end = start + steps * self.step
        return (
            f"{self.source}: {steps - complete} window(s) of {promql_duration(self._step_s)} from "
            f"{first:%Y-%m-%dT%H:%M:%SZ} to {end:%Y-%m-%dT%H:%M:%SZ} were left out: at "
            f"{now.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ} they had not ended "
            f"{self.settle.total_seconds():g} s before (the settle time for their last "
            "scrapes), and an open window reads the part seen so far as the whole step's "
            f"rate; collect again after {end + self.settle:%Y-%m-%dT%H:%M:%SZ} for them"
        )

    def _fetch(
        self, column: str, query: str, start_s: int, steps: int, notes: list[str]
    ) -> tuple[list[Series], set[int]]:
        """All series of one query over `steps` windows from `start_s`, merged over
        chunks, and the window starts of the chunks that came with a warning."""
        merged: dict[tuple[tuple[str, str], ...], Series] = {}
        warned: set[int] = set()
        # Point k is evaluated at the end of window k and describes the window.
        chunks = self._client.query_range_chunks(
            column,
            query,
            begin_s=start_s + self._step_s,
            end_s=start_s + steps * self._step_s,
            step_s=self._step_s,
            max_points=self._max_points,
        )
        for begin, end, answer in chunks:
            series, warning = self._windows_of(column, answer, notes)
            if warning:
                warned.update(range(begin - self._step_s, end, self._step_s))
            join_chunks(merged, series)
        return list(merged.values()), warned

    def _windows_of(
        self, column: str, answer: RangeAnswer, notes: list[str]
    ) -> tuple[list[Series], bool]:
        """A chunk's series labelled with their windows' starts, and whether it came with
        a warning (a partial answer); its warnings and infos noted."""
        for kind, text in answer.warnings:
            notes.append(f"{self.source}: Prometheus {kind} on the {column} query: {text}")
        # Point k is evaluated at the end of window k and describes the window.
        series = [
            Series(one.labels, [t - self._step_s for t in one.times], one.values)
            for one in answer.series
        ]
        return series, any(kind == "warning" for kind, _ in answer.warnings)

    def _frame(
        self, column: str, series: Sequence[Series]
    ) -> tuple[pa.Table, list[pa.Table], pa.Table]:
        """One column's samples as (topic, ts seconds, value), less series-level faults;
        the rejected rows; and the (topic, ts seconds) of the faulty series' samples."""
        by_topic: dict[str | None, list[Series]] = {}
        for one in series:
            by_topic.setdefault(one.topic, []).append(one)
        topics: list[str] = []
        times: list[int] = []
        values: list[float] = []
        bad: list[tuple[str, str]] = []
        faulty: list[tuple[str, int]] = []
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
                faulty.extend((topic, t) for one in group for t in one.times)
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
        return frame, refused, _pairs([t for t, _ in faulty], [s for _, s in faulty])

    def _cover(
        self,
        collected: Collected,
        seen: Mapping[str, np.ndarray],
        warned: Mapping[str, set[int]],
        glimpsed: Sequence[pa.Table],
        start_s: int,
        steps: int,
    ) -> None:
        """Fill `covered`, `covered_bytes_out` and `withheld` (`planner.collect.base`).

        A window is covered when both required queries returned a sample of some topic
        in it and neither answer came with a warning: Prometheus was then evaluating
        the brokers' meters, so a topic it has no series for had no appends (Kafka
        creates a topic's meters on first use, so a topic never written to since its
        leaders started has none).
        """
        covered = np.intersect1d(seen["bytes_in_per_s"], seen["records_in_per_s"])
        doubtful = set().union(*(warned[c] for c in _REQUIRED))
        covered = covered[~np.isin(covered, np.array(sorted(doubtful), dtype=np.int64))]
        out = np.zeros(0, dtype=np.int64)
        if "bytes_out_per_s" in seen:
            out = np.intersect1d(covered, seen["bytes_out_per_s"])
            out = out[~np.isin(out, np.array(sorted(warned["bytes_out_per_s"]), dtype=np.int64))]
        pairs = pa.concat_tables(glimpsed)
        pairs = pairs.filter(pc.is_in(pairs.column("ts_s"), pa.array(covered, pa.int64())))
        pairs = pairs.group_by(["topic", "ts_s"], use_threads=False).aggregate([])
        collected.covered = [_moment(s) for s in covered.tolist()]
        collected.covered_bytes_out = [_moment(s) for s in out.tolist()]
        collected.withheld = {
            (topic, _moment(s))
            for topic, s in zip(
                pairs.column("topic").to_pylist(), pairs.column("ts_s").to_pylist(), strict=True
            )
        }
        gaps = sorted(
            set(range(start_s, start_s + steps * self._step_s, self._step_s))
            - set(covered.tolist())
        )
        if gaps:
            collected.notes.append(
                f"{self.source}: {len(gaps)} of {steps} window(s) of "
                f"{promql_duration(self._step_s)} (from {_iso(gaps[0])} to {_iso(gaps[-1])}) "
                "are not covered: no data of a required column (Prometheus down, not "
                "running yet, not scraping the brokers) or a partial answer; only what it "
                "returned is written for them, and no topic is taken for idle there"
            )


def _windows(series: Sequence[Series]) -> np.ndarray:
    """The window starts (seconds) at which any of `series` has a sample, sorted."""
    if not series:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.concatenate([np.asarray(one.times, dtype=np.int64) for one in series]))


def _pairs(topics: Sequence[str], seconds: Sequence[int]) -> pa.Table:
    return pa.table({"topic": pa.array(topics, pa.string()), "ts_s": pa.array(seconds, pa.int64())})


def _moment(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def _join(frames: Mapping[str, pa.Table], source: str) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The columns side by side per (topic, ts); rows lacking a required column refused.

    Returns:
        The rows; the refused ones; and the (topic, ts seconds) with a sample of some
        column but no row: the refused, and those with bytes out and no bytes in.
    """
    keys = ["topic", "ts_s"]
    both = frames["bytes_in_per_s"].join(
        frames["records_in_per_s"], keys=keys, join_type="full outer", use_threads=False
    )
    unpaired = [_pairs([], [])]
    if "bytes_out_per_s" in frames:
        out = frames["bytes_out_per_s"]
        unpaired.append(
            out.join(both.select(keys), keys=keys, join_type="left anti", use_threads=False).select(
                keys
            )
        )
        both = both.join(out, keys=keys, join_type="left outer", use_threads=False)
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
    unpaired.append(both.filter(pa.array(lacking)).select(keys))
    kept = both.filter(pa.array(~lacking))
    seconds = kept.column("ts_s").combine_chunks()
    raw = kept.drop_columns(["ts_s"]).append_column(
        "ts", pa.array(seconds.to_numpy() * 1_000_000, pa.int64()).cast(TIMESTAMP)
    )
    return raw, refused, pa.concat_tables(unpaired)


def _rejected_pairs(rejected: pa.Table, raw: pa.Table) -> pa.Table:
    """The (topic, ts seconds) of the rows conform rejected (`row` is the index in `raw`)."""
    if rejected.num_rows == 0:
        return _pairs([], [])
    picked = raw.take(rejected.column("row")).select(["topic", "ts"])
    seconds = pc.divide(pc.cast(picked.column("ts"), pa.int64()), 1_000_000)
    return pa.table({"topic": picked.column("topic"), "ts_s": seconds})


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
