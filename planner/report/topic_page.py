"""A topic's page: the recommendation, the arithmetic behind it, the cost, the charts."""

from __future__ import annotations

from datetime import datetime
from html import escape

from planner.changes.decide import alter_command
from planner.group_labels import CAPACITY_SOURCE_WORDS
from planner.recommend import creation
from planner.recommend.consumer_capacity import AT_LEAST_SOURCES
from planner.report import charts
from planner.report.cross_zone import cross_zone_section
from planner.report.layout import (
    STATUS_LABELS,
    fmt_count,
    fmt_duration,
    fmt_headroom,
    fmt_needed_by,
    fmt_pct,
    fmt_rate,
    page,
    status_badge,
)
from planner.report.model import (
    DIMENSION_UNITS,
    ClusterReplicas,
    DimensionArithmetic,
    FleetReport,
    GroupReport,
    TopicReport,
)
from planner.report.names import topic_href
from planner.report.standbys import standbys_section

__all__ = ["topic_page"]

_DASH = "\u2014"
_SEP = " \u00b7 "
_MIB = 2**20


def _current(t: TopicReport) -> str:
    if t.current_partitions is not None:
        return fmt_count(t.current_partitions)
    # No topics row: the count is unknown, not zero, and the topic is not a new one.
    return "not in the topics table" if t.status == "unknown-topic" else "new topic"


def _headline(t: TopicReport, data_end: datetime) -> str:
    cells: list[tuple[str, str, str]] = []
    current = _current(t)
    if t.recommended_partitions is not None:
        need = (
            f"rule: {fmt_count(t.required_partitions_now)} today, "
            f"{fmt_count(t.required_partitions)} at the horizon"
        )
        change = (
            f"{current}, no change"
            if t.recommended_partitions == t.current_partitions
            else f"create with {fmt_count(t.recommended_partitions)}"
            if t.status == "create"
            else f"{current} \u2192 {fmt_count(t.recommended_partitions)}"
        )
        cells.append(("Partitions", change, need))
    else:
        cells.append(("Partitions", current, "no recommendation"))
    lasts = t.current_count_lasts_days
    if lasts is not None and t.current_partitions is not None:
        cells.append(
            (
                "Needed by",
                fmt_needed_by(lasts, data_end),
                f"when today's {fmt_count(t.current_partitions)} no longer carry the growing "
                "peak plus headroom (even spread)",
            )
        )
    if t.recommended_consumers is not None:
        value = fmt_count(t.recommended_consumers)
        if t.standby_consumers:
            value += f" ({t.standby_consumers:,} standing by)"
        cells.append(("Consumers", value, t.consumers_basis))
    if t.deciding is not None:
        cells.append(
            (
                "Deciding",
                DIMENSION_UNITS[t.deciding.dimension],
                f"{t.deciding.side} side" if t.deciding.side != "both" else "both sides tie",
            )
        )
    now = t.spare_pct(t.current_partitions)
    later = t.spare_pct(t.recommended_partitions)
    if now is not None or later is not None:
        plural = "" if t.recommended_partitions == 1 else "s"
        note = f"{fmt_headroom(later)} at {fmt_count(t.recommended_partitions)} partition{plural}"
        loads = t.partition_load
        if loads is not None:
            # The keys do not spread evenly: what the headroom's even spread hides.
            note += (
                f" if spread evenly; by its keys the busiest carries "
                f"{fmt_pct(max(loads.loads), fraction=True)} of one consumer (Tc) today"
            )
        else:
            note += " (even spread)"
        cells.append(("Headroom over today's peak", fmt_headroom(now), note))
    return (
        '<div class="headline">'
        + "".join(
            f"<div>{escape(label)}<b>{escape(value)}</b>"
            f'<span class="muted">{escape(note)}</span></div>'
            for label, value, note in cells
        )
        + "</div>"
    )


