"""Standby tasks end to end: landing files with a Kafka Streams application's
num.standby.replicas and its changelog topics, collected, sized by the Spark jobs,
published in `recommendations.json`, on the topic's page and by `show`.

Hand-computed: `wc` (classic `stream`, 2 threads per instance, S = 2) reads `orders`
(12 partitions, 1 MiB/s) and has two changelogs: `wc-counts-changelog` (12 partitions,
0.5 MiB/s in) and `wc-totals-changelog` (4 partitions, no sample). Their partition
counts differ, so they are two subtopologies: 12 + 4 = 16 stateful tasks, 32 standby
tasks. The standbys read at least 2 x 0.5 = 1 MiB/s (only one changelog sampled), the
state they hold is unknown, and they need at least 3 instances. `fraud` (KIP-1071)
gives no S: not given, Kafka's default 0 named, not assumed. `billing` is no Streams
application: no standbys.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from planner.collect.landing import LandingSource
from planner.collect.run import collect_interval
from planner.figures import DataInterval
from planner.recommend import PlanSettings
from planner.report.exports import recommendations
from planner.report.from_outputs import fleet_report, report_settings, topic_report
from planner.report.topic_page import topic_page
from planner.store import RecommendationStore, Run, render_recommendation, sqlite_url
from spark_jobs import simulate_assignments, size_partitions
from spark_jobs.outputs import run_path

pytestmark = pytest.mark.slow

DAY = DataInterval.day(dt.date(2026, 11, 21))
MIB = 2**20
CONFIG = """\
[figures]
history_days = 3

[spark.conf]
"spark.sql.shuffle.partitions" = "2"
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _landing(root: Path) -> Path:
    _write(
        root / "topics" / "topics.csv",
        "topic,partitions,replication_factor,keyed\n"
        "orders,12,2,false\n"
        "wc-counts-changelog,12,2,true\n"
        "wc-totals-changelog,4,2,true\n",
    )
    _write(root / "cluster" / "cluster.csv", "broker_id\n1\n2\n3\n")
    _write(
        root / "capacity" / "capacity.csv",
        "topic,producer_mib_per_s,producer_records_per_s,consumer_mib_per_s,"
        "consumer_records_per_s\n*,10,20000,2,4000\n",
    )
    _write(
        root / "groups" / "groups.csv",
        "group_id,topic,strategy,members,protocol,stream_threads,standby_replicas\n"
        "wc,orders,stream,6,classic,2,2\n"
        "fraud,orders,sticky,3,streams,,\n"
        "billing,orders,range,3,classic,,\n",
    )
    lines = ["topic,ts,bytes_in_per_s,records_in_per_s,bytes_out_per_s,unit"]
    start = DAY.start - dt.timedelta(days=2)
    for hour in range(72):
        ts = (start + dt.timedelta(hours=hour)).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines.append(f"orders,{ts},1,2000,3,MiB/s")
        lines.append(f"wc-counts-changelog,{ts},0.5,1000,0,MiB/s")
    _write(root / "throughput" / "samples.csv", "\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def published(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("standbys")
    figures = tmp / "figures"
    collected = collect_interval(
        [LandingSource(_landing(tmp / "landing"))], DAY, figures, history_days=3
    )
    assert collected.rejected.num_rows == 0, collected.rejected.to_pylist()
    config = tmp / "planner.toml"
    config.write_text(CONFIG)
    out = tmp / "out"
    args = ["--figures", str(figures), "--out", str(out), "--interval", DAY.key]
    assert size_partitions.main([*args, "--config", str(config)]) == 0
    assert simulate_assignments.main([*args, "--config", str(config)]) == 0
    rows = pq.read_table(run_path(out, "recommendations", DAY.key)).to_pylist()
    settings = PlanSettings()
    topics = [topic_report(r, [], history=None, settings=settings) for r in rows]
    report = fleet_report(
        topics,
        run_key=DAY.key,
        interval_start=DAY.start,
        interval_end=DAY.end,
        generated_at=dt.datetime(2026, 11, 22, tzinfo=dt.UTC),
        settings=report_settings(settings),
    )
    pages = {t.topic: f"{t.topic}.html" for t in report.topics}
    with RecommendationStore(sqlite_url(tmp / "store.db")) as store:
        store.publish_run(Run(DAY, DAY.end + dt.timedelta(hours=1), {}), rows)
        rec = store.latest("orders")
        assert rec is not None
        shown = render_recommendation(rec)
    return {
        "rows": {r["topic"]: r for r in rows},
        "json": {r["topic"]: r for r in recommendations(report, pages)},
        "page": topic_page(next(t for t in report.topics if t.topic == "orders"), report, pages),
        "show": " ".join(line.strip() for line in shown.splitlines()),
    }


def _groups(published: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["group_id"]: g for g in published["json"]["orders"]["groups"]}


def test_the_standbys_with_their_evidence_in_recommendations_json(
    published: dict[str, Any],
) -> None:
    wc = _groups(published)["wc"]["standbys"]
    assert (wc["standby_replicas"], wc["standby_replicas_evidence"]) == (2, "given")
    assert wc["config"] == "num.standby.replicas"
    assert [(c["topic"], c["partitions"], c["samples"]) for c in wc["changelog_topics"]] == [
        ("wc-counts-changelog", 12, 72),
        ("wc-totals-changelog", 4, 0),
    ]
    assert wc["changelog_topics"][0]["bytes_in_per_s"] == pytest.approx(0.5 * MIB)
    assert (wc["stateful_tasks_min"], wc["stateful_tasks_max"]) == (16, 16)
    assert wc["stateful_tasks_evidence"] == "observed"
    assert (wc["standby_tasks_min"], wc["standby_tasks_max"]) == (32, 32)
    assert wc["standby_read_bytes_per_s"] == pytest.approx(1.0 * MIB)
    assert wc["changelog_evidence"] == "bound"
    assert (wc["standby_state_bytes"], wc["state_evidence"]) == (None, "unknown")
    assert wc["min_instances"] == 3
    fraud = _groups(published)["fraud"]["standbys"]
    assert fraud["standby_replicas"] is None and fraud["standby_replicas_evidence"] == "unknown"
    assert fraud["config"] == "streams.num.standby.replicas"
    assert fraud["changelog_topics"] == [] and fraud["min_instances"] is None
    assert _groups(published)["billing"]["standbys"] is None
    # The dataset row holds the same record.
    (row_wc,) = [g for g in published["rows"]["orders"]["groups"] if g["group_id"] == "wc"]
    assert row_wc["standbys"]["standby_tasks_min"] == 32


def test_the_instances_are_raised_to_host_the_standbys(published: dict[str, Any]) -> None:
    wc = _groups(published)["wc"]
    (threads,) = [n for n in wc["notes_coded"] if n["code"] == "streams-threads"]
    assert threads["params"]["per_instance"] == 2
    assert threads["params"]["instances"] >= 3


def test_the_page_and_show_say_what_the_standbys_cost(published: dict[str, Any]) -> None:
    page = published["page"]
    assert 'id="standbys"' in page
    assert "at least 1.00 MiB/s (bound)" in page and "at least 3" in page
    assert "not given (Kafka&#x27;s default is 0)" in page
    shown = published["show"]
    assert "2 standby replicas per stateful task (num.standby.replicas, given)" in shown
    assert "32 standby tasks" in shown
    assert "at least 1.00 MiB/s of changelog continuously" in shown
    assert "streams.num.standby.replicas): not given (Kafka's default is 0)" in shown
