"""Row checks: every bad value is named by row and field; good rows come out canonical."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pytest

from planner.figures import REJECTED, TABLES, Conformed, FiguresError, conform, dedupe, empty
from planner.figures.conform import compact


def _throughput(**overrides: list[object]) -> pa.Table:
    columns: dict[str, list[object]] = {
        "topic": ["orders", "orders", "clicks"],
        "ts": ["2026-11-21T00:00:00Z", "2026-11-21T01:00:00+01:00", "2026-11-21T00:00:00"],
        "bytes_in_per_s": ["1024", "2048.5", "1e3"],
        "records_in_per_s": ["10", "20", "30"],
    }
    columns.update(overrides)
    return pa.table({k: pa.array(v, pa.string()) for k, v in columns.items()})


def test_good_text_rows_become_the_canonical_schema() -> None:
    out = conform("throughput", _throughput(), source="test.csv", first_row=2)
    assert out.rejected.num_rows == 0
    assert out.table.schema.equals(TABLES["throughput"].schema)
    rows = out.table.to_pylist()
    assert rows[0]["ts"] == datetime(2026, 11, 21, tzinfo=UTC)
    # +01:00 is converted to UTC; a time without a zone is read as UTC.
    assert rows[1]["ts"] == datetime(2026, 11, 21, tzinfo=UTC)
    assert rows[2]["ts"] == datetime(2026, 11, 21, tzinfo=UTC)
    assert [r["bytes_in_per_s"] for r in rows] == [1024.0, 2048.5, 1000.0]
    assert rows[0]["bytes_out_per_s"] is None
    assert {r["source"] for r in rows} == {"test.csv"}
    assert out.rows is not None and out.rows.to_pylist() == [2, 3, 4]


@pytest.mark.parametrize(
    ("column", "value", "reason"),
    [
        ("bytes_in_per_s", "-1", "negative"),
        ("bytes_in_per_s", "fast", "not a number"),
        ("bytes_in_per_s", "NaN", "not a number"),
        ("records_in_per_s", "", "missing value"),
        ("topic", "orders/v1", "not a legal Kafka topic name"),
        ("topic", "..", "not a legal Kafka topic name"),
        ("topic", "x" * 250, "not a legal Kafka topic name"),
        ("ts", "yesterday", "not a time"),
    ],
)
def test_a_bad_value_rejects_its_row_only(column: str, value: str, reason: str) -> None:
    columns = _throughput()
    bad = columns.column(column).to_pylist()
    bad[1] = value
    raw = columns.set_column(columns.column_names.index(column), column, pa.array(bad))
    out = conform("throughput", raw, source="landing:t.csv", first_row=2)
    assert out.table.num_rows == 2
    [row] = out.rejected.to_pylist()
    assert row["row"] == 3
    assert row["field"] == column
    assert row["value"] == value[:200]
    assert reason in row["reason"]
    assert row["source"] == "landing:t.csv"


def test_units_scale_byte_rates_and_unknown_units_are_rejected() -> None:
    raw = _throughput(unit=["MiB/s", "kB/s", "parsecs"])
    out = conform("throughput", raw, source="s")
    assert out.table.column("bytes_in_per_s").to_pylist() == [1024.0 * 1024**2, 2048.5 * 1000]
    [row] = out.rejected.to_pylist()
    assert (row["field"], row["value"]) == ("unit", "parsecs")
    assert "unknown unit" in row["reason"]


def test_a_missing_required_column_fails_the_whole_file() -> None:
    raw = _throughput().drop_columns(["records_in_per_s"])
    with pytest.raises(
        FiguresError, match=r"t\.csv: row 1: missing required column 'records_in_per_s'"
    ):
        conform("throughput", raw, source="t.csv", first_row=2)


def test_typed_parquet_values_are_checked_too() -> None:
    raw = pa.table(
        {
            "topic": ["a", "b"],
            "partitions": pa.array([6, 0], pa.int64()),
            "replication_factor": [2.5, 3.0],
            "keyed": [True, False],
        }
    )
    out = conform("topics", raw, source="topics.parquet")
    assert out.table.num_rows == 0
    reasons = {(r["row"], r["field"]): r["reason"] for r in out.rejected.to_pylist()}
    assert reasons == {
        (1, "replication_factor"): "not a whole number",
        (2, "partitions"): "must be 1 or more",
    }


def test_topics_default_partitioner_and_checks_names() -> None:
    raw = pa.table(
        {
            "topic": ["a", "b", "c"],
            "partitions": ["6", "12", "3"],
            "replication_factor": ["3", "3", "3"],
            "keyed": ["true", "no", "maybe"],
            "partitioner": ["", "consistent", "java-default"],
        }
    )
    out = conform("topics", raw, source="t")
    assert out.table.column("partitioner").to_pylist() == ["murmur2_random", "consistent"]
    assert out.table.column("keyed").to_pylist() == [True, False]
    [row] = out.rejected.to_pylist()
    assert (row["field"], row["reason"]) == ("keyed", "not true or false")


def test_capacity_needs_one_figure_and_accepts_the_default_row() -> None:
    raw = pa.table(
        {
            "topic": ["*", "orders", "clicks"],
            "producer_mib_per_s": ["20", "", "0"],
            "consumer_mib_per_s": ["5", "", ""],
        }
    )
    out = conform("capacity", raw, source="c")
    assert out.table.column("topic").to_pylist() == ["*"]
    reasons = sorted(r["reason"] for r in out.rejected.to_pylist())
    assert reasons == ["must be above zero", "no capacity figure in the row"]


def test_groups_strategies_and_keys_hex() -> None:
    groups = conform(
        "groups",
        pa.table(
            {
                "group_id": ["g", "g"],
                "topic": ["a", "b"],
                "strategy": ["cooperative-sticky", "StickyAssignor"],
                "members": ["3", "-1"],
            }
        ),
        source="g",
    )
    assert groups.table.num_rows == 1
    assert "unknown assignor" in groups.rejected.column("reason")[0].as_py()
    assert groups.table.column("protocol").to_pylist() == ["classic"]  # the default
    keys = conform(
        "keys",
        pa.table({"topic": ["k", "k", "k"], "key_hex": ["00ff", "0g", "abc"], "count": [1, 2, 3]}),
        source="k",
    )
    assert keys.table.column("key_hex").to_pylist() == ["00ff"]
    assert keys.rejected.num_rows == 2


def test_groups_each_assignor_belongs_to_its_protocol() -> None:
    raw = pa.table(
        {
            "group_id": ["a", "b", "c", "d", "e", "f", "g"],
            "topic": ["t"] * 7,
            "protocol": ["consumer", "share", "classic", "", "consumer", "queue", "streams"],
            "strategy": ["uniform", "simple", "stream", "range", "simple", "simple", "sticky"],
            "members": [2] * 7,
        }
    )
    out = conform("groups", raw, source="g.csv", first_row=2)
    assert out.table.select(["group_id", "protocol", "strategy"]).to_pylist() == [
        {"group_id": "a", "protocol": "consumer", "strategy": "uniform"},
        {"group_id": "b", "protocol": "share", "strategy": "simple"},
        {"group_id": "c", "protocol": "classic", "strategy": "stream"},
        {"group_id": "d", "protocol": "classic", "strategy": "range"},  # empty: classic
        {"group_id": "g", "protocol": "streams", "strategy": "sticky"},
    ]
    rejected = {r["row"]: (r["field"], r["value"], r["reason"]) for r in out.rejected.to_pylist()}
    assert rejected == {
        6: (
            "strategy",
            "simple",
            "not an assignor of consumer groups (those use uniform, range)",
        ),
        7: ("protocol", "queue", "unknown protocol (one of classic, consumer, share, streams)"),
    }


@pytest.mark.parametrize("compacted", [False, True])
def test_dedupe_keeps_the_first_and_names_it(compacted: bool) -> None:
    # Collection keeps pieces with `source` dictionary-encoded; the rejected rows are
    # the same, with their source as text.
    first = conform("throughput", _throughput(), source="a.csv", first_row=2)
    again = conform("throughput", _throughput(), source="b.csv", first_row=2)
    if compacted:
        first, again = (compact(p, ("source", "topic")) for p in (first, again))
    table = pa.concat_tables([first.table, again.table])
    assert first.rows is not None and again.rows is not None
    rows = pa.concat_arrays([first.rows, again.rows])
    out = dedupe("throughput", table, rows)
    assert out.table.num_rows == 2  # rows 2 and 3 of a.csv share (orders, 00:00 UTC)
    assert out.rejected.num_rows == 4
    reasons = out.rejected.column("reason").to_pylist()
    assert reasons[0] == "duplicate (topic, ts): first given by a.csv row 2"
    assert set(out.rejected.column("source").to_pylist()) == {"a.csv", "b.csv"}
    assert out.rejected.schema.equals(REJECTED.schema)


def test_small_pieces_with_differing_dictionaries_are_checked_together() -> None:
    # Each piece as collection keeps it, topic dictionary-encoded with a dictionary of
    # its own ([orders, clicks] and [views, clicks]); Arrow cannot group on those as
    # they are, however few the rows.
    first = compact(conform("throughput", _throughput(), source="a.csv", first_row=2), ("topic",))
    again = compact(
        conform(
            "throughput",
            _throughput(topic=["views", "views", "clicks"]),
            source="b.csv",
            first_row=2,
        ),
        ("topic",),
    )
    table = pa.concat_tables([first.table, again.table])
    assert first.rows is not None and again.rows is not None
    out = dedupe("throughput", table, pa.concat_arrays([first.rows, again.rows]))
    assert sorted(str(t) for t in out.table.column("topic").to_pylist()) == [
        "clicks",
        "orders",
        "views",
    ]
    assert out.rejected.column("reason").to_pylist() == [
        "duplicate (topic, ts): first given by a.csv row 2",
        "duplicate (topic, ts): first given by b.csv row 2",
        "duplicate (topic, ts): first given by a.csv row 4",
    ]


_HASH_COLUMNS = ("hash_murmur2", "hash_crc32", "hash_fnv1a", "key_empty")
_KEY = "topic, key, key_hex, hash_murmur2, hash_crc32, hash_fnv1a"


def _keys(topics: list[str], keys: list[str | None], hexes: list[str | None]) -> pa.Table:
    n = len(topics)
    return pa.table(
        {
            "topic": topics,
            "key": pa.array(keys, pa.string()),
            "key_hex": pa.array(hexes, pa.string()),
            "count": [float(i) for i in range(n)],
            "source": [f"f{i}.csv" for i in range(n)],
            **{c: pa.nulls(n) for c in _HASH_COLUMNS},
        },
        schema=TABLES["keys"].schema,
    )


def test_a_key_is_text_hex_or_null_and_each_kind_is_a_key_of_its_own() -> None:
    table = _keys(
        ["t", "t", "t", "t", "t", "t", "u"],
        ["ab", None, None, None, None, "ab", None],
        [None, "ab", "AB", None, None, None, None],
    )
    out = dedupe("keys", table, pa.array(range(2, 9)))
    # Text "ab", hex "ab" and hex "AB" differ; the null key (neither) is one key, and
    # its second row names the first; topic u's null key is another topic's.
    assert out.table.column("source").to_pylist() == [
        "f0.csv",
        "f1.csv",
        "f2.csv",
        "f3.csv",
        "f6.csv",
    ]
    assert out.rejected.column("reason").to_pylist() == [
        f"duplicate ({_KEY}): first given by f3.csv row 5",
        f"duplicate ({_KEY}): first given by f0.csv row 2",
    ]


def _random_keys(rng: np.random.Generator, n: int, topics: int, spread: int | None) -> pa.Table:
    # Text, hex and null keys drawn from `spread` values; None: every key distinct.
    if spread is None:
        kinds, values = rng.integers(0, 2, n), rng.permutation(n)
    else:
        kinds, values = rng.integers(0, 3, n), rng.integers(0, spread, n)
    table = _keys(
        [f"t{t}" for t in rng.integers(0, topics, n)],
        [f"k{v}" if k == 0 else None for k, v in zip(kinds, values, strict=True)],
        [f"{v:04x}" if k == 1 else None for k, v in zip(kinds, values, strict=True)],
    )
    cuts = sorted(rng.integers(0, n, 3).tolist())  # pieces from several files
    return pa.concat_tables(
        [table.slice(lo, hi - lo) for lo, hi in zip([0, *cuts], [*cuts, n], strict=True)]
    )


@pytest.mark.parametrize("together", [True, False])
def test_large_tables_are_checked_topic_by_topic_with_the_same_result(
    monkeypatch: pytest.MonkeyPatch, together: bool
) -> None:
    # Topic by topic (the large-table path), the rows kept and rejected, their order and
    # each rejection's "first given by" are those of grouping the whole table at once;
    # with each topic's rows together (one file per topic) and interleaved.
    # The package exports the function `conform` under the module's name.
    module = importlib.import_module("planner.figures.conform")
    rng = np.random.default_rng(7)
    for spread in (20, 2_000, None):  # many repeats, a few, none
        table = _random_keys(rng, 3_000, 12, spread)
        if together:
            table = table.take(
                pa.array(np.argsort(table.column("topic").to_numpy(), kind="stable"))
            )
        rows = pa.array(rng.permutation(table.num_rows).astype(np.int64))
        monkeypatch.setattr(module, "_BY_TOPIC_ROWS", 10**9)
        whole = dedupe("keys", table, rows)
        monkeypatch.setattr(module, "_BY_TOPIC_ROWS", 100)
        by_topic = dedupe("keys", table, rows)
        assert by_topic.table.equals(whole.table)
        assert by_topic.rejected.equals(whole.rejected)
        assert by_topic.rows is not None and whole.rows is not None
        assert by_topic.rows.equals(whole.rows)
        assert (whole.rejected.num_rows > 0) == (spread is not None)
        # On pieces as collection keeps them (topic and source dictionary-encoded, each
        # piece with its own dictionary), by either path: the same.
        coded = pa.concat_tables(
            compact(
                Conformed(pa.Table.from_batches([b]), empty("rejected")), ("source", "topic")
            ).table
            for b in table.to_batches()
        )
        for rows_at_once in (10**9, 100):
            monkeypatch.setattr(module, "_BY_TOPIC_ROWS", rows_at_once)
            out = dedupe("keys", coded, rows)
            assert out.table.cast(table.schema).equals(whole.table)
            assert out.rejected.equals(whole.rejected)


def test_conform_is_vectorised_on_a_month_of_a_large_fleet() -> None:
    # 200,000 rows of text: a behaviour check (one bad row among many) at a size where a
    # per-row Python loop would show; the speed itself is measured in benchmarks.
    n = 200_000
    rng = np.random.default_rng(3)
    rates = rng.uniform(0, 1e6, n).astype(str)
    rates[12_345] = "-5"
    raw = pa.table(
        {
            "topic": pa.array([f"t{i % 1000}" for i in range(n)]),
            "ts": pa.array(
                [
                    f"2026-11-{1 + (i // 1000) // 24 % 28:02d}T{(i // 1000) % 24:02d}:00:00Z"
                    for i in range(n)
                ]
            ),
            "bytes_in_per_s": pa.array(rates),
            "records_in_per_s": pa.array(rates),
        }
    )
    out = conform("throughput", raw, source="big.csv", first_row=2)
    assert out.table.num_rows == n - 1
    assert out.rejected.column("row").to_pylist() == [12_347]


def _topics(partitions: list[object]) -> pa.Table:
    n = len(partitions)
    return pa.table(
        {
            "topic": pa.array([f"t{i}" for i in range(n)], pa.string()),
            "partitions": pa.array(partitions, pa.string()),
            "replication_factor": pa.array(["3"] * n, pa.string()),
            "keyed": pa.array(["false"] * n, pa.string()),
        }
    )


def test_an_empty_partition_count_is_a_topic_not_created_yet() -> None:
    out = conform(
        "topics", _topics(["12", "", None, "0", "many"]), source="topics.csv", first_row=2
    )
    assert out.table.column("topic").to_pylist() == ["t0", "t1", "t2"]
    assert out.table.column("partitions").to_pylist() == [12, None, None]
    assert out.table.schema.field("partitions").nullable
    reasons = {r["value"]: r["reason"] for r in out.rejected.to_pylist()}
    assert set(reasons) == {"0", "many"}
    # The column itself is still required: an export that forgot it is not "all new".
    with pytest.raises(FiguresError, match="missing required column 'partitions'"):
        conform("topics", _topics(["1"]).drop_columns(["partitions"]), source="topics.csv")


def test_a_key_known_by_its_hashes_needs_all_three_and_no_key_beside_them() -> None:
    m, c, f = 1_234, 3_000_000_000, 7
    rows = [
        {"topic": "t", "hash_murmur2": m, "hash_crc32": c, "hash_fnv1a": f, "count": 2},
        {"topic": "t", "hash_murmur2": m, "hash_crc32": c, "count": 1},
        {"topic": "t", "key": "k", "hash_murmur2": m, "hash_crc32": c, "hash_fnv1a": f, "count": 1},
        {"topic": "t", "hash_murmur2": 2**32, "hash_crc32": c, "hash_fnv1a": f, "count": 1},
        {"topic": "t", "hash_murmur2": m, "hash_crc32": c, "hash_fnv1a": f, "count": 5},
        {"topic": "t", "key": "k", "count": 1},
    ]
    fields = ("topic", "key", "hash_murmur2", "hash_crc32", "hash_fnv1a", "count")
    raw = pa.Table.from_pylist([{f: row.get(f) for f in fields} for row in rows])
    out = conform("keys", raw, source="obs")
    reasons = out.rejected.column("reason").to_pylist()
    assert reasons == [
        "a key given by its hashes needs all three: hash_murmur2, hash_crc32, hash_fnv1a",
        "give the key (key or key_hex) or its hashes, not both",
        "not a 32-bit hash (0 to 2^32 - 1)",
    ]
    assert out.rejected.column("row").to_pylist() == [2, 3, 4]
    kept = dedupe("keys", out.table, out.rows)
    # The same hashes twice are the same key: the second is a duplicate.
    assert kept.table.column("count").to_pylist() == [2.0, 1.0]
    assert kept.rejected.column("reason").to_pylist() == [
        f"duplicate ({_KEY}): first given by obs row 1"
    ]


def test_a_capacity_row_naming_a_group_gives_that_group_s_tc_only() -> None:
    raw = pa.table(
        {
            "topic": ["*", "orders", "orders", "*", "orders", "orders"],
            "group_id": ["", "", "indexer", "indexer", "search", "audit"],
            "producer_mib_per_s": ["20", "30", "", "", "30", ""],
            "consumer_records_per_s": ["5000", "", "420", "420", "420", ""],
            "consumer_mib_per_s": ["", "", "", "", "", "2"],
        }
    )
    out = conform("capacity", raw, source="landing:capacity.csv", first_row=2)
    assert out.table.select(["topic", "group_id"]).to_pylist() == [
        {"topic": "*", "group_id": None},
        {"topic": "orders", "group_id": None},
        {"topic": "orders", "group_id": "indexer"},
    ]
    refused = {(r["row"], r["field"]): r["reason"] for r in out.rejected.to_pylist()}
    assert refused == {
        (5, "topic"): "a group's capacity is per topic: name the topic, not *",
        (6, "producer_mib_per_s"): (
            "a row with a group_id gives the group's Tc only (Tp and share-fetch are the "
            "topic's: give them in a row without group_id)"
        ),
        (7, "consumer_records_per_s"): (
            "a row with a group_id gives the group's Tc in consumer_records_per_s"
        ),
    }
    # A topic row and a group's row on one topic are two keys.
    assert dedupe("capacity", out.table).rejected.num_rows == 0


def test_a_group_s_own_capacity_says_how_it_is_known() -> None:
    raw = pa.table(
        {
            "group_id": ["curated", "learned", "none", "odd", "empty", "trend", "lag"],
            "topic": ["orders"] * 7,
            "strategy": ["range"] * 7,
            "members": ["3"] * 7,
            "consumer_records_per_s": ["450", "500", "", "500", "", "", ""],
            "capacity_source": [
                *("", "saturation", "topic-default", "topic-default", "lower-bound"),
                *("", ""),
            ],
            "lag_records": ["", "7500000", "0", "", "", "", "-3"],
            "lag_trend": ["", "growing", "steady", "", "", "rising", ""],
        }
    )
    out = conform("groups", raw, source="landing:groups.csv", first_row=2)
    kept = {r["group_id"]: r for r in out.table.to_pylist()}
    assert sorted(kept) == ["curated", "learned", "none"]
    # A figure without a source is a curated one.
    assert kept["curated"]["capacity_source"] == "given"
    assert kept["learned"]["lag_records"] == 7_500_000
    refused = {r["row"]: (r["field"], r["reason"]) for r in out.rejected.to_pylist()}
    assert refused[5][0] == "capacity_source" and "topic-default carries no figure" in refused[5][1]
    assert refused[6] == (
        "consumer_records_per_s",
        "capacity_source names a capacity of the group's own, but consumer_records_per_s is empty",
    )
    assert refused[7] == (
        "lag_trend",
        "unknown lag_trend (one of growing, steady, shrinking)",
    )
    assert refused[8] == ("lag_records", "must be 0 or more")
