"""One partition's Tp and Tc measured with Kafka's perf tools on a live cluster.

`measure_partition` owns everything it makes: it creates a one-partition topic (or
checks that the named one has exactly one partition), runs the producer perf tool
unthrottled, then the consumer perf tool over what it wrote in a group of its own, and
optionally the share-consumer perf tool in a share group (KIP-932); the tools run as
processes of a scratch folder it creates. Whatever happens (a tool failing, Ctrl-C, or
SIGTERM, which it turns into Ctrl-C for the run), it deletes the groups and the topic it
created and the scratch folder, and says what it could not delete. It writes nothing
else: `partition-planner measure` lands the result.
"""

from __future__ import annotations

import contextlib
import signal
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from planner.adapters.kafka_dist import KafkaDistribution
from planner.adapters.perf_test import parse_perf_test
from planner.adapters.perf_tools import KafkaTools, ToolFailed, TopicNotFound
from planner.partition_capacity import PartitionCapacity, PerfRun, PerfTestError, partition_capacity

__all__ = [
    "MeasurePlan",
    "Measured",
    "Outcome",
    "UnusableTopic",
    "measure_partition",
]

#: A tenth of the records warm the producer up (connections, JIT, batches) and are left
#: out of its steady-state summary.
WARMUP_DIVISOR = 10
#: The consumer tool gives up after this long without records. The topic holds what
#: the producer wrote, so only a failing cluster reaches it.
CONSUMER_TIMEOUT_MS = 60_000
#: Kafka 4.4.0's share perf tool stops its members (exit 1) when the whole run passes its
#: `--timeout`, so that is the run's deadline: a minute for the group join and start-up,
#: plus ten times the consumer tool's time over the same records.
SHARE_DEADLINE_BASE_MS = 60_000
SHARE_DEADLINE_FACTOR = 10
#: Each member prints its progress this often; its first row (the join) is left out, and
#: a rate needs a second one, so short runs need short intervals.
SHARE_REPORTING_INTERVAL_MS = 100
#: The share group reads the records already written, not only new ones (KIP-932 groups
#: start at the latest offset).
SHARE_GROUP_CONFIG = {"share.auto.offset.reset": "earliest"}


class UnusableTopic(ValueError):
    """The topic named to measure on does not exist or has more than one partition."""


@dataclass(frozen=True)
class MeasurePlan:
    """What to measure, and where.

    Attributes:
        bootstrap: The cluster's bootstrap servers, `host:port,...`.
        command_config: Java client properties for every tool, or None.
        record_bytes: The record size to measure with, bytes.
        topic: An existing one-partition topic to measure on (kept), or None to create
            one.
        records: Records to produce and consume.
        replication_factor: Of the topic created (None: the cluster's).
        run_id: Names the topic and groups created, so that runs never share them.
        share_members: Share consumers in the measured share group; None: no share run.
    """

    bootstrap: str
    command_config: Path | None
    record_bytes: int
    topic: str | None
    records: int
    replication_factor: int | None
    run_id: str
    share_members: int | None = None


@dataclass(frozen=True)
class Measured:
    """What a measurement gave.

    Attributes:
        topic: The topic measured on.
        measured_at: When the producer started, UTC, ISO 8601 with a `Z`.
        producer_text: The producer tool's output, after a `# topic:` header.
        consumer_text: The consumer tool's output, after the same header.
        stem: `TOPIC.STAMP`, the name the tools' output is landed under.
        capacity: Tp, Tc (and the share-fetch figures) from those outputs.
        share_text: The share-consumer tool's output, or None without a share run.
    """

    topic: str
    measured_at: str
    producer_text: str
    consumer_text: str
    stem: str
    capacity: PartitionCapacity
    share_text: str | None = None


@dataclass(frozen=True)
class Outcome:
    """How a measurement ended.

    Attributes:
        measured: The result; None when the run failed or was interrupted.
        failure: Why a tool's run failed, or None.
        interrupted: Ctrl-C or SIGTERM stopped the run.
        left: What the clean-up could not delete, each with why (`topic NAME (...)`).
    """

    measured: Measured | None
    failure: str | None
    interrupted: bool
    left: tuple[str, ...]


@dataclass
class _Created:
    """What the run has made on the cluster so far: what the clean-up deletes."""

    topic: str | None = None
    group: str | None = None
    share_group: str | None = None


