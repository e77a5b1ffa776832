"""The index page: the fleet at a glance, then every topic in one sortable table."""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from planner.protocols import PROTOCOLS
from planner.recommend import creation
from planner.report.layout import (
    STATUS_LABELS,
    fmt_count,
    fmt_headroom,
    fmt_needed_by,
    page,
    status_badge,
)
from planner.report.model import DIMENSION_UNITS, FleetReport, TopicReport
from planner.report.names import topic_href

__all__ = ["index_page"]

#: Sort order of statuses in the table: what needs action first (a topic that cannot be
#: sized first of all: its figures need fixing before anything can be said about it).
STATUS_RANK = {
    "error": 0,
    "invalid-figures": 1,
    "missing-capacity": 2,
    "no-figures": 3,
    "unknown-topic": 4,
    "create": 5,
    "increase": 5,
    "plan-increase": 6,
    "ok": 7,
}
_CARD_MOST = 10
_DASH = "\u2014"


def _link(t: TopicReport, pages: dict[str, str]) -> str:
    return f'<a href="{escape(topic_href(pages[t.topic]))}">{escape(t.topic)}</a>'


def _current(t: TopicReport) -> str:
    if t.current_partitions is not None:
        return fmt_count(t.current_partitions)
    # No topics row: the count is unknown, not zero, and the topic is not a new one.
    return _DASH if t.status == "unknown-topic" else "new"


def _arrow(t: TopicReport) -> str:
    if t.status == "create" and t.recommended_partitions is not None:
        return f"create with {fmt_count(t.recommended_partitions)}"
    current = _current(t)
    if t.recommended_partitions is None or t.recommended_partitions == t.current_partitions:
        return current
    return f"{current} \u2192 {fmt_count(t.recommended_partitions)}"


def _missing_note(t: TopicReport) -> str:
    if not t.planned:
        return STATUS_LABELS[t.status][0]
    return f"{t.rejected_rows:,} row{'' if t.rejected_rows == 1 else 's'} rejected"


def _by(t: TopicReport, report: FleetReport) -> str:
    days = t.current_count_lasts_days
    return "" if days is None else f", needed by {fmt_needed_by(days, report.interval_end)}"


def _card(
    css: str,
    title: str,
    topics: list[TopicReport],
    pages: dict[str, str],
    note: Callable[[TopicReport], str] = _arrow,
) -> str:
    items = "".join(
        f"<li>{_link(t, pages)} <span class='muted'>{escape(note(t))}</span></li>"
        for t in topics[:_CARD_MOST]
    )
    more = (
        f"<li class='muted'>and {len(topics) - _CARD_MOST:,} more in the table</li>"
        if len(topics) > _CARD_MOST
        else ""
    )
    listing = f"<ul>{items}{more}</ul>" if topics else ""
    return (
        f'<section class="card {css}"><h3>{escape(title)}</h3>'
        f'<div class="big">{len(topics):,}</div>{listing}</section>'
    )


def _creation_glance(report: FleetReport, pages: dict[str, str]) -> str:
    # A creation plan: what to create, and the groups to deploy; nothing is resized.
    created = [t for t in report.topics if t.status == "create"]
    items = "".join(
        f"<li>{_link(t, pages)}: "
        + escape(
            creation.create_headline(
                t.topic,
                partitions=t.recommended_partitions or 0,
                replication_factor=t.replication_factor,
            )
        )
        + "</li>"
        for t in created
    )
    deploy = report.groups_to_deploy()
    groups = "".join(
        f"<li><code>{escape(g.group_id)}</code>: "
        + escape(
            creation.deploy_headline(members=g.recommended_members or 0, standby=g.standby_members)
        )
        + f", {escape(g.strategy or _DASH)}</li>"
        for g, _ in deploy
    )
    missing = [t for t in report.topics if not t.planned]
    cards = [
        '<section class="card ok"><h3>To create</h3>'
        f'<div class="big">{len(created):,}</div><ul>{items}</ul></section>',
        '<section class="card ok"><h3>Consumer groups to deploy</h3>'
        f'<div class="big">{len(deploy):,}</div><ul>{groups}</ul></section>',
    ]
    if missing:
        cards.append(_card("missing", "Could not be planned", missing, pages, _missing_note))
    return '<h2 id="glance">The plan</h2>\n<div class="cards">' + "".join(cards) + "</div>"


