"""`partition-planner plan`: the whole pipeline, and what it publishes or refuses to.

Real everything: the sample fleet's landing files, collection, Great Expectations on
Spark, both Spark jobs on local[2], the SQLite store and the report site.
"""

from __future__ import annotations

import csv
import html
import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from planner.pipeline.workspace import Workspace
from planner.report.names import page_names
from planner.store import FAILED, PUBLISHED, RecommendationStore
from tests.pipeline.conftest import (
    HOSTILE_GROUP,
    HOSTILE_TOPIC,
    RUN_DAY,
    RUN_KEY,
    Planned,
    plan,
    show,
    unreadable_capacity,
)

pytestmark = [pytest.mark.slow, pytest.mark.integration]

FIELDS = {
    "topic",
    "current_partitions",
    "required_partitions",
    "recommended_partitions",
    "recommended_consumers",
    "strategy",
    "deciding",
    "warnings",
    "status",
}


def _topics(landing: Path) -> list[str]:
    with (landing / "topics" / "topics.csv").open() as handle:
        return [row["topic"] for row in csv.DictReader(handle)]


def test_without_interval_the_run_plans_the_exports_last_complete_day_and_says_so_first(
    planned: Planned,
) -> None:
    # The fixture ran `plan` without --interval on figures that end with RUN_DAY.
    first = planned.stderr.splitlines()[0]
    yesterday = (datetime.now(UTC) - timedelta(days=1)).date().isoformat()
    if yesterday == RUN_DAY:
        assert first == f"[plan] interval: {RUN_DAY} (no --interval given: yesterday, UTC)"
    else:
        assert first.startswith(
            f"[plan] interval: {RUN_DAY} (no --interval given, and yesterday, {yesterday}, "
            "has no throughput in the figures: they hold "
        )
        assert f"{RUN_DAY} is the last complete day" in first
    assert f"collected {RUN_DAY}T00:00:00+00:00/" in planned.stderr


def test_a_fleet_is_collected_validated_sized_simulated_and_published(planned: Planned) -> None:
    out = planned.out
    assert f"report: {out / 'report' / 'index.html'}" in planned.stdout
    for step in ("collect_figures", "validate_inputs", "size_partitions"):
        assert f"[plan] {step}: done" in planned.stderr
    assert "[plan] publish: done" in planned.stderr

    records = json.loads((out / "recommendations.json").read_text())
    topics = _topics(planned.landing)
    assert sorted(r["topic"] for r in records) == sorted(topics)
    for record in records:
        assert set(record) >= FIELDS, record["topic"]
        assert isinstance(record["warnings"], list)
    planned_ones = [r for r in records if r["status"] in ("ok", "increase", "plan-increase")]
    assert len(planned_ones) == len(records)  # every sample topic has figures and capacity
    for r in planned_ones:
        assert r["recommended_partitions"] >= r["required_partitions"] >= 1
        assert r["recommended_partitions"] >= r["current_partitions"]
    # The file beside the site is the site's own: one publish, one answer.
    assert (out / "recommendations.json").resolve() == (
        out / "report" / "recommendations.json"
    ).resolve()

    with RecommendationStore(planned.store_url) as store:
        run = store.last_good_run()
        assert run is not None
        assert (run.key, run.status, run.topics) == (RUN_KEY, PUBLISHED, len(topics))
        assert run.validation["inputs"]["success"] and run.validation["outputs"]["success"]
        suites = [s["suite"] for s in run.validation["outputs"]["suites"]]
        assert suites == ["sizing.output", "simulations.output", "recommendations.output"]
        assert run.rejected_rows == 1  # the row with the markup topic name
        stored = {r.topic: r for r in store.recommendations()}
    assert set(stored) == set(topics)
    for record in records:
        # One answer everywhere: the report's file and the store say the same numbers.
        row = stored[record["topic"]]
        assert row.recommended_partitions == record["recommended_partitions"]
        assert (row.recommended_consumers, row.strategy) == (
            record["recommended_consumers"],
            record["strategy"],
        ), record["topic"]
        assert row.detail.get("consumers_group_id") == record["consumers_group"]

    index = (out / "report" / "index.html").read_text()
    assert 'href="validation/index.html"' in index
    assert "Partition replicas per broker" in index
    assert (out / "report" / "validation" / "index.html").is_file()
    pages = page_names(topics)
    for topic in topics:
        assert (out / "report" / "topics" / pages[topic]).is_file()


def test_show_prints_a_published_topic_from_the_store(planned: Planned) -> None:
    topic = _topics(planned.landing)[0]
    done = show(topic, planned.store_url)
    assert done.returncode == 0, done.stderr
    assert topic in done.stdout and RUN_KEY in done.stdout


def test_hostile_names_reach_the_report_as_text(planned: Planned) -> None:
    topic = _topics(planned.landing)[0]
    page = (planned.out / "report" / "topics" / page_names([topic])[topic]).read_text()
    assert HOSTILE_GROUP not in page
    assert html.escape(HOSTILE_GROUP) in page
    index = (planned.out / "report" / "index.html").read_text()
    assert HOSTILE_TOPIC not in index
    assert "<script>alert" not in index
    assert html.escape(HOSTILE_TOPIC) in index  # shown among the rejected rows


