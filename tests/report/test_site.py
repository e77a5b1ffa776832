"""The rendered site: its files, the JSON and Markdown exports, names, and escaping."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import json
import math
import os
import re
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from planner.notes import note, render_coded
from planner.recommend import GroupInfo, TopicHistory, plan_topic
from planner.report import FleetReport, page_names
from planner.report.exports import recommendations, summary_markdown
from planner.report.layout import SCRIPT, STYLE
from planner.report.model import CodedNote
from planner.report.site import iter_site, render_site
from planner.report.topic_page import topic_page
from planner.sizing import SideCapacity
from tests.report.fleets import EXAMPLE_TOPIC, HOSTILE_ATTR, HOSTILE_TOPIC, HOT_TOPIC
from tests.store.rows import facts_row
from tests.support.report_path import topic_report_of

GOLDEN = Path(__file__).parent / "golden"
KAFKA_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")


class _Page(HTMLParser):
    """Every element, attribute and text run of a page, as the browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)
        else:
            self.text.append(data)

    def attr_values(self, name: str) -> list[str]:
        return [v for _, a in self.tags if (v := a.get(name)) is not None]


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def _html_files(site: Path) -> list[Path]:
    return sorted(site.glob("*.html")) + sorted((site / "topics").glob("*.html"))


def test_the_site_has_exactly_its_files(rendered_site: Path, planned_fleet: FleetReport) -> None:
    files = sorted(
        str(p.relative_to(rendered_site)) for p in rendered_site.rglob("*") if p.is_file()
    )
    pages = page_names(t.topic for t in planned_fleet.topics)
    expected = sorted(
        [
            "index.html",
            "recommendations.json",
            "summary.md",
            "data-docs/index.html",
            *(f"topics/{name}" for name in pages.values()),
        ]
    )
    assert files == expected


def test_render_site_refuses_a_folder_with_files(tmp_path: Path, typed_fleet: FleetReport) -> None:
    (tmp_path / "old.html").write_text("stale")
    with pytest.raises(FileExistsError, match="must be missing or empty"):
        render_site(typed_fleet, tmp_path)
    render_site(typed_fleet, tmp_path / "new")
    assert (tmp_path / "new" / "index.html").is_file()


def test_iter_site_writes_the_index_last(typed_fleet: FleetReport) -> None:
    paths = [path for path, _ in iter_site(typed_fleet)]
    assert paths[-1] == "index.html"
    assert all(p.startswith("topics/") for p in paths[: len(typed_fleet.topics)])


def test_recommendations_json(rendered_site: Path, planned_fleet: FleetReport) -> None:
    records = json.loads((rendered_site / "recommendations.json").read_text(encoding="utf-8"))
    assert [r["topic"] for r in records] == sorted(t.topic for t in planned_fleet.topics)
    required = {
        "topic",
        "current_partitions",
        "required_partitions",
        "recommended_partitions",
        "recommended_consumers",
        "strategy",
        "deciding",
        "warnings",
        "status",
        "groups",
    }
    assert all(required <= set(r) for r in records)
    example = next(r for r in records if r["topic"] == EXAMPLE_TOPIC)
    # The bundled example's plan (see `partition-planner demo`).
    assert example["status"] == "plan-increase"
    assert (example["current_partitions"], example["recommended_partitions"]) == (12, 16)
    assert (example["required_partitions_now"], example["required_partitions"]) == (10, 14)
    assert example["deciding"] == {"dimension": "mib_in", "side": "consumer"}
    # The largest group's size (ledger-writer, 12 members, enough as it is); one group
    # reading only the topic would need 11 today, as fraud-scoring does.
    assert (example["recommended_consumers"], example["consumers_group"]) == (12, "ledger-writer")
    assert example["strategy"] == "cooperative-sticky"
    assert [g["group_id"] for g in example["groups"]] == ["fraud-scoring", "ledger-writer"]
    assert example["groups"][0]["status"] == "under-provisioned"
    assert example["groups"][0]["recommended_members"] == 11
    remaps = [w["params"] for w in example["warnings_coded"] if w["code"] == "keyed-remap"]
    assert [(p["current_partitions"], p["recommended_partitions"]) for p in remaps] == [(12, 16)]
    assert (rendered_site / example["page"]).is_file()
    missing = next(r for r in records if r["topic"] == HOSTILE_ATTR)
    assert missing["status"] == "missing-capacity"
    assert missing["recommended_partitions"] is None and missing["deciding"] is None


