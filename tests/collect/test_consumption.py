"""Each group's own capacity and lag, from observations of a cluster on paper.

The counters are known functions of time (`tests.observe.synthetic`), so the capacity a
group shows and its lag are known exactly: a group of 3 members each processing 500
records/s on a topic produced at 2,500 records/s falls behind by 1,000 records/s.
"""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from planner.collect import consumption
from planner.collect.base import Collected
from planner.collect.consumption import owners_per_window, with_given
from planner.collect.observations import ObservationsSource
from planner.collect.run import merge
from planner.figures import DataInterval
from planner.figures.conform import conform
from planner.observe.dataset import ObservationsDataset
from planner.observe.settings import ObserveSettings
from tests.observe.synthetic import PaperGroup, PaperTopic, every, write_samples

START = datetime(2026, 11, 20, 9, tzinfo=UTC)
RUN = DataInterval(START, START + timedelta(hours=2))
EVERY_S = 60.0
# Windows of a quarter of an hour: eight in the run, each seeing fifteen samples.
SETTINGS = ObserveSettings(observe_every_s=EVERY_S, step_s=900.0)
PRODUCED = 2_500.0  # records/s
PER_MEMBER = 500.0  # records/s one member processes flat out


def _collect(
    tmp_path: Path,
    groups: list[PaperGroup],
    topic: PaperTopic,
    settings: ObserveSettings = SETTINGS,
) -> dict[str, dict]:
    moments = every(
        RUN.start - timedelta(minutes=5, seconds=-17), RUN.end + timedelta(minutes=5), EVERY_S
    )
    write_samples(ObservationsDataset(tmp_path), [topic], groups, moments, every_s=EVERY_S)
    tables, rejected, _ = merge([ObservationsSource(tmp_path, settings).collect(RUN)])
    assert rejected.num_rows == 0, rejected.to_pylist()
    return {r["group_id"]: r for r in tables["groups"].to_pylist()}


