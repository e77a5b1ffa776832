"""Group protocols and a topic's protocol alternatives in the report, its JSON and summary.

The plans are the core's with hand-built groups of every protocol and typed-in
alternatives (`tests.support.protocol_plans`), taken into the report through the
pipeline's path (`tests.support.report_path`).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from planner.group_labels import group_label
from planner.recommend import PlanSettings
from planner.report import FleetReport, page_names
from planner.report.exports import recommendations, summary_markdown
from planner.report.from_outputs import topic_report
from planner.report.index_page import index_page
from planner.report.model import GroupReport, TopicReport
from planner.report.site import render_site
from planner.report.topic_page import topic_page
from spark_jobs.schemas import RECOMMENDATIONS, empty_row
from tests.store.rows import recommendation_row
from tests.support.protocol_plans import ALTERNATIVES, plan_with_protocols, protocol_plan_facts
from tests.support.report_path import topic_report_of

#: The groups' labels, by group id (the order the recommendations dataset gives them).
LABELS = [
    "consumer / uniform",
    "classic / range \u2192 cooperative-sticky",
    "classic / stream (Kafka Streams, planned as cooperative-sticky)",
    "share / simple",
]


def _topic(*, keyed: bool = False, topic: str = "orders") -> TopicReport:
    plan, history = plan_with_protocols(keyed=keyed, topic=topic)
    return topic_report_of(plan, history, protocol_plan_facts(history))


@pytest.fixture(scope="module")
def fleet(planned_fleet: FleetReport) -> FleetReport:
    """The core's fleet with two topics read by groups of every protocol."""
    extra = (_topic(topic="thumbnails.requests"), _topic(keyed=True, topic="payments.keyed"))
    return dataclasses.replace(planned_fleet, topics=(*planned_fleet.topics, *extra))


def test_labels_name_the_protocol_the_assignor_and_what_the_plan_ran() -> None:
    assert [g.label() for g in _topic().groups] == LABELS
    assert group_label("streams", "sticky", "sticky", planned_as="range") == (
        "streams / sticky (Kafka Streams, planned as range)"
    )
    # A group without a plan: its assignor today, nothing planned.
    assert group_label("share", "simple") == "share / simple"
    assert group_label(None, "range", "range", planned_as="range") == "classic / range"


def test_the_report_carries_each_group_s_protocol_and_the_alternatives() -> None:
    t = _topic()
    # By group id, as the recommendations dataset orders a topic's groups.
    assert [(g.group_id, g.protocol, g.planned_as) for g in t.groups] == [
        ("audit", "consumer", "consumer:uniform"),
        ("billing", "classic", "cooperative-sticky"),
        ("enricher", "classic", "cooperative-sticky"),
        ("thumbnails", "share", "share:simple"),
    ]
    assert t.alternatives == tuple(n.text for n in ALTERNATIVES)
    assert [a.code for a in t.alternatives_coded] == [
        "consumer-protocol-alternative",
        "share-alternative",
    ]
    assert t.alternative_sentences == t.alternatives


def test_rows_written_before_protocols_read_as_classic_without_alternatives() -> None:
    plan, history = plan_with_protocols()
    row = {
        **empty_row(RECOMMENDATIONS),
        **recommendation_row(plan, history, protocol_plan_facts(history), brokers=3),
    }
    for name in ("alternatives", "alternatives_coded"):
        del row[name]
    for g in row["groups"]:
        del g["protocol"], g["planned_as"]
    t = topic_report(row, [], history=None, settings=PlanSettings())
    assert {g.protocol for g in t.groups} == {"classic"}
    assert {g.planned_as for g in t.groups} == {None}
    assert (t.alternatives, t.alternatives_coded) == ((), ())


def test_the_json_codec_round_trips_the_new_fields_and_reads_old_json() -> None:
    t = _topic()
    data = json.loads(json.dumps(t.to_json_dict()))
    assert TopicReport.from_json_dict(data) == t
    del data["alternatives"], data["alternatives_coded"]
    for g in data["groups"]:
        del g["protocol"], g["planned_as"]
    old = TopicReport.from_json_dict(data)
    assert old.alternatives == () and {g.protocol for g in old.groups} == {"classic"}


def test_a_protocol_the_model_does_not_know_is_refused() -> None:
    g = _topic().groups[1]
    with pytest.raises(ValueError, match="protocol must be one of classic, consumer"):
        dataclasses.replace(g, protocol="kip-999")
    data = g.to_json_dict() | {"protocol": "Consumer"}
    with pytest.raises(ValueError, match="'Consumer'"):
        GroupReport.from_json_dict(data)


