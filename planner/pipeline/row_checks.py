"""From the input suites' row-level failures to the topics a run sets aside.

`validate_inputs` runs the input suites on the whole figures, as before. When only
row-level rules failed (`expectations.inputs.level_of`), this module finds every row
that broke one (`expectations.rows.broken_rows`: the rule stated as a Spark condition
from the expectation itself, or its query run), checks it found what GX counted, and
attributes each bad row to its topic, or, for a consumer group's row, to every topic
of the group (`planner.figures.set_aside` says what goes with a topic).

It stops the run instead (`RunLevelFailure`) when the bad rows are too many to be a
few bad topics: more than `max_bad_share` of a table's rows, or of the run's topics;
when the fleet default capacity row `*` is bad (every topic without its own capacity
depends on it); or when its count of a rule's rows differs from GX's (the two must
state the same rule).

Rows collection refused for their values (`planner.figures.refused`: a figure that does
not parse never reaches the suites) count as bad rows of their table, exactly as rows
the suites find broken: a capacity table whose every figure is unreadable is a table
wrong as a whole, not an empty table, and a refused `*` row is a bad `*` row.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from planner.figures.refused import Refused
from planner.figures.set_aside import SetAside, SetAsideTopic, replicas_reason

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["DEFAULT_MAX_BAD_SHARE", "RunLevelFailure", "TableCheck", "set_aside_rows"]

#: The share of a table's rows (or of the run's topics) that may be set aside before the
#: run stops instead: past it, the figures are wrong as a whole, not in a few topics.
DEFAULT_MAX_BAD_SHARE = 0.2
# Kafka's topic-name rule (`expectations.rules.TOPIC_REGEX`), for attributing rows.
_LEGAL_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")
_DEFAULT_TOPIC = "*"
# Reason parts per topic; the rest are counted.
_PARTS_MOST = 3
_VALUE_CHARS = 80
# Columns that place a bad row, beside the bad value (shown in the reason).
_WHERE = {"throughput": ("ts",), "keys": ("key", "key_hex"), "groups": ("group_id",)}


class RunLevelFailure(RuntimeError):
    """The bad rows are too many, or of a kind, to set aside: the run stops."""


@dataclass(frozen=True)
class TableCheck:
    """One input table as validated.

    Attributes:
        table: The figures table (`throughput`, `topics`, ...).
        frame: The frame the suite ran on.
        report: The suite's report (`expectations.ValidationReport`).
    """

    table: str
    frame: DataFrame
    report: Any


@dataclass(frozen=True)
class _Breach:
    table: str
    rule: str  # rule_id: `<expectation_type> on <target>`
    description: str
    column: str | None
    rows: int
    example: Mapping[str, Any]
    group: str | None = None


def _legal(topic: Any) -> bool:
    return (
        isinstance(topic, str) and bool(_LEGAL_TOPIC.fullmatch(topic)) and topic not in (".", "..")
    )


def _show(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    text = repr(value)
    return text if len(text) <= _VALUE_CHARS else text[: _VALUE_CHARS - 3] + "..."


def _part(breach: _Breach, brokers: int | None) -> str:
    """One rule broken by one topic's rows, in words."""
    value = breach.example.get(breach.column) if breach.column else None
    if (
        breach.table == "topics"
        and breach.column == "replication_factor"
        and brokers is not None
        and isinstance(value, int)
        and value > brokers
    ):
        return replicas_reason(brokers, value)
    text = f"{breach.table}.input: {breach.description}"
    if breach.column is not None:
        text += f": {breach.column} = {_show(value)}"
    where = [
        f"{c} {_show(breach.example[c])}"
        for c in _WHERE.get(breach.table, ())
        if breach.example.get(c) is not None
        and c != breach.column
        # A group's rows are named by the group already (below).
        and not (c == "group_id" and breach.group is not None)
    ]
    if where:
        text += f" ({', '.join(where)})"
    if breach.rows > 1:
        text += f", {breach.rows:,} rows"
    if breach.group is not None and breach.table == "groups":
        text = f"consumer group {_show(breach.group)} breaks {text}"
    return text


def _reason(breaches: Sequence[_Breach], brokers: int | None) -> str:
    parts = list(dict.fromkeys(_part(b, brokers) for b in breaches))
    shown = "; ".join(parts[:_PARTS_MOST])
    more = len(parts) - _PARTS_MOST
    return shown + (f"; and {more} more rule{'s' if more != 1 else ''}" if more > 0 else "")


