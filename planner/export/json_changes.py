"""`json`: the change list for machines (topic, from, to, groups, members, warnings).

`changes.json` holds the whole list: `run`, `topics` (one object per topic to change),
`groups` (one per group to resize) and `skipped` (what the plan holds and does not
change, with the reason's code); `topics/<topic>.json` and `groups/<group>.json` one
object each. Warnings and notes are in their coded form (`planner.notes`): `code`,
`severity`, `params`, `text`.
"""

from __future__ import annotations

import json
from typing import Any

from planner.changes import SKIP_REASONS, ChangeList, GroupChange, TopicChange
from planner.export._text import file_stems
from planner.export.options import ExportFile, ExportOptions

__all__ = ["change_list_json", "group_json", "render", "topic_json"]


def topic_json(c: TopicChange) -> dict[str, Any]:
    """One topic's change as JSON values."""
    return {
        "topic": c.topic,
        "action": "create" if c.creates else "increase",
        "from": c.from_partitions,
        "to": c.to_partitions,
        "replication_factor": c.replication_factor,
        "keyed": c.keyed,
        "status": c.status,
        "groups": list(c.group_ids),
        "command": c.command(),
        "cost": c.cost_sentence(),
        "warnings": [n.as_dict() for n in c.warnings],
    }


def group_json(g: GroupChange) -> dict[str, Any]:
    """One group's change as JSON values."""
    return {
        "group": g.group_id,
        "topics": list(g.topics),
        "protocol": g.protocol,
        "strategy": g.strategy,
        "from": g.from_members,
        "to": g.to_members,
        "members_now": g.members_now,
        "standby_members": g.standby_members,
        "partitions": g.partitions,
        "tc_records_per_s": g.tc_records_per_s,
        "warnings": [n.as_dict() for n in g.notes],
    }


def change_list_json(changes: ChangeList) -> dict[str, Any]:
    """The whole change list as JSON values."""
    return {
        "run": changes.run,
        "topics": [topic_json(c) for c in changes.topics],
        "groups": [group_json(g) for g in changes.groups],
        "skipped": [
            {
                "kind": s.kind,
                "name": s.name,
                "reason": s.reason,
                "detail": s.detail,
                "why": SKIP_REASONS[s.reason],
            }
            for s in changes.skipped
        ],
    }


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def render(changes: ChangeList, options: ExportOptions) -> list[ExportFile]:
    """`changes.json`, `topics/<topic>.json` and `groups/<group>.json`."""
    topics = file_stems(c.topic for c in changes.topics)
    groups = file_stems(g.group_id for g in changes.groups)
    whole = change_list_json(changes) | {"source": options.source}
    files = [ExportFile("changes.json", _dump(whole))]
    files += [
        ExportFile(f"topics/{topics[c.topic]}.json", _dump(topic_json(c) | {"run": changes.run}))
        for c in changes.topics
    ]
    files += [
        ExportFile(f"groups/{groups[g.group_id]}.json", _dump(group_json(g) | {"run": changes.run}))
        for g in changes.groups
    ]
    return files
