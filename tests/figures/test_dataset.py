"""The figures dataset on disk: whole intervals, replaced atomically, recovered after a crash."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from planner.figures import (
    TABLES,
    DataInterval,
    conform,
    empty,
    interval_path,
    list_intervals,
    read_manifest,
    read_table,
    rejections,
    write_interval,
)
from planner.figures.conform import compact

DAY = DataInterval.day(date(2026, 11, 21))


def _throughput(rate: float) -> pa.Table:
    raw = pa.table(
        {
            "topic": ["orders"],
            "ts": [datetime(2026, 11, 21, 3, tzinfo=UTC)],
            "bytes_in_per_s": [rate],
            "records_in_per_s": [rate / 100],
        }
    )
    return conform("throughput", raw, source="test").table


def test_interval_parsing() -> None:
    assert DataInterval.parse("2026-11-21") == DAY
    assert DAY.key == "20261121T0000Z"
    assert DAY.days == 1
    hours = DataInterval.parse("2026-11-21T06:00/2026-11-21T12:00+00:00")
    assert hours.days == 0.25
    assert [d.key for d in DataInterval.parse("2026-11-20T12:00/2026-11-22").split_days()] == [
        "20261120T1200Z",
        "20261121T0000Z",
    ]
    with pytest.raises(ValueError, match="expected YYYY-MM-DD"):
        DataInterval.parse("21/11/2026")
    with pytest.raises(ValueError, match="not after"):
        DataInterval.parse("2026-11-22/2026-11-21")


def test_write_read_and_replace(tmp_path: Path) -> None:
    write_interval(tmp_path, DAY, {"throughput": _throughput(1.0)}, sources=["landing"])
    write_interval(tmp_path, DAY, {"throughput": _throughput(2.0), "rejected": empty("rejected")})
    table = read_table(tmp_path, DAY, "throughput")
    assert table is not None and table.column("bytes_in_per_s").to_pylist() == [2.0]
    assert read_table(tmp_path, DAY, "topics") is None
    manifest = read_manifest(tmp_path, DAY)
    assert manifest is not None and manifest["tables"] == {"throughput": 1, "rejected": 0}
    assert list_intervals(tmp_path) == [DAY]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["interval=20261121T0000Z"]


def test_a_write_that_fails_half_way_leaves_the_old_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_interval(tmp_path, DAY, {"throughput": _throughput(1.0)})
    real = pq.ParquetWriter.write_table
    calls = []

    def dying(self: pq.ParquetWriter, table: pa.Table, **kwargs: object) -> None:
        calls.append(table)
        if len(calls) == 2:  # the second file's first row group
            raise OSError("disk full")
        real(self, table, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", dying)
    with pytest.raises(OSError, match="disk full"):
        write_interval(
            tmp_path,
            DAY,
            {
                "throughput": _throughput(9.0),
                "rejected": rejections("throughput", "a.csv", [2], ["ts"], ["x"], ["not a time"]),
            },
        )
    table = read_table(tmp_path, DAY, "throughput")
    assert table is not None and table.column("bytes_in_per_s").to_pylist() == [1.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["interval=20261121T0000Z"]


def test_a_writer_killed_between_the_renames_is_undone(tmp_path: Path) -> None:
    write_interval(tmp_path, DAY, {"throughput": _throughput(1.0)})
    # What a writer killed after moving the old folder aside leaves behind.
    os.replace(interval_path(tmp_path, DAY), tmp_path / ".replaced-20261121T0000Z-abc")
    assert list_intervals(tmp_path) == [DAY]  # reading puts it back
    table = read_table(tmp_path, DAY, "throughput")
    assert table is not None and table.column("bytes_in_per_s").to_pylist() == [1.0]


def test_a_table_in_the_wrong_schema_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="canonical schema"):
        write_interval(tmp_path, DAY, {"throughput": pa.table({"topic": ["x"]})})
    assert list_intervals(tmp_path) == []


def test_large_tables_are_written_sorted_by_topic_in_small_row_groups(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    n = 10_000
    topics = [f"t{i:03d}" for i in rng.integers(0, 300, n)]
    hours = rng.permutation(n)  # distinct times, so (topic, ts) is a key
    raw = pa.table(
        {
            "topic": topics,
            "ts": [datetime(2026, 11, 21, tzinfo=UTC) + timedelta(seconds=int(h)) for h in hours],
            "bytes_in_per_s": rng.random(n),
            "records_in_per_s": rng.random(n),
        }
    )
    throughput = conform("throughput", raw, source="test").table
    keys = conform(
        "keys",
        pa.table({"topic": topics, "key": [f"k{i}" for i in range(n)], "count": np.ones(n)}),
        source="test",
    ).table
    folder = write_interval(tmp_path, DAY, {"throughput": throughput, "keys": keys})

    written = pq.ParquetFile(folder / "throughput.parquet")
    assert written.metadata.num_row_groups == 3  # 10,000 rows in groups of 4,096
    table = written.read()
    assert table.sort_by([("topic", "ascending"), ("ts", "ascending")]).equals(table)
    assert sorted(table.to_pylist(), key=repr) == sorted(throughput.to_pylist(), key=repr)
    # Each row group's statistics give a narrow range of topics.
    ranges = [
        (
            written.metadata.row_group(i).column(0).statistics.min,
            written.metadata.row_group(i).column(0).statistics.max,
        )
        for i in range(3)
    ]
    assert all(hi <= lo for (_, hi), (lo, _) in pairwise(ranges))

    # Keys by topic only, each topic's rows in the order they came.
    key_table = pq.read_table(folder / "keys.parquet")
    assert key_table.column("topic").to_pylist() == sorted(topics)
    for topic in ("t000", "t150"):
        mine = [
            k for t, k in zip(topics, keys.column("key").to_pylist(), strict=True) if t == topic
        ]
        got = key_table.filter(pc.equal(key_table.column("topic"), topic))
        assert got.column("key").to_pylist() == mine


def test_dictionary_encoded_columns_are_sorted_and_written_as_text(tmp_path: Path) -> None:
    # Collection keeps each piece's `source` and `topic` dictionary-encoded (compact);
    # the files are the ones text columns give: sorted by topic the same way (the pieces
    # interleave), in the same row groups.
    n = 10_000
    pieces = [
        conform(
            "keys",
            pa.table(
                {
                    "topic": [f"t{(i * 7) % 300:03d}" for i in range(lo, lo + n // 2)],
                    "key": [f"k{i}" for i in range(lo, lo + n // 2)],
                    "count": np.ones(n // 2),
                }
            ),
            source=f"landing:/keys/part-{lo}.parquet",
        )
        for lo in (0, n // 2)
    ]
    plain = pa.concat_tables([p.table for p in pieces])
    compacted = pa.concat_tables([compact(p, ("source", "topic")).table for p in pieces])
    assert pa.types.is_dictionary(compacted.schema.field("topic").type)
    a = write_interval(tmp_path / "a", DAY, {"keys": plain}) / "keys.parquet"
    b = write_interval(tmp_path / "b", DAY, {"keys": compacted}) / "keys.parquet"
    assert pq.read_schema(b).equals(TABLES["keys"].schema)
    written = pq.read_table(b)
    assert written.equals(pq.read_table(a))
    assert written.column("topic").to_pylist() == sorted(plain.column("topic").to_pylist())
    assert pq.ParquetFile(b).metadata.num_row_groups == 3
    assert pq.ParquetFile(a).metadata.num_row_groups == 3
    with pytest.raises(ValueError, match="canonical schema"):
        write_interval(tmp_path / "c", DAY, {"keys": compacted.drop_columns(["count"])})


def test_a_table_that_arrives_sorted_is_written_as_it_came(tmp_path: Path) -> None:
    rows = _throughput(5.0)
    folder = write_interval(tmp_path, DAY, {"throughput": rows})
    assert pq.read_table(folder / "throughput.parquet").equals(rows)
