"""Key samples read by the task that plans their topics: units, rows, bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from planner.figures.schema import TABLES
from spark_jobs.keys import KeyUnit, key_units, read_key_rows, unhex
from spark_jobs.planning import sample_from_rows, size_key_unit, size_keyed
from spark_jobs.settings import JobSettings
from spark_jobs.size_partitions import key_rows
from tests.spark import arrow_inputs as ai

SCHEMA = TABLES["keys"].schema


def _keys_table(topics: list[str], per_topic: int, seed: int = 0) -> pa.Table:
    """`per_topic` key rows for each topic, text keys with a few hex ones and a null."""
    rng = np.random.default_rng(seed)
    rows = []
    for topic in topics:
        for i in range(per_topic):
            key = f"{topic}-k{int(rng.integers(0, 10 * per_topic))}"
            if i == 0:
                rows.append({"topic": topic, "count": 3.0})  # the null key
            elif i % 7 == 0:
                rows.append({"topic": topic, "key_hex": key.encode().hex(), "count": float(i)})
            else:
                rows.append({"topic": topic, "key": key, "count": float(i)})
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _write(table: pa.Table, path: Path, row_group_size: int) -> Path:
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


def _all_rows(units: list[KeyUnit], topics: list[str]) -> dict[str, list[tuple[bytes, float]]]:
    out: dict[str, list[tuple[bytes, float]]] = {}
    for unit in units:
        mine = [t for t in topics if unit.owns(t)]
        for topic, rows in read_key_rows(unit.parts, mine, lo=unit.lo, hi=unit.hi).items():
            assert topic not in out, f"{topic} read by two units"
            out[topic] = sorted(
                zip(rows.column("key").to_pylist(), rows.column("count").to_pylist(), strict=True),
                key=repr,
            )
    return out


def _expected(table: pa.Table) -> dict[str, list[tuple[bytes, float]]]:
    out: dict[str, list[tuple[bytes, float]]] = {}
    for row in table.to_pylist():
        key = (
            row["key"].encode()
            if row["key"] is not None
            else bytes.fromhex(row["key_hex"])
            if row["key_hex"] is not None
            else None
        )
        out.setdefault(row["topic"], []).append((key, row["count"]))
    return {t: sorted(rows, key=repr) for t, rows in out.items()}


def test_a_sorted_file_is_cut_into_units_that_each_own_whole_topics(tmp_path: Path) -> None:
    topics = [f"t{i:02d}" for i in range(30)]
    table = _keys_table(topics, 50)  # sorted by topic, as the collector writes it
    path = _write(table, tmp_path / "keys.parquet", row_group_size=170)  # topics straddle
    units = key_units(path, units=4)
    assert len(units) == 4
    assert units[0].lo is None and units[-1].hi is None
    assert [u.hi for u in units[:-1]] == [u.lo for u in units[1:]]
    assert all(sum(u.owns(t) for u in units) == 1 for t in topics)
    read = sum(len(u.parts) for u in units)
    assert read < 2 * pq.ParquetFile(path).metadata.num_row_groups
    assert _all_rows(units, topics) == _expected(table)


def test_an_unsorted_file_is_read_by_one_unit(tmp_path: Path) -> None:
    topics = [f"t{i:02d}" for i in range(12)]
    table = _keys_table(topics, 40)
    shuffled = table.take(pa.array(np.random.default_rng(1).permutation(table.num_rows)))
    path = _write(shuffled, tmp_path / "keys.parquet", row_group_size=60)
    units = key_units(path, units=4)
    assert len(units) == 1 and units[0].lo is None and units[0].hi is None
    assert _all_rows(units, topics) == _expected(table)


def test_no_keys_table_is_one_empty_unit(tmp_path: Path) -> None:
    for path in (None, tmp_path / "missing.parquet"):
        assert key_units(path, units=8) == [KeyUnit(0, None, None, ())]
    assert read_key_rows([], ["t"]) == {}


def test_only_the_topics_asked_for_are_read(tmp_path: Path) -> None:
    table = _keys_table(["a", "b", "c"], 20)
    path = _write(table, tmp_path / "keys.parquet", row_group_size=25)
    (unit,) = key_units(path, units=1)
    rows = read_key_rows(unit.parts, ["c", "a", "zz"], lo="b")
    assert sorted(rows) == ["c"]  # "a" is below the range, "zz" has no rows


def test_unhex_is_sparks() -> None:
    texts = pa.array(["6162", "00ff", "", None, "ABcd"])
    assert unhex(texts).to_pylist() == [b"ab", b"\x00\xff", b"", None, b"\xab\xcd"]
    # An odd length reads with a leading zero; a non-hex digit gives null (Spark's unhex).
    assert unhex(pa.array(["abc", "zz", "0"])).to_pylist() == [b"\x0a\xbc", None, b"\x00"]
    assert unhex(pa.array(["00", "6162", "ff"]).slice(1)).to_pylist() == [b"ab", b"\xff"]
    assert unhex(pa.array([None, "6162", None, "ff"]).slice(1)).to_pylist() == [
        b"ab",
        None,
        b"\xff",
    ]


def test_read_key_rows_gives_the_bytes_of_the_spark_transform(
    spark: SparkSession, tmp_path: Path
) -> None:
    table = _keys_table(["orders"], 60, seed=3)
    path = _write(table, tmp_path / "keys.parquet", row_group_size=1000)
    from spark_jobs.schemas import figures_schema

    frame = key_rows(spark.read.schema(figures_schema("keys")).parquet(str(path)))
    by_spark = sorted(((r["key"], r["count"]) for r in frame.collect()), key=repr)
    (unit,) = key_units(path, units=1)
    rows = read_key_rows(unit.parts, ["orders"])["orders"]
    mine = zip(rows.column("key").to_pylist(), rows.column("count").to_pylist(), strict=True)
    assert sorted(mine, key=repr) == [(None if k is None else bytes(k), c) for k, c in by_spark]


def test_a_key_unit_sizes_its_topics_as_one_topic_at_a_time(tmp_path: Path) -> None:
    keys = _keys_table(["orders", "payments"], 300)
    path = _write(keys, tmp_path / "keys.parquet", row_group_size=128)
    facts = pa.concat_tables(
        [ai.facts(name, keyed=True, partitions=6) for name in ("orders", "payments")]
    )
    samples_type = pa.list_(pa.struct(list(ai.THROUGHPUT.remove(0))))
    samples = [
        ai.hourly(name).drop_columns(["topic"]).to_struct_array().to_pylist()
        for name in ("orders", "payments")
    ]
    topic_rows = facts.append_column("samples", pa.array(samples, samples_type)).append_column(
        "known", pa.array([True, True])
    )
    settings = JobSettings()
    expected = []
    for i, name in enumerate(("orders", "payments")):
        groups = pq.ParquetFile(path).metadata.num_row_groups
        rows = read_key_rows([(str(path), g) for g in range(groups)], [name])[name]
        assert sample_from_rows(rows)[0] is not None
        expected.append(
            size_keyed(topic_rows.slice(i, 1), rows, run="r", brokers=3, settings=settings)
        )
    (unit,) = key_units(path, units=1)
    parts = [{"file": f, "row_group": g} for f, g in unit.parts]
    with_unit = (
        topic_rows.append_column("unit", pa.array([0, 0], pa.int32()))
        .append_column("key_parts", pa.array([parts, parts]))
        .append_column("key_lo", pa.array([None, None], pa.string()))
        .append_column("key_hi", pa.array([None, None], pa.string()))
    )
    result = size_key_unit(with_unit, run="r", brokers=3, settings=settings)
    assert result.to_pylist() == pa.concat_tables(expected).to_pylist()
    assert result.column("key_sample_keys").to_pylist() == [
        len(sample_from_rows(read_key_rows(unit.parts, [n])[n])[0]) for n in ("orders", "payments")
    ]
    assert size_key_unit(with_unit.slice(0, 0), run="r", brokers=3, settings=settings).num_rows == 0


@pytest.mark.parametrize("units", [1, 3, 16])
def test_units_never_exceed_half_the_row_groups(tmp_path: Path, units: int) -> None:
    path = _write(_keys_table([f"t{i}" for i in range(8)], 30), tmp_path / "k.parquet", 40)
    groups = pq.ParquetFile(path).metadata.num_row_groups
    assert 1 <= len(key_units(path, units=units)) <= max(1, groups // 2)
