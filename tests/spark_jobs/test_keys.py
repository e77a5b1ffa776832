"""Key samples read by the task that plans their topics: rows and bytes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

from planner.figures.schema import TABLES
from spark_jobs.keys import read_key_rows, unhex
from spark_jobs.size_partitions import key_rows
from spark_jobs.units import row_groups

SCHEMA = TABLES["keys"].schema


def _keys_table(topics: list[str], per_topic: int, seed: int = 0) -> pa.Table:
    """`per_topic` key rows for each topic, text keys with a few hex ones and a null.

    Distinct keys, as the figures' checks guarantee (one row per topic, key and key_hex).
    """
    rng = np.random.default_rng(seed)
    rows = []
    for topic in topics:
        drawn = rng.choice(10 * per_topic, size=per_topic, replace=False)
        for i in range(per_topic):
            key = f"{topic}-k{int(drawn[i])}"
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


def _parts(path: Path) -> list[tuple[str, int]]:
    return [(g.file, g.index) for g in row_groups(path)]


def test_only_the_topics_asked_for_are_read(tmp_path: Path) -> None:
    table = _keys_table(["a", "b", "c"], 20)
    path = _write(table, tmp_path / "keys.parquet", row_group_size=25)
    rows = read_key_rows(_parts(path), ["c", "a", "zz"], lo="b")
    assert sorted(rows) == ["c"]  # "a" is below the range, "zz" has no rows
    assert read_key_rows([], ["c"]) == {}


def test_a_topic_s_rows_come_together_from_an_unsorted_file(tmp_path: Path) -> None:
    table = _keys_table(["a", "b", "c"], 20)
    shuffled = table.take(pa.array(np.random.default_rng(1).permutation(table.num_rows)))
    path = _write(shuffled, tmp_path / "keys.parquet", row_group_size=7)
    rows = read_key_rows(_parts(path), ["a", "b", "c", "d", "e"])
    got = {
        t: sorted(
            zip(r.column("key").to_pylist(), r.column("count").to_pylist(), strict=True), key=repr
        )
        for t, r in rows.items()
    }
    assert got == _expected(table)


def test_a_key_given_as_text_and_as_hex_is_one_row(tmp_path: Path) -> None:
    # b"ab" as text in one row and as hex in another, on two topics; the figures allow
    # both (one row per topic, key and key_hex). The file is not sorted by topic.
    table = pa.Table.from_pylist(
        [
            {"topic": "b", "key": "ab", "count": 2.0},
            {"topic": "a", "key": "ab", "count": 1.0},
            {"topic": "b", "key": "x", "count": 4.0},
            {"topic": "a", "key_hex": "6162", "count": 5.0},
            {"topic": "b", "key_hex": "6162", "count": 6.0},
            {"topic": "b", "key_hex": "00ff", "count": 7.0},
            {"topic": "a", "count": 8.0},
            {"topic": "c", "key_hex": "02", "count": 9.0},  # hex only: nothing to merge
            {"topic": "c", "key_hex": "01", "count": 1.0},
            {"topic": "d", "key_hex": "aB", "count": 2.0},  # one key in two cases
            {"topic": "d", "key_hex": "0c", "count": 3.0},
            {"topic": "d", "key_hex": "Ab", "count": 4.0},
            {"topic": "e", "key_hex": "abc", "count": 1.0},  # odd: read as 0abc
            {"topic": "e", "key_hex": "0abc", "count": 5.0},
        ],
        schema=SCHEMA,
    )
    path = _write(table, tmp_path / "keys.parquet", row_group_size=3)
    rows = read_key_rows(_parts(path), ["a", "b", "c", "d", "e"])
    got = {
        t: list(zip(r.column("key").to_pylist(), r.column("count").to_pylist(), strict=True))
        for t, r in rows.items()
    }
    assert got == {
        "a": [(b"ab", 6.0), (None, 8.0)],
        "b": [(b"ab", 8.0), (b"x", 4.0), (b"\x00\xff", 7.0)],
        "c": [(b"\x02", 9.0), (b"\x01", 1.0)],
        "d": [(b"\xab", 6.0), (b"\x0c", 3.0)],
        "e": [(b"\n\xbc", 6.0)],
    }


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
    rows = read_key_rows(_parts(path), ["orders"])["orders"]
    mine = zip(rows.column("key").to_pylist(), rows.column("count").to_pylist(), strict=True)
    assert sorted(mine, key=repr) == [(None if k is None else bytes(k), c) for k, c in by_spark]


def test_lower_case_pairs_is_the_regex() -> None:
    # The byte check that replaced `match_substring_regex(hexes, "^([0-9a-f]{2})*$")`
    # (nulls True) must say what the regex says, row for row.
    import pyarrow.compute as pc

    from spark_jobs.keys import _lower_case_pairs

    rng = np.random.default_rng(11)
    alphabet = list("0123456789abcdefABCDEFgz/:`G@ é")
    texts: list[str | None] = ["", "ab", "AB", "abc", "0g", "00ff", "é1", "a\n", None]
    for _ in range(3_000):
        size = int(rng.integers(0, 9))
        texts.append(None if rng.random() < 0.1 else "".join(rng.choice(alphabet, size)))
    array = pa.array(texts, pa.string())
    for hexes in (
        pa.chunked_array([array]),
        pa.chunked_array([array.slice(5, 1_000), array.slice(1_500), array.slice(0, 0)]),
        pa.chunked_array([pa.array([None, None], pa.string())]),
    ):
        regex = pc.fill_null(pc.match_substring_regex(hexes, "^([0-9a-f]{2})*$"), True)
        assert _lower_case_pairs(hexes).tolist() == regex.to_pylist()


def test_a_topic_with_hashed_keys_is_read_as_hashed_keys_in_file_order(tmp_path: Path) -> None:
    # Topic h: two keys known only by their hashes (a live cluster's sample), one given
    # as bytes beside them, the null key, and a hashed key given twice (one key, counts
    # added); topic p, keys as bytes only, is read as bytes as before.
    from planner.partitioners import hash_keys, hash_to_hashed, hashed_label

    known = hash_to_hashed([b"alpha", b"beta", b""])

    def hashed(i: int, count: float) -> dict[str, object]:
        row = {f"hash_{h}": known.field(h)[i].as_py() for h in ("murmur2", "crc32", "fnv1a")}
        return {"topic": "h", **row, "key_empty": known.field("empty")[i].as_py(), "count": count}

    table = pa.Table.from_pylist(
        [
            hashed(0, 5.0),
            {"topic": "p", "key": "x", "count": 1.0},
            {"topic": "h", "key": "gamma", "count": 2.0},
            hashed(1, 3.0),
            {"topic": "h", "count": 1.0},
            hashed(0, 4.0),
            hashed(2, 7.0),
        ],
        schema=SCHEMA,
    )
    path = _write(table, tmp_path / "keys.parquet", row_group_size=2)
    rows = read_key_rows(_parts(path), ["h", "p"])
    assert rows["p"].column("key").to_pylist() == [b"x"]
    sample = rows["h"].column("key")
    labels = [None if k is None else k["label"] for k in sample.to_pylist()]
    m = known.field("murmur2").to_pylist()
    assert labels == [hashed_label(m[0]), b"gamma", hashed_label(m[1]), None, hashed_label(m[2])]
    assert rows["h"].column("count").to_pylist() == [9.0, 2.0, 3.0, 1.0, 7.0]
    # Placed as the keys themselves are, under every partitioner.
    truth = [b"alpha", b"gamma", b"beta", None, b""]
    for partitioner in ("murmur2_random", "consistent_random", "fnv1a", "consistent"):
        assert hash_keys(sample, partitioner).partitions(7).tolist() == (
            hash_keys(truth, partitioner).partitions(7).tolist()
        )
