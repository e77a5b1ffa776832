"""Small inline SVG charts: a line chart and a bar chart, drawn at publish time.

The report must work offline and from `file://`, so charts are SVG text made here, not
a JavaScript library. Each chart is an `<svg role="img">` with a `<title>` and a
`<desc>` (read by screen readers, shown as a tooltip), axes with rounded ticks and their
unit, a legend in words, and every data series in its own `<g class="series">` so that
tests and style sheets can find them. Series differ by dash pattern as well as colour,
and reference lines (a target, a capacity) are labelled, so nothing relies on colour.

All text is escaped here; callers pass plain strings. Long series are thinned to a
minimum and a maximum per pixel column, so a year of per-minute samples stays a few
kilobytes and its peaks stay visible.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "Axis",
    "BarSeries",
    "Line",
    "Marker",
    "Rule",
    "bar_chart",
    "format_value",
    "line_chart",
    "nice_ticks",
    "thin",
    "time_ticks",
]

AxisKind = Literal["number", "percent", "time"]
RuleKind = Literal["target", "capacity", "limit", "peak"]

WIDTH = 720
_PLOT_HEIGHT = 240
_LEFT, _RIGHT, _TOP = 72, 20, 16
_X_AXIS_SPACE = 46  # tick labels and the axis title below the plot
_LEGEND_ROW = 18
_CHAR_PX = 6.6  # average width of a 12 px sans-serif character, for the legend layout
_DASHES = ("", "7 4", "2 3", "10 3 2 3", "4 2 4 6")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_TIME_STEPS_S = (
    60,
    300,
    900,
    1_800,
    3_600,
    3 * 3_600,
    6 * 3_600,
    12 * 3_600,
    86_400,
    2 * 86_400,
    7 * 86_400,
    14 * 86_400,
    28 * 86_400,
    91 * 86_400,
    364 * 86_400,
)

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Axis:
    """An axis: its title, how values read, and optional bounds.

    Attributes:
        title: Axis title including the unit (`MiB/s in`).
        kind: `number`, `percent` (values are fractions, shown as %) or `time` (seconds
            since the epoch, shown in UTC).
        max_value: Clip the axis here (values above are drawn at the edge and said so
            in the description); None: fit the data.
        integer: Values are counts: ticks at whole numbers only.
    """

    title: str
    kind: AxisKind = "number"
    max_value: float | None = None
    integer: bool = False


@dataclass(frozen=True)
class Line:
    """One data series of a line chart; None or NaN in `ys` breaks the line."""

    label: str
    xs: Sequence[float] | FloatArray
    ys: Sequence[float | None] | FloatArray
    step: bool = False


@dataclass(frozen=True)
class Rule:
    """A labelled horizontal reference line (a target, a capacity, a limit).

    `scale`: whether the y axis stretches to show it. A rule above the axis is left out
    of the plot and its legend, and named in the chart's description instead.
    """

    label: str
    value: float
    kind: RuleKind = "capacity"
    scale: bool = True


@dataclass(frozen=True)
class Marker:
    """A labelled vertical line at one x value (e.g. the recommended group size)."""

    label: str
    at: float


@dataclass(frozen=True)
class BarSeries:
    """One series of a bar chart: one value (or None) per category."""

    label: str
    values: Sequence[float | None]
    emphasis: bool = False


@dataclass
class _Frame:
    """Pixel mapping of one chart."""

    x_lo: float
    x_hi: float
    y_hi: float
    plot_width: float = WIDTH - _LEFT - _RIGHT
    plot_height: float = _PLOT_HEIGHT
    notes: list[str] = field(default_factory=list)

    def x(self, value: float) -> float:
        span = self.x_hi - self.x_lo or 1.0
        return _LEFT + (value - self.x_lo) / span * self.plot_width

    def y(self, value: float) -> float:
        clipped = min(max(value, 0.0), self.y_hi)
        return _TOP + self.plot_height - clipped / self.y_hi * self.plot_height


# ---------------------------------------------------------------------------------------
# Ticks and numbers


def nice_ticks(low: float, high: float, most: int = 6, *, integer: bool = False) -> list[float]:
    """Rounded tick values covering [low, high]: steps of 1, 2, 2.5 or 5 x 10^k.

    The first tick is at or below `low`, the last at or above `high`, and there are at
    most `most` + 1 of them. `integer` keeps to whole-number steps (for counts: no
    2.5 partitions).

    Example:
        >>> nice_ticks(0, 41.8)
        [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"tick range must be finite, got {low!r}..{high!r}")
    if high <= low:
        high = low + (abs(low) or 1.0)
    raw = (high - low) / max(1, most - 1)
    if integer:
        raw = max(raw, 1.0)
    exponent = math.floor(math.log10(raw))
    steps = (
        m * 10.0**e
        for e in range(exponent, exponent + 3)
        for m in (1.0, 2.0, 2.5, 5.0)
        if not (integer and m * 10.0**e != round(m * 10.0**e))
    )
    for step in steps:
        first = math.floor(low / step + 1e-9)
        last = math.ceil(high / step - 1e-9)
        if step >= raw and last - first <= most:
            break
    decimals = max(0, -math.floor(math.log10(step)) + 1)
    return [round(i * step, decimals) + 0.0 for i in range(first, last + 1)]


