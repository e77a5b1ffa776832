"""Landing files into the figures dataset: every format, every kind of bad input."""

from __future__ import annotations

import json
import shutil
import threading
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from planner.adapters.perf_test import read_perf_test
from planner.cli import main
from planner.collect.landing import LandingSource
from planner.collect.run import collect_interval
from planner.figures import DataInterval, FiguresError, list_intervals, read_manifest, read_table
from planner.figures.refused import Refused, is_bad_figure, refused_rows
from planner.partition_capacity import partition_capacity

PERF = Path(__file__).resolve().parents[1] / "adapters" / "data" / "perf"
DAY = DataInterval.day(date(2026, 11, 21))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def landing(tmp_path: Path) -> Path:
    root = tmp_path / "landing"
    _write(
        root / "topics" / "topics.csv",
        "topic,partitions,replication_factor,keyed,partitioner,retention_ms\n"
        "orders,6,3,true,murmur2,604800000\n"
        "clicks,12,3,false,,\n",
    )
    _write(
        root / "throughput" / "a.csv",
        "topic,ts,bytes_in_per_s,records_in_per_s,unit\n"
        "orders,2026-11-20T23:00:00Z,1,1000,MiB/s\n"
        "orders,2026-11-21T00:00:00Z,2,2000,MiB/s\n"
        "orders,2026-11-21T01:00:00Z,-2,2000,MiB/s\n"
        "orders,2026-11-21T02:00:00Z,2\n"
        "clicks,2026-11-21T02:00:00Z,3.5,fast,KiB/s\n",
    )
    pq.write_table(
        pa.table(
            {
                "topic": ["clicks", "clicks", "orders"],
                "ts": pa.array(
                    [
                        datetime(2026, 11, 21, 3, tzinfo=UTC),
                        datetime(2026, 11, 21, 4, tzinfo=UTC),
                        datetime(2026, 11, 21, 0, tzinfo=UTC),  # repeats a.csv line 3
                    ],
                    pa.timestamp("ms", tz="UTC"),
                ),
                "bytes_in_per_s": [5000.0, 6000.0, 1.0],
                "records_in_per_s": [50.0, 60.0, 1.0],
                "bytes_out_per_s": [10_000.0, None, 2.0],
            }
        ),
        root / "throughput" / "b.parquet",
    )
    _write(
        root / "groups" / "groups.jsonl",
        json.dumps({"group_id": "billing", "topic": "orders", "strategy": "range", "members": 3})
        + "\n"
        + json.dumps({"group_id": "ghosts", "topic": "ghost", "strategy": "range", "members": 1})
        + "\n",
    )
    _write(
        root / "capacity" / "capacity.csv",
        "topic,producer_mib_per_s,consumer_mib_per_s\n*,20,5\norders,30,4\n",
    )
    _write(root / "cluster" / "cluster.csv", "broker_id,rack\n1,a\n2,b\n3,c\n")
    _write(
        root / "keys" / "orders.csv",
        "topic,key,count\norders,alice,10\nghost,carol,2\norders,bob,3\n",
    )
    (root / "perf").mkdir()
    for name in ("orders.producer.txt", "clicks.consumer.txt", "legacy.consumer.txt"):
        shutil.copy(PERF / name, root / "perf" / name)
    _write(root / "throughput" / "README.txt", "not a table\n")
    return root


def test_collects_every_table_from_csv_jsonl_and_parquet(landing: Path, tmp_path: Path) -> None:
    figures = tmp_path / "figures"
    report = collect_interval([LandingSource(landing)], DAY, figures)
    assert report.rows == {
        "topics": 2,
        "capacity": 3,  # *, orders (file), clicks (perf); orders from perf loses to the file
        "groups": 1,
        "keys": 2,
        "cluster": 3,
        "throughput": 3,  # orders 00:00; clicks 03:00, 04:00
    }
    throughput = read_table(figures, DAY, "throughput")
    assert throughput is not None
    rows = {(r["topic"], r["ts"].hour): r for r in throughput.to_pylist()}
    assert rows["orders", 0]["bytes_in_per_s"] == 2 * 1024 * 1024
    assert rows["clicks", 3]["bytes_out_per_s"] == 10_000.0
    assert rows["clicks", 4]["bytes_out_per_s"] is None
    capacity = read_table(figures, DAY, "capacity")
    assert capacity is not None
    by_topic = {r["topic"]: r for r in capacity.to_pylist()}
    assert by_topic["orders"]["producer_mib_per_s"] == 30.0  # the curated file wins
    measured = partition_capacity(read_perf_test(PERF / "clicks.consumer.txt"), "clicks")
    assert by_topic["clicks"]["consumer_mib_per_s"] == measured.tc_mib_per_s
    assert by_topic["clicks"]["consumer_records_per_s"] == measured.tc_records_per_s
    assert by_topic["clicks"]["source"].endswith("perf:clicks.consumer.txt")
    topics = read_table(figures, DAY, "topics")
    assert topics is not None
    assert topics.column("partitioner").to_pylist() == ["murmur2", "murmur2_random"]


