"""`partition-planner measure`: Tp and Tc of one partition, measured with Kafka's perf tools.

The run, in order: check the arguments and that a bootstrap server answers; create a
one-partition topic (or check the named one has exactly one partition); run the producer
perf tool unthrottled, then the consumer perf tool over what it wrote, and with `--share`
the share-consumer perf tool over it too (a share group of `--share-members` members,
KIP-932); delete what the run created (also after a failure, Ctrl-C or SIGTERM); and only
then write the capacity row and the tools' output into the landing folder, each file under
a temporary name renamed into place, so a failed run leaves nothing behind in it. The
measurement and its clean-up are `planner.adapters.measurement`'s; this module checks the
arguments and lands the result.

What it writes (`LANDING` is `--landing`):

- `LANDING/capacity/measured.csv`: one row for `*`, the fleet default that every topic
  without its own capacity row uses, with the record size and the time. A rerun replaces
  it.
- `LANDING/perf/TOPIC.STAMP.producer.txt` and `.consumer.txt` (and `.share.txt`): what
  the tools printed, after a `# topic: TOPIC` line naming the topic measured on. The
  perf-file reader reads them as that topic's measurement, so they never repeat the `*`
  row.

The share-fetch columns are carried in the capacity table only; the sizing does not use
them yet.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.adapters import kafka_dist
from planner.adapters.measurement import Measured, MeasurePlan, UnusableTopic, measure_partition
from planner.adapters.perf_test import check_topic_name
from planner.adapters.perf_tools import check_version, parse_bootstrap, reachable
from planner.commands import common
from planner.partition_capacity import PartitionCapacity

DEFAULT_VOLUME_BYTES = 512 * 2**20
MAX_DEFAULT_RECORDS = 5_000_000
MIN_DEFAULT_RECORDS = 500
MIN_RECORDS = 1_000
MAX_RECORD_BYTES = 64 * 2**20
#: Share consumers in the measured share group, all on the one partition. On Kafka
#: 4.4.0 (docs/model.md, section 8) two members read more than one in two of three
#: repetitions, and four no more than two.
DEFAULT_SHARE_MEMBERS = 2
MAX_SHARE_MEMBERS = 16
CAPACITY_FILE = "measured.csv"
EXIT_INTERRUPTED = 130
_COLUMNS = (
    "topic",
    "producer_mib_per_s",
    "producer_records_per_s",
    "consumer_mib_per_s",
    "consumer_records_per_s",
    "share_fetch_mib_per_s",
    "share_fetch_records_per_s",
    "record_bytes",
    "source",
    "measured_at",
)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "measure",
        help="measure Tp and Tc on one partition with Kafka's perf tools",
        description=(
            "Create a one-partition test topic (or use --topic), run "
            "kafka-producer-perf-test and then kafka-consumer-perf-test on it, delete what "
            "was created, and write the capacity row ('*', the fleet default) to "
            "LANDING/capacity/measured.csv and the tools' output to LANDING/perf/, where "
            "`plan --landing LANDING` reads them. The consumer tool reads and discards "
            "records, so its Tc is an upper bound for a consumer that does work. With "
            "--share, kafka-share-consumer-perf-test also reads them in a share group, "
            "for the share-fetch columns (carried, not used in sizing yet)."
        ),
    )
    p.add_argument("--bootstrap", required=True, metavar="HOST:PORT", help="the cluster")
    p.add_argument(
        "--command-config",
        type=Path,
        metavar="FILE",
        help="Java client properties (security, and producer settings such as acks or "
        "compression.type) for every tool",
    )
    p.add_argument(
        "--record-size",
        required=True,
        type=common.whole(1),
        metavar="BYTES",
        help="record size to measure with: your topics' typical record",
    )
    p.add_argument(
        "--topic",
        metavar="NAME",
        help="measure on this existing one-partition topic (kept) instead of a new one",
    )
    p.add_argument(
        "--records",
        type=common.whole(MIN_RECORDS),
        metavar="N",
        help="records to produce and consume (default: about 512 MiB worth, "
        f"{MIN_DEFAULT_RECORDS:,} to {MAX_DEFAULT_RECORDS:,})",
    )
    p.add_argument(
        "--replication-factor",
        type=common.whole(1),
        metavar="N",
        help="replication factor of the topic created (default: the cluster's)",
    )
    p.add_argument(
        "--share",
        action="store_true",
        help="also measure the partition's share-fetch throughput with "
        "kafka-share-consumer-perf-test (a share group, KIP-932; Kafka 4.2 or later), "
        "written to the share_fetch_* columns (not used in sizing yet)",
    )
    p.add_argument(
        "--share-members",
        type=common.whole(1),
        metavar="N",
        help=f"share consumers in the measured share group (default {DEFAULT_SHARE_MEMBERS}, "
        f"at most {MAX_SHARE_MEMBERS}; needs --share)",
    )
    p.add_argument("--landing", required=True, type=Path, metavar="DIR", help="landing folder")
    p.add_argument(
        "--kafka-home",
        type=Path,
        metavar="DIR",
        help="the Kafka whose tools to run (default: the one on PATH, else the project's)",
    )
    p.set_defaults(run=run)


def default_records(record_bytes: int) -> int:
    """Records for about 512 MiB: a few seconds each way on a laptop's broker."""
    wanted = math.ceil(DEFAULT_VOLUME_BYTES / record_bytes)
    return max(MIN_DEFAULT_RECORDS, min(MAX_DEFAULT_RECORDS, wanted))


