"""The cluster `apply` changes, through Kafka's Admin API (confluent-kafka).

Three calls: read every topic's partition count (a Metadata request), add partitions
(`CreatePartitions`) or create a topic (`CreateTopics`), each with `validate_only` for a
dry run (the broker checks the request, its `CreateTopicPolicy` and
`AlterConfigPolicy` included, and changes nothing), and read the count again until it
shows the change. Kafka's errors come back as `ClusterError`s of a few kinds, so a
person reads "not authorised" or "refused by the broker's policy" rather than an error
name. Calls run in this process: librdkafka's aborts seen with Kafka 4.4.0 were in
consumer-group describes (docs/figures.md), never in these.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Literal

__all__ = ["ClusterError", "ErrorKind", "KafkaCluster", "error_kind"]

ErrorKind = Literal["auth", "policy", "timeout", "unreachable", "invalid", "other"]

_KINDS: dict[str, ErrorKind] = {
    "TOPIC_AUTHORIZATION_FAILED": "auth",
    "CLUSTER_AUTHORIZATION_FAILED": "auth",
    "SASL_AUTHENTICATION_FAILED": "auth",
    "_AUTHENTICATION": "auth",
    "POLICY_VIOLATION": "policy",
    "_TIMED_OUT": "timeout",
    "REQUEST_TIMED_OUT": "timeout",
    "_TRANSPORT": "unreachable",
    "_ALL_BROKERS_DOWN": "unreachable",
    "_RESOLVE": "unreachable",
    "BROKER_NOT_AVAILABLE": "unreachable",
    "NETWORK_EXCEPTION": "unreachable",
    "NOT_CONTROLLER": "unreachable",
    "INVALID_PARTITIONS": "invalid",
    "INVALID_REPLICATION_FACTOR": "invalid",
    "INVALID_REPLICA_ASSIGNMENT": "invalid",
    "TOPIC_ALREADY_EXISTS": "invalid",
    "UNKNOWN_TOPIC_OR_PART": "invalid",
    "INVALID_TOPIC_EXCEPTION": "invalid",
}
_WORDS: dict[ErrorKind, str] = {
    "auth": "not authorised (an ACL or the credentials)",
    "policy": "refused by the broker's policy (CreateTopicPolicy / AlterConfigPolicy)",
    "timeout": "no answer in time: it may or may not have been made; apply again to see",
    "unreachable": "the cluster could not be reached",
    "invalid": "refused by the broker",
    "other": "failed",
}


class ClusterError(Exception):
    """A call the cluster refused or did not answer.

    Attributes:
        kind: `auth`, `policy`, `timeout`, `unreachable`, `invalid` or `other`.
        name: Kafka's (librdkafka's) error name, e.g. `POLICY_VIOLATION`.
    """

    def __init__(self, what: str, kind: ErrorKind, name: str, detail: str) -> None:
        super().__init__(f"{what}: {_WORDS[kind]}: {detail} ({name})")
        self.kind = kind
        self.name = name

    @property
    def cluster_gone(self) -> bool:
        """The cluster stopped answering: the next calls will not fare better."""
        return self.kind in ("timeout", "unreachable")


def error_kind(name: str) -> ErrorKind:
    """The kind of a Kafka error name."""
    return _KINDS.get(name, "other")


def _error(what: str, exc: BaseException) -> ClusterError:
    error: Any = exc.args[0] if exc.args else exc
    if hasattr(error, "name") and callable(error.name):
        name, detail = str(error.name()), str(error.str())
    elif isinstance(exc, TimeoutError):
        name, detail = "_TIMED_OUT", "the call outlived its time-out"
    else:
        name, detail = type(exc).__name__, str(exc)
    return ClusterError(what, error_kind(name), name, detail)


class KafkaCluster:
    """Partition counts read and changed through an `AdminClient`.

    Args:
        admin: A confluent-kafka `AdminClient` (`KafkaAdminSource.admin_client()`).
        where: The brokers, for messages and the audit.
        timeout_s: Seconds one request may take.
        verify_timeout_s: Seconds to wait for a change to show in the metadata.
    """

    def __init__(
        self, admin: Any, where: str, *, timeout_s: float = 10.0, verify_timeout_s: float = 30.0
    ) -> None:
        self._admin = admin
        self.where = where
        self.timeout_s = timeout_s
        self.verify_timeout_s = verify_timeout_s

    def counts(self, topics: Iterable[str]) -> dict[str, int | None]:
        """Each topic's partition count now (None: no such topic).

        Raises:
            ClusterError: the metadata could not be read.
        """
        try:
            found = self._admin.list_topics(timeout=self.timeout_s).topics
        except Exception as exc:
            raise _error(f"Kafka at {self.where}: read the topics", exc) from exc
        out: dict[str, int | None] = {}
        for topic in topics:
            meta = found.get(topic)
            out[topic] = None if meta is None or meta.error is not None else len(meta.partitions)
        return out

    def add_partitions(self, topic: str, total: int, *, validate_only: bool) -> None:
        """Give `topic` `total` partitions (`validate_only`: the broker checks, nothing
        changes).

        Raises:
            ClusterError: refused or not answered.
        """
        from confluent_kafka.admin import NewPartitions  # type: ignore[attr-defined]

        self._wait(
            f"topic {topic}: {total} partitions",
            self._admin.create_partitions(
                [NewPartitions(topic, total)],
                validate_only=validate_only,
                request_timeout=self.timeout_s,
                operation_timeout=self.timeout_s,
            ),
        )

    def create_topic(
        self, topic: str, partitions: int, replication_factor: int | None, *, validate_only: bool
    ) -> None:
        """Create `topic` (`replication_factor` None: the cluster's default).

        Raises:
            ClusterError: refused or not answered.
        """
        from confluent_kafka.admin import NewTopic  # type: ignore[attr-defined]

        self._wait(
            f"topic {topic}: create with {partitions} partitions",
            self._admin.create_topics(
                [NewTopic(topic, partitions, replication_factor or -1)],
                validate_only=validate_only,
                request_timeout=self.timeout_s,
                operation_timeout=self.timeout_s,
            ),
        )

    def wait_for(self, topic: str, partitions: int) -> int | None:
        """Read the topic's count until it is `partitions` (or the verify time-out
        passes); returns the last count read (None: the topic was not seen)."""
        deadline = time.monotonic() + self.verify_timeout_s
        seen: int | None = None
        while True:
            try:
                seen = self.counts([topic])[topic]
            except ClusterError:
                seen = None
            if seen == partitions or time.monotonic() > deadline:
                return seen
            time.sleep(0.2)

    def _wait(self, what: str, futures: dict[str, Any]) -> None:
        for future in futures.values():
            try:
                future.result(timeout=self.timeout_s + 5.0)
            except Exception as exc:
                raise _error(f"Kafka at {self.where}: {what}", exc) from exc
