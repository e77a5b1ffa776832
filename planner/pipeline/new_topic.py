"""Planning one new topic by hand: its expected figures as a landing folder of its own.

A platform engineer asked for a new topic gives what is expected of it (peak MiB/s and
records/s, or a throughput file from a similar topic or a load test; growth and
horizon; whether it is keyed and how; a key sample; Tp and Tc as numbers or as
perf-test output; the consumer groups that will read it). `write_request` turns that
into a landing folder in the canonical layout and a planner config for the run, and
the new topic then goes through the same collection, validation, Spark jobs and
publishing as the fleet: nothing is planned by a second code path.

- Throughput: without a file, one UTC day of hourly samples at the expected peak (the
  peak is then exactly what was asked); growth is the given yearly rate (the run's
  floor growth, since a day of figures fits no trend) over the given horizon.
- The topics row leaves `partitions` empty: a topic not created yet.
- Tp/Tc: the numbers given and the figures the project's perf-test parser reads from
  the files given, in the topic's one capacity row (its `source` says which came from
  where, in `planner.recommend.creation`'s words).
- The cluster table lists `brokers` brokers (the cost panel and the replication check).
- Each expected consumer group is a planned group (0 members today).
"""

from __future__ import annotations

import csv
import math
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from planner.choices import DEFAULT_PARTITIONER
from planner.config import PlannerConfig
from planner.figures.dataset import DataInterval
from planner.partitioners import PARTITIONERS as _PARTITIONERS
from planner.protocols import GROUP_STRATEGIES, PROTOCOLS, check_group_strategy
from planner.recommend import creation
from planner.sizing import DEFAULT_HORIZON_DAYS

__all__ = ["NewTopicError", "NewTopicRequest", "write_request", "write_run_config"]

_TOPIC = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")


class NewTopicError(ValueError):
    """A request that cannot be planned; the message names the parameter."""


