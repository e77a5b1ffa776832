"""What the export formats are told beyond the change list."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DEFAULT_TARGET_LAG_S", "ExportFile", "ExportOptions"]

#: The lag, in seconds of a member's work, KEDA's threshold is derived from by default.
DEFAULT_TARGET_LAG_S = 30.0


@dataclass(frozen=True)
class ExportFile:
    """One file an export writes.

    Attributes:
        path: Its path inside the format's folder (`all.sh`, `topics/orders.sh`).
        text: Its content.
    """

    path: str
    text: str


@dataclass(frozen=True)
class ExportOptions:
    """Settings of the formats (each reads its own).

    Attributes:
        source: Where the run was read from, in words, for the files' headers.
        kafka_classpath: The class path of the planner's own Apache Kafka install
            (`<home>/libs/*`): the `kafka-topics` scripts run its `TopicCommand` when
            no `kafka-topics.sh` is on `PATH` (None: not installed; they then need one).
        kafka_version: That install's version, for the comment.
        namespace: Kubernetes namespace of the Strimzi and KEDA resources (None: the
            one `kubectl` is pointed at).
        labels: More labels on the Strimzi and KEDA resources.
        strimzi_cluster: The `strimzi.io/cluster` label: the Kafka resource whose
            Topic Operator reconciles the topics (None: left out, and said so).
        strimzi_api_version: `v1` (Strimzi 0.49's new API, which its Topic Operator
            uses) or `v1beta2` (what Strimzi 0.48 and older serve).
        bootstrap_servers: The brokers KEDA's scaler reads lag from.
        target_lag_s: The lag a group may build up, in seconds of its own work:
            `lagThreshold` = its Tc (records/s per member) x this.
        keda_targets: Group id -> the Deployment KEDA scales (default: the group id
            as a Kubernetes name).
    """

    source: str = "a published run"
    kafka_classpath: str | None = None
    kafka_version: str | None = None
    namespace: str | None = None
    labels: tuple[tuple[str, str], ...] = ()
    strimzi_cluster: str | None = None
    strimzi_api_version: str = "v1"
    bootstrap_servers: str | None = None
    target_lag_s: float = DEFAULT_TARGET_LAG_S
    keda_targets: dict[str, str] = field(default_factory=dict)
