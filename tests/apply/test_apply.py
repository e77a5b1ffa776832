"""`partition-planner apply` on a real Apache Kafka 4.4.0, with the store's audit.

A broker of this module's own (its last test stops it mid-apply). Each test publishes
a run of real core plans under its own topic prefix (`tests.changes.plans`: a keyless
topic to grow 12 -> 60, a keyed one 12 -> 16, one at its count, one to create), creates
the topics the plan saw, and runs `apply` as a person does (`partition-planner apply`
in this process) or through the function the command and the DAG call.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.adapters.kraft import KRaftCluster
from planner.cli import main
from planner.store import RecommendationStore
from planner.store.audit import history
from tests.changes.plans import RUN_KEY, Published, published
from tests.support import kafka as reference_kafka


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KRaftCluster]:
    """A broker of this module's own: the last test stops it."""
    with reference_kafka.single_node(tmp_path_factory.mktemp("kafka-apply")) as cluster:
        yield cluster


def _admin(broker: KRaftCluster) -> object:
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": broker.bootstrap})


def _counts(broker: KRaftCluster, run: Published) -> dict[str, int | None]:
    found = _admin(broker).list_topics(timeout=30).topics  # type: ignore[attr-defined]
    return {t: len(found[t].partitions) if t in found else None for t in run.current}


def _setup(broker: KRaftCluster, folder: Path, prefix: str, **kwargs: object) -> Published:
    """A published run, its topics created as the plan saw them, and a config."""
    from confluent_kafka.admin import NewTopic

    run = published(folder, prefix, **({"brokers": 1} | kwargs))  # type: ignore[arg-type]
    new = [NewTopic(t, n, 1) for t, n in run.current.items() if n is not None]
    admin = _admin(broker)
    for future in admin.create_topics(new, operation_timeout=30).values():  # type: ignore[attr-defined]
        future.result(60)
    # The brokers serve a created topic's metadata a moment after CreateTopics returns
    # (seen on a loaded CI machine: apply found the topics missing).
    for topic in new:
        _until_metadata_shows(broker, topic.topic, topic.num_partitions)
    (folder / "planner.toml").write_text(
        f'[sources.kafka]\nbootstrap = "{broker.bootstrap}"\nrequest_timeout_s = 5\n'
        f'[store]\nurl = "{run.store_url}"\n'
    )
    return run


def _until_metadata_shows(broker: KRaftCluster, topic: str, partitions: int) -> None:
    # KRaft brokers learn a new count from the controller a moment after CreatePartitions
    # returns; a change "since the plan" is one the brokers already serve.
    deadline = time.monotonic() + 30
    admin = _admin(broker)
    while True:
        shown = admin.list_topics(timeout=10).topics.get(topic)  # type: ignore[attr-defined]
        if shown is not None and len(shown.partitions) == partitions:
            return
        assert time.monotonic() < deadline, f"{topic} never showed {partitions} partitions"
        time.sleep(0.2)


def _apply(folder: Path, *extra: str) -> int:
    return main(["apply", "--config", str(folder / "planner.toml"), "--who", "tester", *extra])


