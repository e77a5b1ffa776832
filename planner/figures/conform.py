"""Turning what a source read into a canonical figures table, row by row accountable.

`conform` takes an Arrow table as a source read it (CSV text, inferred JSON types or
typed Parquet), checks every value against the column's rule, and returns the good rows
in the canonical schema and the bad ones in the `rejected` table with the file, row,
field, value and reason. It is vectorised (Arrow compute), so a month of hourly figures
for 10,000 topics conforms in seconds. What makes a whole file unusable (a required
column missing) raises `FiguresError` instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from planner.choices import DEFAULT_PARTITIONER
from planner.cross_zone import client_racks, replica_lists
from planner.figures.refused import DUPLICATE
from planner.figures.schema import BYTE_UNITS, REJECTED, TABLES, TIMESTAMP, Table
from planner.group_capacity import CAPACITY_SOURCES, LAG_TRENDS
from planner.partitioners import PARTITIONERS
from planner.protocols import DEFAULT_PROTOCOL, GROUP_STRATEGIES, PROTOCOLS

__all__ = [
    "Conformed",
    "FiguresError",
    "compact",
    "conform",
    "dedupe",
    "empty",
    "rejections",
    "unified_codes",
]

_NUMBER = r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$"
_WHOLE = r"^\s*\+?\d+(\.0*)?\s*$"
_TOPIC = r"^[a-zA-Z0-9._-]{1,249}$"
_HEX = r"^([0-9a-fA-F]{2})*$"
_TRUE = ("true", "t", "yes", "y", "1")
_FALSE = ("false", "f", "no", "n", "0")
_BYTE_COLUMNS = ("bytes_in_per_s", "bytes_out_per_s")
# The hashes a key known only by them is given by (figures `keys` table).
_KEY_HASHES = ("murmur2", "crc32", "fnv1a")
_KEY_FORMS = ("key", "key_hex", *(f"hash_{h}" for h in _KEY_HASHES))


class FiguresError(ValueError):
    """Figures that cannot be used at all; the message names the source, file, row and field."""


@dataclass(frozen=True)
class Conformed:
    """The result of conforming one source table.

    Attributes:
        table: The good rows, in the canonical schema of their table.
        rejected: The bad rows, in the `rejected` schema.
        rows: For each good row, its row number in the file it came from (or None).
    """

    table: pa.Table
    rejected: pa.Table
    rows: pa.Array | None = None


def empty(name: str) -> pa.Table:
    """An empty table with the canonical schema of `name` (or `rejected`)."""
    spec = REJECTED if name == "rejected" else TABLES[name]
    return spec.schema.empty_table()


def rejections(
    table: str,
    source: str,
    rows: Sequence[int | None],
    fields: Sequence[str | None],
    values: Sequence[str | None],
    reasons: Sequence[str],
    topics: Sequence[str | None] | None = None,
) -> pa.Table:
    """Rows of the `rejected` table; `topics`: each row's topic as given (None: unknown)."""
    n = len(reasons)
    return pa.table(
        {
            "table": pa.array([table] * n, pa.string()),
            "source": pa.array([source] * n, pa.string()),
            "row": pa.array(rows, pa.int64()),
            "field": pa.array(fields, pa.string()),
            "value": pa.array([None if v is None else v[:200] for v in values], pa.string()),
            "reason": pa.array(reasons, pa.string()),
            "topic": pa.array([None] * n if topics is None else topics, pa.string()),
        },
        schema=REJECTED.schema,
    )


class _Checker:
    """Accumulates, per row, the first field that failed and why."""

    def __init__(self, n: int) -> None:
        self.bad = np.zeros(n, dtype=bool)
        # Only failed rows get an entry: most tables have none, and a sample of 20 M keys
        # must not pay for three 20 M-element lists.
        self.field: dict[int, str | None] = {}
        self.value: dict[int, str | None] = {}
        self.reason: dict[int, str] = {}

    def fail(self, mask: np.ndarray, field: str, raw: pa.Array, reason: str) -> None:
        fresh = np.flatnonzero(mask & ~self.bad)
        if fresh.size == 0:
            return
        texts = pc.cast(raw.take(pa.array(fresh)), pa.string()).to_pylist()
        for i, text in zip(fresh.tolist(), texts, strict=True):
            self.field[i] = field
            self.value[i] = text
            self.reason[i] = reason
        self.bad[fresh] = True