def test_the_topic_page_shows_protocols_and_the_other_protocols_block(
    fleet: FleetReport,
) -> None:
    pages = page_names(t.topic for t in fleet.topics)
    t = next(t for t in fleet.topics if t.topic == "thumbnails.requests")
    html = topic_page(t, fleet, pages)
    assert "<th>Protocol / assignor</th>" in html
    for label in LABELS:
        assert f"<td>{label}</td>" in html
    block = html[html.index('<h2 id="alternatives">Other protocols</h2>') :]
    assert "with the consumer protocol (KIP-848" in block
    assert "would need 3 partitions instead of 12" in block
    keyed = next(t for t in fleet.topics if t.topic == "payments.keyed")
    assert "no share-group alternative: a share group (KIP-932)" in topic_page(keyed, fleet, pages)
    # A topic with no alternatives has no block.
    planned = next(t for t in fleet.topics if t.topic == "orders.created")
    plain = dataclasses.replace(planned, alternatives=(), alternatives_coded=())
    assert "Other protocols" not in topic_page(plain, fleet, pages)


def test_the_index_counts_and_filters_groups_by_protocol(fleet: FleetReport) -> None:
    pages = page_names(t.topic for t in fleet.topics)
    html = index_page(fleet, pages)
    classic = fleet.group_count(protocol="classic")
    # billing reads orders.created too; enricher is the one new classic group id.
    assert fleet.protocol_counts() == {"classic": classic, "consumer": 1, "share": 1}
    assert fleet.group_count("under-provisioned", protocol="share") == 1
    card = html[html.index("<h3>Consumer groups by protocol</h3>") :]
    card = card[: card.index("</section>")]
    assert f'<div class="big">{classic + 2:,}</div>' in card
    assert "<li><code>share</code> 1 <span class='muted'>(1 to resize)</span></li>" in card
    assert '<option value="consumer">consumer (1 group)</option>' in html
    assert 'data-protocols="classic consumer share"' in html
    assert "<td>share / simple</td>" in html  # the groups-to-resize table


def test_recommendations_json_adds_protocols_and_alternatives_and_keeps_every_key(
    fleet: FleetReport,
) -> None:
    pages = page_names(t.topic for t in fleet.topics)
    records = {r["topic"]: r for r in recommendations(fleet, pages)}
    before = {
        "topic", "status", "current_partitions", "required_partitions_now",
        "required_partitions", "recommended_partitions", "recommended_consumers",
        "standby_consumers", "strategy", "consumers_group", "deciding", "keyed",
        "partitioner", "replication_factor", "headroom_now_pct", "headroom_recommended_pct",
        "current_count_lasts_days", "warnings", "warnings_coded", "rationale", "error",
        "rejected_rows", "groups", "page",
    }  # fmt: skip
    group_before = {
        "group_id", "topics", "status", "current_strategy", "strategy", "current_members",
        "recommended_members", "members_now", "members_at_horizon", "standby_members",
        "busiest_utilisation", "notes", "notes_coded",
    }  # fmt: skip
    for r in records.values():
        # Issue 24 added the alternatives; issue 36 the change list's fields.
        change_list = {"run", "tp_mib_per_s", "tp_records_per_s", "tc_mib_per_s"}
        change_list |= {"tc_records_per_s", "cost"}
        assert set(r) == before | {"alternatives", "alternatives_coded"} | change_list
        for g in r["groups"]:
            # Issue 35 added each group's own capacity and its observed lag, issue 37 its
            # fetches across zones and a Streams group's standbys.
            added = {"protocol", "planned_as", "consumer_capacity", "lag", "cross_zone"}
            added |= {"standbys"}
            assert set(g) == group_before | added
    r = records["thumbnails.requests"]
    assert [(g["protocol"], g["current_strategy"], g["planned_as"]) for g in r["groups"]] == [
        ("consumer", "uniform", "consumer:uniform"),
        ("classic", "range", "cooperative-sticky"),
        ("classic", "stream", "cooperative-sticky"),
        ("share", "simple", "share:simple"),
    ]
    assert r["alternatives"] == [n.text for n in ALTERNATIVES]
    assert r["alternatives_coded"][1]["params"]["partitions"] == 3
    assert r["alternatives_coded"][1]["code"] == "share-alternative"
    assert [a["code"] for a in records["payments.keyed"]["alternatives_coded"]] == [
        "consumer-protocol-alternative",
        "share-not-for-keyed",
    ]
    # A planned classic fleet's topic: its groups' move to the consumer protocol, as the
    # plan gave it.
    planned = records["orders.created"]
    assert "consumer-protocol-alternative" in {a["code"] for a in planned["alternatives_coded"]}
    assert planned["alternatives"] == [a["text"] for a in planned["alternatives_coded"]]
    assert {g["protocol"] for g in planned["groups"]} == {"classic"}


