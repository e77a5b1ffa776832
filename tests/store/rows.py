"""Recommendation rows for the store tests, made from a real plan of the example topic.

`recommendation_row` lays a core `TopicPlan` out with the field names of the
`recommendations` dataset (`spark_jobs.schemas.RECOMMENDATIONS`), as the Spark job
does, so the store is tested on the rows it will receive. `fleet_rows` derives
thousands of plausible topics from that one row in milliseconds.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from planner.notes import coded_rows, texts
from planner.recommend import TopicHistory, TopicPlan
from spark_jobs.planning import group_row


def recommendation_row(
    plan: TopicPlan, history: TopicHistory, *, brokers: int, run: str | None = None
) -> dict[str, Any]:
    """One topic's row of the recommendations dataset, from its plan.

    Args:
        plan: The topic's plan.
        history: What it was planned from.
        brokers: Brokers in the cluster.
        run: The run key for the dataset's `run` column (left out when None, so the
            row can be published as any run).
    """
    row: dict[str, Any] = {} if run is None else {"run": run}
    row |= {
        "topic": plan.topic,
        "status": plan.status,
        "current_partitions": history.current_partitions,
        "replication_factor": history.replication_factor,
        "keyed": history.keyed,
        "partitioner": history.partitioner,
        "retention_ms": history.retention_ms,
        "brokers": brokers,
        "consuming_groups": len(plan.groups),
        "samples": len(history.ts_s),  # type: ignore[arg-type]
        "history_days": 30,
    }
    for req in plan.sizing.requirements:
        unit = "mib" if req.dimension.startswith("mib") else "records"
        if req.producer_capacity is not None:
            row.setdefault(f"tp_{unit}_per_s", req.producer_capacity)
        if req.consumer_capacity is not None:
            row.setdefault(f"tc_{unit}_per_s", req.consumer_capacity)
        row[f"{req.dimension}_producer_partitions"] = req.producer_partitions
        row[f"{req.dimension}_consumer_partitions"] = req.consumer_partitions
        row[f"{req.dimension}_required_partitions"] = req.required
        row[f"{req.dimension}_side"] = req.side
    for dim, target in plan.targets.items():
        row[f"{dim}_peak_per_s"] = target.peak
        row[f"{dim}_growth_per_year"] = target.growth_per_year
        row[f"{dim}_growth_source"] = target.growth_source
        row[f"{dim}_growth_factor"] = target.growth_factor
        row[f"{dim}_grown_per_s"] = target.grown
        row[f"{dim}_target_per_s"] = target.target
    choice, skew = plan.choice, plan.skew
    busiest = max(plan.groups, key=lambda g: g.members_now, default=None)
    row.update(
        recommended_consumers=busiest.members_now if busiest else None,
        consumers_group_id=busiest.group_id if busiest else None,
        strategy=busiest.strategy if busiest else None,
        rule_partitions=plan.sizing.required_partitions,
        skew_partitions=skew.partitions if skew is not None and skew.fits else None,
        required_partitions_now=choice.required_now,
        required_partitions=choice.required,
        recommended_partitions=choice.recommended,
        over_provision=choice.over_provision,
        deciding_dimension=plan.sizing.deciding_dimension,
        deciding_side=plan.sizing.deciding_side,
        choice_reason=choice.reason,
        skipped_dimensions=list(plan.sizing.skipped),
        consumers_now=plan.utilisation_now,
        consumers_at_horizon=plan.utilisation_at_horizon,
        busiest_partition_share=skew.busiest_share if skew is not None else None,
        hot_key_share=skew.hot_share if skew is not None else None,
        hot_keys=[
            {
                "key": None if h.key is None else h.key.decode("utf-8", "backslashreplace"),
                "key_hex": None if h.key is None else h.key.hex(),
                "share": h.share,
                "partitions_worth": h.rate,
            }
            for h in plan.hot_keys
        ],
        cost_warnings=texts(plan.cost.warnings),
        candidates=[
            {
                "partitions": count,
                "is_current": count == choice.current,
                "is_required_now": count == choice.required_now,
                "is_required": count == choice.required,
                "is_recommended": count == choice.recommended,
                "considered": True,
                "simulated": count == choice.recommended,
                "even_group_sizes": list(sizes),
            }
            for count, sizes in choice.candidates
        ],
        # The one definition of a group-plan row (the sizing job's).
        groups=[group_row(g) for g in plan.groups],
        warnings=texts(plan.warnings),
        warnings_coded=coded_rows(plan.warnings),
        rationale=list(plan.rationale),
        alternatives=texts(plan.alternatives),
        alternatives_coded=coded_rows(plan.alternatives),
    )
    for f in fields(plan.cost):
        if f.name not in ("partitions", "warnings"):
            row[f"cost_{f.name}"] = getattr(plan.cost, f.name)
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
