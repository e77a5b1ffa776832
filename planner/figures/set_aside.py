"""The topics a run sets aside: row-level input failures, with the rule and the values.

`validate_inputs` decides (`planner.pipeline.row_checks`) and saves a `SetAside` in the
run's state folder (`work/runs/<key>/set_aside.json`); the Spark jobs read it
(`--set-aside FILE`) and never see those topics' rows: their throughput, topics,
capacity and keys rows are dropped, and each becomes one `sizing` row of status
`invalid-figures` whose `status_detail` is the reason. From there the status flows
like any other unplanned one, into `recommendations`, the report, `summary.md`,
`recommendations.json` and the store.

What goes, for a topic set aside (docs/validation.md, "What stops a run"):

- its rows of `throughput`, `topics`, `capacity` (its own; the fleet default `*` row
  is shared, so a bad `*` row stops the run instead) and `keys`;
- the consumer groups with a bad row go whole, and every topic they read is set aside
  with them: a group's members and strategy are one fact about all its topics;
- the other groups' rows stay, those reading the topic too: a group that reads it and
  other topics is then `unplanned`, naming it (its members share the set-aside topic's
  load, which is unknown), and the other topics still count the group among those
  fetching their bytes.

The file lives with the figures, not with the pipeline: the pipeline writes it and the
Spark jobs read it, and the jobs never import the pipeline that runs them.

Rows that name no legal topic (a null or illegal name) are dropped and counted, not
shown as topics: no Kafka topic has such a name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.files import write_json_whole

__all__ = [
    "FILE",
    "STATUS",
    "SetAside",
    "SetAsideTopic",
    "load_set_aside",
    "replicas_reason",
    "save_set_aside",
]

#: The status of a set-aside topic in the output datasets, the report and the store.
STATUS = "invalid-figures"
#: The file the validation writes in the run's state folder.
FILE = "set_aside.json"


def replicas_reason(brokers: int, replicas: int) -> str:
    """A replication factor above the brokers listed, said as what it most likely is.

    Kafka refuses to create a topic with more replicas than live brokers, so the topic is
    not at fault: the cluster table lacks brokers (one was down when the admin API was
    asked, or an export left it out).
    """
    return (
        f"{brokers} broker{'s' if brokers != 1 else ''} listed, the topic has {replicas} "
        "replicas: a broker down or missing from the figures?"
    )


@dataclass(frozen=True)
class SetAsideTopic:
    """One topic set aside.

    Attributes:
        topic: The topic.
        reason: Why, in one line: each rule broken with its values (the status detail).
        rules: The rules broken, `<suite>: <expectation_type> on <target>`.
        rows: Its input rows that broke them (its own and its groups').
    """

    topic: str
    reason: str
    rules: tuple[str, ...] = ()
    rows: int = 0


@dataclass(frozen=True)
class SetAside:
    """What one run's input validation set aside.

    Attributes:
        run_key: The run.
        topics: The topics set aside, by name.
        groups: Consumer groups with a bad row, all of whose rows are dropped.
        dropped: Topic names whose rows are dropped without being shown: illegal names.
        bad_rows: Rows that broke a row-level rule, per table.
        unnamed_rows: Of those, rows that name no legal topic (dropped), per table.
        rows: Rows validated, per table.
    """

    run_key: str
    topics: tuple[SetAsideTopic, ...] = ()
    groups: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    bad_rows: Mapping[str, int] = field(default_factory=dict)
    unnamed_rows: Mapping[str, int] = field(default_factory=dict)
    rows: Mapping[str, int] = field(default_factory=dict)

    @property
    def names(self) -> frozenset[str]:
        """Every topic name whose rows the jobs drop (set aside, or illegal)."""
        return frozenset(t.topic for t in self.topics) | frozenset(self.dropped)

    @property
    def empty(self) -> bool:
        """Nothing was set aside."""
        return not (self.topics or self.groups or self.dropped or any(self.unnamed_rows.values()))

    def reasons(self) -> dict[str, str]:
        """Topic -> its reason."""
        return {t.topic: t.reason for t in self.topics}

    def summary(self) -> dict[str, Any]:
        """The counts for the run's validation summary (the store's run record)."""
        return {
            "topics": len(self.topics),
            "groups": len(self.groups),
            "bad_rows": dict(self.bad_rows),
            "unnamed_rows": {k: v for k, v in self.unnamed_rows.items() if v},
            "set_aside": [t.topic for t in self.topics],
        }

    def message(self, most: int = 20) -> str:
        """A few lines naming what was set aside and why (for the stage's message)."""
        if self.empty:
            return "nothing set aside"
        lines = [
            f"{len(self.topics)} topic{'s' if len(self.topics) != 1 else ''} set aside "
            "(row-level rules; every other topic is planned):"
        ]
        lines += [f"  - {t.topic}: {t.reason}" for t in self.topics[:most]]
        if len(self.topics) > most:
            lines.append(f"  ... and {len(self.topics) - most} more")
        if self.groups:
            lines.append(f"  consumer groups set aside whole: {', '.join(map(repr, self.groups))}")
        unnamed = {k: v for k, v in self.unnamed_rows.items() if v}
        if unnamed:
            shown = ", ".join(f"{table} {rows:,}" for table, rows in unnamed.items())
            lines.append(f"  rows naming no legal topic, dropped: {shown}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready document (what `save_set_aside` writes)."""
        return {
            "run_key": self.run_key,
            "status": STATUS,
            "topics": [
                {"topic": t.topic, "reason": t.reason, "rules": list(t.rules), "rows": t.rows}
                for t in self.topics
            ],
            "groups": list(self.groups),
            "dropped": list(self.dropped),
            "bad_rows": dict(self.bad_rows),
            "unnamed_rows": dict(self.unnamed_rows),
            "rows": dict(self.rows),
        }

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> SetAside:
        """The inverse of `to_json`."""
        return cls(
            run_key=str(document["run_key"]),
            topics=tuple(
                SetAsideTopic(
                    str(t["topic"]), str(t["reason"]), tuple(t.get("rules", ())), int(t["rows"])
                )
                for t in document.get("topics", ())
            ),
            groups=tuple(document.get("groups", ())),
            dropped=tuple(document.get("dropped", ())),
            bad_rows={str(k): int(v) for k, v in document.get("bad_rows", {}).items()},
            unnamed_rows={str(k): int(v) for k, v in document.get("unnamed_rows", {}).items()},
            rows={str(k): int(v) for k, v in document.get("rows", {}).items()},
        )


def save_set_aside(state_dir: str | Path, set_aside: SetAside) -> Path:
    """Write `set_aside.json` into the run's state folder, replacing it whole."""
    return write_json_whole(Path(state_dir) / FILE, set_aside.to_json(), sort_keys=True)


def load_set_aside(path: str | Path) -> SetAside:
    """Read a `set_aside.json`.

    Raises:
        FileNotFoundError: there is none (the run's inputs were not validated, or did
            not pass).
        ValueError: it is not a set-aside document.
    """
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(document, dict) or "run_key" not in document:
        raise ValueError(f"{path}: not a set-aside document")
    return SetAside.from_json(document)
