"""`from_outputs` on the real jobs' rows: the same report as the core's plan, every status.

Both Spark jobs run once on the small test fleet (`tests.spark_jobs.fleet`); their
`recommendations` and `simulations` datasets are read back with PyArrow, as the pipeline
reads them, and mapped with `topic_report`. A planned topic must come out as the report
of `plan_topic` on the same figures (the plans are made as `tests/spark_jobs/test_jobs.py`
makes them), taken through the jobs' code without Spark (`tests.support.report_path`);
the topics without a plan must say why, on the topic and on the index.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from planner.figures.conform import conform
from planner.recommend import GroupInfo, PlanSettings, TopicHistory
from planner.report import (
    FleetReport,
    ThroughputHistory,
    TopicReport,
    fleet_report,
    page_names,
    rejected_summaries,
    report_settings,
    topic_report,
)
from planner.report.layout import SCRIPT, STATUS_LABELS
from planner.report.site import iter_site
from planner.sizing import SideCapacity
from tests.report.fleets import HOSTILE_ATTR, HOSTILE_TOPIC
from tests.report.test_site import _Page
from tests.spark_jobs.conftest import TEST_CONFIG
from tests.spark_jobs.fleet import Fleet, write_fleet
from tests.store.rows import facts_row
from tests.support.report_path import topic_report_of

pytestmark = pytest.mark.slow

SETTINGS = PlanSettings()
UNPLANNED = {
    "legacy": "missing-capacity",
    "idle": "no-figures",
    "ghost": "unknown-topic",
    "wide": "error",
}
Row = dict[str, Any]


@dataclass(frozen=True)
class JobOutputs:
    """The fleet the jobs read, and the rows they wrote for its run."""

    fleet: Fleet
    recommendations: dict[str, Row]
    simulations: list[Row]

    def topic_rows(self, topic: str) -> list[Row]:
        """The topic's `simulations` rows of scope `topic`, as the pipeline groups them."""
        return [r for r in self.simulations if r["scope"] == "topic" and r["topic"] == topic]


