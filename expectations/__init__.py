"""Great Expectations suites for the figures going in and the recommendations coming out.

- `validate(df, "throughput.input")` checks a Spark DataFrame against a suite and returns
  a `ValidationReport` (`raise_for_failure()` stops a run with the message).
- `build_data_docs(reports, out_dir, run_name=...)` writes GX Data Docs for a run.
- `SUITES` names every suite (`<dataset>.input` for the figures tables, `<dataset>.output`
  for the Spark jobs' datasets); `build_suite(name)` builds one from its Python builder;
  `expectations/suites/*.json` is their reviewed export (`python -m expectations.export`).

See docs/validation.md. Great Expectations and PySpark are imported only when a suite is
built or run, so importing this package is cheap.
"""

from expectations.catalog import SUITES, build_suite, suite_parameters
from expectations.docs import build_data_docs
from expectations.validate import Outcome, ValidationFailed, ValidationReport, validate

__all__ = [
    "SUITES",
    "Outcome",
    "ValidationFailed",
    "ValidationReport",
    "build_data_docs",
    "build_suite",
    "suite_parameters",
    "validate",
]