def test_share_fetch_figures_come_from_capacity_files_and_share_perf_files(
    landing: Path, tmp_path: Path
) -> None:
    """The two optional share-fetch columns: given in a capacity file (alone, they are a
    figure), or measured from `kafka-share-consumer-perf-test` output in `perf/`; a value
    that is not above zero is rejected like any capacity."""
    _write(
        landing / "capacity" / "capacity.csv",
        "topic,producer_mib_per_s,consumer_mib_per_s,share_fetch_mib_per_s,"
        "share_fetch_records_per_s\n*,20,5,,\norders,,,12.5,12800\nzero,,,0,\nnegative,,,,-3\n",
    )
    shutil.copy(PERF / "kafka44-share2.share.txt", landing / "perf" / "s44.share.txt")
    figures = tmp_path / "figures"
    report = collect_interval([LandingSource(landing)], DAY, figures)
    capacity = read_table(figures, DAY, "capacity")
    assert capacity is not None
    by_topic = {r["topic"]: r for r in capacity.to_pylist()}
    assert by_topic["*"]["share_fetch_mib_per_s"] is None
    assert (
        by_topic["orders"]["share_fetch_mib_per_s"],
        by_topic["orders"]["producer_mib_per_s"],
    ) == (
        12.5,
        None,
    )
    assert by_topic["orders"]["share_fetch_records_per_s"] == 12_800.0
    measured = partition_capacity(read_perf_test(PERF / "kafka44-share2.share.txt"), "s44")
    assert by_topic["s44"]["share_fetch_mib_per_s"] == measured.share_fetch_mib_per_s
    assert by_topic["s44"]["share_fetch_records_per_s"] == measured.share_fetch_records_per_s
    assert by_topic["s44"]["consumer_mib_per_s"] is None  # never Tc
    assert by_topic["s44"]["source"].endswith("perf:s44.share.txt")
    assert "zero" not in by_topic and "negative" not in by_topic
    rejected = {
        (r["row"], r["field"], r["reason"])
        for r in report.rejected.to_pylist()
        if r["source"].endswith("capacity.csv")
    }
    assert rejected == {
        (4, "share_fetch_mib_per_s", "must be above zero"),
        (5, "share_fetch_records_per_s", "must be above zero"),
    }


def test_a_cluster_file_may_mark_brokers_down(landing: Path, tmp_path: Path) -> None:
    """`live` is optional: absent, it is empty (taken as up); given, a down broker stays a
    row, so the broker count stays the cluster's."""
    figures = tmp_path / "figures"
    collect_interval([LandingSource(landing)], DAY, figures)
    cluster = read_table(figures, DAY, "cluster")
    assert cluster is not None and cluster.column("live").null_count == 3
    _write(landing / "cluster" / "cluster.csv", "broker_id,rack,live\n1,a,true\n2,,false\n3,c,\n")
    collect_interval([LandingSource(landing)], DAY, figures)
    cluster = read_table(figures, DAY, "cluster")
    assert cluster is not None
    assert sorted((r["broker_id"], r["rack"], r["live"]) for r in cluster.to_pylist()) == [
        (1, "a", True),
        (2, None, False),
        (3, "c", None),
    ]