def time_ticks(low_s: float, high_s: float, most: int = 7) -> list[float]:
    """Tick times (seconds since the epoch) at round UTC steps: hours, days, weeks.

    Ticks fall on multiples of the step counted from the epoch (midnight UTC for day
    steps; Mondays for weeks).
    """
    span = max(high_s - low_s, 1.0)
    step = next((s for s in _TIME_STEPS_S if span / s <= most), _TIME_STEPS_S[-1])
    # 1970-01-01 was a Thursday: shift weekly ticks to Mondays.
    offset = 4 * 86_400 if step % (7 * 86_400) == 0 else 0
    first = math.ceil((low_s - offset) / step) * step + offset
    return [float(t) for t in range(int(first), int(high_s) + 1, step)]


def _time_label(ts_s: float, step_s: float) -> str:
    moment = datetime.fromtimestamp(ts_s, UTC)
    day = f"{_MONTHS[moment.month - 1]} {moment.day}"
    return day if step_s >= 86_400 else f"{day} {moment:%H:%M}"


def format_value(value: float, kind: AxisKind = "number", step: float | None = None) -> str:
    """A number as an axis or label shows it: compact, with only the decimals needed.

    Example:
        >>> format_value(72_243), format_value(0.769, "percent"), format_value(2.5)
        ('72.2k', '77%', '2.5')
    """
    if kind == "percent":
        pct = value * 100
        decimals = 0 if step is None or step * 100 >= 1 or pct == round(pct) else 1
        return f"{pct:.{decimals}f}%"
    magnitude = abs(value)
    for limit, unit, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if magnitude >= limit:
            return f"{value / unit:.3g}{suffix}"
    if step is not None and step > 0:
        # As many decimals as the step has (2.5 -> 1), so neighbouring ticks differ.
        written = f"{step:.10f}".rstrip("0")
        decimals = len(written.split(".")[1])
        return f"{value:,.{decimals}f}"
    if value == round(value) or magnitude >= 100:
        return f"{value:,.0f}"
    text = f"{value:.3g}"
    if "e" in text:  # below 0.0001: fixed notation, three significant figures
        text = f"{value:.{2 - math.floor(math.log10(magnitude))}f}"
    return text


# ---------------------------------------------------------------------------------------
# Thinning


def thin(
    xs: Sequence[float] | FloatArray, ys: Sequence[float | None] | FloatArray, columns: int
) -> tuple[FloatArray, FloatArray]:
    """At most about `2 x columns` points: the minimum and maximum of each x column.

    Points are bucketed by x into `columns` equal slices; each slice keeps its lowest
    and highest sample (in time order), so peaks and troughs survive. Missing values
    (None, NaN) are kept as NaN where a bucket has nothing else, so gaps stay gaps.
    """
    x = np.asarray(xs, dtype=np.float64)
    y = _floats(ys)
    if x.size != y.size:
        raise ValueError(f"{x.size} x values for {y.size} y values")
    if x.size <= 2 * columns or columns < 1:
        return x, y
    span = float(x[-1] - x[0]) or 1.0
    bucket = np.minimum(((x - x[0]) / span * columns).astype(np.int64), columns - 1)
    keep = np.zeros(x.size, dtype=bool)
    finite = np.isfinite(y)
    for b in np.unique(bucket):
        idx = np.flatnonzero(bucket == b)
        good = idx[finite[idx]]
        if good.size == 0:
            keep[idx[0]] = True  # a gap: keep one NaN so the line breaks
            continue
        keep[good[np.argmin(y[good])]] = True
        keep[good[np.argmax(y[good])]] = True
    return x[keep], y[keep]


# ---------------------------------------------------------------------------------------
# Drawing


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _open(chart_id: str, title: str, description: str, height: float) -> list[str]:
    cid = escape(chart_id)
    return [
        f'<svg class="chart" id="{cid}" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {WIDTH} {_num(height)}" width="{WIDTH}" height="{_num(height)}" '
        f'role="img" aria-labelledby="{cid}-title {cid}-desc">',
        f'<title id="{cid}-title">{escape(title)}</title>',
        f'<desc id="{cid}-desc">{escape(description)}</desc>',
    ]


