"""Reading Kafka 4.4.0's `kafka-share-groups` and `kafka-streams-groups` tables.

The outputs below are the tools' own, captured verbatim from Kafka 4.4.0 (one KRaft node;
confluent-kafka ShareConsumers, Kafka Streams 4.4.0 applications with
`group.protocol=streams`); the live collection test (`test_kafka_admin.py`) runs the
tools against the real broker.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from planner.collect.kafka_admin.group_tools import (
    GroupToolUnreadable,
    parse_share_members,
    parse_streams_groups,
    run_tool,
    tool_args,
)
from planner.collect.kafka_groups import group_rows

# Verbatim, Kafka 4.4.0: a group id with a space, a member on two topics, three members
# sharing one partition, a member with forty partitions.
MEMBERS = """
GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS  ASSIGNMENT
many            IBX00vnGRmysfsLCCqdnnA /127.0.0.1      x1              1            mails:0
many            c5Q4BjIES2mnBXaO2BBhrw /127.0.0.1      x2              1            mails:0
many            hJISqYoSRjyTdweO+harcA /127.0.0.1      x0              1            mails:0

GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS  ASSIGNMENT
queue 2         iR721DkcTsWlx9s0lh1+vw /127.0.0.1      s0              3            jobs:0,1;mails:0

GROUP           CONSUMER-ID            HOST            CLIENT-ID       #PARTITIONS  ASSIGNMENT
wide-group      6RKw2TZwQTa/n3jqutJWcA /127.0.0.1      wide            40           big:0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39
"""  # noqa: E501


def test_every_member_and_assignment_is_read_with_the_broker_s_assignor() -> None:
    groups = {g.group_id: g for g in parse_share_members(MEMBERS)}
    assert set(groups) == {"many", "queue 2", "wide-group"}
    for group in groups.values():
        assert (group.protocol, group.assignor, group.state) == ("share", "simple", "STABLE")
    many = groups["many"]
    assert [(m.client_id, m.assignment) for m in many.members] == [
        ("x1", (("mails", 0),)),
        ("x2", (("mails", 0),)),
        ("x0", (("mails", 0),)),
    ]  # sorted by member id; one partition shared by three members
    assert groups["queue 2"].members[0].assignment == (("jobs", 0), ("jobs", 1), ("mails", 0))
    assert len(groups["wide-group"].members[0].assignment) == 40


def test_share_groups_become_groups_rows_of_protocol_share() -> None:
    scan = group_rows(parse_share_members(MEMBERS), lambda _group: set())
    rows = sorted(
        (r["group_id"], r["topic"], r["protocol"], r["strategy"], r["members"]) for r in scan.rows
    )
    assert rows == [
        ("many", "mails", "share", "simple", 3),
        ("queue 2", "jobs", "share", "simple", 1),
        ("queue 2", "mails", "share", "simple", 1),
        ("wide-group", "big", "share", "simple", 1),
    ]
    assert scan.rejected == []


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (MEMBERS.replace("ASSIGNMENT", "TOPICS"), "no ASSIGNMENT column"),
        (
            MEMBERS.replace("jobs:0,1;mails:0", "jobs:0,x;mails:0"),
            "partition .x. is not a whole number",
        ),
        (MEMBERS.replace("mails:0\n\nGROUP", "mails\n\nGROUP", 1), "not topic:p,p"),
        (MEMBERS.replace("3            jobs", "2            jobs"), "#PARTITIONS 2 but 3"),
    ],
)
def test_output_the_parser_does_not_know_is_an_error_naming_the_line(
    output: str, message: str
) -> None:
    with pytest.raises(GroupToolUnreadable, match=message):
        parse_share_members(output)


def test_no_share_groups_is_an_empty_list() -> None:
    assert parse_share_members("") == []


def test_a_failing_tool_is_an_error_with_its_message() -> None:
    # The tool's own failure, verbatim from Kafka 4.4.0: it printed this and exited 0.
    printed = (
        "\nError: Executing share group command failed due to org.apache.kafka.common."
        "errors.GroupIdNotFoundException: Group nope not found.\n"
    )
    script = f"import sys; sys.stdout.write({printed!r})"
    with pytest.raises(GroupToolUnreadable, match="Group nope not found"):
        run_tool([sys.executable, "-c", script])
    with pytest.raises(GroupToolUnreadable, match=r"exit 3\): boom"):
        run_tool([sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"])
    with pytest.raises(GroupToolUnreadable, match=r"more than 0\.5 s"):
        run_tool([sys.executable, "-c", "import time; time.sleep(5)"], timeout_s=0.5)
    assert run_tool([sys.executable, "-c", "print('ok')"]) == "ok\n"


def test_the_tools_are_asked_for_every_group() -> None:
    assert tool_args("b:9092", "--members") == [
        "--bootstrap-server", "b:9092", "--describe", "--all-groups", "--members",
    ]  # fmt: skip
    assert tool_args("b:9092", "--offsets", command_config=Path("c.properties"))[-2:] == [
        "--command-config",
        "c.properties",
    ]


# Verbatim, Kafka 4.4.0: two KIP-1071 streams groups, two and three stream threads; the
# first reads two co-partitioned topics, the second one.
STREAMS_STATE = """GROUP           COORDINATOR (ID)          ASSIGNOR        STATE                     GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS
kip-solo        127.0.0.1:53933 (1)       sticky          Stable                    4               4                         3
GROUP           COORDINATOR (ID)          ASSIGNOR        STATE                     GROUP-EPOCH     TARGET-ASSIGNMENT-EPOCH   #MEMBERS
kip1071-app     127.0.0.1:53933 (1)       sticky          Stable                    3               3                         2
"""  # noqa: E501
STREAMS_OFFSETS = """GROUP           TOPIC           PARTITION  OFFSET-LAG
kip-solo        solo            0          0
kip-solo        solo            3          0
kip-solo        solo            1          0
kip-solo        solo            2          0
GROUP           TOPIC           PARTITION  OFFSET-LAG
kip1071-app     in-a            1          0
kip1071-app     in-b            2          0
kip1071-app     in-a            2          0
kip1071-app     in-b            0          0
kip1071-app     in-b            1          0
kip1071-app     in-a            0          0
"""


def test_streams_groups_are_read_with_their_assignor_threads_and_topics() -> None:
    groups, topics = parse_streams_groups(STREAMS_STATE, STREAMS_OFFSETS)
    assert [(g.group_id, g.protocol, g.assignor, g.state, len(g.members)) for g in groups] == [
        ("kip-solo", "streams", "sticky", "STABLE", 3),
        ("kip1071-app", "streams", "sticky", "STABLE", 2),
    ]
    assert topics == {"kip-solo": {"solo"}, "kip1071-app": {"in-a", "in-b"}}
    scan = group_rows(groups, lambda group: topics.get(group, set()))
    rows = sorted(
        (r["group_id"], r["topic"], r["protocol"], r["strategy"], r["members"]) for r in scan.rows
    )
    assert rows == [
        ("kip-solo", "solo", "streams", "sticky", 3),
        ("kip1071-app", "in-a", "streams", "sticky", 2),
        ("kip1071-app", "in-b", "streams", "sticky", 2),
    ]
    assert scan.from_offsets == ["kip-solo", "kip1071-app"]


def test_a_streams_header_with_a_column_it_does_not_know_is_refused() -> None:
    changed = STREAMS_STATE.replace("#MEMBERS", "#MEMBERS  #TASKS", 1)
    with pytest.raises(GroupToolUnreadable, match=r"unknown column\(s\) \['#TASKS'\]"):
        parse_streams_groups(changed, STREAMS_OFFSETS)


def test_the_collector_says_why_it_did_not_describe_share_and_streams_groups(
    tmp_path: Path,
) -> None:
    from planner.collect.kafka_admin.source import KafkaAdminSource

    def notes(source: KafkaAdminSource) -> list[str]:
        scan, said, read = source._described_by_tools()
        assert scan.rows == [] and read == set()
        return said

    [said] = notes(KafkaAdminSource("localhost:9", kafka_home=tmp_path))
    assert said.startswith("share and streams groups not described:")
    assert str(tmp_path) in said
    secured = KafkaAdminSource(
        "localhost:9", config={"security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN"}
    )
    [said] = notes(secured)
    assert "(sasl.mechanism, security.protocol)" in said
    assert "group_tools_command_config" in said
    assert notes(KafkaAdminSource("localhost:9", group_tools=False)) == []


def test_a_share_group_the_tool_lists_no_member_of_is_said_to_be_empty() -> None:
    from planner.collect.kafka_admin.consumer_groups import other_group_notes

    # What ListGroups named beside the consumer groups, once the tools' groups are out.
    others = [("idle-share", "share"), ("connect-sink", "connect"), ("legacy", "")]
    notes = other_group_notes(others, described={"share", "streams"})
    assert notes == [
        "1 group(s) of another kind (no protocol type given: not consumer, share or streams "
        "groups, e.g. Kafka Connect workers) skipped: legacy",
        "1 group(s) of another kind (protocol type connect: not consumer, share or streams "
        "groups, e.g. Kafka Connect workers) skipped: connect-sink",
        "1 empty share group(s) (kafka-share-groups lists no member) skipped: idle-share",
    ]
    # Never "not consumer groups ... confluent-kafka cannot describe them" for a share
    # group the tool read; one whose tool did not run says so instead.
    [note] = other_group_notes([("idle-share", "share")], described=set())
    assert note == (
        "1 share group(s) skipped, not described (Kafka's tools did not run, above): idle-share"
    )
