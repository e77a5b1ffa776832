"""The building blocks every suite is made of: Kafka's rules as Great Expectations objects.

A suite is a list of expectations; this module turns one domain rule into one expectation
with a description that says the rule in plain words (the description is what Data Docs
and the failure message show). Column rules are derived from the figures schema
(`planner.figures.schema.Column.check`), so a rule that changes there changes the suites,
and the exported JSON (`expectations/suites/`) shows the change for review.

Two Spark facts the numeric rules rely on: Spark orders NaN above every other double and
compares it equal to itself, and infinity is above the largest finite double. So
"between 0 and the largest finite double" rejects negatives, NaN and both infinities in
one built-in expectation; "at least 0" alone would let NaN and infinity through.

Great Expectations is imported inside the functions, so importing this module is cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

if TYPE_CHECKING:
    from great_expectations.expectations.expectation import Expectation

    from planner.figures.schema import Column, Table

__all__ = [
    "LARGEST_FINITE",
    "TOPIC_OR_DEFAULT_REGEX",
    "TOPIC_REGEX",
    "at_least",
    "column_rules",
    "columns_present",
    "finite_at_least",
    "in_set",
    "not_null",
    "query",
    "rows_at_least",
    "spark_type",
    "target",
    "topic_name",
    "unique",
]

#: Kafka's topic-name rule (`org.apache.kafka.common.internals.Topic.validate`): 1 to 249
#: characters of ASCII letters, digits, `.`, `_` and `-`. `.` and `..` are refused
#: separately (they would be directory names in a broker's log dir).
TOPIC_REGEX = r"^[a-zA-Z0-9._-]{1,249}$"
#: The capacity table's topic column: a topic name or `*`, the default row.
TOPIC_OR_DEFAULT_REGEX = r"^(\*|[a-zA-Z0-9._-]{1,249})$"
#: The largest finite double: the upper bound that makes a between-check refuse NaN and inf.
LARGEST_FINITE = sys.float_info.max
_HEX_REGEX = r"^([0-9a-fA-F]{2})*$"
_RESERVED_TOPICS = (".", "..")


def spark_type(arrow_type: pa.DataType) -> str:
    """The name of the Spark SQL type a figures column of `arrow_type` reads as.

    Raises:
        ValueError: a type the figures schema does not use (add it here when it does).
    """
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "StringType"
    if pa.types.is_float64(arrow_type):
        return "DoubleType"
    if pa.types.is_int32(arrow_type):
        return "IntegerType"
    if pa.types.is_int64(arrow_type):
        return "LongType"
    if pa.types.is_boolean(arrow_type):
        return "BooleanType"
    if pa.types.is_timestamp(arrow_type) and arrow_type.tz is not None:
        return "TimestampType"
    raise ValueError(f"no Spark type known for Arrow type {arrow_type}")


def columns_present(columns: Sequence[str]) -> Expectation:
    """Every column in `columns` is in the table (others may be there too)."""
    import great_expectations.expectations as gxe

    return gxe.ExpectTableColumnsToMatchSet(
        column_set=list(columns),
        exact_match=False,
        description=f"the table has its {len(columns)} columns (listed in column_set)",
    )


def rows_at_least(count: int, what: str) -> Expectation:
    """The table has at least `count` rows; `what` says why that matters."""
    import great_expectations.expectations as gxe

    return gxe.ExpectTableRowCountToBeBetween(
        min_value=count, description=f"at least {count} row(s): {what}"
    )


def not_null(column: str) -> Expectation:
    """`column` has a value in every row."""
    import great_expectations.expectations as gxe

    return gxe.ExpectColumnValuesToNotBeNull(
        column=column, description=f"{column} is given in every row"
    )


def topic_name(column: str = "topic", *, default_allowed: bool = False) -> list[Expectation]:
    """Kafka's topic-name rule on `column`: the legal characters and length, not `.`/`..`.

    Args:
        column: The column holding topic names.
        default_allowed: `*` (the capacity table's default row) is allowed too.
    """
    import great_expectations.expectations as gxe

    regex = TOPIC_OR_DEFAULT_REGEX if default_allowed else TOPIC_REGEX
    extra = " (or * for the default)" if default_allowed else ""
    return [
        gxe.ExpectColumnValuesToMatchRegex(
            column=column,
            regex=regex,
            description=(
                f"{column} follows Kafka's topic-name rule: 1 to 249 of a-z A-Z 0-9 . _ -{extra}"
            ),
        ),
        gxe.ExpectColumnValuesToNotBeInSet(
            column=column,
            value_set=list(_RESERVED_TOPICS),
            description=f"{column} is not . or .. (Kafka refuses both names)",
        ),
    ]


def finite_at_least(column: str, minimum: float, *, strict: bool = False) -> Expectation:
    """`column` is a finite number at least `minimum` (above it when `strict`); nulls pass.

    The upper bound is the largest finite double, which Spark puts below infinity and NaN
    (see the module docstring), so both fail.
    """
    above = "above" if strict else "at least"
    import great_expectations.expectations as gxe

    return gxe.ExpectColumnValuesToBeBetween(
        column=column,
        min_value=minimum,
        max_value=LARGEST_FINITE,
        strict_min=strict,
        description=f"{column} is a finite number {above} {minimum:g} (not NaN or infinite)",
    )


def at_least(column: str, minimum: int, *, maximum: Any = None, why: str = "") -> Expectation:
    """A whole-number `column` is at least `minimum` and, if given, at most `maximum`.

    Args:
        column: The column.
        minimum: The smallest value allowed.
        maximum: The largest value allowed: a number, or a suite parameter
            (`{"$PARAMETER": "broker_count"}`) given at validation time.
        why: A short reason, appended to the description.
    """
    if maximum is None:
        text = f"{column} is at least {minimum}"
    elif isinstance(maximum, dict):
        text = f"{column} is between {minimum} and ${maximum['$PARAMETER']}"
    else:
        text = f"{column} is between {minimum} and {maximum}"
    import great_expectations.expectations as gxe

    return gxe.ExpectColumnValuesToBeBetween(
        column=column,
        min_value=minimum,
        max_value=maximum,
        description=f"{text}{': ' + why if why else ''}",
    )


def in_set(column: str, values: Sequence[str], what: str) -> Expectation:
    """`column` holds one of `values` (`what` names the set in the description)."""
    import great_expectations.expectations as gxe

    return gxe.ExpectColumnValuesToBeInSet(
        column=column,
        value_set=list(values),
        description=f"{column} is a known {what}: {', '.join(values)}",
    )


def unique(columns: Sequence[str]) -> Expectation:
    """No two rows share the same values in `columns` (nulls compare equal)."""
    import great_expectations.expectations as gxe

    if len(columns) == 1:
        return gxe.ExpectColumnValuesToBeUnique(
            column=columns[0], description=f"one row per {columns[0]}"
        )
    return gxe.ExpectCompoundColumnsToBeUnique(
        column_list=list(columns), description=f"one row per ({', '.join(columns)})"
    )


def query(rule: str, sql: str, description: str) -> Expectation:
    """A rule no built-in expectation states: a Spark SQL query that returns the bad rows.

    Args:
        rule: A short stable name for the rule, unique in its suite (`dotted.words`); the
            validation report keys the result by it.
        sql: The query; `{batch}` stands for the table being validated. It should select
            the columns that identify a bad row (`topic` first where there is one): they
            are the examples in the failure message.
        description: The rule in plain words.
    """
    import great_expectations.expectations as gxe

    return gxe.UnexpectedRowsExpectation(
        unexpected_rows_query=" ".join(sql.split()),
        description=description,
        meta={"rule": rule},
    )


def target(expectation_type: str, kwargs: dict[str, Any], meta: dict[str, Any] | None) -> str:
    """What an expectation checks, for keying its result: a column, columns, or a rule name.

    `column` for column expectations, `A,B` for column pairs, `a,b,c` for column lists,
    the `rule` in `meta` for query expectations, and `table` for table-level ones.
    """
    if meta and "rule" in meta:
        return str(meta["rule"])
    if "column" in kwargs:
        return str(kwargs["column"])
    if "column_A" in kwargs:
        return f"{kwargs['column_A']},{kwargs['column_B']}"
    if "column_list" in kwargs:
        return ",".join(kwargs["column_list"])
    return "table"


def _rule_expectations(column: Column) -> list[Expectation]:
    import great_expectations.expectations as gxe

    rule = column.check
    if rule == "":
        return []
    if rule in {"topic", "topic_or_default"}:
        return topic_name(column.name, default_allowed=rule == "topic_or_default")
    if rule == "rate":
        return [finite_at_least(column.name, 0.0)]
    if rule == "positive":
        return [finite_at_least(column.name, 0.0, strict=True)]
    if rule == "share":
        return [
            gxe.ExpectColumnValuesToBeBetween(
                column=column.name,
                min_value=0.0,
                max_value=1.0,
                description=f"{column.name} is a share from 0 to 1",
            )
        ]
    if rule == "hash32":
        return [at_least(column.name, 0, maximum=0xFFFFFFFF, why="a 32-bit hash")]
    if rule == "count":
        return [at_least(column.name, 1)]
    if rule == "whole":
        return [at_least(column.name, 0)]
    if rule == "partitioner":
        from planner.partitioners import PARTITIONERS

        return [in_set(column.name, PARTITIONERS, "partitioner (librdkafka's names)")]
    if rule == "strategy":
        from planner.protocols import GROUP_STRATEGIES

        names = sorted({s for known in GROUP_STRATEGIES.values() for s in known})
        return [in_set(column.name, names, "group assignor (of any protocol)")]
    if rule == "protocol":
        from planner.protocols import PROTOCOLS

        return [in_set(column.name, PROTOCOLS, "group protocol")]
    if rule == "hex":
        return [
            gxe.ExpectColumnValuesToMatchRegex(
                column=column.name,
                regex=_HEX_REGEX,
                description=f"{column.name} is hex bytes (pairs of 0-9, a-f or A-F)",
            )
        ]
    if rule == "capacity_source":
        from planner.group_capacity import CAPACITY_SOURCES

        return [in_set(column.name, CAPACITY_SOURCES, "source of a group's capacity")]
    if rule == "lag_trend":
        from planner.group_capacity import LAG_TRENDS

        return [in_set(column.name, LAG_TRENDS, "lag trend")]
    if rule in {"replicas", "racks"}:
        from planner.cross_zone import RACKS_PATTERN, REPLICAS_PATTERN

        what = (
            "broker ids joined by ':' (leader first) per partition, partitions joined by ','"
            if rule == "replicas"
            else "racks joined by ',', none blank"
        )
        return [
            gxe.ExpectColumnValuesToMatchRegex(
                column=column.name,
                regex=REPLICAS_PATTERN if rule == "replicas" else RACKS_PATTERN,
                description=f"{column.name} is {what}",
            )
        ]
    if rule == "nonempty":
        return [
            gxe.ExpectColumnValueLengthsToBeBetween(
                column=column.name, min_value=1, description=f"{column.name} is not empty"
            )
        ]
    raise ValueError(
        f"column {column.name!r} has the rule {rule!r}, which expectations.rules does not know"
    )


def column_rules(
    table: Table, *, overrides: Mapping[str, Sequence[Expectation]] | None = None
) -> list[Expectation]:
    """The expectations the figures schema implies for `table`, in column order.

    The columns are present with their Spark types, required ones have a value in every
    row, each value meets its column's rule, and the table's key is unique. These are the
    rules collection already applies row by row; here they gate the whole table.

    Args:
        table: The figures table.
        overrides: Column name -> the expectations that replace its rule's (a rule the
            whole table can check better than one row, e.g. against a suite parameter).
    """
    import great_expectations.expectations as gxe

    overrides = overrides or {}
    out: list[Expectation] = [columns_present([c.name for c in table.columns])]
    for column in table.columns:
        out.append(
            gxe.ExpectColumnValuesToBeOfType(
                column=column.name,
                type_=spark_type(column.type),
                description=f"{column.name} is {spark_type(column.type)}",
            )
        )
        if not column.nullable:
            out.append(not_null(column.name))
        if column.name in overrides:
            out.extend(overrides[column.name])
        else:
            out.extend(_rule_expectations(column))
    if table.key:
        out.append(unique(table.key))
    return out