def _mask(values: pa.Array) -> np.ndarray:
    """A boolean Arrow array as numpy, nulls as False."""
    return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)


def _as_text(values: pa.Array) -> pa.Array:
    return pc.utf8_trim_whitespace(pc.cast(values, pa.string()))


def _blank(values: pa.Array) -> np.ndarray:
    """Null, or text that is empty after trimming."""
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        return _mask(pc.or_kleene(pc.is_null(values), pc.equal(_as_text(values), "")))
    return _mask(pc.is_null(values))


def _to_float(values: pa.Array, name: str, check: _Checker) -> pa.Array:
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        text = _as_text(values)
        ok = _mask(pc.match_substring_regex(text, _NUMBER))
        check.fail(~ok & ~_blank(values), name, values, "not a number")
        text = pc.if_else(pa.array(ok), text, pa.scalar(None, pa.string()))
        return pc.cast(text, pa.float64())
    if pa.types.is_boolean(values.type):
        check.fail(~_mask(pc.is_null(values)), name, values, "not a number")
        return pa.nulls(len(values), pa.float64())
    return pc.cast(values, pa.float64())


def _to_whole(values: pa.Array, name: str, check: _Checker, type_: pa.DataType) -> pa.Array:
    numbers = _to_float(values, name, check)
    arr = numbers.to_numpy(zero_copy_only=False)
    with np.errstate(invalid="ignore"):
        fraction = ~np.isnan(arr) & ((arr != np.floor(arr)) | ~np.isfinite(arr))
    check.fail(fraction, name, values, "not a whole number")
    limit = float(np.iinfo(np.int32).max if type_ == pa.int32() else np.iinfo(np.int64).max)
    with np.errstate(invalid="ignore"):
        too_big = ~np.isnan(arr) & (np.abs(arr) > limit)
    check.fail(too_big, name, values, "too large")
    safe = np.where(np.isnan(arr) | fraction | too_big, 0, arr)
    return pa.array(safe.astype(np.int64), mask=np.isnan(arr) | fraction | too_big).cast(type_)


def _to_bool(values: pa.Array, name: str, check: _Checker) -> pa.Array:
    if pa.types.is_boolean(values.type):
        return values
    text = pc.utf8_lower(_as_text(values))
    true = _mask(pc.is_in(text, pa.array(_TRUE)))
    false = _mask(pc.is_in(text, pa.array(_FALSE)))
    check.fail(~true & ~false & ~_blank(values), name, values, "not true or false")
    return pa.array(true, mask=~(true | false))


def _parse_time(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.strip().replace(" UTC", "+00:00"))
    except ValueError:
        try:
            seconds = float(text)
        except ValueError:
            return None
        if not math.isfinite(seconds):
            return None
        return datetime.fromtimestamp(seconds, UTC)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _to_time(values: pa.Array, name: str, check: _Checker) -> pa.Array:
    if pa.types.is_timestamp(values.type):
        if values.type.tz is None:
            values = pc.assume_timezone(values, "UTC")
        return pc.cast(values, TIMESTAMP)
    if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
        seconds = pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)
        micros = np.where(np.isfinite(seconds), seconds * 1e6, 0).astype(np.int64)
        check.fail(~np.isfinite(seconds) & ~np.isnan(seconds), name, values, "not a time")
        return pa.array(micros, mask=~np.isfinite(seconds)).cast(TIMESTAMP)
    encoded = pc.dictionary_encode(_as_text(values))
    parsed = [_parse_time(v) if v else None for v in encoded.dictionary.to_pylist()]
    unparsed = pa.array([p is None for p in parsed])
    bad = _mask(pc.take(unparsed, encoded.indices)) & ~_blank(values)
    check.fail(bad, name, values, "not a time (ISO 8601, UTC unless it says otherwise)")
    return pc.take(pa.array(parsed, TIMESTAMP), encoded.indices)


