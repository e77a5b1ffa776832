"""What goes into the store and what comes back out, as plain values.

A recommendation row arrives as a mapping (a Spark `Row.asDict()`, a `pyarrow` row, or
`planner.store.recommendation_row` of a core `TopicPlan`). The fields the store queries
or shows get a column of their own (`COLUMNS`); every other field is kept, unchanged,
in the row's `detail` JSON, so a new field in the recommendations dataset is stored
before the store learns about it.

Every row is checked and converted before the first write, so a bad row stops the
publish with an error naming the row, the topic and the field, and nothing is written.
The checks are about what the two databases can hold, not about Kafka: a topic name
may be any string (Kafka's name rule is checked upstream), except that PostgreSQL
`text` and `jsonb` cannot hold NUL characters or unpaired surrogates, so neither
backend accepts them.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

import numpy as np
import pyarrow as pa

from planner.figures.dataset import DataInterval

__all__ = [
    "COLUMNS",
    "FAILED",
    "FLEET_SCOPE",
    "MAX_TOPIC_BYTES",
    "PUBLISHED",
    "REPLACED",
    "RUN_FIELD",
    "PreparedRow",
    "Recommendation",
    "Run",
    "RunRecord",
    "RunSummary",
    "StoreError",
    "check_scope",
    "check_text",
    "json_object",
    "prepare_rows",
    "run_counts",
    "topic_scope",
]

#: A run whose rows are the current ones for its data interval.
PUBLISHED = "published"
#: A run whose output failed validation: recorded, and nothing of it is published.
FAILED = "failed"
#: A published run whose interval was published again (rerun or backfill): its rows
#: were deleted in the same transaction that wrote the new ones.
REPLACED = "replaced"

#: Recommendation statuses counted by the run summary. `increase` (not enough today)
#: and `plan-increase` (not enough by the end of the horizon) come from
#: `planner.recommend`; `missing-capacity` marks a topic with no Tp/Tc to size on.
INCREASE_STATUSES = frozenset({"increase", "plan-increase"})
MISSING_CAPACITY = "missing-capacity"

Kind = Literal["text", "int", "float", "bool", "texts", "objects"]

#: The recommendation fields with a column of their own, and their kind; the names are
#: those of the `recommendations` dataset (`spark_jobs.schemas.RECOMMENDATIONS`). Units
#: are in the names: `mib_*_per_s` in MiB/s, `records_*_per_s` in records/s,
#: `*_growth_per_year` a yearly fraction (0.5 = +50 %/year); `tp_*`/`tc_*` are the
#: single-partition producer/consumer throughputs. `groups` holds one object per
#: consumer group (`group_id`, `recommended_members`, `members_now`, `strategy`,
#: `protocol`, `planned_as`, ...). Fields the dataset gained later, the topic's
#: `alternatives` and `alternatives_coded` among them, are kept in `detail`: a store
#: made before them opens and reads as it did.
COLUMNS: dict[str, Kind] = {
    "topic": "text",
    "status": "text",
    "current_partitions": "int",
    "required_partitions": "int",
    "required_partitions_now": "int",
    "recommended_partitions": "int",
    "recommended_consumers": "int",
    "strategy": "text",
    "deciding_dimension": "text",
    "deciding_side": "text",
    "keyed": "bool",
    "partitioner": "text",
    "mib_in_peak_per_s": "float",
    "records_in_peak_per_s": "float",
    "mib_in_growth_per_year": "float",
    "mib_in_target_per_s": "float",
    "records_in_target_per_s": "float",
    "tp_mib_per_s": "float",
    "tp_records_per_s": "float",
    "tc_mib_per_s": "float",
    "tc_records_per_s": "float",
    "warnings": "texts",
    "rationale": "texts",
    "groups": "objects",
}
#: The scope of the scheduled fleet-wide pipeline's runs; see `Run.scope`.
FLEET_SCOPE = "fleet"
#: Prefix of the scope of a run that plans one new topic.
TOPIC_SCOPE_PREFIX = "topic:"
#: The dataset's run key column: checked against the run being published, not stored
#: per row (the row's run is its `run_id`).
RUN_FIELD = "run"
#: Longest topic name stored, in UTF-8 bytes. PostgreSQL's btree indexes take entries
#: of at most 2,704 bytes (a third of a page), and the topic is in two of them; Kafka
#: itself allows 249 characters. Both backends refuse longer names alike.
MAX_TOPIC_BYTES = 2_000
_REQUIRED = ("topic", "status")


class StoreError(ValueError):
    """A run or row the store cannot take, or a store it cannot reach, and why."""


def topic_scope(topic: str) -> str:
    """The scope of a run that plans the one topic `topic`."""
    return TOPIC_SCOPE_PREFIX + topic


def check_scope(scope: str) -> str:
    """`scope` if it is `fleet` or `topic:<name>`.

    Raises:
        StoreError: any other scope.
    """
    if scope == FLEET_SCOPE or (
        isinstance(scope, str)
        and scope.startswith(TOPIC_SCOPE_PREFIX)
        and len(scope) > len(TOPIC_SCOPE_PREFIX)
    ):
        return check_text(scope, "run scope")
    raise StoreError(f"run scope must be {FLEET_SCOPE!r} or 'topic:<name>', got {scope!r}")


@dataclass(frozen=True)
class Run:
    """The run being published or recorded: one data interval of the pipeline.

    Attributes:
        interval: The data interval; its key is the run key, so publishing the same
            interval again (a rerun or a backfill) replaces that run's rows.
        started_at: When the run started (time-zone aware).
        source: Where the figures came from and the settings used (sources, config
            file and digest, planner version): a small JSON object.
        scope: What the run plans: `fleet` (the scheduled pipeline) or
            `topic:<name>` (one new topic planned by hand). A publish replaces only
            the run of the same scope and interval, so planning a new topic never
            replaces the fleet's rows.
    """

    interval: DataInterval
    started_at: dt.datetime
    source: Mapping[str, Any] = field(default_factory=dict)
    scope: str = FLEET_SCOPE

    def __post_init__(self) -> None:
        if self.started_at.tzinfo is None:
            raise StoreError(f"run {self.interval.key}: started_at must carry a time zone")
        check_scope(self.scope)

    @property
    def key(self) -> str:
        """The run key: the data interval's key, e.g. `20261121T0000Z`."""
        return self.interval.key


