"""What the publish step refuses, and what a killed publish leaves: always the last good
report and store rows.

Each test works on a private copy of the planned sample fleet (`planned_copy`): its
datasets, its validation results, its store and its published site.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from planner.config import load_config
from planner.pipeline.publish import NotPublishable, publish_run
from planner.pipeline.validation import ValidationStageFailed, validate_outputs
from planner.pipeline.workspace import Workspace
from planner.report.publish import releases_dir
from planner.store import RecommendationStore
from tests.pipeline.conftest import RUN_KEY, Planned

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def _state(out: Path) -> tuple[str, bytes, int | None]:
    """What readers see: the site's release, recommendations.json, the store's last run."""
    with RecommendationStore(f"sqlite:///{out / 'store.db'}") as store:
        last = store.last_good_run()
    return (
        os.readlink(out / "report"),
        (out / "recommendations.json").read_bytes(),
        None if last is None else last.id,
    )


def _recommendations_file(out: Path) -> Path:
    [path] = (out / "work" / "datasets" / "recommendations" / f"run={RUN_KEY}").glob("*.parquet")
    return path


def _undercut(path: Path) -> str:
    """Recommend one partition fewer than a topic has today; returns the topic."""
    table = pq.read_table(path)
    current = table.column("current_partitions")
    row = pc.index(pc.greater(current, 1), True).as_py()
    topic: str = table.column("topic")[row].as_py()
    recommended = table.column("recommended_partitions").to_pylist()
    recommended[row] = current[row].as_py() - 1
    index = table.schema.get_field_index("recommended_partitions")
    changed = table.set_column(index, table.schema.field(index), pa.array(recommended, pa.int32()))
    pq.write_table(changed, path)
    return topic


def _publish(out: Path) -> Any:
    return publish_run(
        Workspace.under(out),
        RUN_KEY,
        config=load_config(None),
        lookback_days=30,
        started_at=datetime.now(UTC),
        durable=False,
    )


def test_outputs_failing_their_suite_are_not_published(spark: Any, planned_copy: Planned) -> None:
    before = _state(planned_copy.out)
    topic = _undercut(_recommendations_file(planned_copy.out))

    with pytest.raises(ValidationStageFailed) as failed:
        validate_outputs(spark, Workspace.under(planned_copy.out), RUN_KEY)
    message = str(failed.value)
    assert "suite recommendations.output failed" in message
    assert "recommended_partitions" in message and "current_partitions" in message
    assert topic in message  # the topics involved are named

    with pytest.raises(NotPublishable, match="outputs failed validation"):
        _publish(planned_copy.out)
    assert _state(planned_copy.out) == before


def test_outputs_changed_after_validation_are_not_published(planned_copy: Planned) -> None:
    # The copy's outputs passed validation when the fixture planned them; rewriting one
    # afterwards (a job rerun, a hand edit) makes it unchecked.
    before = _state(planned_copy.out)
    _undercut(_recommendations_file(planned_copy.out))
    with pytest.raises(NotPublishable, match="changed after they were validated"):
        _publish(planned_copy.out)
    assert _state(planned_copy.out) == before


_PUBLISHER = """
import sys
from datetime import UTC, datetime
from planner.config import load_config
from planner.pipeline.publish import publish_run
from planner.pipeline.workspace import Workspace
publish_run(Workspace.under(sys.argv[1]), sys.argv[2], config=load_config(None),
            lookback_days=30, started_at=datetime.now(UTC))
print("published")
"""


def test_a_publish_killed_half_way_leaves_the_last_good_report_and_rows(
    planned_copy: Planned,
) -> None:
    out = planned_copy.out
    before = _state(out)
    releases = releases_dir(out / "report")
    publisher = subprocess.Popen(
        [sys.executable, "-c", _PUBLISHER, str(out), RUN_KEY],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # Kill it while it renders the new release: topic pages are there, the index (written
    # last) is not, and the store commits only after rendering.
    deadline = time.monotonic() + 120
    while len(list(releases.glob(".staging-*/topics/*.html"))) < 5:
        assert publisher.poll() is None, publisher.communicate()
        assert time.monotonic() < deadline, "the publisher never started a release"
        time.sleep(0.005)
    os.kill(publisher.pid, signal.SIGKILL)
    publisher.wait(timeout=30)
    assert publisher.returncode == -signal.SIGKILL

    assert _state(out) == before
    assert (out / "report" / "index.html").is_file()

    # The next publish cleans up after the killed one and goes through, to the same
    # answer as the undisturbed publish: the same file, the same rows.
    with RecommendationStore(f"sqlite:///{out / 'store.db'}") as store:
        rows = [r.as_row() for r in store.recommendations()]
    result = _publish(out)
    assert not list(releases.glob(".staging-*"))
    after = _state(out)
    assert after[0] != before[0] and after[2] == result.store_run_id != before[2]
    assert after[1] == before[1]  # recommendations.json, byte for byte
    with RecommendationStore(f"sqlite:///{out / 'store.db'}") as store:
        assert [r.as_row() for r in store.recommendations()] == rows
