"""`partition-planner measure` against the reference Kafka: rows, raw files, clean-up.

Each run creates (or uses) a topic on the session's one-node Kafka, runs Kafka 4.4.0's
perf tools, and must leave the cluster as it found it and the landing folder either
complete or untouched. Runs are small (a few MiB): the figures are only checked to be
consistent, not fast.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from planner.adapters.kraft import KRaftCluster, free_port
from planner.adapters.perf_test import read_perf_test
from planner.cli import main
from planner.collect.landing import LandingSource
from planner.figures.dataset import DataInterval
from planner.partition_capacity import partition_capacity

ROOT = Path(__file__).resolve().parents[2]
RECORD_BYTES = 512
RECORDS = 10_000


def _admin(kafka: KRaftCluster):  # type: ignore[no-untyped-def]
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": kafka.bootstrap, "log_level": 0})


def _topics(kafka: KRaftCluster) -> set[str]:
    return set(_admin(kafka).list_topics(timeout=30).topics)


def _groups(kafka: KRaftCluster) -> set[str]:
    listed = _admin(kafka).list_consumer_groups(request_timeout=30).result()
    return {g.group_id for g in listed.valid}


def _create(kafka: KRaftCluster, topic: str, partitions: int) -> None:
    from confluent_kafka.admin import NewTopic

    admin = _admin(kafka)  # kept: librdkafka fails the futures of a destroyed handle
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(timeout=60)


def _delete(kafka: KRaftCluster, topic: str) -> None:
    admin = _admin(kafka)
    if topic in _topics(kafka):
        admin.delete_topics([topic])[topic].result(timeout=60)


def _measure(
    capsys: pytest.CaptureFixture[str], kafka: KRaftCluster, landing: Path, *extra: str
) -> tuple[int, str, str]:
    code = main(
        [
            "measure",
            "--bootstrap",
            kafka.bootstrap,
            "--record-size",
            str(RECORD_BYTES),
            "--records",
            str(RECORDS),
            "--landing",
            str(landing),
            *extra,
        ]
    )
    out, err = capsys.readouterr()
    return code, out, err


def _created_topic(out: str) -> str:
    match = re.search(r"^created topic (\S+):", out, re.MULTILINE)
    assert match, out
    return match[1]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_a_measurement_lands_rows_the_plan_reads_and_leaves_no_topic_or_group(
    kafka: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    landing = tmp_path / "landing"
    before = datetime.now(UTC) - timedelta(seconds=1)
    code, out, err = _measure(capsys, kafka, landing)
    assert code == 0, err + out
    topic = _created_topic(out)
    assert topic not in _topics(kafka) and topic not in _groups(kafka)
    assert f"deleted consumer group {topic}" in out and f"deleted topic {topic}" in out

    producer_file, consumer_file = _perf_files(landing)
    # The raw files are what the existing reader understands, for the topic measured on.
    runs = [*read_perf_test(producer_file), *read_perf_test(consumer_file)]
    assert {r.topic for r in runs} == {topic}
    summary = next(r for r in runs if r.kind == "producer" and r.window == "summary")
    steady = next(r for r in runs if r.window == "steady-state")
    (consumed,) = (r for r in runs if r.kind == "consumer")
    assert summary.records == RECORDS and consumed.records == RECORDS
    assert steady.records == RECORDS - RECORDS // 10
    capacity = partition_capacity(runs, topic)

    rows = (landing / "capacity" / "measured.csv").read_text().splitlines()
    assert rows[0] == (
        "topic,producer_mib_per_s,producer_records_per_s,consumer_mib_per_s,"
        "consumer_records_per_s,share_fetch_mib_per_s,share_fetch_records_per_s,"
        "record_bytes,source,measured_at"
    )
    # Collected the way `plan --landing` collects: the '*' row as written, and the raw
    # files as the test topic's own row, neither rejected.
    day = DataInterval.day(datetime.now(UTC).date())
    collected = LandingSource(landing).collect(day)
    assert not collected.rejected
    from_csv, from_perf = collected.parts["capacity"]
    (row,) = from_csv.table.to_pylist()
    assert row["topic"] == "*" and row["record_bytes"] == RECORD_BYTES
    assert (row["producer_mib_per_s"], row["producer_records_per_s"]) == (
        capacity.tp_mib_per_s,
        capacity.tp_records_per_s,
    )
    assert (row["consumer_mib_per_s"], row["consumer_records_per_s"]) == (
        capacity.tc_mib_per_s,
        capacity.tc_records_per_s,
    )
    assert before <= row["measured_at"] <= datetime.now(UTC)
    assert producer_file.name in row["source"] and consumer_file.name in row["source"]
    assert from_perf.table.column("topic").to_pylist() == [topic]
    # Without --share, no share group ran and the share columns are empty.
    assert row["share_fetch_mib_per_s"] is None and row["share_fetch_records_per_s"] is None
    assert "share" not in out

    # Plausible: the MiB/s and records/s of each side agree at 512-byte records, within
    # the rounding of the printed MiB/s (two decimals for the producer).
    assert capacity.tp_mib_per_s is not None and capacity.tp_records_per_s is not None
    assert capacity.tc_mib_per_s is not None and capacity.tc_records_per_s is not None
    for mib, records in (
        (capacity.tp_mib_per_s, capacity.tp_records_per_s),
        (capacity.tc_mib_per_s, capacity.tc_records_per_s),
    ):
        assert mib > 0 and records > 0
        assert mib == pytest.approx(records * RECORD_BYTES / 2**20, rel=0.02, abs=0.006)
    assert f"Tp {capacity.tp_mib_per_s:.2f} MiB/s" in out
    assert "Tc is an upper bound" in out and "consumer_mib_per_s" in out


SHARE_RECORDS = 40_000


def _share_groups(kafka: KRaftCluster) -> set[str]:
    """The share groups Kafka lists (confluent-kafka 2.16.1 lists no share groups)."""
    from planner.adapters.perf_tools import SHARE_GROUPS_MAIN, run_tool
    from tests.support.kafka import distribution

    command = distribution().java_command(
        SHARE_GROUPS_MAIN, ["--bootstrap-server", kafka.bootstrap, "--list"], heap_mb=256
    )
    done = run_tool(command, timeout_s=120)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def _dynamic_group_configs(kafka: KRaftCluster, group: str) -> dict[str, str]:
    from confluent_kafka.admin import ConfigResource, ConfigSource, ResourceType

    resource = ConfigResource(ResourceType.GROUP, group)
    admin = _admin(kafka)  # kept: librdkafka fails the futures of a destroyed handle
    found = admin.describe_configs([resource])[resource].result(timeout=60)
    dynamic = ConfigSource.GROUP_CONFIG.value  # a group's own dynamic config
    return {name: c.value for name, c in found.items() if c.source == dynamic}


def test_a_share_measurement_adds_the_share_fetch_columns_and_leaves_no_share_group(
    kafka: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--share`: a share group of two members reads the records written, its rows land
    beside Tp and Tc, and the group and its dynamic config (which Kafka 4.4.0 keeps after
    the group is deleted) are removed."""
    landing = tmp_path / "landing"
    code = main(
        [
            "measure",
            "--bootstrap",
            kafka.bootstrap,
            "--record-size",
            str(RECORD_BYTES),
            "--records",
            str(SHARE_RECORDS),
            "--landing",
            str(landing),
            "--share",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err + out
    topic = _created_topic(out)
    group = topic.replace("partition-planner-measure-", "partition-planner-measure-share-")
    assert f"deleted share group {group}" in out and f"deleted topic {topic}" in out
    assert group not in _share_groups(kafka)
    assert _dynamic_group_configs(kafka, group) == {}

    names = sorted(p.name for p in (landing / "perf").iterdir())
    assert [n.rsplit(".", 2)[-2] for n in names] == ["consumer", "producer", "share"]
    share_file = landing / "perf" / names[2]
    runs = read_perf_test(share_file)
    assert {r.topic for r in runs} == {topic} and {r.kind for r in runs} == {"share"}
    (summary,) = (r for r in runs if r.window == "summary")
    members = [r for r in runs if r.window == "member"]
    # Both members joined; together they read every record (a member may read past
    # the count before the tool stops them).
    assert sorted(m.member for m in members) == [1, 2]
    assert summary.records >= SHARE_RECORDS
    assert sum(m.records for m in members) == summary.records
    share = partition_capacity(runs, topic)

    day = DataInterval.day(datetime.now(UTC).date())
    collected = LandingSource(landing).collect(day)
    assert not collected.rejected
    from_csv, from_perf = collected.parts["capacity"]
    (row,) = from_csv.table.to_pylist()
    assert (row["share_fetch_mib_per_s"], row["share_fetch_records_per_s"]) == (
        share.share_fetch_mib_per_s,
        share.share_fetch_records_per_s,
    )
    assert row["consumer_mib_per_s"] is not None and row["producer_mib_per_s"] is not None
    assert share_file.name in row["source"]
    (perf_row,) = from_perf.table.to_pylist()
    assert perf_row["share_fetch_mib_per_s"] == share.share_fetch_mib_per_s
    assert share.share_fetch_mib_per_s is not None and share.share_fetch_records_per_s is not None
    assert share.share_fetch_mib_per_s == pytest.approx(
        share.share_fetch_records_per_s * RECORD_BYTES / 2**20, rel=0.02
    )
    assert f"share-fetch {share.share_fetch_mib_per_s:.2f} MiB/s" in out
    assert "not used in sizing yet" in out


def _perf_files(landing: Path) -> tuple[Path, Path]:
    files = sorted((landing / "perf").iterdir())
    assert [p.name.rsplit(".", 2)[-2] for p in files] == ["consumer", "producer"], files
    return files[1], files[0]


def test_a_named_one_partition_topic_is_used_and_kept(
    kafka: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = f"perf-kept-{uuid.uuid4().hex[:8]}"
    _create(kafka, topic, 1)
    landing = tmp_path / "landing"
    try:
        code, out, err = _measure(capsys, kafka, landing, "--topic", topic)
        assert code == 0, err + out
        assert "created topic" not in out
        assert topic in _topics(kafka)
    finally:
        _delete(kafka, topic)
    assert not any(g.startswith("partition-planner-measure-") for g in _groups(kafka))
    producer_file, consumer_file = _perf_files(landing)
    assert producer_file.name.startswith(f"{topic}.")
    runs = [*read_perf_test(producer_file), *read_perf_test(consumer_file)]
    assert {r.topic for r in runs} == {topic}
    assert (landing / "capacity" / "measured.csv").is_file()


@pytest.mark.parametrize(
    ("partitions", "problem"),
    [(3, r"has 3 partitions; .* exactly one$"), (None, r"does not exist on 127\.0\.0\.1:")],
)
def test_a_named_topic_that_cannot_be_measured_is_refused(
    kafka: KRaftCluster,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    partitions: int | None,
    problem: str,
) -> None:
    topic = f"perf-refused-{uuid.uuid4().hex[:8]}"
    if partitions is not None:
        _create(kafka, topic, partitions)
    try:
        code, _, err = _measure(capsys, kafka, tmp_path / "landing", "--topic", topic)
    finally:
        _delete(kafka, topic)
    assert code == 2
    assert err.count("\n") == 1 and re.search(problem, err.strip()), err
    assert not (tmp_path / "landing").exists()


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--bootstrap", "broker"], "--bootstrap: expected HOST:PORT"),
        (["--bootstrap", "b:70000"], "--bootstrap: port 70000"),
        (["--record-size", "0"], "--record-size: expected a whole number >= 1"),
        (["--record-size", "100000000"], "--record-size: 100,000,000 bytes is above"),
        (["--records", "10"], "--records: expected a whole number >= 1000"),
        (["--topic", "bad name!"], "--topic: topic name 'bad name!' is not legal"),
        (["--topic", "t", "--replication-factor", "3"], "--replication-factor: applies to"),
        (["--command-config", "/nonexistent/client.properties"], "--command-config: cannot"),
        (["--kafka-home", "/"], "--kafka-home: / is not an Apache Kafka installation"),
        (["--landing-dir", "x"], "unrecognized arguments: --landing-dir"),
        (["--share-members", "2"], "--share-members: needs --share"),
        (["--share-members", "0"], "--share-members: expected a whole number >= 1"),
    ],
)
def test_bad_arguments_are_one_line_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], problem: str
) -> None:
    landing = tmp_path / "landing"
    base = {"--bootstrap": "127.0.0.1:9", "--record-size": "100", "--landing": str(landing)}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    argv = ["measure", *(part for pair in base.items() for part in pair)]
    with pytest.raises(SystemExit) as raised:
        raise SystemExit(main(argv))
    err = capsys.readouterr().err
    assert raised.value.code == 2
    assert err.count("\n") == 1 and problem in err, err
    assert not landing.exists()