@pytest.fixture(scope="module")
def two_groups(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """One topic at 2,500 records/s, a saturated group and one keeping up, 3 members each."""
    orders = PaperTopic("orders", 6, rate=PRODUCED)
    behind_from = START - timedelta(minutes=5)

    def saturated(at: datetime) -> float:
        # Level with production until just before the run, then 3 x 500 records/s.
        if at < behind_from:
            return orders.offsets(at)
        return orders.offsets(behind_from) + 3 * PER_MEMBER * (at - behind_from).total_seconds()

    return _collect(
        tmp_path_factory.mktemp("observations"),
        [
            PaperGroup("indexer", "orders", 3, consumed=saturated),
            PaperGroup("archiver", "orders", 3, consumed=orders.offsets),
        ],
        orders,
    )


def test_a_saturated_group_learns_its_rate_over_its_owning_members(two_groups: dict) -> None:
    row = two_groups["indexer"]
    assert row["capacity_source"] == "saturation"
    assert row["consumer_records_per_s"] == pytest.approx(PER_MEMBER, rel=0.10)
    assert row["capacity_evidence"].startswith("saturation 2026-11-20 09:00-11:00 UTC: 8 windows")
    assert "3 member(s)" in row["capacity_evidence"]
    assert row["lag_trend"] == "growing"
    # At 11:00 it is 125 minutes behind at 1,000 records/s (to a record per partition).
    assert row["lag_records"] == pytest.approx(1_000.0 * 125 * 60, abs=6)
    # The oldest record not read was produced when the end offset was at today's
    # committed offset: 60 % of the way from 08:55, so 40 % of 125 minutes ago.
    assert row["lag_seconds"] == pytest.approx(0.4 * 125 * 60, abs=1.0)


def test_a_group_keeping_up_gets_a_lower_bound_and_a_steady_lag(two_groups: dict) -> None:
    row = two_groups["archiver"]
    assert row["capacity_source"] == "lower-bound"
    # At least what each member read: the whole production over 3 members.
    assert row["consumer_records_per_s"] == pytest.approx(PRODUCED / 3, rel=1e-3)
    assert "at least" in row["capacity_evidence"]
    assert row["lag_trend"] == "steady"
    assert row["lag_records"] == 0
    assert row["lag_seconds"] == 0.0


def test_the_consumers_commit_interval_decides_what_growth_is_noise(tmp_path: Path) -> None:
    # 3 members at 830 records/s each fall behind 2,500 by 10 records/s: 9,000 records a
    # window. Committing every 5 s (the default), a window's lag is uncertain by 2 x 5 s
    # of 2,490 records/s, 24,900: no window grew, yet over the two hours the lag did
    # (72,000 records), so the group did not keep up either: no figure of its own,
    # neither a capacity nor a bound. Committing every second, 4,980: every window grew,
    # and the group's capacity is learned.
    orders = PaperTopic("orders", 6, rate=PRODUCED)
    behind_from = START - timedelta(minutes=5)

    def slightly_behind(at: datetime) -> float:
        if at < behind_from:
            return orders.offsets(at)
        return orders.offsets(behind_from) + 3 * 830.0 * (at - behind_from).total_seconds()

    group = PaperGroup("indexer", "orders", 3, consumed=slightly_behind)
    default = _collect(tmp_path / "default", [group], orders)["indexer"]
    assert (default["capacity_source"], default["lag_trend"]) == ("topic-default", "growing")
    assert default["consumer_records_per_s"] is None
    every_second = ObserveSettings(observe_every_s=EVERY_S, step_s=900.0, commit_interval_s=1.0)
    learned = _collect(tmp_path / "every-second", [group], orders, every_second)["indexer"]
    assert (learned["capacity_source"], learned["lag_trend"]) == ("saturation", "growing")
    assert learned["consumer_records_per_s"] == pytest.approx(830.0, rel=1e-3)


def test_a_rebalance_inside_a_window_makes_its_owners_unknown() -> None:
    bounds = [0, 60, 120, 180, 240]
    # 3 members, then 2 from 130 s; no sample in the last window.
    owners = owners_per_window(bounds, [10, 50, 70, 110, 130, 170], [3, 3, 3, 3, 2, 2])
    assert owners.tolist() == [3, 3, 2, 0]
    owners = owners_per_window(bounds, [10, 70, 100, 130], [3, 3, 2, 2])
    assert owners.tolist() == [3, 0, 2, 0]


def test_a_capacity_row_for_the_group_wins_over_the_learned_one(two_groups: dict) -> None:
    learned = two_groups["indexer"]
    groups = conform(
        "groups",
        pa.table(
            {k: [learned[k]] for k in learned if k != "source"},
        ),
        source="kafka-observations",
    ).table
    capacity = conform(
        "capacity",
        pa.table(
            {
                "topic": ["*", "orders", "orders", "orders"],
                "group_id": [None, None, "indexer", "nobody"],
                "producer_mib_per_s": ["50", "40", None, None],
                "consumer_records_per_s": ["9000", "8000", "420", "100"],
            }
        ),
        source="landing:capacity.csv",
    )
    assert capacity.rejected.num_rows == 0
    merged, notes = with_given(groups, capacity.table)
    row = merged.to_pylist()[0]
    assert row["consumer_records_per_s"] == 420.0
    assert row["capacity_source"] == "given"
    assert row["capacity_evidence"] == "given in the capacity table (landing:capacity.csv)"
    # What was observed of the group stays.
    assert row["lag_trend"] == "growing" and row["lag_records"] == learned["lag_records"]
    assert notes == [
        "capacity: a row gives group 'nobody' a Tc on topic 'orders', but the group does "
        "not read it in the interval: not used"
    ]


def test_merge_applies_the_given_capacity(two_groups: dict) -> None:
    learned = two_groups["archiver"]
    collected = Collected(source="test")
    collected.add(
        "groups",
        conform("groups", pa.table({k: [learned[k]] for k in learned}), source="obs"),
    )
    collected.add(
        "capacity",
        conform(
            "capacity",
            pa.table(
                {
                    "topic": ["orders", "orders"],
                    "group_id": [None, "archiver"],
                    "consumer_records_per_s": [5_000.0, 3_000.0],
                }
            ),
            source="landing",
        ),
    )
    tables, rejected, _ = merge([collected])
    assert rejected.num_rows == 0
    assert tables["capacity"].num_rows == 2  # a topic row and a group row on one topic
    row = tables["groups"].to_pylist()[0]
    assert (row["capacity_source"], row["consumer_records_per_s"]) == ("given", 3_000.0)


def test_merge_fills_described_groups_with_an_exporters_figures_and_keeps_their_own(
    two_groups: dict,
) -> None:
    observed = two_groups["indexer"]
    described = Collected(source="kafka:localhost:9092")
    # from_pylist takes its columns from the first row: the one with figures first.
    rows = [
        {k: observed[k] for k in observed if k != "source"},
        {"group_id": "archiver", "topic": "orders", "strategy": "range", "members": 3},
    ]
    described.add("groups", conform("groups", pa.Table.from_pylist(rows), source="kafka"))
    exporter = Collected(source="prometheus:http://prom:9090")
    exporter.group_figures = {
        ("archiver", "orders"): two_groups["archiver"] | {"lag_records": 1_234},
        ("indexer", "orders"): dict.fromkeys(consumption.GROUP_FIGURES),
        ("ghost", "orders"): two_groups["archiver"],
    }
    tables, rejected, notes = merge([described, exporter])
    assert rejected.num_rows == 0
    by_group = {r["group_id"]: r for r in tables["groups"].to_pylist()}
    archiver = by_group["archiver"]
    # The describing source gave no figures: the exporter's are written in, whole.
    assert archiver["capacity_source"] == two_groups["archiver"]["capacity_source"]
    assert archiver["consumer_records_per_s"] == two_groups["archiver"]["consumer_records_per_s"]
    assert (archiver["lag_records"], archiver["strategy"]) == (1_234, "range")
    # The observer's own figures are kept over the exporter's empty ones.
    assert by_group["indexer"]["capacity_source"] == "saturation"
    assert by_group["indexer"]["lag_records"] == observed["lag_records"]
    assert "ghost" not in by_group
    assert (
        "prometheus:http://prom:9090: 1 group subscription(s) have offsets but no source "
        "describes the group (members, assignor), so they are not planned: 'ghost' on 'orders'"
    ) in notes


def test_the_docstring_examples() -> None:
    failed, attempted = doctest.testmod(consumption)
    assert attempted >= 2 and failed == 0


def test_lag_is_never_negative_when_a_commit_is_read_after_the_end_offset() -> None:
    bounds = np.array([0.0, 60.0, 120.0])
    ends = {0: (np.array([0.0, 60.0, 120.0]), np.array([0.0, 600.0, 1200.0]))}
    committed = {0: (np.array([0.0, 60.0, 120.0]), np.array([0.0, 605.0, 1200.0]))}
    found = consumption.group_windows(bounds, ends, committed, np.array([1, 1]), gap_s=180.0)
    assert found is not None
    assert found.windows.lag_end.tolist() == [0.0, 0.0]


def test_a_first_sources_row_without_figures_takes_them_from_a_later_source(
    two_groups: dict,
) -> None:
    # A landing groups file listed before kafka names the group's strategy and size but
    # nothing of its consumption; the observer learned its Tc and lag. The row is
    # landing's, the figures the observer's, as one block, and a note says so.
    learned = two_groups["indexer"]
    landing = Collected(source="landing")
    landing.add(
        "groups",
        conform(
            "groups",
            pa.table(
                {
                    "group_id": ["indexer", "archiver"],
                    "topic": ["orders", "orders"],
                    "strategy": ["cooperative-sticky", "range"],
                    "members": [5, 3],
                }
            ),
            source="landing:groups.csv",
        ),
    )
    observed = Collected(source="kafka")
    observed.add(
        "groups",
        conform(
            "groups",
            pa.table({k: [learned[k]] for k in learned if k != "source"}),
            source="kafka-observations",
        ),
    )
    tables, rejected, notes = merge([landing, observed])
    rows = {r["group_id"]: r for r in tables["groups"].to_pylist()}
    indexer = rows["indexer"]
    assert (indexer["strategy"], indexer["members"]) == ("cooperative-sticky", 5)
    assert indexer["source"] == "landing:groups.csv"
    for name in consumption.GROUP_FIGURES:
        assert indexer[name] == learned[name], name
    assert indexer["capacity_source"] == "saturation"
    # The group kafka says nothing of keeps nothing.
    assert all(rows["archiver"][name] is None for name in consumption.GROUP_FIGURES)
    # The later row is still a duplicate of the key (its strategy and size lost).
    assert rejected.column("table").to_pylist() == ["groups"]
    assert (
        "groups: group 'indexer' on topic 'orders': its row from 'landing:groups.csv' has "
        "no capacity or lag figures; those of 'kafka-observations' are used"
    ) in notes


def test_a_first_sources_own_figures_are_never_mixed_with_a_later_ones(two_groups: dict) -> None:
    # A landing row with a lag trend of its own keeps its block, though it has no Tc.
    learned = two_groups["indexer"]
    first = conform(
        "groups",
        pa.table(
            {
                "group_id": ["indexer"],
                "topic": ["orders"],
                "strategy": ["range"],
                "members": [3],
                "lag_records": [10.0],
                "lag_trend": ["steady"],
            }
        ),
        source="landing:groups.csv",
    ).table
    later = conform(
        "groups",
        pa.table({k: [learned[k]] for k in learned if k != "source"}),
        source="kafka-observations",
    ).table
    merged, notes = consumption.with_figures_of_later_sources(pa.concat_tables([first, later]))
    row = merged.to_pylist()[0]
    assert (row["lag_trend"], row["consumer_records_per_s"], row["lag_records"]) == (
        "steady",
        None,
        10.0,
    )
    assert notes == []