def measure_partition(
    distribution: KafkaDistribution, plan: MeasurePlan, *, say: Callable[[str], None]
) -> Outcome:
    """Measure one partition, then delete what the run created.

    Args:
        distribution: The Kafka whose tools to run.
        plan: What to measure.
        say: Prints a line of progress.

    Raises:
        UnusableTopic: the topic named in `plan` cannot be measured on (raised after
            the clean-up).
    """
    created = _Created()
    measured: Measured | None = None
    failure: str | None = None
    interrupted = False
    with (
        tempfile.TemporaryDirectory(prefix="partition-planner-measure-") as scratch,
        _sigterm_as_interrupt(),
    ):
        tools = KafkaTools(
            distribution=distribution,
            bootstrap=plan.bootstrap,
            command_config=plan.command_config,
            scratch=Path(scratch),
            echo=lambda line: say(f"  {line}"),
        )
        try:
            try:
                measured = _measure(tools, plan, created, say)
            except KeyboardInterrupt:
                interrupted = True
            except ToolFailed as exc:
                failure = str(exc)
        finally:
            left = _clean_up(tools, created, say)
    return Outcome(measured, failure, interrupted, tuple(left))


def _topic(
    tools: KafkaTools, plan: MeasurePlan, created: _Created, say: Callable[[str], None]
) -> str:
    # The topic to measure on: the one named, checked, or one created for the run.
    if plan.topic is not None:
        topic = plan.topic
        try:
            count = tools.partition_count(topic)
        except TopicNotFound as exc:
            raise UnusableTopic(str(exc)) from None
        if count != 1:
            raise UnusableTopic(
                f"{topic} has {count} partitions; Tp and Tc are one partition's "
                f"rates, so measure needs a topic with exactly one"
            )
        say(f"topic {topic}: 1 partition; it is kept, and the consumer reads it from its start")
        return topic
    topic = f"partition-planner-measure-{plan.run_id}"
    # Noted before the call: an interrupted call may still have created it.
    created.topic = topic
    tools.create_topic(topic, replication_factor=plan.replication_factor)
    factor = plan.replication_factor
    replicas = f"replication factor {factor}" if factor else "the cluster's replication factor"
    say(f"created topic {topic}: 1 partition, {replicas}")
    return topic


def _measure(
    tools: KafkaTools, plan: MeasurePlan, created: _Created, say: Callable[[str], None]
) -> Measured:
    topic = _topic(tools, plan, created, say)
    started = datetime.now(UTC).replace(microsecond=0)
    stem = f"{topic[:200]}.{started.strftime('%Y%m%dT%H%M%SZ')}"
    header = f"# topic: {topic}\n# partition-planner measure on {plan.bootstrap}"
    producer_text, runs = _produce(
        tools, plan, say, topic=topic, header=f"{header}, {_utc(started)}", stem=stem
    )
    group = f"partition-planner-measure-{plan.run_id}"
    created.group = group  # before the tool starts: it may join and then fail
    say(f"kafka-consumer-perf-test: {plan.records:,} records in group {group}")
    consumer = tools.consume(
        topic, records=plan.records, group=group, timeout_ms=CONSUMER_TIMEOUT_MS
    )
    consumer_text = f"{header}, {_utc(datetime.now(UTC))}\n{consumer.stdout}"
    if consumer.returncode != 0:
        raise ToolFailed(f"kafka-consumer-perf-test failed: {consumer.error()}")
    try:
        read = parse_perf_test(consumer_text, f"{stem}.consumer.txt")
    except PerfTestError as exc:
        raise ToolFailed(f"kafka-consumer-perf-test: {exc} ({consumer.error()})") from None
    if any(r.timed_out or r.records < plan.records for r in read):
        got = max(r.records for r in read)
        raise ToolFailed(
            f"kafka-consumer-perf-test read {got:,} of {plan.records:,} records before "
            f"its {CONSUMER_TIMEOUT_MS // 1000} s timeout"
        )
    shared: list[PerfRun] = []
    share_text: str | None = None
    if plan.share_members is not None:
        deadline_ms = SHARE_DEADLINE_BASE_MS + int(SHARE_DEADLINE_FACTOR * consumer.seconds * 1000)
        share_text, shared = _measure_share(
            tools, plan, created, say, topic=topic, header=header, deadline_ms=deadline_ms
        )
    capacity = partition_capacity([*runs, *read, *shared], topic)
    if capacity.tp_mib_per_s is None or capacity.tc_mib_per_s is None:
        raise ToolFailed("the perf tools printed no summary to take Tp and Tc from")
    if plan.share_members is not None and capacity.share_fetch_mib_per_s is None:
        raise ToolFailed("kafka-share-consumer-perf-test printed no rows to take a rate from")
    return Measured(
        topic=topic,
        measured_at=_utc(started),
        producer_text=producer_text,
        consumer_text=consumer_text,
        stem=stem,
        capacity=capacity,
        share_text=share_text,
    )


