"""Prometheus' HTTP API as the figures source uses it: range queries, retried and checked.

One idea: send a PromQL range query to `/api/v1/query_range` and hand back its series,
or an error that names the server, the query and what went wrong; a long span is asked
in chunks Prometheus accepts (`query_range_chunks`, joined with `join_chunks`). What the
queries mean (which meters, which window a sample describes) is
`planner.collect.prometheus`'s.

Connection refused, timeouts, HTTP 5xx/429 and the API's `timeout`, `canceled`,
`unavailable` and `internal` errors are retried with backoff; a rejected query (HTTP
400), an answer that is not the API's, not a matrix or larger than the limit fails at
once, since retrying cannot help. Redirects are refused: urllib turns a redirected POST
into a GET without the query and would forward the `Authorization` header to wherever it
points.
"""

from __future__ import annotations

import base64
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from planner.collect.base import retry
from planner.figures.conform import FiguresError

__all__ = [
    "MAX_POINTS",
    "PrometheusClient",
    "PrometheusQueryError",
    "RangeAnswer",
    "Series",
    "check_url",
    "join_chunks",
]

MAX_POINTS = 11_000
"""Points per series Prometheus answers in one range query; it refuses more."""
_TRANSIENT_ERRORS = frozenset({"timeout", "canceled", "unavailable", "internal"})


class PrometheusQueryError(FiguresError):
    """Prometheus answered, but not with figures: a rejected query or an unusable answer.

    Retrying cannot help, so it is raised at once; the message names the server, the
    column, the query and what Prometheus said.
    """