def _convert(values: pa.Array, column_type: pa.DataType, name: str, check: _Checker) -> pa.Array:
    if pa.types.is_floating(column_type):
        return _to_float(values, name, check)
    if pa.types.is_integer(column_type):
        return _to_whole(values, name, check, column_type)
    if pa.types.is_boolean(column_type):
        return _to_bool(values, name, check)
    if pa.types.is_timestamp(column_type):
        return _to_time(values, name, check)
    text = _as_text(values)
    return pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)


def _check_domain(rule: str, values: pa.Array, name: str, raw: pa.Array, check: _Checker) -> None:
    present = ~_mask(pc.is_null(values))
    if rule in {"rate", "positive"}:
        arr = values.to_numpy(zero_copy_only=False)
        with np.errstate(invalid="ignore"):
            check.fail(present & ~np.isfinite(arr), name, raw, "not a finite number")
            if rule == "rate":
                check.fail(present & (arr < 0), name, raw, "negative")
            else:
                check.fail(present & (arr <= 0), name, raw, "must be above zero")
    elif rule == "share":
        arr = values.to_numpy(zero_copy_only=False)
        with np.errstate(invalid="ignore"):
            check.fail(present & ~((arr >= 0) & (arr <= 1)), name, raw, "not a share from 0 to 1")
    elif rule == "hash32":
        arr = pc.fill_null(values, 0).to_numpy(zero_copy_only=False)
        check.fail(
            present & ((arr < 0) | (arr > 0xFFFFFFFF)),
            name,
            raw,
            "not a 32-bit hash (0 to 2^32 - 1)",
        )
    elif rule in {"count", "whole"}:
        arr = pc.fill_null(values, 0).to_numpy(zero_copy_only=False)
        floor = 1 if rule == "count" else 0
        check.fail(present & (arr < floor), name, raw, f"must be {floor} or more")
    elif rule in {"topic", "topic_or_default"}:
        # A fleet has thousands of topics but millions of rows: judge each name once.
        encoded = pc.dictionary_encode(values)
        names = encoded.dictionary
        ok = pc.and_(
            pc.match_substring_regex(names, _TOPIC),
            pc.invert(pc.is_in(names, pa.array([".", ".."]))),
        )
        if rule == "topic_or_default":
            ok = pc.or_(ok, pc.equal(names, "*"))
        legal = _mask(pc.take(ok, encoded.indices))
        check.fail(
            present & ~legal,
            name,
            raw,
            "not a legal Kafka topic name (1-249 of a-z A-Z 0-9 . _ -, not . or ..)",
        )
    elif rule == "partitioner":
        known = _mask(pc.is_in(values, pa.array(PARTITIONERS)))
        check.fail(present & ~known, name, raw, f"unknown partitioner (one of {PARTITIONERS})")
    elif rule == "strategy":
        # Whether it is one of its own protocol's assignors is a rule of the row
        # (`_table_rules`); here only whether any protocol has it.
        names = sorted({s for known in GROUP_STRATEGIES.values() for s in known})
        known = _mask(pc.is_in(values, pa.array(names)))
        check.fail(present & ~known, name, raw, f"unknown assignor (one of {', '.join(names)})")
    elif rule == "protocol":
        known = _mask(pc.is_in(values, pa.array(PROTOCOLS)))
        check.fail(present & ~known, name, raw, f"unknown protocol (one of {', '.join(PROTOCOLS)})")
    elif rule == "hex":
        check.fail(
            present & ~_mask(pc.match_substring_regex(values, _HEX)), name, raw, "not hex bytes"
        )
    elif rule in {"capacity_source", "lag_trend"}:
        allowed = CAPACITY_SOURCES if rule == "capacity_source" else LAG_TRENDS
        known = _mask(pc.is_in(values, pa.array(allowed)))
        check.fail(present & ~known, name, raw, f"unknown {rule} (one of {', '.join(allowed)})")
    elif rule in _PARSED:
        _check_parsed(_PARSED[rule], values, name, raw, check)
    if rule == "racks" and pa.types.is_string(raw.type):
        # An empty field gives no rack (not known); a field of spaces names a blank one,
        # which Kafka would ignore: refused, so that a typo does not read as "unknown".
        spaces = _mask(pc.greater(pc.utf8_length(raw), 0)) & _blank(raw)
        check.fail(spaces, name, raw, "a blank client.rack; leave the field empty if unknown")


