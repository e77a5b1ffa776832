"""A published run, read from the store or from its `recommendations.json`.

`export` and `apply` take either: `--run KEY` (or `latest`) reads the store's rows of
that fleet run, `--recommendations FILE` the file a publish wrote beside the report.
Both become the same `PlannedTopic`s (`planner.changes.read_published`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from planner.changes import PlannedTopic, PublishedPlanError, read_published

__all__ = ["LATEST", "PublishedRun", "RunNotFound", "from_file", "from_store"]

#: `--run latest`: the store's last good fleet run.
LATEST = "latest"


class RunNotFound(LookupError):
    """The run asked for is not in the store, or the file cannot be read."""


@dataclass(frozen=True)
class PublishedRun:
    """A published run's topics and where they were read from.

    Attributes:
        topics: The run's topics.
        run: Its run key (None: the file did not say).
        source: Where it was read, in words (the store's URL without its password, or
            the file's path).
    """

    topics: list[PlannedTopic]
    run: str | None
    source: str


def from_store(url: str, run: str = LATEST) -> PublishedRun:
    """The rows of a published fleet run.

    Args:
        url: The store's SQLAlchemy URL.
        run: A run key (`20261120T0000Z`) or `latest`.

    Raises:
        RunNotFound: no such published run, or none at all.
        StoreUnavailable: the store cannot be reached.
    """
    from planner.store import RecommendationStore

    with RecommendationStore(url) as store:
        key = run
        if run == LATEST:
            last = store.last_good_run()
            if last is None:
                raise RunNotFound(f"store {store.url}: no published run")
            key = last.key
        rows = store.recommendations(key)
        if not rows:
            published = [r.key for r in store.runs(limit=200) if r.status == "published"]
            shown = ", ".join(published[:10]) or "none"
            raise RunNotFound(
                f"store {store.url}: no published run {key!r} (published runs, newest "
                f"first: {shown})"
            )
        try:
            topics = read_published([r.as_row() for r in rows], run=key)
        except PublishedPlanError as exc:
            raise RunNotFound(f"store {store.url}, run {key}: {exc}") from None
        return PublishedRun(topics, key, f"store {store.url}")


def from_file(path: Path) -> PublishedRun:
    """The topics of a `recommendations.json`.

    Raises:
        RunNotFound: the file cannot be read, is not JSON, or not a list of topics.
    """
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RunNotFound(f"{path}: cannot read it as recommendations.json: {exc}") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise RunNotFound(f"{path}: not a recommendations.json (a list of topic objects)")
    try:
        topics = read_published(records)
    except PublishedPlanError as exc:
        raise RunNotFound(f"{path}: {exc}") from None
    runs = {t.run for t in topics if t.run}
    if len(runs) > 1:
        raise RunNotFound(f"{path}: topics of several runs ({', '.join(sorted(runs))})")
    return PublishedRun(topics, next(iter(runs), None), f"file {path}")
