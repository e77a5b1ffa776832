"""A topic page's "Cross-zone fetches" section: each group's bytes by zone, and the advice.

The figures are the plan's (`planner.cross_zone`, carried as `GroupReport.cross_zone`);
this only prints them. A group without a figure (brokers without racks, no replica
lists, a share group) is left out, and a topic none of whose groups has one gets no
section: where the racks are unknown the page says nothing about zones.
"""

from __future__ import annotations

from html import escape

from planner.report.model import CrossZoneReport, GroupReport, TopicReport

__all__ = ["cross_zone_section", "gib_text"]

_GIB = 2**30
_DASH = "\u2014"


def gib_text(n_bytes: float) -> str:
    """Bytes as GiB, as the report prints them: whole from 100 GiB, else two decimals."""
    gib = n_bytes / _GIB
    return f"{gib:,.0f} GiB" if gib >= 100 else f"{gib:,.2f} GiB"


def _crossing(cz: CrossZoneReport, cross_bytes: float, cost: float | None) -> str:
    # Without the members' racks every byte's zone is unknown: no figure to show.
    if not cz.evidence.member_racks:
        return "not known (no client.rack)"
    text = gib_text(cross_bytes)
    if cost is not None:
        text += f" ({cost:,.2f} a day)"
    return text


def _evidence(cz: CrossZoneReport) -> str:
    racks = ", ".join(f"{b.broker_id}: {b.rack or _DASH}" for b in cz.evidence.brokers)
    replicas = "; ".join(f"{r.topic} {r.replicas}" for r in cz.evidence.replicas)
    members = ", ".join(cz.evidence.member_racks) or _DASH
    new = (
        f"; {cz.evidence.new_partitions} planned partition(s) not created yet, zone unknown"
        if cz.evidence.new_partitions
        else ""
    )
    return (
        f"{cz.evidence.members} member(s) on {cz.evidence.strategy}, client.rack in turn: "
        f"{members}; brokers' racks {racks}; replicas (leader first) {replicas}{new}"
    )


def _row(g: GroupReport, cz: CrossZoneReport) -> str:
    leaders = _crossing(cz, cz.from_leaders.cross_zone_bytes_per_day, cz.leader_cost_per_day)
    followers = _crossing(
        cz, cz.follower_fetching.cross_zone_bytes_per_day, cz.follower_cost_per_day
    )
    return (
        f"<tr><td><code>{escape(g.group_id)}</code></td>"
        f'<td class="num">{gib_text(cz.bytes_per_day)}</td>'
        f'<td class="num">{escape(leaders)}</td><td class="num">{escape(followers)}</td>'
        f'<td class="evidence">{escape(_evidence(cz))}</td></tr>'
    )


def cross_zone_section(t: TopicReport) -> str:
    """The section's HTML, or "" when no group of the topic has a cross-zone figure."""
    located = [(g, g.cross_zone) for g in t.groups if g.cross_zone is not None]
    if not located:
        return ""
    price = next((cz.price_per_gib for _, cz in located if cz.price_per_gib is not None), None)
    priced = "" if price is None else f"; costs at {price:g} per GiB"
    advice = [n.sentence for _, cz in located for n in cz.advice]
    listed = (
        '<ul class="cross-zone-advice">'
        + "".join(f"<li>{escape(a)}</li>" for a in advice)
        + "</ul>"
        if advice
        else ""
    )
    return (
        '<h2 id="cross-zone">Cross-zone fetches</h2>'
        f"<p>Bytes each group fetches per day under its planned assignment, by where they "
        f"are fetched from (consumer fetches only{priced}).</p>"
        '<table><thead><tr><th>Group</th><th class="num">Reads a day</th>'
        '<th class="num">Across zones from leaders</th>'
        '<th class="num">Across zones with follower fetching</th><th>From</th>'
        f"</tr></thead><tbody>{''.join(_row(g, cz) for g, cz in located)}</tbody></table>" + listed
    )
