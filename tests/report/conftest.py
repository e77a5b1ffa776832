"""Fixtures for the report tests: fleets planned once per session, rendered sites."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from planner.report import FleetReport
from planner.report.site import render_site
from tests.report.fleets import DATA_DOCS, core_fleet, hand_fleet

# The Spark tests' one local session (started only if a test asks for it), for
# `test_from_outputs`, which runs both jobs: re-exported rather than redefined.


@pytest.fixture(scope="session")
def planned_fleet() -> FleetReport:
    """A fleet planned by the pure core, hostile names included."""
    return core_fleet()


@pytest.fixture(scope="session")
def typed_fleet() -> FleetReport:
    """A small fleet with typed-in numbers (for golden files)."""
    return hand_fleet()


@pytest.fixture(scope="session")
def rendered_site(
    planned_fleet: FleetReport, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """`planned_fleet` rendered, with a stand-in for the Data Docs published beside it."""
    site = tmp_path_factory.mktemp("site") / "report"
    render_site(planned_fleet, site)
    docs = site / DATA_DOCS
    docs.parent.mkdir(parents=True)
    docs.write_text("<!DOCTYPE html><html lang='en'><title>Data Docs</title></html>\n")
    yield site
