"""Units of `size_partitions`: topic ranges, the row groups each reads, the rows it gets."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from planner.figures import dataset
from planner.figures.dataset import DataInterval, write_interval
from planner.figures.schema import TABLES
from spark_jobs.figures import locate_run
from spark_jobs.keys import read_key_rows
from spark_jobs.settings import JobSettings, SparkSettings
from spark_jobs.size_partitions import throughput_mib, units_of
from spark_jobs.units import KEYED_WEIGHT, Unit, cut_units, read_samples, row_groups
from tests.spark_jobs.fleet import RUN_DAY, TOPICS, TopicSpec, snapshot_tables, throughput_rows

NAMES = [f"t{i:03d}" for i in range(40)]
SPECS = tuple(TopicSpec(name, 1.0 + i / 10, 200.0, 0.001) for i, name in enumerate(NAMES))


def _settings(units: int) -> JobSettings:
    # units_of aims for two units per shuffle partition.
    return JobSettings(spark=SparkSettings(shuffle_partitions=max(1, units // 2)))


def _owner(units: list[Unit], topic: str) -> list[int]:
    return [u.unit for u in units if u.owns(topic)]


def _all_samples(units: list[Unit]) -> pa.Table:
    # Every unit's samples, with the topic, in unit order.
    tables = []
    for unit in units:
        got = read_samples(unit)
        sizes = np.diff(got.starts)
        for topic in got.topics:
            assert unit.owns(topic), f"{topic} read by unit {unit.unit} that does not own it"
        topic = pa.array(np.repeat(np.array(got.topics, dtype=object), sizes), pa.string())
        tables.append(got.rows.add_column(0, "topic", topic))
    return pa.concat_tables(tables)


@pytest.fixture
def small_row_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Row groups of 40 rows, so that a few days of a few topics make many of them."""
    monkeypatch.setattr(dataset, "_MIN_GROUP_ROWS", 40)


def test_units_cover_every_topic_name_once_in_ascending_ranges() -> None:
    units = cut_units(NAMES, [False] * len(NAMES), [], None, units=4)
    assert len(units) == 4
    assert units[0].lo is None and units[-1].hi is None
    assert [u.hi for u in units[:-1]] == [u.lo for u in units[1:]]
    assert all(u.lo < u.hi for u in units if u.lo is not None and u.hi is not None)
    # Names the topics table does not hold still belong to one unit (unknown topics).
    for topic in [*NAMES, "", "a", "t0005", "zzz"]:
        assert len(_owner(units, topic)) == 1
    assert [sum(u.owns(t) for t in NAMES) for u in units] == [10, 10, 10, 10]
    assert all(u.samples == () and u.keys == () for u in units)


def test_a_keyed_topic_weighs_as_much_as_many_keyless_ones() -> None:
    keyed = [i < 4 for i in range(len(NAMES))]  # the four first topics are keyed
    units = cut_units(NAMES, keyed, [], None, units=4)
    weights = [
        sum(KEYED_WEIGHT if k else 1 for t, k in zip(NAMES, keyed, strict=True) if u.owns(t))
        for u in units
    ]
    total = KEYED_WEIGHT * 4 + 36
    # Each unit within one keyed topic of an equal share: the keyed topics' units hold
    # a topic or two, the last one every keyless topic.
    assert all(abs(w - total / 4) <= KEYED_WEIGHT for w in weights)
    assert [sum(u.owns(t) for t in NAMES) for u in units] == [2, 1, 1, 36]


def test_a_fleet_heavier_than_its_units_may_weigh_gets_more_units() -> None:
    # 40 keyless topics asked in 2 units of at most 10: 4 units of 10.
    units = cut_units(NAMES, [False] * len(NAMES), [], None, units=2, max_weight=10)
    assert [sum(u.owns(t) for t in NAMES) for u in units] == [10, 10, 10, 10]
    # A keyed topic alone outweighs the limit: one unit a topic at most.
    keyed = cut_units(NAMES[:3], [True] * 3, [], None, units=1, max_weight=10)
    assert len(keyed) == 3
    assert len(cut_units(NAMES, [False] * len(NAMES), [], None, units=2)) == 2


def test_fewer_topics_than_units_is_one_unit_a_topic() -> None:
    units = cut_units(["b", "a", "a"], [False, True, False], [], None, units=8)
    assert [(u.lo, u.hi) for u in units] == [(None, "b"), ("b", None)]


