"""The creation plans a fleet report links to ("New topics planned"), from the store.

A creation plan (`plan_new_topic`) is a published store run of scope `topic:<name>`;
its site is published beside the fleet's, in `<report>-new-topics/<page name>/`. The
fleet report lists the most recent ones, newest first, one per topic (a topic planned
twice shows its newest plan), marks those planned since the previous fleet run, and
links to each page that is published beside it. The creation plan links back
(`planner.pipeline.tasks.creation_request`).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from planner.report.model import NewTopicLink
from planner.report.names import page_names

if TYPE_CHECKING:
    from planner.store import RecommendationStore, RunRecord

__all__ = ["new_topics_dir", "recent_creation_plans"]


def new_topics_dir(fleet_report: Path) -> Path:
    """The folder the creation plans' sites are published in, beside the fleet's site."""
    return fleet_report.parent / f"{fleet_report.name}-new-topics"


def _requested_at(run: RunRecord) -> datetime:
    request = run.source.get("request")
    at = request.get("requested_at") if isinstance(request, dict) else None
    try:
        return datetime.fromisoformat(at) if isinstance(at, str) else run.started_at
    except ValueError:
        return run.started_at


def recent_creation_plans(
    store: RecommendationStore, fleet_report: Path, *, most: int = 20
) -> tuple[NewTopicLink, ...]:
    """The `most` most recent creation plans, newest first, as the fleet report links them.

    Args:
        store: The recommendation store.
        fleet_report: The fleet report's folder (its site link), whose sibling
            `<name>-new-topics/` holds the creation plans' sites.
        most: How many plans at most.

    Returns:
        One link per topic; `since_last_run` for plans published after the store's last
        good fleet run (the previous one, while a fleet run is being published).
    """
    from planner.store import PUBLISHED
    from planner.store.records import TOPIC_SCOPE_PREFIX

    plans = sorted(
        (
            r
            for r in store.runs()
            if r.status == PUBLISHED and r.scope.startswith(TOPIC_SCOPE_PREFIX)
        ),
        key=lambda r: r.finished_at,
        reverse=True,
    )
    last_fleet = store.last_good_run()
    folder = new_topics_dir(fleet_report)
    out: list[NewTopicLink] = []
    seen: set[str] = set()
    for run in plans:
        topic = run.scope.removeprefix(TOPIC_SCOPE_PREFIX)
        if topic in seen:
            continue
        seen.add(topic)
        rows = [r for r in store.recommendations(run.key, scope=run.scope) if r.topic == topic]
        page = page_names([topic])[topic]
        site = page.removesuffix(".html")
        published = (folder / site / "topics" / page).is_file()
        out.append(
            NewTopicLink(
                topic=topic,
                requested_at=_requested_at(run),
                partitions=rows[0].recommended_partitions if rows else None,
                status=rows[0].status if rows else "missing",
                href=f"../{quote(folder.name)}/{quote(site)}/topics/{quote(page)}"
                if published
                else None,
                since_last_run=last_fleet is None or run.finished_at > last_fleet.finished_at,
            )
        )
        if len(out) >= most:
            break
    return tuple(out)
