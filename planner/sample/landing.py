"""Writing a sample fleet as a landing folder, atomically.

    LANDING/
      throughput/YYYY-MM-DD.parquet     one file per UTC day: topic, ts, bytes_in_per_s,
                                        records_in_per_s, bytes_out_per_s
      topics/topics.csv                 topic, partitions, replication_factor, keyed,
                                        partitioner, retention_ms, replicas
      capacity/capacity.csv             a `*` default row, then per-topic measured rows
      groups/groups.jsonl               one line per (group, topic) subscription, with
                                        client_rack where the group gives it
      keys/<topic>.parquet              one file per keyed topic: topic, key | key_hex, count
      cluster/brokers.csv               broker_id, rack
      perf/<topic>.producer.txt         kafka-producer-perf-test.sh output
      perf/<topic>.consumer.txt         kafka-consumer-perf-test.sh output

The formats are mixed on purpose (Parquet with Snappy and with Zstandard, CSV, JSON
lines, perf-tool text) so that a landing-files source reading this folder meets every
one of them. No file carries a
`source` column: the reader names the file each row came from.

Everything is written to a hidden folder beside the target and renamed into place only
when complete, so a reader never sees half a fleet, and a failed run leaves nothing.
"""

from __future__ import annotations

import json
import shutil
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from planner.assignors import STRATEGIES
from planner.sample.fleet import Fleet, build_fleet
from planner.sample.groups import reported_as, share_groups
from planner.sample.keys import key_sample
from planner.sample.perf import consumer_output, producer_output
from planner.sample.racks import client_rack, replica_assignment
from planner.sample.series import throughput_day

__all__ = [
    "LANDING_TABLES",
    "LandingError",
    "LandingSummary",
    "TableFiles",
    "check_target",
    "default_end",
    "write_landing",
]

LANDING_TABLES = ("throughput", "topics", "capacity", "groups", "keys", "cluster", "perf")


class LandingError(ValueError):
    """The landing folder cannot be written where asked; the message says why."""


@dataclass
class TableFiles:
    """What was written for one landing table.

    Attributes:
        files: Files written.
        rows: Rows (perf: runs are not counted, lines are).
        bytes: Bytes on disk.
    """

    files: int = 0
    rows: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class LandingSummary:
    """A written landing folder, for the command's summary.

    Attributes:
        path: The landing folder.
        fleet: The fleet's parameters.
        tables: Files, rows and bytes per landing table, in layout order.
        elapsed_s: Wall time of the whole run, seconds.
    """

    path: Path
    fleet: Fleet
    tables: dict[str, TableFiles] = field(default_factory=dict)
    elapsed_s: float = 0.0

    @property
    def files(self) -> int:
        """Files written, all tables."""
        return sum(t.files for t in self.tables.values())

    @property
    def bytes(self) -> int:
        """Bytes written, all tables."""
        return sum(t.bytes for t in self.tables.values())


