"""Share groups (KIP-932) and streams groups (KIP-1071), described by Kafka's own tools.

confluent-kafka 2.16 cannot list or describe either kind (its group calls know classic
and consumer groups only; a share or streams group reads as a `DEAD` classic group), so
the collector runs Apache Kafka's command-line tools from the Kafka installation the
planner uses (`planner.adapters.kafka_dist.find`) and reads their tables:

- `ShareGroupCommand` (`kafka-share-groups.sh --describe --all-groups --members`): one
  row per member with its partitions, `topic:p,p;topic:p`. The tool names no assignor:
  Kafka 4.4.0's share groups have one, `simple` (`group.share.assignors`).
- `StreamsGroupCommand` (`kafka-streams-groups.sh --describe --all-groups`) twice:
  `--state --verbose` for each group's assignor (the broker's task assignor, `sticky`)
  and member count (one member per stream thread), `--offsets` for the topics its
  sub-topologies read (those it has committed offsets for).

Kafka 4.4.0 pads each column to its widest value and separates some headers by a single
space (`TOPOLOGY-EPOCH MEMBER`), and both group ids and the coordinator column may hold
spaces, so a row is cut at the start of each known column in its header; a header with
a column the parser does not know is an error rather than a guess.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from planner.collect.kafka_groups import DescribedGroup, DescribedMember

__all__ = [
    "SHARE_GROUP_COMMAND",
    "STREAMS_GROUP_COMMAND",
    "GroupToolUnreadable",
    "ToolGroups",
    "describe_with_tools",
    "parse_share_members",
    "parse_streams_groups",
    "run_tool",
    "tool_args",
]

SHARE_GROUP_COMMAND = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
STREAMS_GROUP_COMMAND = "org.apache.kafka.tools.streams.StreamsGroupCommand"
_SHARE_MEMBERS = ("GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT")
_STREAMS_STATE = (
    "GROUP",
    "COORDINATOR (ID)",
    "ASSIGNOR",
    "STATE",
    "GROUP-EPOCH",
    "TARGET-ASSIGNMENT-EPOCH",
    "#MEMBERS",
)
_STREAMS_OFFSETS = ("GROUP", "TOPIC", "PARTITION", "OFFSET-LAG")
_SHARE_ASSIGNOR = "simple"


class GroupToolUnreadable(RuntimeError):
    """Kafka's tool failed or printed what the parser does not know; the message says why."""


def _starts(header: str, columns: Sequence[str], where: str) -> list[tuple[str, int]]:
    starts = []
    rest = header
    for name in columns:
        found = re.search(rf"(?<!\S){re.escape(name)}(?!\S)", header)
        if found is None:
            raise GroupToolUnreadable(f"{where}: no {name} column in {header.strip()!r}")
        starts.append((name, found.start()))
        rest = rest.replace(name, "", 1)
    if rest.strip():
        raise GroupToolUnreadable(
            f"{where}: unknown column(s) {rest.split()} in {header.strip()!r}"
        )
    return sorted(starts, key=lambda item: item[1])


def _table(output: str, columns: Sequence[str], what: str) -> Iterator[tuple[str, dict[str, str]]]:
    """(where, cells) of every row under a header naming `columns`."""
    starts: list[tuple[str, int]] | None = None
    for number, line in enumerate(output.splitlines(), start=1):
        where = f"{what} output line {number}"
        if not line.strip():
            continue
        if line.startswith("GROUP ") and columns[1] in line:
            starts = _starts(line, columns, where)
            continue
        if starts is None:
            continue  # a message before any table (e.g. "... has no active members")
        cells = {}
        for i, (name, start) in enumerate(starts):
            end = starts[i + 1][1] if i + 1 < len(starts) else len(line)
            cells[name] = line[start:end].strip()
        if not cells["GROUP"]:
            raise GroupToolUnreadable(f"{where}: no group id in {line!r}")
        yield where, cells


