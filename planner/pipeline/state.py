"""What one run's validation steps hand the publish step: results and fingerprints.

Each validation writes `work/runs/<key>/<stage>.json` (stage `inputs` or `outputs`)
atomically: whether every suite passed, the failure message, each suite's summary and
GX result (the publish step builds the Data Docs from them, in another process), and a
fingerprint of exactly what was validated (SHA-256 of each file).

The publish step refuses to publish unless both stages passed for this run and the
files it is about to publish are still the ones validated: a Spark job rerun after
validation, or a collection rewritten under it, makes the fingerprints differ, and the
run fails rather than publishing something nobody checked.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from planner.files import write_json_whole

__all__ = [
    "STAGES",
    "StageResult",
    "clear_stages",
    "dataset_files",
    "fingerprint",
    "load_stage",
    "save_stage",
]

#: The validation stages, in pipeline order.
STAGES = ("inputs", "outputs")


@dataclass(frozen=True)
class StageResult:
    """One validation stage of one run.

    Attributes:
        stage: `inputs` or `outputs`.
        run_key: The run (data interval key).
        success: Every suite of the stage passed.
        message: The failure message (suites, expectations, example rows, topics), or a
            one-line summary when everything passed.
        suites: Each suite's `ValidationReport.summary()`, in validation order.
        gx_results: Each suite's GX result as JSON, by suite name (for Data Docs).
        fingerprint: SHA-256 of every file validated, by path relative to `root`.
        root: The folder the fingerprint's paths were relative to when validated (for
            the record: the publish step compares relative paths, so a workspace
            moved whole still publishes).
        finished_at: When the stage finished, UTC, ISO 8601.
        set_aside: For a passed inputs stage, what row-level failures set aside
            (`SetAside.summary()`: counts and the topics); empty otherwise.
    """

    stage: str
    run_key: str
    success: bool
    message: str
    suites: tuple[Mapping[str, Any], ...] = ()
    gx_results: Mapping[str, Any] = field(default_factory=dict, repr=False)
    fingerprint: Mapping[str, str] = field(default_factory=dict, repr=False)
    root: str = ""
    finished_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())
    set_aside: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, got {self.stage!r}")

    def summary(self) -> dict[str, Any]:
        """The stage for the store's run record: success, each suite's summary, and what
        was set aside (counted)."""
        out: dict[str, Any] = {"success": self.success, "suites": [dict(s) for s in self.suites]}
        if self.set_aside:
            out["set_aside"] = dict(self.set_aside)
        return out


def _path(state_dir: Path, stage: str) -> Path:
    return state_dir / f"{stage}.json"


def _json_safe(value: Any) -> Any:
    """`value` with every NaN or infinite float as its text (`nan`, `inf`, `-inf`).

    A failed input suite's examples are the bad values themselves, and JSON has no NaN
    or infinity: written as numbers, the file would not be JSON.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Mapping):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def save_stage(state_dir: str | Path, result: StageResult) -> Path:
    """Write a stage's result into the run's state folder, replacing an earlier one whole."""
    # A writer killed before its rename left its temporary file, which the next write
    # removes: one run's validations never overlap (a DAG runs one at a time, a
    # backfill's runs are other intervals).
    document = {
        "stage": result.stage,
        "run_key": result.run_key,
        "success": result.success,
        "message": result.message,
        "suites": [dict(s) for s in result.suites],
        "gx_results": dict(result.gx_results),
        "fingerprint": dict(result.fingerprint),
        "root": result.root,
        "finished_at": result.finished_at,
        "set_aside": dict(result.set_aside),
    }
    return write_json_whole(_path(Path(state_dir), result.stage), _json_safe(document), default=str)


def load_stage(state_dir: str | Path, stage: str) -> StageResult | None:
    """A stage's saved result (None: the stage has not run for this run)."""
    path = _path(Path(state_dir), stage)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    return StageResult(
        stage=document["stage"],
        run_key=document["run_key"],
        success=bool(document["success"]),
        message=str(document["message"]),
        suites=tuple(document.get("suites", ())),
        gx_results=document.get("gx_results", {}),
        fingerprint=document.get("fingerprint", {}),
        root=document.get("root", ""),
        finished_at=document.get("finished_at", ""),
        set_aside=document.get("set_aside", {}),
    )


def clear_stages(state_dir: str | Path) -> None:
    """Forget a run's earlier validations, and what they set aside (a new attempt of the
    run starts)."""
    from planner.figures.set_aside import FILE

    for stage in STAGES:
        _path(Path(state_dir), stage).unlink(missing_ok=True)
    (Path(state_dir) / FILE).unlink(missing_ok=True)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fingerprint(files: Iterable[Path], root: Path) -> dict[str, str]:
    """SHA-256 of each file, by its path relative to `root`, sorted by path."""
    root = Path(root)
    out = {str(Path(f).relative_to(root)): _sha256(Path(f)) for f in files}
    return dict(sorted(out.items()))


def dataset_files(folder: Path) -> list[Path]:
    """The data files of a folder written by Spark or the figures writer (no hidden ones)."""
    return sorted(
        p
        for p in Path(folder).rglob("*")
        if p.is_file() and not any(part.startswith((".", "_")) for part in p.parts[-1:])
    )