def test_more_share_members_than_one_tool_runs_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    landing = tmp_path / "landing"
    argv = ["measure", "--bootstrap", "127.0.0.1:9", "--record-size", "100", "--share"]
    assert main([*argv, "--share-members", "17", "--landing", str(landing)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--share-members: 17 is above 16" in err
    assert not landing.exists()


def test_a_landing_path_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    landing = tmp_path / "landing"
    landing.write_text("")
    argv = ["measure", "--bootstrap", "127.0.0.1:9", "--record-size", "100"]
    assert main([*argv, "--landing", str(landing)]) == 2
    assert f"--landing: {landing} is not a folder" in capsys.readouterr().err


def test_without_java_it_fails_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    landing = tmp_path / "landing"
    argv = ["measure", "--bootstrap", "127.0.0.1:9", "--record-size", "100"]
    assert main([*argv, "--landing", str(landing)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no `java` on PATH and no JAVA_HOME" in err
    assert not landing.exists()


def test_an_unreachable_cluster_fails_fast_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    landing = tmp_path / "landing"
    port = free_port()
    started = time.monotonic()
    code = main(
        [
            "measure",
            "--bootstrap",
            f"127.0.0.1:{port}",
            "--record-size",
            "100",
            "--landing",
            str(landing),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1 and time.monotonic() - started < 15
    assert err.count("\n") == 1
    assert err.startswith(f"partition-planner measure: failed: cannot reach 127.0.0.1:{port}: ")
    assert err.strip().endswith("nothing written")
    assert not landing.exists()


def test_a_failing_tool_is_cleaned_up_after_and_nothing_written(
    kafka: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The admin tools ignore a producer setting; the producer refuses a bad value.
    config = tmp_path / "client.properties"
    config.write_text("acks=sometimes\n")
    landing = tmp_path / "landing"
    code, out, err = _measure(capsys, kafka, landing, "--command-config", str(config))
    assert code == 1
    topic = _created_topic(out)
    assert err.count("\n") == 1, err
    assert err.startswith("partition-planner measure: failed: kafka-producer-perf-test failed: ")
    assert "acks" in err and err.strip().endswith("nothing written")
    assert f"deleted topic {topic}" in out and topic not in _topics(kafka)
    assert not landing.exists()


def test_a_replication_factor_the_cluster_refuses_is_its_one_line_exit_1(
    kafka: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    landing = tmp_path / "landing"
    code, out, err = _measure(capsys, kafka, landing, "--replication-factor", "2")
    assert code == 1 and err.count("\n") == 1, err
    # Kafka's own words, from the controller.
    assert "replication factor of 2 cannot be reached because only 1 broker(s)" in err
    assert "created topic" not in out and "deleted topic" not in out
    assert not any(t.startswith("partition-planner-measure-") for t in _topics(kafka))
    assert not landing.exists()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_deletes_its_topic_and_writes_nothing(
    kafka: KRaftCluster, tmp_path: Path, signum: int
) -> None:
    landing = tmp_path / "landing"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "planner.cli",
            "measure",
            "--bootstrap",
            kafka.bootstrap,
            "--record-size",
            "100",
            "--records",
            "50000000",  # far more than the test waits for
            "--landing",
            str(landing),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:  # until the producer tool has started printing
            lines.append(line)
            if line.startswith("  Warmup first"):
                break
        topic = _created_topic("".join(lines))
        assert topic in _topics(kafka)
        process.send_signal(signum)
        out, err = process.communicate(timeout=180)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert err.strip() == "partition-planner measure: interrupted; nothing written"
    assert f"deleted topic {topic}" in out
    assert topic not in _topics(kafka)
    assert not landing.exists()