def _produce(
    tools: KafkaTools,
    plan: MeasurePlan,
    say: Callable[[str], None],
    *,
    topic: str,
    header: str,
    stem: str,
) -> tuple[str, list[PerfRun]]:
    """Run the producer perf tool unthrottled; its text (after `header`) and runs."""
    warmup = plan.records // WARMUP_DIVISOR
    say(
        f"kafka-producer-perf-test: {plan.records:,} records of {plan.record_bytes:,} "
        f"bytes, unthrottled, the first {warmup:,} as warm-up"
    )
    producer = tools.produce(
        topic, records=plan.records, record_bytes=plan.record_bytes, warmup_records=warmup
    )
    text = (
        f"{header}: {plan.records} records of {plan.record_bytes} "
        f"bytes, {warmup} warm-up\n{producer.stdout}"
    )
    if producer.returncode != 0:
        raise ToolFailed(f"kafka-producer-perf-test failed: {producer.error()}")
    try:
        runs = list(parse_perf_test(text, f"{stem}.producer.txt"))
    except PerfTestError as exc:
        raise ToolFailed(f"kafka-producer-perf-test: {exc} ({producer.error()})") from None
    sent = max((r.records for r in runs if r.window == "summary"), default=0)
    if sent != plan.records:
        raise ToolFailed(
            f"kafka-producer-perf-test sent {sent:,} of {plan.records:,} records: "
            f"{producer.error()}"
        )
    return text, runs


def _measure_share(
    tools: KafkaTools,
    plan: MeasurePlan,
    created: _Created,
    say: Callable[[str], None],
    *,
    topic: str,
    header: str,
    deadline_ms: int,
) -> tuple[str, list[PerfRun]]:
    """Run the share-consumer perf tool over the records written; its text and runs."""
    members = plan.share_members
    assert members is not None
    group = f"partition-planner-measure-share-{plan.run_id}"
    created.share_group = group  # before the config: it outlives the group (Kafka 4.4.0)
    tools.set_group_config(group, SHARE_GROUP_CONFIG)
    say(
        f"kafka-share-consumer-perf-test: {plan.records:,} records in share group {group}, "
        f"{members} member(s), from the earliest offset (deadline {deadline_ms // 1000} s)"
    )
    done = tools.share_consume(
        topic,
        records=plan.records,
        group=group,
        members=members,
        deadline_ms=deadline_ms,
        reporting_interval_ms=SHARE_REPORTING_INTERVAL_MS,
    )
    text = (
        f"{header}, {_utc(datetime.now(UTC))}: share group of {members} member(s), "
        f"{plan.records} records\n{done.stdout}"
    )
    if done.returncode != 0:
        raise ToolFailed(
            f"kafka-share-consumer-perf-test failed: {done.error()} (it stops at its "
            f"{deadline_ms // 1000} s deadline)"
        )
    try:
        found = list(parse_perf_test(text, f"{topic}.share.txt"))
    except PerfTestError as exc:
        raise ToolFailed(f"kafka-share-consumer-perf-test: {exc} ({done.error()})") from None
    summary = [r for r in found if r.window == "summary"]
    got = max((r.records for r in summary), default=0)
    if got < plan.records or any(r.timed_out for r in summary):
        raise ToolFailed(
            f"kafka-share-consumer-perf-test read {got:,} of {plan.records:,} records "
            f"before its timeout"
        )
    rows = Counter(r.member for r in found if r.window == "detailed")
    if not any(count >= 2 for count in rows.values()):
        # Only the summary is left, and a few seconds of group join are most of it.
        raise ToolFailed(
            f"kafka-share-consumer-perf-test: the share group read the {plan.records:,} "
            f"records within {SHARE_REPORTING_INTERVAL_MS} ms of its join, too soon for a "
            f"rate without the join; measure with more --records"
        )
    return text, found


def _utc(moment: datetime) -> str:
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _clean_up(tools: KafkaTools, created: _Created, say: Callable[[str], None]) -> list[str]:
    """Delete the group, then the topic; what could not be deleted, and why."""
    steps: list[tuple[str, str, Callable[[str], bool]]] = []
    if created.share_group is not None:
        steps.append(("share group", created.share_group, tools.delete_share_group))
        steps.append(
            (
                "share group config",
                created.share_group,
                lambda group: tools.delete_group_config(group, list(SHARE_GROUP_CONFIG)),
            )
        )
    if created.group is not None:
        steps.append(("consumer group", created.group, tools.delete_group))
    if created.topic is not None:
        steps.append(("topic", created.topic, tools.delete_topic))
    left: list[str] = []
    for index, (kind, name, delete) in enumerate(steps):
        try:
            existed = delete(name)
        except ToolFailed as exc:
            left.append(f"{kind} {name} ({exc})")
            continue
        except KeyboardInterrupt:
            # A second Ctrl-C: stop cleaning up, and say what stays.
            left.extend(f"{k} {n} (clean-up interrupted)" for k, n, _ in steps[index:])
            break
        if existed:
            say(f"deleted {kind} {name}")
    return left


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    # A SIGTERM (a scheduler stopping the job) must clean up like Ctrl-C does.
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
