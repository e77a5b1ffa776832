"""Row-level input failures set their topics aside; every other topic is published.

One run over the fleet of `tests.pipeline.broken` (good topics, and one topic per
row-level rule breaking it), step by step as `plan` runs them: validate_inputs, both
Spark jobs (with the run's `--set-aside`), validate_outputs, publish. Then each bad
topic must be set aside with its rule and value, shown everywhere a topic is (report,
`summary.md`, `recommendations.json`, the store), and counted in the run's validation
summary; each good topic must be planned and published.

The fleet sets aside more than 20 % of its topics and of its capacity rows, which the
default `max_bad_row_share` would turn into a run-level stop (tests/pipeline/
test_run_level.py): this run allows all of them, to see every rule in one run. For the
same reason the publish guard holds it (a first run with most of its topics unsized:
`planner.guard`), and it is published with `accept_degraded`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from planner.config import load_config
from planner.figures.set_aside import STATUS, load_set_aside
from planner.pipeline import jobs
from planner.pipeline.publish import PublishHeld, PublishResult, publish_run
from planner.pipeline.state import StageResult
from planner.pipeline.validation import validate_inputs, validate_outputs
from planner.pipeline.workspace import Workspace
from planner.report.names import page_names
from planner.store import FAILED, RecommendationStore
from tests.pipeline.broken import BAD, CASES, DAYS, GOOD, MIXED, RUN_KEY, UNNAMED, write_broken

pytestmark = [pytest.mark.slow, pytest.mark.integration]

CONFIG = """\
[figures]
history_days = 30

[spark.conf]
"spark.sql.shuffle.partitions" = "2"

