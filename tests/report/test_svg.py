"""The SVG chart helper: ticks, thinning, structure, accessibility and escaping."""

from __future__ import annotations

import dataclasses
import itertools
import math
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from planner.report import FleetReport, svg
from tests.report.fleets import EXAMPLE_TOPIC, HOSTILE_ATTR, HOSTILE_TOPIC

SVG = "{http://www.w3.org/2000/svg}"
DAY = 86_400.0


def _parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def _groups(root: ET.Element, css: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if css in g.get("class", "").split()]


def test_nice_ticks_examples() -> None:
    assert svg.nice_ticks(0, 41.8) == [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
    assert svg.nice_ticks(0, 0.77) == [0.0, 0.2, 0.4, 0.6, 0.8]
    assert svg.nice_ticks(0, 72_243) == [0.0, 20_000.0, 40_000.0, 60_000.0, 80_000.0]
    assert svg.nice_ticks(0, 0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert svg.nice_ticks(0, 12, integer=True) == [0.0, 5.0, 10.0, 15.0]
    assert svg.nice_ticks(1, 3, most=10, integer=True) == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="finite"):
        svg.nice_ticks(0, math.inf)


@given(
    st.floats(0, 1e9, allow_nan=False),
    st.floats(1e-6, 1e9, allow_nan=False),
    st.integers(3, 10),
    st.booleans(),
)
def test_nice_ticks_cover_the_range_in_round_even_steps(
    low: float, span: float, most: int, integer: bool
) -> None:
    assume(span >= low * 1e-4)  # ticks finer than float precision at `low` are not axes
    high = low + span
    ticks = svg.nice_ticks(low, high, most, integer=integer)
    assert ticks[0] <= low * (1 + 1e-9) and ticks[-1] >= high * (1 - 1e-9)
    assert 2 <= len(ticks) <= most + 1
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0], rtol=1e-6)
    mantissa = steps[0] / 10 ** math.floor(math.log10(steps[0]) + 1e-6)
    assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 2.5, 5))
    if integer:
        assert all(t == round(t) for t in ticks)


def test_time_ticks_fall_on_midnight_and_mondays() -> None:
    start = datetime(2025, 10, 9, 13, tzinfo=UTC).timestamp()
    days = svg.time_ticks(start, start + 5 * DAY)
    assert all(t % DAY == 0 for t in days)
    assert days[0] == datetime(2025, 10, 10, tzinfo=UTC).timestamp()
    weeks = svg.time_ticks(start, start + 30 * DAY)
    assert all(datetime.fromtimestamp(t, UTC).weekday() == 0 for t in weeks)
    assert all(b - a == 7 * DAY for a, b in itertools.pairwise(weeks))
    hours = svg.time_ticks(start, start + 6 * 3600)
    assert all(t % 3600 == 0 for t in hours) and len(hours) >= 3


def test_format_value_examples() -> None:
    assert svg.format_value(72_243) == "72.2k"
    assert svg.format_value(2_500_000) == "2.5M"
    assert svg.format_value(0.769, "percent") == "77%"
    assert svg.format_value(2.5) == "2.5"
    assert svg.format_value(20_000.0, step=20_000.0) == "20k"
    assert svg.format_value(0.4, step=0.2) == "0.4"
    assert svg.format_value(7.5, step=2.5) == "7.5"
    assert svg.format_value(10.0, step=2.5) == "10.0"
    # A label between 100 and 10,000 is a whole number, never "4.38e+03".
    assert svg.format_value(4_380.4) == "4,380"
    assert svg.format_value(126.6) == "127"
    assert svg.format_value(0.126) == "0.126"
    assert svg.format_value(0.0000412) == "0.0000412"


def test_thinning_keeps_every_peak_and_gap() -> None:
    n = 100_000
    x = np.arange(n, dtype=np.float64)
    y = np.sin(x / 500.0) + 1.0
    y[31_337] = 50.0  # one spike
    y[60_000:60_500] = np.nan  # a gap of 500 samples, wider than one column
    tx, ty = svg.thin(x, y, 600)
    assert tx.size <= 2 * 600
    assert 50.0 in ty
    assert float(np.nanmin(ty)) == pytest.approx(float(np.nanmin(y)), abs=1e-6)
    assert np.isnan(ty).any()
    assert np.all(np.diff(tx) > 0)
    _, short_y = svg.thin([0.0, 1.0], [None, 2.0], 600)
    assert np.isnan(short_y[0]) and short_y[1] == 2.0