# Text columns with a syntax of their own, judged by the parser the planner reads them with.
_PARSED = {"replicas": replica_lists, "racks": client_racks}


def _check_parsed(
    parse: Callable[[str], object], values: pa.Array, name: str, raw: pa.Array, check: _Checker
) -> None:
    # Few distinct values (a rack list per group, a replica list per topic): parse each
    # once, and refuse the rows holding it with the parser's own reason.
    encoded = pc.dictionary_encode(values)
    indices = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    for position, text in enumerate(encoded.dictionary.to_pylist()):
        try:
            parse(text)
        except ValueError as exc:
            check.fail(indices == position, name, raw, str(exc))


def _group_capacity_rules(columns: dict[str, pa.Array], check: _Checker) -> None:
    """A capacity row naming a group gives that group's Tc on one topic, and only that.

    Tc_g is records/s (what the group's committed offsets advance by), so the row needs
    consumer_records_per_s; a producer or share-fetch figure on it would be read as
    nobody's, and `*` has no group: a group's capacity is per topic it reads.
    """
    group = ~_blank(columns["group_id"])
    if not group.any():
        return
    check.fail(
        group & _mask(pc.equal(columns["topic"], "*")),
        "topic",
        columns["topic"],
        "a group's capacity is per topic: name the topic, not *",
    )
    check.fail(
        group & _mask(pc.is_null(columns["consumer_records_per_s"])),
        "consumer_records_per_s",
        columns["consumer_records_per_s"],
        "a row with a group_id gives the group's Tc in consumer_records_per_s",
    )
    for name in (
        "producer_mib_per_s",
        "producer_records_per_s",
        "share_fetch_mib_per_s",
        "share_fetch_records_per_s",
    ):
        check.fail(
            group & ~_mask(pc.is_null(columns[name])),
            name,
            columns[name],
            "a row with a group_id gives the group's Tc only (Tp and share-fetch are the "
            "topic's: give them in a row without group_id)",
        )


def _group_figure_rules(columns: dict[str, pa.Array], check: _Checker) -> None:
    """A groups row's Tc_g and its source agree: a figure without a source is a curated
    one (`given`); `topic-default` is the absence of a figure of the group's own."""
    figure = ~_mask(pc.is_null(columns["consumer_records_per_s"]))
    source = columns["capacity_source"]
    default = _mask(pc.equal(source, "topic-default"))
    own = ~_mask(pc.is_null(source)) & ~default
    check.fail(
        own & ~figure,
        "consumer_records_per_s",
        columns["consumer_records_per_s"],
        "capacity_source names a capacity of the group's own, but consumer_records_per_s is empty",
    )
    check.fail(
        default & figure,
        "capacity_source",
        source,
        "topic-default carries no figure of the group's own (the capacity table's topic "
        "or * row gives it): leave consumer_records_per_s empty, or say how it is known",
    )
    columns["capacity_source"] = pc.if_else(
        pa.array(figure & _mask(pc.is_null(source))), pa.scalar("given"), source
    )


