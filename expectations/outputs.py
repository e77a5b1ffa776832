"""The output suites: what the Spark jobs wrote, checked before anything is published.

The datasets and their columns are those of `spark_jobs.schemas` (`sizing`,
`simulations`, `recommendations`); each suite first checks that the frame has them with
their Spark types, then the domain: Kafka cannot shrink a topic, so a recommendation is
never below the current count; it is never below the sizing rule's requirement; a classic
consumer group's useful size is between 1 and the partition count; every simulated
assignment hands out each partition exactly once, and the members' loads add up to the
topic's load; one row per topic per run.

Loads in `simulations` are in consumers (1.0 is one consumer's whole capacity Tc), so a
partition above 1.0 is one no consumer can keep up with. Float comparisons allow a
relative error of 1e-9, the same tolerance the simulation core uses for a fit.

One builder per suite; `expectations.catalog` names them `<dataset>.output`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from expectations.rules import (
    LARGEST_FINITE,
    at_least,
    columns_present,
    finite_at_least,
    in_set,
    not_null,
    query,
    topic_name,
    unique,
)
from planner.group_capacity import CAPACITY_SOURCES, LAG_TRENDS

#: The largest finite double as Spark SQL reads it: NaN and infinity are above it.
_FINITE = repr(LARGEST_FINITE)

if TYPE_CHECKING:
    from great_expectations.expectations.expectation import Expectation

__all__ = [
    "ROW_KEYS",
    "recommendations_output",
    "simulations_output",
    "sizing_output",
]

#: Columns that identify one row of each output dataset (unique per dataset).
ROW_KEYS: Mapping[str, tuple[str, ...]] = {
    "sizing": ("run", "topic"),
    "simulations": ("run", "scope", "topic", "group_id", "partitions", "members", "strategy"),
    "recommendations": ("run", "topic"),
}

#: `side` values of the sizing rule (`planner.sizing.Side`).
_SIDES = ("producer", "consumer", "both")
#: Statuses of a topic the sizing job could not plan (`spark_jobs.planning`), beside
#: `spark_jobs.planning.PLANNED_STATUSES`. A new status fails the suite until added here.
_UNPLANNED_STATUSES = (
    "unknown-topic",
    "no-figures",
    "missing-capacity",
    "error",
    # Set aside by the input validation (`planner.figures.set_aside.STATUS`).
    "invalid-figures",
)
#: Statuses of a consumer group's plan (`planner.recommend.types.GroupStatus`, and
#: `unplanned` from `spark_jobs.planning`).
_GROUP_STATUSES = (
    "ok",
    "under-provisioned",
    "no-standby",
    "over-provisioned",
    "unplanned",
    "deploy",
)
#: Codes of a topic's protocol alternatives (`TopicPlan.alternatives`, `planner.notes`).
_ALTERNATIVES = ("consumer-protocol-alternative", "share-alternative", "share-not-for-keyed")
#: Relative tolerance of float identities (a sum of loads, min <= mean <= max).
_TOLERANCE = 1e-9
#: Spark SQL double literals: a plain `1e-9` or `1.0` may parse as DECIMAL.
_TOL = f"{_TOLERANCE!r}D"
_ONE_PLUS_TOL = f"{1.0 + _TOLERANCE!r}D"


def _schema(dataset: str) -> Any:
    from spark_jobs import schemas

    return {
        "sizing": schemas.SIZING,
        "simulations": schemas.SIMULATIONS,
        "recommendations": schemas.RECOMMENDATIONS,
    }[dataset]


def _sql_list(values: Sequence[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


def _valid_for_protocol(column: str) -> str:
    """SQL: `column` (an assignor name) is one `g.protocol` uses
    (`planner.protocols.GROUP_STRATEGIES`, what `check_group_strategy` checks)."""
    from planner.protocols import GROUP_STRATEGIES

    return " OR ".join(
        f"(g.protocol = '{p}' AND {column} IN ({_sql_list(names)}))"
        for p, names in GROUP_STRATEGIES.items()
    )


def _assignors() -> tuple[str, ...]:
    """Every assignor name of every protocol, once (what a topic's `strategy` may be)."""
    from planner.protocols import GROUP_STRATEGIES

    return tuple(dict.fromkeys(n for names in GROUP_STRATEGIES.values() for n in names))


def _planned() -> tuple[str, ...]:
    from spark_jobs.planning import PLANNED_STATUSES

    return PLANNED_STATUSES


def _columns_used(rules: Sequence[Expectation]) -> set[str]:
    used: set[str] = set()
    for rule in rules:
        kwargs = rule.configuration.kwargs
        used.update(kwargs[k] for k in ("column", "column_A", "column_B") if k in kwargs)
        used.update(kwargs.get("column_list", ()))
    return used


def _with_structure(dataset: str, rules: Sequence[Expectation]) -> list[Expectation]:
    """`rules` after the checks of the dataset's shape.

    Every column of the schema is present, the non-nullable ones are given in every row,
    and the columns the column rules read have their Spark type. The jobs write and read
    with these explicit schemas, so types of the other (display) columns are left to
    them rather than listed here a hundred times.
    """
    import great_expectations.expectations as gxe

    schema = _schema(dataset)
    used = _columns_used(rules)
    out: list[Expectation] = [columns_present([f.name for f in schema.fields])]
    for field in schema.fields:
        if field.name in used:
            type_name = type(field.dataType).__name__
            out.append(
                gxe.ExpectColumnValuesToBeOfType(
                    column=field.name, type_=type_name, description=f"{field.name} is {type_name}"
                )
            )
        if not field.nullable:
            out.append(not_null(field.name))
    return [*out, *rules]


def _cross_zone_sound(cz: str) -> str:
    # The conditions a cross-zone struct meets, as one SQL expression (null: a field
    # missing, which the caller counts as a failure).
    def finite(v: str) -> str:
        return f"({v} >= 0 AND {v} <= {_FINITE})"

    splits = []
    for mode in ("from_leaders", "follower_fetching"):
        parts = [f"{cz}.{mode}.{k}_bytes_per_day" for k in ("same_zone", "cross_zone", "unknown")]
        splits += [finite(v) for v in parts]
        # The three parts add up to the day's bytes (summed in another order: a relative
        # slack of 1e-9).
        splits.append(
            f"abs({' + '.join(parts)} - {cz}.bytes_per_day) <= 1e-9 * {cz}.bytes_per_day + 1"
        )
    price, leader, follower = (
        f"{cz}.price_per_gib",
        f"{cz}.leader_cost_per_day",
        f"{cz}.follower_cost_per_day",
    )
    costs = (
        f"(({price} IS NULL AND {leader} IS NULL AND {follower} IS NULL) OR "
        f"({finite(price)} AND {finite(leader)} AND {finite(follower)} "
        f"AND {follower} <= {leader}))"
    )
    return " AND ".join(
        [
            finite(f"{cz}.bytes_per_day"),
            *splits,
            f"{cz}.follower_fetching.cross_zone_bytes_per_day"
            f" <= {cz}.from_leaders.cross_zone_bytes_per_day",
            costs,
        ]
    )


def _standbys_sound(sb: str) -> str:
    # The conditions a standbys struct meets (`planner.standbys.standby_record`), as one
    # SQL expression: S given or unknown, and every figure S times its base, with its
    # evidence (null: a field missing, which the caller counts as a failure).
    s = f"{sb}.standby_replicas"
    known = "('observed', 'bound', 'unknown')"
    read, bytes_in = f"{sb}.standby_read_bytes_per_s", f"{sb}.changelog_bytes_in_per_s"
    return " AND ".join(
        [
            f"{sb}.standby_replicas_evidence = IF({s} IS NULL, 'unknown', 'given')",
            f"coalesce({s} >= 0, TRUE)",
            f"{sb}.min_instances <=> {s} + 1",
            f"({sb}.stateful_tasks_min IS NULL) = ({sb}.stateful_tasks_max IS NULL)",
            f"coalesce({sb}.stateful_tasks_min <= {sb}.stateful_tasks_max, TRUE)",
            f"{sb}.standby_tasks_min <=> {s} * {sb}.stateful_tasks_min",
            f"{sb}.standby_tasks_max <=> {s} * {sb}.stateful_tasks_max",
            f"{sb}.stateful_tasks_evidence IN {known}",
            f"{sb}.changelog_evidence IN {known}",
            f"{sb}.state_evidence IN ('bound', 'unknown')",
            f"({bytes_in} IS NULL) = ({sb}.changelog_evidence = 'unknown')",
            f"coalesce({bytes_in} >= 0 AND {bytes_in} <= {_FINITE}, TRUE)",
            f"({read} IS NULL) = ({s} IS NULL OR {bytes_in} IS NULL)",
            f"coalesce(abs({read} - {s} * {bytes_in}) <= 1e-9 * {read} + 1e-9, TRUE)",
        ]
    )


def _not_below(a: str, b: str, why: str) -> Expectation:
    """`a >= b` in every row where both are given."""
    import great_expectations.expectations as gxe

    return gxe.ExpectColumnPairValuesAToBeGreaterThanB(
        column_A=a,
        column_B=b,
        or_equal=True,
        ignore_row_if="either_value_is_missing",
        description=f"{a} >= {b}: {why}",
    )


def _topic_rows(dataset: str) -> list[Expectation]:
    """Rules every per-topic output (sizing, recommendations) shares."""
    from planner.protocols import PROTOCOLS
    from planner.recommend import creation
    from spark_jobs.schemas import DIMENSIONS

    planned = _planned()
    return [
        *topic_name("topic"),
        unique(ROW_KEYS[dataset]),
        in_set("status", (*planned, *_UNPLANNED_STATUSES), "topic status"),
        at_least("brokers", 1),
        at_least("current_partitions", 1, why="a topic has at least one partition"),
        query(
            f"{dataset}.replicas_within_brokers",
            f"""
            SELECT topic, status, replication_factor, brokers FROM {{batch}}
            WHERE status IN ({_sql_list(planned)}) AND replication_factor > brokers
            """,
            # Not for every row: a topic that claims more replicas than brokers cannot be
            # planned; the input validation sets it aside (status `invalid-figures`), and
            # a job run on unvalidated figures writes it with status `error`.
            "a planned topic has no more replicas than the cluster has brokers (Kafka "
            "refuses more)",
        ),
        at_least("required_partitions", 1),
        _not_below(
            "recommended_partitions",
            "current_partitions",
            "Kafka cannot shrink a topic's partition count",
        ),
        _not_below(
            "recommended_partitions",
            "required_partitions",
            "never below the sizing rule's requirement at the end of the horizon",
        ),
        query(
            f"{dataset}.required_covers_rule",
            """
            SELECT topic, required_partitions, rule_partitions, share_groups,
                   consuming_groups FROM {batch}
            WHERE required_partitions < rule_partitions
              AND NOT (share_groups > 0 AND share_groups >= consuming_groups)
            """,
            "the requirement is the rule's, or the key skew's when that is larger; a topic "
            "only share groups read is sized by the share model instead (their members are "
            "not capped by the partitions)",
        ),
        _not_below(
            "required_partitions",
            "share_partitions",
            "share groups read the topic: the share model's bounds (producers, share-fetch, "
            "records in flight) hold",
        ),
        _not_below(
            "required_partitions",
            "skew_partitions",
            "the requirement is the rule's, or the key skew's when that is larger",
        ),
        in_set("deciding_dimension", DIMENSIONS, "sizing dimension"),
        in_set("deciding_side", _SIDES, "side of the sizing rule"),
        finite_at_least("tp_mib_per_s", 0.0, strict=True),
        finite_at_least("tp_records_per_s", 0.0, strict=True),
        finite_at_least("tc_mib_per_s", 0.0, strict=True),
        finite_at_least("tc_records_per_s", 0.0, strict=True),
        finite_at_least("topic_tc_records_per_s", 0.0, strict=True),
        query(
            f"{dataset}.planned_has_numbers",
            f"""
            SELECT topic, status, required_partitions, recommended_partitions FROM {{batch}}
            WHERE (status IN ({_sql_list(planned)}))
                  <> (required_partitions IS NOT NULL AND recommended_partitions IS NOT NULL)
            """,
            "a planned topic has a requirement and a recommendation; a topic that could not "
            "be planned (no capacity, no figures) has neither, and its status says why",
        ),
        query(
            f"{dataset}.group_members",
            """
            SELECT topic, g.group_id, g.strategy, g.recommended_members, g.standby_members,
                   g.members_now, g.members_at_horizon, recommended_partitions
            FROM {batch} LATERAL VIEW explode(groups) AS g
            WHERE size(g.topics) = 1 AND g.recommended_members IS NOT NULL
              AND coalesce(g.protocol, 'classic') <> 'share'
              AND (g.recommended_members < 1
                   OR g.standby_members IS NULL OR g.standby_members < 0
                   OR g.recommended_members - g.standby_members > recommended_partitions
                   OR (g.standby_members > 0
                       AND (g.recommended_members - g.standby_members <> recommended_partitions
                            OR g.members_now <> g.recommended_members
                            OR g.members_at_horizon <> g.recommended_members)))
            """,
            "a group that reads only this topic, of any protocol but a share group's (whose "
            "members share partitions), is recommended between 1 and the recommended "
            "partition count of members that own a partition (more would sit idle: a "
            "consumer-protocol assignor and a Kafka Streams application's tasks give one "
            "member per partition at most too); standby_members beyond them only once every "
            "partition has an owner, "
            "when the minimum group size asks for more (the recommended size is then what "
            "both today and the horizon need)",
        ),
        query(
            f"{dataset}.created_when_new",
            f"""
            SELECT topic, status, current_partitions FROM {{batch}}
            WHERE status IN ({_sql_list(planned)})
              AND (status = '{creation.CREATE}') <> (current_partitions IS NULL)
            """,
            "a planned topic is to be created (status create) exactly when it has no "
            "partition count today: a topic that does not exist yet is not short of "
            "partitions, and one that exists is never created again",
        ),
        query(
            f"{dataset}.group_status",
            f"""
            SELECT topic, status, g.group_id, g.status AS group_status, g.current_members
            FROM {{batch}} LATERAL VIEW explode(groups) AS g
            WHERE g.status NOT IN ({_sql_list(_GROUP_STATUSES)})
               OR (g.status = '{creation.DEPLOY}'
                   AND (g.current_members <> 0 OR status <> '{creation.CREATE}'))
            """,
            "a group's status is ok, under-provisioned, no-standby, over-provisioned, "
            "unplanned or deploy; deploy only for a group with no member yet that reads a "
            "topic to be created",
        ),
        query(
            f"{dataset}.group_protocol",
            f"""
            SELECT topic, g.group_id, g.protocol, g.current_strategy, g.strategy,
                   g.status AS group_status
            FROM {{batch}} LATERAL VIEW explode(groups) AS g
            WHERE g.protocol IS NULL OR g.protocol NOT IN ({_sql_list(PROTOCOLS)})
               OR (g.status <> 'unplanned'
                   AND NOT ({_valid_for_protocol("g.current_strategy")}))
               OR (g.strategy IS NOT NULL AND NOT ({_valid_for_protocol("g.strategy")}))
            """,
            f"a group's protocol is one of {', '.join(PROTOCOLS)}; a planned group's "
            "assignor today and the recommended one are assignors of that protocol, as the "
            "broker names them (classic: range, roundrobin, sticky, cooperative-sticky, "
            "stream; consumer: uniform, range; share: simple; streams: sticky)",
        ),
        query(
            f"{dataset}.group_capacity_and_lag",
            f"""
            SELECT topic, g.group_id, g.consumer_capacity, g.lag
            FROM {{batch}} LATERAL VIEW explode(groups) AS g
            WHERE (g.consumer_capacity IS NOT NULL AND (
                      g.consumer_capacity.source IS NULL
                   OR g.consumer_capacity.source NOT IN ({_sql_list(CAPACITY_SOURCES)})
                   OR (g.consumer_capacity.records_per_s IS NULL
                       AND g.consumer_capacity.mib_per_s IS NULL)
                   OR NOT coalesce(g.consumer_capacity.records_per_s > 0
                       AND g.consumer_capacity.records_per_s <= {_FINITE}, TRUE)
                   OR NOT coalesce(g.consumer_capacity.mib_per_s > 0
                       AND g.consumer_capacity.mib_per_s <= {_FINITE}, TRUE)
                   OR (g.consumer_capacity.members_now_at_topic_tc IS NOT NULL
                       AND (g.consumer_capacity.members_now_at_topic_tc < 1
                            OR g.consumer_capacity.source = 'topic-default'))))
               OR (g.lag IS NOT NULL AND (
                      g.lag.trend IS NULL OR g.lag.trend NOT IN ({_sql_list(LAG_TRENDS)})
                   OR NOT coalesce(g.lag.records >= 0 AND g.lag.records <= {_FINITE}, TRUE)
                   OR NOT coalesce(g.lag.seconds >= 0 AND g.lag.seconds <= {_FINITE}, TRUE)))
            """,
            "a group's capacity, where the plan states one, is a finite number above zero "
            "in records/s or MiB/s with its source (given, saturation, busy-fraction, "
            "lower-bound or topic-default), and the members the topic's Tc would need "
            "instead, where stated, is at least 1 and only for a group with a Tc of its "
            "own; its lag, where observed, is finite and not "
            "negative in records and seconds, with a trend (growing, steady, shrinking)",
        ),
        query(
            f"{dataset}.group_cross_zone",
            f"""
            SELECT topic, g.group_id, g.cross_zone
            FROM {{batch}} LATERAL VIEW explode(groups) AS g
            WHERE g.cross_zone IS NOT NULL AND NOT coalesce(
                  {_cross_zone_sound("g.cross_zone")}, FALSE)
            """,
            "a group's cross-zone figure, where racks are known, is finite and not negative "
            "in bytes per day from leaders and with follower fetching, each mode's same-zone, "
            "cross-zone and unknown bytes add up to what the group reads, follower fetching "
            "never crosses more than fetching from leaders, and a cost is given exactly "
            "when a price is, no lower with follower fetching than from leaders",
        ),
        query(
            f"{dataset}.group_standbys",
            f"""
            SELECT topic, g.group_id, g.standbys
            FROM {{batch}} LATERAL VIEW explode(groups) AS g
            WHERE g.standbys IS NOT NULL AND NOT coalesce(
                  {_standbys_sound("g.standbys")}, FALSE)
            """,
            "a Kafka Streams group's standbys: num.standby.replicas given (at least 0) or "
            "unknown, at least S + 1 instances where given, standby tasks S times the "
            "stateful tasks (a range, least first), changelog reads S times the bytes "
            "written to its changelogs, each figure with its evidence",
        ),
        query(
            f"{dataset}.alternatives",
            f"""
            SELECT topic, status, alternatives, alternatives_coded FROM {{batch}}
            WHERE alternatives IS NULL OR alternatives_coded IS NULL
               OR size(alternatives) <> size(alternatives_coded)
               OR exists(alternatives_coded, a -> a.code NOT IN ({_sql_list(_ALTERNATIVES)}))
               OR (size(alternatives) > 0 AND status NOT IN ({_sql_list(planned)}))
            """,
            "a topic's protocol alternatives are given as sentences and in their coded form, "
            "one each, with the codes consumer-protocol-alternative, share-alternative or "
            "share-not-for-keyed, and only for a topic that was planned",
        ),
    ]


def _rule_rows() -> list[Expectation]:
    """The sizing rule in each dimension: enough partitions on each side for the target."""
    from spark_jobs.schemas import DIMENSIONS

    out: list[Expectation] = []
    for dim in DIMENSIONS:
        for rate in ("peak", "grown", "target"):
            out.append(finite_at_least(f"{dim}_{rate}_per_s", 0.0))
        # mib_out is one group's read rate: only the consumer side applies to it.
        sides = (
            (("consumer", "tc"),) if dim == "mib_out" else (("producer", "tp"), ("consumer", "tc"))
        )
        for side, _ in sides:
            out.append(
                _not_below(
                    f"{dim}_required_partitions",
                    f"{dim}_{side}_partitions",
                    f"the requirement in {dim} is the larger side's",
                )
            )
        unit = "mib_per_s" if dim.startswith("mib") else "records_per_s"
        # The consumer side is checked with the Tc it was sized with, which the row
        # states: the topic's, or its slowest group's own (`{dim}_consumer_capacity`).
        capacity = {"producer": f"tp_{unit}", "consumer": f"{dim}_consumer_capacity"}
        out.append(finite_at_least(f"{dim}_consumer_capacity", 0.0, strict=True))
        short = " OR ".join(
            f"{dim}_{side}_partitions * {capacity[side]} < {dim}_target_per_s * (1 - {_TOL})"
            for side, _ in sides
        )
        columns = [f"{dim}_target_per_s", f"tc_{unit}"]
        columns += [f"{capacity[side]}, {dim}_{side}_partitions" for side, _ in sides]
        out.append(
            query(
                f"sizing.rule.{dim}",
                f"SELECT topic, {', '.join(columns)} FROM {{batch}} WHERE {short}",
                f"the sizing rule in {dim}: on each measured side, partitions x the "
                "single-partition capacity reach the target (partitions >= target / Tp and "
                ">= target / Tc, with the Tc the consumer side states: the topic's, or its "
                "slowest group's own)",
            )
        )
    required = ", ".join(f"{dim}_required_partitions" for dim in DIMENSIONS)
    out.append(
        query(
            "sizing.rule.largest_dimension",
            f"""
            SELECT topic, rule_partitions, {required} FROM {{batch}}
            WHERE rule_partitions <> greatest({required})
            """,
            "the rule's requirement is the largest of the dimensions' requirements",
        )
    )
    return out


def sizing_output() -> list[Expectation]:
    """`sizing.output`: per topic, the rule in every dimension and the partition choice."""
    return _with_structure(
        "sizing",
        [
            *_topic_rows("sizing"),
            *_rule_rows(),
            query(
                "sizing.one_recommended_candidate",
                """
            SELECT topic, recommended_partitions,
                   size(filter(candidates, c -> c.is_recommended)) AS recommended_candidates
            FROM {batch}
            WHERE recommended_partitions IS NOT NULL AND (
                size(filter(candidates, c -> c.is_recommended)) <> 1
                OR NOT exists(candidates,
                              c -> c.is_recommended AND c.partitions = recommended_partitions))
            """,
                "exactly one candidate is marked recommended, and it is the recommended count",
            ),
        ],
    )


def recommendations_output() -> list[Expectation]:
    """`recommendations.output`: one published answer per topic per run, consistent."""
    from planner.assignors import STRATEGIES

    planned = _planned()
    return _with_structure(
        "recommendations",
        [
            *_topic_rows("recommendations"),
            # The chosen group's assignor, of whichever protocol it runs.
            in_set("strategy", _assignors(), "assignor"),
            at_least("recommended_consumers", 1, why="a consuming group needs at least one member"),
            query(
                "recommendations.consumers_within_partitions",
                f"""
                SELECT topic, consumers_group_id, strategy, recommended_consumers,
                       standby_consumers, recommended_partitions
                FROM {{batch}}
                WHERE strategy IN ({_sql_list(STRATEGIES)})
                  AND (consumers_group_id IS NULL OR exists(
                          groups, g -> g.group_id = consumers_group_id AND size(g.topics) = 1))
                  AND (standby_consumers IS NULL OR standby_consumers < 0
                       OR recommended_consumers - standby_consumers > recommended_partitions
                       OR (standby_consumers > 0 AND
                           recommended_consumers - standby_consumers <> recommended_partitions))
                """,
                # A group that reads several topics can use up to their partitions together,
                # and a share group (KIP-932) more consumers than partitions: both left out.
                "recommended_consumers less standby_consumers is at most "
                "recommended_partitions for a classic group that reads only this topic (or "
                "the one group planned for it): members beyond the partition count sit idle, "
                "and standbys (the minimum group size) come only once every partition has an "
                "owner",
            ),
            query(
                "recommendations.planned_has_consumers",
                f"""
            SELECT topic, status, recommended_consumers, strategy FROM {{batch}}
            WHERE (status IN ({_sql_list(planned)}))
                  <> (recommended_consumers IS NOT NULL AND strategy IS NOT NULL)
            """,
                "a planned topic has a consumer count and a strategy; an unplanned one neither",
            ),
        ],
    )


def simulations_output() -> list[Expectation]:
    """`simulations.output`: every candidate's assignment covers the partitions once
    (a share group's may share them), and what a join and a leave cost is consistent."""
    from planner.simulate.strategies import ALL_STRATEGIES, EAGER_STRATEGIES

    return _with_structure(
        "simulations",
        [
            *topic_name("topic"),
            unique(ROW_KEYS["simulations"]),
            in_set("scope", ("topic", "group"), "simulation scope"),
            at_least("partitions", 1),
            at_least("members", 1),
            in_set("strategy", ALL_STRATEGIES, "strategy key"),
            at_least("idle_members", 0),
            _not_below("members", "idle_members", "idle members are members"),
            _not_below(
                "max_member_partitions", "min_member_partitions", "the busiest owns the most"
            ),
            finite_at_least("max_load", 0.0),
            finite_at_least("min_load", 0.0),
            finite_at_least("mean_load", 0.0),
            finite_at_least("max_partition_load", 0.0),
            finite_at_least("imbalance", 1.0),
            finite_at_least("load_limit", 0.0, strict=True),
            query(
                "simulations.scope_keys",
                """
            SELECT scope, topic, group_id FROM {batch}
            WHERE (scope = 'topic' AND (topic IS NULL OR group_id IS NOT NULL))
               OR (scope = 'group' AND group_id IS NULL)
            """,
                "a topic's rows name the topic and no group; a multi-topic group's name the group",
            ),
            query(
                "simulations.each_partition_once",
                """
            SELECT scope, topic, group_id, partitions, members, strategy,
                   max_member_partitions, min_member_partitions, idle_members
            FROM {batch}
            WHERE max_member_partitions * (members - idle_members) < partitions
               OR (min_member_partitions * members > partitions
                   AND strategy NOT LIKE 'share:%')
               OR (min_member_partitions = 0) <> (idle_members > 0)
               OR (scope = 'topic' AND strategy NOT LIKE 'share:%' AND (
                      max_member_partitions <> ceil(partitions / members)
                   OR min_member_partitions <> floor(partitions / members)
                   OR idle_members <> greatest(0, members - partitions)))
            """,
                "the members' partition counts are those of an assignment that gives each "
                "partition to exactly one member: the owners can hold them all and no more, "
                "only idle members own none, and a one-topic group gets ceil(P/C) or "
                "floor(P/C) each with max(0, C-P) idle (a share group's members may share "
                "a partition, so they may hold more than all of them)",
            ),
            query(
                "simulations.loads_ordered",
                f"""
            SELECT scope, topic, group_id, partitions, members, strategy,
                   min_load, mean_load, max_load, max_partition_load
            FROM {{batch}}
            WHERE min_load > mean_load * {_ONE_PLUS_TOL} + {_TOL}
               OR mean_load > max_load * {_ONE_PLUS_TOL} + {_TOL}
               OR max_partition_load > max_load * {_ONE_PLUS_TOL} * (CASE
                      WHEN strategy LIKE 'share:%' THEN ceil(members / partitions) ELSE 1 END)
                   + {_TOL}
            """,
                "min_load <= mean_load <= max_load, and the busiest member carries at least the "
                "busiest partition (every partition has an owner; in a share group, whose "
                "ceil(C/P) members a partition split its records, at least its share)",
            ),
            query(
                "simulations.load_adds_up",
                f"""
            SELECT run, scope, topic, group_id,
                   min(mean_load * members) AS least_total, max(mean_load * members) AS most_total
            FROM {{batch}} GROUP BY run, scope, topic, group_id
            HAVING max(mean_load * members) - min(mean_load * members)
                   > {_TOL} * greatest(1.0D, max(mean_load * members))
            """,
                "the members' loads add up to the topic's load: mean load x members is the same "
                "for every candidate count, group size and strategy of a topic (or group)",
            ),
            query(
                "simulations.capacity_flags",
                f"""
            SELECT scope, topic, group_id, partitions, members, strategy,
                   max_load, load_limit, within_capacity, max_partition_load, hot_partition
            FROM {{batch}}
            WHERE within_capacity <> (max_load <= load_limit * {_ONE_PLUS_TOL})
               OR hot_partition <> (max_partition_load > 1.0D)
            """,
                "within_capacity says the busiest member is within the load limit (relative "
                "tolerance 1e-9, as the simulation core), hot_partition that the busiest "
                "partition is above one consumer's capacity (1.0: loads are in consumers)",
            ),
            *_event_cost_rows(EAGER_STRATEGIES),
        ],
    )


def _event_cost_rows(eager: frozenset[str]) -> list[Expectation]:
    """The scale-event cost columns (`planner.simulate.churn.COST_COLUMNS`,
    docs/simulation.md 4.1): given together, where the churn is, and consistent with
    the protocol of the row's strategy key."""
    from planner.simulate.churn import COST_COLUMNS

    given = " + ".join(f"CASE WHEN {c} IS NULL THEN 0 ELSE 1 END" for c in COST_COLUMNS)
    return [
        at_least("grow_rounds", 1, maximum=2, why="one rebalance round, two for cooperative"),
        at_least("shrink_rounds", 1, maximum=2, why="one rebalance round, two for cooperative"),
        finite_at_least("grow_paused_partition_s", 0.0),
        finite_at_least("shrink_paused_partition_s", 0.0),
        finite_at_least("shrink_locked_record_s", 0.0),
        query(
            "simulations.event_costs",
            f"""
            SELECT scope, topic, group_id, partitions, members, strategy, stops_group,
                   grow_rounds, shrink_rounds, grow_revoked, shrink_revoked,
                   shrink_locked_record_s
            FROM {{batch}}
            WHERE ({given}) NOT IN (0, 6)
               OR (stops_group IS NOT NULL AND (grow_moved IS NULL OR shrink_moved IS NULL))
               OR stops_group <> (strategy IN ({_sql_list(sorted(eager))}))
               OR (stops_group AND (grow_revoked <> partitions OR shrink_revoked <> partitions))
               OR (strategy NOT LIKE 'share:%' AND shrink_locked_record_s <> 0.0D)
               OR (strategy <> 'cooperative-sticky' AND (grow_rounds <> 1 OR shrink_rounds <> 1))
               OR (strategy = 'cooperative-sticky' AND (
                      grow_rounds <> CASE WHEN grow_moved > 0 THEN 2 ELSE 1 END
                   OR shrink_rounds <> CASE WHEN shrink_moved > 0 THEN 2 ELSE 1 END))
            """,
            "a row's event costs are all given or all left out, and only where its churn is; "
            "a scale event stops the whole group (every partition revoked) exactly for the "
            "classic eager strategies (range, roundrobin, sticky); only a share group's "
            "leaver leaves records locked; every protocol rebalances in one round but "
            "cooperative-sticky, which takes two when anything moves",
        ),
    ]
