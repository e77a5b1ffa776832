"""Key samples, read by the task that plans their topics.

A keyed topic's sample is 100,000 rows at 10,000 topics (20 M rows for the fleet), and
each row is a few bytes of key. Spark converts rows into Arrow for a Python function
value by value; measured on the 10,000-topic fleet with two cores, handing the key rows
to Python through Spark cost about 18 CPU-seconds before any shuffle (and the cogroup
that brought each topic's rows together about 25 more), against about 2 for reading the
same rows from the Parquet file with PyArrow. So the keys table is not scanned by Spark:
each unit's task (`spark_jobs.units`) reads the row groups that may hold its keyed
topics and keeps their rows (`read_key_rows`), and `spark_jobs.planning.sample_from_rows`
builds each sample from them.

Key bytes are what the Spark transform `size_partitions.key_rows` gives: `key` as UTF-8,
else `key_hex` decoded as Spark's `unhex` does (an odd length gets a leading zero nibble,
a character that is not hexadecimal makes the key null), else the null key. Pure:
PyArrow and NumPy, no Spark.

A topic with keys known only by their hashes (`hash_*` columns: a live cluster's key
sample, `planner.observe`) gets its sample as hashed keys
(`planner.partitioners.hashed_key_array`), which the partitioners place by those hashes;
its keys given as bytes, if any, are hashed into the same form.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from planner.partitioners import hash_to_hashed, hashed_key_array, hashed_label

__all__ = ["read_key_rows", "unhex"]

_COLUMNS = ["topic", "key", "key_hex", "count"]
# A key known only by its hashes (a live cluster's sample keeps no key value).
_HASHED = ["hash_murmur2", "hash_crc32", "hash_fnv1a", "key_empty"]


_HEX = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEX[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _HEX[_c] = 10 + _i


def _spark_unhex(text: str) -> bytes | None:
    # Spark's unhex: an odd length reads as if it had a leading 0; a non-hex digit
    # makes the result null.
    digits = text.encode("ascii", "replace")
    if len(digits) % 2:
        digits = b"0" + digits
    values = _HEX[np.frombuffer(digits, dtype=np.uint8)]
    if (values == 255).any():
        return None
    return ((values[0::2] << 4) | values[1::2]).astype(np.uint8).tobytes()


def unhex(texts: pa.Array) -> pa.Array:
    """Decode hexadecimal text to bytes, as Spark's `unhex` does (binary, nulls kept)."""
    texts = texts.cast(pa.string())
    n = len(texts)
    if n == 0:
        return pa.array([], pa.binary())
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)[texts.offset : texts.offset + n + 1]
    data = texts.buffers()[2]
    raw = (
        np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]]
        if data is not None
        else np.zeros(0, dtype=np.uint8)
    )
    values = _HEX[raw]
    lengths = np.diff(offsets)
    if (lengths % 2).any() or (values == 255).any():
        # Odd lengths or non-hex digits: rare (the figures' checks reject them); one
        # key at a time, Spark's way.
        return pa.array(
            [None if t is None else _spark_unhex(t) for t in texts.to_pylist()], pa.binary()
        )
    decoded = ((values[0::2] << 4) | values[1::2]).astype(np.uint8)
    new_offsets = ((offsets - offsets[0]) // 2).astype(np.int32)
    validity = texts.buffers()[0] if texts.null_count else None
    if validity is not None and texts.offset:
        # A sliced validity bitmap does not start at bit 0; rebuild it.
        validity = pa.array(np.asarray(texts.is_valid())).buffers()[1]
    return pa.Array.from_buffers(
        pa.binary(),
        n,
        [validity, pa.py_buffer(new_offsets.tobytes()), pa.py_buffer(decoded.tobytes())],
        null_count=texts.null_count,
    )


def _lower_case_pairs(hexes: pa.ChunkedArray) -> npt.NDArray[np.bool_]:
    # Which rows' hex is in lower-case pairs, as `match_substring_regex(hexes,
    # "^([0-9a-f]{2})*$")` says, a null counting as one (True): an even length and
    # only the bytes 0-9 a-f. Two comparisons per byte over the raw text take about
    # a tenth of the regex's time (some 30 ms for a unit's million hex keys).
    out = []
    for chunk in hexes.chunks:
        chunk = chunk.cast(pa.string())
        n = len(chunk)
        if n == 0:
            continue
        _validity, offset_buf, data_buf = chunk.buffers()
        offsets = np.frombuffer(offset_buf, dtype=np.int32)[chunk.offset : chunk.offset + n + 1]
        ok = (np.diff(offsets) & 1) == 0
        lo, hi = int(offsets[0]), int(offsets[-1])
        if data_buf is not None and hi > lo:
            text = np.frombuffer(data_buf, dtype=np.uint8)[lo:hi]
            # uint8 arithmetic wraps: a byte below "0" (or "a") lands far above 9 (or 5).
            bad = np.flatnonzero(((text - 48) > 9) & ((text - 97) > 5))
            if bad.size:
                ok[np.searchsorted(offsets, bad + lo, side="right") - 1] = False
        if chunk.null_count:
            ok |= np.asarray(chunk.is_null(), dtype=bool)
        out.append(ok)
    return np.concatenate(out) if out else np.zeros(0, dtype=bool)


def _key_bytes(rows: pa.Table) -> pa.Array:
    text = rows.column("key").combine_chunks().cast(pa.binary())
    hexes = rows.column("key_hex").combine_chunks()
    if hexes.null_count == len(hexes):
        return text
    return pc.if_else(text.is_valid(), text, unhex(hexes))


def _merge_spellings(
    samples: pa.Table,
    code: npt.NDArray[np.int64],
    hexed: npt.NDArray[np.bool_],
    irregular: npt.NDArray[np.bool_],
    topics: int,
) -> tuple[pa.Table, npt.NDArray[np.int64]]:
    # One row per topic and key bytes, counts added: a key given as text in one row and
    # as hex in another (or in hex spelled two ways: "AB" and "ab", "abc" and "0abc", or
    # two strings unhex makes null) is one key. The figures allow text and hex, and
    # upper-case digits, but hex in lower-case pairs spells every byte string one way, so
    # only a topic with rows in both spellings, or with a hex key not in lower-case
    # pairs, can have such a pair: only its rows are grouped (grouping all of a unit's
    # 1.2 M rows took 0.2 s). Groups come in the order of their first
    # row; the stable sort by topic that follows puts them back among the unit's rows.
    def has(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return np.bincount(code[mask], minlength=topics) > 0

    mixed = ((has(hexed) & has(~hexed)) | has(irregular))[code]
    if not mixed.any():
        return samples, code
    merged = (
        samples.filter(pa.array(mixed))
        .append_column("code", pa.array(code[mixed]))
        .group_by(["code", "key"], use_threads=False)
        .aggregate([("count", "sum")])
    )
    out = pa.concat_tables(
        [
            samples.filter(pa.array(~mixed)),
            pa.table({"key": merged.column("key"), "count": merged.column("count_sum")}),
        ]
    )
    return out, np.concatenate([code[~mixed], merged.column("code").to_numpy()])


def _wanted_codes(
    topics: pa.ChunkedArray, wanted: pa.Array, lo: str | None, hi: str | None
) -> npt.NDArray[np.int64]:
    # Each row's topic as its position in `wanted`, -1 for a row of another topic or
    # outside [lo, hi); worked out on each chunk's dictionary, not on every row.
    out = []
    for chunk in topics.chunks:
        values = chunk.dictionary
        position = pc.fill_null(pc.index_in(values, value_set=wanted), -1)
        inside = np.ones(len(values), dtype=bool)
        if lo is not None:
            inside &= np.asarray(pc.greater_equal(values, lo), dtype=bool)
        if hi is not None:
            inside &= np.asarray(pc.less(values, hi), dtype=bool)
        lookup = np.where(inside, np.asarray(position, dtype=np.int64), -1)
        out.append(lookup[np.asarray(chunk.indices, dtype=np.int64)])
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def read_key_rows(
    parts: Iterable[tuple[str, int]],
    topics: Sequence[str],
    *,
    lo: str | None = None,
    hi: str | None = None,
) -> dict[str, pa.Table]:
    """The key rows of `topics` in these row groups, as `sample_from_rows` takes them.

    Args:
        parts: `(file, row group)` pairs to read.
        topics: The topics wanted.
        lo: Rows of topics below this are another unit's (None: no lower bound).
        hi: Rows of topics from this on are another unit's (None: no upper bound).

    Returns:
        Topic -> its rows, `key` (binary; null for the null key) and `count`, one row
        per key: a key given twice (as text and as hex, or in hex spelled two ways:
        the same bytes) is one row with their counts added. In file
        order (such a key where it first appears); a topic with no rows is absent.
    """
    by_file: dict[str, list[int]] = {}
    for file, index in parts:
        by_file.setdefault(file, []).append(index)
    names = sorted(set(topics))
    wanted = pa.array(names, pa.string())
    tables, codes = [], []
    for file, indices in by_file.items():
        parquet = pq.ParquetFile(file, read_dictionary=["topic"])
        have = set(parquet.schema_arrow.names)
        table = parquet.read_row_groups(
            sorted(indices), columns=[c for c in _COLUMNS + _HASHED if c in have], use_threads=False
        )
        for name in _HASHED:  # a file written before keys could be hashed
            if name not in have:
                kind = pa.bool_() if name == "key_empty" else pa.int64()
                table = table.append_column(name, pa.nulls(table.num_rows, kind))
        code = _wanted_codes(table.column("topic"), wanted, lo, hi)
        keep = code >= 0
        if not keep.all():
            table, code = table.filter(pa.array(keep)), code[keep]
        tables.append(table)
        codes.append(code)
    if not tables:
        return {}
    rows = pa.concat_tables(tables)
    code = np.concatenate(codes)
    if rows.num_rows == 0:
        return {}
    hashed = np.asarray(rows.column("hash_murmur2").is_valid(), dtype=bool)
    if hashed.any():
        # Topics with a hashed key: all their rows as hashed keys, apart from the rest.
        mine = np.isin(code, np.unique(code[hashed]))
        found = _hashed_samples(rows.filter(pa.array(mine)), code[mine], names)
        rows, code = rows.filter(pa.array(~mine)), code[~mine]
        return {**_byte_samples(rows, code, names), **found}
    return _byte_samples(rows, code, names)


def _byte_samples(
    rows: pa.Table, code: npt.NDArray[np.int64], names: list[str]
) -> dict[str, pa.Table]:
    if rows.num_rows == 0:
        return {}
    samples = pa.table({"key": _key_bytes(rows), "count": rows.column("count")})
    hexes = rows.column("key_hex")
    hexed = np.asarray(hexes.is_valid(), dtype=bool)
    if hexed.any():
        irregular = ~_lower_case_pairs(hexes)
        samples, code = _merge_spellings(samples, code, hexed, irregular, len(names))
    if (np.diff(code) < 0).any():
        # Rows of a topic apart from each other (a file not sorted by topic): gather.
        order = np.argsort(code, kind="stable")
        samples, code = samples.take(pa.array(order)), code[order]
    starts = np.searchsorted(code, np.arange(len(names) + 1))
    return {
        name: samples.slice(int(starts[i]), int(starts[i + 1] - starts[i]))
        for i, name in enumerate(names)
        if starts[i + 1] > starts[i]
    }


def _hashed_samples(
    rows: pa.Table, code: npt.NDArray[np.int64], names: list[str]
) -> dict[str, pa.Table]:
    """Per topic, its rows as one hashed key each (`hashed_key_array`), in file order.

    A key given as bytes beside hashed ones is hashed here (labelled by its bytes); the
    null key is a null entry. Equal hashes given twice are one key, their counts added.
    """
    n = rows.num_rows
    keys = _key_bytes(rows)
    given = np.asarray(rows.column("hash_murmur2").is_valid(), dtype=bool)
    as_bytes = np.flatnonzero(~given & np.asarray(keys.is_valid(), dtype=bool))
    columns = {
        h: np.array(pc.fill_null(rows.column(f"hash_{h}"), 0).to_numpy(), dtype=np.int64)
        for h in ("murmur2", "crc32", "fnv1a")
    }
    empty = np.array(pc.fill_null(rows.column("key_empty"), False), dtype=bool)
    labels: list[bytes] = [hashed_label(int(m)) for m in columns["murmur2"]]
    if as_bytes.size:
        raw = keys.take(pa.array(as_bytes))
        hashed = hash_to_hashed(raw)
        for column in ("murmur2", "crc32", "fnv1a"):
            columns[column][as_bytes] = hashed.field(column).to_numpy()
        empty[as_bytes] = hashed.field("empty").to_numpy(zero_copy_only=False)
        for i, key in zip(as_bytes.tolist(), raw.to_pylist(), strict=True):
            labels[i] = key
    null = ~given & ~np.asarray(keys.is_valid(), dtype=bool)
    struct = hashed_key_array(
        columns["murmur2"], columns["crc32"], columns["fnv1a"], empty, labels=labels
    )
    if null.any():
        struct = pa.StructArray.from_arrays(
            struct.flatten(), names=[f.name for f in struct.type], mask=pa.array(null)
        )
    table = pa.table(
        {
            "code": pa.array(code),
            "murmur2": columns["murmur2"],
            "crc32": columns["crc32"],
            "fnv1a": columns["fnv1a"],
            "null": null,
            "row": np.arange(n),
            "count": rows.column("count"),
        }
    )
    merged = (
        table.group_by(["code", "murmur2", "crc32", "fnv1a", "null"], use_threads=False)
        .aggregate([("row", "min"), ("count", "sum")])
        .sort_by([("code", "ascending"), ("row_min", "ascending")])
    )
    first = merged.column("row_min")
    out: dict[str, pa.Table] = {}
    merged_code = merged.column("code").to_numpy()
    keys_out = struct.take(first)
    counts = merged.column("count_sum")
    starts = np.searchsorted(merged_code, np.arange(len(names) + 1))
    for i, name in enumerate(names):
        lo, hi = int(starts[i]), int(starts[i + 1])
        if hi > lo:
            out[name] = pa.table(
                {"key": keys_out.slice(lo, hi - lo), "count": counts.slice(lo, hi - lo)}
            )
    return out