def _facts(t: TopicReport) -> str:
    if t.status == "unknown-topic":
        # Without a topics row the model's defaults (keyless, murmur2_random) are guesses.
        facts = ["keys, partitioner and replication factor unknown (no topics row)"]
    else:
        facts = [
            "keyed (per-key order matters)" if t.keyed else "keyless",
            f"partitioner {t.partitioner}",
            f"replication factor {fmt_count(t.replication_factor)}",
        ]
    if t.capacity_source:
        # A creation plan's source is a sentence of its own (the request, or its files).
        facts.append(
            t.capacity_source if t.status == "create" else f"Tp/Tc measured by {t.capacity_source}"
        )
    return f'<p class="meta">{escape(_SEP.join(facts))}</p>'


def _create(t: TopicReport, p: int) -> str:
    c = t.cost
    cost = (
        "<p><strong>Cost:</strong> "
        + escape(
            creation.create_cost(
                partitions=p,
                replicas_total=c.replicas_total,
                replicas_per_broker=c.replicas_per_broker,
                replicas_per_broker_limit=c.replicas_per_broker_limit,
                producer_batch_memory_bytes=c.producer_batch_memory_bytes,
                consumer_threads=c.consumer_threads,
            )
        )
        + ' (<a href="#cost">the cost panel</a>).</p>'
        if c is not None
        else ""
    )
    headline = creation.create_headline(
        t.topic, partitions=p, replication_factor=t.replication_factor
    )
    command = creation.create_command(
        t.topic, partitions=p, replication_factor=t.replication_factor
    )
    return (
        f'<h2 id="apply">To create</h2><p class="plan"><strong>{escape(headline)}</strong></p>'
        "<p>With Kafka's command-line tools (<code>BOOTSTRAP_SERVERS</code>: the "
        "cluster's brokers; add <code>--command-config</code> with the client settings "
        "of a secured cluster):</p>"
        f'<pre class="command"><code>{escape(command)}</code></pre>{cost}'
    )


def _apply(t: TopicReport) -> str:
    # The command that makes the recommended count real; nothing to run when it is
    # already the topic's count.
    p = t.recommended_partitions
    if p is None or not t.planned or p == t.current_partitions:
        return ""
    if t.status == "create":
        return _create(t, p)
    if t.current_partitions is None:
        command = creation.create_command(
            t.topic, partitions=p, replication_factor=t.replication_factor
        )
    else:
        command = alter_command(t.topic, partitions=p)
    keyed = (
        " Keyed topic: most keys move to another partition with the new count; follow the "
        "warning below to keep per-key order."
        if t.keyed and t.current_partitions is not None
        else ""
    )
    return (
        '<h2 id="apply">To apply</h2>'
        "<p>With Kafka's command-line tools (<code>BOOTSTRAP_SERVERS</code>: the "
        "cluster's brokers; add <code>--command-config</code> with the client settings "
        f"of a secured cluster).{escape(keyed)}</p>"
        f'<pre class="command"><code>{escape(command)}</code></pre>'
    )


def _warnings(t: TopicReport) -> str:
    parts = []
    if t.error:
        parts.append(
            f'<div class="error-box"><strong>{escape(STATUS_LABELS[t.status][0])}:</strong> '
            f"{escape(t.error)}</div>"
        )
    # A topic without a plan usually carries its reason as a warning too: say it once.
    warnings = [w for w in t.warning_sentences if w != t.error]
    if warnings:
        parts.append(
            '<h2 id="warnings">Warnings</h2><ul class="warnings">'
            + "".join(f"<li>{escape(w)}</li>" for w in warnings)
            + "</ul>"
        )
    return "\n".join(parts)


def _standby(count: int) -> str:
    # Members the minimum group size plans beyond the partitions, beside the size.
    return f'<br><span class="muted">{count:,} standing by</span>' if count else ""


def _capacity_cell(g: GroupReport) -> str:
    # The Tc its members were sized with, and where it comes from in two words.
    c = g.consumer_capacity
    if c is None:
        return "\u2014"
    figure = (
        f"{fmt_rate(c.records_per_s)} records/s"
        if c.records_per_s is not None
        else fmt_rate(c.mib_per_s, "mib_in")
    )
    if c.source in AT_LEAST_SOURCES:
        figure = "\u2265 " + figure
    words = CAPACITY_SOURCE_WORDS.get(c.source, c.source)
    return f'{figure}<br><span class="muted">{escape(words)}</span>'