def _y_axis(frame: _Frame, axis: Axis, ticks: Sequence[float]) -> list[str]:
    out = ['<g class="axis y-axis">']
    step = ticks[1] - ticks[0] if len(ticks) > 1 else None
    for t in ticks:
        y = _num(frame.y(t))
        out.append(
            f'<line class="grid" x1="{_LEFT}" x2="{_num(_LEFT + frame.plot_width)}" '
            f'y1="{y}" y2="{y}"/>'
            f'<text class="tick" x="{_LEFT - 6}" y="{y}" text-anchor="end" '
            f'dominant-baseline="middle">{escape(format_value(t, axis.kind, step))}</text>'
        )
    mid = _num(_TOP + frame.plot_height / 2)
    out.append(
        f'<text class="axis-title" x="14" y="{mid}" text-anchor="middle" '
        f'transform="rotate(-90 14 {mid})">{escape(axis.title)}</text></g>'
    )
    return out


def _x_axis(frame: _Frame, axis: Axis, ticks: Sequence[tuple[float, str]]) -> list[str]:
    base = _num(_TOP + frame.plot_height)
    out = [
        '<g class="axis x-axis">',
        f'<line class="baseline" x1="{_LEFT}" x2="{_num(_LEFT + frame.plot_width)}" '
        f'y1="{base}" y2="{base}"/>',
    ]
    for value, label in ticks:
        x = _num(frame.x(value))
        out.append(
            f'<line class="tick-mark" x1="{x}" x2="{x}" y1="{base}" '
            f'y2="{_num(_TOP + frame.plot_height + 4)}"/>'
            f'<text class="tick" x="{x}" y="{_num(_TOP + frame.plot_height + 17)}" '
            f'text-anchor="middle">{escape(label)}</text>'
        )
    out.append(
        f'<text class="axis-title" x="{_num(_LEFT + frame.plot_width / 2)}" '
        f'y="{_num(_TOP + frame.plot_height + 38)}" text-anchor="middle">'
        f"{escape(axis.title)}</text></g>"
    )
    return out


def _rules(frame: _Frame, rules: Sequence[Rule], axis: Axis) -> list[str]:
    out = []
    for rule in rules:
        y = _num(frame.y(rule.value))
        text = f"{rule.label}: {format_value(rule.value, axis.kind)}"
        if rule.value > frame.y_hi:
            frame.notes.append(f"{text} is above the top of the chart")
            if not rule.scale:
                continue
        out.append(
            f'<g class="ref ref-{rule.kind}" data-label="{escape(rule.label)}">'
            f"<title>{escape(text)}</title>"
            f'<line x1="{_LEFT}" x2="{_num(_LEFT + frame.plot_width)}" y1="{y}" y2="{y}"/>'
            f'<text x="{_num(_LEFT + frame.plot_width - 4)}" y="{_num(float(y) - 4)}" '
            f'text-anchor="end">{escape(text)}</text></g>'
        )
    return out


def _legend(entries: Sequence[tuple[str, str, str]], top: float) -> tuple[list[str], float]:
    """Legend rows under the plot; entries are (label, style classes, dash). Returns height.

    Entries are `<g class="key ...">`, never `series` or `ref`: those classes mark the
    plotted data only.
    """
    out = ['<g class="legend">']
    x, y = float(_LEFT), top
    for label, css, dash in entries:
        width = 30 + len(label) * _CHAR_PX + 18
        if x + width > WIDTH - _RIGHT and x > _LEFT:
            x, y = float(_LEFT), y + _LEGEND_ROW
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(
            f'<g class="key {css}"><line x1="{_num(x)}" x2="{_num(x + 24)}" y1="{_num(y)}" '
            f'y2="{_num(y)}"{dash_attr}/><text x="{_num(x + 30)}" y="{_num(y)}" '
            f'dominant-baseline="middle">{escape(label)}</text></g>'
        )
        x += width
    out.append("</g>")
    return out, y - top + _LEGEND_ROW


