"""A group's own capacity and lag as the topic page shows them (issue 35, section 3).

The topic is the bundled example planned by the core with three groups: one whose Tc
was learned from saturation (slower than the topic's), one that only showed a lower
bound while keeping up, and one with no figures of its own. The page must show each
group's Tc with its source, its lag where observed, the evidence, and, for the group
with a Tc of its own, what the topic's Tc would have asked for: a figure checked here
against the core planning the same group without its own Tc.
"""

from __future__ import annotations

from html.parser import HTMLParser

from planner.examples import load_example
from planner.recommend import GroupInfo, TopicPlan, plan_topic
from planner.report import FleetReport
from planner.report.exports import recommendations
from planner.report.layout import fmt_duration
from planner.report.names import page_names
from planner.report.topic_page import topic_page
from tests.report.fleets import INTERVAL, REPORT_SETTINGS, SETTINGS
from tests.store.rows import facts_row
from tests.support.report_path import topic_report_of

EVIDENCE = "saturation 2026-11-21 10:00-12:00 UTC: 8 windows in which the lag grew"


class _Rows(HTMLParser):
    """The consumer-group table's rows, each a list of its cells' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.headers: list[str] = []
        self.rows: list[list[str]] = []
        self._table = False
        self._cell: list[str] | None = None
        self._h2 = ""
        self._in_h2 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self._in_h2, self._h2 = True, ""
        elif tag == "table":
            self._table = self._h2 == "Consumer groups"
        elif self._table and tag == "tr":
            self.rows.append([])
        elif self._table and tag in ("td", "th"):
            self._cell = []
        elif self._cell is not None and tag == "br":
            self._cell.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2":
            self._in_h2 = False
        elif tag == "table":
            self._table = False
        elif self._table and tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._in_h2:
            self._h2 += data
        if self._cell is not None:
            self._cell.append(data)


def _plan(groups: tuple[GroupInfo, ...]) -> TopicPlan:
    ex = load_example()
    return plan_topic(
        ex.history, ex.producer, ex.consumer, brokers=ex.brokers, groups=groups, settings=SETTINGS
    )


def _page(plan: TopicPlan, groups: tuple[GroupInfo, ...]) -> tuple[list[list[str]], str]:
    ex = load_example()
    facts = facts_row(
        ex.history, ex.producer, ex.consumer, groups, capacity_source=ex.capacity_source
    )
    t = topic_report_of(plan, ex.history, facts, brokers=ex.brokers, settings=SETTINGS)
    fleet = FleetReport(
        run_key="20261121T0000Z",
        interval_start=INTERVAL[0],
        interval_end=INTERVAL[1],
        generated_at=INTERVAL[1],
        settings=REPORT_SETTINGS,
        topics=(t,),
    )
    pages = page_names([t.topic])
    parser = _Rows()
    parser.feed(topic_page(t, fleet, pages))
    return parser.rows, recommendations(fleet, pages)[0]


def test_the_page_shows_each_groups_tc_its_source_its_lag_and_the_count_at_the_topics_tc() -> None:
    ex = load_example()
    topic_tc = ex.consumer.records_per_s
    assert topic_tc is not None
    slow = GroupInfo(
        "indexer",
        "range",
        3,
        capacity_records_per_s=topic_tc / 4,
        capacity_source="saturation",
        capacity_evidence=EVIDENCE,
        lag_records=7_500_000.0,
        lag_seconds=3_000.0,
        lag_trend="growing",
    )
    bound = GroupInfo(
        "archiver",
        "range",
        3,
        capacity_records_per_s=topic_tc / 2,
        capacity_source="lower-bound",
        capacity_evidence="kept up in 8 window(s)",
        lag_records=0.0,
        lag_seconds=0.0,
        lag_trend="steady",
    )
    plain = GroupInfo("audit", "range", 3)
    groups = (slow, bound, plain)
    plan = _plan(groups)
    rows, record = _page(plan, groups)

    header, *body = rows
    assert "Tc per member" in header and "Lag at the end" in header
    by_group = {r[0]: dict(zip(header, r, strict=False)) for r in body if len(r) == len(header)}
    indexer, archiver, audit = by_group["indexer"], by_group["archiver"], by_group["audit"]
    assert indexer["Tc per member"] == f"{topic_tc / 4:,.0f} records/s | learned: saturated"
    # A lower bound below the topic's Tc is sized with the topic's Tc, yet it is shown
    # as what it is: "at least" the bound.
    assert archiver["Tc per member"] == f"\u2265 {topic_tc / 2:,.0f} records/s | at least (kept up)"
    assert audit["Tc per member"] == f"{topic_tc:,.0f} records/s | the topic's Tc"
    assert indexer["Lag at the end"] == "7,500,000 records | 50 min behind | growing"
    assert archiver["Lag at the end"] == "0 records | 0.0 s behind | steady"
    assert audit["Lag at the end"] == "\u2014"

    # The evidence and the topic's-Tc count are in the indexer's notes row. That count
    # is what the core plans, on the same partitions, for a group of the same strategy
    # and size sized with the topic's Tc: the audit group.
    own = next(g for g in plan.groups if g.group_id == "indexer")
    at_topic_tc = next(g for g in plan.groups if g.group_id == "audit")
    assert own.members_now is not None and at_topic_tc.members_now is not None
    assert own.members_now > at_topic_tc.members_now  # a quarter of the Tc needs more
    text = " ".join(" ".join(r) for r in body)
    assert f"its Tc: {EVIDENCE}" in text
    assert (
        f"sized with the topic's Tc instead, today's load would need "
        f"{at_topic_tc.members_now:,} member{'' if at_topic_tc.members_now == 1 else 's'} "
        f"(with its own: {own.members_now:,})"
    ) in text
    # Groups sized with the topic's Tc state no such comparison.
    assert text.count("sized with the topic's Tc instead") == 1

    # recommendations.json says the same.
    groups = {g["group_id"]: g for g in record["groups"]}
    assert groups["indexer"]["consumer_capacity"]["members_now_at_topic_tc"] == (
        at_topic_tc.members_now
    )
    assert groups["indexer"]["consumer_capacity"]["source"] == "saturation"
    assert groups["archiver"]["consumer_capacity"]["members_now_at_topic_tc"] is None
    assert groups["audit"]["consumer_capacity"]["members_now_at_topic_tc"] is None
    assert groups["indexer"]["lag"] == {
        "records": 7_500_000.0,
        "seconds": 3_000.0,
        "trend": "growing",
    }


def test_a_topic_without_observed_groups_has_no_lag_column() -> None:
    groups = (GroupInfo("audit", "range", 3),)
    rows, _ = _page(_plan(groups), groups)
    assert "Lag at the end" not in rows[0]
    assert "Tc per member" in rows[0]


def test_durations_read_as_people_read_them() -> None:
    assert [fmt_duration(s) for s in (None, 0.0, 4.25, 95.0, 3_000.0, 9_000.0, 400_000.0)] == [
        "\u2014",
        "0.0 s",
        "4.2 s",
        "95 s",
        "50 min",
        "2 h",
        "5 days",
    ]


def test_the_words_module_s_examples() -> None:
    import doctest

    from planner import group_labels

    failed, attempted = doctest.testmod(group_labels)
    assert attempted >= 2 and failed == 0
