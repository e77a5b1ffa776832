"""Publish a big report from its own process, for the kill-half-way test.

    python -m tests.report.publisher REPORT.json SITE COPIES RUN_KEY

Reads a `FleetReport` from JSON, makes COPIES topics out of its first one (named
`bulk-00000`, ...), and publishes the site to SITE with `publish_site`. The test kills
this process with SIGKILL while the pages are being written.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from planner.report import FleetReport
from planner.report.publish import publish_site
from planner.report.site import render_site


def main(argv: list[str]) -> int:
    source, site, copies, run_key = Path(argv[0]), Path(argv[1]), int(argv[2]), argv[3]
    report = FleetReport.from_json_dict(json.loads(source.read_text(encoding="utf-8")))
    template = report.topics[0]
    topics = tuple(
        dataclasses.replace(template, topic=f"bulk-{i:05d}", groups=()) for i in range(copies)
    )
    big = dataclasses.replace(report, run_key=run_key, topics=topics)
    publish_site(lambda folder: render_site(big, folder), site)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
