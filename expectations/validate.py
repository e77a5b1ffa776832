"""Validate a Spark DataFrame against a suite, and say plainly what failed.

`validate(df, "topics.input", broker_count=3)` runs the suite through Great Expectations
1.x directly (an ephemeral context, a Spark data source, one whole-DataFrame batch) and
returns a `ValidationReport`: success, one `Outcome` per expectation in the suite's
order, and `message()`, the text the pipeline prints when it stops: the suite, each
failed expectation with its rule in words, and example bad rows (named by the dataset's
row key, e.g. topic and ts) or values.

Why these choices:

- Spark only. Several rules are Spark SQL queries (`UnexpectedRowsExpectation`), which GX
  runs on Spark and SQL engines but not on pandas, and the finite-number rules rely on
  Spark ordering NaN above every double, where pandas treats NaN as missing. A pandas
  frame is refused with a clear error instead of being validated by different rules.
- GX's result order does not follow the suite; results are matched back by expectation
  type and target (the column, the columns, or a query rule's name), which
  `expectations.catalog` keeps unique per suite.
- The DataFrame is persisted for the validation and unpersisted after (GX would persist
  it and never let go); a frame the caller already cached is left as it was.
- A good dataset pays for counts only: column rules run with GX's BOOLEAN_ONLY format,
  and only the ones that failed run again for example rows (see `_run`).
- GX registers each batch as the Spark temp view `tmp_view` for query rules, so two
  validations must not run at once on one SparkSession.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from expectations.catalog import SUITES, build_suite, suite_parameters
from expectations.rules import TOPIC_REGEX, target
from planner.observe.settings import DEFAULT_MIN_COVERAGE

__all__ = [
    "Outcome",
    "ValidationFailed",
    "ValidationReport",
    "gx_context",
    "quiet_gx_logging",
    "validate",
]

_QUERY_TYPE = "unexpected_rows_expectation"
_MAX_EXAMPLE_CHARS = 160
#: Suite parameters the suites use, with the smallest value that makes sense.
_PARAMETER_MINIMUM: Mapping[str, int] = {"broker_count": 1, "min_coverage": 0}
#: Suite parameters that have a default: the config's own (`[sources.kafka] min_coverage`).
_PARAMETER_DEFAULT: Mapping[str, float] = {"min_coverage": DEFAULT_MIN_COVERAGE}


class ValidationFailed(RuntimeError):
    """A dataset failed its suite; `report` has the details, `str()` the message."""

    def __init__(self, report: ValidationReport) -> None:
        super().__init__(report.message())
        self.report = report


@dataclass(frozen=True)
class Outcome:
    """The result of one expectation.

    Attributes:
        expectation_type: GX's snake-case name, e.g. `expect_column_values_to_be_between`.
        target: What it checks: a column, `A,B`, `a,b,c`, a query rule name, or `table`.
        description: The rule in plain words.
        success: Whether the data met it.
        unexpected_count: Rows that broke it (None for table-level expectations).
        element_count: Rows it looked at (None where GX does not say).
        examples: Some bad rows (dicts keyed by column) or values, or what was observed.
        error: Why GX could not evaluate it (a missing column, a bad query), else None.
        level: What a failure does, for an input suite: `row` (the bad rows' topics are
            set aside) or `run` (the run stops); None for an output suite, all of
            whose failures stop a publish (`expectations.inputs.level_of`).
    """

    expectation_type: str
    target: str
    description: str
    success: bool
    unexpected_count: int | None = None
    element_count: int | None = None
    examples: tuple[Any, ...] = ()
    error: str | None = None
    level: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        """`(expectation_type, target)`: how the report finds this outcome."""
        return (self.expectation_type, self.target)

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics named by the example rows, in order, without repeats."""
        seen: dict[str, None] = {}
        for example in self.examples:
            if isinstance(example, Mapping) and isinstance(example.get("topic"), str):
                seen.setdefault(example["topic"], None)
        return tuple(seen)

    def line(self) -> str:
        """One line for the failure message."""
        head = f"{self.expectation_type} on {self.target}: {self.description}"
        if self.error is not None:
            first = self.error.strip().splitlines()[0] if self.error.strip() else "unknown error"
            return f"{head}: could not be evaluated: {_cut(first)}"
        if self.unexpected_count is not None:
            total = self.unexpected_count if self.element_count is None else self.element_count
            rows = "row" if total == 1 else "rows"
            of = f" of {self.element_count:,}" if self.element_count is not None else ""
            count = f"{self.unexpected_count:,}{of} {rows}"
        else:
            count = "failed"
        shown = ", ".join(_show(e) for e in self.examples)
        return f"{head}: {count}" + (f", e.g. {shown}" if shown else "")