def _configs(suite_name: str) -> dict[tuple[str, str], Any]:
    from expectations.catalog import build_suite
    from expectations.rules import target

    return {
        (
            e.configuration.type,
            target(e.configuration.type, e.configuration.kwargs, e.configuration.meta),
        ): e.configuration
        for e in build_suite(suite_name).expectations
    }


def _row_level_failures(report: Any) -> list[Any]:
    return [o for o in report.failures if o.level == "row"]


def _breaches(check: TableCheck) -> tuple[list[_Breach], dict[str, int]]:
    """The bad rows of one table, grouped by (topic or group, rule); and its counts."""
    from pyspark.sql import functions as F

    from expectations.rows import broken_rows, rule_id
    from planner.figures.schema import TABLES

    report = check.report
    failed = _row_level_failures(report)
    configs = _configs(report.suite_name)
    rules = [(o.key, configs[o.key]) for o in failed]
    broken = broken_rows(
        check.frame, rules, dict(report.parameters), match_on=TABLES[check.table].key
    )
    column_rules = [o for o in failed if o.expectation_type != "unexpected_rows_expectation"]
    counted = broken.agg(
        F.count(F.lit(1)).alias("bad"),
        *(
            F.sum(F.array_contains("broken", rule_id(o.key)).cast("long")).alias(f"r{i}")
            for i, o in enumerate(column_rules)
        ),
    ).first()
    assert counted is not None
    for i, o in enumerate(column_rules):
        found = int(counted[f"r{i}"] or 0)
        if o.unexpected_count is not None and found != o.unexpected_count:
            raise RunLevelFailure(
                f"{report.suite_name}: {rule_id(o.key)}: the row check found {found:,} rows, "
                f"Great Expectations {o.unexpected_count:,}; the two must state one rule "
                "(a bug in expectations.rows): nothing can be set aside safely"
            )
    counts = {"bad": int(counted["bad"]), "rows": int(check.frame.count())}
    attribution = ["group_id", "topic"] if check.table == "groups" else ["topic"]
    examples = (
        broken.select(
            *attribution,
            F.explode("broken").alias("rule"),
            F.struct(*check.frame.columns).alias("row"),
        )
        .groupBy(*attribution, "rule")
        .agg(F.count(F.lit(1)).alias("rows"), F.min("row").alias("row"))
        .collect()
    )
    by_rule = {rule_id(o.key): o for o in failed}
    out = []
    for r in examples:
        o = by_rule[r["rule"]]
        out.append(
            _Breach(
                table=check.table,
                rule=f"{report.suite_name}: {r['rule']}",
                description=o.description,
                column=None if o.expectation_type == "unexpected_rows_expectation" else o.target,
                rows=int(r["rows"]),
                example=r["row"].asDict(),
                group=r["group_id"] if check.table == "groups" else None,
            )
        )
    return out, counts


def _too_many_bad_rows(
    table: str, broke: int, validated: int, refused: Refused, max_share: float, allowed: str
) -> str | None:
    """Why `table` has too many bad rows (None: it has not): `broke` of the `validated`
    rows broke row-level rules, and collection refused more before validation."""
    refused_here = refused.rows.get(table, 0)
    bad, total = broke + refused_here, validated + refused_here
    if not total or bad / total <= max_share:
        return None
    share = f"{bad:,} of {total:,} rows ({100 * bad / total:.0f} %)"
    if not refused_here:
        return f"{table}.input: {share} break row-level rules, {allowed}"
    examples = "; ".join(refused.examples.get(table, ()))
    found = f"{refused_here:,} refused at collection (e.g. {examples})"
    if broke:
        found += f" and {broke:,} breaking row-level rules"
    return f"{table}.input: {share} are bad: {found}, {allowed}"


def _group_topics(check: TableCheck, groups: Sequence[str]) -> dict[str, list[str]]:
    from pyspark.sql import functions as F

    rows = (
        check.frame.where(F.col("group_id").isin(list(groups)))
        .select("group_id", "topic")
        .distinct()
        .collect()
    )
    out: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        out[r["group_id"]].append(r["topic"])
    return out