@dataclass(frozen=True)
class NewTopicRequest:
    """What is expected of a new topic (units in the names).

    Attributes:
        topic: The topic name (Kafka's rule: 1-249 of a-z A-Z 0-9 . _ -, not . or ..).
        peak_mib_per_s: Expected peak produce rate, MiB/s (with `peak_records_per_s`).
        peak_records_per_s: Expected peak produce rate, records/s.
        figures_file: A throughput file (landing format) instead of the two peaks.
        growth_per_year: Expected growth, yearly fraction (0.5 = +50 %/year).
        horizon_days: Planning horizon, days.
        keyed: Producers set keys and rely on per-key order.
        partitioner: The producers' partitioner (librdkafka's names).
        key_sample_file: A key sample (landing `keys` format: key or key_hex, count).
        tp_mib_per_s: Producer throughput of one partition, MiB/s.
        tp_records_per_s: Producer throughput of one partition, records/s.
        tc_mib_per_s: Consumer throughput of one partition, MiB/s.
        tc_records_per_s: Consumer throughput of one partition, records/s.
        producer_perf_file: kafka-producer-perf-test output instead of the Tp numbers.
        consumer_perf_file: kafka-consumer-perf-test output instead of the Tc numbers.
        consumer_groups: Ids of the consumer groups that will read it.
        strategy: Their assignor, one of the protocol's (a classic group's
            `partition.assignment.strategy`, `uniform` or `range` for the consumer
            protocol, `simple` for a share group, `stream` / `sticky` for Kafka Streams).
        protocol: Their group protocol (`classic`, `consumer`, `share`, `streams`).
        replication_factor: Replicas per partition.
        brokers: Brokers in the cluster it will live on.
    """

    topic: str
    peak_mib_per_s: float | None = None
    peak_records_per_s: float | None = None
    figures_file: str | None = None
    growth_per_year: float = 0.0
    horizon_days: float = DEFAULT_HORIZON_DAYS
    keyed: bool = False
    partitioner: str = DEFAULT_PARTITIONER
    key_sample_file: str | None = None
    tp_mib_per_s: float | None = None
    tp_records_per_s: float | None = None
    tc_mib_per_s: float | None = None
    tc_records_per_s: float | None = None
    producer_perf_file: str | None = None
    consumer_perf_file: str | None = None
    consumer_groups: tuple[str, ...] = ()
    strategy: str = "cooperative-sticky"
    protocol: str = "classic"
    replication_factor: int = 3
    brokers: int = 3

    def __post_init__(self) -> None:
        if not _TOPIC.match(self.topic) or self.topic in (".", ".."):
            raise NewTopicError(
                f"topic: {self.topic!r} is not a legal Kafka topic name "
                "(1 to 249 of a-z A-Z 0-9 . _ -, and not . or ..)"
            )
        numbers = ("peak_mib_per_s", "peak_records_per_s", *_CAPACITIES)
        for name in numbers:
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise NewTopicError(f"{name}: a number above zero, got {value!r}")
        peaks = (self.peak_mib_per_s, self.peak_records_per_s)
        if self.figures_file is None and None in peaks:
            raise NewTopicError(
                "peak_mib_per_s and peak_records_per_s are both needed "
                "(or a figures_file with the expected throughput)"
            )
        if self.figures_file is not None and peaks != (None, None):
            raise NewTopicError("give either figures_file or the two peaks, not both")
        if not (math.isfinite(self.growth_per_year) and self.growth_per_year > -1):
            raise NewTopicError(f"growth_per_year: above -1, got {self.growth_per_year!r}")
        if not (math.isfinite(self.horizon_days) and self.horizon_days >= 0):
            raise NewTopicError(f"horizon_days: zero or above, got {self.horizon_days!r}")
        if self.partitioner not in _PARTITIONERS:
            raise NewTopicError(
                f"partitioner: one of {', '.join(_PARTITIONERS)}, got {self.partitioner!r}"
            )
        if self.key_sample_file and not self.keyed:
            raise NewTopicError("key_sample_file is for keyed topics: set keyed too")
        if self.protocol not in PROTOCOLS:
            raise NewTopicError(f"protocol: one of {', '.join(PROTOCOLS)}, got {self.protocol!r}")
        if check_group_strategy(self.protocol, self.strategy) is not None:
            names = GROUP_STRATEGIES[self.protocol]
            raise NewTopicError(
                f"strategy: one of {', '.join(names)} for {self.protocol} groups, "
                f"got {self.strategy!r}"
            )
        if self.brokers < 1 or self.replication_factor < 1:
            raise NewTopicError("brokers and replication_factor must be at least 1")
        if self.replication_factor > self.brokers:
            raise NewTopicError(
                f"replication_factor {self.replication_factor} is above the {self.brokers} "
                "brokers: Kafka refuses more replicas than brokers"
            )
        for side, numbers_, file in (
            ("Tp", ("tp_mib_per_s", "tp_records_per_s"), self.producer_perf_file),
            ("Tc", ("tc_mib_per_s", "tc_records_per_s"), self.consumer_perf_file),
        ):
            given = [getattr(self, n) is not None for n in numbers_]
            if file is None and not any(given):
                raise NewTopicError(
                    f"{side}: give {' and/or '.join(numbers_)}, or a perf-test output file"
                )
            if file is not None and any(given):
                raise NewTopicError(f"{side}: give the numbers or the perf-test file, not both")
        for group in self.consumer_groups:
            if not group or group != group.strip():
                raise NewTopicError(f"consumer_groups: {group!r} is not a group id")
        for name in _FILES:
            value = getattr(self, name)
            if value is not None and not Path(value).is_file():
                raise NewTopicError(f"{name}: {value} is not a readable file")

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> NewTopicRequest:
        """A request from Airflow `Param` values or JSON (unknown keys refused).

        Empty strings and None mean "not given".
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - known)
        if unknown:
            raise NewTopicError(f"unknown parameter(s): {', '.join(unknown)}")
        values: dict[str, Any] = {}
        for name, value in params.items():
            if value is None or value == "":
                continue
            if name == "consumer_groups":
                items = value.split(",") if isinstance(value, str) else value
                values[name] = tuple(str(g).strip() for g in items if str(g).strip())
            elif name in ("keyed",):
                values[name] = bool(value)
            elif name in ("replication_factor", "brokers"):
                values[name] = _whole(name, value)
            elif name in _FLOATS:
                values[name] = _number(name, value)
            else:
                values[name] = str(value)
        if "topic" not in values:
            raise NewTopicError("topic: the name of the new topic is needed")
        return cls(**values)


_CAPACITIES = ("tp_mib_per_s", "tp_records_per_s", "tc_mib_per_s", "tc_records_per_s")
_FLOATS = ("peak_mib_per_s", "peak_records_per_s", "growth_per_year", "horizon_days", *_CAPACITIES)
_FILES = ("figures_file", "key_sample_file", "producer_perf_file", "consumer_perf_file")


def _number(name: str, value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise NewTopicError(f"{name}: a number, got {value!r}") from None


def _whole(name: str, value: Any) -> int:
    number = _number(name, value)
    if not number.is_integer():
        raise NewTopicError(f"{name}: a whole number, got {value!r}")
    return int(number)


def _write_csv(path: Path, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        out = csv.writer(handle)
        out.writerow(header)
        out.writerows(rows)


def _fmt(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def write_request(request: NewTopicRequest, landing: Path, interval: DataInterval) -> Path:
    """Write the request as a landing folder for `interval` (replacing the folder).

    Returns:
        The landing folder.
    """
    landing = Path(landing)
    if landing.exists():
        shutil.rmtree(landing)
    t = request.topic
    if request.figures_file is not None:
        suffix = Path(request.figures_file).suffix
        destination = landing / "throughput" / f"expected{suffix}"
        destination.parent.mkdir(parents=True)
        shutil.copyfile(request.figures_file, destination)
    else:
        assert request.peak_mib_per_s is not None and request.peak_records_per_s is not None
        hours = int((interval.end - interval.start) / timedelta(hours=1)) or 1
        rows = [
            (
                t,
                (interval.start + timedelta(hours=h)).isoformat(),
                _fmt(request.peak_mib_per_s),
                _fmt(request.peak_records_per_s),
                # Every group reads the whole topic.
                _fmt(request.peak_mib_per_s * len(request.consumer_groups))
                if request.consumer_groups
                else "",
                "MiB/s",
            )
            for h in range(hours)
        ]
        _write_csv(
            landing / "throughput" / "expected.csv",
            ("topic", "ts", "bytes_in_per_s", "records_in_per_s", "bytes_out_per_s", "unit"),
            rows,
        )
    _write_csv(
        landing / "topics" / "topic.csv",
        ("topic", "partitions", "replication_factor", "keyed", "partitioner"),
        [(t, "", request.replication_factor, str(request.keyed).lower(), request.partitioner)],
    )
    _write_capacity(request, landing)
    if request.key_sample_file is not None:
        _copy_key_sample(Path(request.key_sample_file), landing / "keys", t)
    _write_csv(
        landing / "groups" / "groups.csv",
        ("group_id", "topic", "strategy", "members", "protocol"),
        [(g, t, request.strategy, 0, request.protocol) for g in request.consumer_groups],
    )
    _write_csv(
        landing / "cluster" / "cluster.csv",
        ("broker_id",),
        [(b,) for b in range(1, request.brokers + 1)],
    )
    return landing


def _measured(request: NewTopicRequest, landing: Path) -> Any:
    """Tp/Tc from the request's perf-test files, attributed to the new topic.

    The files are read by the project's perf-test parser under the names it expects
    (`<topic>.producer.txt`, `<topic>.consumer.txt`), in a folder collection does not
    read, since the topic had its own name in the test (or none).
    """
    from dataclasses import replace as with_

    from planner.adapters.perf_test import read_perf_test
    from planner.partition_capacity import PerfTestError, partition_capacity

    runs = []
    folder = landing / "perf-test-files"
    for name, tool in (("producer_perf_file", "producer"), ("consumer_perf_file", "consumer")):
        source = getattr(request, name)
        if source is None:
            continue
        copy = folder / f"{request.topic}.{tool}.txt"
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, copy)
        try:
            found = read_perf_test(copy)
        except PerfTestError as exc:
            raise NewTopicError(f"{name}: {source}: {exc}") from None
        runs += [with_(run, topic=request.topic) for run in found if run.kind == tool]
    if not runs:
        return None
    return partition_capacity(runs, request.topic)


def _write_capacity(request: NewTopicRequest, landing: Path) -> None:
    """The topic's one capacity row: the numbers given, and Tp/Tc from perf-test files.

    One row, because a topic has one capacity row (a second would be rejected as a
    duplicate at collection).
    """
    measured = _measured(request, landing)
    values = {
        "producer_mib_per_s": request.tp_mib_per_s,
        "producer_records_per_s": request.tp_records_per_s,
        "consumer_mib_per_s": request.tc_mib_per_s,
        "consumer_records_per_s": request.tc_records_per_s,
    }
    if measured is not None:
        if request.producer_perf_file is not None:
            values["producer_mib_per_s"] = measured.tp_mib_per_s
            values["producer_records_per_s"] = measured.tp_records_per_s
        if request.consumer_perf_file is not None:
            values["consumer_mib_per_s"] = measured.tc_mib_per_s
            values["consumer_records_per_s"] = measured.tc_records_per_s
        for note in measured.notes:
            print(f"perf-test {request.topic}: {note}")
    for side, file in (("Tp", request.producer_perf_file), ("Tc", request.consumer_perf_file)):
        figures = [v for k, v in values.items() if k.startswith(_SIDE_PREFIX[side])]
        if file is not None and all(v is None for v in figures):
            raise NewTopicError(f"{side}: {file} holds no kafka-{_TOOL[side]}-perf-test run")
    # Where Tp and Tc came from, as the creation plan tells it (the capacity row's
    # source is what the report and the store call "measured by").
    source = creation.request_capacity_source(
        {f.name: getattr(request, f.name) for f in fields(request)}
    )
    _write_csv(
        landing / "capacity" / "capacity.csv",
        ("topic", *values, "source"),
        [(request.topic, *map(_fmt, values.values()), source)],
    )


_SIDE_PREFIX = {"Tp": "producer_", "Tc": "consumer_"}
_TOOL = {"Tp": "producer", "Tc": "consumer"}


def _copy_key_sample(source: Path, folder: Path, topic: str) -> None:
    """The key sample with its topic column set (a sample file may omit it)."""
    with source.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        header = [h.strip() for h in reader.fieldnames or ()]
        if "count" not in header or not ({"key", "key_hex"} & set(header)):
            raise NewTopicError(
                f"key_sample_file: {source}: needs a count column and key or key_hex "
                f"(it has: {', '.join(header) or 'nothing'})"
            )
        columns = [c for c in ("key", "key_hex", "count") if c in header]
        rows = [[topic, *(row.get(c, "") for c in columns)] for row in reader]
    _write_csv(folder / "sample.csv", ("topic", *columns), rows)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def write_run_config(
    base: PlannerConfig, request: NewTopicRequest, path: Path, *, landing: Path
) -> Path:
    """The planner config of a new-topic run: the base config's planning and Spark
    settings, the request's growth and horizon, the landing folder as the only source.

    A throughput file keeps the base's history window and growth fit (it may hold weeks
    of figures); expected peaks are one day, so no history is read and the requested
    growth is the floor.
    """
    synthetic = request.figures_file is None
    planning = replace(
        base.planning,
        horizon_days=request.horizon_days,
        floor_growth_per_year=request.growth_per_year
        if synthetic
        else base.planning.floor_growth_per_year,
    )
    lines = [
        "# Written for one plan_new_topic run; the base config is "
        + (str(base.path) if base.path else "the defaults"),
        "[figures]",
        f"history_days = {0 if synthetic else base.history_days}",
        "",
        "[sources]",
        'use = ["landing"]',
        "[sources.landing]",
        f"path = {_toml_value(str(landing))}",
        "",
        "[planning]",
    ]
    # TOML has no null: a setting without a value (a price nobody gave) is left out, and
    # reads back as its default, None.
    for name in planning.config_keys():
        if (value := getattr(planning, name)) is not None:
            lines.append(f"{name} = {_toml_value(value)}")
    lines.append("[planning.share]")
    for name in planning.share.config_keys():
        if (value := getattr(planning.share, name)) is not None:
            lines.append(f"{name} = {_toml_value(value)}")
    if base.path is not None and "master" in _given_spark(base.path):
        lines += ["", "[spark]", f"master = {_toml_value(base.spark_master)}"]
    if base.spark_conf:
        lines += ["", "[spark.conf]"]
        lines += [f"{_toml_value(k)} = {_toml_value(v)}" for k, v in base.spark_conf.items()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _given_spark(path: Path) -> Mapping[str, Any]:
    import tomllib

    section = tomllib.loads(path.read_text(encoding="utf-8")).get("spark", {})
    return section if isinstance(section, dict) else {}