def test_summary_matches_the_golden_file(tmp_path: Path, typed_fleet: FleetReport) -> None:
    """Refresh with `UPDATE_GOLDEN=1 pytest tests/report/test_site.py`."""
    render_site(typed_fleet, tmp_path / "site")
    summary = (tmp_path / "site" / "summary.md").read_text(encoding="utf-8")
    golden = GOLDEN / "summary.md"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        golden.write_text(summary, encoding="utf-8")
    assert summary == golden.read_text(encoding="utf-8")
    # Action first: increase now, then within the horizon, then groups, then the rest.
    order = [summary.index(h) for h in ("## Increase now", "## Increase within", "## Consumer")]
    assert order == sorted(order)


def test_summary_markdown_renders_names_as_text(typed_fleet: FleetReport, tmp_path: Path) -> None:
    render_site(typed_fleet, tmp_path / "site")
    html = MarkdownIt("commonmark").render((tmp_path / "site" / "summary.md").read_text())
    page = _Page()
    page.feed(html)
    assert {tag for tag, _ in page.tags} <= {"h1", "h2", "p", "ul", "li", "code", "strong"}
    text = "".join(page.text)
    assert "new`topic" in text  # a backtick inside a name survives its code span
    assert "group 'billing' is `under-provisioned` *now* | [see] <page>" in text


@given(st.lists(st.text(min_size=1, max_size=300), min_size=1, max_size=8, unique=True))
def test_page_names_are_safe_and_distinct_for_any_names(names: list[str]) -> None:
    pages = page_names(names)
    files = list(pages.values())
    assert len({f.casefold() for f in files}) == len(files)
    for name, file in pages.items():
        assert re.fullmatch(r"[A-Za-z0-9._~-]+\.html", file)
        assert not file.startswith(".") and ".." not in file.split("/")
        assert len(file.encode()) <= 255
        if KAFKA_NAME.fullmatch(name) and not name.startswith("."):
            casefold_twins = [n for n in names if n.casefold() == name.casefold()]
            assert (file == f"{name}.html") == (len(casefold_twins) == 1)


def test_page_names_examples() -> None:
    pages = page_names(["orders", "Orders", "a_b", "a?b", "..", ".hidden", HOSTILE_TOPIC])
    assert pages["a_b"] == "a_b.html"
    assert pages["orders"] != pages["Orders"] and "~" in pages["orders"]
    assert pages["a?b"].startswith("a_b~")
    assert pages[".."].startswith("topic~")
    assert pages[".hidden"].startswith("hidden~")
    assert pages[HOSTILE_TOPIC].startswith("script_alert_1_script~")


def test_hostile_names_are_escaped_everywhere(rendered_site: Path) -> None:
    for path in _html_files(rendered_site):
        page = _parse(path)
        tags = {tag for tag, _ in page.tags}
        assert "img" not in tags, path
        handlers = [n for _, a in page.tags for n in a if n.startswith("on")]
        assert handlers == [], path
        # The only script is the index's own, byte for byte; nothing else runs.
        assert page.scripts == ([SCRIPT] if path.name == "index.html" else []), path
        for href in page.attr_values("href"):
            parts = urlsplit(href)
            assert not parts.scheme or href == "data:,", (path, href)
        for src in page.attr_values("src"):
            raise AssertionError(f"{path}: fetches {src}")
    text = "".join(_parse(rendered_site / "index.html").text)
    assert HOSTILE_TOPIC in text and HOSTILE_ATTR in text
    pages = page_names([HOSTILE_TOPIC])
    topic = _parse(rendered_site / "topics" / pages[HOSTILE_TOPIC])
    topic_text = "".join(topic.text)
    assert HOSTILE_TOPIC in topic_text  # heading, title, charts' descriptions
    assert HOSTILE_ATTR in topic_text  # the group id and the hot key
    assert f"Hot: key {HOSTILE_ATTR!r}" in topic_text  # in the partition chart's <desc>
    records = json.loads((rendered_site / "recommendations.json").read_text())
    assert {HOSTILE_TOPIC, HOSTILE_ATTR} <= {r["topic"] for r in records}
    summary = MarkdownIt("commonmark").render((rendered_site / "summary.md").read_text())
    assert "<script" not in summary and "<img" not in summary
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in summary