def _line_chart(**changes: object) -> str:
    args: dict[str, object] = {
        "x_axis": svg.Axis("time (UTC)", "time"),
        "y_axis": svg.Axis("MiB/s in"),
        "lines": [
            svg.Line("MiB/s in", [0.0, DAY, 2 * DAY], [1.0, None, 3.0]),
            svg.Line("MiB/s out", [0.0, DAY, 2 * DAY], [2.0, 2.5, 1.0]),
        ],
        "rules": [svg.Rule("target", 4.0, "target"), svg.Rule("capacity", 6.0)],
    }
    args.update(changes)
    return svg.line_chart("c1", "A title", "A description.", **args)  # type: ignore[arg-type]


def test_a_line_chart_is_well_formed_accessible_svg() -> None:
    root = _parse(_line_chart())
    assert root.get("role") == "img"
    labelled = root.get("aria-labelledby", "").split()
    assert labelled == ["c1-title", "c1-desc"]
    ids = {e.get("id"): e for e in root.iter() if e.get("id")}
    assert ids["c1-title"].text == "A title"
    assert ids["c1-desc"].text == "A description."
    series = _groups(root, "series")
    assert [g.get("data-series") for g in series] == ["MiB/s in", "MiB/s out"]
    assert [g.get("data-label") for g in _groups(root, "ref")] == ["target", "capacity"]
    assert len(_groups(root, "key")) == 4  # the legend names both lines and both rules
    # The missing middle sample breaks the first line into two pen-down moves.
    path = series[0].find(f"{SVG}path")
    assert path is not None and path.get("d", "").count("M") == 2
    ticks = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "tick"]
    assert "0" in ticks and "6" in ticks


def test_values_above_the_axis_cap_are_said_to_be_clipped() -> None:
    text = _line_chart(
        y_axis=svg.Axis("load", "percent", max_value=3.0),
        lines=[svg.Line("range", [1.0, 2.0], [7.0, 0.5])],
        rules=[],
    )
    desc = _parse(text).find(f"{SVG}desc")
    assert desc is not None and "values above 300% are drawn at the top edge" in (desc.text or "")


def test_a_rule_off_the_scale_is_named_not_drawn() -> None:
    # A capacity 100x the data would flatten the lines: the axis ignores it.
    root = _parse(
        _line_chart(
            rules=[
                svg.Rule("target", 4.0, "target"),
                svg.Rule("88 partitions carry", 352.0, scale=False),
            ]
        )
    )
    assert [g.get("data-label") for g in _groups(root, "ref")] == ["target"]
    assert len(_groups(root, "key")) == 3  # two lines and the target
    y_axis = next(g for g in root.iter(f"{SVG}g") if "y-axis" in (g.get("class") or ""))
    ticks = [float(t.text or "0") for t in y_axis.iter(f"{SVG}text") if t.get("class") == "tick"]
    assert max(ticks) < 10
    desc = root.find(f"{SVG}desc")
    assert desc is not None and "88 partitions carry: 352 is above the top of the chart" in (
        desc.text or ""
    )
    # Within the data's range it is drawn as any rule.
    near = _parse(_line_chart(rules=[svg.Rule("6 partitions carry", 2.0, scale=False)]))
    assert [g.get("data-label") for g in _groups(near, "ref")] == ["6 partitions carry"]


def test_hostile_labels_stay_text() -> None:
    text = svg.line_chart(
        HOSTILE_ATTR,
        HOSTILE_TOPIC,
        HOSTILE_ATTR,
        x_axis=svg.Axis(HOSTILE_TOPIC),
        y_axis=svg.Axis(HOSTILE_ATTR),
        lines=[svg.Line(HOSTILE_TOPIC, [0.0, 1.0], [1.0, 2.0])],
        rules=[svg.Rule(HOSTILE_ATTR, 1.5)],
        markers=[svg.Marker(HOSTILE_TOPIC, 0.5)],
    )
    root = _parse(text)  # well-formed: no quote or bracket escaped its attribute or text
    tags = {e.tag.removeprefix(SVG) for e in root.iter()}
    assert tags <= {"svg", "title", "desc", "g", "line", "text", "path"}
    assert root.get("id") == HOSTILE_ATTR
    assert root.find(f"{SVG}title").text == HOSTILE_TOPIC  # type: ignore[union-attr]
    assert _groups(root, "series")[0].get("data-series") == HOSTILE_TOPIC
    assert "<script>" not in text and "<img" not in text