@dataclass(frozen=True)
class ValidationReport:
    """What validating one dataset against one suite found.

    Attributes:
        suite_name: The suite, `<dataset>.<layer>`.
        success: Every expectation was met.
        outcomes: One per expectation, in the suite's order.
        parameters: The suite parameters the run used (e.g. `broker_count`).
        seconds: Wall time of the validation, seconds.
        gx_result: GX's `ExpectationSuiteValidationResult`, for Data Docs.
    """

    suite_name: str
    success: bool
    outcomes: tuple[Outcome, ...]
    parameters: Mapping[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    gx_result: Any = field(default=None, repr=False, compare=False)

    def __getitem__(self, key: tuple[str, str]) -> Outcome:
        """The outcome of `(expectation_type, target)`, e.g.
        `report["expect_column_values_to_be_unique", "topic"]`."""
        for outcome in self.outcomes:
            if outcome.key == key:
                return outcome
        known = ", ".join(f"{t}/{c}" for t, c in (o.key for o in self.outcomes))
        raise KeyError(f"suite {self.suite_name} has no {key[0]} on {key[1]}; it has {known}")

    @property
    def failures(self) -> tuple[Outcome, ...]:
        """The outcomes that did not succeed, in suite order."""
        return tuple(o for o in self.outcomes if not o.success)

    @property
    def topics(self) -> tuple[str, ...]:
        """Topics named by the failures' example rows, without repeats."""
        seen: dict[str, None] = {}
        for outcome in self.failures:
            for topic in outcome.topics:
                seen.setdefault(topic, None)
        return tuple(seen)

    def message(self) -> str:
        """The failure message: suite, failed expectations with examples, topics involved."""
        if self.success:
            return f"suite {self.suite_name}: all {len(self.outcomes)} expectations met"
        failures = self.failures
        lines = [
            f"suite {self.suite_name} failed {len(failures)} of {len(self.outcomes)} "
            f"expectations"
            + (f" (with {_show_parameters(self.parameters)})" if self.parameters else "")
            + ":"
        ]
        lines.extend(
            f"  - {o.line()}" + (f" [{o.level}-level]" if o.level else "") for o in failures
        )
        if self.topics:
            lines.append(f"  topics involved: {', '.join(_show_topic(t) for t in self.topics)}")
        return "\n".join(lines)

    def raise_for_failure(self) -> None:
        """Raise `ValidationFailed` unless every expectation was met."""
        if not self.success:
            raise ValidationFailed(self)

    def summary(self) -> dict[str, Any]:
        """A JSON-ready summary (for a run record): counts, parameters, the failures."""
        return {
            "suite": self.suite_name,
            "success": self.success,
            "evaluated": len(self.outcomes),
            "failed": len(self.failures),
            "seconds": round(self.seconds, 3),
            "parameters": dict(self.parameters),
            "failures": [
                {
                    "expectation_type": o.expectation_type,
                    "target": o.target,
                    "description": o.description,
                    "unexpected_count": o.unexpected_count,
                    "examples": [_show(e) for e in o.examples],
                    "error": o.error,
                    "level": o.level,
                }
                for o in self.failures
            ],
        }


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_EXAMPLE_CHARS else text[: _MAX_EXAMPLE_CHARS - 3] + "..."


def _show_topic(topic: str) -> str:
    """A legal topic name as it is; anything else quoted, so it stays on its line."""
    return topic if re.fullmatch(TOPIC_REGEX, topic) else _cut(repr(topic))


def _show_value(value: Any) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return repr(value)


def _show(example: Any) -> str:
    """An example row or value as short text (a hostile topic name stays one quoted line)."""
    if isinstance(example, Mapping):
        text = "{" + ", ".join(f"{k}: {_show_value(v)}" for k, v in example.items()) + "}"
    elif isinstance(example, tuple):
        text = "(" + ", ".join(_show_value(v) for v in example) + ")"
    else:
        text = _show_value(example)
    return _cut(text)


def _show_parameters(parameters: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in parameters.items())


def quiet_gx_logging() -> None:
    """Mute Great Expectations' INFO logging (its warnings stay), then import it."""
    # GX logs about 200 INFO lines on import and per validation: mute them before the
    # import. One GX module (data_context.types.base) sets its own logger to INFO on
    # import, past its parents' level, so loggers that did so are lowered after it too.
    logger = logging.getLogger("great_expectations")
    if logger.level == logging.NOTSET or logger.level < logging.WARNING:
        logger.setLevel(logging.WARNING)
    import great_expectations  # noqa: F401

    for name, child in list(logging.Logger.manager.loggerDict.items()):
        if (
            name.startswith("great_expectations.")
            and isinstance(child, logging.Logger)
            and logging.NOTSET < child.level < logging.WARNING
        ):
            child.setLevel(logging.WARNING)


def gx_context() -> Any:
    """A fresh ephemeral GX data context, quiet: progress bars off, INFO logs muted.

    Its stores are in memory and it has no Data Docs site of its own (GX's default
    ephemeral context makes one in a temporary folder): `expectations.docs` adds one
    where it is asked to.
    """
    quiet_gx_logging()
    import great_expectations as gx
    from great_expectations.data_context.types.base import (
        DataContextConfig,
        InMemoryStoreBackendDefaults,
        ProgressBarsConfig,
    )

    config = DataContextConfig(
        store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
        progress_bars=ProgressBarsConfig(globally=False),
        analytics_enabled=False,
    )
    return gx.get_context(mode="ephemeral", project_config=config)


def _is_pandas(df: Any, suite_name: str) -> bool:
    """Whether `df` is a pandas frame (for an observation suite) or Spark's."""
    kind = f"{type(df).__module__}.{type(df).__qualname__}"
    # The observation suites are written for pandas; the others rely on Spark's SQL and
    # its NaN ordering (expectations.rules), which pandas does not share.
    if kind == "pandas.core.frame.DataFrame" and suite_name.endswith(".observed"):
        return True
    try:
        from pyspark.sql import DataFrame
    except ImportError as exc:  # pragma: no cover - pyspark is a pipeline dependency
        raise TypeError(f"validating {suite_name} needs pyspark, which is not installed") from exc
    if not isinstance(df, DataFrame):
        raise TypeError(
            f"validate({suite_name!r}) takes a Spark DataFrame, got {kind}; the suites' "
            "query rules and NaN checks are Spark semantics (convert with "
            "spark.createDataFrame first)"
        )
    return False


def _check_parameters(suite_name: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    wanted = suite_parameters(suite_name)
    parameters = {**parameters}
    for name, value in _PARAMETER_DEFAULT.items():
        if name in wanted:
            parameters.setdefault(name, value)
    missing = [p for p in wanted if p not in parameters]
    unknown = [p for p in parameters if p not in wanted]
    if missing or unknown:
        parts = []
        if missing:
            parts.append(f"missing {', '.join(missing)}")
        if unknown:
            parts.append(f"unknown {', '.join(unknown)}")
        takes = ", ".join(wanted) or "none"
        raise ValueError(f"suite {suite_name}: parameters {'; '.join(parts)} (it takes: {takes})")
    checked: dict[str, Any] = {}
    for name, value in parameters.items():
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise ValueError(
                f"suite {suite_name}: parameter {name} must be a number, got {value!r}"
            )
        minimum = _PARAMETER_MINIMUM.get(name)
        if minimum is not None and value < minimum:
            raise ValueError(
                f"suite {suite_name}: parameter {name} must be at least {minimum}, got {value!r}"
                + (" (is the cluster table empty?)" if name == "broker_count" else "")
            )
        checked[name] = value
    return checked


def _result_format(row_key: Sequence[str], columns: Iterable[str], examples: int) -> dict[str, Any]:
    result_format: dict[str, Any] = {
        "result_format": "SUMMARY",
        "partial_unexpected_count": examples,
    }
    present = set(columns)
    if row_key and all(c in present for c in row_key):
        # Each bad row is then reported with its key (e.g. topic, ts) beside the value.
        result_format["unexpected_index_column_names"] = list(row_key)
    return result_format


def _examples(result: Mapping[str, Any], examples: int) -> tuple[Any, ...]:
    indexed = result.get("partial_unexpected_index_list")
    if indexed:
        return tuple(dict(row) for row in indexed[:examples])
    partial = result.get("partial_unexpected_list")
    if partial:
        return tuple(partial[:examples])
    details = result.get("details")
    if isinstance(details, Mapping) and "mismatched" in details:
        return (dict(details["mismatched"]),)
    if "observed_value" in result:
        return ({"observed": result["observed_value"]},)
    return ()


def _error_of(gx_outcome: Any) -> str | None:
    """GX's reason when it could not evaluate an expectation, else None."""
    info = gx_outcome.exception_info or {}
    if info.get("raised_exception"):
        return str(info.get("exception_message") or "an exception in Great Expectations")
    # Metric errors come keyed by the metric that failed, one dict each.
    for value in info.values():
        if isinstance(value, Mapping) and value.get("raised_exception"):
            return str(value.get("exception_message") or "a metric could not be computed")
    return None


def _outcome(config: Any, gx_outcome: Any, examples: int) -> Outcome:
    kwargs = dict(config.kwargs)
    result: Mapping[str, Any] = gx_outcome.result or {}
    error = _error_of(gx_outcome)
    if config.type == _QUERY_TYPE:
        unexpected = result.get("observed_value")
        rows = (result.get("details") or {}).get("unexpected_rows") or ()
        found: tuple[Any, ...] = tuple(dict(r) for r in rows[:examples])
        element = None
    else:
        unexpected = result.get("unexpected_count")
        element = result.get("element_count")
        found = () if gx_outcome.success else _examples(result, examples)
    return Outcome(
        expectation_type=config.type,
        target=target(config.type, kwargs, config.meta),
        description=config.description or config.type,
        success=bool(gx_outcome.success) and error is None,
        unexpected_count=None if unexpected is None else int(unexpected),
        element_count=None if element is None else int(element),
        examples=found,
        error=error,
        level=(config.meta or {}).get("level"),
    )


def validate(
    df: Any, suite_name: str, *, examples: int = 5, persist: bool = True, **parameters: Any
) -> ValidationReport:
    """Validate a Spark DataFrame (or, for an observation suite, a pandas one) against
    the suite called `suite_name`.

    Args:
        df: The dataset, a `pyspark.sql.DataFrame`; a `pandas.DataFrame` for the
            observation suites (`expectations.observed`).
        suite_name: A suite from `expectations.catalog.SUITES`, e.g. `throughput.input`.
        examples: How many bad rows or values each failed expectation shows.
        persist: Keep the frame in Spark's cache (memory, then disk) while the suite's
            queries run, so a computed frame is computed once; a frame the caller
            already cached is left as it is either way.
        **parameters: The suite's parameters: `topics.input` takes `broker_count` (the
            rows of the run's `cluster` table, >= 1).

    Returns:
        The report; call `raise_for_failure()` to stop on a failure.

    Raises:
        KeyError: no such suite.
        TypeError: `df` is neither a Spark DataFrame nor, for an observation suite, a
            pandas one.
        ValueError: a parameter is missing, unknown or out of range.
    """
    spec = SUITES.get(suite_name)
    if spec is None:
        raise KeyError(f"no suite called {suite_name!r}; suites: {', '.join(SUITES)}")
    pandas = _is_pandas(df, suite_name)
    checked = _check_parameters(suite_name, parameters)
    started = time.perf_counter()
    context = gx_context()
    suite = build_suite(suite_name)
    if pandas:
        source = context.data_sources.add_pandas(name="planner")
    else:
        source = context.data_sources.add_spark(name="planner", persist=False)
    asset = source.add_dataframe_asset(name=suite_name.split(".")[0])
    batch_definition = asset.add_batch_definition_whole_dataframe("whole")
    columns = list(df.columns)
    if pandas:
        batch = batch_definition.get_batch(batch_parameters={"dataframe": df})
        result = _run(batch, suite, spec.row_key, columns, examples, checked)
    else:
        from pyspark import StorageLevel

        we_persisted = persist and df.storageLevel == StorageLevel(False, False, False, False)
        if we_persisted:
            df.persist(StorageLevel.MEMORY_AND_DISK)
        try:
            batch = batch_definition.get_batch(batch_parameters={"dataframe": df})
            result = _run(batch, suite, spec.row_key, columns, examples, checked)
        finally:
            if we_persisted:
                df.unpersist()
    outcomes = [
        _outcome(e.configuration, r, examples)
        for e, r in zip(suite.expectations, result.results, strict=True)
    ]
    return ValidationReport(
        suite_name=suite_name,
        success=all(o.success for o in outcomes),
        outcomes=tuple(outcomes),
        parameters=checked,
        seconds=time.perf_counter() - started,
        gx_result=result,
    )


def _key(config: Any) -> tuple[str, str]:
    return (config.type, target(config.type, dict(config.kwargs), config.meta))


def _run(
    batch: Any,
    suite: Any,
    row_key: Sequence[str],
    columns: Sequence[str],
    examples: int,
    parameters: Mapping[str, Any],
) -> Any:
    """Validate `batch` against `suite`; GX's suite result, with examples for failures.

    Three steps, so that a good dataset pays for nothing it does not need:

    1. Column and table rules together with the BOOLEAN_ONLY format: counts only, no
       example rows fetched.
    2. Query rules together with COMPLETE: GX fetches up to 200 rows of each query
       whatever the format, and COMPLETE is the one that returns them.
    3. Only if some column rule failed: those again, with SUMMARY and the row key as
       index columns, for example values and the rows they are in. Rules GX could not
       evaluate (a missing column) are not retried.

    The results are put back in the suite's order in the first result, whose statistics
    are recomputed, so Data Docs show one validation with the examples.
    """
    import great_expectations as gx

    def sub_suite(expectations: list[Any]) -> Any:
        copies = [e.copy(update={"id": None}) for e in expectations]
        return gx.ExpectationSuite(name=suite.name, expectations=copies)

    values = dict(parameters) or None
    plain = [e for e in suite.expectations if e.expectation_type != _QUERY_TYPE]
    queries = [e for e in suite.expectations if e.expectation_type == _QUERY_TYPE]
    result = batch.validate(
        sub_suite(plain), result_format="BOOLEAN_ONLY", expectation_parameters=values
    )
    found = {_key(r.expectation_config): r for r in result.results}
    if queries:
        asked = batch.validate(
            sub_suite(queries), result_format="COMPLETE", expectation_parameters=values
        )
        found.update({_key(r.expectation_config): r for r in asked.results})
    failed = [
        e
        for e in plain
        if not found[_key(e.configuration)].success
        and _error_of(found[_key(e.configuration)]) is None
    ]
    if failed:
        detail = batch.validate(
            sub_suite(failed),
            result_format=_result_format(row_key, columns, examples),
            expectation_parameters=values,
        )
        found.update({_key(r.expectation_config): r for r in detail.results})
    result.results = [found[_key(e.configuration)] for e in suite.expectations]
    met = sum(1 for r in result.results if r.success)
    result.success = met == len(result.results)
    result.statistics = {
        "evaluated_expectations": len(result.results),
        "successful_expectations": met,
        "unsuccessful_expectations": len(result.results) - met,
        "success_percent": 100.0 * met / len(result.results) if result.results else None,
    }
    return result