def _glance(report: FleetReport, pages: dict[str, str]) -> str:
    if report.creation:
        return _creation_glance(report, pages)

    def with_status(*statuses: str) -> list[TopicReport]:
        return sorted(
            (t for t in report.topics if t.status in statuses),
            key=lambda t: (-(t.recommended_partitions or 0) + (t.current_partitions or 0), t.topic),
        )

    def soonest_first(topics: list[TopicReport]) -> list[TopicReport]:
        def key(t: TopicReport) -> float:
            days = t.current_count_lasts_days
            return math.inf if days is None else days

        return sorted(topics, key=key)

    missing = [t for t in report.topics if not t.planned or t.rejected_rows]
    under = report.group_count("under-provisioned")
    no_standby = report.group_count("no-standby")
    over = report.group_count("over-provisioned")
    unplanned = report.group_count("unplanned")
    horizon = f"{report.settings.horizon_days:g} days"
    cards = [
        _card("increase", "Need more partitions now", with_status("increase"), pages),
        _card(
            "plan-increase",
            f"Need more within the horizon ({horizon})",
            soonest_first(with_status("plan-increase")),
            pages,
            lambda t: _arrow(t) + _by(t, report),
        ),
        _card("ok", "Fine to the end of the horizon", with_status("ok"), pages),
        _card("missing", "Missing or rejected figures", missing, pages, _missing_note),
        (
            '<section class="card plan-increase"><h3>Consumer groups to resize</h3>'
            f'<div class="big">{len(report.groups_to_resize()):,}</div><ul>'
            f"<li>{status_badge('under-provisioned')} {under:,}</li>"
            + (f"<li>{status_badge('no-standby')} {no_standby:,}</li>" if no_standby else "")
            + f"<li>{status_badge('over-provisioned')} {over:,}</li>"
            + (f"<li>{status_badge('unplanned')} {unplanned:,}</li>" if unplanned else "")
            + "</ul></section>"
        ),
    ]
    protocols = report.protocol_counts()
    if protocols:
        cards.append(_protocols_card(report, protocols))
    if report.count("create"):
        # Topics listed without a partition count: not in the cluster yet.
        cards.insert(0, _card("ok", "To create", with_status("create"), pages))
    if report.cluster is not None:
        cards.append(_cluster_card(report))
    return '<h2 id="glance">Fleet at a glance</h2>\n<div class="cards">' + "".join(cards) + "</div>"


def _protocols_card(report: FleetReport, counts: dict[str, int]) -> str:
    # Every group once, by protocol, with how many of them to resize.
    resize = [g.protocol for g, _ in report.groups_to_resize()]
    items = "".join(
        f"<li><code>{escape(p)}</code> {n:,}"
        + (
            f" <span class='muted'>({resize.count(p):,} to resize)</span>"
            if resize.count(p)
            else ""
        )
        + "</li>"
        for p, n in counts.items()
    )
    return (
        '<section class="card ok"><h3>Consumer groups by protocol</h3>'
        f'<div class="big">{sum(counts.values()):,}</div><ul>{items}</ul></section>'
    )


def _title(text: str | None) -> str:
    return f' title="{escape(text)}"' if text else ""


def _cluster_card(report: FleetReport) -> str:
    c = report.cluster
    assert c is not None
    over = c.per_broker_planned > c.limit
    css = (
        "increase" if over else ("plan-increase" if c.per_broker_planned > 0.8 * c.limit else "ok")
    )
    return (
        f'<section class="card {css}"><h3>Partition replicas per broker</h3>'
        f'<div class="big">{c.per_broker_now:,} \u2192 {c.per_broker_planned:,}</div><ul>'
        f"<li>today \u2192 with every recommendation, limit {c.limit:,}"
        + (" <strong>(above it)</strong>" if over else "")
        + "</li>"
        f"<li class='muted'>{c.replicas_now:,} \u2192 {c.replicas_planned:,} replicas of "
        f"{c.topics:,} topics on {c.brokers:,} broker{'' if c.brokers == 1 else 's'}, spread "
        "evenly</li></ul></section>"
    )


