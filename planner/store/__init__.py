"""The recommendation store: every run and its recommendations, with history.

SQLAlchemy Core behind one URL: a SQLite file by default, PostgreSQL in deployments.

- `records`: what goes in and comes out (`Run`, `RunSummary`, `RunRecord`,
  `Recommendation`), the row checks, and the fields that get columns (`COLUMNS`).
- `tables`: the `runs` and `recommendations` tables, created on first use.
- `store`: `RecommendationStore`: `publish_run` (one transaction, a rerun replaces its
  interval's rows), `record_failure`, `latest`, `history`, `runs`, `last_good_run`,
  `topic_statuses`.
- `show`: one topic's latest recommendation as terminal text.

SQLAlchemy is imported only when a store is opened, so importing this package is light.
"""

from planner.store.records import (
    COLUMNS,
    FAILED,
    FLEET_SCOPE,
    PUBLISHED,
    REPLACED,
    Recommendation,
    Run,
    RunRecord,
    RunSummary,
    StoreError,
    topic_scope,
)
from planner.store.show import render_latest, render_recommendation
from planner.store.store import RecommendationStore, StoreUnavailable, sqlite_url

__all__ = [
    "COLUMNS",
    "FAILED",
    "FLEET_SCOPE",
    "PUBLISHED",
    "REPLACED",
    "Recommendation",
    "RecommendationStore",
    "Run",
    "RunRecord",
    "RunSummary",
    "StoreError",
    "StoreUnavailable",
    "render_latest",
    "render_recommendation",
    "sqlite_url",
    "topic_scope",
]