def _fleet(root: Path, days: int = 4) -> None:
    # A run and its history, the run's file holding a stray sample from the day before
    # (read from the day before's own file, not twice).
    for back in range(days, 0, -1):
        day = RUN_DAY - timedelta(days=back)
        write_interval(root, DataInterval.day(day), {"throughput": throughput_rows(day, SPECS)})
    run_rows = throughput_rows(RUN_DAY, SPECS)
    stray = run_rows.slice(5, 1).set_column(
        1,
        run_rows.schema.field("ts"),
        pc.subtract(run_rows.column("ts").slice(5, 1), pa.scalar(timedelta(hours=20))),
    )
    topics = pa.Table.from_pylist(
        [
            {f.name: None for f in TABLES["topics"].schema}
            | {"topic": t, "keyed": i % 10 == 0, "partitions": 4, "replication_factor": 3}
            for i, t in enumerate(NAMES)
        ],
        schema=TABLES["topics"].schema,
    )
    write_interval(
        root,
        DataInterval.day(RUN_DAY),
        {"throughput": pa.concat_tables([run_rows, stray]), **snapshot_tables(), "topics": topics},
    )


def test_reading_every_unit_gives_the_samples_spark_reads(
    spark: SparkSession, tmp_path: Path, small_row_groups: None
) -> None:
    _fleet(tmp_path)
    run = locate_run(tmp_path, "2026-11-21", lookback_days=4)
    units = units_of(run, _settings(4))
    assert len(units) == 4
    files = {f.file for u in units for f in u.samples}
    groups = sum(len(row_groups(f)) for f in files)
    read = sum(len(f.row_groups) for u in units for f in u.samples)
    assert groups < read < 2 * groups  # most row groups are read by one unit only
    ours = _all_samples(units)
    expected = (
        run.throughput(spark)
        .transform(throughput_mib)
        .orderBy("topic", "ts")
        .toArrow()
        .select(["topic", "ts", "mib_in", "records_in", "mib_out", "mib_out_busiest"])
    )
    assert ours.num_rows == 4 * 24 * len(NAMES)  # three days before the run, and its day
    assert ours.equals(expected.cast(ours.schema))


def test_an_unsorted_file_is_read_by_fewer_units_and_still_once(tmp_path: Path) -> None:
    rows = throughput_rows(RUN_DAY, SPECS)
    shuffled = rows.take(pa.array(np.random.default_rng(3).permutation(rows.num_rows)))
    path = tmp_path / "throughput.parquet"
    pq.write_table(shuffled, path, row_group_size=50)
    whole = [(path, [(0, 2**62)])]
    units = cut_units(NAMES, [False] * len(NAMES), whole, None, units=8)
    assert len(units) == 2  # every unit reads every row group: 8 and 4 read too much
    got = _all_samples(units)
    assert got.num_rows == rows.num_rows
    assert got.column("topic").to_pylist() == sorted(rows.column("topic").to_pylist())
    first = got.filter(pc.equal(got.column("topic"), "t000")).column("ts").to_pylist()
    assert first == sorted(first)


def test_a_unit_with_no_samples_reads_an_empty_table(tmp_path: Path) -> None:
    path = tmp_path / "throughput.parquet"
    pq.write_table(throughput_rows(RUN_DAY, TOPICS[:1]), path)
    unit = Unit(0, "x", None, (), ())
    got = read_samples(unit)
    assert got.topics == [] and got.rows.num_rows == 0 and got.starts.tolist() == [0]


def test_each_keyed_topic_s_rows_are_read_by_its_own_unit(
    tmp_path: Path, small_row_groups: None
) -> None:
    rng = np.random.default_rng(0)
    rows = [
        {"topic": t, "key": f"{t}-{int(rng.integers(0, 10_000))}", "count": float(i + 1)}
        for t in NAMES[::5]
        for i in range(30)
    ]
    keys = pa.Table.from_pylist(
        [{f.name: r.get(f.name) for f in TABLES["keys"].schema} for r in rows],
        schema=TABLES["keys"].schema,
    )
    write_interval(
        tmp_path,
        DataInterval.day(RUN_DAY),
        {"throughput": throughput_rows(RUN_DAY, SPECS), **snapshot_tables(), "keys": keys},
    )
    path = tmp_path / "interval=20261121T0000Z" / "keys.parquet"
    assert pq.ParquetFile(path).metadata.num_row_groups > 4
    keyed = [t in NAMES[::5] for t in NAMES]
    units = cut_units(NAMES, keyed, [], path, units=4)
    found: dict[str, list[tuple[bytes, float]]] = {}
    for unit in units:
        mine = [t for t in NAMES[::5] if unit.owns(t)]
        for topic, table in read_key_rows(unit.keys, mine, lo=unit.lo, hi=unit.hi).items():
            assert topic not in found
            found[topic] = list(
                zip(table.column("key").to_pylist(), table.column("count").to_pylist(), strict=True)
            )
    expected: dict[str, list[tuple[bytes, float]]] = {}
    for r in rows:
        expected.setdefault(r["topic"], []).append((r["key"].encode(), r["count"]))
    assert found == expected