def _table_rules(spec: Table, columns: dict[str, pa.Array], raw: pa.Table, check: _Checker) -> None:
    """Rules that involve more than one column."""
    if spec.name == "capacity":
        figures = (
            "producer_mib_per_s",
            "producer_records_per_s",
            "consumer_mib_per_s",
            "consumer_records_per_s",
            # A share-fetch measurement alone is a figure too (the sizing then takes
            # both of the topic's sides from the `*` row).
            "share_fetch_mib_per_s",
            "share_fetch_records_per_s",
        )
        none = np.ones(raw.num_rows, dtype=bool)
        for name in figures:
            none &= _mask(pc.is_null(columns[name]))
        check.fail(none, "producer_mib_per_s", columns["topic"], "no capacity figure in the row")
        _group_capacity_rules(columns, check)
    if spec.name == "groups":
        protocol = pc.fill_null(columns["protocol"], DEFAULT_PROTOCOL)
        strategy = columns["strategy"]
        for group_protocol, assignors in GROUP_STRATEGIES.items():
            theirs = _mask(pc.equal(protocol, group_protocol))
            own = _mask(pc.is_in(strategy, pa.array(assignors)))
            check.fail(
                theirs & ~own & ~_mask(pc.is_null(strategy)),
                "strategy",
                strategy,
                f"not an assignor of {group_protocol} groups (those use {', '.join(assignors)})",
            )
        _group_figure_rules(columns, check)
    if spec.name == "keys":
        has_key = ~_mask(pc.is_null(columns["key"]))
        has_hex = ~_mask(pc.is_null(columns["key_hex"]))
        check.fail(has_key & has_hex, "key", columns["key"], "give key or key_hex, not both")
        hashes = np.zeros(len(has_key), dtype=np.int64)
        for h in _KEY_HASHES:
            hashes += ~_mask(pc.is_null(columns[f"hash_{h}"]))
        check.fail(
            (hashes > 0) & (hashes < len(_KEY_HASHES)),
            "hash_murmur2",
            columns["hash_murmur2"],
            "a key given by its hashes needs all three: hash_murmur2, hash_crc32, hash_fnv1a",
        )
        check.fail(
            (hashes > 0) & (has_key | has_hex),
            "hash_murmur2",
            columns["hash_murmur2"],
            "give the key (key or key_hex) or its hashes, not both",
        )
        if "key" in raw.column_names and not pa.types.is_string(raw.column("key").type):
            check.fail(has_key, "key", columns["key"], "key must be text")
    if spec.name == "throughput" and "unit" in raw.column_names:
        unit = _as_text(raw.column("unit").combine_chunks())
        blank = _blank(unit)
        known = _mask(pc.is_in(unit, pa.array(list(BYTE_UNITS))))
        check.fail(~known & ~blank, "unit", unit, f"unknown unit (one of {', '.join(BYTE_UNITS)})")
        factor = pc.fill_null(
            pc.take(
                pa.array(list(BYTE_UNITS.values())),
                pc.index_in(unit, pa.array(list(BYTE_UNITS))),
            ),
            1.0,
        )
        for name in _BYTE_COLUMNS:
            columns[name] = pc.multiply(columns[name], factor)


