"""The report's input model: what the site shows, as plain frozen values.

The renderer reads nothing else. Two producers fill it: the pipeline maps the Spark
jobs' outputs into it, and `planner.report.from_plan.from_topic_plan` builds a
`TopicReport` from the pure core's `TopicPlan`. Every class is a frozen dataclass of
strings, numbers, booleans, UTC datetimes, tuples and other model classes, so a whole
`FleetReport` goes to JSON and back (`to_json_dict`, `from_json_dict`) without loss.

Values are checked on construction against the annotations (lists become tuples, ints
become floats where a float is expected, ISO strings become datetimes when read from
JSON) and against the few rules the renderer relies on; a bad value raises ValueError
naming the topic, the field path and the value. Domain rules (recommended >= current,
and so on) are the output expectation suite's job, not this module's.

Units: rates are MiB/s (2^20 bytes) or records/s as the dimension says; loads in the
chart classes are a share of one consumer's capacity (1.0 = Tc); percentages end in
`_pct`; times are seconds since the epoch (UTC) or aware datetimes.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar, get_args, get_origin
from urllib.parse import urlsplit

from planner.sizing import years_to_grow

__all__ = [
    "DIMENSION_UNITS",
    "GROUP_STATUSES",
    "PLANNED_STATUSES",
    "RULE",
    "TOPIC_STATUSES",
    "Candidate",
    "ChurnChart",
    "ChurnRow",
    "ClusterReplicas",
    "CodedNote",
    "CostPanel",
    "CreationRequest",
    "Deciding",
    "DimensionArithmetic",
    "FleetReport",
    "GroupReport",
    "GroupStatus",
    "HotKeyMark",
    "MemberLoadChart",
    "MemberLoadCurve",
    "NewTopicLink",
    "PartitionLoadChart",
    "RejectedExample",
    "RejectedSummary",
    "ReportSettings",
    "ThroughputHistory",
    "TopicReport",
    "TopicStatus",
    "cluster_replicas",
]

#: `ok`: enough partitions to the end of the horizon; `plan-increase`: enough today, not
#: by the end of the horizon; `increase`: not enough today; `missing-capacity`: no Tp/Tc
#: (or no throughput) to size on; `error`: planning failed; `no-figures`: in the topics
#: table, but no throughput sample in the history window; `unknown-topic`: throughput
#: for a topic the topics table does not list; `invalid-figures`: its figures broke a
#: row-level input rule and were set aside (docs/validation.md). All but the first three
#: say why in `TopicReport.error`. `create`: a topic that does not exist yet, planned
#: before it is created (`planner.recommend.creation`); it is sized like the first three.
TopicStatus = Literal[
    "ok",
    "plan-increase",
    "increase",
    "create",
    "missing-capacity",
    "error",
    "no-figures",
    "unknown-topic",
    "invalid-figures",
]
TOPIC_STATUSES: tuple[TopicStatus, ...] = get_args(TopicStatus)
#: The statuses of a topic that was sized (its numbers are all present).
PLANNED_STATUSES: frozenset[str] = frozenset({"ok", "plan-increase", "increase", "create"})
#: `unplanned`: a topic the group reads has no plan, so neither has the group (its notes
#: say which topic and why); its sizes and recommended strategy are then None. `deploy`:
#: a group with no member yet, reading a topic to be created.
GroupStatus = Literal["ok", "under-provisioned", "over-provisioned", "unplanned", "deploy"]
GROUP_STATUSES: tuple[GroupStatus, ...] = get_args(GroupStatus)
Dimension = Literal["mib_in", "records_in", "mib_out"]
Side = Literal["producer", "consumer", "both"]
#: Where a capacity came from: the topic's own row, or the `*` default row.
CapacityScope = Literal["topic", "*"]

DIMENSION_UNITS: Mapping[str, str] = {
    "mib_in": "MiB/s in",
    "records_in": "records/s in",
    "mib_out": "MiB/s out per group",
}
#: The sizing rule in words (`planner.sizing`).
RULE = (
    "partitions >= max(target / Tp, target / Tc), rounded up, in every dimension measured; "
    "the largest requirement wins, and a keyed topic also needs its busiest partition to fit"
)

_T = TypeVar("_T", bound="_Model")


class _Model:
    """Checks and normalises every field against its annotation on construction."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            checked = _coerce(_hints(type(self))[f.name], value, f.name, from_json=False)
            if checked is not value:
                object.__setattr__(self, f.name, checked)
        self._check()

    def _check(self) -> None:
        """Rules beyond the annotations (overridden where there are any)."""

    @classmethod
    def from_json_dict(cls: type[_T], data: Mapping[str, Any]) -> _T:
        """Build from `to_json_dict` output (or `json.load` of it).

        Raises:
            ValueError: a missing or unknown field, or a value of the wrong type; the
                message names the field path.
        """
        built: _T = _coerce(cls, data, cls.__name__, from_json=True)
        return built

    def to_json_dict(self) -> dict[str, Any]:
        """Plain JSON values: dicts, lists, strings, numbers, booleans, None."""
        plain: dict[str, Any] = _to_plain(self)
        return plain


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = typing.get_type_hints(cls)
    return hints


