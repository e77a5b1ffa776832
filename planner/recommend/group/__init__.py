"""Consumer groups: the one decision on a group's size and strategy, and its inputs.

- `decision`: `size_group`, the one decision sizing a consumer group (one topic or
  several) from its table of candidate sizes; how strategies are ranked
  (`strategy_choice_key`) and which a group may be planned with (`planning_strategies`).
- `tables`: the table a decision reads, built from the one-topic grid (`plan_group`) or
  the multi-topic search (`plan_group_of_topics`); what a grid simulates for a topic's
  groups (`grid_parameters`).
- `warnings`: a group falling behind, and members with nothing to do.
"""

from planner.recommend.group.decision import planning_strategies, size_group, strategy_choice_key
from planner.recommend.group.tables import (
    GroupOfTopics,
    GroupTopic,
    busiest_member_load,
    grid_extra_members,
    grid_parameters,
    plan_group,
    plan_group_of_topics,
    strategies_to_simulate,
)

__all__ = [
    "GroupOfTopics",
    "GroupTopic",
    "busiest_member_load",
    "grid_extra_members",
    "grid_parameters",
    "plan_group",
    "plan_group_of_topics",
    "planning_strategies",
    "size_group",
    "strategies_to_simulate",
    "strategy_choice_key",
]