def conform(
    name: str,
    raw: pa.Table,
    *,
    source: str,
    first_row: int = 1,
    row_numbers: np.ndarray | None = None,
) -> Conformed:
    """Check and convert a table a source read into the canonical `name` table.

    Args:
        name: The canonical table (`throughput`, `topics`, `capacity`, `groups`, `keys`,
            `cluster`).
        raw: The rows as read; extra columns are ignored, missing optional ones are null.
            A throughput table may carry a `unit` column for its byte rates (`B/s`
            default, `KiB/s`, `MiB/s`, `GiB/s`, `kB/s`/`KB/s`, `MB/s`, `GB/s`).
        source: Where the rows came from, e.g. `landing:/data/throughput/a.csv`.
        first_row: The row number of the first row (a CSV file: 2, after its header).
        row_numbers: Each row's number, when they are not consecutive from `first_row`
            (a CSV file with rows that were skipped as unreadable).

    Returns:
        The good rows and the rejected ones. Duplicates are not looked for here (see
        `dedupe`), since they may span files.

    Raises:
        FiguresError: a required column is missing.
    """
    spec = TABLES[name]
    missing = [c for c in spec.required if c not in raw.column_names and c != "source"]
    if missing:
        have = ", ".join(raw.column_names) or "none"
        raise FiguresError(
            f"{source}: row {first_row - 1 if first_row > 1 else 1}: missing required "
            f"column{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))} "
            f"for the {name} table (have {have})"
        )
    n = raw.num_rows
    check = _Checker(n)
    columns: dict[str, pa.Array] = {}
    for column in spec.columns:
        if column.name == "source" and column.name not in raw.column_names:
            columns["source"] = pa.array([source] * n, pa.string())
            continue
        if column.name not in raw.column_names:
            columns[column.name] = pa.nulls(n, column.type)
            continue
        values = raw.column(column.name).combine_chunks()
        converted = _convert(values, column.type, column.name, check)
        if not column.nullable:
            check.fail(_blank(values), column.name, values, "missing value")
        _check_domain(column.check, converted, column.name, values, check)
        columns[column.name] = converted
    _table_rules(spec, columns, raw, check)
    if name == "topics":
        partitioner = columns["partitioner"]
        columns["partitioner"] = pc.fill_null(partitioner, DEFAULT_PARTITIONER)
    if name == "groups":
        columns["protocol"] = pc.fill_null(columns["protocol"], DEFAULT_PROTOCOL)
    good = pa.table(
        {c.name: columns[c.name] for c in spec.columns},
        schema=pa.schema([pa.field(c.name, c.type) for c in spec.columns]),
    )
    numbers = (
        np.arange(first_row, first_row + n, dtype=np.int64)
        if row_numbers is None
        else np.asarray(row_numbers, dtype=np.int64)
    )
    keep = pa.array(~check.bad)
    table = good.filter(keep).cast(spec.schema)
    bad_rows = np.flatnonzero(check.bad)
    failed = bad_rows.tolist()
    rejected = rejections(
        name,
        source,
        numbers[bad_rows].tolist(),
        [check.field[i] for i in failed],
        [check.value[i] for i in failed],
        [check.reason[i] for i in failed],
        _raw_topics(raw, bad_rows),
    )
    kept_rows = pa.array(numbers[~check.bad], pa.int64())
    return Conformed(table, rejected, kept_rows)


def _raw_topics(raw: pa.Table, rows: np.ndarray) -> list[str | None] | None:
    """The topic of each of `rows` as the source gave it, trimmed (None: no topic column).

    A rejected row keeps its topic so that a refused fleet default capacity row (`*`)
    can be told from the others (`planner.figures.refused`).
    """
    if "topic" not in raw.column_names or rows.size == 0:
        return None
    topics = _as_text(raw.column("topic").combine_chunks().take(pa.array(rows)))
    return [t or None for t in topics.to_pylist()]


def compact(conformed: Conformed, columns: Sequence[str] = ("source",)) -> Conformed:
    """The same piece with `columns` (text) dictionary-encoded.

    A source names every row it gave, and a topic every sample of it, so as text each is
    repeated per row: in the key samples of a landing folder (100,000 rows per file) a
    70-character source label was half the memory of the collected table and the topic
    name a fifth. Collection keeps pieces this way; the figures writer writes the
    columns back as text (`write_interval`).
    """
    table = conformed.table
    for name in columns:
        i = table.schema.get_field_index(name)
        if i < 0 or pa.types.is_dictionary(table.schema.field(i).type):
            continue
        encoded = pc.dictionary_encode(table.column(i))
        table = table.set_column(i, table.schema.field(i).with_type(encoded.type), encoded)
    return Conformed(table, conformed.rejected, conformed.rows)


def unified_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """A dictionary-encoded column's codes over one dictionary for all its pieces.

    Returns:
        Each row's code, and the dictionary the codes index.
    """
    unified = column.unify_dictionaries()
    if unified.num_chunks == 0:
        return np.zeros(0, dtype=np.int64), pa.array([], column.type.value_type)
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in unified.chunks])
    return codes, unified.chunk(0).dictionary


