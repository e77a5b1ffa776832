"""The input suites: the figures tables as a whole, before sizing starts.

Collection (`planner.figures.conform`) already checks every row and keeps the bad ones
out, in the `rejected` table. These suites re-check the same column rules on the whole
table (a row that reaches sizing broken means a bug or a bypassed collector, or a rule
that spans tables) and add what no single row can show: unique keys across sources,
the replication factor against the broker count, one protocol and assignor per consumer
group, a table that is not empty.

One builder per suite; `expectations.catalog` names them `<table>.input`.

Every expectation carries its *level* in its `meta` (`{"level": "row"}` or `"run"`),
so the reviewed JSON says what a failure does (docs/validation.md, "What stops a run"):

- **row**: a rule each row meets or breaks on its own (a value's range, a name, a
  known strategy, a value given) or a group of rows of one topic or consumer group
  breaks together (one strategy per group). A failure sets the rows' topics aside
  (`planner.figures.set_aside`); every other topic is planned.
- **run**: a rule about the table as a whole: its columns and their types (a file of
  another shape, not a bad row), a unique key (two rows claiming one key: which one is
  right cannot be told from either), at least one row. A failure stops the run before
  sizing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from expectations.rules import at_least, column_rules, query, rows_at_least
from planner.figures.schema import TABLES

if TYPE_CHECKING:
    from great_expectations.expectations.expectation import Expectation

__all__ = [
    "BROKER_COUNT",
    "LEVEL",
    "MIN_COVERAGE",
    "ROW",
    "RUN",
    "RUN_LEVEL_TYPES",
    "capacity_input",
    "groups_input",
    "keys_input",
    "level_of",
    "throughput_input",
    "topics_input",
]

#: The suite parameter `topics.input` takes: the number of brokers in the cluster table.
BROKER_COUNT = "broker_count"
#: Its other parameter: the share of the interval a topic's observations must cover.
MIN_COVERAGE = "min_coverage"
#: The `meta` key holding an expectation's level, and its two values.
LEVEL = "level"
ROW = "row"
RUN = "run"
#: The expectation types that judge a table as a whole (every other one judges rows).
RUN_LEVEL_TYPES = frozenset(
    {
        "expect_table_columns_to_match_set",
        "expect_column_values_to_be_of_type",
        "expect_column_values_to_be_unique",
        "expect_compound_columns_to_be_unique",
        "expect_table_row_count_to_be_between",
    }
)


def level_of(expectation: Expectation) -> str:
    """`row` or `run`: what a failure of `expectation` does to the run."""
    meta = expectation.configuration.meta or {}
    return str(meta.get(LEVEL) or _level(expectation.expectation_type))


def _level(expectation_type: str) -> str:
    return RUN if expectation_type in RUN_LEVEL_TYPES else ROW


def _levelled(expectations: list[Expectation]) -> list[Expectation]:
    """`expectations` with their level in `meta` (a query rule keeps its `rule` name)."""
    out = []
    for e in expectations:
        meta = {**(e.meta or {}), LEVEL: _level(e.expectation_type)}
        out.append(e.copy(update={"meta": meta}))
    return out


def throughput_input() -> list[Expectation]:
    """`throughput.input`: rate samples, finite and >= 0, one per (topic, ts), not none."""
    return _levelled(
        [
            *column_rules(TABLES["throughput"]),
            rows_at_least(1, "an interval without throughput samples has nothing to size"),
        ]
    )


def topics_input() -> list[Expectation]:
    """`topics.input`: the topics as they are, replication factor within the broker count,
    observed for enough of the interval, replica lists (where given) of the topic's shape.

    The broker count is the suite parameter `broker_count` (the rows of the `cluster`
    table), so the suite stays one reviewed document and each run's value is recorded in
    its validation result. Kafka refuses a replication factor above the live brokers at
    topic creation; a topic that claims one means the topics and cluster tables disagree.
    `min_coverage` (`[sources.kafka] min_coverage`) is the share of the interval a
    topic's observations must cover (`observed_share`; empty for figures of other
    sources, which the rule leaves alone).
    """
    import great_expectations.expectations as gxe

    bound = at_least(
        "replication_factor",
        1,
        maximum={"$PARAMETER": BROKER_COUNT},
        why="Kafka refuses more replicas than brokers",
    )
    observed = gxe.ExpectColumnValuesToBeBetween(
        column="observed_share",
        min_value={"$PARAMETER": MIN_COVERAGE},
        max_value=1.0,
        description=(
            f"observed_share is between ${MIN_COVERAGE} and 1: a topic whose observations "
            "cover less of the interval is not planned from them"
        ),
    )
    return _levelled(
        [
            *column_rules(
                TABLES["topics"],
                overrides={"replication_factor": [bound], "observed_share": [observed]},
            ),
            query(
                "topics.replicas_match",
                """
                SELECT topic, partitions, replication_factor, replicas FROM {batch}
                WHERE replicas IS NOT NULL
                  AND (partitions IS NULL
                       OR size(split(replicas, ',')) <> partitions
                       OR exists(split(replicas, ','),
                                 p -> size(split(p, ':')) <> replication_factor))
                """,
                "a topic's replicas list one entry per partition, each with "
                "replication_factor brokers",
            ),
            rows_at_least(1, "a run without topics has nothing to size"),
        ]
    )


def capacity_input() -> list[Expectation]:
    """`capacity.input`: Tp, Tc and share-fetch above zero, one row per topic (or `*`),
    a figure each; a row naming a `group_id` gives that group's own Tc on the topic only.

    An empty table is allowed: every topic then gets a recommendation that says its
    capacity is missing instead of a number (issue 4, bad input). The share-fetch
    columns are optional and checked like Tp and Tc (finite, above zero); a row with only
    share-fetch figures has a figure (the sizing takes its Tp and Tc from `*`).
    """
    return _levelled(
        [
            *column_rules(TABLES["capacity"]),
            query(
                "capacity.has_figure",
                """
                SELECT topic, source FROM {batch}
                WHERE producer_mib_per_s IS NULL AND producer_records_per_s IS NULL
                  AND consumer_mib_per_s IS NULL AND consumer_records_per_s IS NULL
                  AND share_fetch_mib_per_s IS NULL AND share_fetch_records_per_s IS NULL
                """,
                "every capacity row gives at least one of Tp or Tc (MiB/s or records/s), "
                "or a share-fetch throughput",
            ),
            query(
                "capacity.group_tc_only",
                """
                SELECT topic, group_id, source FROM {batch}
                WHERE group_id IS NOT NULL
                  AND (topic = '*' OR consumer_records_per_s IS NULL
                       OR producer_mib_per_s IS NOT NULL OR producer_records_per_s IS NOT NULL
                       OR share_fetch_mib_per_s IS NOT NULL
                       OR share_fetch_records_per_s IS NOT NULL)
                """,
                "a row naming a group_id gives that group's Tc on one named topic, in "
                "consumer_records_per_s, and no Tp or share-fetch figure",
            ),
        ]
    )


def groups_input() -> list[Expectation]:
    """`groups.input`: subscriptions, one per (group, topic), one protocol and assignor per
    group; a group's own Tc above zero with its source, its lag (records, seconds) at least
    zero, its trend and source among the known words, one `client_rack` per group.

    A group runs one protocol, and one assignor: the classic coordinator picks a protocol all
    members support, the consumer, share and streams coordinators run one assignor for the
    group; a group listed with two is a collection error. Each assignor is one of its
    protocol's (`planner.protocols.GROUP_STRATEGIES`): `uniform` is not a classic strategy.
    """
    from planner.protocols import DEFAULT_PROTOCOL, GROUP_STRATEGIES

    protocol = f"coalesce(protocol, '{DEFAULT_PROTOCOL}')"
    known = " OR ".join(
        f"({protocol} = '{name}' AND strategy IN ({', '.join(repr(s) for s in assignors)}))"
        for name, assignors in GROUP_STRATEGIES.items()
    )
    return _levelled(
        [
            *column_rules(TABLES["groups"]),
            query(
                "groups.one_strategy",
                f"""
                SELECT group_id,
                       concat_ws(', ', sort_array(collect_set(
                           concat({protocol}, ' ', strategy)))) AS strategies
                FROM {{batch}} GROUP BY group_id
                HAVING count(DISTINCT {protocol}, strategy) > 1
                """,
                "each consumer group has one protocol and one assignor across its topics",
            ),
            query(
                "groups.protocol_assignor",
                f"""
                SELECT group_id, topic, {protocol} AS protocol, strategy FROM {{batch}}
                WHERE strategy IS NOT NULL AND NOT ({known})
                """,
                "each group's assignor is one its protocol has (uniform is a consumer-protocol "
                "assignor, simple a share-group one)",
            ),
            query(
                "groups.capacity_has_source",
                """
                SELECT group_id, topic, capacity_source, consumer_records_per_s FROM {batch}
                WHERE (consumer_records_per_s IS NOT NULL
                       AND (capacity_source IS NULL OR capacity_source = 'topic-default'))
                   OR (consumer_records_per_s IS NULL AND capacity_source IS NOT NULL
                       AND capacity_source <> 'topic-default')
                """,
                "a group's own Tc (consumer_records_per_s) says how it is known "
                "(capacity_source), and topic-default carries none",
            ),
            query(
                "groups.one_client_rack",
                """
                SELECT group_id,
                       concat_ws(' | ', sort_array(collect_set(client_rack))) AS racks
                FROM {batch} GROUP BY group_id
                HAVING count(DISTINCT coalesce(client_rack, '')) > 1
                """,
                "a group's members have one client.rack list across its topics",
            ),
        ]
    )


def keys_input() -> list[Expectation]:
    """`keys.input`: key samples, counts finite and >= 0, one key in one form: text, hex,
    or the partitioners' hashes (all three) of a key a live cluster's sample kept no
    value of."""
    return _levelled(
        [
            *column_rules(TABLES["keys"]),
            query(
                "keys.text_or_hex",
                """
                SELECT topic, key, key_hex FROM {batch}
                WHERE key IS NOT NULL AND key_hex IS NOT NULL
                """,
                "a key is given as text or as hex bytes, not both",
            ),
            query(
                "keys.hashes_whole",
                """
                SELECT topic, key, key_hex, hash_murmur2, hash_crc32, hash_fnv1a FROM {batch}
                WHERE (hash_murmur2 IS NULL OR hash_crc32 IS NULL OR hash_fnv1a IS NULL)
                  AND NOT (hash_murmur2 IS NULL AND hash_crc32 IS NULL AND hash_fnv1a IS NULL)
                   OR (hash_murmur2 IS NOT NULL AND (key IS NOT NULL OR key_hex IS NOT NULL))
                """,
                "a key known by its hashes has all three, and no key or key_hex beside them",
            ),
        ]
    )