def _path(frame: _Frame, xs: FloatArray, ys: FloatArray, step: bool) -> str:
    """An SVG path through the finite points; a missing value lifts the pen."""
    drawn = np.isfinite(ys)
    if not drawn.any():
        return ""
    span = frame.x_hi - frame.x_lo or 1.0
    px = _LEFT + (xs[drawn] - frame.x_lo) / span * frame.plot_width
    py = _TOP + frame.plot_height * (1.0 - np.clip(ys[drawn], 0.0, frame.y_hi) / frame.y_hi)
    # A point starts a new stroke when the sample before it was missing (or it is first).
    starts = np.flatnonzero(~np.concatenate([[False], drawn[:-1]])[drawn])
    pairs = np.column_stack([px, py])
    # One %-format per stroke: far faster than formatting points one by one, and one
    # decimal is a tenth of a pixel.
    joint = "H%.1fV%.1f" if step else "L%.1f %.1f"
    strokes = []
    for begin, end in zip(starts, [*starts[1:], len(px)], strict=True):
        template = "M%.1f %.1f" + joint * int(end - begin - 1)
        strokes.append(template % tuple(pairs[begin:end].ravel().tolist()))
    return "".join(strokes)


def _floats(values: Sequence[float | None] | FloatArray) -> FloatArray:
    """Values as a float array, None as NaN."""
    if isinstance(values, np.ndarray):
        return values.astype(np.float64, copy=False)
    return np.array([np.nan if v is None else v for v in values], dtype=np.float64)


def _y_top(values: FloatArray, axis: Axis, frame_notes: list[str]) -> float:
    finite = values[np.isfinite(values)]
    top = float(finite.max()) if finite.size else 0.0
    if axis.max_value is not None and top > axis.max_value:
        frame_notes.append(
            f"values above {format_value(axis.max_value, axis.kind)} are drawn at the top edge"
        )
        top = axis.max_value
    return top if top > 0 else 1.0