def set_aside_rows(
    checks: Sequence[TableCheck],
    *,
    run_key: str,
    topics_listed: int,
    brokers: int | None,
    max_bad_share: float = DEFAULT_MAX_BAD_SHARE,
    refused: Refused | None = None,
) -> SetAside:
    """The topics to set aside for the row-level failures of `checks`.

    Args:
        checks: Every input table validated (those without a row-level failure, or rows
            refused at collection, add nothing).
        run_key: The run.
        topics_listed: Rows of the run's topics table (the share of topics set aside is
            of these).
        brokers: The broker count `topics.input` checked replication against.
        max_bad_share: The share of a table's rows, and of the run's topics, that may be
            set aside (0..1).
        refused: The rows the run's collection refused for their values; each is a bad
            row of its table, which had it plus the rows validated.

    Raises:
        RunLevelFailure: too many bad rows or topics, a bad `*` capacity row, or a rule
            whose rows this module counts differently from GX. The message gives every
            one of these that holds, a line each.
    """
    refused = refused or Refused()
    breaches: list[_Breach] = []
    bad_rows: dict[str, int] = {}
    rows: dict[str, int] = {}
    bad_groups: dict[str, list[_Breach]] = defaultdict(list)
    groups_check = None
    for check in checks:
        if not _row_level_failures(check.report):
            if refused.rows.get(check.table):
                # The rows validated, beside those refused before validation.
                bad_rows[check.table], rows[check.table] = 0, int(check.frame.count())
            continue
        found, counts = _breaches(check)
        bad_rows[check.table], rows[check.table] = counts["bad"], counts["rows"]
        for b in found:
            if b.table == "groups" and b.group is not None:
                bad_groups[b.group].append(b)
                groups_check = check
            else:
                breaches.append(b)
    problems: list[str] = []
    default = [
        b for b in breaches if b.table == "capacity" and b.example.get("topic") == _DEFAULT_TOPIC
    ]
    if default or refused.default_capacity:
        broken = [_part(b, brokers) for b in default]
        broken += [f"was refused at collection: {r}" for r in refused.default_capacity]
        problems.append(
            "capacity.input: the fleet default row '*' "
            + ("breaks " if default else "")
            + "; ".join(broken)
            + ": every topic without a capacity row of its own is sized with it, so the run "
            "stops rather than set most of the fleet aside"
        )
    per_topic: dict[str, list[_Breach]] = defaultdict(list)
    unnamed: dict[str, int] = defaultdict(int)
    dropped: set[str] = set()
    for b in breaches:
        topic = b.example.get("topic")
        if isinstance(topic, str) and _legal(topic):
            per_topic[topic].append(b)
        else:
            unnamed[b.table] += b.rows
            if isinstance(topic, str):
                dropped.add(topic)
    if bad_groups:
        assert groups_check is not None
        for group, topics in sorted(_group_topics(groups_check, sorted(bad_groups)).items()):
            for topic in topics:
                if isinstance(topic, str) and _legal(topic):
                    per_topic[topic].extend(bad_groups[group])
                elif isinstance(topic, str):
                    dropped.add(topic)
    order = {c.table: i for i, c in enumerate(checks)}
    set_aside = tuple(
        SetAsideTopic(
            topic,
            _reason(sorted(found, key=lambda b: (order[b.table], b.rule)), brokers),
            tuple(dict.fromkeys(b.rule for b in found)),
            sum(b.rows for b in found),
        )
        for topic, found in sorted(per_topic.items())
    )
    allowed = (
        f"more than the {100 * max_bad_share:g} % allowed ([validation] max_bad_row_share): "
        "the figures look wrong as a whole, not in a few topics"
    )
    common: dict[str, int] = defaultdict(int)
    for t in set_aside:
        common[t.reason] += 1
    commonest = (
        "; the commonest reason ({1:,} topics): {0}".format(
            *max(common.items(), key=lambda kv: (kv[1], kv[0]))
        )
        if common
        else ""
    )
    if topics_listed and len(set_aside) / topics_listed > max_bad_share:
        share = 100 * len(set_aside) / topics_listed
        problems.append(
            f"{len(set_aside):,} of the run's {topics_listed:,} topics ({share:.0f} %) would "
            f"be set aside, {allowed}{commonest}"
        )
    for table, broke in bad_rows.items():
        problem = _too_many_bad_rows(
            table, broke, rows[table], refused, max_bad_share, f"{allowed}{commonest}"
        )
        if problem is not None:
            problems.append(problem)
    if problems:
        # Every reason at once: whoever fixes the figures should not find them one run
        # at a time.
        raise RunLevelFailure("\nand ".join(problems))
    return SetAside(
        run_key=run_key,
        topics=set_aside,
        groups=tuple(sorted(bad_groups)),
        dropped=tuple(sorted(dropped)),
        # What the suites found (rows refused at collection are the `rejected` table's).
        bad_rows={t: n for t, n in bad_rows.items() if n},
        unnamed_rows=dict(unnamed),
        rows={t: rows[t] for t, n in bad_rows.items() if n},
    )
