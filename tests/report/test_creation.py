"""A creation plan's report reads as a plan to create the topic; the fleet links to it."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime

import numpy as np
import pytest

from planner.recommend import GroupInfo, PlanSettings, TopicHistory, plan_topic
from planner.report import FleetReport
from planner.report.creation import creation_report, creation_request_of
from planner.report.from_outputs import fleet_report, report_settings
from planner.report.model import NewTopicLink
from planner.report.site import iter_site
from planner.sizing import SideCapacity
from tests.store.rows import facts_row
from tests.support.report_path import topic_report_of

TOPIC = "payments.v2"
SETTINGS = PlanSettings(floor_growth_per_year=0.5)
REQUEST = {
    "topic": TOPIC,
    "requested_at": "2026-11-26T09:30:00+00:00",
    "parameters": {
        "peak_mib_per_s": 40,
        "peak_records_per_s": 60000,
        "growth_per_year": 0.5,
        "keyed": True,
        "tp_mib_per_s": 10,
        "tc_mib_per_s": 4,
        "consumer_groups": "ledger",
    },
    "run_id": "manual__2026-11-26T09:30:00+00:00",
    "fleet_link": "../../report/index.html",
}


def _new_topic_report() -> FleetReport:
    # One UTC day at the expected peak, no partition count: what plan_new_topic plans.
    ts = 1_764_000_000.0 + np.arange(24) * 3600.0
    history = TopicHistory(
        TOPIC,
        ts,
        mib_in=np.full(24, 40.0),
        records_in=np.full(24, 60_000.0),
        keyed=True,
        replication_factor=3,
    )
    producer, consumer = SideCapacity(mib_per_s=10.0), SideCapacity(mib_per_s=4.0)
    groups = [GroupInfo("ledger", "cooperative-sticky", 0)]
    plan = plan_topic(history, producer, consumer, brokers=3, groups=groups, settings=SETTINGS)
    facts = facts_row(history, producer, consumer, groups, capacity_source="a request")
    topic = topic_report_of(plan, history, facts, settings=SETTINGS)
    report = fleet_report(
        [topic],
        run_key="20261125T0000Z",
        interval_start=datetime(2026, 11, 25, tzinfo=UTC),
        interval_end=datetime(2026, 11, 26, tzinfo=UTC),
        generated_at=datetime(2026, 11, 26, 9, 31, tzinfo=UTC),
        settings=report_settings(SETTINGS),
    )
    return creation_report(report, creation_request_of(REQUEST))


def _visible(html: str) -> str:
    """The text a reader sees: no style sheet, script or tags."""
    html = re.sub(r"<(style|script)[^>]*>.*?</\1>", "", html, flags=re.S)
    return re.sub(r"<[^>]+>", "", html)


@pytest.fixture(scope="module")
def site() -> dict[str, str]:
    return {path: content.decode() for path, content in iter_site(_new_topic_report())}


def test_the_page_is_a_plan_to_create_the_topic_with_its_command_and_cost(
    site: dict[str, str],
) -> None:
    page = site[f"topics/{TOPIC}.html"]
    p = json.loads(site["recommendations.json"])[0]["recommended_partitions"]
    assert f"create {TOPIC} with {p} partitions, replication factor 3" in page
    assert (
        f"kafka-topics.sh --bootstrap-server &quot;$BOOTSTRAP_SERVERS&quot; --create --topic "
        f"{TOPIC} --partitions {p} --replication-factor 3" in page
    )
    assert f"{3 * p} partition replicas on the cluster" in page
    assert "given in the request (+50%/year)" in page
    assert "Tp and Tc given in the request" in page
    assert "(floor)" not in page and "measured by" not in page
    shown = _visible(page)
    assert "increase now" not in shown and "under-provisioned" not in shown
    assert '<a href="../../../report/index.html">Fleet report</a>' in page


def test_the_index_names_the_request_not_a_data_interval(site: dict[str, str]) -> None:
    index = site["index.html"]
    assert "Requested 2026-11-26 09:30 UTC" in index
    assert "peak MiB/s 40 · peak records/s 60,000 · growth/year +50% · keyed yes" in index
    assert "data interval" not in index and "Need more partitions now" not in index
    assert "To create" in index and "Consumer groups to deploy" in index
    assert "ledger</code>: deploy " in index
    assert '<a href="../../report/index.html">' in index


def test_the_exports_carry_the_create_and_deploy_statuses(site: dict[str, str]) -> None:
    [record] = json.loads(site["recommendations.json"])
    assert record["status"] == "create" and record["current_partitions"] is None
    assert [g["status"] for g in record["groups"]] == ["deploy"]
    summary = site["summary.md"]
    assert summary.startswith(f"# Creation plan: `{TOPIC}`")
    assert "## Create" in summary and "## Consumer groups to deploy" in summary
    assert "--create --topic payments.v2" in summary
    assert "Increase now" not in summary and "under-provisioned" not in summary


def test_a_creation_plan_goes_to_json_and_back() -> None:
    report = _new_topic_report()
    again = FleetReport.from_json_dict(json.loads(json.dumps(report.to_json_dict())))
    assert again == report


def test_the_fleet_report_links_the_creation_plans_and_lists_them_in_the_summary() -> None:
    fleet = dataclasses.replace(
        _new_topic_report(),
        request=None,
        title="Kafka partition plan",
        new_topics=(
            NewTopicLink(
                TOPIC,
                datetime(2026, 11, 26, 9, 30, tzinfo=UTC),
                18,
                "create",
                href="../report-new-topics/payments.v2/topics/payments.v2.html",
                since_last_run=True,
            ),
        ),
    )
    files = {path: content.decode() for path, content in iter_site(fleet)}
    index = files["index.html"]
    assert '<h2 id="new-topics">New topics planned</h2>' in index
    assert (
        '<a href="../report-new-topics/payments.v2/topics/payments.v2.html">payments.v2</a>'
        in index
    )
    assert "create payments.v2 with 18 partitions" in index
    assert "## New topics planned" in files["summary.md"]


def test_a_link_out_of_the_published_tree_is_refused() -> None:
    with pytest.raises(ValueError, match="href"):
        NewTopicLink(TOPIC, datetime(2026, 11, 26, tzinfo=UTC), 18, "create", href="/etc/x")
