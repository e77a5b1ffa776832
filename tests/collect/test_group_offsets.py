"""Consumer groups' capacity and lag from the lag exporters' series in a real Prometheus 2.42.

One Prometheus holds three hours of known offsets written in each exporter's own metric
names and labels (`tests.support.exporters`). Each preset's reading must give each group
the figures the observer's path gives on the same offsets (`group_windows` and
`group_figures` called on the points themselves), and the values the history was built
with: a saturated group (3 members consuming 1,500 of 2,400 records/s: 500 each) and one
that keeps up (600 records behind per partition: at least 800 records/s a member).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from planner.collect.base import Collected
from planner.collect.consumption import group_figures, group_windows, owners_per_window
from planner.collect.group_offsets import PRESETS, group_queries
from planner.collect.prometheus import PrometheusSource
from planner.figures import DataInterval
from tests.support.exporters import EXPORTERS, GroupHistory
from tests.support.prometheus import FrontProxy, Reply, serving

HOUR = 3600
T0 = int(datetime(2026, 11, 20, 9, tzinfo=UTC).timestamp())
HISTORY = DataInterval(
    datetime(2026, 11, 20, 9, tzinfo=UTC), datetime(2026, 11, 20, 12, tzinfo=UTC)
)
RUN = DataInterval(datetime(2026, 11, 20, 10, tzinfo=UTC), datetime(2026, 11, 20, 12, tzinfo=UTC))
SCRAPE_S = 30
STEP_S = 600
GAP_S = 3 * SCRAPE_S  # as the reading and the observer: two missed points
PRODUCED = 400  # records/s per partition of `orders` (6 partitions: 2,400/s)
SATURATED = 250  # records/s per partition a saturated group commits: 1,500/s, 500 a member
BEHIND = 600  # records a keeping-up group trails per partition
GAP = (T0 + HOUR + 40 * 60, T0 + HOUR + 70 * 60)  # gappy's partition 0: 10:40 .. 11:10
NAN = (T0 + HOUR + 20 * 60, T0 + HOUR + 30 * 60)  # nan-group's partition 1: 10:20 .. 10:30
RESET_AT = T0 + 2 * HOUR  # reset-group's offsets set back 500,000 at 11:00


def _history() -> GroupHistory:
    times = np.arange(T0, T0 + 3 * HOUR + 301, SCRAPE_S, dtype=np.int64)
    since = (times - T0).astype(np.float64)
    h = GroupHistory(times)
    for p in range(6):
        end = 1_000_000.0 + PRODUCED * since
        h.ends[("orders", p)] = end
        h.committed[("indexer", "orders", p)] = 1_000_000.0 + SATURATED * since
        h.committed[("archiver", "orders", p)] = end - BEHIND
        h.committed[("gappy", "orders", p)] = end - BEHIND
        nan = end - BEHIND
        if p == 1:
            nan = np.where((times >= NAN[0]) & (times < NAN[1]), np.nan, nan)
        h.committed[("nan-group", "orders", p)] = nan
        saturated = 1_000_000.0 + SATURATED * since
        h.committed[("reset-group", "orders", p)] = np.where(
            times >= RESET_AT, saturated - 500_000, saturated
        )
        # Keeps up, but its exporter names no member (kafka_exporter's 0 for a KIP-848 group).
        h.committed[("no-members", "orders", p)] = end - BEHIND
        # Reads two topics: saturated on orders, keeping up on payments.
        h.committed[("fanout", "orders", p)] = 1_000_000.0 + SATURATED * since
    for p in range(2):
        h.ends[("payments", p)] = 50_000.0 + 20 * since
        h.committed[("fanout", "payments", p)] = 50_000.0 + 20 * since - 10
        # Commits on a topic whose end offsets no series carries.
        h.committed[("orphan", "ghost", p)] = 5_000.0 + 10 * since
    h.missing[("gappy", "orders", 0)] = (times >= GAP[0]) & (times < GAP[1])
    for group in ("indexer", "archiver", "gappy", "nan-group", "reset-group", "fanout"):
        h.members[group] = np.full(times.size, 3.0)
    h.members["orphan"] = np.full(times.size, 2.0)
    h.members["no-members"] = np.zeros(times.size)
    return h


HISTORY_OFFSETS = _history()


@pytest.fixture(scope="module")
def prometheus() -> Iterator[str]:
    with serving(HISTORY_OFFSETS.openmetrics()) as (url, *_):
        yield url


_READ: dict[str, Collected] = {}


def _read(url: str, exporter: str) -> Collected:
    """One preset's collection of the run (throughput of the history), read once."""
    if exporter not in _READ:
        source = PrometheusSource(
            url,
            step=timedelta(seconds=STEP_S),
            groups=PRESETS[exporter],
            group_sample_s=SCRAPE_S,
            clock=lambda: datetime(2026, 11, 21, tzinfo=UTC),
        )
        _READ[exporter] = source.collect(HISTORY, run=RUN)
    return _READ[exporter]


