"""Great Expectations Data Docs for one run: the suites and what each validation found.

GX 1.x builds Data Docs from the suites and validation results held in a context's
stores. An ephemeral context can do it: its stores are in memory, and a Data Docs site
added to it writes static HTML through a file-system store backend. So a run's reports
go into a fresh ephemeral context, and its site is written to a staging folder beside
the target and renamed into place, so a reader never sees a half-built site.

The pages load GX's styles and scripts from public CDNs (jsDelivr, cdnjs, unpkg); offline
they show their content without styling.
"""

from __future__ import annotations

import copy
import shutil
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from expectations.catalog import build_suite
from expectations.validate import gx_context

if TYPE_CHECKING:
    from expectations.validate import ValidationReport

__all__ = ["build_data_docs"]

_SITE = "planner"


def build_data_docs(
    reports: Sequence[ValidationReport],
    out_dir: Path | str,
    *,
    run_name: str,
    run_time: datetime | None = None,
) -> Path:
    """Write the Data Docs site of a run's validations to `out_dir`, replacing it whole.

    Args:
        reports: The run's validation reports (each suite at most once).
        out_dir: The site's folder; created, or replaced if it exists.
        run_name: The run's name in the site, e.g. its data interval
            `20261121T0000Z`.
        run_time: When the run happened (UTC; default now). GX files each validation
            under it.

    Returns:
        The site's `index.html`.

    Raises:
        ValueError: no reports, a suite given twice, or a report without its GX result.
    """
    if not reports:
        raise ValueError("build_data_docs needs at least one validation report")
    names = [r.suite_name for r in reports]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"one report per suite in a run; given twice: {', '.join(twice)}")
    for report in reports:
        if report.gx_result is None:
            raise ValueError(f"the {report.suite_name} report carries no GX result to render")

    from great_expectations.core.run_identifier import RunIdentifier
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
        ValidationResultIdentifier,
    )

    target = Path(out_dir).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        context = gx_context()
        context.add_data_docs_site(
            _SITE,
            {
                "class_name": "SiteBuilder",
                "store_backend": {
                    "class_name": "TupleFilesystemStoreBackend",
                    "base_directory": str(staging),
                },
                "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            },
        )
        run_id = RunIdentifier(run_name=run_name, run_time=run_time or datetime.now(UTC))
        for report in reports:
            context.suites.add(build_suite(report.suite_name))
            key = ValidationResultIdentifier(
                expectation_suite_identifier=ExpectationSuiteIdentifier(name=report.suite_name),
                run_id=run_id,
                batch_identifier=report.suite_name.split(".")[0],
            )
            result = copy.deepcopy(report.gx_result)
            # What `ValidationDefinition.run` would add; the site shows them as the run.
            result.meta["run_id"] = run_id
            result.meta["validation_time"] = run_id.run_time
            context.validation_results_store.set(key, result)
        context.build_data_docs(site_names=[_SITE])
        if not (staging / "index.html").is_file():
            raise RuntimeError(f"Great Expectations wrote no index.html in {staging}")
        staging.chmod(0o755)
        if target.exists():
            # Move the old site aside first so the new one goes in with one rename.
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            target.rename(old / target.name)
            staging.rename(target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target / "index.html"