def _csp_hashes(page: _Page) -> set[str]:
    (policy,) = [
        a["content"] for t, a in page.tags if t == "meta" and a.get("http-equiv") and a["content"]
    ]
    return set(re.findall(r"'sha256-([A-Za-z0-9+/=]+)'", policy or ""))


def test_the_content_security_policy_allows_exactly_the_inline_style_and_script(
    rendered_site: Path,
) -> None:
    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    for path in _html_files(rendered_site):
        page = _parse(path)
        assert page.styles == [STYLE]
        expected = {digest(STYLE), *(digest(s) for s in page.scripts)}
        assert _csp_hashes(page) == expected, path


def test_every_relative_link_resolves_on_disk(rendered_site: Path) -> None:
    for path in _html_files(rendered_site):
        page = _parse(path)
        ids = set(page.attr_values("id"))
        for href in page.attr_values("href"):
            parts = urlsplit(href)
            if parts.scheme:
                continue
            if not parts.path:
                assert parts.fragment in ids, (path, href)
                continue
            target = (path.parent / unquote(parts.path)).resolve()
            assert target.is_file(), (path, href)
            assert rendered_site.resolve() in target.parents, (path, href)


def test_the_index_states_the_planning_settings(rendered_site: Path) -> None:
    text = (rendered_site / "index.html").read_text()
    assert "30 % headroom" in text
    assert "at least 2 members per consumer group" in text


def test_a_topic_to_increase_shows_the_command_and_others_none(
    rendered_site: Path, planned_fleet: FleetReport
) -> None:
    pages = page_names([t.topic for t in planned_fleet.topics])
    commands = {}
    for t in planned_fleet.topics:
        text = "".join(_parse(rendered_site / "topics" / pages[t.topic]).text)
        found = re.findall(r"kafka-topics\.sh [^\n]*", text)
        commands[t.topic] = found[0] if found else None
        if not t.planned or t.recommended_partitions == t.current_partitions:
            assert found == [] and "To apply" not in text, t.topic
    # The example: a keyed topic going from 12 to 16 partitions.
    assert commands[EXAMPLE_TOPIC] == (
        'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --alter --topic '
        "payments.authorizations --partitions 16"
    )
    example = "".join(_parse(rendered_site / "topics" / pages[EXAMPLE_TOPIC]).text)
    assert "Keyed topic: most keys move to another partition" in example
    # A name the shell would read as code is quoted (and escaped in the HTML); a topic
    # that does not exist yet is created.
    hostile = next(t for t in planned_fleet.topics if t.topic == HOSTILE_TOPIC)
    for current, verb in ((6, "--alter"), (None, "--create")):
        changed = dataclasses.replace(hostile, current_partitions=current)
        html_text = topic_page(changed, planned_fleet, pages)
        page = _Page()
        page.feed(html_text)
        text = "".join(page.text)
        assert f"{verb} --topic '<script>alert(1)</script>' --partitions 12" in text
        assert "<script>alert" not in html_text
    assert "--replication-factor 3" in text


def test_an_increase_within_the_horizon_shows_when_it_is_needed(
    planned_fleet: FleetReport,
) -> None:
    example = next(t for t in planned_fleet.topics if t.topic == EXAMPLE_TOPIC)
    pages = page_names([t.topic for t in planned_fleet.topics])
    # The example is keyed and its skew asks for 14: no date is claimed for it.
    assert example.current_count_lasts_days is None
    assert "Needed by" not in topic_page(example, planned_fleet, pages)
    # Say 7 partitions carry today's peak plus headroom with 10 % to spare in every
    # dimension: the count runs out when the fastest-growing one has grown 10 %.
    dims = tuple(
        dataclasses.replace(d, producer_capacity=None, consumer_capacity=d.peak * 1.3 * 1.1 / 7)
        for d in example.dimensions
    )
    ruled = dataclasses.replace(
        example, current_partitions=7, required_partitions=10, dimensions=dims
    )
    days = ruled.current_count_lasts_days
    assert days is not None and 0 < days < planned_fleet.settings.horizon_days
    fastest = max(d.growth_per_year for d in dims)
    assert days == pytest.approx(365 * math.log(1.1) / math.log1p(fastest))
    page = _Page()
    page.feed(topic_page(ruled, planned_fleet, pages))
    text = "".join(page.text)
    when = planned_fleet.interval_end + timedelta(days=days)
    assert "Needed by" in text and f"about {when:%Y-%m-%d}" in text