def test_the_summary_names_a_protocol_other_than_plain_classic(fleet: FleetReport) -> None:
    summary = summary_markdown(fleet)
    assert "`consumer / uniform` (" in summary
    assert "`classic / stream (Kafka Streams, planned as cooperative-sticky)` (" in summary
    # A plain classic group keeps its bare strategy, as before protocols.
    assert "`cooperative-sticky` (" in summary


def test_the_site_renders_with_every_protocol(fleet: FleetReport, tmp_path: Path) -> None:
    render_site(fleet, tmp_path / "site")
    published = json.loads((tmp_path / "site" / "recommendations.json").read_text())
    assert any(g["protocol"] == "share" for r in published for g in r["groups"])


@pytest.mark.integration
def test_the_index_table_filters_by_protocol_in_a_browser(
    fleet: FleetReport, tmp_path: Path
) -> None:
    """The index's script, run by Chromium: the protocol filter keeps the topics read
    by a group of that protocol, and works with the status filter."""
    from tests.support.browser import running_browser, serving

    site = tmp_path / "site"
    render_site(fleet, site)
    visible = (
        "return [...document.querySelectorAll('#topics tbody tr')]"
        ".filter(r => !r.hidden).map(r => r.cells[0].textContent)"
    )

    def choose(select: str, value: str) -> None:
        browser.execute(
            f"const s = document.getElementById('{select}'); s.value = '{value}';"
            " s.dispatchEvent(new Event('change'));"
        )

    with running_browser() as browser, serving(site) as url:
        browser.get(url + "index.html")
        choose("protocol-filter", "share")
        assert sorted(browser.execute(visible)) == ["payments.keyed", "thumbnails.requests"]
        assert browser.execute("return document.getElementById('shown').textContent") == (
            f"2 of {len(fleet.topics)} topics shown"
        )
        keyed = next(t for t in fleet.topics if t.topic == "payments.keyed")
        choose("status-filter", keyed.status)
        assert "payments.keyed" in browser.execute(visible)
        choose("status-filter", "missing-capacity")
        assert browser.execute(visible) == []
        choose("status-filter", "")
        choose("protocol-filter", "classic")
        assert len(browser.execute(visible)) == sum(
            1 for t in fleet.topics if any(g.protocol == "classic" for g in t.groups)
        )
        choose("protocol-filter", "")
        assert len(browser.execute(visible)) == len(fleet.topics)
        errors = [e["message"] for e in browser.console() if e["level"] in ("SEVERE", "WARNING")]
        assert errors == []


def test_the_demo_json_carries_protocols_and_alternatives() -> None:
    from planner.commands.demo import plan_summary

    plan, _ = plan_with_protocols(keyed=True)
    out = json.loads(json.dumps(plan_summary(plan)))
    assert [(g["protocol"], g["planned_as"]) for g in out["groups"]][1:3] == [
        ("consumer", "consumer:uniform"),
        ("share", "share:simple"),
    ]
    assert out["alternatives"][1].startswith("no share-group alternative")
    assert out["alternatives_coded"][1]["code"] == "share-not-for-keyed"


def test_the_terminal_plan_names_protocols_and_the_other_protocols() -> None:
    from planner.render import render_plan

    plan, _ = plan_with_protocols()
    lines = render_plan(plan).splitlines()
    groups = [line.split(" members, ")[1].split("   [")[0] for line in lines if "  Group " in line]
    # In the plan's order of its groups (the report's is by group id).
    by_id = dict(zip(sorted(g.group_id for g in plan.groups), LABELS, strict=True))
    assert groups == [by_id[g.group_id].replace("\u2192", "->") for g in plan.groups]
    block = lines[lines.index("Other protocols") + 1 :][:2]
    assert block == [f"  - {n.text}" for n in ALTERNATIVES]