def test_bar_charts_grouped_and_overlaid() -> None:
    grouped = _parse(
        svg.bar_chart(
            "b1",
            "Churn",
            "Churn per strategy.",
            categories=["range", "sticky"],
            series=[svg.BarSeries("revoked", [4.0, 4.0]), svg.BarSeries("moved", [2.0, 1.0])],
            y_axis=svg.Axis("partitions"),
            x_title="strategy",
            value_labels=True,
        )
    )
    series = _groups(grouped, "series")
    assert [len(g.findall(f"{SVG}rect")) for g in series] == [2, 2]
    widths = {float(r.get("width", 0)) for g in series for r in g.findall(f"{SVG}rect")}
    assert len(widths) == 1
    labels = [t.text for g in series for t in g.findall(f"{SVG}text")]
    assert labels == ["4", "4", "2", "1"]

    overlay = _parse(
        svg.bar_chart(
            "b2",
            "Loads",
            "Per partition.",
            categories=["0", "1", "2"],
            series=[
                svg.BarSeries("partition", [0.2, None, 0.3]),
                svg.BarSeries("hot", [None, 1.4, None], emphasis=True),
            ],
            y_axis=svg.Axis("load", "percent"),
            x_title="partition",
            overlay=True,
        )
    )
    normal, hot = _groups(overlay, "series")
    assert len(normal.findall(f"{SVG}rect")) == 2
    assert "emphasis" in hot.get("class", "")
    # An emphasised bar is named in text above it, not marked by colour alone.
    assert [t.text for t in hot.findall(f"{SVG}text")] == ["1"]
    with pytest.raises(ValueError, match="has 1 values for 2 categories"):
        svg.bar_chart(
            "b3",
            "t",
            "d",
            categories=["a", "b"],
            series=[svg.BarSeries("s", [1.0])],
            y_axis=svg.Axis("y"),
            x_title="x",
        )


def test_a_year_of_minutes_stays_small_and_keeps_its_peak() -> None:
    n = 365 * 24 * 60
    ts = np.arange(n) * 60.0
    values = np.random.default_rng(7).gamma(4.0, 5.0, n)
    root = _parse(
        svg.line_chart(
            "big",
            "A year",
            "Per-minute samples.",
            x_axis=svg.Axis("time (UTC)", "time"),
            y_axis=svg.Axis("MiB/s in"),
            lines=[svg.Line("MiB/s in", ts, values)],
        )
    )
    assert len(ET.tostring(root)) < 60_000
    # Where the peak must be drawn, from the chart's own grid: zero and the top tick.
    lines = root.iter(f"{SVG}line")
    grid = sorted(float(e.get("y1", 0)) for e in lines if e.get("class") == "grid")
    top_y, zero_y = grid[0], grid[-1]
    top_value = svg.nice_ticks(0.0, float(values.max()))[-1]
    peak_y = zero_y - float(values.max()) / top_value * (zero_y - top_y)
    path = _groups(root, "series")[0].find(f"{SVG}path")
    assert path is not None
    points = path.get("d", "").replace("M", "L").split("L")[1:]
    assert min(float(p.split(" ")[1]) for p in points) == pytest.approx(peak_y, abs=0.1)


def test_a_throughput_chart_names_a_count_far_above_its_traffic(
    planned_fleet: FleetReport,
) -> None:
    from planner.report.charts import throughput_charts

    t = next(t for t in planned_fleet.topics if t.topic == EXAMPLE_TOPIC)
    (mib, *_) = throughput_charts(t, 99.0)
    assert "Above this scale" not in mib  # 12 and 16 partitions sit near the target
    d = next(d for d in t.dimensions if d.dimension == "mib_in")
    assert d.partition_capacity is not None
    many = round(10 * d.target / d.partition_capacity)  # ten times the target
    (far, *_) = throughput_charts(dataclasses.replace(t, current_partitions=many), 99.0)
    assert f"Above this scale, not drawn: {many:,} partitions carry" in far
    assert f'data-label="{many:,} partitions carry"' not in far
    assert 'data-label="16 partitions carry"' in far