def _grouping_columns(table: pa.Table, keys: list[str]) -> pa.Table:
    """The key columns in a cheap form to group on, plus the row index `__i`.

    Text keys become dictionary codes when they repeat a lot (topic names) or come
    dictionary-encoded already (`compact`), and the
    optional `key`/`key_hex` pair of the key-sample table (and a key's hashes, when it
    is known only by them) becomes one column (a text key, a hex key and hashes can
    never be equal, so they are told apart by a prefix; the null key, none of them, is a
    value of its own too).
    """
    columns: dict[str, pa.Array] = {}
    rest = list(keys)
    if "key" in rest and "key_hex" in rest:
        rest = [k for k in rest if k not in _KEY_FORMS]
        text = pc.binary_join_element_wise("t", table.column("key"), "")
        hexed = pc.binary_join_element_wise("h", table.column("key_hex"), "")
        forms = [text, hexed]
        if "hash_murmur2" in keys:
            forms.append(
                pc.binary_join_element_wise(
                    "x",
                    *(table.column(f"hash_{h}").cast(pa.string()) for h in _KEY_HASHES),
                    ":",
                )
            )
        columns["__key"] = pc.coalesce(*forms, pa.scalar("n"))
    for k in rest:
        col = table.column(k)
        coded = pa.types.is_dictionary(col.type)
        if coded or pa.types.is_string(col.type):
            col = pc.fill_null(col, "\x00<null>")
            # Codes from one dictionary for every piece (grouping on pieces' differing
            # dictionaries is not supported).
            if coded or table.num_rows > 1_000:
                col = pc.dictionary_encode(col).combine_chunks().indices
        columns[k] = col
    columns["__i"] = pa.array(np.arange(table.num_rows))
    return pa.table(columns)


# Tables keyed by topic and more, with more rows than this, are checked a topic at a time
# first, and grouped (`_duplicates`) only in the topics that repeat a key: grouping every
# row at once hashes them all into one table, 12 s and 3.6 GiB for the 20 M key-sample
# rows of the 10,000-topic sample fleet; counting distinct keys topic by topic takes
# 2.3 s and little memory.
_BY_TOPIC_ROWS = 100_000