def test_a_dry_run_changes_nothing_and_says_what_each_change_would_do(
    broker: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _setup(broker, tmp_path, "dry-", replication_factor=1)
    before = _counts(broker, run)
    assert _apply(tmp_path) == 1  # the keyed topic is refused
    out = capsys.readouterr().out
    assert _counts(broker, run) == before
    assert before[run.name("payments.v2")] is None  # validated, not created
    assert f"run {RUN_KEY} on Kafka at {broker.bootstrap}, dry run: nothing was changed" in out
    flat = " ".join(out.split())
    assert (
        f"{run.name('orders.created')}: 12 -> 60 partitions (+48) cost: adds 48 partition "
        "replicas; after the change: 60 partition replicas on the cluster"
    ) in flat
    assert "=> would apply: the broker validated the change (validate_only)" in flat
    assert (
        f"{run.name('payments.authorizations')}: 12 -> 16 partitions (+4) => refused: keyed "
        "topic: not changed without --allow-key-remap. keyed topic: going from 12 to 16"
    ) in flat
    assert f"create {run.name('payments.v2')} with 12 partitions" in out
    assert "summary: would apply 2, refused 1" in out
    with RecommendationStore(run.store_url) as store:
        rows = history(store)
    assert sorted((r.topic, r.mode, r.outcome, r.who) for r in rows) == [
        (run.name("orders.created"), "dry-run", "would-apply", "tester"),
        (run.name("payments.authorizations"), "dry-run", "refused", "tester"),
        (run.name("payments.v2"), "dry-run", "would-apply", "tester"),
    ]
    assert {r.run_key for r in rows} == {RUN_KEY} and len({r.apply_id for r in rows}) == 1


def test_execute_reaches_the_planned_counts_and_a_rerun_is_a_no_op(
    broker: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _setup(broker, tmp_path, "exe-", replication_factor=1)
    assert _apply(tmp_path, "--execute", "--allow-key-remap") == 0
    out = capsys.readouterr().out
    assert _counts(broker, run) == {
        run.name("orders.created"): 60,
        run.name("payments.authorizations"): 16,
        run.name("audit.log"): 24,  # enough already: left alone
        run.name("payments.v2"): 12,
    }
    assert "summary: applied 3" in out and "60 partitions, verified" in out
    # Again: nothing to do, and nothing changes.
    assert _apply(tmp_path, "--execute", "--allow-key-remap") == 0
    assert "summary: nothing to do 3" in capsys.readouterr().out
    assert _counts(broker, run)[run.name("orders.created")] == 60
    # `show` prints the attempts, newest first.
    assert main(["show", run.name("orders.created"), "--store", run.store_url]) == 0
    shown = capsys.readouterr().out
    applied = " ".join(shown.split("Applied (partition-planner apply, newest first)")[1].split())
    rerun = applied.index("execute by tester: 12 -> 60, was 60 (run 20261120T0000Z) -> no-op")
    first = applied.index("execute by tester: 12 -> 60 (run 20261120T0000Z) -> applied")
    assert rerun < first


def test_a_keyed_topic_and_a_count_changed_behind_the_plan_are_refused(
    broker: KRaftCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from confluent_kafka.admin import NewPartitions

    # Planned for three brokers, replication factor 3: the new topic cannot be made on
    # this one broker.
    run = _setup(broker, tmp_path, "ref-", replication_factor=3, brokers=3)
    admin = _admin(broker)  # kept: the futures need their client alive
    grown = admin.create_partitions([NewPartitions(run.name("orders.created"), 13)])  # type: ignore[attr-defined]
    for future in grown.values():
        future.result(60)
    _until_metadata_shows(broker, run.name("orders.created"), 13)
    assert _apply(tmp_path, "--execute") == 1
    out = " ".join(capsys.readouterr().out.split())
    assert _counts(broker, run) == {
        run.name("orders.created"): 13,
        run.name("payments.authorizations"): 12,
        run.name("audit.log"): 24,
        run.name("payments.v2"): None,
    }
    assert (
        "on the cluster now: 13 partitions => refused: the topic has 13 partitions and the "
        "plan saw 12: it was changed since it was planned; plan again"
    ) in out
    assert (
        "refused: keyed topic: not changed without --allow-key-remap. keyed topic: going from "
        "12 to 16 partitions changes hash(key) % partitions"
    ) in out
    assert "failed: Kafka at" in out and "refused by the broker" in out
    assert "(INVALID_REPLICATION_FACTOR)" in out
    # Only --topic: the keyed one, now allowed.
    assert _apply(tmp_path, "--execute", "--allow-key-remap",
                  "--topic", run.name("payments.authorizations")) == 0  # fmt: skip
    assert _counts(broker, run)[run.name("payments.authorizations")] == 16


def test_a_broker_stopped_mid_apply_leaves_a_clear_partial_report(
    broker: KRaftCluster, tmp_path: Path
) -> None:
    """Last in the module: the broker stays down."""
    from planner.apply.report import render_report
    from planner.apply.session import apply_published
    from planner.changes import change_list, read_published
    from planner.collect.sources import build_kafka_source
    from planner.config import load_config

    run = _setup(broker, tmp_path, "stop-", replication_factor=1)
    changes = change_list(read_published(run.records))
    config = load_config(tmp_path / "planner.toml")
    results = []

    def after(result: object) -> None:
        results.append(result)
        if len(results) == 1:
            broker.stop()

    report = apply_published(
        changes,
        build_kafka_source(config),
        store_url=run.store_url,
        source_text="test",
        who="tester",
        execute=True,
        allow_key_remap=True,
        timeout_s=3.0,
        verify_timeout_s=10.0,
        on_result=after,
    )
    outcomes = [(r.step.change.topic, r.outcome) for r in report.results]
    assert outcomes == [
        (run.name("orders.created"), "applied"),
        (run.name("payments.authorizations"), "failed"),
        (run.name("payments.v2"), "not-attempted"),
    ]
    text = render_report(report, changes)
    assert not report.ok
    assert (
        f"stopped early: the cluster stopped answering at {run.name('payments.authorizations')}"
        in (" ".join(text.split()))
    )
    assert "summary: applied 1, failed 1, not attempted 1" in text
    with RecommendationStore(run.store_url) as store:
        rows = {r.topic: r for r in history(store)}
    assert rows[run.name("orders.created")].outcome == "applied"
    failed = rows[run.name("payments.authorizations")]
    assert failed.outcome == "failed" and failed.error in ("_TIMED_OUT", "_TRANSPORT")
    assert rows[run.name("payments.v2")].outcome == "not-attempted"
    assert all(r.finished_at is not None for r in rows.values())


def test_kafkas_errors_read_as_their_kind() -> None:
    # Errors this broker cannot be made to give here (no ACLs, no policy class, no SASL):
    # what a person reads for each.
    from planner.apply.cluster import ClusterError, error_kind

    assert error_kind("POLICY_VIOLATION") == "policy"
    assert error_kind("TOPIC_AUTHORIZATION_FAILED") == "auth"
    assert error_kind("_TIMED_OUT") == "timeout"
    error = ClusterError(
        "Kafka at k:9092: topic t: 16 partitions", "policy", "POLICY_VIOLATION", "no"
    )
    assert str(error) == (
        "Kafka at k:9092: topic t: 16 partitions: refused by the broker's policy "
        "(CreateTopicPolicy / AlterConfigPolicy): no (POLICY_VIOLATION)"
    )
    assert not error.cluster_gone
    assert ClusterError("x", "timeout", "_TIMED_OUT", "late").cluster_gone