# Topics linked from a group's row; the rest are counted.
_GROUP_TOPICS_SHOWN = 3


def _group_topics(
    names: tuple[str, ...], pages: dict[str, str], by_name: dict[str, TopicReport]
) -> str:
    links = [_link(by_name[n], pages) if n in by_name else escape(n) for n in names]
    shown = ", ".join(links[:_GROUP_TOPICS_SHOWN])
    rest = len(links) - _GROUP_TOPICS_SHOWN
    return shown + (f" and {rest:,} more" if rest > 0 else "")


def _groups(report: FleetReport, pages: dict[str, str]) -> str:
    # One row per group: a group that reads several topics has one plan for all of them.
    by_name = {t.topic: t for t in report.topics}
    rows = []
    for g, names in report.groups_to_resize():
        strategy = escape(g.label())
        notes = g.note_sentences
        note = escape(notes[0]) if notes else ""
        rows.append(
            f"<tr><td><code>{escape(g.group_id)}</code></td>"
            f"<td>{_group_topics(names, pages, by_name)}</td>"
            f"<td>{status_badge(g.status)}</td>"
            f'<td class="num">{g.current_members:,} \u2192 '
            f"{fmt_count(g.recommended_members)}</td>"
            f"<td>{strategy}</td><td>{note}</td></tr>"
        )
    if not rows:
        return ""
    title = "Consumer groups to resize"
    if report.group_count("unplanned"):
        title += ", and groups without a plan"
    return (
        f'<h2 id="groups">{title}</h2>\n<table><thead><tr><th>Group</th>'
        '<th>Topic</th><th>Status</th><th class="num">Members</th><th>Protocol / assignor</th>'
        "<th>Why</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def _missing(report: FleetReport, pages: dict[str, str]) -> str:
    rows = [
        f"<tr><td>{_link(t, pages)}</td><td>{status_badge(t.status)}</td>"
        f'<td class="num">{t.rejected_rows:,}</td><td>{escape(t.error or "")}</td></tr>'
        for t in sorted(report.topics, key=lambda t: t.topic)
        if not t.planned or t.rejected_rows
    ]
    rejected = []
    for r in report.rejected:
        examples = "".join(
            f"<tr><td><code>{escape(e.source)}</code></td>"
            f'<td class="num">{"" if e.row is None else f"{e.row:,}"}</td>'
            f"<td><code>{escape(e.field or '')}</code></td>"
            f"<td><code>{escape(e.value if e.value is not None else '(null)')}</code></td>"
            f"<td>{escape(e.reason)}</td></tr>"
            for e in r.examples
        )
        table = (
            "<table><thead><tr><th>Source</th><th class='num'>Row</th><th>Field</th>"
            f"<th>Value</th><th>Reason</th></tr></thead><tbody>{examples}</tbody></table>"
            if examples
            else ""
        )
        rejected.append(
            f"<h3><code>{escape(r.table)}</code>: {r.rows:,} rows rejected</h3>"
            + (f"<p class='muted'>The first {len(r.examples)}:</p>{table}" if table else "")
        )
    docs = (
        f'<p>Validation details: <a href="{escape(report.data_docs_path)}">'
        "Great Expectations Data Docs</a>.</p>"
        if report.data_docs_path
        else ""
    )
    if not rows and not rejected and not docs:
        return ""
    out = ['<h2 id="missing">Missing or rejected figures</h2>', docs]
    if rows:
        out.append(
            "<table><thead><tr><th>Topic</th><th>Status</th><th class='num'>Rejected rows</th>"
            "<th>Why</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        )
    out.extend(rejected)
    return "\n".join(out)


def _protocols(t: TopicReport) -> list[str]:
    # The protocols of the groups reading the topic, in `PROTOCOLS` order.
    present = {g.protocol for g in t.groups}
    return [p for p in PROTOCOLS if p in present]


def _table(report: FleetReport, pages: dict[str, str]) -> str:
    body = []
    order = sorted(report.topics, key=lambda t: (STATUS_RANK[t.status], t.topic))
    for t in order:
        deciding = (
            f"{DIMENSION_UNITS[t.deciding.dimension]}, {t.deciding.side}" if t.deciding else _DASH
        )
        now = t.spare_pct(t.current_partitions)
        later = t.spare_pct(t.recommended_partitions)
        headroom = fmt_headroom(now)
        if later is not None and t.recommended_partitions != t.current_partitions:
            headroom += f" \u2192 {fmt_headroom(later)}"
        sentences = t.warning_sentences
        warnings = (
            f"<details><summary>{len(sentences)}</summary><ul>"
            + "".join(f"<li>{escape(w)}</li>" for w in sentences)
            + "</ul></details>"
            if sentences
            else "0"
        )
        body.append(
            f'<tr data-status="{escape(t.status)}" '
            f'data-protocols="{escape(" ".join(_protocols(t)))}">'
            f"<td>{_link(t, pages)}</td>"
            f'<td data-sort="{STATUS_RANK[t.status]}">{status_badge(t.status)}</td>'
            f'<td class="num" data-sort="{t.recommended_partitions or 0}">'
            f"{escape(_arrow(t))}</td>"
            f"<td>{escape(deciding)}</td>"
            f'<td class="num" data-sort="{t.recommended_consumers or 0}"'
            f"{_title(t.consumers_basis if t.recommended_consumers is not None else None)}>"
            f"{fmt_count(t.recommended_consumers)}</td>"
            f"<td>{escape(t.strategy or _DASH)}</td>"
            f'<td class="num" data-sort="{"" if now is None else f"{now:.3f}"}">'
            f"{escape(headroom)}</td>"
            f'<td class="num" data-sort="{len(sentences)}">{warnings}</td></tr>'
        )
    heads = [
        ("Topic", "text", ""),
        ("Status", "number", ""),
        ("Partitions", "number", "num"),
        ("Deciding", "text", ""),
        ("Consumers", "number", "num"),
        ("Strategy", "text", ""),
        ("Headroom", "number", "num"),
        ("Warnings", "number", "num"),
    ]
    head = "".join(
        f'<th scope="col" class="{css}" data-type="{kind}"><button type="button">'
        f"{escape(label)}</button></th>"
        for label, kind, css in heads
    )
    present = [s for s in STATUS_RANK if report.count(s)]
    options = "".join(
        f'<option value="{escape(s)}">{escape(STATUS_LABELS[s][0])} ({report.count(s):,})</option>'
        for s in present
    )
    # Topics read by a group of each protocol (the counts are groups, each once).
    protocol_options = "".join(
        f'<option value="{escape(p)}">{escape(p)} ({n:,} group{"" if n == 1 else "s"})</option>'
        for p, n in report.protocol_counts().items()
    )
    controls = (
        '<div class="controls" id="controls" hidden>'
        '<label>Filter <input id="filter" type="search" autocomplete="off" '
        'placeholder="topic, strategy, warning text"></label>'
        '<label>Status <select id="status-filter"><option value="">all</option>'
        f"{options}</select></label>"
        '<label>Read by a group of protocol <select id="protocol-filter">'
        f'<option value="">any</option>{protocol_options}</select></label>'
        f'<span id="shown" aria-live="polite">{len(report.topics):,} topics</span></div>'
    )
    caption = (
        "<p class='muted'>Partitions: now \u2192 recommended. Deciding: the dimension and "
        "side whose requirement sets the count. Consumers: members one group reading only "
        "this topic needs for today's peak, with the strategy beside it. Headroom: spare "
        "capacity over today's peak, now \u2192 at the recommended count, if the load "
        "spread evenly, in the tightest dimension (negative: over capacity).</p>"
    )
    return (
        f'<h2 id="topics-heading">All topics</h2>\n{caption}\n{controls}\n'
        f'<div class="wide"><table id="topics" aria-labelledby="topics-heading">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _new_topics(report: FleetReport) -> str:
    # The creation plans published beside this fleet report, each linked to its page.
    if not report.new_topics:
        return ""
    rows = []
    for n in report.new_topics:
        name = f'<a href="{escape(n.href)}">{escape(n.topic)}</a>' if n.href else escape(n.topic)
        what = (
            creation.create_headline(n.topic, partitions=n.partitions, replication_factor=None)
            if n.status == "create" and n.partitions is not None
            else STATUS_LABELS.get(n.status, (n.status, ""))[1]
        )
        rows.append(
            f"<tr><td>{name}</td><td>{escape(what)}</td>"
            f"<td>{n.requested_at:%Y-%m-%d %H:%M} UTC"
            + (" <strong>(since the last run)</strong>" if n.since_last_run else "")
            + "</td></tr>"
        )
    return (
        '<h2 id="new-topics">New topics planned</h2>\n'
        "<p class='muted'>Creation plans made with <code>plan_new_topic</code>, newest first: "
        "topics that did not exist when they were planned. Once created, a topic joins this "
        "report with its own figures.</p>"
        "<table><thead><tr><th>Topic</th><th>Plan</th><th>Requested</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _header(report: FleetReport) -> str:
    s = report.settings
    settings = (
        f"peak = p{s.percentile:g} of the samples \u00b7 "
        f"{s.headroom_pct:g} % headroom \u00b7 {s.horizon_days:g}-day horizon \u00b7 growth "
        f"{escape(s.growth_model)} (at least {s.floor_growth_per_year:+.0%}/year) \u00b7 "
        f"even counts up to {s.evenness_slack_pct:g} % above the rule, capped at "
        f"{s.max_partitions:,} partitions \u00b7 at least {s.min_group_members} "
        f"member{'' if s.min_group_members == 1 else 's'} per consumer group"
    )
    r = report.request
    if r is not None:
        # A creation plan answers a request: who asked is not known, when and what is.
        run = f" (Airflow run <code>{escape(r.run_id)}</code>)" if r.run_id else ""
        back = (
            f'<nav class="crumbs"><a href="{escape(r.fleet_link)}">\u2190 Fleet report</a></nav>\n'
            if r.fleet_link
            else ""
        )
        return (
            f"{back}<h1>{escape(report.title)}</h1>\n"
            f'<p class="meta">Requested {r.requested_at:%Y-%m-%d %H:%M} UTC{run} \u00b7 '
            f"generated {report.generated_at:%Y-%m-%d %H:%M} UTC<br>"
            f"Request: {escape(creation.request_summary(r.parameters))}<br>{settings}</p>"
        )
    rejected = {r.table: r.rows for r in report.rejected}
    inputs = " \u00b7 ".join(
        f"{escape(table)} {rows:,}"
        + (f" ({rejected[table]:,} rejected)" if rejected.get(table) else "")
        for table, rows in report.input_rows.items()
    )
    return (
        f"<h1>{escape(report.title)}</h1>\n"
        f'<p class="meta">Run <code>{escape(report.run_key)}</code> \u00b7 data interval '
        f"{report.interval_start:%Y-%m-%d %H:%M} to {report.interval_end:%Y-%m-%d %H:%M} UTC"
        f" \u00b7 generated {report.generated_at:%Y-%m-%d %H:%M} UTC<br>"
        f"{len(report.topics):,} topic{'' if len(report.topics) == 1 else 's'} \u00b7 "
        f"{settings}" + (f"<br>Input rows: {inputs}" if inputs else "") + "</p>"
    )


def index_page(report: FleetReport, pages: dict[str, str]) -> str:
    """The index page's HTML.

    Args:
        report: The report.
        pages: Topic -> page file name (from `page_names`).
    """
    header = _header(report)
    footer = (
        '<footer>For machines: <a href="recommendations.json">recommendations.json</a> \u00b7 '
        'for a ticket or chat: <a href="summary.md">summary.md</a></footer>'
    )
    body = "\n".join(
        part
        for part in (
            header,
            _glance(report, pages),
            _new_topics(report),
            _groups(report, pages),
            _missing(report, pages),
            _table(report, pages),
            footer,
        )
        if part
    )
    title = report.title if report.creation else f"{report.title}: run {report.run_key}"
    return page(title, body, with_script=True)