def _whole(text: str, where: str, column: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise GroupToolUnreadable(f"{where}: {column} {text!r} is not a whole number") from None


def _assignment(text: str, where: str) -> tuple[tuple[str, int], ...]:
    pairs: list[tuple[str, int]] = []
    for part in filter(None, text.split(";")):
        topic, sep, numbers = part.rpartition(":")
        if not sep or not topic:
            raise GroupToolUnreadable(f"{where}: assignment {text!r} is not topic:p,p;...")
        pairs.extend((topic, _whole(p, where, "partition")) for p in numbers.split(",") if p)
    return tuple(sorted(pairs))


def parse_share_members(output: str) -> list[DescribedGroup]:
    """The share groups with members in `kafka-share-groups --describe --members` output.

    Raises:
        GroupToolUnreadable: a header it does not know, or a row it cannot read.
    """
    members: dict[str, list[DescribedMember]] = {}
    for where, cells in _table(output, _SHARE_MEMBERS, "kafka-share-groups"):
        if not cells["CONSUMER-ID"]:
            raise GroupToolUnreadable(f"{where}: no member id")
        assignment = _assignment(cells["ASSIGNMENT"], where)
        count = _whole(cells["#PARTITIONS"] or "0", where, "#PARTITIONS")
        if count != len(assignment):
            raise GroupToolUnreadable(
                f"{where}: #PARTITIONS {count} but {len(assignment)} assigned"
            )
        members.setdefault(cells["GROUP"], []).append(
            DescribedMember(cells["CONSUMER-ID"], cells["CLIENT-ID"], None, assignment)
        )
    return [
        DescribedGroup(
            group_id=group_id,
            protocol="share",
            state="STABLE",
            assignor=_SHARE_ASSIGNOR,
            members=tuple(sorted(found, key=lambda m: m.member_id)),
        )
        for group_id, found in sorted(members.items())
    ]


def parse_streams_groups(
    state: str, offsets: str
) -> tuple[list[DescribedGroup], dict[str, set[str]]]:
    """Streams groups from `kafka-streams-groups --describe --state --verbose` and
    `--offsets` output.

    Returns:
        The groups (protocol `streams`, the broker's assignor, state, and one member per
        stream thread, without assignments: the tool gives tasks, not partitions), and
        per group the topics it committed offsets for.

    Raises:
        GroupToolUnreadable: a header it does not know, or a row it cannot read.
    """
    groups = []
    for where, cells in _table(state, _STREAMS_STATE, "kafka-streams-groups --state"):
        count = _whole(cells["#MEMBERS"] or "0", where, "#MEMBERS")
        threads = tuple(DescribedMember(f"thread-{i}", "", None, ()) for i in range(count))
        groups.append(
            DescribedGroup(
                group_id=cells["GROUP"],
                protocol="streams",
                state=cells["STATE"].upper().replace(" ", "_"),
                assignor=cells["ASSIGNOR"],
                members=threads,
            )
        )
    topics: dict[str, set[str]] = {}
    for _, cells in _table(offsets, _STREAMS_OFFSETS, "kafka-streams-groups --offsets"):
        if cells["TOPIC"]:
            topics.setdefault(cells["GROUP"], set()).add(cells["TOPIC"])
    return sorted(groups, key=lambda g: g.group_id), topics


def run_tool(java_command: Sequence[str], *, timeout_s: float = 60.0) -> str:
    """Run one of Kafka's group tools; its standard output.

    Raises:
        GroupToolUnreadable: the tool failed, timed out, or printed an error (Kafka
            4.4.0's tools print `Error: ...` and still exit 0 on a failed describe).
    """
    name = next((a.rsplit(".", 1)[-1] for a in java_command if a.endswith("Command")), "tool")
    # The tools run during the throughput sample window: at a lower priority, their JVM
    # starts leave the CPU to what the window measures when they share a machine.
    nice = shutil.which("nice")
    command = [nice, "-n", "10", *java_command] if nice else list(java_command)
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        raise GroupToolUnreadable(f"{name} took more than {timeout_s:g} s") from None
    except OSError as exc:
        raise GroupToolUnreadable(f"{name} could not start: {exc}") from None
    error = next((line for line in done.stdout.splitlines() if line.startswith("Error:")), None)
    if done.returncode != 0 or error is not None:
        detail = error or (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise GroupToolUnreadable(f"{name} failed (exit {done.returncode}): {detail}")
    return done.stdout


def tool_args(bootstrap_servers: str, *what: str, command_config: Path | None = None) -> list[str]:
    """A group tool's arguments: describe every group, `what` (`--members`, `--offsets`...)."""
    args = ["--bootstrap-server", bootstrap_servers, "--describe", "--all-groups", *what]
    if command_config is not None:
        args += ["--command-config", str(command_config)]
    return args


# Kafka's group tools make one Admin call: a small heap and no optimising compiler start
# them in about 3 s instead of 4-5 on two cores.
_TOOL_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


@dataclass
class ToolGroups:
    """Share and streams groups as Kafka's tools described them.

    Attributes:
        share: The share groups, or None when they could not be read (see `notes`).
        streams: The streams groups, or None when they could not be read.
        streams_topics: Per streams group, the topics it committed offsets for.
        notes: Why a kind was not read.
    """

    share: list[DescribedGroup] | None = None
    streams: list[DescribedGroup] | None = None
    streams_topics: dict[str, set[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def describe_with_tools(
    bootstrap_servers: str,
    client_settings: Mapping[str, object],
    *,
    kafka_home: Path | None,
    command_config: Path | None,
    timeout_s: float,
) -> ToolGroups:
    """Describe share and streams groups with Kafka's own tools, three JVMs in parallel.

    Nothing is read (with a note saying why) on a secured cluster without a Java client
    properties file (librdkafka's settings do not translate to the Java client's), or
    without a Kafka installation; a kind whose tool fails costs only that kind.

    Args:
        bootstrap_servers: The cluster's bootstrap servers.
        client_settings: The librdkafka settings the planner uses for the cluster (only
            their names are looked at, to tell a secured cluster).
        kafka_home: The Kafka installation; None: `planner.adapters.kafka_dist.find`'s.
        command_config: A Java client properties file for the tools (`--command-config`).
        timeout_s: Seconds each tool may take.
    """
    from concurrent.futures import ThreadPoolExecutor

    from planner.adapters.kafka_dist import KafkaNotFound, find

    found = ToolGroups()
    secured = sorted(k for k in client_settings if k.split(".")[0] in {"security", "sasl", "ssl"})
    if secured and command_config is None:
        found.notes.append(
            "share and streams groups not described: the cluster takes client security "
            f"settings ({', '.join(secured)}) and no group_tools_command_config gives "
            "Kafka's tools the Java client's"
        )
        return found
    try:
        kafka = find(kafka_home)
    except KafkaNotFound as exc:
        found.notes.append(f"share and streams groups not described: {exc}")
        return found

    def run(main_class: str, *what: str) -> str:
        args = tool_args(bootstrap_servers, *what, command_config=command_config)
        command = kafka.java_command(main_class, args, heap_mb=256, jvm_options=_TOOL_JVM_OPTIONS)
        return run_tool(command, timeout_s=timeout_s)

    with ThreadPoolExecutor(3, thread_name_prefix="kafka-group-tool") as pool:
        share_out = pool.submit(run, SHARE_GROUP_COMMAND, "--members")
        state_out = pool.submit(run, STREAMS_GROUP_COMMAND, "--state", "--verbose")
        offsets_out = pool.submit(run, STREAMS_GROUP_COMMAND, "--offsets")
        try:
            found.share = parse_share_members(share_out.result())
        except GroupToolUnreadable as exc:
            found.notes.append(f"share groups not described: {exc}")
        try:
            found.streams, found.streams_topics = parse_streams_groups(
                state_out.result(), offsets_out.result()
            )
        except GroupToolUnreadable as exc:
            found.notes.append(f"streams groups not described: {exc}")
    return found