@dataclass(frozen=True)
class RunSummary:
    """What the validation and collection steps say about a run.

    Attributes:
        validation: Validation results by suite (for example
            `{"recommendations.published": {"success": true, "failed": []}}`).
        rejected_rows: Input rows rejected by collection for this interval.
    """

    validation: Mapping[str, Any] = field(default_factory=dict)
    rejected_rows: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.rejected_rows, bool) or self.rejected_rows < 0:
            raise StoreError(f"rejected_rows must be a count >= 0, got {self.rejected_rows!r}")


@dataclass(frozen=True)
class RunRecord:
    """A run as the store recorded it.

    Attributes:
        id: The store's id of this attempt (each publish or failure is one).
        key: The run key (data interval key).
        interval: The data interval.
        status: `published`, `failed` or `replaced`.
        started_at: When the run started, UTC.
        finished_at: When the store recorded it, UTC.
        topics: Recommendation rows published (0 for a failure).
        increases: Rows whose status asks for more partitions now or by the horizon.
        missing_capacity: Rows with no capacity figures to size on.
        rejected_rows: Input rows rejected by collection.
        validation: Validation results by suite.
        source: Sources and config summary.
        message: Why a failed run failed (None otherwise).
        scope: `fleet` or `topic:<name>` (see `Run.scope`).
    """

    id: int
    key: str
    interval: DataInterval
    status: str
    started_at: dt.datetime
    finished_at: dt.datetime
    topics: int
    increases: int
    missing_capacity: int
    rejected_rows: int
    validation: Mapping[str, Any]
    source: Mapping[str, Any]
    message: str | None
    scope: str = FLEET_SCOPE


