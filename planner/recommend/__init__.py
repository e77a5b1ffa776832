"""Recommendations: the partition count, consumers per group, strategy, and why.

- `partitions`: `choose_partitions`, never below the rule or the current count.
- `plan`: `plan_topic`, one topic end to end (targets, rule, choice, costs, groups).
"""

from planner.recommend.partitions import (
    PartitionChoice,
    Status,
    choose_partitions,
    even_group_sizes,
)
from planner.recommend.plan import (
    GroupInfo,
    GroupPlan,
    PlanSettings,
    TopicHistory,
    TopicPlan,
    plan_topic,
)

__all__ = [
    "GroupInfo",
    "GroupPlan",
    "PartitionChoice",
    "PlanSettings",
    "Status",
    "TopicHistory",
    "TopicPlan",
    "choose_partitions",
    "even_group_sizes",
    "plan_topic",
]