class _Transient(OSError):
    """A failure worth retrying (5xx, 429, timeout); an OSError so `retry` retries it."""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects (see the module docstring)."""

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
class Series:
    """One series of a range-query answer.

    Attributes:
        labels: Its labels.
        times: Evaluation instants, whole seconds since the epoch.
        values: The value at each instant.
    """

    labels: Mapping[str, str]
    times: list[int]
    values: list[float]

    @property
    def topic(self) -> str | None:
        """The `topic` label, None when absent or empty."""
        topic = self.labels.get("topic")
        return topic if topic else None

    def describe(self) -> str:
        """The labels as PromQL writes them: `{broker="1",topic="orders"}`."""
        inner = ",".join(f'{k}="{v}"' for k, v in sorted(self.labels.items()))
        return "{" + inner + "}"


def join_chunks(joined: dict[tuple[tuple[str, str], ...], Series], chunk: Iterable[Series]) -> None:
    """Add one range query's series to those of the earlier chunks of the same query.

    A long interval is asked in chunks (Prometheus answers at most `MAX_POINTS` points a
    series): a series already seen, by its labels, is extended in place, a new one added.
    """
    for one in chunk:
        key = tuple(sorted(one.labels.items()))
        if key in joined:
            joined[key].times.extend(one.times)
            joined[key].values.extend(one.values)
        else:
            joined[key] = one


@dataclass(frozen=True)
class RangeAnswer:
    """What one range query gave.

    Attributes:
        series: The series.
        warnings: The API's `warnings` and `infos`, each as (`warning` or `info`, text).
            A warning may mean a partial answer (Thanos with a store down).
    """

    series: list[Series]
    warnings: list[tuple[str, str]]


def check_url(url: str) -> str:
    """A Prometheus base URL, normalised (no trailing slash).

    Raises:
        ValueError: not http(s)://host[:port][/prefix], or it carries credentials, a
            query string or a fragment.
    """
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


class PrometheusClient:
    """Range queries against one Prometheus server, retried on transient failures.

    Attributes:
        url: The server's base URL (with any path prefix), no trailing slash.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = 30.0,
        query_timeout_s: float | None = None,
        attempts: int = 4,
        first_delay_s: float = 0.5,
        bearer_token: str | None = None,
        basic_auth: tuple[str, str] | None = None,
        max_response_bytes: int = 256 * 1024 * 1024,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        """Configure the client; nothing is contacted yet.

        Args:
            url: Base URL; credentials do not belong in it.
            timeout_s: Seconds to wait for the connection and for each read.
            query_timeout_s: Seconds Prometheus may spend evaluating one request (its
                `timeout` parameter); default `timeout_s`.
            attempts: Tries per request.
            first_delay_s: Seconds before the second try; doubled after each failure.
            bearer_token: Sent as `Authorization: Bearer ...`.
            basic_auth: (user, password) for HTTP basic authentication.
            max_response_bytes: Largest answer accepted (after decompression).
            sleep: Replaces `time.sleep` between tries.

        Raises:
            ValueError: a malformed URL, bad timeouts or tries, or two kinds of
                credentials at once.
        """
        self.url = check_url(url)
        if bearer_token is not None and basic_auth is not None:
            raise ValueError("give bearer_token or basic_auth, not both")
        if timeout_s <= 0 or (query_timeout_s is not None and query_timeout_s <= 0):
            raise ValueError("timeouts must be above zero seconds")
        if attempts < 1 or first_delay_s < 0:
            raise ValueError("attempts must be 1 or more and first_delay_s 0 or more")
        self._timeout_s = timeout_s
        self._query_timeout_s = timeout_s if query_timeout_s is None else query_timeout_s
        self._attempts = attempts
        self._first_delay_s = first_delay_s
        self._sleep = sleep
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
        return f"PrometheusClient({self.url!r})"

    def query_range(
        self, column: str, query: str, *, begin_s: int, end_s: int, step_s: int
    ) -> RangeAnswer:
        """Evaluate `query` at `begin_s`, `begin_s + step_s` ... up to `end_s` (inclusive).

        Args:
            column: What the query is for, named in every message (`bytes_in_per_s`).
            query: The PromQL.
            begin_s: First evaluation instant, seconds since the epoch.
            end_s: Last evaluation instant, seconds.
            step_s: Seconds between evaluations.

        Raises:
            SourceUnavailable: every try failed transiently; names the URL, the column,
                the query and the last error.
            PrometheusQueryError: the query was rejected or the answer is unusable.
        """
        form = {
            "query": query,
            "start": str(begin_s),
            "end": str(end_s),
            "step": str(step_s),
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
        warnings = [
            (key[:-1], str(text))
            for key in ("warnings", "infos")
            for text in payload.get(key) or []
        ]
        return RangeAnswer(self._parse(column, query, payload), warnings)

    def query_range_chunks(
        self,
        column: str,
        query: str,
        *,
        begin_s: int,
        end_s: int,
        step_s: int,
        max_points: int = MAX_POINTS,
    ) -> Iterator[tuple[int, int, RangeAnswer]]:
        """`query_range` over a span of any length, in requests of at most `max_points`
        instants, since Prometheus refuses more than `MAX_POINTS` points a series.

        The requests are sent one at a time, in time order, as the chunks are taken;
        `join_chunks` joins their series.

        Yields:
            Each request's first and last evaluation instants (seconds) and its answer.

        Raises:
            ValueError: `max_points` is not within 1..`MAX_POINTS`.
            SourceUnavailable, PrometheusQueryError: as `query_range`.
        """
        if not 1 <= max_points <= MAX_POINTS:
            raise ValueError(f"max_points must be within 1..{MAX_POINTS}, got {max_points}")
        chunk_s = max_points * step_s
        for first in range(begin_s, end_s + 1, chunk_s):
            last = min(first + chunk_s - step_s, end_s)
            yield (
                first,
                last,
                self.query_range(column, query, begin_s=first, end_s=last, step_s=step_s),
            )

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

    def _parse(self, column: str, query: str, payload: Mapping[str, Any]) -> list[Series]:
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
        out: list[Series] = []
        for entry in result:
            if not isinstance(entry, dict):
                raise bad("a series is not an object")
            labels = entry.get("metric")
            points = entry.get("values")
            if not isinstance(labels, dict) or not isinstance(points, list):
                raise bad("a series without metric or values")
            try:
                times = [round(float(p[0])) for p in points]
                values = [float(p[1]) for p in points]
            except (TypeError, ValueError, IndexError) as exc:
                raise bad(f"a malformed point: {exc}") from None
            out.append(Series({str(k): str(v) for k, v in labels.items()}, times, values))
        return out