def default_end(now: datetime | None = None) -> datetime:
    """Today's UTC midnight: the history ends with yesterday, the last full day."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


def check_target(out: Path, *, force: bool) -> None:
    """Refuse a target that is a file, or a non-empty folder without `force`.

    Raises:
        LandingError: why the target cannot be written.
    """
    if out.exists() or out.is_symlink():
        if not out.is_dir():
            raise LandingError(f"{out} exists and is not a folder")
        if not force and any(out.iterdir()):
            raise LandingError(f"{out} exists and is not empty (use --force to replace it)")


def write_landing(
    out: str | Path,
    *,
    topics: int,
    days: int,
    seed: int = 0,
    end: datetime | None = None,
    force: bool = False,
    workers: int = 2,
) -> LandingSummary:
    """Generate a sample fleet and write it as a landing folder at `out`.

    Args:
        out: The landing folder to create (its parent is created if missing).
        topics: Number of topics (>= 1).
        days: Days of hourly history (>= 1).
        seed: Random seed: the same seed, size and end give the same content.
        end: Exclusive end of the history, a UTC midnight (default: today's).
        force: Replace an existing non-empty folder.
        workers: Threads writing files at once (NumPy and Arrow release the GIL).

    Raises:
        LandingError: `out` is a file, or a non-empty folder without `force`.
        ValueError: `topics` or `days` below 1, or `end` not a UTC midnight.
        OSError: the folder cannot be written (nothing is left behind).
    """
    started = time.perf_counter()
    target = Path(out).absolute()
    check_target(target, force=force)
    fleet = build_fleet(topics, days, seed, end or default_end())
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex[:12]}"
    staging.mkdir()
    try:
        tables = _write_all(fleet, staging, workers)
        _move_into_place(staging, target, force=force)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return LandingSummary(target, fleet, tables, time.perf_counter() - started)


def _move_into_place(staging: Path, target: Path, *, force: bool) -> None:
    # Checked again: another writer may have filled the folder meanwhile.
    check_target(target, force=force)
    if not target.exists():
        staging.rename(target)
        return
    aside = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:12]}"
    target.rename(aside)
    try:
        staging.rename(target)
    except BaseException:
        aside.rename(target)
        raise
    shutil.rmtree(aside, ignore_errors=True)


def _write_all(fleet: Fleet, root: Path, workers: int) -> dict[str, TableFiles]:
    for name in LANDING_TABLES:
        (root / name).mkdir()
    names = pa.array(fleet.topics.names, pa.string())
    jobs: list[tuple[str, Callable[[], tuple[int, Path]]]] = []
    for day in range(fleet.days):
        path = root / "throughput" / f"{(fleet.start + timedelta(days=day)).date()}.parquet"
        build = partial(throughput_day, fleet, day, names)
        jobs.append(("throughput", _job(build, path, "snappy")))
    for spec in fleet.key_specs:
        path = root / "keys" / f"{fleet.topics.names[spec.topic]}.parquet"
        jobs.append(("keys", _job(partial(key_sample, fleet, spec), path, "zstd")))
    pool = ThreadPoolExecutor(max_workers=max(1, workers))
    try:
        futures = [(table, pool.submit(job)) for table, job in jobs]
        done = [(table, future.result()) for table, future in futures]
    finally:
        # On a failure, do not generate the files still queued: the run is lost anyway.
        pool.shutdown(wait=True, cancel_futures=True)
    small: list[tuple[str, tuple[int, Path]]] = [
        # `replicas` holds commas (Kafka's --replica-assignment syntax): quoted.
        ("topics", _csv(_topics_table(fleet), root / "topics" / "topics.csv", quote=True)),
        ("capacity", _csv(_capacity_table(fleet), root / "capacity" / "capacity.csv")),
        ("groups", _jsonl(_group_rows(fleet), root / "groups" / "groups.jsonl")),
        ("cluster", _csv(_cluster_table(fleet), root / "cluster" / "brokers.csv")),
    ]
    for measured in fleet.perf:
        topic = fleet.topics.names[measured.topic]
        for kind, output in (("producer", producer_output), ("consumer", consumer_output)):
            small.append(("perf", _text(output(fleet, measured), root / "perf", topic, kind)))
    tables = {name: TableFiles() for name in LANDING_TABLES}
    for table, (rows, path) in [*done, *small]:
        entry = tables[table]
        entry.files += 1
        entry.rows += rows
        entry.bytes += path.stat().st_size
    return tables


def _job(
    build: Callable[[], pa.Table], path: Path, compression: str
) -> Callable[[], tuple[int, Path]]:
    def run() -> tuple[int, Path]:
        table = build()
        # Only the topic column repeats; dictionary-encoding the rest is wasted work.
        pq.write_table(table, path, compression=compression, use_dictionary=["topic"])
        return table.num_rows, path

    return run


def _csv(table: pa.Table, path: Path, *, quote: bool = False) -> tuple[int, Path]:
    # Names, numbers and timestamps the generator made need no quoting, and an unquoted
    # file is what most exports look like; a table with a text holding commas (`quote`)
    # has its text values quoted (Arrow's "needed" quotes every string value). Arrow
    # quotes the header it writes itself, so the header is written here.
    with pa.OSFile(str(path), "wb") as sink:
        sink.write((",".join(table.column_names) + "\n").encode())
        style = "needed" if quote else "none"
        options = pacsv.WriteOptions(include_header=False, quoting_style=style)
        pacsv.write_csv(table, sink, options)
    return table.num_rows, path


def _jsonl(rows: Iterable[dict[str, object]], path: Path) -> tuple[int, Path]:
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, separators=(",", ":")) + "\n")
            count += 1
    return count, path


def _text(text: str, folder: Path, topic: str, kind: str) -> tuple[int, Path]:
    path = folder / f"{topic}.{kind}.txt"
    path.write_text(text, encoding="utf-8")
    return text.count("\n"), path


def _topics_table(fleet: Fleet) -> pa.Table:
    t = fleet.topics
    return pa.table(
        {
            "topic": pa.array(t.names, pa.string()),
            "partitions": pa.array(t.partitions, pa.int32()),
            "replication_factor": pa.array(t.replication_factor, pa.int32()),
            "keyed": pa.array(t.keyed, pa.bool_()),
            "partitioner": pa.array(t.partitioner, pa.string()),
            "retention_ms": pa.array(t.retention_ms, pa.int64()),
            "replicas": pa.array(
                [
                    replica_assignment(int(f), int(p), int(rf), fleet.brokers)
                    for f, p, rf in zip(
                        t.first_leader, t.partitions, t.replication_factor, strict=True
                    )
                ],
                pa.string(),
            ),
        }
    )


def _iso(seconds: npt.NDArray[np.int64]) -> pa.Array:
    text = [
        datetime.fromtimestamp(int(s), UTC).strftime("%Y-%m-%dT%H:%M:%SZ") for s in seconds.tolist()
    ]
    return pa.array(text, pa.string())


def _capacity_table(fleet: Fleet) -> pa.Table:
    c = fleet.capacity
    d = c.default
    n = c.topics.size
    names = [fleet.topics.names[i] for i in c.topics.tolist()]

    def figures(default: float, values: npt.NDArray[np.float64]) -> pa.Array:
        both = np.concatenate([[default], values])
        return pa.array(both, pa.float64(), mask=np.isnan(both))

    record_bytes = np.concatenate([[d["record_bytes"]], fleet.topics.record_bytes[c.topics]])
    return pa.table(
        {
            "topic": pa.array(["*", *names], pa.string()),
            "producer_mib_per_s": figures(d["producer_mib_per_s"], c.producer_mib_per_s),
            "producer_records_per_s": figures(
                d["producer_records_per_s"], c.producer_records_per_s
            ),
            "consumer_mib_per_s": figures(d["consumer_mib_per_s"], c.consumer_mib_per_s),
            "consumer_records_per_s": figures(
                d["consumer_records_per_s"], c.consumer_records_per_s
            ),
            "record_bytes": pa.array(record_bytes, pa.float64()),
            # The house default was agreed, not measured: no date.
            "measured_at": pa.concat_arrays([pa.nulls(1, pa.string()), _iso(c.measured_at_s)])
            if n
            else pa.nulls(1, pa.string()),
        }
    )


def _group_rows(fleet: Fleet) -> list[dict[str, object]]:
    g = fleet.groups
    ids = g.ids
    names = fleet.topics.names
    rows = []
    topics = g.topics_per_group
    for gi, ti in zip(g.row_group.tolist(), g.row_topic.tolist(), strict=True):
        drawn = STRATEGIES[int(g.strategy[gi])]
        protocol, assignor = reported_as(drawn, gi, topics=int(topics[gi]))
        rows.append(
            {
                "group_id": ids[gi],
                "topic": names[ti],
                "protocol": protocol,
                "strategy": assignor,
                "members": int(g.members[gi]),
                **_client_rack(gi, fleet.racks),
            }
        )
    t = fleet.topics
    rows += share_groups(names, t.keyed, t.partitions, t.needed_partitions)
    rows.sort(key=lambda r: (str(r["group_id"]), str(r["topic"])))
    return rows


def _client_rack(group: int, broker_racks: tuple[str, ...]) -> dict[str, str]:
    # Left out, not written null, where not known: a landing file a team writes by hand
    # has no such field either.
    rack = client_rack(group, tuple(dict.fromkeys(broker_racks)))
    return {} if rack is None else {"client_rack": rack}


def _cluster_table(fleet: Fleet) -> pa.Table:
    return pa.table(
        {
            "broker_id": pa.array(np.arange(1, fleet.brokers + 1), pa.int32()),
            "rack": pa.array(fleet.racks, pa.string()),
        }
    )
