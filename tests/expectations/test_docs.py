"""GX Data Docs for a run: built from real validations, written whole into a folder."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from expectations.docs import build_data_docs
from expectations.validate import ValidationReport, validate
from tests.expectations.conftest import figures_frame

# Each module starts a Spark session (about 10 s) before its first validation.
pytestmark = pytest.mark.slow

RUN_TIME = datetime(2026, 11, 22, 1, 30, tzinfo=UTC)


@pytest.fixture(scope="module")
def reports(spark: Any) -> list[ValidationReport]:
    topics = figures_frame(
        spark,
        "topics",
        [{"topic": "orders", "partitions": 12, "replication_factor": 3, "keyed": True}],
    )
    groups = figures_frame(
        spark,
        "groups",
        [
            {"group_id": "billing", "topic": "orders", "strategy": "range", "members": 2},
            {"group_id": "billing", "topic": "payments", "strategy": "sticky", "members": 2},
        ],
    )
    return [
        validate(topics, "topics.input", broker_count=3),
        validate(groups, "groups.input"),
    ]


def test_data_docs_name_the_suites_and_their_validations(
    reports: list[ValidationReport], tmp_path: Path
) -> None:

    assert [r.success for r in reports] == [True, False]
    site = tmp_path / "report" / "validation"
    index = build_data_docs(reports, site, run_name="20261121T0000Z", run_time=RUN_TIME)
    assert index == site / "index.html"
    html = index.read_text(encoding="utf-8")
    assert "topics.input" in html and "groups.input" in html
    assert (site / "expectations" / "topics" / "input.html").is_file()
    pages = sorted(p.relative_to(site).as_posix() for p in site.glob("validations/**/*.html"))
    assert pages == [
        "validations/groups/input/20261121T0000Z/20261122T013000.000000Z/groups.html",
        "validations/topics/input/20261121T0000Z/20261122T013000.000000Z/topics.html",
    ]
    failed = " ".join(re.sub(r"<[^>]+>", " ", (site / pages[0]).read_text("utf-8")).split())
    # The run, the count, and the failed rule in the words of its description.
    assert "Run Name 20261121T0000Z" in failed
    assert "Unsuccessful Expectations 1 " in failed
    assert "each consumer group has one protocol and one assignor across its topics 1" in failed
    # Nothing is left beside the site: it was built aside and renamed into place.
    assert sorted(p.name for p in site.parent.iterdir()) == ["validation"]


def test_a_rebuild_replaces_the_site_whole(reports: list[ValidationReport], tmp_path: Path) -> None:
    site = tmp_path / "validation"
    build_data_docs(reports, site, run_name="first", run_time=RUN_TIME)
    build_data_docs(reports[:1], site, run_name="second", run_time=RUN_TIME)
    html = (site / "index.html").read_text(encoding="utf-8")
    assert "topics.input" in html and "groups.input" not in html
    assert not list(site.glob("validations/**/first/**/*.html"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["validation"]


def test_bad_arguments_are_refused(reports: list[ValidationReport], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least one"):
        build_data_docs([], tmp_path / "site", run_name="r")
    with pytest.raises(ValueError, match=r"given twice: topics\.input"):
        build_data_docs([reports[0], reports[0]], tmp_path / "site", run_name="r")
    bare = ValidationReport(suite_name="keys.input", success=True, outcomes=())
    with pytest.raises(ValueError, match=r"keys\.input report carries no GX result"):
        build_data_docs([bare], tmp_path / "site", run_name="r")
    assert not (tmp_path / "site").exists()
