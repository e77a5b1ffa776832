"""A topic's charts, from its `TopicReport`: each a `<figure>` with inline SVG.

- Throughput history per dimension, with the peak, the target, and what the current
  and recommended partition counts carry.
- Busiest member's load against group size, one line per strategy, with one
  consumer's capacity, the headroom limit and the recommended group size.
- Per-partition load of a keyed topic, partitions holding a hot key marked.
- Rebalance churn per strategy when one member joins or leaves.
"""

from __future__ import annotations

from html import escape

from planner.report import svg
from planner.report.model import DIMENSION_UNITS, TopicReport

__all__ = ["churn_chart", "member_load_chart", "partition_load_chart", "throughput_charts"]

_PERCENT_CEILING = 3.0  # member/partition loads above 300 % of Tc are drawn at the edge
# A capacity line more than this many times the target (or the highest sample) is not
# drawn on a throughput chart: it would squash the samples.
_CAPACITY_SCALE = 3.0


def _figure(title: str, chart: str, caption: str) -> str:
    return (
        f"<figure>\n<h3>{escape(title)}</h3>\n{chart}\n"
        f"<figcaption>{escape(caption)}</figcaption>\n</figure>"
    )


def throughput_charts(t: TopicReport, percentile: float) -> list[str]:
    """One chart per measured dimension of the history (MiB/s in, records/s in).

    Args:
        t: The topic.
        percentile: The percentile the peak was taken at (for the label).
    """
    if t.history is None or not t.history.ts_s:
        return []
    arithmetic = {d.dimension: d for d in t.dimensions}
    figures = []
    for dimension in ("mib_in", "records_in"):
        values = getattr(t.history, dimension)
        if not values:
            continue
        unit = DIMENSION_UNITS[dimension]
        rules: list[svg.Rule] = []
        off_scale: list[str] = []
        d = arithmetic.get(dimension)
        if d is not None:
            rules.append(svg.Rule(f"p{percentile:g} peak", d.peak, "peak"))
            rules.append(svg.Rule("target", d.target, "target"))
            cap = d.partition_capacity
            # A count that carries many times the traffic would flatten the samples
            # into the floor: such a line is left off the scale and named instead.
            ceiling = _CAPACITY_SCALE * max(d.target, max((v for v in values if v), default=0))
            counts: list[tuple[svg.RuleKind, int | None]] = [("capacity", t.current_partitions)]
            if t.recommended_partitions != t.current_partitions:
                counts.append(("limit", t.recommended_partitions))
            for kind, count in counts:
                if cap is None or count is None:
                    continue
                label = f"{count:,} partition{'' if count == 1 else 's'} carry"
                scale = count * cap <= ceiling
                if not scale:
                    off_scale.append(f"{label} {svg.format_value(count * cap)} {unit}")
                rules.append(svg.Rule(label, count * cap, kind, scale=scale))
        description = f"{unit} per sample over the data window, {len(values)} samples."
        if d is not None:
            description += (
                f" Peak {svg.format_value(d.peak)}, target {svg.format_value(d.target)} "
                f"(grown to the end of the horizon, plus {d.headroom_pct:g} % headroom)."
            )
        title = f"{unit}: history and target"
        chart = svg.line_chart(
            f"chart-throughput-{dimension}",
            title,
            description,
            x_axis=svg.Axis("time (UTC)", "time"),
            y_axis=svg.Axis(unit),
            lines=[svg.Line(unit, t.history.ts_s, values)],
            rules=rules,
        )
        caption = (
            f"{unit} over the data window. The target is what the partitions must carry at "
            f"the end of the horizon; a partition carries the slower of Tp and Tc."
        )
        if off_scale:
            caption += (
                " Above this scale, not drawn: "
                + "; ".join(off_scale)
                + f" (more than {_CAPACITY_SCALE:g}x the target)."
            )
        figures.append(_figure(title, chart, caption))
    return figures


