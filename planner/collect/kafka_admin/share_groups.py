"""Share groups (KIP-932), described by Apache Kafka's own `kafka-share-groups` tool.

confluent-kafka 2.16 cannot list or describe share groups (its `ListGroups` filter and
`DescribeConsumerGroups` know classic and consumer groups only), so the collector asks
Kafka's `ShareGroupCommand` (`kafka-share-groups.sh --describe --all-groups --members`)
from the Kafka installation the planner runs (`planner.adapters.kafka_dist.find`) and
reads its table. Kafka 4.4.0 prints, per group, a header and one row per member
(padding shortened here):

    GROUP      CONSUMER-ID            HOST        CLIENT-ID  #PARTITIONS  ASSIGNMENT
    queue 2    iR721DkcTsWlx9s0lh1+vw /127.0.0.1  s0         3            jobs:0,1;mails:0

Columns are padded to the widest value, so a row is cut at its header's column starts (a
group id may hold spaces); the assignment is `topic:p,p;topic:p`. The tool names no
assignor: Kafka 4.4.0's share groups have one, `simple` (`group.share.assignors`).
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from planner.collect.kafka_groups import DescribedGroup, DescribedMember

__all__ = [
    "SHARE_GROUP_COMMAND",
    "ShareGroupsUnreadable",
    "describe_share_groups",
    "parse_members",
    "share_group_args",
]

SHARE_GROUP_COMMAND = "org.apache.kafka.tools.consumer.group.ShareGroupCommand"
_COLUMNS = ("GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS", "ASSIGNMENT")
_ASSIGNOR = "simple"


class ShareGroupsUnreadable(RuntimeError):
    """Kafka's tool failed or printed what the parser does not know; the message says why."""


def _starts(header: str) -> dict[str, int]:
    starts = {}
    for name in _COLUMNS:
        at = header.find(name)
        if at < 0:
            raise ShareGroupsUnreadable(f"no {name} column in the header {header.strip()!r}")
        starts[name] = at
    return starts


def _cut(line: str, starts: Mapping[str, int]) -> dict[str, str]:
    order = sorted(starts.items(), key=lambda item: item[1])
    cells = {}
    for i, (name, start) in enumerate(order):
        end = order[i + 1][1] if i + 1 < len(order) else len(line)
        cells[name] = line[start:end].strip()
    return cells


def _assignment(text: str, where: str) -> tuple[tuple[str, int], ...]:
    pairs: list[tuple[str, int]] = []
    for part in filter(None, text.split(";")):
        topic, sep, numbers = part.rpartition(":")
        if not sep or not topic:
            raise ShareGroupsUnreadable(f"{where}: assignment {text!r} is not topic:p,p;...")
        try:
            pairs.extend((topic, int(p)) for p in numbers.split(",") if p)
        except ValueError:
            raise ShareGroupsUnreadable(
                f"{where}: assignment {text!r} has a bad partition"
            ) from None
    return tuple(sorted(pairs))


def parse_members(output: str) -> list[DescribedGroup]:
    """The share groups in `kafka-share-groups --describe --all-groups --members` output.

    Groups with no member print no rows and are not returned (an empty share group
    shares nothing).

    Raises:
        ShareGroupsUnreadable: a header without a known column, or a row it cannot read.
    """
    members: dict[str, list[DescribedMember]] = {}
    starts: dict[str, int] | None = None
    for number, line in enumerate(output.splitlines(), start=1):
        if not line.strip():
            continue
        if line.startswith("GROUP ") and "CONSUMER-ID" in line:
            starts = _starts(line)
            continue
        if starts is None:
            continue  # a message before any table (e.g. "Share group 'x' has no members")
        cells = _cut(line, starts)
        where = f"kafka-share-groups output line {number}"
        if not cells["GROUP"] or not cells["CONSUMER-ID"]:
            raise ShareGroupsUnreadable(f"{where}: no group or member id in {line!r}")
        assignment = _assignment(cells["ASSIGNMENT"], where)
        if cells["#PARTITIONS"] and int(cells["#PARTITIONS"]) != len(assignment):
            raise ShareGroupsUnreadable(
                f"{where}: #PARTITIONS {cells['#PARTITIONS']} but {len(assignment)} assigned"
            )
        members.setdefault(cells["GROUP"], []).append(
            DescribedMember(
                member_id=cells["CONSUMER-ID"],
                client_id=cells["CLIENT-ID"],
                group_instance_id=None,
                assignment=assignment,
            )
        )
    return [
        DescribedGroup(
            group_id=group_id,
            protocol="share",
            state="STABLE",
            assignor=_ASSIGNOR,
            members=tuple(sorted(found, key=lambda m: m.member_id)),
        )
        for group_id, found in sorted(members.items())
    ]


def describe_share_groups(
    java_command: Sequence[str], *, timeout_s: float = 60.0
) -> list[DescribedGroup]:
    """Run Kafka's share-group tool and read every share group with members.

    Args:
        java_command: The tool's command line: `KafkaDistribution.java_command(
            SHARE_GROUP_COMMAND, share_group_args(...))`.
        timeout_s: How long the tool may take (a JVM start and one Admin call).

    Raises:
        ShareGroupsUnreadable: the tool failed, timed out, or printed an error.
    """
    try:
        done = subprocess.run(
            list(java_command), capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        raise ShareGroupsUnreadable(f"kafka-share-groups took more than {timeout_s:g} s") from None
    except OSError as exc:
        raise ShareGroupsUnreadable(f"kafka-share-groups could not start: {exc}") from None
    # The tool prints "Error: ..." and still exits 0 on a failed describe.
    error = next((line for line in done.stdout.splitlines() if line.startswith("Error:")), None)
    if done.returncode != 0 or error is not None:
        detail = error or (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise ShareGroupsUnreadable(f"kafka-share-groups failed (exit {done.returncode}): {detail}")
    return parse_members(done.stdout)


def share_group_args(bootstrap_servers: str, command_config: Path | None = None) -> list[str]:
    """The tool's arguments: every share group's members, with the client settings file."""
    args = ["--bootstrap-server", bootstrap_servers, "--describe", "--all-groups", "--members"]
    if command_config is not None:
        args += ["--command-config", str(command_config)]
    return args
