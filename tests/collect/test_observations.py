"""Figures of an interval from observations: exact counters, as they were in the interval.

The cluster is on paper (`tests.observe.synthetic`), so every figure is checked against
the truth; the live end-to-end run against Apache Kafka is `tests/observe/test_live.py`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from planner.collect.observations import ObservationsSource
from planner.collect.run import collect_interval, merge
from planner.figures import DataInterval, FiguresError
from planner.figures.dataset import read_manifest, read_table
from planner.observe.dataset import ObservationsDataset
from planner.observe.settings import ObserveSettings
from planner.partitioners import hash_to_hashed
from tests.observe.synthetic import PaperGroup, PaperTopic, every, write_samples

DAY = datetime(2026, 11, 26, tzinfo=UTC)
INTERVAL = DataInterval.day(DAY.date())
HOUR = timedelta(hours=1)
# Samples every five minutes, 17 s past: no sample falls on a window's end. (Tests
# write a day of samples, each synced to disk: a minute apart, that takes a minute.)
EVERY_S = 300.0
SETTINGS = ObserveSettings(observe_every_s=EVERY_S, step_s=3600.0)


def _moments(**skip: tuple[datetime, datetime]) -> list[datetime]:
    start = DAY - timedelta(minutes=10) + timedelta(seconds=17)
    return every(start, DAY + timedelta(days=1, minutes=10), EVERY_S, skip=skip.values())


def _tables(source: ObservationsSource, interval: DataInterval = INTERVAL) -> dict[str, pa.Table]:
    tables, rejected, _ = merge([source.collect(interval)])
    tables["rejected"] = rejected
    return tables


def _rows(table: pa.Table, topic: str) -> pa.Table:
    return table.filter(pc.equal(table.column("topic"), topic)).sort_by("ts")


def test_records_per_window_are_exact_and_bytes_are_the_reads_mean_size(tmp_path: Path) -> None:
    orders = PaperTopic("orders", 6, rate=12.0, record_bytes=250, keyed=True)
    quiet = PaperTopic("quiet", 3, rate=0.0)  # exists, never written to
    write_samples(ObservationsDataset(tmp_path), [orders, quiet], [], _moments(), every_s=EVERY_S)
    tables = _tables(ObservationsSource(tmp_path, SETTINGS))
    rows = _rows(tables["throughput"], "orders")
    assert rows.num_rows == 24
    assert rows.column("ts").to_pylist()[0] == DAY
    assert np.allclose(rows.column("records_in_per_s").to_numpy(), 12.0, rtol=1e-9)
    assert np.allclose(rows.column("bytes_in_per_s").to_numpy(), 12.0 * 250, rtol=1e-9)
    # A topic that exists and is never written to: a row of zeros per window.
    idle = _rows(tables["throughput"], "quiet")
    assert idle.num_rows == 24 and pc.max(idle.column("records_in_per_s")).as_py() == 0.0
    topics = {r["topic"]: r for r in tables["topics"].to_pylist()}
    assert topics["orders"]["keyed"] is True and topics["orders"]["partitions"] == 6
    assert topics["orders"]["observed_share"] == 1.0
    assert topics["quiet"]["keyed"] is False  # unknown: nothing read (noted)


def test_the_same_observations_give_the_same_tables_whenever_collected(tmp_path: Path) -> None:
    orders = PaperTopic("orders", 6, rate=12.0)
    group = PaperGroup("billing", "orders", 3, consumed=lambda at: orders.offsets(at))
    data = ObservationsDataset(tmp_path)
    # Collected "during the traffic": the samples up to 30 minutes past the day.
    write_samples(data, [orders], [group], _moments(), every_s=EVERY_S)
    first = _tables(ObservationsSource(tmp_path, SETTINGS))
    # "An hour after it stopped": later samples show the group gone, the topic silent.
    gone = PaperGroup("billing", "orders", 3, consumed=lambda _at: 0, active=lambda _at: False)
    later = every(DAY + timedelta(days=1, minutes=11), DAY + timedelta(days=1, hours=2), EVERY_S)
    write_samples(data, [PaperTopic("orders", 6, rate=0.0)], [gone], later, every_s=EVERY_S)
    second = _tables(ObservationsSource(tmp_path, SETTINGS))
    for name in ("throughput", "topics", "groups", "cluster"):
        assert second[name].equals(first[name]), name
    assert first["groups"].to_pylist()[0] | {"source": None} == {
        "group_id": "billing",
        "topic": "orders",
        "strategy": "range",
        "members": 3,
        "protocol": "classic",
        "source": None,
        # Its own capacity and lag, the same however late collected: it kept up, so a
        # lower bound (4 records/s per member), no lag, steady.
        "consumer_records_per_s": pytest.approx(4.0),
        "capacity_source": "lower-bound",
        "capacity_evidence": (
            "lower-bound 2026-11-26 00:00-01:00 UTC: kept up in 24 window(s); at most 4.0 "
            "records/s per member (12.0 with 3 member(s)), so its capacity is at least that"
        ),
        "lag_records": 0,
        "lag_seconds": 0.0,
        "lag_trend": "steady",
        # Not what a cluster's observations say: given in a landing groups file.
        "client_rack": None,
        # Not a Kafka Streams application.
        "stream_threads": None,
        "standby_replicas": None,
    }


def test_a_gap_inside_a_window_costs_resolution_not_records(tmp_path: Path) -> None:
    orders = PaperTopic("orders", 4, rate=8.0)
    lull = (DAY + timedelta(hours=10, minutes=5), DAY + timedelta(hours=10, minutes=50))
    write_samples(ObservationsDataset(tmp_path), [orders], [], _moments(gap=lull), every_s=EVERY_S)
    rows = _rows(_tables(ObservationsSource(tmp_path, SETTINGS))["throughput"], "orders")
    assert rows.num_rows == 24  # the 10:00 window's ends were both seen
    assert np.allclose(rows.column("records_in_per_s").to_numpy(), 8.0)


def test_a_window_whose_end_was_not_seen_is_left_out_and_coverage_says_so(tmp_path: Path) -> None:
    orders = PaperTopic("orders", 4, rate=8.0)
    outage = (DAY + timedelta(hours=10, minutes=50), DAY + timedelta(hours=11, minutes=10))
    write_samples(
        ObservationsDataset(tmp_path), [orders], [], _moments(gap=outage), every_s=EVERY_S
    )
    source = ObservationsSource(tmp_path, SETTINGS)
    cover = source.coverage(INTERVAL)
    assert (cover.windows, cover.windows_known) == (24, 22)
    rows = _rows(_tables(source)["throughput"], "orders")
    hours = [ts.hour for ts in rows.column("ts").to_pylist()]
    assert hours == [h for h in range(24) if h not in (10, 11)]


def test_too_little_coverage_stops_the_collection_and_says_how_to_get_a_day(
    tmp_path: Path,
) -> None:
    orders = PaperTopic("orders", 4, rate=8.0)
    moments = every(DAY + timedelta(hours=9, seconds=17), DAY + timedelta(hours=17), EVERY_S)
    write_samples(ObservationsDataset(tmp_path), [orders], [], moments, every_s=EVERY_S)
    source = ObservationsSource(tmp_path, SETTINGS)
    with pytest.raises(FiguresError) as caught:
        source.collect(INTERVAL)
    text = str(caught.value)
    # Samples from 09:00:17 to 16:55:17: the windows 10:00 to 16:00 have both ends seen.
    assert "cover 25% of" in text and "below min_coverage 80%" in text
    assert "--interval 2026-11-26T10:00Z/2026-11-26T16:00Z" in text
    assert "partition-planner observe" in text
    # The part observed can be planned.
    part = DataInterval.parse("2026-11-26T10:00Z/2026-11-26T16:00Z")
    assert _rows(_tables(source, part)["throughput"], "orders").num_rows == 6


def test_a_topic_created_inside_the_interval_had_nothing_before(tmp_path: Path) -> None:
    born = DAY + timedelta(hours=14, minutes=30)
    new = PaperTopic("new", 2, rate=4.0, created=born)
    old = PaperTopic("old", 2, rate=4.0, deleted=DAY + timedelta(hours=20))
    write_samples(ObservationsDataset(tmp_path), [new, old], [], _moments(), every_s=EVERY_S)
    tables = _tables(ObservationsSource(tmp_path, SETTINGS))
    rows = _rows(tables["throughput"], "new")
    rates = rows.column("records_in_per_s").to_numpy()
    assert rows.num_rows == 24
    assert (rates[:14] == 0).all()
    # Created between two samples in the 14:00 window: half of it, give or take a sample.
    assert rates[14] == pytest.approx(2.0, abs=4.0 * EVERY_S / 3600)
    assert np.allclose(rates[15:], 4.0)
    # Deleted before the end: not planned, and said so.
    assert tables["topics"].column("topic").to_pylist() == ["new"]
    assert (
        tables["throughput"].filter(pc.equal(tables["throughput"].column("topic"), "old")).num_rows
        == 0
    )


def test_a_catch_up_is_backlog_and_a_group_that_left_still_counts(tmp_path: Path) -> None:
    orders = PaperTopic("orders", 6, rate=12.0, record_bytes=1000)
    stop, back = DAY + timedelta(hours=8), DAY + timedelta(hours=9)

    def restarted(at: datetime) -> float:
        # Stopped for an hour, then catching up at three times the rate until level.
        if at < stop:
            return orders.offsets(at)
        lag = orders.offsets(back) - orders.offsets(stop)
        if at < back:
            return orders.offsets(stop)
        return (
            min(orders.offsets(at), orders.offsets(stop) + 36.0 * (at - back).total_seconds())
            + 0 * lag
        )

    keeping = PaperGroup("search", "orders", 2, consumed=lambda at: orders.offsets(at))
    burst = PaperGroup("billing", "orders", 3, consumed=restarted)
    left = PaperGroup(
        "audit",
        "orders",
        1,
        consumed=lambda at: orders.offsets(min(at, DAY + timedelta(hours=12))),
        active=lambda at: at < DAY + timedelta(hours=12),
    )
    write_samples(
        ObservationsDataset(tmp_path), [orders], [keeping, burst, left], _moments(), every_s=60
    )
    tables = _tables(ObservationsSource(tmp_path, SETTINGS))
    rows = _rows(tables["throughput"], "orders")
    bytes_in = rows.column("bytes_in_per_s").to_numpy()
    busiest = rows.column("busiest_group_bytes_out_per_s").to_numpy()
    out = rows.column("bytes_out_per_s").to_numpy()
    # The catch-up (09:00-09:30 at three times) never reads as more than production.
    assert np.all(busiest <= bytes_in * (1 + 1e-9))
    assert np.allclose(busiest, 12_000.0)
    # A window's ends are interpolated between the samples around them: a group that
    # stops or starts right at an end is off by at most one sampling period's records.
    period = 12_000.0 * EVERY_S / 3600
    # 08:00: billing read nothing, audit and search all: two groups' worth.
    assert out[8] == pytest.approx(2 * 12_000.0, abs=period)
    # 09:00: billing read everything produced plus backlog: counted as production only.
    assert out[9] == pytest.approx(3 * 12_000.0, abs=period)
    # After 12:00 audit has left: two groups.
    assert np.allclose(out[13:], 2 * 12_000.0)
    groups = {r["group_id"]: r["members"] for r in tables["groups"].to_pylist()}
    assert groups == {"search": 2, "billing": 3, "audit": 1}


def test_keyed_stays_keyed_through_a_lull_and_records_exclude_markers(tmp_path: Path) -> None:
    keyed = PaperTopic(
        "keyed",
        2,
        rate=4.0,
        keyed=True,
        # Nothing at all on the day planned (from before the samples around 00:00).
        lulls=[(DAY - timedelta(minutes=30), DAY + timedelta(days=2))],
    )
    txn = PaperTopic("txn", 2, rate=4.0, record_share=0.5)
    data = ObservationsDataset(tmp_path)
    before = every(DAY - timedelta(hours=2, seconds=-17), DAY - timedelta(minutes=12), EVERY_S)
    write_samples(data, [keyed, txn], [], before + _moments(), every_s=EVERY_S)
    tables = _tables(ObservationsSource(tmp_path, SETTINGS))
    topics = {r["topic"]: r["keyed"] for r in tables["topics"].to_pylist()}
    assert topics == {"keyed": True, "txn": False}
    assert np.allclose(
        _rows(tables["throughput"], "txn").column("records_in_per_s").to_numpy(), 4.0
    )
    assert np.allclose(
        _rows(tables["throughput"], "keyed").column("records_in_per_s").to_numpy(), 0.0
    )


def test_a_partition_without_a_leader_for_hours_lowers_its_topic_s_share(tmp_path: Path) -> None:
    down = (DAY + timedelta(hours=3, minutes=30), DAY + timedelta(hours=9, minutes=30))
    flaky = PaperTopic("flaky", 3, rate=3.0, leaderless=[(1, *down)])
    fine = PaperTopic("fine", 3, rate=3.0)
    write_samples(ObservationsDataset(tmp_path), [flaky, fine], [], _moments(), every_s=EVERY_S)
    source = ObservationsSource(tmp_path, SETTINGS)
    collected = source.collect(INTERVAL)
    tables, _, notes = merge([collected])
    shares = {r["topic"]: r["observed_share"] for r in tables["topics"].to_pylist()}
    # Ends 04:00 to 09:00 unseen: the seven windows from 03:00 to 10:00 are not known.
    assert shares == {"flaky": pytest.approx(17 / 24), "fine": 1.0}
    assert any("flaky 71%" in n for n in notes)


def test_collected_with_history_into_the_figures_dataset(tmp_path: Path) -> None:
    orders = PaperTopic("orders", 6, rate=12.0)
    start = DAY - timedelta(days=2, minutes=10) + timedelta(seconds=17)
    moments = every(start, DAY + timedelta(days=1, minutes=10), EVERY_S)
    write_samples(ObservationsDataset(tmp_path / "obs"), [orders], [], moments, every_s=EVERY_S)
    source = ObservationsSource(tmp_path / "obs", SETTINGS)
    report = collect_interval([source], INTERVAL, tmp_path / "figures", history_days=2)
    assert [str(h.start.date()) for h in report.history] == ["2026-11-24", "2026-11-25"]
    for day in ("20261124T0000Z", "20261125T0000Z", "20261126T0000Z"):
        rows = read_table(tmp_path / "figures", day, "throughput")
        assert rows is not None and rows.num_rows == 24
    manifest = read_manifest(tmp_path / "figures", INTERVAL)
    assert manifest is not None
    assert any("cover 100% of" in n for n in manifest["notes"]["notes"])


def test_the_key_sample_is_the_day_s_reservoir_as_hashes(tmp_path: Path) -> None:
    # One hot key with 30 % of the records among 200; the sample keeps no key value.
    weights = {b"hot": 0.3, **{f"user-{i}".encode(): 0.7 / 200 for i in range(200)}}
    orders = PaperTopic("orders", 6, rate=60.0, keyed=True, key_weights=weights)
    write_samples(ObservationsDataset(tmp_path), [orders], [], _moments(), every_s=EVERY_S)
    source = ObservationsSource(
        tmp_path, ObserveSettings(observe_every_s=EVERY_S, key_sample_size=500)
    )
    keys = _tables(source)["keys"]
    assert keys.column("key").null_count == keys.num_rows  # no key values
    assert keys.column("key_hex").null_count == keys.num_rows
    # A key's count is the records produced with it, estimated from the day's reservoir
    # of 500: together, about the day's 60 records/s (one standard error about 4.5 %).
    total = pc.sum(keys.column("count")).as_py()
    assert total == pytest.approx(60.0 * 86400, rel=0.15)
    hot = hash_to_hashed([b"hot"])
    top = keys.sort_by([("count", "descending")]).slice(0, 1).to_pylist()[0]
    assert [top["hash_murmur2"], top["hash_crc32"], top["hash_fnv1a"]] == [
        hot.field(h)[0].as_py() for h in ("murmur2", "crc32", "fnv1a")
    ]
    assert top["count"] / total == pytest.approx(0.3, abs=0.05)


def test_observations_that_break_their_suite_stop_the_collection(tmp_path: Path) -> None:
    from planner.observe.tables import sample_rows

    orders = PaperTopic("orders", 2, rate=2.0)
    data = ObservationsDataset(tmp_path)
    write_samples(data, [orders], [], _moments(), every_s=EVERY_S)
    # A sample whose end offset is negative: not something the observer writes.
    at = DAY + timedelta(hours=5, minutes=1)
    data.append(
        at,
        {
            "sample": sample_rows("sample", at, every_s=[EVERY_S], topics=[1], partitions=[1]),
            "partitions": sample_rows(
                "partitions", at, topic=["orders"], partition=[0], end_offset=[-5], leader=[1]
            ),
        },
    )
    with pytest.raises(FiguresError) as caught:
        ObservationsSource(tmp_path, SETTINGS).collect(INTERVAL)
    text = str(caught.value)
    assert "the observations' partitions rows of" in text and "break their suite" in text
    assert "suite partitions.observed failed 1 of" in text and "end_offset" in text


def test_replicas_and_racks_are_the_last_sample_s_for_the_cross_zone_figure(
    tmp_path: Path,
) -> None:
    from planner.cross_zone import replica_lists

    racks = {1: "a", 2: "b", 3: "c"}
    before = "1:2:3,2:3:1,3:1:2"
    # At noon partition 1's leader moves from broker 2 to broker 3 (2 fell behind): the
    # figure must fetch from the leader consumers had when the interval ended.
    after = "1:2:3,3:2:1,3:1:2"
    data = ObservationsDataset(tmp_path)
    noon = DAY + timedelta(hours=12)
    moments = _moments()
    orders = PaperTopic("orders", 3, rate=3.0, replicas=before)
    # A topic whose samples carry no replica list (a partition without a leader, or an
    # observer older than the column): it gets none, and the collection says so.
    legacy = PaperTopic("legacy", 2, rate=1.0)
    early = [m for m in moments if m < noon]
    late = [m for m in moments if m >= noon]
    write_samples(data, [orders, legacy], [], early, every_s=EVERY_S, racks=racks)
    orders.replicas = after
    write_samples(data, [orders, legacy], [], late, every_s=EVERY_S, racks=racks)
    tables, _, notes = merge([ObservationsSource(tmp_path, SETTINGS).collect(INTERVAL)])
    topics = {r["topic"]: r for r in tables["topics"].to_pylist()}
    assert topics["orders"]["replicas"] == after
    assert replica_lists(topics["orders"]["replicas"]) == ((1, 2, 3), (3, 2, 1), (3, 1, 2))
    assert topics["orders"]["replication_factor"] == 3
    assert topics["legacy"]["replicas"] is None
    cluster = {r["broker_id"]: r["rack"] for r in tables["cluster"].to_pylist()}
    assert cluster == racks
    assert any("1 topic(s) have no replica list" in n and n.endswith(": legacy") for n in notes), (
        notes
    )
