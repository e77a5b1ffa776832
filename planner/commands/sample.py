"""`partition-planner sample`: write a realistic sample fleet as a landing folder."""

from __future__ import annotations

import argparse
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from planner.commands import common

if TYPE_CHECKING:
    from planner.sample import Fleet, LandingSummary


def _utc_date(text: str) -> datetime:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "sample",
        help="write a realistic sample fleet as a landing folder",
        description=(
            "Generate a fleet of topics with hourly throughput (daily and weekly cycles, "
            "growth, bursts), topic configs, capacities, consumer groups, key samples, "
            "perf-tool output and brokers in racks, and write it as a landing folder "
            "(Parquet, CSV, JSON lines, text). The same seed gives the same content."
        ),
    )
    p.add_argument("--topics", type=common.whole(1), required=True, help="number of topics")
    p.add_argument("--days", type=common.whole(1), required=True, help="days of hourly history")
    p.add_argument("--out", required=True, metavar="LANDING", help="landing folder to create")
    p.add_argument("--seed", type=common.whole(0), default=0, help="random seed (default 0)")
    p.add_argument(
        "--end",
        type=_utc_date,
        help="exclusive end of the history, a UTC date (default: today, so the last "
        "full day is yesterday)",
    )
    p.add_argument("--force", action="store_true", help="replace a non-empty --out folder")
    p.add_argument("--json", action="store_true", help="machine-readable summary")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.sample import LandingError, write_landing

    if args.days > 3_660:
        raise common.UsageError(f"--days {args.days}: at most 3660 (ten years of hourly figures)")
    try:
        summary = write_landing(
            args.out,
            topics=args.topics,
            days=args.days,
            seed=args.seed,
            end=args.end,
            force=args.force,
        )
    except LandingError as exc:
        raise common.UsageError(f"--out {exc}") from None
    except OSError as exc:  # a parent that cannot be written, a full disk: nothing is left
        where = exc.filename or args.out
        raise common.Failed(
            f"--out {args.out}: cannot write {where}: {exc.strerror or exc}"
        ) from None
    if args.json:
        common.print_json(summary_json(summary))
    else:
        print(render_summary(summary))
    return 0


def summary_json(summary: LandingSummary) -> dict[str, Any]:
    """The summary as plain JSON values."""
    fleet = summary.fleet
    t = fleet.topics
    return {
        "path": str(summary.path),
        "seed": fleet.seed,
        "start": fleet.start.isoformat(),
        "end": fleet.end.isoformat(),
        "topics": len(t.names),
        "keyed_topics": int(t.keyed.sum()),
        "binary_key_topics": sum(s.style in ("long-be", "uuid-bytes") for s in fleet.key_specs),
        "groups": len(fleet.groups.ids),
        "multi_topic_groups": int((fleet.groups.topics_per_group > 1).sum()),
        "brokers": fleet.brokers,
        "tables": {
            name: {"files": f.files, "rows": f.rows, "bytes": f.bytes}
            for name, f in summary.tables.items()
        },
        "files": summary.files,
        "bytes": summary.bytes,
        "elapsed_s": round(summary.elapsed_s, 3),
    }


def _size(n: int) -> str:
    return f"{n / 2**20:,.1f} MiB" if n >= 2**20 else f"{n / 1024:,.1f} KiB"


def render_summary(summary: LandingSummary) -> str:
    """The one-screen summary of a written landing folder."""
    fleet = summary.fleet
    t = fleet.topics
    g = fleet.groups
    level = t.level_bytes_per_s
    busiest = float(level.max()) / 2**20
    binary = sum(s.style in ("long-be", "uuid-bytes") for s in fleet.key_specs)
    short = int((t.partitions < t.needed_partitions).sum())
    idle = int((g.members > _most_partitions(fleet)).sum())
    racks = len(set(fleet.racks))
    lines = [
        f"Sample fleet written to {summary.path}",
        f"  history   {fleet.start:%Y-%m-%d} .. {fleet.end:%Y-%m-%d} (exclusive), "
        f"{fleet.days} day{'s' if fleet.days != 1 else ''} hourly, UTC; seed {fleet.seed}",
        f"  topics    {len(t.names):,} ({int(t.keyed.sum()):,} keyed, {binary} with binary "
        f"keys); median {np.median(level) / 1024:,.1f} KiB/s, busiest {busiest:,.1f} MiB/s",
        f"            partitions {int(t.partitions.min())}-{int(t.partitions.max())}; "
        f"{short:,} below the generator's estimate of need",
        f"  groups    {len(g.ids):,} ({int((g.topics_per_group > 1).sum()):,} multi-topic, "
        f"{idle:,} with idle members), {g.row_group.size:,} group-topic rows",
        f"  cluster   {fleet.brokers} brokers in {racks} racks",
        "",
        f"  {'table':<11} {'files':>7} {'rows':>13} {'size':>12}",
    ]
    for name, f in summary.tables.items():
        rows = f"{f.rows:,}" + (" lines" if name == "perf" else "")
        lines.append(f"  {name:<11} {f.files:>7,} {rows:>13} {_size(f.bytes):>12}")
    lines.append(f"  {'total':<11} {summary.files:>7,} {'':>13} {_size(summary.bytes):>12}")
    lines.append(f"\n  written in {summary.elapsed_s:.2f} s")
    return "\n".join(lines)


def _most_partitions(fleet: Fleet) -> npt.NDArray[np.int64]:
    g = fleet.groups
    most = np.zeros(len(g.ids), dtype=np.int64)
    np.maximum.at(most, g.row_group, fleet.topics.partitions[g.row_topic])
    return most