def test_bad_rows_are_rejected_with_file_row_and_field(landing: Path, tmp_path: Path) -> None:
    report = collect_interval([LandingSource(landing)], DAY, tmp_path / "figures")
    found = {
        (
            Path(r["source"].split(":", 1)[1]).name if ":" in r["source"] else r["source"],
            r["row"],
            r["field"],
        ): r["reason"]
        for r in report.rejected.to_pylist()
    }
    assert found[("a.csv", 4, "bytes_in_per_s")] == "negative"
    assert found[("a.csv", 5, None)].startswith("expected 5 fields, got 3")
    assert found[("a.csv", 6, "records_in_per_s")] == "not a number"
    assert found[("b.parquet", 3, "ts")].startswith(
        "duplicate (topic, ts): first given by landing:"
    )
    assert "a.csv row 3" in found[("b.parquet", 3, "ts")]
    assert found[("groups.jsonl", 2, "topic")].startswith("topic is not in the topics table")
    # Key-sample rows are kept with their topic dictionary-encoded; looked up the same.
    assert found[("orders.csv", 3, "topic")].startswith("topic is not in the topics table")
    keys = read_table(tmp_path / "figures", DAY, "keys")
    assert keys is not None and keys.column("key").to_pylist() == ["alice", "bob"]
    legacy = [r for r in report.rejected.to_pylist() if "legacy.consumer.txt" in r["source"]]
    assert len(legacy) == 1 and "rebalance.time.ms" in legacy[0]["reason"]
    stored = read_table(tmp_path / "figures", DAY, "rejected")
    assert stored is not None and stored.num_rows == report.rejected.num_rows
    assert "ignored" in " ".join(report.notes)  # README.txt


def test_history_days_are_collected_once_as_throughput_only(landing: Path, tmp_path: Path) -> None:
    figures = tmp_path / "figures"
    report = collect_interval([LandingSource(landing)], DAY, figures, history_days=3)
    assert [h.key for h in report.history] == ["20261120T0000Z"]
    manifest = read_manifest(figures, "20261120T0000Z")
    assert manifest is not None and manifest["tables"] == {"throughput": 1}
    assert manifest["notes"]["kind"] == "history"
    again = collect_interval([LandingSource(landing)], DAY, figures, history_days=3)
    assert again.history == ()  # already there
    assert [i.key for i in list_intervals(figures)] == ["20261120T0000Z", "20261121T0000Z"]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "t.csv",
            "topic,ts,bytes_in_per_s\norders,2026-11-21T00:00Z,1\n",
            "missing required column 'records_in_per_s'",
        ),
        ("t.csv", "", "the file is empty"),
        ("t.jsonl", '{"topic": "orders"}\n{"topic": \n', "row 2: not JSON"),
        ("t.parquet", "PAR1 but not really", "not a readable Parquet file"),
    ],
)
def test_an_unusable_file_stops_collection_and_writes_nothing(
    landing: Path, tmp_path: Path, name: str, text: str, message: str
) -> None:
    figures = tmp_path / "figures"
    collect_interval([LandingSource(landing)], DAY, figures)
    before = read_table(figures, DAY, "throughput")
    bad = _write(landing / "throughput" / name, text)
    with pytest.raises(FiguresError, match=message) as info:
        collect_interval([LandingSource(landing)], DAY, figures)
    assert str(bad) in str(info.value)
    after = read_table(figures, DAY, "throughput")
    assert after is not None and before is not None and after.equals(before)