@dataclass(frozen=True)
class _Request:
    servers: tuple[tuple[str, int], ...]
    landing: Path
    plan: MeasurePlan


def run(args: argparse.Namespace) -> int:
    began = time.monotonic()
    request = _request(args)
    plan = request.plan
    distribution = _distribution(args.kafka_home)
    problem = reachable(request.servers)
    if problem is not None:
        raise common.Failed(f"cannot reach {plan.bootstrap}: {problem}; nothing written")
    _say(f"measuring on {plan.bootstrap} with Apache Kafka {distribution.version}'s tools")
    try:
        outcome = measure_partition(distribution, plan, say=_say)
    except UnusableTopic as exc:
        raise common.UsageError(f"--topic: {exc}") from None
    left = list(outcome.left)
    if outcome.interrupted:
        sys.stderr.write(
            f"partition-planner measure: interrupted; nothing written{_left_text(left)}\n"
        )
        return EXIT_INTERRUPTED
    if outcome.failure is not None:
        raise common.Failed(f"{outcome.failure}; nothing written{_left_text(left)}")
    if left:
        raise common.Failed(f"measured, but the clean-up failed; nothing written{_left_text(left)}")
    assert outcome.measured is not None
    written = _write(request, outcome.measured)
    _summary(request, outcome.measured, written, seconds=time.monotonic() - began)
    return 0


# -- arguments -----------------------------------------------------------------------------


def _request(args: argparse.Namespace) -> _Request:
    try:
        servers = parse_bootstrap(args.bootstrap)
    except ValueError as exc:
        raise common.UsageError(f"--bootstrap: {exc}") from None
    if args.record_size > MAX_RECORD_BYTES:
        raise common.UsageError(
            f"--record-size: {args.record_size:,} bytes is above {MAX_RECORD_BYTES:,}, more "
            f"than the perf tools' 512 MiB heap handles"
        )
    if args.topic is not None and (problem := check_topic_name(args.topic)):
        raise common.UsageError(f"--topic: {problem}")
    if args.share_members is not None and not args.share:
        raise common.UsageError("--share-members: needs --share")
    if args.share_members is not None and args.share_members > MAX_SHARE_MEMBERS:
        raise common.UsageError(
            f"--share-members: {args.share_members} is above {MAX_SHARE_MEMBERS}: each "
            f"member is a thread and a connection of one perf-tool JVM"
        )
    if args.topic is not None and args.replication_factor is not None:
        raise common.UsageError(
            "--replication-factor: applies to the topic measure creates, not to --topic"
        )
    config: Path | None = args.command_config
    if config is not None:
        try:
            config.read_bytes()
        except OSError as exc:
            raise common.UsageError(
                f"--command-config: cannot read {config}: {exc.strerror}"
            ) from None
    landing: Path = args.landing
    if landing.exists() and not landing.is_dir():
        raise common.UsageError(f"--landing: {landing} is not a folder")
    existing = next((p for p in (landing, *landing.absolute().parents) if p.exists()), None)
    if existing is None or not existing.is_dir() or not os.access(existing, os.W_OK):
        raise common.UsageError(f"--landing: cannot write into {existing or landing}")
    plan = MeasurePlan(
        bootstrap=",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in servers),
        command_config=None if config is None else config.absolute(),
        record_bytes=args.record_size,
        topic=args.topic,
        records=args.records or default_records(args.record_size),
        replication_factor=args.replication_factor,
        run_id=secrets.token_hex(4),
        share_members=(args.share_members or DEFAULT_SHARE_MEMBERS) if args.share else None,
    )
    return _Request(servers=servers, landing=landing, plan=plan)


def _distribution(kafka_home: Path | None) -> kafka_dist.KafkaDistribution:
    try:
        kafka_dist.java_binary()
    except kafka_dist.KafkaNotFound as exc:
        raise common.Failed(str(exc)) from None
    if kafka_home is not None:
        try:
            named = kafka_dist.from_home(kafka_home)
        except kafka_dist.KafkaNotFound as exc:
            raise common.UsageError(f"--kafka-home: {exc}") from None
        if problem := check_version(named):
            raise common.UsageError(f"--kafka-home: {problem}")
        return named
    try:
        found = kafka_dist.find()
    except kafka_dist.KafkaNotFound as exc:
        raise common.Failed(str(exc)) from None
    problem = check_version(found)
    if problem is None:
        return found
    # An old Kafka on PATH: the project's own install, if there is one, can do the job.
    installed = kafka_dist.project_install()
    if installed is not None and check_version(installed) is None:
        _say(f"note: {problem}; using the project's Kafka {installed.version} instead")
        return installed
    raise common.Failed(problem)