def line_chart(
    chart_id: str,
    title: str,
    description: str,
    *,
    x_axis: Axis,
    y_axis: Axis,
    lines: Sequence[Line],
    rules: Sequence[Rule] = (),
    markers: Sequence[Marker] = (),
) -> str:
    """An SVG line chart with reference lines and markers.

    Args:
        chart_id: Element id, unique in the page (also prefixes the title/desc ids).
        title: Short title (the accessible name).
        description: What the chart shows, in a sentence or two.
        x_axis: The x axis (`time` for timestamps in seconds, or `number`).
        y_axis: The y axis; it always starts at zero, so heights compare honestly.
        lines: Data series.
        rules: Horizontal reference lines.
        markers: Vertical reference lines.
    """
    notes: list[str] = []
    series = [(np.asarray(line.xs, dtype=np.float64), _floats(line.ys)) for line in lines]
    xs_all = np.concatenate([x for x, _ in series]) if series else np.zeros(0)
    if not xs_all.size:
        raise ValueError(f"chart {chart_id!r}: no data")
    x_lo, x_hi = float(xs_all.min()), float(xs_all.max())
    y_top = _y_top(
        np.concatenate([*(y for _, y in series), [r.value for r in rules if r.scale]]),
        y_axis,
        notes,
    )
    y_ticks = nice_ticks(0.0, y_top, integer=y_axis.integer)
    frame = _Frame(x_lo, x_hi, y_ticks[-1], notes=notes)

    if x_axis.kind == "time":
        t_ticks = time_ticks(x_lo, x_hi)
        step = t_ticks[1] - t_ticks[0] if len(t_ticks) > 1 else 86_400.0
        x_labels = [(t, _time_label(t, step)) for t in t_ticks]
    else:
        n_ticks = nice_ticks(x_lo, x_hi, most=10, integer=x_axis.integer)
        x_step = n_ticks[1] - n_ticks[0] if len(n_ticks) > 1 else None
        x_labels = [(t, format_value(t, x_axis.kind, x_step)) for t in n_ticks if x_lo <= t <= x_hi]

    body: list[str] = [*_y_axis(frame, y_axis, y_ticks), *_x_axis(frame, x_axis, x_labels)]
    body.extend(_rules(frame, rules, y_axis))
    for marker in markers:
        x = _num(frame.x(marker.at))
        body.append(
            f'<g class="marker" data-label="{escape(marker.label)}">'
            f"<title>{escape(marker.label)}</title>"
            f'<line x1="{x}" x2="{x}" y1="{_TOP}" y2="{_num(_TOP + frame.plot_height)}"/>'
            f'<text x="{_num(float(x) + 4)}" y="{_TOP + 12}">{escape(marker.label)}</text></g>'
        )
    legend: list[tuple[str, str, str]] = []
    columns = int(frame.plot_width)
    for i, (line, (line_xs, line_ys)) in enumerate(zip(lines, series, strict=True)):
        xs, ys = thin(line_xs, line_ys, columns)
        dash = _DASHES[i % len(_DASHES)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        style = f"s{i % 8}"
        body.append(
            f'<g class="series {style}" data-series="{escape(line.label)}">'
            f'<path d="{_path(frame, xs, ys, line.step)}"{dash_attr}/></g>'
        )
        legend.append((line.label, style, dash))
    legend.extend((r.label, f"ref-{r.kind}", "") for r in rules if r.scale or r.value <= frame.y_hi)
    legend_svg, legend_height = _legend(legend, _TOP + frame.plot_height + _X_AXIS_SPACE + 10)
    height = _TOP + frame.plot_height + _X_AXIS_SPACE + legend_height + 6
    if notes:
        description = f"{description} ({'; '.join(notes)})"
    return "\n".join([*_open(chart_id, title, description, height), *body, *legend_svg, "</svg>"])


def bar_chart(
    chart_id: str,
    title: str,
    description: str,
    *,
    categories: Sequence[str],
    series: Sequence[BarSeries],
    y_axis: Axis,
    x_title: str,
    rules: Sequence[Rule] = (),
    overlay: bool = False,
    value_labels: bool = False,
) -> str:
    """An SVG bar chart: grouped (series side by side) or overlaid (disjoint series).

    Args:
        chart_id: Element id, unique in the page.
        title: Short title (the accessible name).
        description: What the chart shows.
        categories: One label per bar position (thinned on the axis when many).
        series: Bar series, one value (or None) per category.
        y_axis: The value axis; it starts at zero.
        x_title: The category axis title.
        rules: Horizontal reference lines.
        overlay: Draw every series at full width in the same slot: for series that
            never both have a value in one category (e.g. normal and hot partitions).
        value_labels: Print each bar's value above it (for few bars).
    """
    if not categories:
        raise ValueError(f"chart {chart_id!r}: no categories")
    for s in series:
        if len(s.values) != len(categories):
            raise ValueError(
                f"chart {chart_id!r}: series {s.label!r} has {len(s.values)} values "
                f"for {len(categories)} categories"
            )
    notes: list[str] = []
    values = [v for s in series for v in s.values if v is not None]
    y_top = _y_top(np.array([*values, *(r.value for r in rules)], dtype=np.float64), y_axis, notes)
    y_ticks = nice_ticks(0.0, y_top, integer=y_axis.integer)
    n = len(categories)
    frame = _Frame(0.0, float(n), y_ticks[-1], notes=notes)
    slot = frame.plot_width / n
    per_slot = 1 if overlay else max(1, len(series))
    bar = max(0.5, slot * (0.8 if n > 1 else 0.5) / per_slot)
    label_every = max(1, math.ceil(n / 24))
    x_labels = [(i + 0.5, c) for i, c in enumerate(categories) if i % label_every == 0]

    body = [
        *_y_axis(frame, y_axis, y_ticks),
        *_x_axis(frame, Axis(x_title), x_labels),
    ]
    legend: list[tuple[str, str, str]] = []
    for k, s in enumerate(series):
        style = f"bars s{k % 8}" + (" emphasis" if s.emphasis else "")
        group = [f'<g class="series {style}" data-series="{escape(s.label)}">']
        for i, v in enumerate(s.values):
            if v is None:
                continue
            offset = 0 if overlay else k * bar
            x0 = frame.x(i + 0.5) - bar * per_slot / 2 + offset
            top = frame.y(v)
            height = _TOP + frame.plot_height - top
            tip = f"{categories[i]}: {format_value(v, y_axis.kind)}"
            group.append(
                f'<rect x="{_num(x0)}" y="{_num(top)}" width="{_num(bar)}" '
                f'height="{_num(height)}"><title>{escape(tip)}</title></rect>'
            )
            if value_labels or s.emphasis:
                # Emphasised bars carry their category as text too: not colour alone.
                text = format_value(v, y_axis.kind) if value_labels else categories[i]
                group.append(
                    f'<text class="value" x="{_num(x0 + bar / 2)}" y="{_num(top - 3)}" '
                    f'text-anchor="middle">{escape(text)}</text>'
                )
        group.append("</g>")
        body.extend(group)
        legend.append((s.label, style, ""))
    body.extend(_rules(frame, rules, y_axis))
    legend.extend((r.label, f"ref-{r.kind}", "") for r in rules if r.scale or r.value <= frame.y_hi)
    legend_svg, legend_height = _legend(legend, _TOP + frame.plot_height + _X_AXIS_SPACE + 10)
    height = _TOP + frame.plot_height + _X_AXIS_SPACE + legend_height + 6
    if notes:
        description = f"{description} ({'; '.join(notes)})"
    return "\n".join([*_open(chart_id, title, description, height), *body, *legend_svg, "</svg>"])