def _replication(landing: Path, topic: str, factor: int) -> None:
    path = landing / "topics" / "topics.csv"
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        if row["topic"] == topic:
            row["replication_factor"] = str(factor)
            # An export with the factor and no replica lists: the lists would name the
            # old factor's brokers and break another rule than the one under test.
            row["replicas"] = ""
    with path.open("w", newline="") as handle:
        out = csv.DictWriter(handle, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)


def test_a_topic_claiming_more_replicas_than_brokers_listed_is_set_aside_not_the_fleet(
    planned_copy: Planned, tmp_path: Path
) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(planned_copy.landing, landing)
    topics = _topics(landing)
    topic = topics[1]
    # A topics export that does not match the cluster table: more replicas than the
    # brokers listed (one broker down when the brokers were listed, most likely).
    _replication(landing, topic, 9)
    before = os.readlink(planned_copy.out / "report")

    done = plan(landing, planned_copy.out)

    assert done.returncode == 0, done.stderr[-4000:]
    reason = (
        "6 brokers listed, the topic has 9 replicas: a broker down or missing from the figures?"
    )
    assert f"  - {topic}: {reason}" in done.stderr  # the run says what it set aside
    assert os.readlink(planned_copy.out / "report") != before  # published
    records = {
        r["topic"]: r for r in json.loads((planned_copy.out / "recommendations.json").read_text())
    }
    assert set(records) == set(topics)
    assert (records[topic]["status"], records[topic]["error"]) == ("invalid-figures", reason)
    others = [r for t, r in records.items() if t != topic]
    assert all(r["status"] in ("ok", "increase", "plan-increase") for r in others)
    summary = (planned_copy.out / "report" / "summary.md").read_text()
    assert f"- `{topic}`: figures set aside: {reason}" in summary
    with RecommendationStore(planned_copy.store_url) as store:
        run = store.last_good_run()
        assert run is not None and run.status == PUBLISHED and run.topics == len(topics)
        assert run.validation["inputs"]["set_aside"]["set_aside"] == [topic]
        assert store.latest(topic).status == "invalid-figures"  # type: ignore[union-attr]


def test_a_capacity_table_of_unreadable_figures_stops_the_run_and_keeps_the_last_report(
    planned_copy: Planned, tmp_path: Path
) -> None:
    # Collection refuses every row of the file (its perf-test files still give five
    # topics a capacity row): the suites see a good, short table. Counted as bad rows,
    # they are most of the table, and one is the fleet default `*`.
    landing = tmp_path / "landing"
    shutil.copytree(planned_copy.landing, landing)
    capacity = unreadable_capacity(landing)
    before = os.readlink(planned_copy.out / "report")
    published = (planned_copy.out / "recommendations.json").read_bytes()

    done = plan(landing, planned_copy.out)

    assert done.returncode == 1, done.stderr[-4000:]
    failure = done.stderr[done.stderr.index("partition-planner plan: failed:") :]
    assert failure.startswith("partition-planner plan: failed: validate_inputs: the run stops")
    where = f"landing:{capacity}: row 2: field 'producer_mib_per_s' = 'n/a': not a number"
    assert f"the fleet default row '*' was refused at collection: {where}" in failure
    assert "capacity.input: 8 of 13 rows (62 %) are bad: 8 refused at collection" in failure
    assert "nothing was published; the last good report stays" in failure
    assert os.readlink(planned_copy.out / "report") == before
    assert (planned_copy.out / "recommendations.json").read_bytes() == published
    with RecommendationStore(planned_copy.store_url) as store:
        failed, good = store.runs()[:2]
        assert (failed.status, good.status) == (FAILED, PUBLISHED)
        assert where in (failed.message or "")
        assert store.last_good_run() == good


def _without_default_capacity(landing: Path) -> list[str]:
    """The capacity file without its fleet default row `*` (every row of it good); returns
    the topics left with no capacity of their own (no row, no perf-test file)."""
    path = landing / "capacity" / "capacity.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line for line in lines if not line.startswith("*,")) + "\n")
    own = {line.split(",", 1)[0] for line in lines[1:]}
    own |= {
        p.name.split(".producer.")[0].split(".consumer.")[0] for p in (landing / "perf").iterdir()
    }
    return sorted(set(_topics(landing)) - own)