def test_the_collect_command(
    landing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = tmp_path / "figures"
    code = main(
        [
            "collect",
            "--landing",
            str(landing),
            "--figures",
            str(figures),
            "--interval",
            "2026-11-21",
            "--history-days",
            "0",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "rejected rows: 8" in out
    assert "a.csv: row 4: field 'bytes_in_per_s' = '-2': negative" in out
    code = main(
        [
            "collect",
            "--landing",
            str(tmp_path / "missing"),
            "--figures",
            str(figures),
            "--interval",
            "2026-11-21",
        ]
    )
    assert code == 1
    assert "landing folder" in capsys.readouterr().err
    code = main(["collect", "--figures", str(figures), "--interval", "yesterday"])
    assert code == 2
    assert "--interval" in capsys.readouterr().err


class _HeldSource:
    """The landing source, held inside `collect` until the test lets it go."""

    def __init__(self, landing: Path) -> None:
        self._inner = LandingSource(landing)
        self.name = self._inner.name
        self.entered = threading.Event()
        self.release = threading.Event()

    def collect(self, interval: DataInterval, *, run: DataInterval | None = None) -> Any:
        self.entered.set()
        assert self.release.wait(30)
        return self._inner.collect(interval)


def test_concurrent_collections_never_write_history_over_a_collected_day(
    landing: Path, tmp_path: Path
) -> None:
    # A backfill runs the 20th and the 21st at once. The 21st's collection decides the
    # 20th is missing and reads it as history; meanwhile the 20th's own collection
    # writes the full day. Without taking turns, the history (throughput only) would
    # then replace the full day and the 20th's run would find no topics.
    figures = tmp_path / "figures"
    held = _HeldSource(landing)
    results: dict[str, Any] = {}
    later = threading.Thread(
        target=lambda: results.update(
            later=collect_interval([held], DAY, figures, history_days=3)  # type: ignore[list-item]
        )
    )
    later.start()
    assert held.entered.wait(30)
    day_before = DataInterval.day(date(2026, 11, 20))
    earlier = threading.Thread(
        target=lambda: results.update(
            earlier=collect_interval([LandingSource(landing)], day_before, figures)
        )
    )
    earlier.start()
    earlier.join(0.5)
    assert earlier.is_alive()  # waiting for its turn
    held.release.set()
    later.join(30)
    earlier.join(30)

    manifest = read_manifest(figures, day_before.key)
    assert manifest is not None and manifest["notes"]["kind"] == "run"
    assert "topics" in manifest["tables"]


def test_only_rows_refused_for_their_values_are_bad_figures(landing: Path, tmp_path: Path) -> None:
    # The fleet default capacity row unreadable, beside the fixture's bad rows,
    # duplicates and rows of unlisted topics.
    _write(
        landing / "capacity" / "capacity.csv",
        "topic,producer_mib_per_s,consumer_mib_per_s\n*,fast,5\norders,30,4\n",
    )
    collect_interval([LandingSource(landing)], DAY, tmp_path / "figures")
    rejected = read_table(tmp_path / "figures", DAY, "rejected")
    assert rejected is not None
    superseded = [r for r in rejected.to_pylist() if not is_bad_figure(r["reason"])]
    # Later copies of a key (b.parquet's repeated sample, the perf file's capacity for
    # a topic capacity.csv gives) and rows of topics the topics table does not list (a
    # topic deleted since) are not bad figures.
    assert sorted((r["table"], r["field"], r["topic"]) for r in superseded) == [
        # (The capacity table's key is topic and group: a duplicate names its last part.)
        ("capacity", "group_id", "orders"),
        ("groups", "topic", "ghost"),
        ("keys", "topic", "ghost"),
        ("throughput", "ts", "orders"),
    ]
    refused = refused_rows(rejected)
    # a.csv lines 4 (negative), 5 (too few fields) and 6 (not a number); the `*` row
    # and legacy.consumer.txt (the Kafka <= 2.7 perf-test bug).
    assert refused.rows == {"capacity": 2, "throughput": 3}
    capacity = landing / "capacity" / "capacity.csv"
    assert refused.default_capacity == (
        f"landing:{capacity}: row 2: field 'producer_mib_per_s' = 'fast': not a number",
    )
    a_csv = f"landing:{landing / 'throughput' / 'a.csv'}"
    assert refused.examples["throughput"] == (
        f"{a_csv}: row 5: expected 5 fields, got 3: 'orders,2026-11-21T02:00:00Z,2'",
        f"{a_csv}: row 4: field 'bytes_in_per_s' = '-2': negative",
        f"{a_csv}: row 6: field 'records_in_per_s' = 'fast': not a number",
    )
    # A rejected table written before rows named their topic: no `*` row can be told.
    old = rejected.drop_columns(["topic"])
    assert refused_rows(old).rows == refused.rows
    assert refused_rows(old).default_capacity == ()
    assert refused_rows(None) == refused_rows(rejected.slice(0, 0)) == Refused()


def test_a_group_s_tc_from_the_capacity_table_wins_over_a_groups_file_s(
    landing: Path, tmp_path: Path
) -> None:
    _write(
        landing / "groups" / "own.csv",
        "group_id,topic,strategy,members,consumer_records_per_s,capacity_source,"
        "capacity_evidence,lag_records,lag_seconds,lag_trend\n"
        "search,orders,range,2,800,,measured by the search team,1200,2.5,steady\n"
        "indexer,orders,range,3,300,busy-fraction,JMX 2026-11-20,,,\n"
        "bad,orders,range,3,300,guess,,,,\n",
    )
    _write(
        landing / "capacity" / "groups.csv",
        "topic,group_id,consumer_records_per_s\norders,indexer,420\n",
    )
    report = collect_interval([LandingSource(landing)], DAY, tmp_path / "figures")
    groups = read_table(tmp_path / "figures", DAY, "groups")
    assert groups is not None
    rows = {r["group_id"]: r for r in groups.to_pylist()}
    # Curated in the groups file: given, with its evidence and lag as written.
    assert rows["search"]["consumer_records_per_s"] == 800.0
    assert rows["search"]["capacity_source"] == "given"
    assert rows["search"]["capacity_evidence"] == "measured by the search team"
    assert (rows["search"]["lag_records"], rows["search"]["lag_seconds"]) == (1200, 2.5)
    # The capacity table's row for the group wins over the groups file's figure.
    assert rows["indexer"]["consumer_records_per_s"] == 420.0
    assert rows["indexer"]["capacity_source"] == "given"
    assert "capacity.csv" not in rows["indexer"]["capacity_evidence"]
    assert "groups.csv" in rows["indexer"]["capacity_evidence"]
    assert "bad" not in rows
    refused = [r for r in report.rejected.to_pylist() if r["source"].endswith("own.csv")]
    assert [(r["row"], r["field"]) for r in refused] == [(4, "capacity_source")]
    # The topic's own capacity row and the `*` row are still the topic's.
    capacity = read_table(tmp_path / "figures", DAY, "capacity")
    assert capacity is not None
    topic_rows = [r for r in capacity.to_pylist() if r["group_id"] is None]
    assert {r["topic"] for r in topic_rows} >= {"*", "orders"}


def test_racks_and_replicas_from_landing_files(landing: Path, tmp_path: Path) -> None:
    # Replicas in Kafka's --replica-assignment syntax (leader first) on the topics table,
    # each group's client.rack on the groups table. A member rack that no broker names is
    # kept (Kafka accepts any client.rack); a blank rack or bad replica text is refused
    # with its file, row and field.
    # Quoted: commas separate partitions.
    _write(
        landing / "topics" / "topics.csv",
        "topic,partitions,replication_factor,keyed,replicas\n"
        'orders,3,2,false,"1:2,2:3,3:1"\n'
        'clicks,2,2,false,"1:1,2:3"\n',
    )
    _write(landing / "cluster" / "cluster.csv", "broker_id,rack\n1,a\n2,b\n3,c\n")
    groups = _write(
        landing / "groups" / "racks.csv",
        "group_id,topic,strategy,members,client_rack\n"
        'payments,orders,range,3,"a,b,c"\n'
        "audit,orders,range,1,elsewhere\n"
        'blank,orders,range,2," "\n'
        'gap,orders,range,2,"a,,b"\n'
        "unknown,orders,range,2,\n",
    )
    report = collect_interval([LandingSource(landing)], DAY, tmp_path / "figures")
    topics = read_table(tmp_path / "figures", DAY, "topics")
    assert topics is not None
    assert {r["topic"]: r["replicas"] for r in topics.to_pylist()} == {"orders": "1:2,2:3,3:1"}
    kept = read_table(tmp_path / "figures", DAY, "groups")
    assert kept is not None
    racks = {r["group_id"]: r["client_rack"] for r in kept.to_pylist()}
    assert racks["payments"] == "a,b,c"
    assert racks["audit"] == "elsewhere"
    assert racks["unknown"] is None
    assert "blank" not in racks and "gap" not in racks
    refused = {
        (r["source"], r["row"], r["field"]): r["reason"] for r in report.rejected.to_pylist()
    }
    topics_csv = f"landing:{landing / 'topics' / 'topics.csv'}"
    assert "a broker is named twice" in refused[topics_csv, 3, "replicas"]
    assert "blank client.rack" in refused[f"landing:{groups}", 4, "client_rack"]
    assert "blank rack" in refused[f"landing:{groups}", 5, "client_rack"]


def test_standby_replicas_from_landing_files(landing: Path, tmp_path: Path) -> None:
    # A Kafka Streams application's num.standby.replicas is given on its groups rows; a
    # value that is not a whole number >= 0 is refused with its file, row and field, and
    # an empty one stays null (not given: the plan says so, it does not assume 0).
    groups = _write(
        landing / "groups" / "standbys.csv",
        "group_id,topic,strategy,members,standby_replicas\n"
        "wordcount,orders,stream,4,1\n"
        "fresh,orders,stream,2,0\n"
        "quiet,orders,stream,2,\n"
        "negative,orders,stream,2,-1\n"
        "half,orders,stream,2,1.5\n",
    )
    report = collect_interval([LandingSource(landing)], DAY, tmp_path / "figures")
    kept = read_table(tmp_path / "figures", DAY, "groups")
    assert kept is not None
    standbys = {r["group_id"]: r["standby_replicas"] for r in kept.to_pylist()}
    assert standbys["wordcount"] == 1
    assert standbys["fresh"] == 0
    assert standbys["quiet"] is None
    assert "negative" not in standbys and "half" not in standbys
    refused = {(r["source"], r["row"], r["field"]) for r in report.rejected.to_pylist()}
    assert (f"landing:{groups}", 5, "standby_replicas") in refused
    assert (f"landing:{groups}", 6, "standby_replicas") in refused
