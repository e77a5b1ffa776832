"""Benchmark: what bounds one partition of a share group (KIP-932), on Apache Kafka 4.4.0.

Two experiments on a one-node KRaft broker of its own (Kafka's start-script JVM options,
512 MiB heap), each repeated (order rotated between repetitions) and reported as
min/median/max with the load average before and after, since the machine is shared:

1. **Share-fetch throughput.** One partition holding ``--records`` records of
   ``--record-size`` bytes. Per repetition: Kafka's consumer perf tool (Tc, its fetch
   rates) and its share-consumer perf tool with 1, 2 and 4 members, each in a fresh share
   group set to ``share.auto.offset.reset=earliest``. The share figure is the steady rate
   after the group join (``planner.partition_capacity.partition_capacity``).
2. **The in-flight cap.** Members that spend ``--process-us`` per record
   (``benchmarks/java/SlowShareMembers.java``), 1, 2, 4 and 8 of them, with the group's
   ``share.partition.max.record.locks`` at Kafka's default 2000 and at its minimum 100.
   Little's law: a partition with at most L records in flight, each held W seconds,
   delivers at most L / W records/s; a member holds its poll's batch of b records for
   about b * t (implicit acknowledgement), so M members reach min(M * b, L) / (b * t).

Run: ``.venv/bin/python benchmarks/share_capacity.py [--json FILE] [--repeat 3]
[--only throughput|inflight] [--locks 2000,100] [--members 1,2,4,8]
[--acquire-mode batch_optimized|record_limit] [--max-poll-records 500]``. With the
defaults it took 28 minutes on two cores shared with other work (load average 17-47).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.adapters.kafka_dist import KafkaDistribution, project_install
from planner.adapters.kraft import KRaftCluster
from planner.adapters.perf_test import parse_perf_test
from planner.adapters.perf_tools import TOPICS_MAIN, KafkaTools, run_tool
from planner.partition_capacity import partition_capacity

SHARE_MEMBERS = (1, 2, 4)
SLOW_MEMBERS = (1, 2, 4, 8)
RECORD_LOCKS = (2000, 100)
BROKER_PROPERTIES = {
    "auto.create.topics.enable": "false",
    "offsets.topic.num.partitions": "5",
    "share.coordinator.state.topic.num.partitions": "5",
}


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def spread(values: Sequence[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def throughput(
    tools: KafkaTools,
    topics: Sequence[str],
    records: int,
    repeat: int,
    members_list: Sequence[int] = SHARE_MEMBERS,
) -> list[dict[str, Any]]:
    """Tc and the share-fetch rate with 1, 2, 4 members, on each topic, ``repeat`` times."""
    configs: list[tuple[str, str | int]] = [
        (topic, config) for topic in topics for config in ["classic", *members_list]
    ]
    out = []
    for rep in range(repeat):
        order = configs[rep % len(configs) :] + configs[: rep % len(configs)]
        for topic, config in order:
            group = f"bench-{topic}-{rep}-{config}"
            before = load()
            if config == "classic":
                done = tools.consume(topic, records=records, group=group, timeout_ms=60_000)
                name = f"{topic}.consumer.txt"
            else:
                tools.set_group_config(group, {"share.auto.offset.reset": "earliest"})
                done = tools.share_consume(
                    topic,
                    records=records,
                    group=group,
                    members=int(config),
                    deadline_ms=600_000,
                    reporting_interval_ms=1000,
                )
                name = f"{topic}.share.txt"
            row: dict[str, Any] = {"topic": topic, "config": config, "rep": rep}
            row["load_before"] = before
            row["load_after"] = load()
            if done.returncode != 0:
                row["error"] = done.error()
            else:
                c = partition_capacity(parse_perf_test(done.stdout, name), topic)
                if config == "classic":
                    row["records_per_s"], row["mib_per_s"] = c.tc_records_per_s, c.tc_mib_per_s
                else:
                    row["records_per_s"] = c.share_fetch_records_per_s
                    row["mib_per_s"] = c.share_fetch_mib_per_s
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def inflight(
    kafka: KafkaDistribution,
    tools: KafkaTools,
    classes: Path,
    topic: str,
    *,
    repeat: int,
    process_us: int,
    max_poll_records: int,
    locks_list: Sequence[int] = RECORD_LOCKS,
    members_list: Sequence[int] = SLOW_MEMBERS,
    acquire_mode: str = "batch_optimized",
) -> list[dict[str, Any]]:
    """Slow members against the in-flight cap, ``repeat`` times."""
    out = []
    configs = [(locks, m) for locks in locks_list for m in members_list]
    for rep in range(repeat):
        order = configs[rep % len(configs) :] + configs[: rep % len(configs)]
        for locks, members in order:
            group = f"slow-{rep}-{locks}-{members}"
            tools.set_group_config(
                group,
                {
                    "share.auto.offset.reset": "earliest",
                    "share.partition.max.record.locks": str(locks),
                },
            )
            before = load()
            args = [tools.bootstrap, topic, group, str(members), str(process_us), "3", "15"]
            command = kafka.java_command(
                "SlowShareMembers",
                [*args, str(max_poll_records), f"share.acquire.mode={acquire_mode}"],
                heap_mb=256,
                extra_classpath=[classes],
            )
            done = run_tool(command, timeout_s=180)
            row: dict[str, Any] = {"locks": locks, "members": members, "rep": rep}
            row["load_before"], row["load_after"] = before, load()
            line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
            pairs = dict(p.split("=", 1) for p in line.split() if "=" in p)
            if done.returncode != 0 or "records_per_s" not in pairs:
                row["error"] = pairs.get("error") or done.error()
            else:
                row["records_per_s"] = float(pairs["records_per_s"])
                row["records_per_poll"] = float(pairs["records_per_poll"])
                row["process_us_measured"] = float(pairs["process_us_measured"])
                row["member_records_per_s"] = pairs["member_records_per_s"]
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def _create_topic(kafka: KafkaDistribution, bootstrap: str, topic: str, partitions: int) -> None:
    args = ["--bootstrap-server", bootstrap, "--create", "--topic", topic]
    command = kafka.java_command(TOPICS_MAIN, [*args, "--partitions", str(partitions)], heap_mb=256)
    done = run_tool(command, timeout_s=120)
    if done.returncode != 0:
        raise SystemExit(f"cannot create {topic}: {done.error()}")


def summarise(rows: list[dict[str, Any]], keys: Sequence[str]) -> list[dict[str, Any]]:
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        if "records_per_s" in row:
            groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    summary = []
    for key, found in groups.items():
        entry: dict[str, Any] = dict(zip(keys, key, strict=True))
        entry["runs"] = len(found)
        entry["records_per_s"] = spread([r["records_per_s"] for r in found])
        if all("mib_per_s" in r for r in found):
            entry["mib_per_s"] = spread([r["mib_per_s"] for r in found])
        if all("records_per_poll" in r for r in found):
            entry["records_per_poll"] = spread([r["records_per_poll"] for r in found])
            entry["process_us_measured"] = spread([r["process_us_measured"] for r in found])
        summary.append(entry)
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--records", type=int, default=600_000)
    parser.add_argument("--record-size", type=int, default=1024)
    parser.add_argument("--slow-records", type=int, default=400_000)
    parser.add_argument("--process-us", type=int, default=1000)
    parser.add_argument("--max-poll-records", type=int, default=500)
    parser.add_argument("--only", choices=("throughput", "inflight"))
    parser.add_argument("--partitions", default="1", help="throughput topics' partitions")
    parser.add_argument("--share-members", default=",".join(map(str, SHARE_MEMBERS)))
    parser.add_argument("--locks", default=",".join(map(str, RECORD_LOCKS)))
    parser.add_argument("--members", default=",".join(map(str, SLOW_MEMBERS)))
    parser.add_argument(
        "--acquire-mode", choices=("batch_optimized", "record_limit"), default="batch_optimized"
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)

    from tests.support.java import compiled

    kafka = project_install()
    if kafka is None:
        print("Apache Kafka is not installed in var/kafka: run make test", file=sys.stderr)
        return 1
    classes = compiled(
        "slowshare", [Path(__file__).parent / "java" / "SlowShareMembers.java"], kafka
    )
    result: dict[str, Any] = {"kafka": kafka.version, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="share-capacity-") as folder:
        cluster = KRaftCluster(kafka, Path(folder) / "broker", properties=BROKER_PROPERTIES)
        with cluster:
            cluster.start()
            tools = KafkaTools(
                distribution=kafka,
                bootstrap=cluster.bootstrap,
                command_config=None,
                scratch=Path(folder),
            )
            if args.only in (None, "throughput"):
                topics = []
                for count in (int(x) for x in args.partitions.split(",")):
                    topic = "share-bench" if count == 1 else f"share-bench-p{count}"
                    _create_topic(kafka, cluster.bootstrap, topic, count)
                    started = time.monotonic()
                    produced = tools.produce(
                        topic,
                        records=args.records,
                        record_bytes=args.record_size,
                        warmup_records=args.records // 10,
                    )
                    print(produced.stdout.strip().splitlines()[-1], flush=True)
                    print(f"produced in {time.monotonic() - started:.0f} s", flush=True)
                    topics.append(topic)
                members = [int(x) for x in args.share_members.split(",")]
                rows = throughput(tools, topics, args.records, args.repeat, members)
                result["throughput"] = {
                    "records": args.records,
                    "record_bytes": args.record_size,
                    "partitions": args.partitions,
                    "runs": rows,
                    "summary": summarise(rows, ["topic", "config"]),
                }
            if args.only in (None, "inflight"):
                tools.create_topic("share-slow", replication_factor=1)
                tools.produce(
                    "share-slow",
                    records=args.slow_records,
                    record_bytes=100,
                    warmup_records=0,
                )
                rows = inflight(
                    kafka,
                    tools,
                    classes,
                    "share-slow",
                    repeat=args.repeat,
                    process_us=args.process_us,
                    max_poll_records=args.max_poll_records,
                    locks_list=[int(x) for x in args.locks.split(",")],
                    members_list=[int(x) for x in args.members.split(",")],
                    acquire_mode=args.acquire_mode,
                )
                result["inflight"] = {
                    "process_us": args.process_us,
                    "max_poll_records": args.max_poll_records,
                    "acquire_mode": args.acquire_mode,
                    "runs": rows,
                    "summary": summarise(rows, ["locks", "members"]),
                }
    text = json.dumps(result, indent=2)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