[validation]
max_bad_row_share = 1.0
"""


@dataclass(frozen=True)
class Published:
    workspace: Workspace
    inputs: StageResult
    result: PublishResult
    records: dict[str, dict[str, Any]]
    held: str


@pytest.fixture(scope="module")
def published(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Published:
    from spark_jobs import size_and_simulate

    root = tmp_path_factory.mktemp("row-level")
    config_file = root / "planner.toml"
    config_file.write_text(CONFIG)
    config = load_config(config_file)
    workspace = Workspace.under(root)
    write_broken(workspace.figures)
    inputs = validate_inputs(
        spark, workspace, RUN_KEY, lookback_days=30, max_bad_share=config.max_bad_row_share
    )
    args = jobs.job_arguments(workspace, RUN_KEY, config_file)
    assert size_and_simulate.main(args) == 0
    validate_outputs(spark, workspace, RUN_KEY)
    started = datetime.now(UTC)

    def publish(*, accept_degraded: bool) -> PublishResult:
        return publish_run(
            workspace,
            RUN_KEY,
            config=config,
            lookback_days=30,
            started_at=started,
            durable=False,
            accept_degraded=accept_degraded,
        )

    with pytest.raises(PublishHeld) as held:
        publish(accept_degraded=False)
    result = publish(accept_degraded=True)
    records = json.loads(workspace.recommendations_json.read_text())
    return Published(workspace, inputs, result, {r["topic"]: r for r in records}, str(held.value))


def test_each_bad_topic_is_set_aside_with_its_rule_and_the_value_that_broke_it(
    published: Published,
) -> None:
    set_aside = load_set_aside(published.workspace.run_state(RUN_KEY) / "set_aside.json")
    found = {t.topic: t for t in set_aside.topics}
    assert set(found) == set(BAD)
    for case in CASES:
        topic = found[case.topic]
        assert any(rule.endswith(case.rule) for rule in topic.rules), (case.topic, topic.rules)
        for words in case.says:
            assert words in topic.reason, (case.topic, topic.reason)
    # A replication factor above the brokers listed is not a bad topic: it is said as a
    # broker missing from the figures, and nothing else.
    assert found["rf-too-many"].reason == (
        "3 brokers listed, the topic has 4 replicas: a broker down or missing from the figures?"
    )
    # A group-level rule sets aside every topic of the group, and the group whole.
    for topic in MIXED:
        assert "one protocol and one assignor" in found[topic].reason
        assert "consumer group 'mixed'" in found[topic].reason
    assert "mixed" in set_aside.groups and "multi-reader" not in set_aside.groups


def test_rows_that_name_no_legal_topic_are_dropped_and_counted_not_shown(
    published: Published,
) -> None:
    counts = published.inputs.set_aside
    assert counts["unnamed_rows"] == {
        "throughput": 2 * len(UNNAMED["throughput"]) * DAYS,  # two samples a day
        "topics": len(UNNAMED["topics"]),
        "capacity": len(UNNAMED["capacity"]),
        "keys": len(UNNAMED["keys"]),
    }
    shown = set(published.records)
    assert not shown & {"bad topic!", "..", "."}


def test_every_good_topic_is_planned_and_published(published: Published) -> None:
    assert set(published.records) == set(GOOD) | set(BAD)
    for topic in GOOD:
        record = published.records[topic]
        assert record["status"] in ("ok", "plan-increase", "increase"), record
        assert record["recommended_partitions"] >= 1
    with RecommendationStore(published.workspace.store_url) as store:
        stored = {r.topic: r for r in store.recommendations()}
        run = store.last_good_run()
    assert set(stored) == set(GOOD) | set(BAD)
    assert run is not None and run.topics == len(GOOD) + len(BAD)


def test_set_aside_topics_appear_everywhere_a_topic_does_with_their_reason(
    published: Published,
) -> None:
    reasons = load_set_aside(published.workspace.run_state(RUN_KEY) / "set_aside.json").reasons()
    with RecommendationStore(published.workspace.store_url) as store:
        stored = {r.topic: r for r in store.recommendations()}
        run = store.last_good_run()
    report = published.workspace.report
    index = (report / "index.html").read_text()
    summary = published.result.summary
    pages = page_names(list(published.records))
    for topic in BAD:
        record = published.records[topic]
        assert record["status"] == STATUS
        assert record["error"] == reasons[topic]
        assert record["recommended_partitions"] is None
        assert stored[topic].status == STATUS
        assert stored[topic].detail["status_detail"] == reasons[topic]
        assert (report / "topics" / pages[topic]).is_file()
        assert topic in index
    assert f"{len(BAD)} with figures set aside by input validation" in summary
    # summary.md lists the first 25 topics that could not be sized, then counts the rest.
    assert "- `bad-partitioner`: figures set aside: topics.input: partitioner is a known " in (
        summary
    )
    assert (
        "- `grp-mixed-a`: figures set aside: consumer group 'mixed' breaks groups.input: each "
        "consumer group has one protocol and one assignor across its topics" in summary
    )
    assert (report / "summary.md").read_text() == summary
    # The run's validation summary counts them.
    assert run is not None
    inputs = run.validation["inputs"]
    assert inputs["success"] is True
    assert inputs["set_aside"]["topics"] == len(BAD)
    # Every group with a bad row but the one whose id is null (it names no group).
    assert inputs["set_aside"]["groups"] == 6
    page = (report / "topics" / pages["rf-too-many"]).read_text()
    assert "a broker down or missing from the figures?" in page


def test_a_group_reading_a_set_aside_topic_is_unplanned_and_its_other_topic_planned(
    published: Published,
) -> None:
    good = published.records["good-01"]
    assert good["status"] in ("ok", "plan-increase", "increase")
    [group] = [g for g in good["groups"] if g["group_id"] == "multi-reader"]
    assert group["status"] == "unplanned"
    assert "rf-too-many" in " ".join(group["notes"]) and STATUS in " ".join(group["notes"])
    # It still fetches good-01's bytes: the topic's fan-out counts it.
    with RecommendationStore(published.workspace.store_url) as store:
        row = {r.topic: r for r in store.recommendations()}["good-01"]
    assert row.detail["consuming_groups"] == 1


def test_the_jobs_refuse_to_run_without_the_runs_set_aside_file(
    published: Published, tmp_path: Path
) -> None:
    from spark_jobs import size_partitions

    args = jobs.job_arguments(published.workspace, RUN_KEY, None)
    at = args.index("--set-aside") + 1
    args[at] = str(tmp_path / "missing.json")
    args[args.index("--out") + 1] = str(tmp_path / "out")
    assert size_partitions.main(args) == 1
    assert not (tmp_path / "out").exists()


def test_a_first_run_with_most_of_its_topics_unsized_is_held_until_accepted(
    published: Published,
) -> None:
    # No run was published before: judged against an empty fleet, every set-aside topic
    # is newly unsized, far more than 10 % of the fleet.
    topics, unsized = len(GOOD) + len(BAD), len(BAD)
    assert published.held.startswith(
        f"run {RUN_KEY}: publish held: {unsized} of the run's {topics} topics "
        f"({100 * unsized / topics:.0f} %) could not be sized that no run was published "
        "before (a first run is judged against an empty fleet), more than the 10 % allowed "
        "([publish] max_new_unsized_share): bad-partitioner, cap-inf-tc-records, "
    )
    why = published.held.split("; why: ", 1)[1]
    # Each set-aside topic's reason names its own values: one status, many reasons, the
    # commonest (the group `mixed` sets aside both its topics) given.
    reasons = load_set_aside(published.workspace.run_state(RUN_KEY) / "set_aside.json").reasons()
    assert why.startswith(f"invalid-figures ({unsized} topics): {reasons[MIXED[0]]} (and ")
    other = len(set(reasons.values())) - 1
    assert f"(and {other} other reasons); to publish this run anyway" in why
    assert published.held.endswith(
        "to publish this run anyway: partition-planner plan --accept-degraded, or trigger "
        "the partition_planner DAG with accept_degraded=true"
    )
    assert published.result.accepted_degraded is not None
    with RecommendationStore(published.workspace.store_url) as store:
        published_run, held_run = store.runs()[:2]
    # The hold is recorded as a failed attempt, with the guard's verdict; the accepted
    # publish keeps the verdict, marked accepted.
    assert held_run.status == FAILED and held_run.message == published.held
    assert held_run.validation["publish_guard"]["held"] is True
    assert held_run.validation["publish_guard"]["accepted"] is False
    guard = published_run.validation["publish_guard"]
    assert (guard["newly_unsized"], guard["compared_with"], guard["accepted"]) == (
        unsized,
        None,
        True,
    )