def _duplicates(table: pa.Table, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The rows that repeat an earlier row's key (ascending), and that earlier row for each."""
    filled = _grouping_columns(table, keys)
    group_keys = [c for c in filled.column_names if c != "__i"]
    first = filled.group_by(group_keys, use_threads=False).aggregate([("__i", "min")])
    winners = np.zeros(table.num_rows, dtype=bool)
    winners[first.column("__i_min").to_numpy()] = True
    if winners.all():
        return np.empty(0, np.int64), np.empty(0, np.int64)
    losers = np.flatnonzero(~winners)
    firsts = filled.take(pa.array(losers)).join(
        first, keys=group_keys, join_type="left outer", use_threads=False
    )
    firsts = firsts.sort_by("__i")
    return losers, firsts.column("__i_min").to_numpy()


def _distinct_keys(part: pa.Table, rest: list[str]) -> int:
    """How many distinct values `rest` (the key after its topic) takes in `part`."""
    hashed = [k for k in rest if k.startswith("hash_")]
    if rest[:2] == ["key", "key_hex"] and all(
        part.column(k).null_count == part.num_rows for k in hashed
    ):
        text, hexed = part.column("key"), part.column("key_hex")
        # One kind of key (or the null key) only: the column itself tells them apart.
        if hexed.null_count == part.num_rows:
            return int(pc.count_distinct(text, mode="all").as_py())
        if text.null_count == part.num_rows:
            return int(pc.count_distinct(hexed, mode="all").as_py())
    values = _grouping_columns(part, rest).column(0) if len(rest) > 1 else part.column(rest[0])
    return int(pc.count_distinct(values, mode="all").as_py())


def _rows_of_topics_with_repeats(table: pa.Table, keys: list[str]) -> np.ndarray:
    """The rows (ascending) of every topic in which some key is given more than once."""
    topic = pc.fill_null(table.column("topic"), "\x00<null>")
    n = table.num_rows
    codes: np.ndarray | None = None
    if pa.types.is_dictionary(topic.type):  # (as collection keeps it: compare codes)
        codes, _ = unified_codes(topic)
        starts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        heads = codes[np.concatenate([[0], starts])].tolist()
    else:
        changes = pc.not_equal(topic.slice(1), topic.slice(0, n - 1))
        starts = np.flatnonzero(changes.to_numpy(zero_copy_only=False)) + 1
        heads = [topic[0].as_py(), *pc.filter(topic.slice(1), changes).to_pylist()]
    rest = table.select(keys[1:])
    order: np.ndarray | None = None
    if len(set(heads)) < len(heads):  # some topic's rows are not all together
        if codes is None:
            codes = pc.dictionary_encode(topic).combine_chunks().indices.to_numpy()
        order = np.argsort(codes)
        starts = np.flatnonzero(np.diff(codes[order])) + 1
        rest = rest.take(pa.array(order))
    bounds = np.concatenate([[0], starts, [n]]).tolist()
    repeating: list[np.ndarray] = []
    for lo, hi in itertools.pairwise(bounds):
        if _distinct_keys(rest.slice(lo, hi - lo), keys[1:]) < hi - lo:
            repeating.append(np.arange(lo, hi) if order is None else order[lo:hi])
    if not repeating:
        return np.empty(0, np.int64)
    return np.sort(np.concatenate(repeating))


def _find_duplicates(table: pa.Table, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
    # A key includes its topic, so only the rows of topics that repeat a key can repeat
    # one; `_duplicates` on those rows alone, in their order, finds the same rows.
    if keys[0] == "topic" and len(keys) > 1 and table.num_rows > _BY_TOPIC_ROWS:
        suspects = _rows_of_topics_with_repeats(table, keys)
        if suspects.size == 0:
            return suspects, suspects
        losers, firsts = _duplicates(table.take(pa.array(suspects)), keys)
        return suspects[losers], suspects[firsts]
    return _duplicates(table, keys)


def dedupe(name: str, table: pa.Table, rows: pa.Array | None = None) -> Conformed:
    """Keep the first row of every key of `name`; reject the later ones.

    Args:
        name: The canonical table.
        table: Its rows, in priority order (earlier sources win).
        rows: The row number of each row in its own file, for the rejection message.
    """
    spec = TABLES[name]
    if table.num_rows == 0:
        return Conformed(table, empty("rejected"), rows)
    keys = list(spec.key)
    losers, first_of = _find_duplicates(table, keys)
    if losers.size == 0:
        return Conformed(table, empty("rejected"), rows)
    winners = np.ones(table.num_rows, dtype=bool)
    winners[losers] = False
    first = pa.array(first_of)
    origin = table.column("source").take(first).to_pylist()
    first_rows = [None] * len(losers) if rows is None else rows.take(first).to_pylist()
    reasons = [
        f"{DUPLICATE}{', '.join(keys)}): first given by {src}"
        + ("" if row is None else f" row {row}")
        for src, row in zip(origin, first_rows, strict=True)
    ]
    lost = table.take(pa.array(losers))
    values = [", ".join(str(lost.column(k)[i].as_py()) for k in keys) for i in range(len(losers))]
    rejected = pa.table(
        {
            "table": pa.array([name] * len(losers), pa.string()),
            "source": lost.column("source"),
            "row": (
                pa.nulls(len(losers), pa.int64())
                if rows is None
                else rows.take(pa.array(losers)).cast(pa.int64())
            ),
            "field": pa.array([keys[-1]] * len(losers), pa.string()),
            "value": pa.array(values, pa.string()),
            "reason": pa.array(reasons, pa.string()),
            "topic": (
                lost.column("topic").cast(pa.string())
                if "topic" in keys
                else pa.nulls(len(losers), pa.string())
            ),
        },
        schema=REJECTED.schema,
    )
    kept = None if rows is None else rows.filter(pa.array(winners))
    return Conformed(table.filter(pa.array(winners)), rejected, kept)
