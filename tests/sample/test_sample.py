"""The sample fleet generator: a landing folder that conforms, and a model that is there.

Small fleets only (40 topics x 8 days, 24 topics x 8 weeks); the 10,000-topic fleet is
timed in benchmarks/sample_bench.py.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq
import pytest

from planner.adapters.perf_test import read_perf_test
from planner.assignors import STRATEGIES
from planner.cli import main
from planner.collect.landing import LandingSource
from planner.figures import DataInterval, conform, dedupe
from planner.figures.schema import TABLES
from planner.growth import fit_growth
from planner.partition_capacity import partition_capacity
from planner.protocols import check_group_strategy, planned_strategy
from planner.recommend.alternatives import CONSUMER_PROTOCOL_COUNTERPART as COUNTERPART
from planner.sample import LandingSummary, build_fleet, default_end, write_landing
from planner.sample.capacity import MIB
from planner.sample.fleet import keys_per_sample
from planner.sample.groups import reported_as
from planner.sample.names import topic_names

SCRIPT = Path(sys.executable).with_name("partition-planner")
END = datetime(2026, 11, 23, tzinfo=UTC)  # a Monday: the 8 days hold one weekend
TOPICS, DAYS, SEED = 40, 8, 7


@pytest.fixture(scope="module")
def small_fleet(tmp_path_factory: pytest.TempPathFactory) -> LandingSummary:
    """40 topics x 8 days, seed 7, written to a fresh landing folder."""
    out = tmp_path_factory.mktemp("small") / "landing"
    return write_landing(out, topics=TOPICS, days=DAYS, seed=SEED, end=END)


@pytest.fixture(scope="module")
def eight_weeks(tmp_path_factory: pytest.TempPathFactory) -> LandingSummary:
    """24 topics x 56 days: long enough for a week-matched growth fit."""
    out = tmp_path_factory.mktemp("weeks") / "landing"
    return write_landing(out, topics=24, days=56, seed=3, end=END)


def read_raw(path: Path) -> pa.Table:
    """A landing file as a reader gets it: CSV all text, JSON lines and Parquet typed."""
    if path.suffix == ".csv":
        with path.open() as handle:
            columns = handle.readline().strip().split(",")
        return pacsv.read_csv(
            path,
            convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(columns, pa.string())),
        )
    if path.suffix == ".jsonl":
        return pajson.read_json(path)
    return pq.read_table(path)


def table_files(root: Path, name: str) -> list[Path]:
    return sorted((root / name).iterdir())


def throughput(summary: LandingSummary) -> pa.Table:
    return pa.concat_tables(pq.read_table(p) for p in table_files(summary.path, "throughput"))


def topic_series(table: pa.Table, topic: str) -> tuple[np.ndarray, np.ndarray]:
    rows = table.filter(pc.equal(table.column("topic"), topic)).sort_by("ts")
    ts_s = rows.column("ts").cast(pa.int64()).to_numpy() / 1e6
    return ts_s, rows.column("bytes_in_per_s").to_numpy()


# The landing folder


def test_layout_and_formats(small_fleet: LandingSummary) -> None:
    root = small_fleet.path
    assert sorted(p.name for p in root.iterdir()) == sorted(
        ["throughput", "topics", "capacity", "groups", "keys", "cluster", "perf"]
    )
    days = [p.name for p in table_files(root, "throughput")]
    first = END - timedelta(days=DAYS)
    assert days == [f"{(first + timedelta(days=d)).date()}.parquet" for d in range(DAYS)]
    assert [p.suffix for p in table_files(root, "topics")] == [".csv"]
    assert [p.suffix for p in table_files(root, "capacity")] == [".csv"]
    assert [p.suffix for p in table_files(root, "groups")] == [".jsonl"]
    assert [p.suffix for p in table_files(root, "cluster")] == [".csv"]
    assert {p.suffix for p in table_files(root, "keys")} == {".parquet"}
    assert all(re.fullmatch(r".+\.(producer|consumer)\.txt", p.name) for p in root.glob("perf/*"))
    # Nothing left beside the folder: the staging folder was renamed into place.
    assert [p.name for p in root.parent.iterdir()] == ["landing"]


@pytest.mark.parametrize("name", ["throughput", "topics", "capacity", "groups", "keys", "cluster"])
def test_every_file_conforms_with_no_rejected_row(small_fleet: LandingSummary, name: str) -> None:
    parts = []
    for path in table_files(small_fleet.path, name):
        raw = read_raw(path)
        assert set(raw.column_names) <= {c.name for c in TABLES[name].columns}, path
        result = conform(name, raw, source=str(path))
        assert result.rejected.num_rows == 0, result.rejected.to_pylist()[:3]
        assert result.table.num_rows == raw.num_rows
        parts.append(result.table)
    whole = pa.concat_tables(parts)
    assert dedupe(name, whole).rejected.num_rows == 0  # unique keys across files, too
    assert whole.num_rows == small_fleet.tables[name].rows


def test_the_landing_source_reads_it_all(small_fleet: LandingSummary) -> None:
    fleet = small_fleet.fleet
    collected = LandingSource(small_fleet.path).collect(DataInterval(fleet.start, fleet.end))
    assert sum(t.num_rows for t in collected.rejected) == 0
    rows = {name: sum(c.table.num_rows for c in parts) for name, parts in collected.parts.items()}
    assert rows["throughput"] == TOPICS * DAYS * 24
    # Capacity: the `*` row and the measured rows from CSV, one row per perf-tested topic.
    assert rows["capacity"] == small_fleet.tables["capacity"].rows + len(fleet.perf)


def test_same_seed_same_content_other_seed_other_fleet(
    small_fleet: LandingSummary, tmp_path: Path
) -> None:
    again = write_landing(tmp_path / "again", topics=TOPICS, days=DAYS, seed=SEED, end=END)
    files = sorted(p.relative_to(small_fleet.path) for p in small_fleet.path.rglob("*.*"))
    assert sorted(p.relative_to(again.path) for p in again.path.rglob("*.*")) == files
    for rel in files:
        one, two = small_fleet.path / rel, again.path / rel
        if rel.suffix == ".parquet":
            assert pq.read_table(one).equals(pq.read_table(two)), rel
        else:
            assert one.read_bytes() == two.read_bytes(), rel
    other = write_landing(tmp_path / "other", topics=TOPICS, days=DAYS, seed=SEED + 1, end=END)
    assert other.fleet.topics.names != small_fleet.fleet.topics.names
    assert not throughput(other).equals(throughput(small_fleet))


# The model is really in the figures


def test_records_and_bytes_agree_and_out_is_the_fan_out(small_fleet: LandingSummary) -> None:
    table = throughput(small_fleet)
    t = small_fleet.fleet.topics
    index = {name: i for i, name in enumerate(t.names)}
    for topic in t.names:
        rows = table.filter(pc.equal(table.column("topic"), topic))
        b_in = rows.column("bytes_in_per_s").to_numpy()
        r_in = rows.column("records_in_per_s").to_numpy()
        b_out = rows.column("bytes_out_per_s").to_numpy()
        i = index[topic]
        assert np.median(b_in / r_in) == pytest.approx(t.record_bytes[i], rel=0.02)
        fan_out = int(t.fan_out[i])
        if fan_out == 0:
            assert (b_out == 0).all()
        else:
            assert np.median(b_out / b_in) == pytest.approx(fan_out, rel=0.05)
    assert t.record_bytes.min() >= 100 and t.record_bytes.max() <= 10_240


def test_daily_cycle_peaks_in_local_business_hours(small_fleet: LandingSummary) -> None:
    table = throughput(small_fleet)
    t = small_fleet.fleet.topics
    business = np.flatnonzero((t.profile == 0) & (t.amplitude >= 0.5))
    assert business.size >= 5
    for i in business.tolist():
        ts_s, rate = topic_series(table, t.names[i])
        local_hour = np.mod(ts_s / 3600 + 0.5 + t.utc_offset_h[i], 24)
        near_peak = np.abs(local_hour - t.peak_hour[i]) <= 1.5
        night = np.abs(np.mod(local_hour - t.peak_hour[i] + 12, 24) - 12) >= 10
        assert np.median(rate[near_peak]) > 1.5 * np.median(rate[night]), t.names[i]


def test_weekends_are_quieter(small_fleet: LandingSummary) -> None:
    table = throughput(small_fleet)
    t = small_fleet.fleet.topics
    quiet = np.flatnonzero((t.profile == 0) & (t.weekend_factor <= 0.65))
    assert quiet.size >= 3
    for i in quiet.tolist():
        ts_s, rate = topic_series(table, t.names[i])
        local = ts_s / 3600 + 0.5 + t.utc_offset_h[i]
        weekday = (np.floor(local / 24).astype(np.int64) + 3) % 7  # 1970-01-01: Thursday
        hour = np.floor(np.mod(local, 24))
        ratios = []
        for h in range(24):  # the same local hour, weekend over weekday
            weekend = rate[(weekday >= 5) & (hour == h)]
            workday = rate[(weekday < 5) & (hour == h)]
            ratios.append(np.median(weekend) / np.median(workday))
        assert np.median(ratios) == pytest.approx(t.weekend_factor[i], abs=0.12), t.names[i]


def test_fitted_growth_follows_the_generated_growth(eight_weeks: LandingSummary) -> None:
    # Eight weeks of hourly noise leave a yearly growth fit uncertain by about +-0.1 to
    # +-0.2 per topic (the generator's own parameters fit exactly without noise), so the
    # check is on the fleet: fits track the generated growth, without bias.
    table = throughput(eight_weeks)
    t = eight_weeks.fleet.topics
    fitted = np.array([fit_growth(*topic_series(table, name)).per_year for name in t.names])
    generated = t.growth_per_year
    assert generated.min() < 0 < 0.8 < generated.max()  # shrinking and fast growers
    assert np.corrcoef(fitted, generated)[0, 1] > 0.9
    assert abs(np.mean(fitted - generated)) < 0.1
    assert np.median(np.abs(fitted - generated)) < 0.15


def test_fleet_mix_sizes_growth_partitions() -> None:
    fleet = build_fleet(2_000, 30, seed=11, end=END)
    t = fleet.topics
    mib = t.level_bytes_per_s / MIB
    assert np.median(mib) < 0.05 and mib.max() > 10  # many small topics, a few big ones
    assert 0.7 < np.mean((t.growth_per_year >= 0) & (t.growth_per_year <= 0.8)) < 0.9
    assert 0.05 < np.mean(t.growth_per_year < 0) < 0.15  # a few shrinking
    short = t.partitions < t.needed_partitions
    assert short.sum() >= 20 and (~short & (t.needed_partitions > 1)).sum() >= 20
    assert set(t.partitioner) == {"murmur2_random", "consistent_random", "fnv1a_random"}
    assert t.keyed.sum() == 40
    assert len(fleet.groups.ids) == 600
    assert fleet.bursts.topic.size > 0 and fleet.replays.topic.size > 0


# Tables that describe the fleet


def test_replication_factor_fits_the_brokers_in_three_racks(small_fleet: LandingSummary) -> None:
    root = small_fleet.path
    brokers = read_raw(root / "cluster" / "brokers.csv").to_pylist()
    topics = read_raw(root / "topics" / "topics.csv").to_pylist()
    assert len({b["rack"] for b in brokers}) == 3
    assert len(brokers) >= 6
    factors = [int(t["replication_factor"]) for t in topics]
    assert max(factors) <= len(brokers)
    assert np.mean(np.array(factors) == 3) >= 0.7  # mostly 3 (92 % across a big fleet)


def test_replicas_span_the_racks_and_leaders_spread_over_the_brokers(
    small_fleet: LandingSummary,
) -> None:
    from planner.cross_zone import replica_lists

    root = small_fleet.path
    brokers = read_raw(root / "cluster" / "brokers.csv").to_pylist()
    rack = {int(b["broker_id"]): b["rack"] for b in brokers}
    leaders: list[int] = []
    for t in read_raw(root / "topics" / "topics.csv").to_pylist():
        replicas = replica_lists(t["replicas"])
        assert len(replicas) == int(t["partitions"]), t["topic"]
        rf = int(t["replication_factor"])
        for brokers in replicas:
            assert len(brokers) == rf and set(brokers) <= set(rack)
            # As many racks as replicas, up to three: Kafka's rack-aware guarantee.
            assert len({rack[b] for b in brokers}) == min(rf, 3)
        leaders += [brokers[0] for brokers in replicas]
    counts = np.bincount(leaders, minlength=len(rack) + 1)[1:]
    assert counts.min() > 0.5 * counts.mean()  # every broker leads its share, roughly


def test_replica_assignment_doc_example_and_its_refusal() -> None:
    from planner.sample.racks import replica_assignment

    assert replica_assignment(4, 3, 3, 6) == "5:6:1,6:1:2,1:2:3"
    with pytest.raises(ValueError, match="replication factor 4"):
        replica_assignment(0, 1, 4, 3)


def test_some_groups_give_client_rack_spread_or_in_one_zone(small_fleet: LandingSummary) -> None:
    from planner.cross_zone import client_racks

    root = small_fleet.path
    racks = {b["rack"] for b in read_raw(root / "cluster" / "brokers.csv").to_pylist()}
    given: dict[str, set[str]] = {}
    unknown: set[str] = set()
    for line in (root / "groups" / "groups.jsonl").open():
        row = json.loads(line)
        if "client_rack" in row:
            given.setdefault(row["group_id"], set()).add(row["client_rack"])
        else:
            unknown.add(row["group_id"])
    assert not set(given) & unknown  # one value per group, on every row of it
    texts = [next(iter(v)) for v in given.values()]
    assert all(len(v) == 1 for v in given.values())
    assert all(set(client_racks(t)) <= racks for t in texts)
    assert {len(client_racks(t)) for t in texts} == {1, 3}
    # About half the groups say where their members run: both kinds of advice show.
    assert 0.3 < len(given) / (len(given) + len(unknown)) < 0.7


def test_keyed_topics_have_key_samples_and_groups(small_fleet: LandingSummary) -> None:
    root = small_fleet.path
    topics = read_raw(root / "topics" / "topics.csv").to_pylist()
    keyed = {t["topic"] for t in topics if t["keyed"] == "true"}
    assert len(keyed) == 3
    samples = {p.name.removesuffix(".parquet"): pq.read_table(p) for p in root.glob("keys/*")}
    assert set(samples) == keyed
    grouped = {json.loads(line)["topic"] for line in (root / "groups" / "groups.jsonl").open()}
    assert keyed <= grouped
    columns = set()
    for topic, sample in samples.items():
        assert sample.num_rows == keys_per_sample(TOPICS)
        assert set(sample.column("topic").unique().to_pylist()) == {topic}
        key = "key" if "key" in sample.column_names else "key_hex"
        columns.add(key)
        assert len(sample.column(key).unique()) == sample.num_rows
        counts = np.sort(sample.column("count").to_numpy())[::-1]
        share = counts / counts.sum()
        assert share[0] > 0.02  # a hot key
        assert share[: counts.size // 100].sum() > 0.1  # Zipf: 1 % of the keys, > 10 %
    assert columns == {"key", "key_hex"}  # UTF-8 and binary keys both


def test_groups_mix_strategies_and_some_read_several_topics(
    small_fleet: LandingSummary,
) -> None:
    rows = [json.loads(line) for line in (small_fleet.path / "groups" / "groups.jsonl").open()]
    topics_of: dict[str, set[str]] = {}
    for row in rows:
        topics_of.setdefault(row["group_id"], set()).add(row["topic"])
    assert any(len(t) > 1 for t in topics_of.values())
    assert all(check_group_strategy(r["protocol"], r["strategy"]) is None for r in rows)
    # Share groups of workers on keyless topics, some with more members than partitions.
    shared = [r for r in rows if r["protocol"] == "share"]
    assert len(shared) >= 3
    fleet = small_fleet.fleet
    index = {name: i for i, name in enumerate(fleet.topics.names)}
    for row in shared:
        i = index[row["topic"]]
        assert not fleet.topics.keyed[i] and row["members"] >= 1
    assert any(r["members"] > fleet.topics.partitions[index[r["topic"]]] for r in shared)
    fleet = build_fleet(1_000, 7, seed=SEED, end=END)
    assert 250 <= len(fleet.groups.ids) <= 350
    assert {STRATEGIES[s] for s in fleet.groups.strategy} == set(STRATEGIES)
    # Kafka 4's protocols beside the classic strategies: KIP-848 groups on the broker's
    # assignors, Kafka Streams applications on the classic protocol and KIP-1071's, each
    # relabelling a strategy drawn whose counts per member it keeps.
    topics = fleet.groups.topics_per_group.tolist()
    seen = set()
    for gi, s in enumerate(fleet.groups.strategy.tolist()):
        pair = reported_as(STRATEGIES[s], gi, topics=topics[gi])
        key = planned_strategy(*pair, topics=topics[gi])
        assert key == STRATEGIES[s] or COUNTERPART.get(STRATEGIES[s]) == key
        seen.add((*pair, topics[gi] > 1))
    assert {
        ("consumer", "uniform", False),
        ("consumer", "range", True),
        ("classic", "stream", False),
        ("streams", "sticky", False),
        ("streams", "sticky", True),
    } < seen
    most = np.zeros(len(fleet.groups.ids), dtype=np.int64)
    np.maximum.at(most, fleet.groups.row_group, fleet.topics.partitions[fleet.groups.row_topic])
    assert (fleet.groups.members > most).any()  # idle members
    assert (fleet.groups.members == 1).any()


def test_perf_files_parse_and_match_the_model(small_fleet: LandingSummary) -> None:
    fleet = small_fleet.fleet
    assert len(fleet.perf) >= 3
    for spec in fleet.perf:
        topic = fleet.topics.names[spec.topic]
        runs = [
            *read_perf_test(small_fleet.path / "perf" / f"{topic}.producer.txt"),
            *read_perf_test(small_fleet.path / "perf" / f"{topic}.consumer.txt"),
        ]
        capacity = partition_capacity(runs, topic)
        assert capacity.tp_mib_per_s is not None
        # The whole-run summary includes the slow first window; a steady-state one does not.
        low = 0.97 if spec.warmup else 0.85
        assert low * spec.producer_mib_per_s < capacity.tp_mib_per_s
        assert capacity.tp_mib_per_s < 1.03 * spec.producer_mib_per_s
        assert capacity.tc_mib_per_s == pytest.approx(spec.consumer_fetch_mib_per_s, rel=0.06)
    texts = [p.read_text() for p in sorted(small_fleet.path.glob("perf/*.txt"))]
    assert any(re.search(r"records/sec", t) and "steady state" in t for t in texts)
    # Every summary prints records/sec with %f, in 3.x and in 4.4.0 alike.
    summaries = [line for t in texts for line in t.splitlines() if "ms 99.9th." in line]
    assert summaries
    assert all(re.search(r"sent, \d+\.\d{6} records/sec", line) for line in summaries)
    assert any(t.startswith("time, threadId") for t in texts)  # --show-detailed-stats
    assert any(re.search(r", \d+,\d{4}, ", t) for t in texts)  # a German-locale JVM


def test_topic_names_are_legal_and_unique_at_scale() -> None:
    names = topic_names(np.random.default_rng(5), 12_000)
    assert len(set(names)) == 12_000
    assert all(re.fullmatch(r"[a-zA-Z0-9._-]{1,249}", n) and n not in {".", ".."} for n in names)
    assert any(n.startswith("payments.") for n in names)


def test_default_end_is_todays_utc_midnight() -> None:
    now = datetime(2026, 11, 22, 23, 30, tzinfo=UTC)
    assert default_end(now) == datetime(2026, 11, 22, tzinfo=UTC)
    later = datetime(2026, 11, 23, 0, 30, tzinfo=UTC) - timedelta(hours=2)
    assert default_end(later) == datetime(2026, 11, 22, tzinfo=UTC)


# Writing


def test_a_failed_run_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object) -> pa.Table:
        raise OSError("disk full")

    monkeypatch.setattr("planner.sample.landing.key_sample", broken)
    with pytest.raises(OSError, match="disk full"):
        write_landing(tmp_path / "landing", topics=10, days=1, seed=1, end=END)
    assert list(tmp_path.iterdir()) == []


def test_force_replaces_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "landing"
    out.mkdir()
    (out / "old.txt").write_text("yesterday's export")
    summary = write_landing(out, topics=5, days=1, seed=2, end=END, force=True)
    assert not (out / "old.txt").exists()
    assert summary.tables["throughput"].rows == 5 * 24
    assert [p.name for p in tmp_path.iterdir()] == ["landing"]


def test_cli_writes_and_summarises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fleet"
    argv = ["sample", "--topics", "12", "--days", "2", "--out", str(out), "--end", "2026-11-23"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "12 (3 keyed" in text and "2026-11-21 .. 2026-11-23" in text
    assert re.search(r"throughput +2 +576 ", text)  # 12 topics x 48 hours in 2 files
    assert main(argv) == 2  # now the folder is there
    assert "not empty (use --force" in capsys.readouterr().err
    assert main([*argv, "--force", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["tables"]["throughput"] == {
        "files": 2,
        "rows": 576,
        "bytes": sum(p.stat().st_size for p in (out / "throughput").iterdir()),
    }


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--topics", "-5", "--days", "2"], "--topics"),
        (["--topics", "5", "--days", "0"], "--days"),
        (["--topics", "5", "--days", "2", "--end", "22-11-2026"], "--end"),
        (["--topics", "5", "--days", "2", "--seed", "x"], "--seed"),
    ],
)
def test_bad_flags_give_one_line_and_exit_2(tmp_path: Path, extra: list[str], flag: str) -> None:
    argv = [str(SCRIPT), "sample", *extra, "--out", str(tmp_path / "x")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert flag in lines[0]
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("existing", ["folder", "file"])
def test_existing_out_is_refused(tmp_path: Path, existing: str) -> None:
    out = tmp_path / "landing"
    if existing == "folder":
        out.mkdir()
        (out / "keep.csv").write_text("topic\n")
    else:
        out.write_text("not a folder")
    argv = [str(SCRIPT), "sample", "--topics", "3", "--days", "1", "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("partition-planner sample: error: --out ")
    assert (out / "keep.csv").exists() if existing == "folder" else out.is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["landing"]


def test_an_unwritable_parent_fails_with_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the parent folder should be")
    argv = [str(SCRIPT), "sample", "--topics", "3", "--days", "1", "--out", str(blocker / "x")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(blocker) in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


@pytest.mark.parametrize("topics", [1, 2, 5])
def test_tiny_fleets_are_whole(tmp_path: Path, topics: int) -> None:
    summary = write_landing(tmp_path / "landing", topics=topics, days=1, seed=4, end=END)
    fleet = summary.fleet
    collected = LandingSource(summary.path).collect(DataInterval(fleet.start, fleet.end))
    assert sum(t.num_rows for t in collected.rejected) == 0
    rows = {name: sum(c.table.num_rows for c in parts) for name, parts in collected.parts.items()}
    assert rows["throughput"] == topics * 24
    assert rows["topics"] == topics
    assert rows["keys"] == min(topics, 3) * 1_000
    assert len(fleet.perf) == 1
