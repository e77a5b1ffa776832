"""Recommendations: the partition count, consumers per group, strategy, and why.

- `types`: the values (`PlanSettings`, `TopicHistory`, `GroupInfo`, `GroupPlan`,
  `Candidate`, `TopicPlan`).
- `partitions`: `choose_partitions`, never below the rule or the current count; which
  statuses mean a topic was sized (`SIZED_STATUSES`, `is_sized`).
- `key_skew`: `skew_requirement`, the partitions a keyed topic's busiest partition needs.
- `group`: `size_group`, the one decision sizing a consumer group (one topic or
  several, `group.decision`), the two ways its table of candidate sizes is built
  (`group.tables`) and the warnings on its plan (`group.warnings`).
- `candidates`: a topic's candidate counts with their cost panels (`topic_candidates`)
  and the grid at any of them (`topic_grid`), for `plan_topic` and the fleet's jobs.
- `consumer_capacity`: which Tc a group is sized with (its own `Tc_g` or the topic's),
  decided once (`group_records_per_s`, `load_factor`).
- `consumers`: `choose_consumers`, which group's plan sets the topic's consumers.
- `targets`: `topic_targets` and `topic_cost`, a topic's planning targets and its cost
  panel at a partition count (for `plan_topic` and for the sizing job's candidates).
- `topic`: `plan_topic`, one topic end to end (targets, rule, choice, costs, groups).

Warnings and notes are `planner.notes.Note` values.
"""

from planner.fit import member_headroom_pct
from planner.recommend.candidates import simulated_counts, topic_candidates, topic_grid
from planner.recommend.consumer_capacity import group_records_per_s, load_factor
from planner.recommend.consumers import ConsumerChoice, SizedGroup, choose_consumers
from planner.recommend.group import (
    GroupOfTopics,
    GroupTopic,
    grid_parameters,
    plan_group,
    plan_group_of_topics,
    size_group,
)
from planner.recommend.key_skew import SkewRequirement, skew_requirement
from planner.recommend.partitions import (
    SIZED_STATUSES,
    PartitionChoice,
    Status,
    choose_partitions,
    even_group_sizes,
    is_sized,
)
from planner.recommend.targets import planning_samples, topic_cost, topic_targets
from planner.recommend.topic import RECORD_SIZE_RATIO, mean_record_bytes, plan_topic
from planner.recommend.types import (
    Candidate,
    ConsumerCapacity,
    GroupInfo,
    GroupLag,
    GroupPlan,
    PlanSettings,
    TopicHistory,
    TopicPlan,
)

__all__ = [
    "RECORD_SIZE_RATIO",
    "SIZED_STATUSES",
    "Candidate",
    "ConsumerCapacity",
    "ConsumerChoice",
    "GroupInfo",
    "GroupLag",
    "GroupOfTopics",
    "GroupPlan",
    "GroupTopic",
    "PartitionChoice",
    "PlanSettings",
    "SizedGroup",
    "SkewRequirement",
    "Status",
    "TopicHistory",
    "TopicPlan",
    "choose_consumers",
    "choose_partitions",
    "even_group_sizes",
    "grid_parameters",
    "group_records_per_s",
    "is_sized",
    "load_factor",
    "mean_record_bytes",
    "member_headroom_pct",
    "plan_group",
    "plan_group_of_topics",
    "plan_topic",
    "planning_samples",
    "simulated_counts",
    "size_group",
    "skew_requirement",
    "topic_candidates",
    "topic_cost",
    "topic_grid",
    "topic_targets",
]
