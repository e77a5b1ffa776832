"""What a published plan changes on the cluster: read once, decided once.

- `published`: a published run (`recommendations.json` or the store's rows) as typed
  values (`read_published`).
- `decide`: the decision (`change_list`): topics to grow or create, groups to
  resize, and what is skipped and why; decreases never.

The export formats (`planner.export`) render this list; `partition-planner apply`
makes it real (`planner.apply`). Pure: no I/O.
"""

from planner.changes.decide import (
    SKIP_REASONS,
    ChangeList,
    GroupChange,
    Skipped,
    TopicChange,
    UnknownTopics,
    alter_command,
    change_list,
)
from planner.changes.published import (
    PlanCost,
    PlannedGroup,
    PlannedTopic,
    PublishedPlanError,
    read_published,
)

__all__ = [
    "SKIP_REASONS",
    "ChangeList",
    "GroupChange",
    "PlanCost",
    "PlannedGroup",
    "PlannedTopic",
    "PublishedPlanError",
    "Skipped",
    "TopicChange",
    "UnknownTopics",
    "alter_command",
    "change_list",
    "read_published",
]