def test_a_single_replica_topic_says_its_partitions_go_offline(
    planned_fleet: FleetReport,
) -> None:
    example = next(t for t in planned_fleet.topics if t.topic == EXAMPLE_TOPIC)
    pages = page_names([t.topic for t in planned_fleet.topics])
    assert example.cost is not None
    single = dataclasses.replace(
        example,
        replication_factor=1,
        cost=dataclasses.replace(example.cost, election_unavailability_ms=None),
    )
    page = _Page()
    page.feed(topic_page(single, planned_fleet, pages))
    text = "".join(page.text)
    leaders = example.cost.leaders_per_broker
    assert f"up to {leaders} partitions offline" in text
    assert "replication factor 1 leaves no replica to elect" in text
    assert "to elect" in "".join(_parse_text(topic_page(example, planned_fleet, pages)))


def _parse_text(html_text: str) -> list[str]:
    page = _Page()
    page.feed(html_text)
    return page.text


def test_a_fleet_run_shows_the_clusters_replicas_per_broker(
    planned_fleet: FleetReport, tmp_path: Path
) -> None:
    from planner.report.model import cluster_replicas

    cluster = cluster_replicas(planned_fleet.topics, brokers=3)
    assert cluster is not None
    fleet = dataclasses.replace(planned_fleet, cluster=cluster)
    render_site(fleet, tmp_path / "site")
    index = "".join(_parse(tmp_path / "site" / "index.html").text)
    assert "Partition replicas per broker" in index
    assert f"{cluster.per_broker_now:,} \u2192 {cluster.per_broker_planned:,}" in index
    pages = page_names([t.topic for t in fleet.topics])
    page = "".join(_parse(tmp_path / "site" / "topics" / pages[EXAMPLE_TOPIC]).text)
    assert (
        f"whole cluster: {cluster.per_broker_now:,} today, {cluster.per_broker_planned:,} "
        "with every recommendation"
    ) in page
    # A run that does not see the whole fleet says nothing of the cluster.
    render_site(planned_fleet, tmp_path / "alone")
    assert "Partition replicas per broker" not in (tmp_path / "alone" / "index.html").read_text()


def test_a_keyed_topics_headroom_names_its_busiest_partition(
    rendered_site: Path, planned_fleet: FleetReport
) -> None:
    pages = page_names([t.topic for t in planned_fleet.topics])
    hot = next(t for t in planned_fleet.topics if t.topic == HOT_TOPIC)
    assert hot.partition_load is not None
    busiest = max(hot.partition_load.loads)
    text = "".join(_parse(rendered_site / "topics" / pages[HOT_TOPIC]).text)
    assert (
        f"if spread evenly; by its keys the busiest carries {busiest * 100:.0f} % of one "
        "consumer (Tc) today"
    ) in text
    keyless = "".join(_parse(rendered_site / "topics" / pages["audit.log"]).text)
    assert "partitions (even spread)" in keyless and "by its keys" not in keyless


def test_a_standby_member_is_shown_where_the_consumers_are(planned_fleet: FleetReport) -> None:
    # One partition and a group of 3: the plan keeps 2, one standing by (min_group_members).
    history = TopicHistory(
        "audit.one", np.arange(14 * 24) * 3600.0, mib_in=np.full(14 * 24, 0.5), current_partitions=1
    )
    producer, consumer = SideCapacity(mib_per_s=100.0), SideCapacity(mib_per_s=10.0)
    groups = [GroupInfo("dashboard", "range", 3)]
    plan = plan_topic(history, producer, consumer, brokers=3, groups=groups)
    t = topic_report_of(plan, history, facts_row(history, producer, consumer, groups))
    assert (t.recommended_partitions, t.recommended_consumers, t.standby_consumers) == (1, 2, 1)
    assert t.groups[0].standby_members == 1
    assert t.consumers_basis.endswith(
        "; 1 of them owns no partition and stands by (min_group_members)"
    )
    fleet = dataclasses.replace(planned_fleet, topics=(t,))
    pages = page_names([t.topic])
    page = _Page()
    page.feed(topic_page(t, fleet, pages))
    text = "".join(page.text)
    assert "2 (1 standing by)" in text
    assert " at 1 partition (even spread)" in text
    assert "3 \u2192 21 standing by" in text  # the group's row: size, then its standbys
    record = recommendations(fleet, pages)[0]
    assert (record["recommended_consumers"], record["standby_consumers"]) == (2, 1)
    assert record["groups"][0]["standby_members"] == 1
    summary = summary_markdown(fleet)
    assert "- `dashboard` on `audit.one`: 3 -> 2 members (1 standing by), `" in summary
    # A topic line (listed when its count changes) says it too.
    listed = dataclasses.replace(fleet, topics=(dataclasses.replace(t, status="increase"),))
    assert "2 consumers (group `dashboard`, 1 standing by)" in summary_markdown(listed)