@pytest.fixture(scope="module")
def outputs(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> JobOutputs:
    """Both jobs, once, on the small fleet; their datasets read with PyArrow."""
    from spark_jobs import simulate_assignments, size_partitions
    from spark_jobs.outputs import run_path

    root = tmp_path_factory.mktemp("from-outputs")
    fleet = write_fleet(root / "figures")
    config = root / "planner.toml"
    config.write_text(TEST_CONFIG, encoding="utf-8")
    out = root / "out"
    args = ["--figures", str(fleet.root), "--out", str(out), "--interval", fleet.key]
    args += ["--config", str(config)]
    assert size_partitions.main(args) == 0
    assert simulate_assignments.main(args) == 0

    def rows(dataset: str) -> list[Row]:
        folder: Path = run_path(out, dataset, fleet.key)
        table: pa.Table = pq.read_table(folder, partitioning="hive")
        listed: list[Row] = table.to_pylist()
        return listed

    recommendations = {r["topic"]: r for r in rows("recommendations")}
    return JobOutputs(fleet, recommendations, rows("simulations"))


# ---------------------------------------------------------------------------------------
# The core's plans on the same figures (as tests/spark_jobs/test_jobs.py makes them)


def _core_history(fleet: Fleet, topic: str) -> TopicHistory:
    from tests.spark_jobs.test_jobs import _history, _orders_keys

    if topic == "orders":
        keys, counts = _orders_keys()
        return _history(
            fleet,
            "orders",
            current_partitions=12,
            keyed=True,
            keys=keys,
            key_counts=counts,
            retention_ms=604_800_000,
        )
    if topic == "clicks":
        return _history(fleet, "clicks", current_partitions=6, retention_ms=86_400_000)
    assert topic == "views"
    return _history(fleet, "views", current_partitions=3, replication_factor=2)


#: Per planned topic: Tp, Tc, its one-topic groups, Tp/Tc's rows per dimension, and
#: per side the capacity row it came from (measured by, `topic` or the default row `*`).
PLANNED: dict[
    str,
    tuple[SideCapacity, SideCapacity, list[GroupInfo], dict[str, Any], dict[str, tuple[str, str]]],
] = {
    "orders": (
        SideCapacity(10.0, 20_000.0),
        SideCapacity(2.0, 3_000.0),
        [GroupInfo("billing", "range", 4)],
        {"mib_in": ("topic", None), "records_in": ("topic", None)},
        {"tp": ("perf:orders", "topic"), "tc": ("perf:orders", "topic")},
    ),
    "clicks": (
        SideCapacity(8.0, 16_000.0),
        SideCapacity(3.0, None),
        [GroupInfo("audit", "cooperative-sticky", 2)],
        {"mib_in": ("topic", "*"), "records_in": ("*", None), "mib_out": ("topic", None)},
        {"tp": ("perf:fleet", "*"), "tc": ("perf:clicks", "topic")},
    ),
    "views": (
        SideCapacity(8.0, 16_000.0),
        SideCapacity(1.0, 1_500.0),
        [],
        {"mib_in": ("topic", "*"), "records_in": ("topic", "*")},
        {"tp": ("perf:fleet", "*"), "tc": ("perf:views", "topic")},
    ),
}


def _expected(fleet: Fleet, topic: str) -> TopicReport:
    from tests.spark_jobs.test_jobs import _plan

    tp, tc, groups, _, rows = PLANNED[topic]
    history = _core_history(fleet, topic)
    # Two groups read clicks (one of them also reads views): one group's share.
    consuming = 2 if topic == "clicks" else None
    plan = _plan(history, tp, tc, groups, consuming_groups=consuming)
    facts = facts_row(history, tp, tc, groups, consuming_groups=consuming)
    for side, (measured_by, source) in rows.items():
        facts |= {f"{side}_measured_by": measured_by, f"{side}_source": source}
    return topic_report_of(plan, history, facts, settings=SETTINGS)


def _report(outputs: JobOutputs, topic: str, history: ThroughputHistory | None) -> TopicReport:
    return topic_report(
        outputs.recommendations[topic],
        outputs.topic_rows(topic),
        history=history,
        settings=SETTINGS,
    )


def _approx(value: Any) -> Any:
    return pytest.approx(value, rel=1e-9, abs=1e-12)


def _same_dimensions(actual: TopicReport, expected: TopicReport, topic: str) -> None:
    scopes = PLANNED[topic][3]
    assert [d.dimension for d in actual.dimensions] == [d.dimension for d in expected.dimensions]
    for a, e in zip(actual.dimensions, expected.dimensions, strict=True):
        assert (a.capacity_scope, a.producer_scope) == scopes[a.dimension], a.dimension
        # The core describes its fit; the row keeps the growth source and the numbers.
        assert a.growth_method.startswith("fitted (exponential) on 15 days of samples")
        assert e.growth_method.startswith("fitted (exponential)")
        ignore = {"growth_method": "", "capacity_scope": None, "producer_scope": None}
        assert dataclasses.asdict(dataclasses.replace(a, **ignore)) == _approx(
            dataclasses.asdict(dataclasses.replace(e, **ignore))
        )


def _same_charts(actual: TopicReport, expected: TopicReport) -> None:
    a, e = actual.member_load, expected.member_load
    assert a is not None and e is not None
    assert (a.partitions, a.load_basis) == (e.partitions, e.load_basis)
    assert a.load_limit == _approx(e.load_limit)
    assert [c.strategy for c in a.curves] == [c.strategy for c in e.curves]
    for ca, ce in zip(a.curves, e.curves, strict=True):
        assert ca.members == ce.members
        assert ca.busiest_load == _approx(ce.busiest_load)
    assert actual.churn == expected.churn
    pa_, pe = actual.partition_load, expected.partition_load
    assert (pa_ is None) == (pe is None)
    if pa_ is not None and pe is not None:
        assert pa_.loads == _approx(pe.loads)
        assert [(h.key, h.partition) for h in pa_.hot_keys] == [
            (h.key, h.partition) for h in pe.hot_keys
        ]
        assert [h.share for h in pa_.hot_keys] == _approx([h.share for h in pe.hot_keys])
        assert (pa_.load_limit, pa_.load_basis) == (_approx(pe.load_limit), pe.load_basis)


@pytest.mark.parametrize("topic", sorted(PLANNED))
def test_a_planned_topic_is_the_report_of_the_cores_plan(outputs: JobOutputs, topic: str) -> None:
    expected = _expected(outputs.fleet, topic)
    row = outputs.recommendations[topic]
    actual = _report(outputs, topic, expected.history)

    for name in (
        "status",
        "current_partitions",
        "required_partitions_now",
        "required_partitions",
        "recommended_partitions",
        "one_group_consumers",
        "deciding",
        "keyed",
        "partitioner",
        "replication_factor",
        "capacity_source",
        "candidates",
        "choice_reason",
        "history",
        "rejected_rows",
    ):
        assert getattr(actual, name) == getattr(expected, name), name
    # The core's warnings, then those of the multi-topic groups the core does not plan.
    n = len(expected.warnings)
    assert actual.warnings[:n] == expected.warnings
    assert all(json.loads(w.params)["group_id"] == "analytics" for w in actual.warnings_coded[n:])
    if topic == "orders":
        assert actual.warnings == expected.warnings
        # Read by one-topic groups only: the core's plan knows every group.
        for name in ("recommended_consumers", "strategy", "consumers_group"):
            assert getattr(actual, name) == getattr(expected, name), name
    assert actual.planned and actual.error is None
    _same_dimensions(actual, expected, topic)
    assert actual.cost is not None and expected.cost is not None
    assert dataclasses.asdict(actual.cost) == _approx(dataclasses.asdict(expected.cost))
    _same_charts(actual, expected)

    # The core's sentences, in order, between where Tp/Tc came from and which group the
    # row's own consumer figure is for (a multi-topic group's, which the core does not
    # plan, for clicks).
    core = expected.rationale[1:-1]
    start = actual.rationale.index(core[0])
    assert actual.rationale[: start + len(core)] == expected.rationale[:-1]
    assert actual.rationale[0].startswith("Tp ")
    assert actual.rationale[start + len(core) :] == (row["rationale"][-1],)
    assert actual.rationale[-1].startswith("consumers: ")

    # One-topic groups as the core planned them; multi-topic groups besides them.
    single = [g for g in actual.groups if g.topics == (topic,)]
    assert [dataclasses.asdict(g) for g in single] == _approx(
        [dataclasses.asdict(g) for g in expected.groups]
    )
    multi = [(g.group_id, g.topics) for g in actual.groups if g.topics != (topic,)]
    assert multi == ([] if topic == "orders" else [("analytics", ("clicks", "views"))])


def test_the_consumer_figure_is_the_rows_and_says_whose(outputs: JobOutputs) -> None:
    # The report, its JSON, the store and the rationale give one consumer figure: the
    # row's, the largest group with a plan (here a group that reads two topics). What one
    # group reading only this topic needs today differs, and is the charts' marker.
    row = outputs.recommendations["clicks"]
    t = _report(outputs, "clicks", None)
    assert (t.recommended_consumers, t.strategy, t.consumers_group) == (
        row["recommended_consumers"],
        row["strategy"],
        "analytics",
    )
    assert t.one_group_consumers == row["one_group_members"] != t.recommended_consumers
    assert row["rationale"][-1].startswith(f"consumers: {t.recommended_consumers}, ")
    assert t.consumers_basis.endswith(
        "the recommended size of group 'analytics', the largest of the 2 groups with a plan "
        "that read it"
    )


@pytest.mark.parametrize(("topic", "status"), sorted(UNPLANNED.items()))
def test_a_topic_without_a_plan_says_why(outputs: JobOutputs, topic: str, status: str) -> None:
    row = outputs.recommendations[topic]
    t = _report(outputs, topic, None)
    assert (t.topic, t.status, t.planned) == (topic, status, False)
    assert t.error == row["status_detail"] and t.error
    assert t.warnings == tuple(row["warnings"]) and t.warnings
    assert (t.recommended_partitions, t.required_partitions, t.deciding, t.cost) == (
        None,
        None,
        None,
        None,
    )
    assert (t.member_load, t.partition_load, t.churn, t.candidates) == (None, None, None, ())
    assert t.current_partitions == row["current_partitions"]
    if topic == "wide":
        assert t.error == "Replication factor: 5 larger than available brokers: 3"
    if topic == "ghost":
        assert t.current_partitions is None and t.capacity_source is None
    if topic == "legacy":
        # What the missing Tc must carry is still shown; no capacity, no requirement.
        assert [d.dimension for d in t.dimensions] == ["mib_in", "records_in"]
        for d in t.dimensions:
            assert d.peak == row[f"{d.dimension}_peak_per_s"]
            assert d.target == row[f"{d.dimension}_target_per_s"]
            assert (d.producer_capacity, d.consumer_capacity, d.required) == (None, None, None)
        assert t.spare_pct(t.current_partitions) is None
        (group,) = t.groups
        assert (group.group_id, group.status, group.strategy) == (
            "legacy-reader",
            "unplanned",
            None,
        )
        assert group.notes == (row["status_detail"],)
        assert t.capacity_source == "perf:fleet (Tp, default row *) and no Tc"


# ---------------------------------------------------------------------------------------
# The fleet and its site


def _throughput(fleet: Fleet, topic: str) -> ThroughputHistory | None:
    from tests.spark_jobs.test_jobs import _history

    if topic == "idle":
        return None
    h = _history(fleet, topic)
    return ThroughputHistory(
        ts_s=tuple(float(t) for t in h.ts_s),
        mib_in=tuple(float(v) for v in h.mib_in),
        records_in=tuple(float(v) for v in h.records_in),
    )


def _fleet(outputs: JobOutputs, change: Callable[[Row], Row] = lambda r: r) -> FleetReport:
    topics = []
    for name, row in outputs.recommendations.items():
        changed = change(row)
        sims = [change(r) for r in outputs.topic_rows(name)]
        topics.append(
            topic_report(
                changed,
                sims,
                history=_throughput(outputs.fleet, name),
                settings=SETTINGS,
                rejected_rows=1 if name == "orders" else 0,
            )
        )
    run = outputs.fleet.run
    return fleet_report(
        topics,
        run_key=run.key,
        interval_start=run.start,
        interval_end=run.end,
        generated_at=run.end,
        settings=report_settings(SETTINGS),
        rejected=rejected_summaries(_rejected_rows()),
        input_rows={"throughput": 5_040, "groups": 9},
    )


def _section(html: str, heading_id: str) -> str:
    start = html.index(f'<h2 id="{heading_id}">')
    end = html.find("<h2 ", start + 1)
    return html[start : end if end != -1 else None]


def test_the_site_lists_the_topics_without_a_plan_and_why(outputs: JobOutputs) -> None:
    report = _fleet(outputs)
    assert [t.topic for t in report.topics] == sorted(outputs.recommendations)
    again = FleetReport.from_json_dict(json.loads(json.dumps(report.to_json_dict())))
    assert again == report
    files = dict(iter_site(report))
    index = files["index.html"].decode("utf-8")

    missing = _section(index, "missing")
    by_name = {t.topic: t for t in report.topics}
    for topic, status in UNPLANNED.items():
        t = by_name[topic]
        assert f">{topic}</a>" in missing
        assert f">{STATUS_LABELS[status][0]}</span>" in missing
        assert escape(t.error or "") in missing
    assert ">orders</a>" in missing  # planned, with a rejected row
    glance = _section(index, "glance")
    for topic in UNPLANNED:
        assert f">{topic}</a>" in glance
    # The status selector offers every status present.
    for status in {*UNPLANNED.values(), "increase", "ok"}:
        assert f'<option value="{status}">' in index

    groups = _section(index, "groups")
    note = outputs.recommendations["legacy"]["status_detail"]
    assert "legacy-reader" in groups and ">not planned</span>" in groups
    assert escape(note) in groups

    pages = page_names(t.topic for t in report.topics)
    legacy = files[f"topics/{pages['legacy']}"].decode("utf-8")
    assert ">not planned</span>" in legacy and escape(note) in legacy
    ghost = files[f"topics/{pages['ghost']}"].decode("utf-8")
    assert "not in the topics table" in ghost and "chart-throughput-mib_in" in ghost

    records = json.loads(files["recommendations.json"])
    assert {r["topic"]: r["status"] for r in records} == {
        t: r["status"] for t, r in outputs.recommendations.items()
    }
    summary = files["summary.md"].decode("utf-8")
    assert "4 could not be sized" in summary
    unsized = summary[summary.index("## Could not be sized") :]
    for topic, status in UNPLANNED.items():
        assert f"- `{topic}`: {STATUS_LABELS[status][0]}: " in unsized
    assert "- `legacy-reader` on `legacy`: not planned: " in summary


# ---------------------------------------------------------------------------------------
# Rejected rows


def _rejected_rows() -> list[Row]:
    """Real `rejected` rows: the figures' own row checks on bad landing rows."""
    throughput = pa.table(
        {
            "topic": ["orders", "bad topic!", "orders", "orders", "clicks", HOSTILE_TOPIC, "views"],
            "ts": ["2026-11-21T00:00:00Z"] * 7,
            "bytes_in_per_s": ["1000", "10", "-5", "x", "7", "1", ""],
            "records_in_per_s": ["10", "1", "1", "1", "-1", "1", "1"],
        }
    )
    groups = pa.table(
        {
            "group_id": ["billing", "b", "", "c"],
            "topic": ["orders"] * 4,
            "strategy": ["range", "random", "range", "range"],
            "members": ["1", "2", "3", "-1"],
        }
    )
    bad_groups = conform("groups", groups, source="landing:groups.csv", first_row=2).rejected
    bad_rates = conform("throughput", throughput, source="landing:a.csv", first_row=2).rejected
    # Groups first, so the summaries' order is their own (by table), not the input's.
    rows: list[Row] = pa.concat_tables([bad_groups, bad_rates]).to_pylist()
    return rows


def test_rejected_rows_are_counted_per_table_with_the_first_examples() -> None:
    rows = _rejected_rows()
    summaries = rejected_summaries(rows, examples=5)
    assert [(s.table, s.rows) for s in summaries] == [("groups", 3), ("throughput", 6)]
    groups, throughput = summaries
    assert [e.row for e in groups.examples] == [3, 4, 5]
    assert [e.row for e in throughput.examples] == [3, 4, 5, 6, 7]
    first = throughput.examples[0]
    assert (first.source, first.field, first.value) == ("landing:a.csv", "topic", "bad topic!")
    assert first.reason.startswith("not a legal Kafka topic name")
    assert throughput.examples[4].value == HOSTILE_TOPIC
    assert [e.reason for e in groups.examples] == [r["reason"] for r in rows[:3]]
    assert rejected_summaries(rows, examples=0)[1].examples == ()
    assert rejected_summaries([]) == ()
    with pytest.raises(ValueError, match="examples must be zero or above"):
        rejected_summaries(rows, examples=-1)


# ---------------------------------------------------------------------------------------
# Hostile names


def _hostile(row: Row) -> Row:
    """`orders` renamed to a script tag, its group and its hottest key to an HTML attack."""
    if row.get("topic") != "orders":
        return row
    changed = {**row, "topic": HOSTILE_TOPIC}
    if "groups" in row:
        changed["groups"] = [
            {**g, "group_id": HOSTILE_ATTR, "topics": [HOSTILE_TOPIC]} for g in row["groups"]
        ]
        hot, *rest = row["hot_keys"]
        key = {**hot, "key": HOSTILE_ATTR, "key_hex": HOSTILE_ATTR.encode().hex()}
        changed["hot_keys"] = [key, *rest]
    else:
        changed["topics"] = [HOSTILE_TOPIC]
    return changed


def test_a_hostile_name_survives_the_mapping_and_is_escaped(outputs: JobOutputs) -> None:
    report = _fleet(outputs, _hostile)
    t = next(t for t in report.topics if t.topic == HOSTILE_TOPIC)
    assert t.groups[0].group_id == HOSTILE_ATTR and t.groups[0].topics == (HOSTILE_TOPIC,)
    assert t.partition_load is not None
    assert t.partition_load.hot_keys[0].key == HOSTILE_ATTR
    assert t.member_load is not None and t.churn is not None

    pages = page_names(t.topic for t in report.topics)
    for path, content in iter_site(report):
        if not path.endswith(".html"):
            continue
        page = _Page()
        page.feed(content.decode("utf-8"))
        page.close()
        assert "img" not in {tag for tag, _ in page.tags}, path
        assert [n for _, a in page.tags for n in a if n.startswith("on")] == [], path
        assert page.scripts == ([SCRIPT] if path == "index.html" else []), path
        text = "".join(page.text)
        if path == "index.html":
            assert HOSTILE_TOPIC in text
        if path == f"topics/{pages[HOSTILE_TOPIC]}":
            assert HOSTILE_TOPIC in text and HOSTILE_ATTR in text
            assert f"Hot: key {HOSTILE_ATTR!r}" in text
