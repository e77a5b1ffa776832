"""A topic's report the way the pipeline makes it, from a plan a test made.

The plan and the figures it was planned from go through the jobs' own code (its
`recommendations` row, `tests.store.rows.recommendation_row`; its grid rows,
`spark_jobs.simulation.simulate_topics`) into `planner.report.from_outputs.topic_report`,
the one path into the report. Only the inputs are laid out here: the facts row
(`tests.store.rows.facts_row`), the throughput samples, and the grid's input row, whose
columns are those `spark_jobs.simulate_assignments.simulation_inputs` selects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from planner.recommend import PlanSettings, TopicHistory, TopicPlan
from planner.report.from_outputs import topic_report
from planner.report.model import ThroughputHistory, TopicReport
from spark_jobs.simulation import simulate_topics
from tests.store.rows import recommendation_row

_RUN = "test-run"


def _series(values: npt.ArrayLike | None, size: int) -> tuple[float | None, ...]:
    if values is None:
        return (None,) * size
    return tuple(None if np.isnan(v) else float(v) for v in np.asarray(values, np.float64))


def throughput_history(history: TopicHistory) -> ThroughputHistory | None:
    """The report's throughput samples of a topic, as the publisher reads them."""
    ts = np.asarray(history.ts_s, dtype=np.float64)
    if not ts.size:
        return None
    return ThroughputHistory(
        ts_s=tuple(ts.tolist()),
        mib_in=_series(history.mib_in, ts.size),
        records_in=_series(history.records_in, ts.size),
    )


def _grid_rows(row: Mapping[str, Any], facts: Mapping[str, Any], s: PlanSettings) -> list[Any]:
    # The topic's `simulations` rows (scope `topic`), from its sizing columns.
    inputs = {
        "topic": row["topic"],
        "current_partitions": row["current_partitions"],
        "recommended_partitions": row["recommended_partitions"],
        "consumers_at_horizon": row["consumers_at_horizon"],
        "simulate_counts": sorted(c["partitions"] for c in row["candidates"] if c["simulated"]),
        "largest_group": max((g["members"] for g in facts["groups"]), default=0),
        "partition_loads": row["partition_loads"],
        "groups": [
            {k: g[k] for k in ("group_id", "current_strategy", "current_members", "protocol")}
            for g in row["groups"]
        ],
    }
    batches = pa.Table.from_pylist([inputs]).to_batches()
    out = simulate_topics(
        iter(batches),
        run=_RUN,
        headroom_pct=s.headroom_pct,
        min_group_members=s.min_group_members,
    )
    return [r for batch in out for r in batch.to_pylist()]


def topic_report_of(
    plan: TopicPlan,
    history: TopicHistory,
    facts: Mapping[str, Any],
    *,
    brokers: int = 3,
    settings: PlanSettings | None = None,
    rejected_rows: int = 0,
) -> TopicReport:
    """The report of one topic from its plan, through the pipeline's path.

    Args:
        plan: `plan_topic`'s result.
        history: The history it was planned on.
        facts: The rest of what it was planned from (`tests.store.rows.facts_row`).
        brokers: Brokers in the cluster.
        settings: The planning settings it was planned with (defaults when None).
        rejected_rows: Input rows of the topic the row checks kept out.
    """
    s = settings or PlanSettings()
    row = recommendation_row(plan, history, facts, brokers=brokers, run=_RUN, settings=s)
    return topic_report(
        row,
        _grid_rows(row, facts, s),
        history=throughput_history(history),
        settings=s,
        rejected_rows=rejected_rows,
    )