def member_load_chart(t: TopicReport) -> str | None:
    """Busiest member's load against group size per strategy, or None."""
    m = t.member_load
    if m is None or not m.curves:
        return None
    same: list[str] = []
    seen: dict[tuple[float, ...], str] = {}
    for curve in m.curves:
        if curve.busiest_load in seen:
            same.append(f"{curve.strategy} matches {seen[curve.busiest_load]}")
        else:
            seen[curve.busiest_load] = curve.strategy
    markers = []
    if t.one_group_consumers:
        markers.append(
            svg.Marker(f"one group, today: {t.one_group_consumers}", t.one_group_consumers)
        )
    description = (
        f"Load of the busiest member at {m.load_basis}, as a share of one consumer's "
        f"capacity (Tc), for each group size and assignment strategy at {m.partitions} "
        f"partitions."
    )
    if same:
        description += " Lines that coincide: " + "; ".join(same) + "."
    title = f"Busiest member's load against group size at {m.partitions} partitions"
    chart = svg.line_chart(
        "chart-member-load",
        title,
        description,
        x_axis=svg.Axis("members in the group", integer=True),
        y_axis=svg.Axis(
            "busiest member, share of Tc",
            "percent",
            max_value=max(_PERCENT_CEILING, 1.5 * m.load_limit),
        ),
        lines=[svg.Line(c.strategy, c.members, c.busiest_load) for c in m.curves],
        rules=[
            svg.Rule("one consumer's capacity", 1.0, "capacity"),
            svg.Rule("limit with headroom", m.load_limit, "limit"),
        ],
        markers=markers,
    )
    caption = (
        "A group fits where its line is under the headroom limit. "
        "range can leave one member with more than the others; sticky and "
        "cooperative-sticky deal a fresh group like roundrobin."
    )
    if same:
        caption += " Coinciding lines: " + "; ".join(same) + "."
    return _figure(title, chart, caption)


def partition_load_chart(t: TopicReport) -> str | None:
    """Per-partition load with hot-key partitions marked (keyed topics), or None."""
    p = t.partition_load
    if p is None:
        return None
    hot = p.hot_partitions
    categories = [str(i) for i in range(len(p.loads))]
    normal = [None if i in hot else v for i, v in enumerate(p.loads)]
    series = [svg.BarSeries("partition", normal)]
    if hot:
        marked = [v if i in hot else None for i, v in enumerate(p.loads)]
        series.append(svg.BarSeries("partition holding a hot key", marked, emphasis=True))
    busiest = max(range(len(p.loads)), key=lambda i: p.loads[i])
    description = (
        f"Load of each of the {len(p.loads)} partitions at {p.load_basis}, as a share of "
        f"one consumer's capacity (Tc). Busiest: partition {busiest} at "
        f"{svg.format_value(p.loads[busiest], 'percent')}."
    )
    for h in p.hot_keys:
        name = "the null key" if h.key is None else f"key {h.key!r}"
        where = "spread by the client" if h.partition is None else f"partition {h.partition}"
        description += f" Hot: {name}, {h.share:.1%} of records, on {where}."
    title = f"Load per partition at {len(p.loads)} partitions"
    chart = svg.bar_chart(
        "chart-partition-load",
        title,
        description,
        categories=categories,
        series=series,
        y_axis=svg.Axis("partition load, share of Tc", "percent", max_value=_PERCENT_CEILING),
        x_title="partition",
        rules=[
            svg.Rule("one consumer's capacity", 1.0, "capacity"),
            svg.Rule("limit with headroom", p.load_limit, "limit"),
        ],
        overlay=True,
    )
    caption = (
        "Keys hash to partitions, so partitions do not carry equal load. A partition is read "
        "by one member: a bar above the capacity line cannot keep up with any group size."
    )
    return _figure(title, chart, caption)


def churn_chart(t: TopicReport) -> str | None:
    """Partitions moved and revoked per strategy when a member joins or leaves, or None."""
    c = t.churn
    if c is None or not c.rows:
        return None
    strategies = [r.strategy for r in c.rows]
    title = f"Rebalance churn with {c.members} members at {c.partitions} partitions"
    chart = svg.bar_chart(
        "chart-churn",
        title,
        f"Partitions revoked and moved per strategy when a group of {c.members} members "
        f"gains or loses one member, at {c.partitions} partitions. Revoked partitions "
        f"stop being consumed until the rebalance completes.",
        categories=strategies,
        series=[
            svg.BarSeries("revoked on join", [float(r.join_revoked) for r in c.rows]),
            svg.BarSeries("moved on join", [float(r.join_moved) for r in c.rows]),
            svg.BarSeries("revoked on leave", [float(r.leave_revoked) for r in c.rows]),
            svg.BarSeries("moved on leave", [float(r.leave_moved) for r in c.rows]),
        ],
        y_axis=svg.Axis("partitions", integer=True),
        x_title="assignment strategy",
        value_labels=True,
    )
    caption = (
        "Eager strategies (range, roundrobin, sticky) revoke every partition in every "
        "rebalance; cooperative-sticky revokes only those that move."
    )
    return _figure(title, chart, caption)
