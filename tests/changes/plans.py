"""A published run made of real plans: the core plans topics, published both ways.

`published(prefix)` plans a few topics with `plan_topic` (the bundled example and
variants of its history) and lays each plan out in both published forms, through the
jobs' own code: the report's `recommendations.json` objects (`tests.support.report_path`,
then `exports.recommendations`) and the store's rows (the `recommendations` dataset's
rows, `tests.store.rows`), published into a SQLite store. Names start with `prefix`, so
tests on one shared Kafka never meet.

The topics, and what the core decides for them (asserted in the tests, not assumed):

- `<prefix>payments.authorizations`: the example, keyed, 12 partitions, to grow;
- `<prefix>orders.created`: keyless, three times the example's load on 12 partitions;
- `<prefix>audit.log`: a tenth of the load on 24 partitions: enough already;
- `<prefix>payments.v2`: no partition count: a topic to create.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from planner.examples import load_example
from planner.figures import DataInterval
from planner.recommend import GroupInfo, PlanSettings, TopicHistory, plan_topic
from planner.report import FleetReport
from planner.report.exports import recommendations
from planner.report.from_outputs import report_settings
from planner.report.names import page_names
from planner.store import RecommendationStore, Run, sqlite_url
from tests.store.rows import facts_row, recommendation_row
from tests.support.report_path import topic_report_of

RUN_DAY = "2026-11-20"
RUN_KEY = "20261120T0000Z"
SETTINGS = PlanSettings()


@dataclass(frozen=True)
class Published:
    """One run, published both ways.

    Attributes:
        prefix: The names' prefix.
        records: The `recommendations.json` objects.
        rows: The store rows (the dataset's fields).
        file: `recommendations.json` on disk.
        store_url: The SQLite store holding the run.
        current: Topic -> the partition count each plan saw (None: to create).
    """

    prefix: str
    records: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    file: Path
    store_url: str
    current: dict[str, int | None]

    def name(self, short: str) -> str:
        return self.prefix + short


def _variant(history: TopicHistory, topic: str, factor: float, **changes: Any) -> TopicHistory:
    def scale(values: Any) -> Any:
        return None if values is None else np.asarray(values, dtype=np.float64) * factor

    fields: dict[str, Any] = {
        "topic": topic,
        "mib_in": scale(history.mib_in),
        "records_in": scale(history.records_in),
        "mib_out": scale(history.mib_out),
        "keyed": False,
        "keys": None,
        "key_counts": None,
    }
    fields.update(changes)
    return dataclasses.replace(history, **fields)


def published(
    folder: Path,
    prefix: str = "",
    *,
    replication_factor: int = 3,
    brokers: int = 6,
    store_url: str | None = None,
) -> Published:
    """Plan the topics, write `recommendations.json` and a store under `folder` (or
    publish into the store at `store_url`)."""
    ex = load_example()
    base = dataclasses.replace(
        ex.history, topic=prefix + ex.history.topic, replication_factor=replication_factor
    )
    cases = [
        (base, tuple(dataclasses.replace(g, group_id=prefix + g.group_id) for g in ex.groups)),
        (
            _variant(base, prefix + "orders.created", 3.0, current_partitions=12),
            (GroupInfo(prefix + "billing", "range", 3),),
        ),
        (
            _variant(base, prefix + "audit.log", 0.1, current_partitions=24),
            (GroupInfo(prefix + "archiver", "roundrobin", 30),),
        ),
        (_variant(base, prefix + "payments.v2", 0.5, current_partitions=None), ()),
    ]
    reports, rows = [], []
    for history, groups in cases:
        plan = plan_topic(
            history, ex.producer, ex.consumer, brokers=brokers, groups=groups, settings=SETTINGS
        )
        facts = facts_row(
            history, ex.producer, ex.consumer, groups, capacity_source=ex.capacity_source
        )
        reports.append(topic_report_of(plan, history, facts, brokers=brokers, settings=SETTINGS))
        rows.append(
            recommendation_row(
                plan, history, facts, brokers=brokers, run=RUN_KEY, settings=SETTINGS
            )
        )
    interval = DataInterval.parse(RUN_DAY)
    report = FleetReport(
        run_key=RUN_KEY,
        interval_start=interval.start,
        interval_end=interval.end,
        generated_at=interval.end + dt.timedelta(hours=1),
        settings=report_settings(SETTINGS),
        topics=tuple(reports),
    )
    records = recommendations(report, page_names(t.topic for t in reports))
    folder.mkdir(parents=True, exist_ok=True)
    file = folder / "recommendations.json"
    file.write_text(json.dumps(records, indent=2))
    url = store_url or sqlite_url(folder / "store.db")
    with RecommendationStore(url) as store:
        store.publish_run(Run(interval, interval.end + dt.timedelta(hours=1)), rows)
    current = {h.topic: h.current_partitions for h, _ in cases}
    return Published(prefix, records, rows, file, url, current)
