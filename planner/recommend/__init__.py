"""Recommendations: the partition count, consumers per group, strategy, and why.

- `partitions`: `choose_partitions`, never below the rule or the current count.
- `plan`: `plan_topic`, one topic end to end (targets, rule, choice, costs, groups).
- `creation`: a topic that does not exist yet is created (`create`), its new groups
  deployed (`deploy`); the wording of a creation plan.
"""

from planner.recommend import creation
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
    "creation",
    "even_group_sizes",
    "plan_topic",
]
