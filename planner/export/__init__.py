"""The change list (`planner.changes`) in the forms teams apply it with.

| format | files | for |
| --- | --- | --- |
| `kafka-topics` | `all.sh`, `topics/<topic>.sh` | a person running Kafka's own tool |
| `strimzi` | `all.yaml`, `topics/<topic>.yaml` | Strimzi's Topic Operator (`KafkaTopic`) |
| `terraform` | `kafka_topics.tf`, `topics/<topic>.tf` | Terraform's Kafka provider |
| `keda` | `scaledobjects.yaml`, `groups/<group>.yaml` | KEDA's Kafka scaler (`ScaledObject`) |
| `json` | `changes.json`, `topics/`, `groups/` | machines |

Every file starts with comments saying what wrote it from which run, and each change
carries the plan's warnings as comments (JSON: as values). Pure: `render` returns the
files' paths and text; `partition-planner export` writes them.
"""

from __future__ import annotations

from collections.abc import Callable

from planner.changes import ChangeList
from planner.export import json_changes, kafka_topics, keda, strimzi, terraform
from planner.export.options import DEFAULT_TARGET_LAG_S, ExportFile, ExportOptions

__all__ = ["DEFAULT_TARGET_LAG_S", "FORMATS", "ExportFile", "ExportOptions", "render"]

_RENDERERS: dict[str, Callable[[ChangeList, ExportOptions], list[ExportFile]]] = {
    "kafka-topics": kafka_topics.render,
    "strimzi": strimzi.render,
    "terraform": terraform.render,
    "keda": keda.render,
    "json": json_changes.render,
}
#: The formats, in the order they are written.
FORMATS = tuple(_RENDERERS)


def render(fmt: str, changes: ChangeList, options: ExportOptions) -> list[ExportFile]:
    """The files of one format.

    Raises:
        KeyError: an unknown format.
        ValueError: an option the format needs is missing or bad.
    """
    return _RENDERERS[fmt](changes, options)
