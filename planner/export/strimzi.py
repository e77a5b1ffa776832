"""`strimzi`: `KafkaTopic` resources for Strimzi's Topic Operator.

One resource per topic to change: `spec.topicName` the topic (Kafka allows names a
Kubernetes name cannot hold: `metadata.name` is the topic when it is a DNS-1123 subdomain,
else a slug with a hash), `spec.partitions` the recommended count, `spec.replicas` the
replication factor the plan saw (unchanged: the planner never changes it). No
`spec.config`: a team whose resource sets config keeps its own resource and changes
`spec.partitions` in it (`kubectl patch kafkatopic NAME --type merge -p
'{"spec":{"partitions":N}}'`), since the Topic Operator makes the topic match the
resource it is given. The Topic Operator refuses a decrease itself; none is written.

Strimzi 0.49 serves `kafka.strimzi.io/v1` (its new API, which the Topic Operator uses)
beside `v1beta2`; `ExportOptions.strimzi_api_version` chooses (`v1beta2` for Strimzi
0.48 and older). Checked in the tests by Strimzi's own model classes (`io.strimzi:api`
0.49.0), unknown fields refused.
"""

from __future__ import annotations

from planner.changes import ChangeList, TopicChange
from planner.export._text import comment, file_stems, header, k8s_name, topic_lines, yaml_str
from planner.export.options import ExportFile, ExportOptions

__all__ = ["API_VERSIONS", "render"]

#: The `kafka.strimzi.io` versions written: Strimzi 0.49's `v1`, and `v1beta2`.
API_VERSIONS = ("v1", "v1beta2")


def render(changes: ChangeList, options: ExportOptions) -> list[ExportFile]:
    """`all.yaml` (one YAML document per topic) and `topics/<topic>.yaml` for each."""
    if options.strimzi_api_version not in API_VERSIONS:
        raise ValueError(
            f"Strimzi API version {options.strimzi_api_version!r}: expected one of "
            f"{', '.join(API_VERSIONS)}"
        )
    stems = file_stems(c.topic for c in changes.topics)
    head = header("strimzi", changes, options.source) + _cluster_note(options)
    documents = [_resource(c, options) for c in changes.topics]
    combined = "\n".join(head) + "\n" + ("---\n" + "---\n".join(documents) if documents else "")
    files = [ExportFile("all.yaml", combined)]
    files += [
        ExportFile(f"topics/{stems[c.topic]}.yaml", "\n".join(head) + "\n" + doc)
        for c, doc in zip(changes.topics, documents, strict=True)
    ]
    return files


def _cluster_note(options: ExportOptions) -> list[str]:
    if options.strimzi_cluster is not None:
        return []
    return comment(
        "No strimzi.io/cluster label (give --strimzi-cluster): a Topic Operator "
        "reconciles only the KafkaTopics labelled with its Kafka cluster's name."
    )


def _resource(change: TopicChange, options: ExportOptions) -> str:
    labels = list(options.labels)
    if options.strimzi_cluster is not None:
        labels.insert(0, ("strimzi.io/cluster", options.strimzi_cluster))
    lines = [
        *topic_lines(change),
        f"apiVersion: kafka.strimzi.io/{options.strimzi_api_version}",
        "kind: KafkaTopic",
        "metadata:",
        f"  name: {yaml_str(k8s_name(change.topic, subdomain=True))}",
    ]
    if options.namespace:
        lines.append(f"  namespace: {yaml_str(options.namespace)}")
    if labels:
        lines.append("  labels:")
        lines += [f"    {yaml_str(k)}: {yaml_str(v)}" for k, v in labels]
    lines += [
        "spec:",
        f"  topicName: {yaml_str(change.topic)}",
        f"  partitions: {change.to_partitions}",
    ]
    if change.replication_factor is not None:
        lines.append(f"  replicas: {change.replication_factor}")
    return "\n".join(lines) + "\n"
