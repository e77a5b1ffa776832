"""Admin calls with time-outs and retries, and how Kafka's errors read in messages.

Every admin call has a request timeout and is retried on errors a retry can cure
(transport, time-outs, coordinator moves, leader changes) with exponential backoff;
an error no retry cures (authentication, authorization, an unsupported request) is
`Refused` at once, and the caller decides whether collection can go on without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from planner.collect.base import SourceUnavailable, retry

__all__ = [
    "UNSUPPORTED",
    "AdminCalls",
    "Refused",
    "Transient",
    "error_name",
    "error_text",
    "is_transient",
    "kafka_error",
    "names",
]

T = TypeVar("T")

_FUTURE_GRACE_S = 5.0  # a future outlives its request timeout by at most this much
_NAMES_SHOWN = 10

# Errors a retry can cure, by librdkafka name (KafkaError.retriable() misses the local
# ones: a refused connection is `_TRANSPORT`, an unanswered request `_TIMED_OUT`).
_TRANSIENT = frozenset(
    {
        "_TRANSPORT",
        "_TIMED_OUT",
        "_ALL_BROKERS_DOWN",
        "_RESOLVE",
        "_WAIT_COORD",
        "_NODE_UPDATE",
        "REQUEST_TIMED_OUT",
        "NETWORK_EXCEPTION",
        "BROKER_NOT_AVAILABLE",
        "LEADER_NOT_AVAILABLE",
        "NOT_LEADER_FOR_PARTITION",
        "NOT_LEADER_OR_FOLLOWER",
        "NOT_CONTROLLER",
        "NOT_COORDINATOR",
        "COORDINATOR_NOT_AVAILABLE",
        "COORDINATOR_LOAD_IN_PROGRESS",
        "REBALANCE_IN_PROGRESS",
    }
)
UNSUPPORTED = frozenset({"_UNSUPPORTED_FEATURE", "UNSUPPORTED_VERSION", "INVALID_REQUEST"})
"""Errors of a broker that does not know a request (too old, or not Apache Kafka)."""


class Transient(OSError):
    """An admin call failed in a way a retry can cure; an OSError so `retry` retries it."""


class Refused(Exception):
    """The cluster answered with an error no retry cures (unsupported, not authorized)."""

    def __init__(self, what: str, error: Any) -> None:
        super().__init__(f"{what}: {error_text(error)}")
        self.name = error_name(error)


def error_name(error: Any) -> str:
    """librdkafka's name of a KafkaError (`_TRANSPORT`, `GROUP_ID_NOT_FOUND`...)."""
    return str(error.name()) if hasattr(error, "name") else type(error).__name__


def error_text(error: Any) -> str:
    """A KafkaError as "<description> (<name>)"; anything else as its text."""
    if hasattr(error, "str") and hasattr(error, "name"):
        return f"{error.str()} ({error.name()})"
    return str(error)


def kafka_error(exc: BaseException | Any) -> Any:
    """The KafkaError inside a KafkaException (or the exception itself); a KafkaError as
    it is (a listing's partial `errors` holds them bare)."""
    args = getattr(exc, "args", None)
    if args is None:
        return exc
    return args[0] if args else exc


def is_transient(error: Any) -> bool:
    """Whether a retry can cure `error`."""
    if hasattr(error, "retriable") and error.retriable():
        return True
    return error_name(error) in _TRANSIENT


def names(items: Sequence[str]) -> str:
    """The first ten of `items`, comma-separated, and how many more there are."""
    shown = ", ".join(items[:_NAMES_SHOWN])
    more = len(items) - _NAMES_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


class AdminCalls:
    """Runs admin calls with a request timeout and retries on curable errors.

    Attributes:
        where: Who calls whom, the start of every message ("kafka-admin: Kafka at ...").
        timeout_s: Seconds one request may take.
        attempts: Tries per call (1 + retries).
    """

    def __init__(self, *, where: str, timeout_s: float, retries: int, retry_delay_s: float) -> None:
        self.where = where
        self.timeout_s = timeout_s
        self.attempts = retries + 1
        self._retry_delay_s = retry_delay_s

    def call(self, what: str, action: Callable[[], T]) -> T:
        """Run one admin call, retrying curable errors.

        Raises:
            SourceUnavailable: curable errors outlasted the retries.
            Refused: the cluster answered with an error no retry cures.
        """
        from confluent_kafka import KafkaException

        def attempt() -> T:
            try:
                return action()
            except KafkaException as exc:
                error = kafka_error(exc)
                if is_transient(error):
                    raise Transient(error_text(error)) from exc
                raise Refused(what, error) from exc

        return retry(
            attempt,
            what=f"{self.where}: {what}",
            attempts=self.attempts,
            first_delay_s=self._retry_delay_s,
            retry_on=(OSError,),  # Transient, and TimeoutError from a future
        )

    def must(self, what: str, action: Callable[[], T]) -> T:
        """`call` for what collection cannot do without: a refusal ends it too."""
        try:
            return self.call(what, action)
        except Refused as exc:
            raise SourceUnavailable(f"{self.where}: {exc}") from exc

    def result(self, future: Any) -> Any:
        """A future's result, waiting at most the request timeout and a grace period."""
        return future.result(timeout=self.timeout_s + _FUTURE_GRACE_S)