def _to_plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_to_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _to_plain(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _coerce(tp: Any, value: Any, path: str, *, from_json: bool) -> Any:
    """`value` as type `tp`, or ValueError naming `path`."""
    origin = get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        args = get_args(tp)
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return _coerce(arg, value, path, from_json=from_json)
            except ValueError as exc:
                errors.append(str(exc))
        raise ValueError(errors[0] if len(errors) == 1 else f"{path}: {value!r} fits no type")
    if origin is Literal:
        if value not in get_args(tp) or isinstance(value, bool):
            choices = ", ".join(repr(a) for a in get_args(tp))
            raise ValueError(f"{path}: must be one of {choices}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, tuple | list):
            raise ValueError(f"{path}: must be a list, got {type(value).__name__}")
        (item,) = (a for a in get_args(tp) if a is not Ellipsis)
        items = [_coerce(item, v, f"{path}[{i}]", from_json=from_json) for i, v in enumerate(value)]
        return value if isinstance(value, tuple) and all(map(_same, items, value)) else tuple(items)
    if origin is Mapping or origin is dict:
        if not isinstance(value, Mapping):
            raise ValueError(f"{path}: must be a mapping, got {type(value).__name__}")
        key_tp, value_tp = get_args(tp)
        return {
            _coerce(key_tp, k, f"{path} key", from_json=from_json): _coerce(
                value_tp, v, f"{path}[{k!r}]", from_json=from_json
            )
            for k, v in value.items()
        }
    if isinstance(tp, type) and issubclass(tp, _Model):
        if isinstance(value, tp):
            return value
        if not from_json or not isinstance(value, Mapping):
            raise ValueError(f"{path}: must be a {tp.__name__}, got {type(value).__name__}")
        names = {f.name for f in dataclasses.fields(tp)}  # type: ignore[arg-type]
        unknown = sorted(set(value) - names)
        if unknown:
            raise ValueError(f"{path}: unknown field(s) {', '.join(map(str, unknown))}")
        kwargs = {
            name: _coerce(_hints(tp)[name], value[name], f"{path}.{name}", from_json=True)
            for name in names
            if name in value
        }
        try:
            return tp(**kwargs)
        except TypeError as exc:  # a required field is missing
            raise ValueError(f"{path}: {exc}") from None
    return _scalar(tp, value, path, from_json=from_json)


def _same(a: Any, b: Any) -> bool:
    return a is b


def _scalar(tp: Any, value: Any, path: str, *, from_json: bool) -> Any:
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{path}: must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{path}: must be a whole number, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{path}: must be a number, got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"{path}: must be a finite number, got {value!r}")
        return value if type(value) is float else float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ValueError(f"{path}: must be text, got {value!r}")
        return value
    if tp is datetime:
        if from_json and isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{path}: not an ISO 8601 time: {value!r}") from None
        if not isinstance(value, datetime):
            raise ValueError(f"{path}: must be a datetime, got {value!r}")
        if value.utcoffset() != timedelta(0):
            raise ValueError(f"{path}: must be an aware UTC datetime, got {value!r}")
        return value
    raise TypeError(f"{path}: unsupported annotation {tp!r}")  # a bug in this module


def _at_least(path: str, value: int | float | None, low: float) -> None:
    if value is not None and value < low:
        raise ValueError(f"{path}: must be {low:g} or above, got {value!r}")


# ---------------------------------------------------------------------------------------
# Fleet-level values


@dataclasses.dataclass(frozen=True)
class ReportSettings(_Model):
    """The planning settings the run used (the config's `[planning]` section).

    Attributes:
        percentile: Percentile of the per-sample rates taken as the peak.
        headroom_pct: Headroom added on the target, and kept free per consumer (%).
        horizon_days: Planning horizon, days.
        growth_model: `exponential`, `linear` or `none`.
        floor_growth_per_year: Minimum growth, yearly fraction (0.1 = +10 %/year).
        evenness_slack_pct: How far above the requirement an even count may be (%).
        max_partitions: The cap for that search.
        min_group_members: The fewest members recommended for a group.
    """

    percentile: float
    headroom_pct: float
    horizon_days: float
    growth_model: str
    floor_growth_per_year: float = 0.0
    evenness_slack_pct: float = 20.0
    max_partitions: int = 1_000
    min_group_members: int = 1


@dataclasses.dataclass(frozen=True)
class RejectedExample(_Model):
    """One input row kept out by the row checks (a row of the `rejected` table)."""

    source: str
    row: int | None
    field: str | None
    value: str | None
    reason: str


@dataclasses.dataclass(frozen=True)
class RejectedSummary(_Model):
    """Rejected input rows of one table.

    Attributes:
        table: The figures table (`throughput`, `topics`, `capacity`, `groups`, `keys`).
        rows: How many of its rows were rejected.
        examples: The first few, for the reader to recognise the problem.
    """

    table: str
    rows: int
    examples: tuple[RejectedExample, ...] = ()

    def _check(self) -> None:
        _at_least(f"rejected {self.table!r}: rows", self.rows, 0)


# ---------------------------------------------------------------------------------------
# One topic: the numbers and the why


@dataclasses.dataclass(frozen=True)
class Deciding(_Model):
    """The dimension and side whose requirement set the partition count."""

    dimension: Dimension
    side: Side


@dataclasses.dataclass(frozen=True)
class DimensionArithmetic(_Model):
    """The rule in one dimension, with every number a reader needs to check it.

    Attributes:
        dimension: `mib_in`, `records_in` or `mib_out` (one group's read rate).
        peak: The observed peak (percentile of the samples), in the dimension's unit.
        growth_per_year: Growth applied, yearly fraction.
        growth_method: How the growth was obtained, in words (fitted how, or the floor).
        growth_factor: Multiplier from the peak to the end of the horizon.
        grown: The peak grown to the end of the horizon.
        headroom_pct: Headroom added on top (%).
        target: `grown x (1 + headroom_pct / 100)`.
        producer_capacity: Tp in the dimension's unit (None: not measured, or `mib_out`).
        consumer_capacity: Tc in the dimension's unit (None: not measured).
        capacity_scope: Tp/Tc from the topic's own capacity row (`topic`) or `*`; when
            Tp and Tc came from different rows, Tc's row (see `producer_scope`). None:
            no capacity in this dimension.
        producer_partitions: `ceil(target / Tp)`, or None.
        consumer_partitions: `ceil(target / Tc)`, or None.
        required: The larger of the two (None: no capacity, the dimension was skipped).
        side: Which side needs `required` (`both` on a tie).
        producer_scope: Tp's row when it is not `capacity_scope`'s (the topic's own Tc
            with the fleet's default Tp, say); None: the same row, or no Tp.
        linear_growth: Whether the peak grows by the same amount every day (a linear
            fit) rather than compounding at `growth_per_year`.
    """

    dimension: Dimension
    peak: float
    growth_per_year: float
    growth_method: str
    growth_factor: float
    grown: float
    headroom_pct: float
    target: float
    producer_capacity: float | None
    consumer_capacity: float | None
    capacity_scope: CapacityScope | None
    producer_partitions: int | None
    consumer_partitions: int | None
    required: int | None
    side: Side | None
    producer_scope: CapacityScope | None = None
    linear_growth: bool = False

    def days_until_above(self, capacity: float) -> float | None:
        """Days from the end of the data until the peak, growing as planned, plus the
        headroom, is above `capacity`: 0 if it is already; None if it never is (no
        growth, or a shrinking peak)."""
        need = self.peak * (1 + self.headroom_pct / 100)
        if need > capacity:
            return 0.0
        if need <= 0:
            return None
        years = years_to_grow(capacity / need, self.growth_per_year, linear=self.linear_growth)
        return None if years is None else 365.0 * years

    @property
    def unit(self) -> str:
        """The dimension's unit in words (`MiB/s in`, ...)."""
        return DIMENSION_UNITS[self.dimension]

    @property
    def partition_capacity(self) -> float | None:
        """What one partition carries: the slower of Tp and Tc (only Tc for `mib_out`)."""
        tp = None if self.dimension == "mib_out" else self.producer_capacity
        caps = [c for c in (tp, self.consumer_capacity) if c is not None]
        return min(caps) if caps else None

    def _check(self) -> None:
        where = f"{self.dimension}"
        for name in ("peak", "grown", "target", "growth_factor", "headroom_pct"):
            _at_least(f"{where}.{name}", getattr(self, name), 0)
        for name in ("producer_capacity", "consumer_capacity"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{where}.{name}: must be above zero, got {value!r}")


@dataclasses.dataclass(frozen=True)
class Candidate(_Model):
    """A partition count the choice considered.

    Attributes:
        partitions: The count.
        even_group_sizes: Group sizes it splits evenly over.
        chosen: Whether it is the recommendation.
    """

    partitions: int
    even_group_sizes: tuple[int, ...]
    chosen: bool


@dataclasses.dataclass(frozen=True)
class CostPanel(_Model):
    """What the recommended count costs (fields as `planner.cost.PartitionCost`).

    Attributes:
        partitions: The count costed.
        producer_batch_memory_bytes: `partitions x batch.size`, bytes.
        producer_buffer_share: That memory as a fraction of `buffer.memory`.
        replicas_total: `partitions x replication_factor`.
        replicas_per_broker: Replicas on the busiest broker after the change.
        replicas_per_broker_limit: The configured limit per broker.
        latency_rule_limit: `100 x brokers x replication_factor`.
        leaders_per_broker: Leaders of this topic on the busiest broker.
        election_unavailability_ms: Leader elections after a broker failure, ms (None:
            replication factor 1, no replica to elect: offline until the broker returns).
        segments_per_replica: Log segments one replica keeps over its retention.
        file_handles_per_broker: Open files this topic costs the busiest broker.
        consumer_threads: Threads for one group to read every partition in parallel.
        warnings: Limits exceeded, in plain words.
    """

    partitions: int
    producer_batch_memory_bytes: int
    producer_buffer_share: float
    replicas_total: int
    replicas_per_broker: int
    replicas_per_broker_limit: int
    latency_rule_limit: int
    leaders_per_broker: int
    election_unavailability_ms: float | None
    segments_per_replica: int
    file_handles_per_broker: int
    consumer_threads: int
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class CodedNote(_Model):
    """A warning or note in its coded form (`planner.notes.Note`).

    Attributes:
        code: The finding's stable code (`hot-key`, `falling-behind`, ...).
        severity: `warning` or `info`.
        params: The values the sentence is made of, as JSON text.
        text: The sentence.
    """

    code: str
    severity: str
    params: str
    text: str


@dataclasses.dataclass(frozen=True)
class GroupReport(_Model):
    """One consumer group reading the topic, at the recommended partition count.

    Attributes:
        group_id: The group.
        topics: Topics the group subscribes to (this one among them).
        current_strategy: Its `partition.assignment.strategy` today.
        strategy: The strategy recommended.
        current_members: Members today (0 for a planned group).
        recommended_members: Members to run (None: `unplanned`).
        members_now: Smallest group that keeps up with today's peak, with headroom
            (None: `unplanned`).
        members_at_horizon: The same at the end of the horizon (None: `unplanned`).
        busiest_utilisation: The busiest member's load at `members_now`, share of one
            consumer's capacity (None: unknown, e.g. no size fits).
        status: `ok`, `under-provisioned`, `over-provisioned`, `deploy` (no member yet,
            of a topic to be created), or `unplanned` (a topic it reads has no plan: the
            notes say which and why).
        notes: Why, in plain words.
        standby_members: Of `recommended_members`, those that own no partition: the
            minimum group size asks for more members than there are partitions.
        notes_coded: `notes` in their coded form (empty for outputs written before
            notes had codes).
    """

    group_id: str
    topics: tuple[str, ...]
    current_strategy: str
    strategy: str | None
    current_members: int
    recommended_members: int | None
    members_now: int | None
    members_at_horizon: int | None
    busiest_utilisation: float | None
    status: GroupStatus
    notes: tuple[str, ...] = ()
    standby_members: int = 0
    notes_coded: tuple[CodedNote, ...] = ()

    def _check(self) -> None:
        where = f"group {self.group_id!r}"
        for name in ("current_members", "recommended_members", "members_now", "standby_members"):
            _at_least(f"{where}: {name}", getattr(self, name), 0)
        if self.status == "unplanned":
            if not self.notes:
                raise ValueError(f"{where}: status 'unplanned' needs a note saying why")
            return
        missing = [
            name
            for name in ("strategy", "recommended_members", "members_now", "members_at_horizon")
            if getattr(self, name) is None
        ]
        if missing:
            raise ValueError(f"{where}: status {self.status!r} needs {', '.join(missing)}")


# ---------------------------------------------------------------------------------------
# Chart series


@dataclasses.dataclass(frozen=True)
class ThroughputHistory(_Model):
    """The topic's throughput samples (the figures the peak was taken from).

    Attributes:
        ts_s: Sample times, seconds since the epoch (UTC), ascending.
        mib_in: MiB/s in per sample (None: missing sample); empty if not measured.
        records_in: Records/s in per sample; empty if not measured.
    """

    ts_s: tuple[float, ...]
    mib_in: tuple[float | None, ...] = ()
    records_in: tuple[float | None, ...] = ()

    def _check(self) -> None:
        for name in ("mib_in", "records_in"):
            values = getattr(self, name)
            if values and len(values) != len(self.ts_s):
                raise ValueError(
                    f"history.{name}: {len(values)} values for {len(self.ts_s)} timestamps"
                )
            if any(v is not None and v < 0 for v in values):
                raise ValueError(f"history.{name}: rates must be zero or above")
        if any(b < a for a, b in zip(self.ts_s, self.ts_s[1:], strict=False)):
            raise ValueError("history.ts_s: timestamps must be ascending")


@dataclasses.dataclass(frozen=True)
class MemberLoadCurve(_Model):
    """Busiest member's load against group size, for one strategy.

    Attributes:
        strategy: Kafka's name of the assignment strategy.
        members: Group sizes, ascending.
        busiest_load: Busiest member's load at each size, share of one consumer (1.0 = Tc).
    """

    strategy: str
    members: tuple[int, ...]
    busiest_load: tuple[float, ...]

    def _check(self) -> None:
        if len(self.members) != len(self.busiest_load):
            raise ValueError(
                f"curve {self.strategy!r}: {len(self.members)} sizes, "
                f"{len(self.busiest_load)} loads"
            )


@dataclasses.dataclass(frozen=True)
class MemberLoadChart(_Model):
    """Busiest-member load against group size per strategy, at one partition count.

    Attributes:
        partitions: The partition count simulated (the recommended one).
        curves: One curve per strategy.
        load_limit: Most load one member may carry: capacity less headroom (share of Tc).
        load_basis: What load the curves are at, in words (`today's peak`).
    """

    partitions: int
    curves: tuple[MemberLoadCurve, ...]
    load_limit: float
    load_basis: str


@dataclasses.dataclass(frozen=True)
class HotKeyMark(_Model):
    """A key no partition count can spread.

    Attributes:
        key: The key as text (bytes that are not UTF-8 shown as `\\xNN`); None for the
            null key.
        partition: The partition it lands on at the charted count (None: spread).
        share: Its share of the topic's records (0..1).
    """

    key: str | None
    partition: int | None
    share: float


@dataclasses.dataclass(frozen=True)
class PartitionLoadChart(_Model):
    """Per-partition load of a keyed topic at one partition count.

    Attributes:
        loads: Load of each partition, share of one consumer's capacity (1.0 = Tc).
        hot_keys: Hot keys and the partitions they land on.
        load_limit: Most load one member may carry (share of Tc).
        load_basis: What load the bars are at, in words.
    """

    loads: tuple[float, ...]
    hot_keys: tuple[HotKeyMark, ...]
    load_limit: float
    load_basis: str

    def _check(self) -> None:
        if not self.loads:
            raise ValueError("partition_load.loads: at least one partition needed")
        for hot in self.hot_keys:
            if hot.partition is not None and not 0 <= hot.partition < len(self.loads):
                raise ValueError(
                    f"partition_load.hot_keys: partition {hot.partition} outside "
                    f"0..{len(self.loads) - 1}"
                )

    @property
    def hot_partitions(self) -> frozenset[int]:
        """Partitions that hold at least one hot key."""
        return frozenset(h.partition for h in self.hot_keys if h.partition is not None)


@dataclasses.dataclass(frozen=True)
class ChurnRow(_Model):
    """Partitions disturbed by a rebalance, for one strategy.

    Attributes:
        strategy: Kafka's name of the assignment strategy.
        join_moved: Partitions whose owner changes when one member joins.
        join_revoked: Partitions revoked in that rebalance (every owned one under the
            eager protocol).
        leave_moved: Partitions whose owner changes when one member leaves.
        leave_revoked: Partitions revoked in that rebalance.
    """

    strategy: str
    join_moved: int
    join_revoked: int
    leave_moved: int
    leave_revoked: int


@dataclasses.dataclass(frozen=True)
class ChurnChart(_Model):
    """Rebalance churn per strategy for one group size.

    Attributes:
        partitions: The partition count.
        members: Group size before the member joins or leaves.
        rows: One row per strategy.
    """

    partitions: int
    members: int
    rows: tuple[ChurnRow, ...]


_RESIZE_ORDER = {"under-provisioned": 0, "unplanned": 1, "over-provisioned": 2}


# ---------------------------------------------------------------------------------------
# The topic and the fleet


@dataclasses.dataclass(frozen=True)
class TopicReport(_Model):
    """Everything the site says about one topic.

    A sized topic (`ok`, `plan-increase`, `increase`) has its partition numbers and
    `deciding`; any other (`missing-capacity`, `error`, `no-figures`, `unknown-topic`)
    has `error` (why) and whatever was known. Chart fields are None when there is
    nothing to draw (`partition_load` is for keyed topics with a key sample only).

    Attributes:
        topic: The topic name (any text: the renderer escapes it).
        status: See `TopicStatus`.
        current_partitions: Partitions today (None: a new topic, or not in the topics
            table for `unknown-topic`).
        required_partitions_now: The rule's requirement for today's peak plus headroom.
        required_partitions: The requirement at the end of the horizon (key skew included).
        recommended_partitions: The count to have.
        recommended_consumers: The consumers to run: the recommended size of the
            largest consumer group with a plan that reads the topic
            (`consumers_group`; ties go to the smaller group id), else what one group
            reading only this topic needs for today's peak at the recommended count.
            The `recommendations` dataset's answer, which the rationale explains.
        strategy: The assignment strategy recommended for that group.
        consumers_group: The group `recommended_consumers` is the size of (None: one
            group reading only this topic).
        standby_consumers: Of `recommended_consumers`, those that own no partition: the
            minimum group size (`min_group_members`) asks for more than the partitions.
        groups_with_plan: How many groups with a plan read the topic.
        one_group_consumers: Members one group reading only this topic needs for
            today's peak at the recommended count (the member-load chart's marker and
            the churn table's group size).
        deciding: The dimension and side that set the count.
        keyed: Whether producers set keys and rely on per-key order.
        partitioner: The producers' partitioner (librdkafka's names).
        replication_factor: Replicas per partition.
        capacity_source: Where Tp and Tc were measured, in words.
        dimensions: The arithmetic per dimension.
        rule: The sizing rule in words.
        candidates: The partition counts considered.
        choice_reason: Why the recommended count among the candidates.
        rationale: The arithmetic and the choice, as sentences.
        cost: The cost panel at the recommended count.
        warnings: Plain-language warnings.
        warnings_coded: `warnings` in their coded form (empty for outputs written
            before warnings had codes).
        groups: Consumer groups reading the topic.
        history: Throughput samples.
        member_load: Busiest member against group size, per strategy.
        partition_load: Per-partition load (keyed topics).
        churn: Rebalance churn per strategy.
        rejected_rows: Input rows of this topic the row checks kept out (0: none or
            unknown).
        error: Why the topic could not be sized (every status but the sized ones).
    """

    topic: str
    status: TopicStatus
    current_partitions: int | None = None
    required_partitions_now: int | None = None
    required_partitions: int | None = None
    recommended_partitions: int | None = None
    recommended_consumers: int | None = None
    strategy: str | None = None
    consumers_group: str | None = None
    standby_consumers: int = 0
    groups_with_plan: int = 0
    one_group_consumers: int | None = None
    deciding: Deciding | None = None
    keyed: bool = False
    partitioner: str = "murmur2_random"
    replication_factor: int | None = None
    capacity_source: str | None = None
    dimensions: tuple[DimensionArithmetic, ...] = ()
    rule: str = RULE
    candidates: tuple[Candidate, ...] = ()
    choice_reason: str | None = None
    rationale: tuple[str, ...] = ()
    cost: CostPanel | None = None
    warnings: tuple[str, ...] = ()
    groups: tuple[GroupReport, ...] = ()
    history: ThroughputHistory | None = None
    member_load: MemberLoadChart | None = None
    partition_load: PartitionLoadChart | None = None
    churn: ChurnChart | None = None
    rejected_rows: int = 0
    error: str | None = None
    warnings_coded: tuple[CodedNote, ...] = ()

    def __post_init__(self) -> None:
        try:
            super().__post_init__()
        except ValueError as exc:
            raise ValueError(f"topic {self.topic!r}: {exc}") from None

    def _check(self) -> None:
        if not self.topic:
            raise ValueError("topic: the name is empty")
        for name in (
            "current_partitions",
            "required_partitions_now",
            "required_partitions",
            "recommended_partitions",
            "replication_factor",
        ):
            _at_least(name, getattr(self, name), 1)
        _at_least("recommended_consumers", self.recommended_consumers, 0)
        _at_least("one_group_consumers", self.one_group_consumers, 0)
        _at_least("standby_consumers", self.standby_consumers, 0)
        _at_least("groups_with_plan", self.groups_with_plan, 0)
        _at_least("rejected_rows", self.rejected_rows, 0)
        if self.status in PLANNED_STATUSES:
            missing = [
                name
                for name in ("required_partitions", "recommended_partitions", "deciding")
                if getattr(self, name) is None
            ]
            if missing:
                raise ValueError(f"status {self.status!r} needs {', '.join(missing)}")
        elif not self.error:
            raise ValueError(f"status {self.status!r} needs an error message saying why")

    @property
    def consumers_basis(self) -> str:
        """What `recommended_consumers` is the size of, and its strategy, in words."""
        strategy = self.strategy or "no strategy"
        standby = (
            f"; {self.standby_consumers} of them own{'s' if self.standby_consumers == 1 else ''}"
            f" no partition and stand{'s' if self.standby_consumers == 1 else ''} by "
            f"(min_group_members)"
            if self.standby_consumers
            else ""
        )
        if self.consumers_group is None:
            return f"{strategy}: one group reading only this topic, for today's peak{standby}"
        among = (
            f", the largest of the {self.groups_with_plan} groups with a plan that read it"
            if self.groups_with_plan > 1
            else ""
        )
        return f"{strategy}: the recommended size of group '{self.consumers_group}'{among}{standby}"

    @property
    def planned(self) -> bool:
        """Whether the topic was sized (its partition numbers are present)."""
        return self.status in PLANNED_STATUSES

    @property
    def current_count_lasts_days(self) -> float | None:
        """For `plan-increase`: days until today's count no longer carries the peak plus
        headroom in some dimension, the peak growing as planned (even spread).

        None for any other status, or when the sizing rule is not what asks for more
        partitions (a keyed topic's skew can ask for more than the rule), or when it
        cannot be worked out (no count, no capacity in the deciding dimension).
        """
        current = self.current_partitions
        if self.status != "plan-increase" or current is None or self.required_partitions is None:
            return None
        rule = max((d.required for d in self.dimensions if d.required is not None), default=None)
        if rule is None or rule < self.required_partitions:
            return None
        days = [
            d.days_until_above(current * cap)
            for d in self.dimensions
            if d.required is not None and (cap := d.partition_capacity) is not None
        ]
        found = [d for d in days if d is not None]
        return min(found) if found else None

    def headroom_pct(self, partitions: int | None) -> float | None:
        """Spare capacity of `partitions` partitions over today's peak, in percent.

        `partitions x min(Tp, Tc) / peak - 1` in the tightest dimension, assuming the load
        spreads evenly over the partitions (a keyed topic's busiest partition has less:
        see its partition-load chart). Negative: the peak is above what the partitions
        carry. None when the count or the figures are missing.
        """
        if partitions is None:
            return None
        ratios = [
            partitions * cap / d.peak
            for d in self.dimensions
            if (cap := d.partition_capacity) is not None and d.peak > 0
        ]
        return (min(ratios) - 1.0) * 100.0 if ratios else None


@dataclasses.dataclass(frozen=True)
class ClusterReplicas(_Model):
    """Partition replicas per broker over the whole cluster: every topic of a fleet run.

    A topic's cost panel counts its own replicas; the per-broker limit is the cluster's,
    so the run adds them up: today's counts, and every recommended count applied.

    Attributes:
        brokers: Brokers in the cluster.
        topics: Topics counted (those with a known partition count and replication).
        replicas_now: `partitions x replication_factor` summed over them, today.
        replicas_planned: The same with every recommended count.
        limit: Replicas one broker should hold at most (`[cost]` settings).
    """

    brokers: int
    topics: int
    replicas_now: int
    replicas_planned: int
    limit: int

    def _check(self) -> None:
        _at_least("brokers", self.brokers, 1)
        for name in ("topics", "replicas_now", "replicas_planned", "limit"):
            _at_least(name, getattr(self, name), 0)

    @property
    def per_broker_now(self) -> int:
        """Replicas on the busiest broker today, spread as evenly as Kafka places them."""
        return math.ceil(self.replicas_now / self.brokers)

    @property
    def per_broker_planned(self) -> int:
        """The same with every recommended count applied."""
        return math.ceil(self.replicas_planned / self.brokers)


def cluster_replicas(topics: Sequence[TopicReport], brokers: int) -> ClusterReplicas | None:
    """The cluster's replicas per broker from every topic of a fleet run (None: no topic
    with a cost panel, so no limit known)."""
    limits = [t.cost.replicas_per_broker_limit for t in topics if t.cost is not None]
    if not limits:
        return None
    counted = [
        t for t in topics if t.current_partitions is not None and t.replication_factor is not None
    ]
    now = sum((t.current_partitions or 0) * (t.replication_factor or 0) for t in counted)
    planned = sum(
        (t.recommended_partitions or t.current_partitions or 0) * (t.replication_factor or 0)
        for t in counted
    )
    return ClusterReplicas(brokers, len(counted), now, planned, max(limits))


@dataclasses.dataclass(frozen=True)
class CreationRequest(_Model):
    """The request a creation plan answers (`plan_new_topic`'s form or `--conf`).

    Who asked is not known (an Airflow trigger does not say); when, and what, is.

    Attributes:
        topic: The topic to create.
        requested_at: When the request was made (the run's start), UTC.
        parameters: The request's parameters as given (numbers, flags, text; a list
            joined by commas); `planner.recommend.creation.request_summary` words them.
        run_id: The Airflow run that planned it, if known.
        fleet_link: Relative link from the site's root to the fleet report's index.
    """

    topic: str
    requested_at: datetime
    parameters: Mapping[str, str | float | bool]
    run_id: str | None = None
    fleet_link: str | None = None

    def _check(self) -> None:
        if self.fleet_link is not None:
            _check_relative_link("fleet_link", self.fleet_link)


@dataclasses.dataclass(frozen=True)
class NewTopicLink(_Model):
    """A creation plan the fleet report links to ("New topics planned").

    Attributes:
        topic: The topic to create.
        requested_at: When its plan was made, UTC.
        partitions: The count to create it with (None: not planned).
        status: Its plan's status (`create`, or why it has no plan).
        href: Relative link from the fleet site's root to its page (None: its page is not
            published beside this report).
        since_last_run: Planned after the previous fleet run was published.
    """

    topic: str
    requested_at: datetime
    partitions: int | None
    status: str
    href: str | None = None
    since_last_run: bool = False

    def _check(self) -> None:
        if self.href is not None:
            _check_relative_link("href", self.href)


@dataclasses.dataclass(frozen=True)
class FleetReport(_Model):
    """One run's report: what the index, the topic pages and the exports show.

    Attributes:
        run_key: The run's key (its data interval's start, e.g. `20261121T0000Z`).
        interval_start: Start of the data interval (UTC, inclusive).
        interval_end: End of the data interval (UTC, exclusive).
        generated_at: When the report was generated (UTC).
        settings: The planning settings of the run.
        topics: One report per topic (names unique).
        rejected: Rejected input rows per table.
        input_rows: Rows read per input table (accepted and rejected).
        data_docs_path: Relative link from the site's root to the GX Data Docs index,
            if published with the site.
        title: Page title prefix.
        cluster: The whole cluster's replicas per broker, for a run of the whole fleet
            (None: a run of one new topic, which does not see the others).
        request: For a creation plan (one new topic planned by request), the request:
            the report is then about creating it, not about a data interval.
        new_topics: For a fleet run, the creation plans published recently, newest first.
    """

    run_key: str
    interval_start: datetime
    interval_end: datetime
    generated_at: datetime
    settings: ReportSettings
    topics: tuple[TopicReport, ...]
    rejected: tuple[RejectedSummary, ...] = ()
    input_rows: Mapping[str, int] = dataclasses.field(default_factory=dict)
    data_docs_path: str | None = None
    title: str = "Kafka partition plan"
    cluster: ClusterReplicas | None = None
    request: CreationRequest | None = None
    new_topics: tuple[NewTopicLink, ...] = ()

    def _check(self) -> None:
        if self.interval_end <= self.interval_start:
            raise ValueError("interval_end must be after interval_start")
        seen: set[str] = set()
        for t in self.topics:
            if t.topic in seen:
                raise ValueError(f"topics: {t.topic!r} appears more than once")
            seen.add(t.topic)
        if self.data_docs_path is not None:
            _check_relative_link("data_docs_path", self.data_docs_path)

    def count(self, status: str) -> int:
        """Topics with this status."""
        return sum(1 for t in self.topics if t.status == status)

    @property
    def creation(self) -> bool:
        """Whether this is a creation plan's report (one topic planned by request)."""
        return self.request is not None

    def groups_to_deploy(self) -> list[tuple[GroupReport, tuple[str, ...]]]:
        """Every group of status `deploy`, once, by group id, with the topics it reads."""
        found: dict[str, tuple[GroupReport, list[str]]] = {}
        for t in sorted(self.topics, key=lambda t: t.topic):
            for g in t.groups:
                if g.status == "deploy":
                    found.setdefault(g.group_id, (g, []))[1].append(t.topic)
        return [(g, tuple(names)) for _, (g, names) in sorted(found.items())]

    def groups_to_resize(self) -> list[tuple[GroupReport, tuple[str, ...]]]:
        """Every group whose status is not `ok` (nor `deploy`: a group to deploy is not
        resized), once, with the topics it reads here.

        Short of members first, the most short-handed (current / recommended members)
        first; then groups without a plan; then groups with members to spare; by group id
        within each.
        """
        found: dict[str, tuple[GroupReport, list[str]]] = {}
        for t in sorted(self.topics, key=lambda t: t.topic):
            for g in t.groups:
                if g.status not in ("ok", "deploy"):
                    found.setdefault(g.group_id, (g, []))[1].append(t.topic)

        def order(item: tuple[GroupReport, list[str]]) -> tuple[int, float, str]:
            g = item[0]
            short = g.current_members / g.recommended_members if g.recommended_members else 1.0
            return (_RESIZE_ORDER.get(g.status, len(_RESIZE_ORDER)), short, g.group_id)

        return [(g, tuple(names)) for g, names in sorted(found.values(), key=order)]

    def group_count(self, status: str | None = None) -> int:
        """Consumer groups with this status (any status: None), each counted once.

        A group that reads several topics is listed under each of them with one plan.
        """
        return len(
            {g.group_id for t in self.topics for g in t.groups if status in (None, g.status)}
        )


def _check_relative_link(name: str, link: str) -> None:
    # The link goes into an href: a scheme (javascript:, http:) or an absolute path would
    # make the offline site fetch or run something.
    parts = urlsplit(link)
    if not link or parts.scheme or parts.netloc or link.startswith(("/", "\\")):
        raise ValueError(f"{name}: must be a relative path inside the published tree, got {link!r}")
    if any(ord(c) < 32 for c in link):
        raise ValueError(f"{name}: control characters in {link!r}")
