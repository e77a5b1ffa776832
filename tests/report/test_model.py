"""The report model: JSON round trips, checks with clear messages, derived figures."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from datetime import UTC, datetime

import pytest

from planner.report import (
    Deciding,
    DimensionArithmetic,
    FleetReport,
    GroupReport,
    HotKeyMark,
    PartitionLoadChart,
    ThroughputHistory,
    TopicReport,
)
from planner.report.layout import fmt_needed_by
from planner.report.model import cluster_replicas
from tests.report.fleets import HOSTILE_TOPIC, INTERVAL, REPORT_SETTINGS


def _fleet(*topics: TopicReport, **changes: object) -> FleetReport:
    fields: dict[str, object] = {
        "run_key": "r1",
        "interval_start": INTERVAL[0],
        "interval_end": INTERVAL[1],
        "generated_at": INTERVAL[1],
        "settings": REPORT_SETTINGS,
        "topics": topics,
    }
    fields.update(changes)
    return FleetReport(**fields)  # type: ignore[arg-type]


def _error_topic(name: str = "t") -> TopicReport:
    return TopicReport(topic=name, status="error", error="boom")


def test_a_planned_fleet_goes_to_json_and_back_unchanged(planned_fleet: FleetReport) -> None:
    text = json.dumps(planned_fleet.to_json_dict(), allow_nan=False)
    again = FleetReport.from_json_dict(json.loads(text))
    assert again == planned_fleet
    assert again.topics[0].history is not None
    assert isinstance(again.topics[0].history.ts_s, tuple)
    assert again.generated_at == planned_fleet.generated_at


def test_lists_become_tuples_and_whole_numbers_floats() -> None:
    history = ThroughputHistory(ts_s=[0, 3600], mib_in=[1, None])  # type: ignore[arg-type]
    assert history.ts_s == (0.0, 3600.0)
    assert isinstance(history.ts_s[0], float)
    assert history.mib_in == (1.0, None)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"status": "grow"}, "status: must be one of 'ok'"),
        ({"status": "increase"}, "status 'increase' needs required_partitions"),
        ({"error": None}, "status 'error' needs an error message"),
        ({"current_partitions": 0}, "current_partitions: must be 1 or above, got 0"),
        ({"current_partitions": True}, "current_partitions: must be a whole number"),
        ({"warnings": "one string"}, "warnings: must be a list, got str"),
        ({"topic": ""}, "topic: the name is empty"),
    ],
)
def test_bad_topic_values_name_the_topic_and_field(
    changes: dict[str, object], message: str
) -> None:
    name = changes.get("topic", "t")
    with pytest.raises(ValueError, match=re.escape(f"topic {name!r}: {message}")):
        dataclasses.replace(_error_topic(), **changes)


def test_a_bad_value_deep_in_json_names_its_path(planned_fleet: FleetReport) -> None:
    data = planned_fleet.to_json_dict()
    data["topics"][0]["groups"][1]["status"] = "bored"
    with pytest.raises(ValueError, match=r"groups\[1\]\.status: must be one of"):
        FleetReport.from_json_dict(data)
    data = planned_fleet.to_json_dict()
    data["topics"][2]["surprise"] = 1
    with pytest.raises(ValueError, match=r"FleetReport\.topics\[2\]: unknown field\(s\) surprise"):
        FleetReport.from_json_dict(data)
    data = planned_fleet.to_json_dict()
    del data["topics"][0]["status"]
    with pytest.raises(ValueError, match="status"):
        FleetReport.from_json_dict(data)


def test_fleet_checks() -> None:
    with pytest.raises(ValueError, match="'t' appears more than once"):
        _fleet(_error_topic(), _error_topic())
    with pytest.raises(ValueError, match="interval_end must be after interval_start"):
        _fleet(interval_end=INTERVAL[0])
    with pytest.raises(ValueError, match="aware UTC datetime"):
        _fleet(generated_at=datetime(2026, 11, 22))
    for link in ("javascript:alert(1)", "/etc/passwd", "https://example.com/docs", "a\nb"):
        with pytest.raises(ValueError, match="data_docs_path"):
            _fleet(data_docs_path=link)
    assert _fleet(data_docs_path="../data-docs/index.html").data_docs_path


def test_chart_series_must_line_up() -> None:
    with pytest.raises(ValueError, match="2 values for 3 timestamps"):
        ThroughputHistory(ts_s=(0.0, 1.0, 2.0), mib_in=(1.0, 2.0))
    with pytest.raises(ValueError, match="ascending"):
        ThroughputHistory(ts_s=(2.0, 1.0))
    with pytest.raises(ValueError, match=r"partition 4 outside 0\.\.3"):
        PartitionLoadChart((0.1,) * 4, (HotKeyMark("k", 4, 0.5),), 0.77, "today")


def _dimension(dimension: str, peak: float, tp: float | None, tc: float | None) -> object:
    return DimensionArithmetic(
        dimension=dimension,  # type: ignore[arg-type]
        peak=peak,
        growth_per_year=0.0,
        growth_method="none",
        growth_factor=1.0,
        grown=peak,
        headroom_pct=30.0,
        target=peak * 1.3,
        producer_capacity=tp,
        consumer_capacity=tc,
        capacity_scope="topic",
        producer_partitions=None,
        consumer_partitions=None,
        required=None,
        side=None,
    )


def test_headroom_is_taken_in_the_tightest_dimension() -> None:
    topic = dataclasses.replace(
        _error_topic(),
        dimensions=(
            _dimension("mib_in", 10.0, 5.0, 2.0),  # 10 partitions carry 20: +100 %
            _dimension("records_in", 1_000.0, 150.0, 300.0),  # 10 carry 1,500: +50 %
            _dimension("mib_out", 8.0, 0.1, 4.0),  # Tp does not apply: 10 carry 40: +400 %
        ),
    )
    assert topic.spare_pct(10) == pytest.approx(50.0)
    assert topic.spare_pct(4) == pytest.approx(-40.0)  # 4 x 150 = 600 < 1,000
    assert topic.spare_pct(None) is None
    no_capacity = dataclasses.replace(topic, dimensions=(_dimension("mib_in", 1.0, None, None),))
    assert no_capacity.spare_pct(10) is None


def test_any_text_is_a_topic_name() -> None:
    assert _error_topic(HOSTILE_TOPIC).topic == HOSTILE_TOPIC


def _unplanned_group(**changes: object) -> GroupReport:
    fields: dict[str, object] = {
        "group_id": "legacy-reader",
        "topics": ("legacy",),
        "current_strategy": "range",
        "strategy": None,
        "current_members": 2,
        "recommended_members": None,
        "members_now": None,
        "members_at_horizon": None,
        "busiest_utilisation": None,
        "status": "unplanned",
        "notes": ("no consumer capacity (Tc) for this topic",),
    }
    fields.update(changes)
    return GroupReport(**fields)  # type: ignore[arg-type]


def test_a_group_without_a_plan_has_no_sizes_but_says_why() -> None:
    group = _unplanned_group()
    topic = TopicReport(
        topic="legacy", status="no-figures", error="no throughput samples", groups=(group,)
    )
    again = FleetReport.from_json_dict(json.loads(json.dumps(_fleet(topic).to_json_dict())))
    assert again.topics[0] == topic and again.group_count("unplanned") == 1
    with pytest.raises(ValueError, match="status 'unplanned' needs a note saying why"):
        _unplanned_group(notes=())
    with pytest.raises(
        ValueError,
        match="status 'ok' needs strategy, recommended_members, members_now, members_at_horizon",
    ):
        _unplanned_group(status="ok")


@pytest.mark.parametrize("status", ["no-figures", "unknown-topic"])
def test_the_pipelines_unplanned_statuses_need_a_reason(status: str) -> None:
    with pytest.raises(ValueError, match=f"status '{status}' needs an error message"):
        TopicReport(topic="t", status=status)  # type: ignore[arg-type]
    assert not TopicReport(topic="t", status=status, error="why").planned  # type: ignore[arg-type]


def _planned_group(group_id: str, topics: tuple[str, ...], now: int, to: int) -> GroupReport:
    status = "ok" if now == to else ("under-provisioned" if now < to else "over-provisioned")
    return GroupReport(
        group_id=group_id,
        topics=topics,
        current_strategy="range",
        strategy="cooperative-sticky",
        current_members=now,
        recommended_members=to,
        members_now=to,
        members_at_horizon=to,
        busiest_utilisation=0.5,
        status=status,  # type: ignore[arg-type]
    )


def test_groups_are_counted_and_listed_once_the_most_short_handed_first() -> None:
    # `connect` reads all four topics and appears under each, with one plan.
    names = ("a", "b", "c", "d")
    connect = _planned_group("connect", names, 3, 4)
    groups = {
        "a": (connect, _planned_group("spare", ("a",), 6, 2)),
        "b": (connect, _planned_group("tight", ("b",), 2, 8)),
        "c": (connect, _planned_group("fine", ("c",), 3, 3)),
        "d": (connect, _unplanned_group(group_id="orphan", topics=("d",))),
    }
    fleet = _fleet(*(_error_topic(n) for n in names))
    fleet = dataclasses.replace(
        fleet, topics=tuple(dataclasses.replace(t, groups=groups[t.topic]) for t in fleet.topics)
    )
    assert fleet.group_count() == 5
    assert fleet.group_count("under-provisioned") == 2
    assert fleet.group_count("over-provisioned") == fleet.group_count("unplanned") == 1
    assert [(g.group_id, topics) for g, topics in fleet.groups_to_resize()] == [
        ("tight", ("b",)),  # 2 of 8 members
        ("connect", names),  # 3 of 4
        ("orphan", ("d",)),
        ("spare", ("a",)),
    ]


def test_the_consumer_figure_says_whose_size_it_is() -> None:
    one = TopicReport(topic="t", status="error", error="x", strategy="range")
    assert one.consumers_basis == "range: one group reading only this topic, for today's peak"
    picked = dataclasses.replace(one, consumers_group="billing", groups_with_plan=1)
    assert picked.consumers_basis == "range: the recommended size of group 'billing'"
    among = dataclasses.replace(picked, groups_with_plan=3)
    assert among.consumers_basis.endswith(
        "group 'billing', the largest of the 3 groups with a plan that read it"
    )


@pytest.mark.parametrize(
    ("growth", "linear", "days"),
    [
        (1.0, False, 365.0),  # doubles in a year: 13 -> 26 in one year
        (0.5, False, 365.0 * math.log(2) / math.log(1.5)),  # 624 days
        (0.5, True, 730.0),  # +50 % of the peak a year: twice the peak in two years
        (0.0, False, None),  # never
        (-0.2, False, None),
    ],
)
def test_a_growing_peak_outgrows_a_capacity_on_the_day_the_arithmetic_says(
    growth: float, linear: bool, days: float | None
) -> None:
    # Peak 10 + 30 % headroom = 13 against a capacity of 26.
    d = dataclasses.replace(
        _dimension("mib_in", 10.0, None, 2.0), growth_per_year=growth, linear_growth=linear
    )
    found = d.days_until_above(26.0)
    assert found == (None if days is None else pytest.approx(days))
    assert d.days_until_above(12.0) == 0.0  # already above


def test_an_increase_within_the_horizon_says_when_todays_count_runs_out() -> None:
    def dim(name: str, peak: float, tc: float, growth: float) -> DimensionArithmetic:
        base = _dimension(name, peak, None, tc)
        return dataclasses.replace(base, growth_per_year=growth, required=8)  # type: ignore[type-var]

    topic = TopicReport(
        topic="t",
        status="plan-increase",
        current_partitions=4,
        required_partitions_now=4,
        required_partitions=8,
        recommended_partitions=8,
        deciding=Deciding("mib_in", "consumer"),
        dimensions=(
            # 4 partitions carry 4 x 6.5 = 26 MiB/s: 13 (10 + 30 %) doubles in a year.
            dim("mib_in", 10.0, 6.5, 1.0),
            # 4 x 1,000 = 4,000 records/s against 2,600: later (+20 %/year, 2.4 years).
            dim("records_in", 2_000.0, 1_000.0, 0.2),
        ),
    )
    assert topic.current_count_lasts_days == pytest.approx(365.0)
    # The skew of a keyed topic asks for more than the rule: no date is claimed.
    assert dataclasses.replace(topic, required_partitions=9).current_count_lasts_days is None
    assert dataclasses.replace(topic, status="ok").current_count_lasts_days is None
    start = datetime(2026, 11, 22, tzinfo=UTC)
    assert fmt_needed_by(365.0, start) == "about 2027-11-22 (in 365 days)"
    assert fmt_needed_by(0.0, start) == "now"


def test_the_cluster_adds_up_every_topics_replicas(planned_fleet: FleetReport) -> None:
    cluster = cluster_replicas(planned_fleet.topics, brokers=3)
    assert cluster is not None
    # Topics whose partitions and replication are known (the hand-made fleet's two
    # unplanned topics have no replication factor).
    counted = [
        t
        for t in planned_fleet.topics
        if t.current_partitions is not None and t.replication_factor is not None
    ]
    assert cluster.topics == len(counted) == len(planned_fleet.topics) - 2
    assert cluster.replicas_now == sum(
        (t.current_partitions or 0) * (t.replication_factor or 0) for t in counted
    )
    # Planned: the recommended count where there is one (12 -> 16, 12 -> 60), else today's.
    grown = sum(
        ((t.recommended_partitions or 0) - (t.current_partitions or 0))
        * (t.replication_factor or 0)
        for t in counted
        if t.recommended_partitions is not None
    )
    assert cluster.replicas_planned == cluster.replicas_now + grown > cluster.replicas_now
    assert cluster.per_broker_now == math.ceil(cluster.replicas_now / 3)
    assert cluster.limit == next(t.cost for t in counted if t.cost).replicas_per_broker_limit
    # Through JSON and back, with the fleet.
    fleet = dataclasses.replace(planned_fleet, cluster=cluster)
    assert FleetReport.from_json_dict(json.loads(json.dumps(fleet.to_json_dict()))) == fleet
    # Without any cost panel there is no limit to compare with.
    assert cluster_replicas([_error_topic()], brokers=3) is None
