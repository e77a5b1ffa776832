"""The report site: static HTML, `recommendations.json` and `summary.md`, published atomically.

- `model`: the input model (`FleetReport`, `TopicReport`, ...), plain frozen values, and
  its JSON codec (`model.codec`).
- `from_outputs`: `topic_report`, `rejected_summaries`, `fleet_report` and
  `report_settings`, the report from the Spark jobs' output rows: the one path into the
  report, so what is published is what the tests see.
- `site`: `iter_site` (pure: every file's path and bytes) and `render_site` (writes them).
- `publish`: `publish_site`, render into a new release and switch in one rename.

`site` and `publish` write files: import them by their module (`planner.report.site`,
`planner.report.publish`); importing this package, the model or the rendering loads
neither (`tests/test_architecture.py`).
- `svg`: the inline SVG chart helper; `charts`, `index_page`, `topic_page`, `exports`:
  what the site is made of.

See docs/report.md.
"""

from planner.report.from_outputs import (
    fleet_report,
    rejected_summaries,
    report_settings,
    topic_report,
)
from planner.report.model import (
    GROUP_STATUSES,
    TOPIC_STATUSES,
    Candidate,
    ChurnChart,
    ChurnRow,
    ClusterReplicas,
    CostPanel,
    Deciding,
    DimensionArithmetic,
    FleetReport,
    GroupReport,
    HotKeyMark,
    MemberLoadChart,
    MemberLoadCurve,
    PartitionLoadChart,
    RejectedExample,
    RejectedSummary,
    ReportSettings,
    ThroughputHistory,
    TopicReport,
)
from planner.report.names import page_names

__all__ = [
    "GROUP_STATUSES",
    "TOPIC_STATUSES",
    "Candidate",
    "ChurnChart",
    "ChurnRow",
    "ClusterReplicas",
    "CostPanel",
    "Deciding",
    "DimensionArithmetic",
    "FleetReport",
    "GroupReport",
    "HotKeyMark",
    "MemberLoadChart",
    "MemberLoadCurve",
    "PartitionLoadChart",
    "RejectedExample",
    "RejectedSummary",
    "ReportSettings",
    "ThroughputHistory",
    "TopicReport",
    "fleet_report",
    "page_names",
    "rejected_summaries",
    "report_settings",
    "topic_report",
]