def test_warnings_and_notes_are_printed_from_their_codes_and_parameters(
    typed_fleet: FleetReport,
) -> None:
    # The stored sentences are stale on purpose: the site and summary.md render from the
    # codes and parameters; recommendations.json keeps the sentences it was given.
    hot = note("hot-key", key="user-42", share=0.31, load=1.7)
    deploy = note(
        "deploy", group_id="billing", topics=["orders_v2"], members_now=16,
        headroom_pct=23.1, limit=0.77,
    )  # fmt: skip
    grow = next(t for t in typed_fleet.topics if t.topic == "orders_v2")
    (group,) = grow.groups
    coded = CodedNote(**{**hot.as_row(), "text": "stale wording"})
    group_coded = CodedNote(**{**deploy.as_row(), "text": "stale note"})
    grow = dataclasses.replace(
        grow,
        warnings=("stale wording",),
        warnings_coded=(coded,),
        groups=(
            dataclasses.replace(
                group, status="deploy", notes=("stale note",), notes_coded=(group_coded,)
            ),
        ),
    )
    fleet = dataclasses.replace(
        typed_fleet, topics=tuple(grow if t.topic == grow.topic else t for t in typed_fleet.topics)
    )
    pages = page_names([t.topic for t in fleet.topics])
    page = topic_page(grow, fleet, pages)
    summary = summary_markdown(fleet)
    for text in (page, summary):
        assert "stale" not in text
    assert html.escape(hot.text) in page and html.escape(deploy.text) in page
    assert "user-42" in summary
    (published,) = [r for r in recommendations(fleet, pages) if r["topic"] == "orders_v2"]
    assert published["warnings"] == ["stale wording"]
    assert [(w["code"], w["params"]) for w in published["warnings_coded"]] == [
        ("hot-key", {"key": "user-42", "share": 0.31, "load": 1.7})
    ]


def test_a_code_this_version_does_not_know_keeps_its_published_sentence() -> None:
    unknown = CodedNote(code="from-a-newer-planner", severity="info", params="{}", text="as sent")
    assert unknown.sentence == "as sent"
    assert render_coded(
        {"code": "hot-key", "params": '{"key": "k", "share": 0.5, "load": 2.0}'}
    ) == (note("hot-key", key="k", share=0.5, load=2.0).text)


def test_a_note_whose_parameters_do_not_render_keeps_its_published_sentence(
    typed_fleet: FleetReport, caplog: pytest.LogCaptureFixture
) -> None:
    # A null where the renderer needs a number (an infinite load once became one in the
    # JSON): that note shows the sentence it was published with and the page renders.
    good = note(
        "no-size-fits", group_id="billing", topics=["orders_v2"], partitions=[4],
        busiest_utilisation=1.4, limit=0.77,
    )  # fmt: skip
    bad = CodedNote(
        **{**good.as_row(), "params": json.dumps({**good.params, "busiest_utilisation": None})}
    )
    assert bad.sentence == good.text
    assert "do not render (TypeError" in caplog.text and "'no-size-fits'" in caplog.text
    grow = next(t for t in typed_fleet.topics if t.topic == "orders_v2")
    (group,) = grow.groups
    grow = dataclasses.replace(
        grow, groups=(dataclasses.replace(group, notes=(good.text,), notes_coded=(bad,)),)
    )
    fleet = dataclasses.replace(
        typed_fleet, topics=tuple(grow if t.topic == grow.topic else t for t in typed_fleet.topics)
    )
    pages = page_names([t.topic for t in fleet.topics])
    assert html.escape(good.text) in topic_page(grow, fleet, pages)
    summary_markdown(fleet)  # renders too
