"""Which rows broke a row-level expectation: every one of them, not GX's examples.

Great Expectations says whether a rule held and how many rows broke it, with a few
examples. Setting bad rows aside needs all of them, so this module states each
row-level expectation of the input suites as a Spark condition on the frame, read from
the expectation's own configuration (its column, bounds, pattern or set, and the suite
parameters), or, for a query rule, runs its query. The two cannot drift silently: the
caller compares the rows found here with GX's unexpected count for every column rule
that failed, and stops the run if they differ.

The conditions follow GX's Spark semantics: a null value breaks only `not_null`; a
between-check compares with Spark's ordering, in which NaN is above every double (so
"at most the largest finite double" refuses NaN and infinity, as in the suites).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

__all__ = ["broken_rows", "condition", "rule_id"]

_QUERY_TYPE = "unexpected_rows_expectation"


def _bound(value: Any, parameters: Mapping[str, Any]) -> Any:
    if isinstance(value, Mapping) and "$PARAMETER" in value:
        return parameters[str(value["$PARAMETER"])]
    return value


def condition(
    expectation_type: str, kwargs: Mapping[str, Any], parameters: Mapping[str, Any]
) -> Column:
    """The rows that break a column expectation, as a Spark condition.

    Args:
        expectation_type: GX's snake-case name.
        kwargs: The expectation's configuration kwargs.
        parameters: The suite parameters of the validation (e.g. `broker_count`).

    Raises:
        ValueError: an expectation type the input suites do not use at row level.
    """
    from pyspark.sql import functions as F

    column = F.col(str(kwargs["column"]))
    given = column.isNotNull()
    if expectation_type == "expect_column_values_to_not_be_null":
        return column.isNull()
    if expectation_type == "expect_column_values_to_match_regex":
        return given & ~column.rlike(str(kwargs["regex"]))
    if expectation_type == "expect_column_values_to_not_be_in_set":
        return given & column.isin(list(kwargs["value_set"]))
    if expectation_type == "expect_column_values_to_be_in_set":
        return given & ~column.isin(list(kwargs["value_set"]))
    if expectation_type in (
        "expect_column_values_to_be_between",
        "expect_column_value_lengths_to_be_between",
    ):
        value = (
            column if expectation_type == "expect_column_values_to_be_between" else F.length(column)
        )
        low, high = (
            _bound(kwargs.get("min_value"), parameters),
            _bound(kwargs.get("max_value"), parameters),
        )
        ok = F.lit(True)
        if low is not None:
            ok = ok & (value > F.lit(low) if kwargs.get("strict_min") else value >= F.lit(low))
        if high is not None:
            ok = ok & (value < F.lit(high) if kwargs.get("strict_max") else value <= F.lit(high))
        return given & ~ok
    raise ValueError(f"no row condition for {expectation_type} (not a row-level rule)")


def rule_id(key: tuple[str, str]) -> str:
    """The name of a rule in the `broken` column: `<expectation_type> on <target>`."""
    return f"{key[0]} on {key[1]}"


def broken_rows(
    frame: DataFrame,
    rules: Sequence[tuple[tuple[str, str], Any]],
    parameters: Mapping[str, Any],
    *,
    match_on: Sequence[str],
) -> DataFrame:
    """The rows of `frame` that break any of `rules`, each with the rules it breaks.

    Args:
        frame: The validated frame.
        rules: `(key, configuration)` of each row-level expectation to look for: `key`
            its `(expectation_type, target)`, `configuration` GX's
            `ExpectationConfiguration`.
        parameters: The suite parameters of the validation.
        match_on: For a query rule, the frame's columns its rows are matched back by
            (those of them the query returns: `topic`, `group_id`, `key`, `key_hex`),
            null-safely.

    Returns:
        The frame's columns and `broken` (array of `rule_id`s, in `rules` order), only
        rows that break at least one rule. Computed once and kept (a local
        checkpoint): the caller counts and groups it more than once.

    Raises:
        ValueError: a query rule that returns none of the `match_on` columns.
    """
    from pyspark.sql import functions as F

    marks: list[Column] = []
    view = f"planner_rows_{id(frame)}"
    spark = frame.sparkSession
    marked = frame
    for key, config in rules:
        kwargs = dict(config.kwargs)
        if config.type != _QUERY_TYPE:
            marks.append(F.when(condition(config.type, kwargs, parameters), F.lit(rule_id(key))))
            continue
        frame.createOrReplaceTempView(view)
        try:
            # The query is analysed here, while the view exists.
            found = spark.sql(str(kwargs["unexpected_rows_query"]).replace("{batch}", view))
        finally:
            spark.catalog.dropTempView(view)
        on = [c for c in match_on if c in found.columns]
        if not on:
            raise ValueError(f"query rule {key[1]} returns none of the columns {list(match_on)}")
        flag = f"_q{len(marks)}"
        hits = found.select(*(F.col(c).alias(f"{flag}_{c}") for c in on)).distinct()
        match = None
        for c in on:
            same = marked[c].eqNullSafe(hits[f"{flag}_{c}"])
            match = same if match is None else match & same
        hits = hits.withColumn(flag, F.lit(True))
        marked = marked.join(hits, match, "left").drop(*(f"{flag}_{c}" for c in on))
        marks.append(F.when(F.col(flag), F.lit(rule_id(key))))
    broken = F.filter(F.array(*marks), lambda r: r.isNotNull()) if marks else F.array()
    out = marked.select(*frame.columns, broken.alias("broken")).where(F.size("broken") > 0)
    return out.localCheckpoint()
