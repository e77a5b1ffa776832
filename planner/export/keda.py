"""`keda`: a KEDA `ScaledObject` per consumer group to resize, with a Kafka trigger.

KEDA's Kafka scaler sets the replicas to about the group's total lag / `lagThreshold`
(capped at the partitions unless `allowIdleConsumers`), between `minReplicaCount` and
`maxReplicaCount`. From the plan:

- `minReplicaCount`: the members today's peak needs (`members_now`);
- `maxReplicaCount`: the members recommended (the horizon's need and the standbys);
- `lagThreshold` = Tc x target lag: Tc is what one member processes, in records/s (the
  slowest of the group's topics), and the target lag is how many seconds of a member's
  work may wait (`--target-lag-s`, 30 s by default). With that threshold, KEDA runs
  as many members as it takes to work off the current lag within the target lag at
  each member's pace, which is the meaning a threshold chosen by guess lacks;
- `topic` for a group of one topic; left out for a group of several, so the scaler
  sums the lag of every topic the group has committed offsets on;
- `allowIdleConsumers: "true"` when the plan runs more members than partitions (its
  standbys), since the scaler would otherwise stop at the partition count.

Not written, and said so in `scaledobjects.yaml`: share groups (KIP-932: no committed
offsets for the scaler to read lag from) and groups with no Tc in records/s. Checked in
the tests against KEDA 2.20.2's ScaledObject CRD schema and its Kafka scaler's
parameter names.
"""

from __future__ import annotations

import math

from planner.changes import ChangeList, GroupChange
from planner.export._text import comment, file_stems, header, k8s_name, warning_lines, yaml_str
from planner.export.options import ExportFile, ExportOptions

__all__ = ["lag_threshold", "render"]


def lag_threshold(tc_records_per_s: float, target_lag_s: float) -> int:
    """`lagThreshold`, records: Tc (records/s per member) x the target lag (s), at least 1.

    >>> lag_threshold(5300.0, 30.0)
    159000
    """
    return max(1, math.ceil(tc_records_per_s * target_lag_s))


def _why_not(group: GroupChange) -> str | None:
    if group.protocol == "share":
        return (
            "a share group (KIP-932) has no committed offsets for KEDA's Kafka scaler "
            "to read lag from"
        )
    if group.tc_records_per_s is None:
        return "no Tc in records/s among its topics: lagThreshold cannot be derived"
    return None


def render(changes: ChangeList, options: ExportOptions) -> list[ExportFile]:
    """`scaledobjects.yaml` with every group, and `groups/<group>.yaml` for each."""
    if not options.bootstrap_servers:
        raise ValueError("keda: the brokers are needed (bootstrap servers)")
    if not (math.isfinite(options.target_lag_s) and options.target_lag_s > 0):
        raise ValueError(f"keda: the target lag must be above 0 s, got {options.target_lag_s}")
    written = [g for g in changes.groups if _why_not(g) is None]
    stems = file_stems(g.group_id for g in written)
    head = header("keda", changes, options.source)
    left = []
    for g in changes.groups:
        reason = _why_not(g)
        if reason is not None:
            left += comment(f"Not written: {g.headline()}: {reason}.")
    documents = [_scaled_object(g, options) for g in written]
    combined = "\n".join(head + left) + "\n" + ("---\n" + "---\n".join(documents))
    if not documents:
        combined = "\n".join([*head, *left, *comment("Nothing to scale.")]) + "\n"
    files = [ExportFile("scaledobjects.yaml", combined)]
    files += [
        ExportFile(f"groups/{stems[g.group_id]}.yaml", "\n".join(head) + "\n" + doc)
        for g, doc in zip(written, documents, strict=True)
    ]
    return files


def _scaled_object(g: GroupChange, options: ExportOptions) -> str:
    assert g.tc_records_per_s is not None
    threshold = lag_threshold(g.tc_records_per_s, options.target_lag_s)
    low, high = max(1, g.members_now), max(1, g.members_now, g.to_members)
    idle = g.partitions is not None and high > g.partitions
    target = options.keda_targets.get(g.group_id) or k8s_name(g.group_id, subdomain=True)
    lines = [
        *comment(g.headline()),
        *comment(
            f"lagThreshold {threshold:,} records = Tc {g.tc_records_per_s:,.0f} records/s "
            f"per member (the slowest of its topics) x {options.target_lag_s:g} s of target "
            f"lag: KEDA runs about total lag / {threshold:,} members, enough to work off the "
            f"lag within {options.target_lag_s:g} s at each member's pace.",
            rest="    ",
        ),
        *comment(
            f"minReplicaCount {low}: members today's peak needs; maxReplicaCount {high}: "
            "members the plan recommends"
            + (f" (past the {g.partitions} partitions: allowIdleConsumers)" if idle else "")
            + ".",
            rest="    ",
        ),
    ]
    if len(g.topics) > 1:
        lines += comment(
            f"No topic: the scaler sums the lag of every topic the group commits on "
            f"({', '.join(g.topics)}).",
            rest="    ",
        )
    if g.group_id not in options.keda_targets:
        lines += comment(
            f"scaleTargetRef: the Deployment running group {g.group_id}: {target} here; "
            "rename it to yours (or give --keda-target GROUP=DEPLOYMENT).",
            rest="    ",
        )
    lines += warning_lines(g.notes)
    labels = list(options.labels)
    lines += [
        "apiVersion: keda.sh/v1alpha1",
        "kind: ScaledObject",
        "metadata:",
        f"  name: {yaml_str(k8s_name(g.group_id))}",
    ]
    if options.namespace:
        lines.append(f"  namespace: {yaml_str(options.namespace)}")
    if labels:
        lines.append("  labels:")
        lines += [f"    {yaml_str(k)}: {yaml_str(v)}" for k, v in labels]
    assert options.bootstrap_servers is not None
    lines += [
        "spec:",
        "  scaleTargetRef:",
        f"    name: {yaml_str(target)}",
        f"  minReplicaCount: {low}",
        f"  maxReplicaCount: {high}",
        "  triggers:",
        "    - type: kafka",
        "      metadata:",
        f"        bootstrapServers: {yaml_str(options.bootstrap_servers)}",
        f"        consumerGroup: {yaml_str(g.group_id)}",
    ]
    if len(g.topics) == 1:
        lines.append(f"        topic: {yaml_str(g.topics[0])}")
    lines.append(f"        lagThreshold: {yaml_str(str(threshold))}")
    if idle:
        lines.append(f"        allowIdleConsumers: {yaml_str('true')}")
    return "\n".join(lines) + "\n"
