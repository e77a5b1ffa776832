"""A validation step tells a data verdict (not retried) from a failed submission
(retried), by the stage result the validation saved during this attempt."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from planner.pipeline.state import StageResult, save_stage
from planner.pipeline.validation_operator import data_verdict

RUN = "20261120T0000Z"


def _plan(work: Path) -> dict[str, Any]:
    return {"run_key": RUN, "workspace": {"work": str(work)}}


def _saved(work: Path, *, success: bool, at: datetime) -> None:
    save_stage(
        work / "runs" / RUN,
        StageResult(
            stage="inputs",
            run_key=RUN,
            success=success,
            message="suite topics.input failed 1 of 9 expectations",
            finished_at=at.isoformat(),
        ),
    )


def test_a_failure_saved_during_the_attempt_is_the_datas_verdict(tmp_path: Path) -> None:
    started = datetime.now(UTC)
    _saved(tmp_path, success=False, at=started + timedelta(seconds=20))
    assert data_verdict(_plan(tmp_path), "inputs", started) == (
        "suite topics.input failed 1 of 9 expectations"
    )


def test_no_result_an_earlier_attempts_or_a_success_is_no_verdict(tmp_path: Path) -> None:
    started = datetime.now(UTC)
    # The submission died before the suites ran: nothing saved, a retry may help.
    assert data_verdict(_plan(tmp_path), "inputs", started) is None
    # An earlier attempt's failure says nothing of this one.
    _saved(tmp_path, success=False, at=started - timedelta(seconds=1))
    assert data_verdict(_plan(tmp_path), "inputs", started) is None
    # The suites passed and something after them failed.
    _saved(tmp_path, success=True, at=started + timedelta(seconds=5))
    assert data_verdict(_plan(tmp_path), "inputs", started) is None
    # Another stage's failure is not this stage's.
    assert data_verdict(_plan(tmp_path), "outputs", started) is None