def _capacity_notes(g: GroupReport) -> list[str]:
    # The evidence behind a Tc of its own, and what the topic's Tc would have asked for.
    c = g.consumer_capacity
    if c is None or c.source == "topic-default":
        return []
    out = [f"its Tc: {c.evidence}" if c.evidence else f"its Tc is {c.source}"]
    if c.members_now_at_topic_tc is not None and c.members_now_at_topic_tc != g.members_now:
        out.append(
            f"sized with the topic's Tc instead, today's load would need "
            f"{c.members_now_at_topic_tc:,} member{'' if c.members_now_at_topic_tc == 1 else 's'}"
            f" (with its own: {fmt_count(g.members_now)})"
        )
    return [escape(n) for n in out]


def _lag_cell(g: GroupReport) -> str:
    # Records and seconds behind at the figures' end, and which way it went.
    lag = g.lag
    if lag is None:
        return "\u2014"
    records = "\u2014" if lag.records is None else f"{lag.records:,.0f} records"
    trend = f'<br><span class="muted">{escape(lag.trend)}</span>' if lag.trend else ""
    return f"{records}<br>{fmt_duration(lag.seconds)} behind{trend}"


def _group_rows(g: GroupReport, topic: str, links: dict[str, str], *, with_lag: bool) -> str:
    # Its protocol and assignor today, the one recommended, and what the plan ran.
    strategy = escape(g.label())
    notes = [escape(n) for n in g.note_sentences] + _capacity_notes(g)
    others = [name for name in g.topics if name != topic]
    if others:
        listed = ", ".join(
            f'<a href="{escape(topic_href(links[name], from_topics_dir=True))}">{escape(name)}</a>'
            if name in links
            else escape(name)
            for name in others
        )
        notes.append(f"also reads {listed}")
    members = (
        escape(creation.deploy_headline(members=g.recommended_members, standby=0))
        if g.status == "deploy" and g.recommended_members is not None
        else f"{g.current_members:,} \u2192 {fmt_count(g.recommended_members)}"
    )
    lag = f'<td class="num">{_lag_cell(g)}</td>' if with_lag else ""
    row = (
        f"<tr><td><code>{escape(g.group_id)}</code></td><td>{status_badge(g.status)}</td>"
        f'<td class="num">{members}{_standby(g.standby_members)}</td>'
        f'<td class="num">{fmt_count(g.members_now)} / {fmt_count(g.members_at_horizon)}</td>'
        f'<td class="num">{fmt_pct(g.busiest_utilisation, fraction=True)}</td>'
        f'<td class="num">{_capacity_cell(g)}</td>{lag}'
        f"<td>{strategy}</td></tr>"
    )
    if notes:
        row += (
            f'<tr class="notes"><td></td><td colspan="{7 if with_lag else 6}"><ul class="plain">'
            + "".join(f"<li>{n}</li>" for n in notes)
            + "</ul></td></tr>"
        )
    return row


