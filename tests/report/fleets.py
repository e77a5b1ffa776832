"""Reports to render in tests: one planned by the pure core, one built by hand.

`core_fleet()` plans real topics with `plan_topic` (the bundled example and variants of
its history) and maps them through the pipeline's path (`tests.support.report_path`), so
the site is tested on what the planner really says. It includes the hostile names the
escaping tests need. `hand_fleet()` is small and fixed, for the golden `summary.md`: it
does not move when the core's numbers do.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import numpy as np

from planner.examples import load_example
from planner.recommend import GroupInfo, PlanSettings, TopicHistory, plan_topic
from planner.report import (
    Candidate,
    CostPanel,
    Deciding,
    DimensionArithmetic,
    FleetReport,
    GroupReport,
    RejectedExample,
    RejectedSummary,
    TopicReport,
)
from planner.report.from_outputs import report_settings
from tests.store.rows import facts_row
from tests.support.report_path import topic_report_of

HOSTILE_TOPIC = "<script>alert(1)</script>"
HOSTILE_ATTR = 'x"><img src=x onerror=alert(1)>'
#: A topic the core plans with a key carrying 40 % of the records: a hot key.
HOT_TOPIC = "clicks.by-user"
EXAMPLE_TOPIC = "payments.authorizations"
DATA_DOCS = "data-docs/index.html"
SETTINGS = PlanSettings()
REPORT_SETTINGS = report_settings(SETTINGS)
INTERVAL = (datetime(2026, 11, 21, tzinfo=UTC), datetime(2026, 11, 22, tzinfo=UTC))


def _scaled(history: TopicHistory, topic: str, factor: float, **changes: object) -> TopicHistory:
    def scale(values: object) -> object:
        return None if values is None else np.asarray(values, dtype=np.float64) * factor

    fields: dict[str, object] = {
        "topic": topic,
        "mib_in": scale(history.mib_in),
        "records_in": scale(history.records_in),
        "mib_out": scale(history.mib_out),
        "keyed": False,
        "keys": None,
        "key_counts": None,
    }
    fields.update(changes)
    return dataclasses.replace(history, **fields)  # type: ignore[arg-type]


def _hot_keys(hot_key: bytes) -> tuple[list[bytes], np.ndarray]:
    keys = [hot_key, *(f"user-{i:04d}".encode() for i in range(600))]
    counts = np.concatenate([[400.0], np.full(600, 1.0)])
    return keys, counts


def core_fleet() -> FleetReport:
    """A fleet planned by the core: every status, hot keys, hostile names."""
    ex = load_example()
    producer, consumer = ex.producer, ex.consumer
    reports: list[TopicReport] = []

    def plan(history: TopicHistory, groups: tuple[GroupInfo, ...], rejected: int = 0) -> None:
        p = plan_topic(
            history, producer, consumer, brokers=ex.brokers, groups=groups, settings=SETTINGS
        )
        facts = facts_row(history, producer, consumer, groups, capacity_source=ex.capacity_source)
        reports.append(
            topic_report_of(
                p, history, facts, brokers=ex.brokers, settings=SETTINGS, rejected_rows=rejected
            )
        )

    plan(ex.history, ex.groups)
    plan(
        _scaled(ex.history, "orders.created", 3.0, current_partitions=12),
        (GroupInfo("billing", "range", 3),),
    )
    plan(
        _scaled(ex.history, "audit.log", 0.1, current_partitions=24),
        (GroupInfo("archiver", "roundrobin", 30),),
        rejected=2,
    )
    keys, counts = _hot_keys(b"user-celebrity")
    plan(
        _scaled(ex.history, HOT_TOPIC, 0.5, keyed=True, keys=keys, key_counts=counts),
        (GroupInfo("feed-builder", "cooperative-sticky", 4),),
    )
    # Hostile names: a topic, a group, a hot key and a rejected value that are HTML.
    keys, counts = _hot_keys(HOSTILE_ATTR.encode())
    plan(
        _scaled(ex.history, HOSTILE_TOPIC, 0.5, keyed=True, keys=keys, key_counts=counts),
        (GroupInfo(HOSTILE_ATTR, "range", 2),),
    )
    reports.append(
        TopicReport(
            topic=HOSTILE_ATTR,
            status="missing-capacity",
            current_partitions=6,
            error=f"no capacity row for {HOSTILE_ATTR!r} and no '*' default",
            rejected_rows=1,
        )
    )
    reports.append(
        TopicReport(
            topic="legacy.events",
            status="error",
            current_partitions=3,
            error="throughput has 2 samples in 30 days: nothing to take a peak of",
        )
    )
    return FleetReport(
        run_key="20261121T0000Z",
        interval_start=INTERVAL[0],
        interval_end=INTERVAL[1],
        generated_at=datetime(2026, 11, 22, 1, 30, tzinfo=UTC),
        settings=REPORT_SETTINGS,
        topics=tuple(reports),
        rejected=(
            RejectedSummary(
                "throughput",
                3,
                (
                    RejectedExample(
                        "landing/throughput.csv", 17, "bytes_in_per_s", "-5", "must be >= 0"
                    ),
                    RejectedExample(
                        "landing/throughput.csv", 18, "topic", HOSTILE_TOPIC, "Kafka's name rule"
                    ),
                ),
            ),
        ),
        input_rows={"throughput": 3_600, "topics": 7},
        data_docs_path=DATA_DOCS,
    )


def _dimension(peak: float, tc: float, required: int) -> DimensionArithmetic:
    target = peak * 1.1 * 1.3
    return DimensionArithmetic(
        dimension="mib_in",
        peak=peak,
        growth_per_year=0.2,
        growth_method="fitted (exponential): median slope of 1,200 pairs",
        growth_factor=1.1,
        grown=peak * 1.1,
        headroom_pct=30.0,
        target=target,
        producer_capacity=10.0,
        consumer_capacity=tc,
        capacity_scope="*",
        producer_partitions=max(1, -(-int(target * 100) // 1000)),
        consumer_partitions=required,
        required=required,
        side="consumer",
    )


def hand_fleet() -> FleetReport:
    """A small fixed fleet for golden files: numbers typed in, not computed by the core."""
    cost = CostPanel(
        partitions=24,
        producer_batch_memory_bytes=24 * 16_384,
        producer_buffer_share=24 * 16_384 / 33_554_432,
        replicas_total=72,
        replicas_per_broker=12,
        replicas_per_broker_limit=4_000,
        latency_rule_limit=1_800,
        leaders_per_broker=4,
        election_unavailability_ms=20.0,
        segments_per_replica=8,
        file_handles_per_broker=288,
        consumer_threads=24,
    )
    grow = TopicReport(
        topic="orders_v2",
        status="increase",
        current_partitions=12,
        required_partitions_now=18,
        required_partitions=22,
        recommended_partitions=24,
        recommended_consumers=16,
        strategy="cooperative-sticky",
        deciding=Deciding("mib_in", "consumer"),
        replication_factor=3,
        dimensions=(_dimension(50.0, 3.3, 22),),
        candidates=(Candidate(22, (1, 2, 11, 22), False), Candidate(24, (1, 2, 3, 4), True)),
        choice_reason="24 splits evenly over more group sizes",
        cost=cost,
        warnings=("group 'billing' is `under-provisioned` *now* | [see] <page>",),
        groups=(
            GroupReport(
                group_id="billing",
                topics=("orders_v2",),
                current_strategy="range",
                strategy="cooperative-sticky",
                current_members=8,
                recommended_members=16,
                members_now=16,
                members_at_horizon=20,
                busiest_utilisation=0.74,
                status="under-provisioned",
                notes=("8 members today, 16 needed",),
            ),
        ),
    )
    later = dataclasses.replace(
        grow,
        topic="payments",
        status="plan-increase",
        current_partitions=20,
        warnings=(),
        groups=(),
    )
    fine = TopicReport(
        topic="audit",
        status="ok",
        current_partitions=6,
        required_partitions_now=1,
        required_partitions=2,
        recommended_partitions=6,
        deciding=Deciding("records_in", "both"),
    )
    missing = TopicReport(
        topic="new`topic",
        status="missing-capacity",
        error="no Tp/Tc: add a `capacity` row or a '*' default",
    )
    return FleetReport(
        run_key="20261121T0000Z",
        interval_start=INTERVAL[0],
        interval_end=INTERVAL[1],
        generated_at=datetime(2026, 11, 22, 1, 30, tzinfo=UTC),
        settings=REPORT_SETTINGS,
        topics=(fine, later, missing, grow),
        rejected=(RejectedSummary("capacity", 2),),
    )