def _observer(group: str, topic: str, *, since_s: float | None = None) -> dict[str, object]:
    """The observer's path (`planner.collect.observations._group_consumption`) on the
    same offsets: per-partition series of the points held, the members per sample."""
    h = HISTORY_OFFSETS
    bounds = np.arange(RUN.start.timestamp(), RUN.end.timestamp() + 1, STEP_S, dtype=np.float64)
    times = h.times_s.astype(np.float64)
    ends = {p: (times, v) for (t, p), v in h.ends.items() if t == topic}
    committed = {}
    for g, t, p in h.committed:
        if (g, t) == (group, topic):
            at, values = h.points((g, t, p))
            keep = at >= (since_s or -np.inf)
            committed[p] = (at[keep], values[keep])
    owners = owners_per_window(bounds, times, h.members[group])
    return group_figures(group_windows(bounds, ends, committed, owners, gap_s=GAP_S))


def _notes(collected: Collected) -> str:
    return "\n".join(collected.notes)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_saturated_group_learns_its_capacity_as_the_observer_does(
    prometheus: str, exporter: str
) -> None:
    figures = _read(prometheus, exporter).group_figures[("indexer", "orders")]
    assert figures == _observer("indexer", "orders")
    assert figures["capacity_source"] == "saturation"
    assert figures["consumer_records_per_s"] == pytest.approx(500.0, rel=1e-9)
    # 150 records/s per partition more produced than consumed, for three hours.
    assert figures["lag_records"] == (PRODUCED - SATURATED) * 6 * 3 * HOUR
    # The oldest unconsumed record was appended when the end offset reached today's
    # committed offset: at 250/400 of the three hours.
    assert figures["lag_seconds"] == pytest.approx(3 * HOUR * (1 - SATURATED / PRODUCED))
    assert figures["lag_trend"] == "growing"


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_group_keeping_up_gets_a_lower_bound_and_a_steady_lag(
    prometheus: str, exporter: str
) -> None:
    figures = _read(prometheus, exporter).group_figures[("archiver", "orders")]
    assert figures == _observer("archiver", "orders")
    assert figures["capacity_source"] == "lower-bound"
    assert figures["consumer_records_per_s"] == pytest.approx(PRODUCED * 6 / 3)
    assert figures["lag_records"] == BEHIND * 6
    assert figures["lag_seconds"] == pytest.approx(BEHIND / PRODUCED)
    assert figures["lag_trend"] == "steady"


def _labels(exporter: str, group: str, partition: int) -> str:
    q = PRESETS[exporter]
    pairs = sorted({q.group: group, q.partition: str(partition), q.topic: "orders"}.items())
    return "{" + ",".join(f'{k}="{v}"' for k, v in pairs) + "}"


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_gap_is_named_and_only_its_windows_are_unknown(prometheus: str, exporter: str) -> None:
    collected = _read(prometheus, exporter)
    figures = collected.group_figures[("gappy", "orders")]
    assert figures == _observer("gappy", "orders")
    assert figures["capacity_source"] == "lower-bound"
    notes = _notes(collected)
    assert f"{_labels(exporter, 'gappy', 0)} has no point from 2026-11-20T10:39:30Z to " in notes
    # Prometheus bridges up to its 5 min lookback with the last scrape before the hole.
    assert PRESETS[exporter].committed in notes


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_nan_or_no_offset_points_are_left_out_with_a_note(prometheus: str, exporter: str) -> None:
    collected = _read(prometheus, exporter)
    figures = collected.group_figures[("nan-group", "orders")]
    assert figures == _observer("nan-group", "orders")
    assert figures["capacity_source"] == "lower-bound"
    assert (f"{_labels(exporter, 'nan-group', 1)} has 20 point(s) NaN or negative") in _notes(
        collected
    )


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_offsets_set_back_use_the_points_after_the_reset_only(
    prometheus: str, exporter: str
) -> None:
    collected = _read(prometheus, exporter)
    figures = collected.group_figures[("reset-group", "orders")]
    assert figures == _observer("reset-group", "orders", since_s=RESET_AT)
    assert figures["capacity_source"] == "saturation"
    assert figures["consumer_records_per_s"] == pytest.approx(500.0)
    assert "2026-11-20 11:00-12:00 UTC" in str(figures["capacity_evidence"])
    assert (
        f"{_labels(exporter, 'reset-group', 0)} goes down from 2,792,500 to 2,300,000 at "
        "2026-11-20T11:00:00Z"
    ) in _notes(collected)


@pytest.mark.parametrize("exporter", ["kafka_exporter", "kafka-lag-exporter"])
def test_a_group_without_end_offsets_is_named_and_costs_no_other_group(
    prometheus: str, exporter: str
) -> None:
    collected = _read(prometheus, exporter)
    assert collected.group_figures[("orphan", "ghost")] == dict.fromkeys(
        collected.group_figures[("indexer", "orders")]
    )
    notes = _notes(collected)
    assert "topic 'ghost' has no end offsets, so group 'orphan'" in notes
    assert PRESETS[exporter].end in notes
    assert {g for g, _ in collected.group_figures} == {
        "indexer",
        "archiver",
        "gappy",
        "nan-group",
        "reset-group",
        "fanout",
        "orphan",
        "no-members",
    }


