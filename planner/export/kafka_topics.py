"""`kafka-topics`: the `kafka-topics.sh` lines, as bash scripts that run as written.

Each script holds the commands the report's pages print (`TopicChange.command`), each
under its topic's cost and warnings. Where no `kafka-topics.sh` is on `PATH` (the
planner's own Apache Kafka comes from Maven Central as jars, without Kafka's `bin/`
scripts), the script defines `kafka-topics.sh` as a function that runs the same tool,
`org.apache.kafka.tools.TopicCommand`, from that install, so the lines stay the ones
people know and run with either Kafka.
"""

from __future__ import annotations

import shlex

from planner.changes import ChangeList, TopicChange
from planner.export._text import comment, file_stems, header, topic_lines
from planner.export.options import ExportFile, ExportOptions

__all__ = ["TOPIC_COMMAND", "render"]

#: The main class of Kafka's `kafka-topics.sh`.
TOPIC_COMMAND = "org.apache.kafka.tools.TopicCommand"


def render(changes: ChangeList, options: ExportOptions) -> list[ExportFile]:
    """`all.sh` with every change, and `topics/<topic>.sh` for each."""
    stems = file_stems(c.topic for c in changes.topics)
    files = [ExportFile("all.sh", _script(changes, changes.topics, options))]
    files += [
        ExportFile(f"topics/{stems[c.topic]}.sh", _script(changes, (c,), options))
        for c in changes.topics
    ]
    return files


def _script(changes: ChangeList, topics: tuple[TopicChange, ...], options: ExportOptions) -> str:
    lines = ["#!/usr/bin/env bash", *header("kafka-topics", changes, options.source)]
    lines += comment(
        "Set BOOTSTRAP_SERVERS to the cluster's brokers; for a secured cluster add "
        "--command-config FILE (Java client settings) to each line.",
    )
    lines += ["set -euo pipefail", ': "${BOOTSTRAP_SERVERS:?set BOOTSTRAP_SERVERS to the brokers}"']
    lines += _tool(options)
    if not topics:
        lines += ["", *comment("Nothing to change."), "true"]
    for change in topics:
        lines += ["", *topic_lines(change), change.command()]
    return "\n".join(lines) + "\n"


def _tool(options: ExportOptions) -> list[str]:
    if options.kafka_classpath is None:
        return comment(
            "kafka-topics.sh must be on PATH (the planner's own Kafka install was not "
            "found when this was written)."
        )
    java = f"java -cp {shlex.quote(options.kafka_classpath)} {TOPIC_COMMAND}"
    version = f" {options.kafka_version}" if options.kafka_version else ""
    return [
        *comment(
            "Kafka's kafka-topics.sh when it is on PATH; else the same tool from the "
            f"planner's Apache Kafka{version} (jars from Maven Central, no bin/ scripts):"
        ),
        f"#   {java} --bootstrap-server ... --alter ...",
        "if ! command -v kafka-topics.sh >/dev/null 2>&1; then",
        f'  kafka-topics.sh() {{ {java} "$@"; }}',
        "fi",
    ]