@dataclass(frozen=True)
class Recommendation:
    """One topic's stored recommendation, with the run it belongs to.

    Field meanings and units follow `COLUMNS`; `detail` holds every other field of the
    row as it was published.
    """

    run: RunRecord
    topic: str
    status: str
    current_partitions: int | None = None
    required_partitions: int | None = None
    required_partitions_now: int | None = None
    recommended_partitions: int | None = None
    recommended_consumers: int | None = None
    strategy: str | None = None
    deciding_dimension: str | None = None
    deciding_side: str | None = None
    keyed: bool | None = None
    partitioner: str | None = None
    mib_in_peak_per_s: float | None = None
    records_in_peak_per_s: float | None = None
    mib_in_growth_per_year: float | None = None
    mib_in_target_per_s: float | None = None
    records_in_target_per_s: float | None = None
    tp_mib_per_s: float | None = None
    tp_records_per_s: float | None = None
    tc_mib_per_s: float | None = None
    tc_records_per_s: float | None = None
    warnings: tuple[str, ...] = ()
    rationale: tuple[str, ...] = ()
    groups: tuple[Mapping[str, Any], ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def alternatives(self) -> tuple[str, ...]:
        """Other group protocols for the topic's classic groups, as sentences: kept in
        `detail` with their coded form (`alternatives_coded`), as the dataset gained
        them after the store's columns were set; () for rows written before."""
        found = self.detail.get("alternatives")
        return tuple(str(a) for a in found) if isinstance(found, list) else ()

    @property
    def alternatives_coded(self) -> tuple[Mapping[str, Any], ...]:
        """`alternatives` in their coded form (`planner.notes.Note.as_row`)."""
        found = self.detail.get("alternatives_coded")
        if not isinstance(found, list):
            return ()
        return tuple(a for a in found if isinstance(a, Mapping))

    def as_row(self) -> dict[str, Any]:
        """The row as published (after `prepare_rows`): columns and detail, flat."""
        row: dict[str, Any] = {name: getattr(self, name) for name in COLUMNS}
        for name, kind in COLUMNS.items():
            if kind in ("texts", "objects"):
                row[name] = list(row[name])
        row.update(self.detail)
        return row


@dataclass(frozen=True)
class PreparedRow:
    """A row checked and split into column values and the `detail` document."""

    columns: dict[str, Any]
    detail: dict[str, Any]


def prepare_rows(
    rows: Iterable[Mapping[str, Any]] | pa.Table, run_key: str | None = None
) -> list[PreparedRow]:
    """Check and convert every row before anything is written.

    Args:
        rows: Recommendation rows (mappings), or an Arrow table of them.
        run_key: The run being published: a row's `run` field, when present, must
            name it (a row of another run is a mix-up, not data).

    Returns:
        The rows, in order, ready for the database.

    Raises:
        StoreError: a row that is not a mapping, lacks `topic` or `status`, repeats a
            topic, belongs to another run, or has a value of the wrong kind, naming the
            row, topic and field.
    """
    if isinstance(rows, pa.Table):
        rows = rows.to_pylist()
    prepared: list[PreparedRow] = []
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise StoreError(f"recommendations row {index}: expected a mapping, got {row!r}")
        where = f"recommendations row {index}"
        if isinstance(row.get("topic"), str):
            where += f" (topic {row['topic']!r})"
        row = dict(row)
        row_run = row.pop(RUN_FIELD, None)
        if row_run is not None and run_key is not None and row_run != run_key:
            raise StoreError(
                f"{where}, field {RUN_FIELD!r}: row of run {row_run!r}, not {run_key!r}"
            )
        item = _prepare_row(row, where)
        topic = item.columns["topic"]
        if topic in seen:
            raise StoreError(
                f"{where}: topic repeats row {seen[topic]}; a run holds one row per topic"
            )
        seen[topic] = index
        prepared.append(item)
    return prepared


def run_counts(rows: Iterable[PreparedRow]) -> dict[str, int]:
    """The run's counts, derived from its rows so that they cannot disagree."""
    counts = {"topics": 0, "increases": 0, "missing_capacity": 0}
    for row in rows:
        status = row.columns["status"]
        counts["topics"] += 1
        counts["increases"] += status in INCREASE_STATUSES
        counts["missing_capacity"] += status == MISSING_CAPACITY
    return counts


def _prepare_row(row: dict[str, Any], where: str) -> PreparedRow:
    deciding = row.get("deciding")
    # `recommendations.json` nests the deciding pair; the dataset has it flat.
    if isinstance(deciding, Mapping) and set(deciding) <= {"dimension", "side"}:
        del row["deciding"]
        for part in ("dimension", "side"):
            flat = f"deciding_{part}"
            if part in deciding and row.get(flat) not in (None, deciding[part]):
                raise StoreError(
                    f"{where}, field 'deciding': {part} {deciding[part]!r} "
                    f"disagrees with {flat} {row[flat]!r}"
                )
            row.setdefault(flat, deciding.get(part))
    columns: dict[str, Any] = {}
    for name, kind in COLUMNS.items():
        value = row.pop(name, None)
        if value is None and name in _REQUIRED:
            raise StoreError(f"{where}: field {name!r} is required")
        columns[name] = _CONVERT[kind](value, f"{where}, field {name!r}")
    size = len(columns["topic"].encode("utf-8"))
    if size > MAX_TOPIC_BYTES:
        raise StoreError(
            f"{where}, field 'topic': {size} bytes of UTF-8, more than the "
            f"{MAX_TOPIC_BYTES} the store indexes"
        )
    for key in row:
        if not isinstance(key, str):
            raise StoreError(f"{where}: field name {key!r} is not a string")
    return PreparedRow(columns, json_object(row, f"{where}, detail"))


def check_text(value: str, where: str) -> str:
    """A string both backends store unchanged (no NUL, valid UTF-8)."""
    if "\x00" in value:
        raise StoreError(f"{where}: NUL characters cannot be stored (PostgreSQL text)")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise StoreError(f"{where}: not valid Unicode text ({exc.reason})") from None
    return value


def _text(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise StoreError(f"{where}: expected a string, got {value!r}")
    return check_text(value, where)


def _int(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool | np.bool_):
        raise StoreError(f"{where}: expected an integer, got {value!r}")
    if isinstance(value, int | np.integer):
        return int(value)
    # pandas turns a nullable integer column into floats with NaN for null.
    if isinstance(value, float | np.floating):
        if math.isnan(value):
            return None
        if math.isfinite(value) and float(value).is_integer():
            return int(value)
    raise StoreError(f"{where}: expected an integer, got {value!r}")


def _float(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool | np.bool_) or not isinstance(
        value, int | float | Decimal | np.integer | np.floating
    ):
        raise StoreError(f"{where}: expected a number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        return None  # not measured
    if not math.isfinite(number):
        raise StoreError(f"{where}: expected a finite number, got {value!r}")
    return number


def _bool(value: Any, where: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise StoreError(f"{where}: expected true or false, got {value!r}")


def _sequence(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, list | tuple | np.ndarray):
        raise StoreError(f"{where}: expected a list, got {value!r}")
    return list(value)


def _texts(value: Any, where: str) -> list[str]:
    items = _sequence(value, where)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise StoreError(f"{where}[{i}]: expected a string, got {item!r}")
        check_text(item, f"{where}[{i}]")
    return items


def _objects(value: Any, where: str) -> list[dict[str, Any]]:
    items = _sequence(value, where)
    out: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise StoreError(f"{where}[{i}]: expected an object, got {item!r}")
        out.append(json_object(item, f"{where}[{i}]"))
    return out


_CONVERT: dict[Kind, Any] = {
    "text": _text,
    "int": _int,
    "float": _float,
    "bool": _bool,
    "texts": _texts,
    "objects": _objects,
}


def json_object(value: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A JSON-ready copy of a mapping; `where` names it in errors.

    JSON has no NaN or Infinity: those become null. Integer keys become strings (as
    JSON would write them); NumPy scalars and arrays become numbers and lists; dates and
    times become ISO 8601 text, aware ones in UTC.
    """
    if not isinstance(value, Mapping):
        raise StoreError(f"{where}: expected an object, got {value!r}")
    try:
        out: dict[str, Any] = _json_value(value)
    except _Unstorable as exc:
        raise StoreError(f"{where}{''.join(reversed(exc.path))}: {exc.reason}") from None
    return out


class _Unstorable(Exception):
    """A value JSON cannot hold; the path to it is collected on the way out."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str] = []


def _json_text(value: str) -> str:
    try:
        return check_text(value, "")
    except StoreError as exc:
        raise _Unstorable(str(exc).removeprefix(": ")) from None


def _json_value(value: Any) -> Any:
    # Called for every value of every row: the path for an error message is built only
    # when there is an error.
    kind = type(value)
    if kind is str:
        return _json_text(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if value is None or kind is bool or kind is int:
        return value
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(key, int | np.integer) and not isinstance(key, bool):
                key = str(key)
            if not isinstance(key, str):
                raise _Unstorable(f"object key {key!r} is not a string")
            try:
                out[_json_text(key)] = _json_value(item)
            except _Unstorable as exc:
                exc.path.append(f".{key}")
                raise
        return out
    if isinstance(value, list | tuple | np.ndarray):
        items = []
        for i, item in enumerate(value):
            try:
                items.append(_json_value(item))
            except _Unstorable as exc:
                exc.path.append(f"[{i}]")
                raise
        return items
    if isinstance(value, str):
        return _json_text(str(value))
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | Decimal | np.floating):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, dt.datetime):
        return (value.astimezone(dt.UTC) if value.tzinfo else value).isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    raise _Unstorable(
        f"{type(value).__name__} cannot be stored as JSON ({value!r}); "
        "convert it upstream (bytes, for example, to text)"
    )
