"""The report's input model: what the site shows, as plain frozen values.

The renderer reads nothing else. One producer fills it: the pipeline maps the Spark
jobs' outputs into it (`planner.report.from_outputs`). Every class is a frozen dataclass of
strings, numbers, booleans, UTC datetimes, tuples and other model classes, so a whole
`FleetReport` goes to JSON and back (`to_json_dict`, `from_json_dict`) without loss.

- `codec`: `Model`, the checks against the annotations and the JSON codec;
- `topic`: `TopicReport` and its parts (arithmetic, candidates, cost, groups, notes);
- `series`: the chart series (throughput, member and partition loads, churn);
- `fleet`: `FleetReport` and the run's other values (settings, rejected rows, cluster
  replicas, creation requests).

Values are checked on construction against the annotations (lists become tuples, ints
become floats where a float is expected, ISO strings become datetimes when read from
JSON) and against the few rules the renderer relies on; a bad value raises ValueError
naming the topic, the field path and the value. Domain rules (recommended >= current,
and so on) are the output expectation suite's job, not this module's.

Units: rates are MiB/s (2^20 bytes) or records/s as the dimension says; loads in the
chart classes are a share of one consumer's capacity (1.0 = Tc); percentages end in
`_pct`; times are seconds since the epoch (UTC) or aware datetimes.
"""

from planner.report.model.fleet import (
    ClusterReplicas,
    CreationRequest,
    FleetReport,
    NewTopicLink,
    RejectedExample,
    RejectedSummary,
    ReportSettings,
    cluster_replicas,
)
from planner.report.model.series import (
    ChurnChart,
    ChurnRow,
    HotKeyMark,
    MemberLoadChart,
    MemberLoadCurve,
    PartitionLoadChart,
    ThroughputHistory,
)
from planner.report.model.topic import (
    DIMENSION_UNITS,
    GROUP_STATUSES,
    PLANNED_STATUSES,
    RULE,
    TOPIC_STATUSES,
    Candidate,
    CapacityScope,
    ChangelogReport,
    CodedNote,
    CostPanel,
    CrossZoneReport,
    Deciding,
    DimensionArithmetic,
    GroupCapacityReport,
    GroupLagReport,
    GroupReport,
    GroupStatus,
    StandbysReport,
    TopicReport,
    TopicStatus,
)

__all__ = [
    "DIMENSION_UNITS",
    "GROUP_STATUSES",
    "PLANNED_STATUSES",
    "RULE",
    "TOPIC_STATUSES",
    "Candidate",
    "CapacityScope",
    "ChangelogReport",
    "ChurnChart",
    "ChurnRow",
    "ClusterReplicas",
    "CodedNote",
    "CostPanel",
    "CreationRequest",
    "CrossZoneReport",
    "Deciding",
    "DimensionArithmetic",
    "FleetReport",
    "GroupCapacityReport",
    "GroupLagReport",
    "GroupReport",
    "GroupStatus",
    "HotKeyMark",
    "MemberLoadChart",
    "MemberLoadCurve",
    "NewTopicLink",
    "PartitionLoadChart",
    "RejectedExample",
    "RejectedSummary",
    "ReportSettings",
    "StandbysReport",
    "ThroughputHistory",
    "TopicReport",
    "TopicStatus",
    "cluster_replicas",
]
