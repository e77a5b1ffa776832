"""Driving Kafka's tools: bootstrap and version checks, tool errors, and stopping a tool.

The error texts below are what Kafka 4.4.0's tools printed on 2026-11-26 (TopicCommand,
ConsumerGroupCommand, ConsumerPerformance given a bad setting), kept verbatim.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

import pytest

from planner.adapters.kafka_dist import KafkaDistribution
from planner.adapters.kraft import free_port
from planner.adapters.perf_tools import (
    ADMIN_TIMEOUTS,
    KafkaTools,
    ToolFailed,
    ToolRun,
    check_version,
    parse_bootstrap,
    reachable,
    run_tool,
)


def test_bootstrap_servers_are_host_port_pairs() -> None:
    assert parse_bootstrap("b1:9092, 10.0.0.7:9093,[::1]:9094") == (
        ("b1", 9092),
        ("10.0.0.7", 9093),
        ("::1", 9094),
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("broker", "expected HOST:PORT[,HOST:PORT...], got 'broker'"),
        ("b1:9092,", "got ''"),
        ("b1:99999", "port 99999 of 'b1:99999' is not between 1 and 65535"),
        ("b1:0", "port 0"),
        ("http://b1:9092", "got 'http://b1:9092'"),
    ],
)
def test_a_bad_bootstrap_is_named(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=re.escape(problem)):
        parse_bootstrap(text)


def test_only_kafka_4_2_and_later_tools_are_driven(tmp_path: Path) -> None:
    assert check_version(KafkaDistribution(tmp_path, "4.4.0")) is None
    assert check_version(KafkaDistribution(tmp_path, "4.2.1")) is None
    assert check_version(KafkaDistribution(tmp_path, "5.0.0")) is None
    old = check_version(KafkaDistribution(tmp_path, "4.1.1"))
    assert old is not None and "4.1.1" in old and "KIP-1147" in old and "--kafka-home" in old
    assert check_version(KafkaDistribution(tmp_path, "3.9.0")) is not None


def test_a_closed_port_is_unreachable_and_a_listening_one_is_not() -> None:
    port = free_port()
    problem = reachable([("127.0.0.1", port)], timeout_s=2)
    assert problem is not None and f"127.0.0.1:{port}" in problem
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        open_port = listener.getsockname()[1]
        # One answering server is enough, whatever the others do.
        assert reachable([("127.0.0.1", port), ("127.0.0.1", open_port)], timeout_s=2) is None


def _run(stdout: str = "", stderr: str = "", code: int = 1) -> ToolRun:
    return ToolRun(("java",), code, stdout, stderr, 1.0)


def test_a_tools_error_is_its_own_line_without_log_noise() -> None:
    topics = _run(
        stdout="Error while executing topic command : Topic 'nope' does not exist as expected\n",
        stderr=(
            "2026-11-26T04:54:45.252419043Z main ERROR java.lang.IllegalArgumentException: "
            "Topic 'nope' does not exist as expected\n"
            "\tat org.apache.kafka.tools.TopicCommand.ensureTopicExists(TopicCommand.java:207)\n"
        ),
    )
    assert topics.error() == "Topic 'nope' does not exist as expected"
    groups = _run(
        stderr=(
            "\nError: Deletion of some consumer groups failed:\n"
            "* Group 'g' could not be deleted due to: org.apache.kafka.common.errors."
            "GroupNotEmptyException: The group is not empty.\n"
        ),
        code=0,
    )
    assert groups.error().endswith("GroupNotEmptyException: The group is not empty.")
    consumer = _run(
        stdout="start.time, end.time, data.consumed.in.MB, MB.sec\n",
        stderr=(
            "Invalid value bogus for configuration isolation.level: String must be one of: "
            "read_committed, read_uncommitted\n"
            "org.apache.kafka.common.config.ConfigException: Invalid value bogus ...\n"
        ),
    )
    assert consumer.error().startswith("Invalid value bogus for configuration isolation.level")
    assert _run(code=3).error() == "exit code 3"
    # Kafka 4.4.0's kafka-configs refusing a group config: the broker's words, unwrapped.
    config = _run(
        stderr=(
            "java.util.concurrent.ExecutionException: org.apache.kafka.common.errors."
            "InvalidConfigurationException: Invalid value bogus for configuration "
            "share.auto.offset.reset: Invalid value `bogus` for configuration "
            "share.auto.offset.reset.\n"
        )
    )
    assert config.error().startswith("Invalid value bogus for configuration share.auto.offset")
    share_groups = _run(
        stderr=(
            "Error: Deletion of some share groups failed:\n* Group 'g3' could not be deleted "
            "due to: org.apache.kafka.common.errors.GroupNotEmptyException: Share group "
            "'g3' is not EMPTY.\n"
        ),
        code=0,
    )
    assert share_groups.error().endswith("Share group 'g3' is not EMPTY.")


def test_the_admin_tools_get_timeouts_the_users_file_can_override(tmp_path: Path) -> None:
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SSL\ndefault.api.timeout.ms=90000")
    tools = KafkaTools(KafkaDistribution(tmp_path, "4.4.0"), "b:9092", config, tmp_path)
    lines = tools._admin_config().read_text().splitlines()
    ours = [f"{k}={v}" for k, v in ADMIN_TIMEOUTS.items()]
    # A Java properties file keeps the last value of a key: the user's comes after ours.
    assert lines[: len(ours)] == ours
    assert lines[len(ours) :] == ["security.protocol=SSL", "default.api.timeout.ms=90000"]


def test_a_tool_prints_its_lines_as_they_come() -> None:
    seen: list[str] = []
    done = run_tool(
        [sys.executable, "-c", "import sys; print('a'); print('b'); sys.stderr.write('e\\n')"],
        echo=seen.append,
    )
    assert (done.returncode, done.stdout, done.stderr, seen) == (0, "a\nb\n", "e\n", ["a", "b"])


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_tool_past_its_time_is_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    started = time.monotonic()
    with pytest.raises(ToolFailed, match="did not finish within 1 s"):
        run_tool(["sh", "-c", f"echo $$ > {pid_file}; exec sleep 60"], timeout_s=1)
    assert time.monotonic() - started < 30
    assert _gone(int(pid_file.read_text()))


def test_an_interrupt_stops_the_tool_before_it_propagates(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        with pytest.raises(KeyboardInterrupt):
            run_tool(["sh", "-c", f"echo $$ > {pid_file}; exec sleep 60"])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _gone(int(pid_file.read_text()))
