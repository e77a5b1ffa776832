"""Where a pipeline run reads and writes: one object, built once from the config.

    figures/                      the canonical figures dataset (collection writes it)
    work/datasets/<dataset>/run=<key>/   the Spark jobs' outputs (sizing, simulations,
                                  recommendations), replaced whole per run
    work/runs/<key>/              what one run's validations found, for the publish step
    store                         the recommendation store (a SQLAlchemy URL)
    report -> report.releases/... the published site (a symbolic link switched per publish)
    recommendations.json          beside the site: a link to report/recommendations.json

Every step of the pipeline (the `plan` command, each Airflow task, each Spark
submission) builds the same `Workspace` from the same config, so they agree on every
path without passing them around.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from planner.config import PlannerConfig
from planner.store.store import sqlite_url

__all__ = ["Workspace"]


@dataclass(frozen=True)
class Workspace:
    """The folders and the store one pipeline run uses.

    Attributes:
        figures: The figures dataset folder.
        work: The Spark datasets and the per-run state.
        report: The published site's path (a symbolic link the publish step manages).
        store_url: SQLAlchemy URL of the recommendation store (may hold a password).
    """

    figures: Path
    work: Path
    report: Path
    store_url: str = field(repr=False)

    @classmethod
    def from_config(cls, config: PlannerConfig) -> Workspace:
        """The configured folders and store."""
        return cls(
            figures=config.figures_root,
            work=config.work_dir,
            report=config.report_dir,
            store_url=config.store_url,
        )

    @classmethod
    def under(cls, out: str | Path, *, store_url: str | None = None) -> Workspace:
        """Everything under one folder (the `plan --out DIR` layout).

        Args:
            out: The folder.
            store_url: A store elsewhere; default a SQLite file `OUT/store.db`.
        """
        root = Path(out).absolute()
        return cls(
            figures=root / "figures",
            work=root / "work",
            report=root / "report",
            store_url=store_url or sqlite_url(root / "store.db"),
        )

    @property
    def datasets(self) -> Path:
        """The Spark jobs' `--out` folder."""
        return self.work / "datasets"

    def run_state(self, run_key: str) -> Path:
        """The folder holding what run `run_key`'s steps hand each other."""
        return self.work / "runs" / run_key

    @property
    def recommendations_json(self) -> Path:
        """`recommendations.json` beside the site (a link into the current release)."""
        return self.report.parent / "recommendations.json"
