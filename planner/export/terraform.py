"""`terraform`: `kafka_topic` resources of the Terraform Kafka provider (Mongey/kafka).

`kafka_topics.tf` holds every change with the provider requirement; `topics/<topic>.tf`
one resource each, to paste into an existing configuration (a subfolder: Terraform
reads only the `.tf` files of the folder it runs in, so the two never both load). Each
resource sets `name`, `partitions` and the `replication_factor` the plan saw, and
`prevent_destroy`: the provider replaces a topic whose partitions decrease (destroy,
then create) and Kafka cannot shrink one, so a plan that would destroy it stops.

A topic Terraform does not manage yet is adopted with `terraform import
kafka_topic.<label> <topic>` before applying; one it manages already gets the new
`partitions` in its own resource instead (this one sets no `config`). Checked in the
tests by parsing with python-hcl2 (no Terraform binary is reachable here).
"""

from __future__ import annotations

import hashlib
import re

from planner.changes import ChangeList, TopicChange
from planner.export._text import comment, file_stems, header, topic_lines
from planner.export.options import ExportFile, ExportOptions

__all__ = ["PROVIDER", "hcl_str", "render", "resource_labels"]

#: The provider's registry address.
PROVIDER = "Mongey/kafka"
_LABEL = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_NOT_LABEL = re.compile(r"[^A-Za-z0-9_]+")
_HCL_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def hcl_str(text: str) -> str:
    """An HCL quoted string: escapes, and `${` / `%{` doubled so nothing interpolates."""
    out = []
    for ch in text:
        if ch in _HCL_ESCAPES:
            out.append(_HCL_ESCAPES[ch])
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    quoted = "".join(out).replace("${", "$${").replace("%{", "%%{")
    return f'"{quoted}"'


def resource_labels(topics: list[str]) -> dict[str, str]:
    """A resource label for each topic: `orders.created` -> `orders_created`, with a
    hash where two topics would share one (`a.b` and `a_b`)."""
    plain = {t: _NOT_LABEL.sub("_", t) for t in topics}
    plain = {t: (p if _LABEL.fullmatch(p) else f"t_{p}") for t, p in plain.items()}
    taken: dict[str, int] = {}
    for label in plain.values():
        taken[label] = taken.get(label, 0) + 1
    return {
        t: p if taken[p] == 1 else f"{p}_{hashlib.sha256(t.encode()).hexdigest()[:8]}"
        for t, p in plain.items()
    }


def render(changes: ChangeList, options: ExportOptions) -> list[ExportFile]:
    """`kafka_topics.tf` with every change, and `topics/<topic>.tf` for each."""
    labels = resource_labels([c.topic for c in changes.topics])
    stems = file_stems(c.topic for c in changes.topics)
    head = header("terraform", changes, options.source)
    blocks = [_resource(c, labels[c.topic]) for c in changes.topics]
    provider = [
        "terraform {",
        "  required_providers {",
        "    kafka = {",
        f"      source = {hcl_str(PROVIDER)}",
        "    }",
        "  }",
        "}",
    ]
    combined = "\n".join([*head, *provider, *("\n" + b for b in blocks)]) + "\n"
    if not blocks:
        combined += "\n".join(comment("Nothing to change.")) + "\n"
    files = [ExportFile("kafka_topics.tf", combined)]
    files += [
        ExportFile(f"topics/{stems[c.topic]}.tf", "\n".join([*head, "", b]) + "\n")
        for c, b in zip(changes.topics, blocks, strict=True)
    ]
    return files


def _resource(change: TopicChange, label: str) -> str:
    lines = topic_lines(change)
    if not change.creates:
        lines += comment(
            f"Not managed by Terraform yet: terraform import kafka_topic.{label} {change.topic}"
        )
    lines += [
        f'resource "kafka_topic" "{label}" {{',
        f"  name               = {hcl_str(change.topic)}",
        f"  partitions         = {change.to_partitions}",
    ]
    if change.replication_factor is not None:
        lines.append(f"  replication_factor = {change.replication_factor}")
    lines += ["", "  lifecycle {", "    prevent_destroy = true", "  }", "}"]
    return "\n".join(lines)