def test_kminion_has_no_lag_without_end_offsets_so_no_such_group() -> None:
    # KMinion skips a group's topic it has no watermarks for (`collect_consumer_group_lags.go`),
    # so the history writes no lag series for it; its committed query, end minus lag, has none.
    lines = [line for line in HISTORY_OFFSETS.openmetrics().splitlines() if "orphan" in line]
    assert lines and not any(line.startswith("kminion_") and "lag" in line for line in lines)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_members_counted_per_group_claim_nothing_for_a_group_on_two_topics(
    prometheus: str, exporter: str
) -> None:
    collected = _read(prometheus, exporter)
    figures = collected.group_figures[("fanout", "orders")]
    if exporter == "kafka_exporter":
        # kafka_consumergroup_members counts the group's members, not who owns which
        # topic's partitions: no per-member rule may speak, the lag still does.
        assert figures["capacity_source"] == "topic-default"
        assert figures["consumer_records_per_s"] is None
        assert figures["lag_trend"] == "growing"
        assert "group 'fanout' is counted for the whole group, which reads 2 topics" in (
            _notes(collected)
        )
    else:
        assert figures == _observer("fanout", "orders")
        assert figures["capacity_source"] == "saturation"
        assert figures["consumer_records_per_s"] == pytest.approx(500.0)


@pytest.mark.parametrize("exporter", EXPORTERS)
def test_a_group_whose_owners_are_unknown_gets_no_per_member_claim(
    prometheus: str, exporter: str
) -> None:
    figures = _read(prometheus, exporter).group_figures[("no-members", "orders")]
    assert figures == _observer("no-members", "orders")
    # Kept up: without owners a lower bound would be a guess, so the topic's Tc applies.
    assert (figures["capacity_source"], figures["consumer_records_per_s"]) == (
        "topic-default",
        None,
    )
    assert (figures["lag_records"], figures["lag_trend"]) == (BEHIND * 6, "steady")


def test_queries_that_do_not_give_one_series_per_partition_are_named(prometheus: str) -> None:
    queries = group_queries(
        "kafka_exporter",
        {
            # Two families with the same labels: two series for every partition.
            "committed": (
                '{__name__=~"kafka_consumergroup_current_offset|kafka_consumergroup_lag",'
                'consumergroup="archiver"}'
            ),
            # Summed over partitions: no partition label left.
            "end": "sum by (topic) (kafka_topic_partition_current_offset)",
        },
    )
    source = PrometheusSource(
        prometheus,
        step=timedelta(seconds=STEP_S),
        groups=queries,
        group_sample_s=SCRAPE_S,
        clock=lambda: datetime(2026, 11, 21, tzinfo=UTC),
    )
    collected = source.collect(RUN)
    assert collected.group_figures == {}
    notes = _notes(collected)
    for family in ("kafka_consumergroup_current_offset", "kafka_consumergroup_lag"):
        assert (
            f'{{__name__="{family}",consumergroup="archiver",partition="0",topic="orders"}} is '
            "one of 2 series for this partition: the query must give one per partition"
        ) in notes
    assert '{topic="orders"} lacks the label(s) topic, partition' in notes


def test_a_partial_answer_is_said(prometheus: str) -> None:
    # The group reading asks first (committed, end, owners), then the throughput.
    with FrontProxy(prometheus, [Reply(warnings=("store eu-1 unavailable",))]) as proxy:
        collected = PrometheusSource(
            proxy.url,
            step=timedelta(seconds=STEP_S),
            groups=PRESETS["kminion"],
            group_sample_s=SCRAPE_S,
            clock=lambda: datetime(2026, 11, 21, tzinfo=UTC),
        ).collect(RUN)
    assert (
        "Prometheus warning on the consumer group committed query: store eu-1 unavailable"
    ) in _notes(collected)
    assert collected.group_figures[("indexer", "orders")]["capacity_source"] == "saturation"


def test_overrides_and_unknown_names_are_checked() -> None:
    custom = group_queries("kafka_exporter", {"owners": ""}, {"group": "group_id"})
    assert custom.owners is None and custom.group == "group_id"
    assert custom.committed == PRESETS["kafka_exporter"].committed
    with pytest.raises(ValueError, match="not an exporter preset"):
        group_queries("burrow")
    with pytest.raises(ValueError, match=r"query.*lag unknown"):
        group_queries("kminion", {"lag": "x"})
    with pytest.raises(ValueError, match="needs committed, end, group, topic, partition"):
        group_queries("custom")
    with pytest.raises(ValueError, match="end query is required"):
        group_queries("kminion", {"end": " "})