def _left_text(left: list[str]) -> str:
    return f"; left on the cluster: {', '.join(left)}" if left else ""


# -- output -------------------------------------------------------------------------------


def _capacity_csv(request: _Request, measured: Measured, files: tuple[str, ...]) -> str:
    c = measured.capacity
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_COLUMNS)
    writer.writerow(
        (
            "*",
            repr(c.tp_mib_per_s),
            repr(c.tp_records_per_s),
            repr(c.tc_mib_per_s),
            repr(c.tc_records_per_s),
            "" if c.share_fetch_mib_per_s is None else repr(c.share_fetch_mib_per_s),
            "" if c.share_fetch_records_per_s is None else repr(c.share_fetch_records_per_s),
            request.plan.record_bytes,
            f"measure:{request.plan.bootstrap}:perf/{'+'.join(files)}",
            measured.measured_at,
        )
    )
    return out.getvalue()


def _write(request: _Request, measured: Measured) -> list[Path]:
    """Write every file under a hidden temporary name, then rename them all into place."""
    texts = {"producer": measured.producer_text, "consumer": measured.consumer_text}
    if measured.share_text is not None:
        texts["share"] = measured.share_text
    names = tuple(f"{measured.stem}.{kind}.txt" for kind in texts)
    contents = {Path("perf") / n: t for n, t in zip(names, texts.values(), strict=True)}
    contents[Path("capacity") / CAPACITY_FILE] = _capacity_csv(request, measured, names)
    staged: list[tuple[Path, Path]] = []
    try:
        for relative, text in contents.items():
            target = request.landing / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            # A leading dot: the landing reader skips the file until it is renamed.
            temporary = target.with_name(f".{target.name}.{request.plan.run_id}.tmp")
            temporary.write_text(text, encoding="utf-8")
            staged.append((temporary, target))
        for temporary, target in staged:
            os.replace(temporary, target)
    except OSError as exc:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)
        raise common.Failed(f"cannot write into {request.landing}: {exc}") from None
    return [target for _, target in staged]


def _summary(request: _Request, measured: Measured, written: list[Path], *, seconds: float) -> None:
    c = measured.capacity
    capacity_file = request.landing / "capacity" / CAPACITY_FILE
    lines = [
        f"measured in {seconds:.0f} s",
        f"Tp {c.tp_mib_per_s:.2f} MiB/s, {c.tp_records_per_s:,.1f} records/s "
        f"(the producer's steady-state summary)",
        f"Tc {c.tc_mib_per_s:.2f} MiB/s, {c.tc_records_per_s:,.1f} records/s "
        f"(the consumer's fetch rates: the group join left out)",
        *_share_lines(request, c),
        f"wrote {capacity_file}: the fleet default '*', {request.plan.record_bytes:,}-byte records",
        *(f"wrote {path}" for path in written if path != capacity_file),
        "",
        "Tc is an upper bound: kafka-consumer-perf-test reads and discards the records, "
        "while your consumers process them.",
        "To plan with your application's own rate, add a file of your own to "
        f"{request.landing / 'capacity'} (e.g. consumers.csv) with the columns",
        "topic,consumer_mib_per_s,consumer_records_per_s and a row per topic: the plan then "
        "takes that topic's Tc from it and its Tp from the '*' row measured here.",
    ]
    lines += [f"note: {note}" for note in _other_default_rows(request.landing)]
    print("\n".join(lines), flush=True)


def _share_lines(request: _Request, c: PartitionCapacity) -> list[str]:
    if c.share_fetch_mib_per_s is None or c.share_fetch_records_per_s is None:
        return []
    return [
        f"share-fetch {c.share_fetch_mib_per_s:.2f} MiB/s, "
        f"{c.share_fetch_records_per_s:,.1f} records/s (one partition to a share group of "
        f"{request.plan.share_members} member(s), the group join left out; carried in the "
        f"capacity row, not used in sizing yet)",
    ]


def _other_default_rows(landing: Path) -> list[str]:
    """A `*` row in another capacity file competes with ours: the first file read wins."""
    from planner.collect.landing import FORMATS, read_landing_file
    from planner.figures.conform import FiguresError

    notes = []
    folder = landing / "capacity"
    for path in sorted(folder.iterdir()):
        if path.name == CAPACITY_FILE or path.name.startswith((".", "_")):
            continue
        if path.suffix.lower() not in FORMATS:
            continue
        try:
            table, _, _ = read_landing_file(path, str(path))
        except FiguresError:
            continue  # the collection reports it
        if "topic" in table.column_names and "*" in table.column("topic").to_pylist():
            first = (
                "this one is read first and wins"
                if path.name < CAPACITY_FILE
                else "measured.csv is read first and wins"
            )
            notes.append(f"{path} has a '*' row too; of the two, {first}")
    return notes


def _say(text: str) -> None:
    print(text, flush=True)
