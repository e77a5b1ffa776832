"""`partition-planner export`: a published run's changes as the files teams apply."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import Any

from planner.commands import common
from planner.commands.published import add_published_run_arguments, changes_of, published_run

_FORMATS = ("kafka-topics", "strimzi", "terraform", "keda", "json")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "export",
        help="write a published run's changes for kafka-topics, Strimzi, Terraform, KEDA",
        description=(
            "Write what a published run changes (partitions to add, topics to create, "
            "consumer groups to resize; never a decrease) as the files teams apply: "
            "kafka-topics.sh scripts, Strimzi KafkaTopic resources, Terraform kafka_topic "
            "resources, KEDA ScaledObjects and a JSON change list. OUT/<format>/ gets one "
            "combined file and one file per topic or group, each with the plan's warnings "
            "as comments; it is replaced whole."
        ),
    )
    add_published_run_arguments(p)
    p.add_argument("--out", metavar="DIR", required=True, type=Path, help="output folder")
    p.add_argument(
        "--format",
        action="append",
        choices=_FORMATS,
        help="a format to write (repeat for more; default all)",
    )
    p.add_argument("--namespace", metavar="NS", help="Kubernetes namespace (Strimzi, KEDA)")
    p.add_argument(
        "--label",
        action="append",
        metavar="KEY=VALUE",
        type=_pair,
        help="a label on the Strimzi and KEDA resources (repeat for more)",
    )
    p.add_argument(
        "--strimzi-cluster",
        metavar="NAME",
        help="the strimzi.io/cluster label: the Kafka cluster whose Topic Operator applies them",
    )
    p.add_argument(
        "--strimzi-api-version",
        choices=("v1", "v1beta2"),
        default="v1",
        help="kafka.strimzi.io version: v1 (Strimzi 0.49+, default) or v1beta2 (older)",
    )
    p.add_argument(
        "--bootstrap",
        metavar="HOST:PORT,...",
        help="brokers for KEDA's scaler (default: the config's [sources.kafka] bootstrap)",
    )
    p.add_argument(
        "--target-lag-s",
        type=common.positive,
        default=None,
        metavar="S",
        help="KEDA: seconds of a member's work the lag may hold; lagThreshold = Tc "
        "(records/s per member) x S (default 30)",
    )
    p.add_argument(
        "--keda-target",
        action="append",
        metavar="GROUP=DEPLOYMENT",
        type=_pair,
        help="KEDA: the Deployment running a group (default: the group id as a name)",
    )
    p.set_defaults(run=run)


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def run(args: argparse.Namespace) -> int:
    from planner.adapters.kafka_dist import project_install
    from planner.export import DEFAULT_TARGET_LAG_S, FORMATS, ExportOptions, render

    published, config = published_run(args)
    changes = changes_of(args, published)
    formats = [f for f in FORMATS if f in (args.format or FORMATS)]
    bootstrap = args.bootstrap or (config.source_settings.get("kafka") or {}).get("bootstrap")
    if "keda" in formats and not bootstrap:
        if args.format:
            raise common.UsageError(
                "--bootstrap: KEDA's scaler needs the brokers (or set [sources.kafka] bootstrap)"
            )
        # Every format by default: the others need no brokers, so only KEDA waits for them.
        formats.remove("keda")
        print("keda: not written: give the brokers (--bootstrap or [sources.kafka] bootstrap)")
    kafka = project_install()
    options = ExportOptions(
        source=published.source,
        kafka_classpath=None if kafka is None else str(kafka.libs.resolve() / "*"),
        kafka_version=None if kafka is None else kafka.version,
        namespace=args.namespace,
        labels=tuple(args.label or ()),
        strimzi_cluster=args.strimzi_cluster,
        strimzi_api_version=args.strimzi_api_version,
        bootstrap_servers=None if bootstrap is None else str(bootstrap),
        target_lag_s=args.target_lag_s or DEFAULT_TARGET_LAG_S,
        keda_targets=dict(args.keda_target or ()),
    )
    print(
        f"run {changes.run or '?'} ({published.source}): {len(changes.topics)} topic "
        f"change(s), {len(changes.groups)} group change(s), {len(changes.skipped)} unchanged"
    )
    for fmt in formats:
        try:
            files = render(fmt, changes, options)
        except ValueError as exc:
            raise common.UsageError(f"--format {fmt}: {exc}") from None
        folder = _write(args.out, fmt, files)
        print(f"{fmt}: {folder} ({len(files)} file(s))")
    return 0


def _write(out: Path, fmt: str, files: list[Any]) -> Path:
    """Write one format's files into OUT/<fmt>, replacing what an earlier export left
    (a topic no longer changing must not keep its old file)."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / fmt
    staging = Path(tempfile.mkdtemp(prefix=f".staging-{fmt}-", dir=out))
    try:
        for f in files:
            path = staging / f.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f.text, encoding="utf-8")
            if path.suffix == ".sh":
                path.chmod(0o755)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