def _groups(t: TopicReport, links: dict[str, str]) -> str:
    if not t.groups:
        return ""
    # The lag column only where some group on the topic was observed.
    with_lag = any(g.lag is not None for g in t.groups)
    rows = "".join(_group_rows(g, t.topic, links, with_lag=with_lag) for g in t.groups)
    return (
        '<h2 id="groups">Consumer groups</h2>'
        "<table><thead><tr><th>Group</th><th>Status</th>"
        '<th class="num">Members: now \u2192 to run</th>'
        '<th class="num">Needed: today / at horizon</th>'
        '<th class="num">Busiest member at today\'s need</th>'
        '<th class="num">Tc per member</th>'
        + ('<th class="num">Lag at the end</th>' if with_lag else "")
        + "<th>Protocol / assignor</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def _alternatives(t: TopicReport) -> str:
    # Other group protocols for the topic's classic groups, rendered from their codes.
    sentences = t.alternative_sentences
    if not sentences:
        return ""
    return (
        '<h2 id="alternatives">Other protocols</h2><ul class="alternatives">'
        + "".join(f"<li>{escape(a)}</li>" for a in sentences)
        + "</ul>"
    )


_SCOPES = {"topic": "topic's own row", "*": "default row *"}


def _scope(d: DimensionArithmetic) -> str:
    tc = _SCOPES[d.capacity_scope] if d.capacity_scope else None
    if d.producer_scope is None or d.producer_scope == d.capacity_scope:
        return tc or _DASH
    return f"Tp: {_SCOPES[d.producer_scope]}, Tc: {tc or 'none'}"


def _arithmetic(t: TopicReport, percentile: float) -> str:
    if not t.dimensions:
        return ""
    targets = "".join(
        f"<tr><th scope='row'>{escape(d.unit)}</th>"
        f'<td class="num">{fmt_rate(d.peak)}</td>'
        f'<td class="num">{d.growth_per_year:+.1%}</td><td>{escape(d.growth_method)}</td>'
        f'<td class="num">\u00d7{d.growth_factor:.3f}</td>'
        f'<td class="num">{fmt_rate(d.grown)}</td><td class="num">+{d.headroom_pct:g} %</td>'
        f'<td class="num"><strong>{fmt_rate(d.target)}</strong></td></tr>'
        for d in t.dimensions
    )
    rule_rows = []
    for d in t.dimensions:
        deciding = t.deciding is not None and t.deciding.dimension == d.dimension
        mark = " (decides)" if deciding else ""
        scope = _scope(d)
        rule_rows.append(
            f"<tr><th scope='row'>{escape(d.unit + mark)}</th>"
            f'<td class="num">{fmt_rate(d.target)}</td>'
            f'<td class="num">{fmt_rate(d.producer_capacity)}</td>'
            f'<td class="num">{fmt_count(d.producer_partitions)}</td>'
            f'<td class="num">{fmt_rate(d.consumer_capacity)}</td>'
            f'<td class="num">{fmt_count(d.consumer_partitions)}</td>'
            f"<td>{escape(scope)}</td>"
            f'<td class="num"><strong>{fmt_count(d.required)}</strong></td>'
            f"<td>{escape(d.side or 'no capacity: skipped')}</td></tr>"
        )
    candidates = "".join(
        f'<tr><td class="num">{c.partitions:,}</td>'
        f"<td>{escape(', '.join(str(s) for s in c.even_group_sizes))}</td>"
        f'<td class="num">{len(c.even_group_sizes)}</td>'
        f"<td>{'<strong>chosen</strong>' if c.chosen else ''}</td></tr>"
        for c in t.candidates
    )
    parts = [
        '<h2 id="why">How the number was reached</h2>',
        f"<h3>Targets: p{percentile:g} peak, grown to the end of the horizon, plus headroom</h3>",
        "<table><thead><tr><th>Dimension</th><th class='num'>Peak</th>"
        "<th class='num'>Growth / year</th><th>Growth from</th>"
        "<th class='num'>Over the horizon</th><th class='num'>Grown</th>"
        "<th class='num'>Headroom</th><th class='num'>Target</th></tr></thead>"
        f"<tbody>{targets}</tbody></table>",
        f"<h3>The rule</h3><p>{escape(t.rule)}.</p>",
        "<table><thead><tr><th>Dimension</th><th class='num'>Target</th>"
        "<th class='num'>Tp per partition</th><th class='num'>ceil(target / Tp)</th>"
        "<th class='num'>Tc per partition</th><th class='num'>ceil(target / Tc)</th>"
        "<th>Tp/Tc from</th><th class='num'>Needs</th><th>Side</th></tr></thead>"
        f"<tbody>{''.join(rule_rows)}</tbody></table>",
    ]
    if candidates:
        parts.append(
            "<h3>Candidates</h3><table><thead><tr><th class='num'>Partitions</th>"
            "<th>Splits evenly over group sizes</th><th class='num'>Even sizes</th><th></th>"
            f"</tr></thead><tbody>{candidates}</tbody></table>"
        )
    if t.choice_reason:
        parts.append(f"<p><strong>Why this one:</strong> {escape(t.choice_reason)}.</p>")
    if t.rationale:
        parts.append(
            '<h3>In words</h3><ol class="why">'
            + "".join(f"<li>{escape(s)}</li>" for s in t.rationale)
            + "</ol>"
        )
    return "\n".join(parts)


def _cost(t: TopicReport, cluster: ClusterReplicas | None) -> str:
    c = t.cost
    if c is None:
        return ""
    whole = (
        f"; whole cluster: {cluster.per_broker_now:,} today, {cluster.per_broker_planned:,} "
        "with every recommendation"
        if cluster is not None
        else ""
    )
    rows = [
        (
            "Producer batch memory",
            f"{c.producer_batch_memory_bytes / _MIB:,.2f} MiB",
            f"{c.producer_buffer_share:.1%} of buffer.memory",
        ),
        (
            "Replicas per broker",
            f"{c.replicas_per_broker:,}",
            f"this topic's; limit {c.replicas_per_broker_limit:,}{whole}; latency rule of "
            f"thumb {c.latency_rule_limit:,}",
        ),
        ("Replicas in total", f"{c.replicas_total:,}", ""),
        (
            (
                "After a broker failure",
                f"{c.leaders_per_broker:,} leader{'' if c.leaders_per_broker == 1 else 's'} "
                "to elect",
                f"about {c.election_unavailability_ms:,.0f} ms of unavailability",
            )
            if c.election_unavailability_ms is not None
            else (
                "After a broker failure",
                f"up to {c.leaders_per_broker:,} partition"
                f"{'' if c.leaders_per_broker == 1 else 's'} offline",
                "until the broker returns: replication factor 1 leaves no replica to elect",
            )
        ),
        (
            "File handles per broker",
            f"{c.file_handles_per_broker:,}",
            f"{c.segments_per_replica:,} segment(s) per replica",
        ),
        ("Consumer threads", f"{c.consumer_threads:,}", "for one group to read in full parallel"),
    ]
    body = "".join(
        f"<tr><th scope='row'>{escape(a)}</th><td class='num'>{escape(b)}</td>"
        f"<td>{escape(n)}</td></tr>"
        for a, b, n in rows
    )
    warnings = (
        '<ul class="warnings">' + "".join(f"<li>{escape(w)}</li>" for w in c.warnings) + "</ul>"
        if c.warnings
        else ""
    )
    return (
        f'<h2 id="cost">Cost of {c.partitions:,} partitions</h2>'
        f"<table><tbody>{body}</tbody></table>{warnings}"
    )


def _charts(t: TopicReport, percentile: float) -> str:
    figures = [
        *charts.throughput_charts(t, percentile),
        charts.member_load_chart(t),
        charts.partition_load_chart(t),
        charts.churn_chart(t),
    ]
    present = [f for f in figures if f]
    if not present:
        return ""
    return '<h2 id="charts">Charts</h2>\n' + "\n".join(present)


def topic_page(t: TopicReport, report: FleetReport, pages: dict[str, str]) -> str:
    """A topic page's HTML (it lives in `topics/`).

    Args:
        t: The topic.
        report: The report it belongs to (run, settings).
        pages: Topic -> page file name, to link other topics of multi-topic groups.
    """
    percentile = report.settings.percentile
    r = report.request
    crumbs = (
        f'<a href="../index.html">\u2190 Creation plan</a> \u00b7 requested '
        f"{r.requested_at:%Y-%m-%d %H:%M} UTC"
        + (f' \u00b7 <a href="../{escape(r.fleet_link)}">Fleet report</a>' if r.fleet_link else "")
        if r is not None
        else f'<a href="../index.html">\u2190 All topics</a> \u00b7 run '
        f"<code>{escape(report.run_key)}</code>"
    )
    header = (
        f'<nav class="crumbs">{crumbs}</nav>\n'
        f"<h1>{escape(t.topic)}</h1>\n"
        f"<p>{status_badge(t.status)} {escape(STATUS_LABELS[t.status][1])}</p>\n" + _facts(t)
    )
    body = "\n".join(
        part
        for part in (
            header,
            _headline(t, report.interval_end),
            _apply(t),
            _warnings(t),
            _groups(t, pages),
            _alternatives(t),
            cross_zone_section(t),
            standbys_section(t),
            _arithmetic(t, percentile),
            _cost(t, report.cluster),
            _charts(t, percentile),
            '<footer><a href="../index.html">All topics</a> \u00b7 '
            '<a href="../recommendations.json">recommendations.json</a></footer>',
        )
        if part
    )
    return page(f"{t.topic}: {report.title}", body)
