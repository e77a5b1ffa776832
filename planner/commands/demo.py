"""`partition-planner demo`: the model on the bundled example topic."""

from __future__ import annotations

import argparse
import time
from typing import Any

from planner.commands import common


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "demo",
        help="plan the bundled example topic and print the recommendation",
        description="Plan the bundled example topic (30 days of hourly figures, a key "
        "sample, two consumer groups, brokers in three zones) and print the "
        "recommendation and why.",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from planner.examples import load_example
    from planner.recommend import plan_topic
    from planner.recommend.cross_zone import with_cross_zone
    from planner.render import render_plan

    started = time.perf_counter()
    example = load_example()
    plan = plan_topic(
        example.history,
        example.producer,
        example.consumer,
        brokers=example.brokers,
        groups=example.groups,
    )
    # The example gives no price (the planner has no default one): bytes only.
    plan = with_cross_zone(
        plan,
        example.history,
        example.groups,
        replicas=example.replicas,
        broker_racks=example.broker_racks,
        price_per_gib=None,
    )
    elapsed = time.perf_counter() - started
    if args.json:
        common.print_json(plan_summary(plan))
        return 0
    print(render_plan(plan, capacity_source=example.capacity_source))
    print(f"\n(planned in {elapsed:.2f} s from the bundled example in planner/examples/)")
    return 0


def plan_summary(plan: Any) -> dict[str, Any]:
    """The headline numbers of a plan as plain JSON values."""
    from planner.cross_zone import cross_zone_record
    from planner.standbys import standby_record

    return {
        "topic": plan.topic,
        "status": plan.status,
        "current_partitions": plan.choice.current,
        "required_partitions": plan.choice.required,
        "recommended_partitions": plan.choice.recommended,
        "deciding": {
            "dimension": plan.sizing.deciding_dimension,
            "side": plan.sizing.deciding_side,
        },
        "groups": [
            {
                "group_id": g.group_id,
                "current_members": g.current_members,
                "recommended_consumers": g.recommended_members,
                "consumers_now": g.members_now,
                "consumers_at_horizon": g.members_at_horizon,
                "strategy": g.strategy,
                "protocol": g.protocol,
                "planned_as": g.planned_as or None,
                "status": g.status,
                "notes": [n.text for n in g.notes],
                "notes_coded": [n.as_dict() for n in g.notes],
                "cross_zone": cross_zone_record(g.cross_zone, g.cross_zone_advice),
                "standbys": standby_record(g.standbys),
            }
            for g in plan.groups
        ],
        "warnings": [w.text for w in plan.warnings],
        "warnings_coded": [w.as_dict() for w in plan.warnings],
        "rationale": list(plan.rationale),
        "alternatives": [a.text for a in plan.alternatives],
        "alternatives_coded": [a.as_dict() for a in plan.alternatives],
    }
