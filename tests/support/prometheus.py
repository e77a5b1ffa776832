"""A real Prometheus server for tests, holding broker topic counters with known rates.

`History` describes a small fleet as the JMX exporter would expose it: per broker and
topic, the counters `kafka_server_brokertopicmetrics_{bytesin,messagesin,bytesout}_total`,
scraped every `scrape_s` seconds at `offset_s` past the minute (real scrapes are never
on the hour). Every rate is constant within an hour and changes from one hour to the
next, and every counter value is a whole number, so the per-hour rate of every topic is
known exactly and a window that is off by one step shows up as a wrong value, not as a
rounding error.

`running_prometheus` writes that history as OpenMetrics text, turns it into TSDB blocks
with `promtool tsdb create-blocks-from openmetrics`, starts `prometheus` on a free
loopback port over those blocks (no scrape targets) and stops it on exit.

`FrontProxy` stands in front of that real server for what it will not do on request:
fail with 503 for a while, add warnings (as Thanos does for a partial answer), answer
with something that is not Prometheus, redirect, or demand credentials like the
authenticating proxy most production servers sit behind. Everything it does not script
is forwarded, so the figures still come from the real server.

OpenMetrics rules that promtool enforces and this writer follows: a `# TYPE` line per
metric family named without the `_total` suffix, all samples of one family together,
the samples of one series in increasing time order, timestamps in seconds, and a final
`# EOF`.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Lock, Thread

import numpy as np

from tests.support.ports import free_port

# Canonical column -> metric family written for it (the JMX exporter's common names).
FAMILIES: Mapping[str, str] = {
    "bytes_in_per_s": "kafka_server_brokertopicmetrics_bytesin",
    "records_in_per_s": "kafka_server_brokertopicmetrics_messagesin",
    "bytes_out_per_s": "kafka_server_brokertopicmetrics_bytesout",
}


@dataclass(frozen=True)
class TopicLoad:
    """How one topic is produced to and consumed, per broker that leads some of it.

    Attributes:
        brokers: Broker ids that carry a share of the topic (its partition leaders).
        records_base: Records/s of the smallest hourly share on one broker.
        record_bytes: Bytes per record (so bytes in = records in x record_bytes).
        fan_out: Bytes out / bytes in (consumer groups reading it); None writes no
            bytes-out series at all for the topic.
        records_series: False writes no messages-in series (a half-exported topic).
    """

    brokers: tuple[int, ...]
    records_base: int
    record_bytes: int
    fan_out: int | None = 1
    records_series: bool = True


def _default_topics() -> dict[str, TopicLoad]:
    return {
        "orders": TopicLoad((1, 2, 3), records_base=40, record_bytes=512, fan_out=3),
        "payments": TopicLoad((1, 2), records_base=7, record_bytes=1_200, fan_out=2),
        # Nobody consumes it: no bytes-out series, so its bytes_out_per_s stays null.
        "clicks.v1": TopicLoad((1, 2, 3), records_base=300, record_bytes=90, fan_out=None),
        # A label the JMX exporter passes through but Kafka would never accept.
        "orders/eu": TopicLoad((2,), records_base=5, record_bytes=256),
        # Bytes in without records in: the collector must reject it, not invent zeros.
        "audit": TopicLoad((3,), records_base=2, record_bytes=700, records_series=False),
        # Kafka's internal topic of committed offsets: its meters count every commit, but
        # the planner sizes no internal topic, so the default queries leave it out.
        "__consumer_offsets": TopicLoad((1, 2), records_base=3, record_bytes=90, fan_out=None),
    }


@dataclass(frozen=True)
class History:
    """Known counters for a few topics on a few brokers.

    Attributes:
        start: First instant of the history (a whole hour, UTC).
        hours: Length of the history in hours.
        topics: The topics and their loads.
        restarts: Broker id -> the instant it restarted; all its counters start again
            from zero right after the last scrape before that instant, so no count is
            lost and `rate()` must still give the exact hourly rate.
        scrape_s: Seconds between scrapes.
        offset_s: Seconds past `start` of the first scrape.
        initial: Counter value at the first scrape before any traffic (brokers have
            been up for a while; it keeps `rate()`'s zero-point rule out of play).
    """

    start: datetime = datetime(2026, 11, 19, tzinfo=UTC)
    hours: int = 48
    topics: Mapping[str, TopicLoad] = field(default_factory=_default_topics)
    restarts: Mapping[int, datetime] = field(
        default_factory=lambda: {2: datetime(2026, 11, 19, 10, 30, 40, tzinfo=UTC)}
    )
    scrape_s: int = 60
    offset_s: int = 15
    initial: int = 1_000_000_000

    @property
    def end(self) -> datetime:
        """First instant after the history."""
        return self.start + timedelta(hours=self.hours)

    @property
    def brokers(self) -> tuple[int, ...]:
        """Every broker id that carries some topic."""
        return tuple(sorted({b for load in self.topics.values() for b in load.brokers}))

    def records_per_s(self, topic: str, broker: int, hour: int) -> int:
        """Records/s of `topic` on `broker` during hour `hour` (0 = the first hour)."""
        return self.topics[topic].records_base * (1 + (3 * hour + broker) % 5)

    def broker_rate(self, column: str, topic: str, broker: int, hour: int) -> int:
        """The per-second rate of `column` for one broker's share of `topic`, hour `hour`."""
        load = self.topics[topic]
        records = self.records_per_s(topic, broker, hour)
        if column == "records_in_per_s":
            return records
        if column == "bytes_in_per_s":
            return records * load.record_bytes
        if column == "bytes_out_per_s":
            return records * load.record_bytes * (load.fan_out or 0)
        raise KeyError(column)

    def expected(self, column: str, topic: str, hour: int) -> float:
        """The exact topic rate of `column` over hour `hour`: the sum over brokers."""
        return float(
            sum(self.broker_rate(column, topic, b, hour) for b in self.topics[topic].brokers)
        )

    def has_series(self, column: str, topic: str) -> bool:
        """Whether the history holds a `column` series for `topic`."""
        load = self.topics[topic]
        if column == "records_in_per_s":
            return load.records_series
        if column == "bytes_out_per_s":
            return load.fan_out is not None
        return True

    def scrape_times(self) -> np.ndarray:
        """Scrape instants in seconds since the epoch."""
        first = int(self.start.timestamp()) + self.offset_s
        last = int(self.end.timestamp())
        return np.arange(first, last, self.scrape_s, dtype=np.int64)

    def counter(self, rates_per_hour: np.ndarray, broker: int) -> np.ndarray:
        """The counter a broker exposes at each scrape, given its rate in each hour.

        The value is the exact integral of the piecewise-constant rate since the first
        scrape (or since the restart), plus `initial` before any restart.
        """
        times = self.scrape_times()
        start = int(self.start.timestamp())
        rates = rates_per_hour.astype(np.int64)
        done = np.concatenate(([0], np.cumsum(rates * 3600)))
        hour = (times - start) // 3600
        integral = done[hour] + rates[hour] * (times - start - hour * 3600)
        values = integral - integral[0] + self.initial
        restart = self.restarts.get(broker)
        if restart is not None:
            at = int(restart.timestamp())
            # The counters restart from zero right after the last scrape before `at`.
            anchor = int(np.searchsorted(times, at, side="right")) - 1
            if 0 <= anchor < len(times) - 1:
                values[anchor + 1 :] = integral[anchor + 1 :] - integral[anchor]
        return values

    def restart_hour(self, broker: int) -> int:
        """The hour index in which `broker` restarted."""
        return int((self.restarts[broker] - self.start).total_seconds() // 3600)

    def openmetrics(self) -> str:
        """The whole history as OpenMetrics text, ready for promtool."""
        times = self.scrape_times()
        stamps = [str(t) for t in times.tolist()]
        out: list[str] = []
        for column, family in FAMILIES.items():
            out.append(f"# HELP {family} Kafka BrokerTopicMetrics ({column}), JMX exporter name.")
            out.append(f"# TYPE {family} counter")
            per_broker_total: dict[int, np.ndarray] = {}
            for topic, load in self.topics.items():
                if not self.has_series(column, topic):
                    continue
                for broker in load.brokers:
                    rates = np.array(
                        [self.broker_rate(column, topic, broker, h) for h in range(self.hours)]
                    )
                    per_broker_total[broker] = per_broker_total.get(broker, 0) + rates
                    values = self.counter(rates, broker)
                    labels = f'broker="{broker}",topic="{_escape(topic)}"'
                    out.extend(
                        f"{family}_total{{{labels}}} {v} {t}"
                        for v, t in zip(values.tolist(), stamps, strict=True)
                    )
            # The JMX exporter also exposes the all-topics meter of each broker, without
            # a topic label; queries must not mistake it for a topic.
            for broker, rates in sorted(per_broker_total.items()):
                values = self.counter(rates, broker)
                out.extend(
                    f'{family}_total{{broker="{broker}"}} {v} {t}'
                    for v, t in zip(values.tolist(), stamps, strict=True)
                )
        out.append("# EOF")
        return "\n".join(out) + "\n"


def rate_factor(
    times_s: Sequence[float], first: float, increase: float, *, start_s: float, end_s: float
) -> float:
    """What Prometheus 2.x's `rate()` multiplies a window's counter increase by.

    `rate()` over [start_s, end_s] takes the increase between the first and last samples
    inside it and extrapolates it to the window's edges: by the whole gap to an edge when
    that gap is under 1.1 average sample intervals, else by half an interval, and toward
    the start never past the instant the counter would have been zero. The result is
    divided by the window's length. Used to bound, from outside Prometheus, what `rate()`
    must answer for counters whose true values are known.

    Args:
        times_s: The sample times in the window, seconds, ascending (at least two).
        first: The counter at the first sample.
        increase: The counter's increase from the first sample to the last (no reset).
        start_s: The window's start, seconds.
        end_s: The window's end (the evaluation instant), seconds.
    """
    sampled_s = times_s[-1] - times_s[0]
    average_s = sampled_s / (len(times_s) - 1)
    to_start_s = times_s[0] - start_s
    to_end_s = end_s - times_s[-1]
    if increase > 0 and first >= 0:
        to_start_s = min(to_start_s, sampled_s * first / increase)
    threshold_s = 1.1 * average_s
    covered_s = sampled_s
    covered_s += to_start_s if to_start_s < threshold_s else average_s / 2
    covered_s += to_end_s if to_end_s < threshold_s else average_s / 2
    return covered_s / sampled_s / (end_s - start_s)


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@dataclass(frozen=True)
class PrometheusServer:
    """A running Prometheus and what it holds.

    Attributes:
        url: Base URL, e.g. `http://127.0.0.1:41234`.
        history: The counters written into its TSDB.
        log_path: Its log file.
        start_s: Seconds from launching the process to `/-/ready` answering 200.
        blocks_s: Seconds promtool took to write the blocks.
    """

    url: str
    history: History
    log_path: Path
    start_s: float
    blocks_s: float

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _binary(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(
            f"{name} not found on PATH: install the Debian package `prometheus` "
            "(scripts/setup.sh does)"
        )
    return path


def write_blocks(history: History | str, data_dir: Path, scratch: Path) -> float:
    """Write `history` (or OpenMetrics text) as TSDB blocks into `data_dir`; returns the
    seconds it took."""
    source = scratch / "history.om"
    source.write_text(history if isinstance(history, str) else history.openmetrics())
    began = time.monotonic()
    done = subprocess.run(
        [
            _binary("promtool"),
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            "--quiet",
            str(source),
            str(data_dir),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"promtool failed ({done.returncode}): {done.stderr or done.stdout}")
    return time.monotonic() - began


def _wait_until_ready(url: str, proc: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"prometheus exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError) as exc:  # not listening or still loading
            last_error = exc
        time.sleep(0.05)
    raise RuntimeError(f"prometheus on {url} not ready after {timeout_s} s: {last_error}")


@contextlib.contextmanager
def launched(
    config: Path, data_dir: Path, log_path: Path, *flags: str, timeout_s: float = 60.0
) -> Iterator[tuple[str, float]]:
    """Run `prometheus` with `config` over `data_dir` on a free loopback port.

    Yields its base URL and the seconds it took to answer `/-/ready`; stops it on exit.
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log_path.open("wb") as log:
        began = time.monotonic()
        proc = subprocess.Popen(
            [
                _binary("prometheus"),
                f"--config.file={config}",
                f"--storage.tsdb.path={data_dir}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--log.level=warn",
                *flags,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_until_ready(url, proc, timeout_s)
            yield url, time.monotonic() - began
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextlib.contextmanager
def running_prometheus(
    history: History | None = None, timeout_s: float = 60.0
) -> Iterator[PrometheusServer]:
    """Start Prometheus over blocks holding `history` on a free loopback port."""
    history = history or History()
    with serving(history, timeout_s=timeout_s) as (url, log_path, start_s, blocks_s):
        yield PrometheusServer(
            url=url, history=history, log_path=log_path, start_s=start_s, blocks_s=blocks_s
        )


@contextlib.contextmanager
def serving(
    history: History | str, *, timeout_s: float = 60.0
) -> Iterator[tuple[str, Path, float, float]]:
    """Start Prometheus over blocks holding `history` (or OpenMetrics text).

    Yields its URL, log file, seconds to ready and seconds promtool took.
    """
    with tempfile.TemporaryDirectory(prefix="prometheus-") as tmp:
        scratch = Path(tmp)
        data_dir = scratch / "data"
        data_dir.mkdir()
        blocks_s = write_blocks(history, data_dir, scratch)
        config = scratch / "prometheus.yml"
        # No scrape targets: the server serves the backfilled blocks and nothing else.
        config.write_text("global:\n  scrape_interval: 1m\nscrape_configs: []\n")
        log_path = scratch / "prometheus.log"
        with launched(
            config,
            data_dir,
            log_path,
            # Retention counts back from the newest block, not from the wall clock, but
            # say it outright: the fixed past dates must never be candidates for deletion.
            "--storage.tsdb.retention.time=10y",
            # Keep promtool's 2 h blocks as they are: no background compaction competing
            # for the machine's two cores while tests query.
            "--storage.tsdb.min-block-duration=2h",
            "--storage.tsdb.max-block-duration=2h",
            timeout_s=timeout_s,
        ) as (url, start_s):
            yield url, log_path, start_s, blocks_s


@dataclass(frozen=True)
class Reply:
    """One scripted answer of a `FrontProxy`.

    Attributes:
        status: HTTP status to answer with.
        body: The body; None forwards the request to the real server instead.
        headers: Extra response headers.
        warnings: Added to the `warnings` of a forwarded answer.
    """

    status: int = 200
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()


class FrontProxy:
    """A loopback HTTP front for a real Prometheus, with scripted answers.

    The first requests get `replies` in order, the rest are forwarded. With
    `authorization` set, a request whose `Authorization` header differs gets 401.
    `requests` counts the requests that reached it.
    """

    def __init__(
        self,
        upstream: str,
        replies: Sequence[Reply] = (),
        *,
        authorization: str | None = None,
    ) -> None:
        self.upstream = upstream
        self.authorization = authorization
        self.requests = 0
        self._replies = list(replies)
        self._lock = Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        # A short poll keeps shutdown() from waiting out the default half second.
        self._thread = Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> FrontProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self, authorization: str | None) -> Reply:
        with self._lock:
            self.requests += 1
            if self.authorization is not None and authorization != self.authorization:
                return Reply(401, b"Unauthorized\n", (("WWW-Authenticate", "Basic"),))
            return self._replies.pop(0) if self._replies else Reply()

    def _forward(self, path: str, body: bytes, reply: Reply) -> tuple[int, bytes]:
        request = urllib.request.Request(f"{self.upstream}{path}", data=body, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, data = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, data = exc.code, exc.read()
        if reply.warnings:
            payload = json.loads(data)
            payload["warnings"] = [*payload.get("warnings", []), *reply.warnings]
            data = json.dumps(payload).encode()
        return status, data

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                reply = proxy._next(self.headers.get("Authorization"))
                if reply.body is None:
                    status, data = proxy._forward(self.path, body, reply)
                    headers: tuple[tuple[str, str], ...] = (("Content-Type", "application/json"),)
                else:
                    status, data, headers = reply.status, reply.body, reply.headers
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:  # quiet
                return

        return Handler