def test_a_run_that_newly_leaves_the_fleet_unsized_is_held_until_accepted(
    planned_copy: Planned, tmp_path: Path
) -> None:
    # Figures that each pass every rule, but the fleet default capacity row is gone: most
    # topics lose their partition count. The guard holds the run against the last good
    # one; --accept-degraded publishes it.
    landing = tmp_path / "landing"
    shutil.copytree(planned_copy.landing, landing)
    lost = _without_default_capacity(landing)
    topics = len(_topics(landing))
    before = os.readlink(planned_copy.out / "report")
    published = (planned_copy.out / "recommendations.json").read_bytes()

    held = plan(landing, planned_copy.out)

    assert held.returncode == 1, held.stderr[-4000:]
    failure = held.stderr[held.stderr.index("partition-planner plan: failed:") :]
    why = (
        f"{len(lost)} of the run's {topics} topics ({100 * len(lost) / topics:.0f} %) could "
        f"not be sized that the last good run, {RUN_KEY}, sized or did not list, more than "
        f"the 10 % allowed ([publish] max_new_unsized_share): {', '.join(lost[:5])} and "
        f"{len(lost) - 5} more; why: missing-capacity ({len(lost)} topics): no consumer "
        "capacity (Tc) for this topic and no fleet default '*' with one"
    )
    assert failure.startswith(f"partition-planner plan: failed: publish: run {RUN_KEY}: ")
    assert f"publish held: {why}" in failure
    assert "to publish this run anyway: partition-planner plan --accept-degraded" in failure
    assert os.readlink(planned_copy.out / "report") == before
    assert (planned_copy.out / "recommendations.json").read_bytes() == published
    with RecommendationStore(planned_copy.store_url) as store:
        good = store.last_good_run()
        recorded = store.runs()[0]
    assert recorded.status == FAILED and f"publish held: {why}" in (recorded.message or "")
    assert recorded.validation["publish_guard"]["newly_unsized_topics"] == lost
    assert good is not None and good.key == RUN_KEY and good.id != recorded.id

    accepted = plan(landing, planned_copy.out, "--accept-degraded")

    assert accepted.returncode == 0, accepted.stderr[-4000:]
    assert f"[plan] published with --accept-degraded, although {why}" in accepted.stderr
    assert os.readlink(planned_copy.out / "report") != before
    records = json.loads((planned_copy.out / "recommendations.json").read_text())
    assert sorted(r["topic"] for r in records if r["status"] == "missing-capacity") == lost
    with RecommendationStore(planned_copy.store_url) as store:
        now = store.last_good_run()
    assert now is not None and now.id not in (good.id, recorded.id)
    assert now.validation["publish_guard"]["accepted"] is True


def test_a_landing_file_that_cannot_be_read_stops_collection_and_writes_nothing(
    planned_copy: Planned, tmp_path: Path
) -> None:
    landing = tmp_path / "landing"
    shutil.copytree(planned_copy.landing, landing)
    (landing / "capacity" / "broken.csv").write_text("topic;producer_mib_per_s\norders;10\n")
    manifest = planned_copy.out / "figures" / f"interval={RUN_KEY}" / "_manifest.json"
    before = manifest.read_bytes()

    done = plan(landing, planned_copy.out)

    assert done.returncode == 1
    assert "collect_figures" in done.stderr and "broken.csv" in done.stderr
    assert manifest.read_bytes() == before
    with RecommendationStore(planned_copy.store_url) as store:
        last = store.runs()[0]
        assert last.status == FAILED and "broken.csv" in (last.message or "")


def test_an_unknown_flag_or_interval_is_refused_with_exit_2(tmp_path: Path) -> None:
    script = str(Path(sys.executable).parent / "partition-planner")
    done = subprocess.run(
        [script, "plan", "--out", str(tmp_path), "--interval", "someday"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--interval" in done.stderr
    assert not (tmp_path / "report").exists()


def test_the_workspace_under_one_folder_matches_the_documented_layout(tmp_path: Path) -> None:
    ws = Workspace.under(tmp_path)
    assert ws.figures == tmp_path / "figures"
    assert ws.datasets == tmp_path / "work" / "datasets"
    assert ws.run_state(RUN_KEY) == tmp_path / "work" / "runs" / RUN_KEY
    assert ws.report == tmp_path / "report"
    assert ws.recommendations_json == tmp_path / "recommendations.json"
    assert ws.store_url == f"sqlite:///{(tmp_path / 'store.db').resolve()}"


def test_the_published_runs_change_list_is_the_same_from_the_file_and_the_store(
    planned: Planned,
) -> None:
    # The change list (export, apply) of a run the real pipeline published: Spark's rows
    # and the report's file, multi-topic groups included, decide the same changes.
    from planner.adapters.published_run import from_file, from_store
    from planner.changes import change_list

    from_json = from_file(planned.out / "recommendations.json")
    stored = from_store(planned.store_url)
    assert from_json.run == stored.run == RUN_KEY
    changes = change_list(from_json.topics)
    assert changes == change_list(stored.topics)
    assert changes.topics and changes.groups
    # The sample's multi-topic groups are in what was read, one plan each.
    multi = {g.group_id: g for t in from_json.topics for g in t.groups if len(g.topics) > 1}
    assert multi
    for g in changes.groups:
        if g.group_id in multi:
            assert g.topics == multi[g.group_id].topics
    for c in changes.topics:
        assert c.from_partitions is None or c.to_partitions > c.from_partitions
