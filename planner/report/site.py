"""The whole site: every file's path and bytes, and writing them into a folder.

`iter_site` is pure (no I/O): it yields `(relative path, bytes)` one file at a time, so
a fleet of ten thousand topics never sits in memory at once. `render_site` writes
those files into an empty folder. Writing into a folder is not atomic; publish with
`planner.report.publish.publish_site`, which renders into a fresh folder and switches
readers over in one rename.

Layout:

    index.html              the fleet at a glance and the topic table
    topics/<name>.html      one page per topic (names: planner.report.names)
    recommendations.json    one object per topic, for machines
    summary.md              for a ticket or a chat
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from planner.report.exports import recommendations, summary_markdown
from planner.report.index_page import index_page
from planner.report.model import FleetReport
from planner.report.names import page_names
from planner.report.topic_page import topic_page

__all__ = ["iter_site", "render_site"]


def _utf8(text: str) -> bytes:
    # Model strings are valid Unicode except, in theory, lone surrogates from badly
    # decoded bytes; those become U+FFFD rather than failing the whole publish.
    return text.encode("utf-8", "replace")


def iter_site(report: FleetReport) -> Iterator[tuple[str, bytes]]:
    """Every file of the site as `(POSIX path relative to the root, content)`.

    Topic pages come first and the index after them, so that even a plain, non-atomic
    write never shows an index linking to pages not written yet.
    """
    pages = page_names(t.topic for t in report.topics)
    for t in report.topics:
        yield f"topics/{pages[t.topic]}", _utf8(topic_page(t, report, pages))
    records = recommendations(report, pages)
    yield (
        "recommendations.json",
        _utf8(json.dumps(records, indent=2, ensure_ascii=False, allow_nan=False) + "\n"),
    )
    yield "summary.md", _utf8(summary_markdown(report))
    yield "index.html", _utf8(index_page(report, pages))


def render_site(report: FleetReport, out_dir: Path) -> None:
    """Write the site into `out_dir`, which must be missing or empty.

    An empty folder is required so that no page of an earlier report survives beside
    the new ones.

    Raises:
        FileExistsError: `out_dir` exists and is not an empty folder.
    """
    out_dir = Path(out_dir)
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise FileExistsError(f"{out_dir}: the report folder must be missing or empty")
    (out_dir / "topics").mkdir(parents=True, exist_ok=True)
    for relative, content in iter_site(report):
        (out_dir / relative).write_bytes(content)
