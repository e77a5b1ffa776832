"""Recommendation rows for the tests, made by the jobs' own code from a real plan.

`recommendation_row` hands a core `TopicPlan`, with the figures it was planned on laid
out as the sizing job's facts row (`facts_row`), to the job's `planned_row` and then to
the recommendations' merge (`spark_jobs.recommend.recommendations`): the store and the
report are tested on the rows the pipeline gives them, and a column the jobs add or
change reaches these tests without anyone copying it here. `fleet_rows` derives
thousands of plausible topics from one such row in milliseconds.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from planner.recommend import GroupInfo, PlanSettings, TopicHistory, TopicPlan
from planner.sizing import SideCapacity
from spark_jobs.facts import GROUP_CAPACITY_FIELDS
from spark_jobs.planning import planned_row
from spark_jobs.recommend import recommendations
from spark_jobs.schemas import arrow_schema
from spark_jobs.settings import JobSettings


def facts_row(
    history: TopicHistory,
    producer: SideCapacity,
    consumer: SideCapacity,
    groups: Sequence[GroupInfo] = (),
    *,
    capacity_source: str | None = None,
    capacity_scope: str = "topic",
    consuming_groups: int | None = None,
    share_groups: int | None = None,
) -> dict[str, Any]:
    """The sizing job's facts row of a topic (`spark_jobs.facts.topic_facts`), from
    what `plan_topic` was given.

    Args:
        history: The topic's history.
        producer: Tp.
        consumer: Tc.
        groups: The groups that read only the topic.
        capacity_source: Where Tp and Tc were measured, in words (both sides).
        capacity_scope: `topic` (its own capacity row) or `*` (the default row).
        consuming_groups: Groups reading it in all (None: `len(groups)`).
        share_groups: Share groups among them (None: those among `groups`).
    """
    sides = {"tp": producer, "tc": consumer}
    return {
        "topic": history.topic,
        "partitions": history.current_partitions,
        "replication_factor": history.replication_factor,
        "keyed": history.keyed,
        "partitioner": history.partitioner,
        "retention_ms": history.retention_ms,
        **{
            f"{side}_{name}": getattr(capacity, name)
            for side, capacity in sides.items()
            for name in ("mib_per_s", "records_per_s", "record_bytes")
        },
        **{f"{side}_source": capacity_scope for side in sides},
        **{f"{side}_measured_by": capacity_source for side in sides},
        "groups": [
            {
                "group_id": g.group_id,
                "strategy": g.strategy,
                "members": g.members,
                "protocol": g.protocol,
                **{column: getattr(g, name) for column, name in GROUP_CAPACITY_FIELDS.items()},
                "client_rack": ",".join(g.client_racks) or None,
                "stream_threads": g.stream_threads,
            }
            for g in groups
        ],
        "consuming_groups": len(groups) if consuming_groups is None else consuming_groups,
        "share_groups": (
            sum(g.protocol == "share" for g in groups) if share_groups is None else share_groups
        ),
    }


def recommendation_row(
    plan: TopicPlan,
    history: TopicHistory,
    facts: Mapping[str, Any],
    *,
    brokers: int,
    run: str | None = None,
    settings: PlanSettings | None = None,
) -> dict[str, Any]:
    """One topic's row of the recommendations dataset, from its plan.

    Args:
        plan: The topic's plan.
        history: What it was planned from.
        facts: The rest of what it was planned from (`facts_row`).
        brokers: Brokers in the cluster.
        run: The run key for the dataset's `run` column (left out when None, so the
            row can be published as any run).
        settings: The planning settings it was planned with (defaults when None).
    """
    job = JobSettings(planning=settings or PlanSettings())
    sizing = planned_row(plan, history, facts, run=run or "", brokers=brokers, settings=job)
    table = pa.Table.from_pylist([sizing], schema=arrow_schema("sizing"))
    (row,) = recommendations(table, {}).to_pylist()
    if run is None:
        del row["run"]
    return row


def fleet_rows(template: Mapping[str, Any], topics: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """`topics` rows named `fleet.topic-00000`..., figures scaled per topic.

    Args:
        template: A real recommendation row (from `recommendation_row`).
        topics: How many rows.
        seed: Changes every topic's scale, so two runs of one fleet differ.
    """
    rng = random.Random(seed)
    frozen = json.dumps(template)  # a fresh deep copy per row, faster than deepcopy
    rows: list[dict[str, Any]] = []
    for i in range(topics):
        scale = rng.uniform(0.2, 4.0)
        row = json.loads(frozen)
        row["topic"] = f"fleet.topic-{i:05d}"
        for name in ("peak_per_s", "grown_per_s", "target_per_s"):
            for dim in ("mib_in", "records_in", "mib_out"):
                if row.get(f"{dim}_{name}") is not None:
                    row[f"{dim}_{name}"] *= scale
        required = max(1, math.ceil(template["required_partitions"] * scale))
        current = template["current_partitions"]
        row["required_partitions"] = required
        row["required_partitions_now"] = max(
            1, math.ceil(template["required_partitions_now"] * scale)
        )
        row["recommended_partitions"] = max(required, current)
        row["status"] = "ok" if current >= required else "plan-increase"
        rows.append(row)
    return rows
