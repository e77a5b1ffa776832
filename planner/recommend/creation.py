"""Creation plans: what the planner says about a topic that does not exist yet.

A topic with no partition count today (its topics row leaves `partitions` empty, as
`plan_new_topic` writes it) is not short of partitions: it is to be **created**, and the
consumer groups that will read it are to be **deployed**, not resized. This module is
the one place that decides so and words it; the sizing, the report pages, `summary.md`,
`recommendations.json`, the store and `partition-planner show` all call it.

Statuses:

- `create` (a topic's): the topic does not exist yet; create it with the recommended
  count (`kafka-topics.sh --create`).
- `deploy` (a consumer group's): a group with no member yet, reading a topic to be
  created; run the recommended members (the minimum group size's standbys included).

Example:

    >>> topic_status("increase", current_partitions=None)
    'create'
    >>> create_headline("payments.v2", partitions=18, replication_factor=3)
    'create payments.v2 with 18 partitions, replication factor 3'
    >>> create_command("payments.v2", partitions=18, replication_factor=3)
    'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --create --topic payments.v2 \
--partitions 18 --replication-factor 3'
    >>> deploy_headline(members=2, standby=1)
    'deploy 2 members (1 of them standing by)'
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "CREATE",
    "CREATION_STATUSES",
    "DEPLOY",
    "capacity_source",
    "create_command",
    "create_cost",
    "create_headline",
    "creation_rationale",
    "deploy_headline",
    "group_status",
    "growth_from_request",
    "growth_given",
    "is_creation",
    "is_deployment",
    "request_capacity_source",
    "request_summary",
    "topic_status",
]

#: A topic's status when it does not exist yet.
CREATE = "create"
#: A consumer group's status when it has no member yet and reads a topic to be created.
DEPLOY = "deploy"
#: Both, for code that asks "is this a creation plan's status".
CREATION_STATUSES = frozenset({CREATE, DEPLOY})
_MIB = float(2**20)


def is_creation(current_partitions: int | None) -> bool:
    """Whether a plan is a creation plan: the topic has no partition count today."""
    return current_partitions is None


def topic_status(sized: str, *, current_partitions: int | None) -> str:
    """The topic's status: `create` for a topic that does not exist yet, else `sized`.

    Args:
        sized: The status the partition choice gives an existing topic (`ok`,
            `plan-increase`, `increase`).
        current_partitions: Partitions today (None: the topic does not exist).
    """
    return CREATE if is_creation(current_partitions) else sized


def is_deployment(*, current_members: int, creating: bool) -> bool:
    """Whether a group is to be deployed: no member yet, reading a topic to be created.

    Args:
        current_members: Members today.
        creating: Whether the topic (every topic the group reads) is to be created.
    """
    return creating and current_members == 0


def group_status(sized: str, *, current_members: int, creating: bool) -> str:
    """A group's status: `deploy` for a group to be deployed (`is_deployment`), else
    `sized`, the status an existing group gets (`ok`, `under-provisioned`, ...)."""
    return DEPLOY if is_deployment(current_members=current_members, creating=creating) else sized


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def create_headline(topic: str, *, partitions: int, replication_factor: int | None) -> str:
    """ "create <topic> with N partitions, replication factor R" (plain text)."""
    rf = f", replication factor {replication_factor}" if replication_factor else ""
    return f"create {topic} with {_plural(partitions, 'partition')}{rf}"


def create_command(topic: str, *, partitions: int, replication_factor: int | None) -> str:
    """The `kafka-topics.sh --create` command line (the topic shell-quoted)."""
    rf = f" --replication-factor {replication_factor}" if replication_factor else ""
    return (
        'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --create '
        f"--topic {shlex.quote(topic)} --partitions {partitions}{rf}"
    )


#: What `create_cost` says of a creation: these figures of the cost panel
#: (`planner.cost.COST_FIELDS`), with the partition count.
CREATE_COST_FIELDS = (
    "replicas_total",
    "replicas_per_broker",
    "replicas_per_broker_limit",
    "producer_batch_memory_bytes",
    "consumer_threads",
)


def create_cost(
    *,
    partitions: int,
    replicas_total: int,
    replicas_per_broker: int,
    replicas_per_broker_limit: int,
    producer_batch_memory_bytes: int,
    consumer_threads: int,
) -> str:
    """What creating the topic costs the cluster and its clients, in one sentence.

    Args:
        partitions: The count it is created with.
        replicas_total: `partitions x replication_factor`.
        replicas_per_broker: This topic's replicas on the busiest broker.
        replicas_per_broker_limit: The configured limit per broker.
        producer_batch_memory_bytes: One producer's batch buffers, bytes.
        consumer_threads: Threads one group needs to read every partition at once.
    """
    return (
        f"{_plural(replicas_total, 'partition replica')} on the cluster "
        f"({replicas_per_broker:,} on the busiest broker, limit {replicas_per_broker_limit:,}); "
        f"{producer_batch_memory_bytes / _MIB:,.2f} MiB of batch buffers per producer; "
        f"up to {_plural(consumer_threads, 'consumer thread')} per group for "
        f"{_plural(partitions, 'partition')}"
    )


def deploy_headline(*, members: int, standby: int = 0) -> str:
    """ "deploy N members" with the standbys the minimum group size asks for."""
    by = f" ({standby:,} of them standing by)" if standby else ""
    return f"deploy {_plural(members, 'member')}{by}"


def growth_given(growth_per_year: float) -> str:
    """The growth method of a creation plan whose growth the request gave."""
    return f"given in the request ({growth_per_year:+.0%}/year)"


def capacity_source(
    *,
    tp_numbers: bool,
    tc_numbers: bool,
    producer_perf_file: str | None,
    consumer_perf_file: str | None,
) -> str:
    """Where a creation plan's Tp and Tc came from, in words.

    Args:
        tp_numbers: Tp was given as numbers in the request.
        tc_numbers: Tc was given as numbers in the request.
        producer_perf_file: The kafka-producer-perf-test output Tp was read from.
        consumer_perf_file: The kafka-consumer-perf-test output Tc was read from.
    """
    parts = []
    for side, numbers, file, tool in (
        ("Tp", tp_numbers, producer_perf_file, "producer"),
        ("Tc", tc_numbers, consumer_perf_file, "consumer"),
    ):
        if file:
            parts.append(f"{side} read from kafka-{tool}-perf-test output {file}")
        elif numbers:
            parts.append(f"{side} given in the request")
    if len(parts) == 2 and all(p.endswith("given in the request") for p in parts):
        return "Tp and Tc given in the request"
    return "; ".join(parts) or "no Tp or Tc in the request"


def _given(parameters: Mapping[str, Any], name: str) -> bool:
    value = parameters.get(name)
    return value is not None and str(value).strip() != ""


def _file(parameters: Mapping[str, Any], name: str) -> str | None:
    return str(parameters[name]) if _given(parameters, name) else None


def request_capacity_source(parameters: Mapping[str, Any]) -> str:
    """`capacity_source` from a request's parameters (`plan_new_topic`'s names)."""
    return capacity_source(
        tp_numbers=_given(parameters, "tp_mib_per_s") or _given(parameters, "tp_records_per_s"),
        tc_numbers=_given(parameters, "tc_mib_per_s") or _given(parameters, "tc_records_per_s"),
        producer_perf_file=_file(parameters, "producer_perf_file"),
        consumer_perf_file=_file(parameters, "consumer_perf_file"),
    )


def growth_from_request(parameters: Mapping[str, Any]) -> bool:
    """Whether a creation plan's growth is the request's: peaks given as numbers make one
    day of figures, which fits no trend, so the request's growth is applied as the
    floor; a throughput file may hold weeks, whose growth is fitted as the fleet's."""
    return not _given(parameters, "figures_file")


#: The request's parameters in the order a reader asks about them, with their labels.
_SHOWN = (
    ("peak_mib_per_s", "peak MiB/s", "{:g}"),
    ("peak_records_per_s", "peak records/s", "{:,.0f}"),
    ("figures_file", "throughput file", "{}"),
    ("growth_per_year", "growth/year", "{:+.0%}"),
    ("horizon_days", "horizon days", "{:g}"),
    ("keyed", "keyed", "{}"),
    ("partitioner", "partitioner", "{}"),
    ("key_sample_file", "key sample", "{}"),
    ("tp_mib_per_s", "Tp MiB/s", "{:g}"),
    ("tp_records_per_s", "Tp records/s", "{:,.0f}"),
    ("tc_mib_per_s", "Tc MiB/s", "{:g}"),
    ("tc_records_per_s", "Tc records/s", "{:,.0f}"),
    ("producer_perf_file", "producer perf-test", "{}"),
    ("consumer_perf_file", "consumer perf-test", "{}"),
    ("consumer_groups", "groups", "{}"),
    ("strategy", "strategy", "{}"),
    ("replication_factor", "replication factor", "{:g}"),
    ("brokers", "brokers", "{:g}"),
)


def request_summary(parameters: Mapping[str, Any]) -> str:
    """The request's parameters in one line ("peak MiB/s 40 · growth/year +50% · ...").

    Args:
        parameters: The request's parameters as given (None and empty: not given);
            `topic` is left out (the plan names it).
    """
    shown: list[str] = []
    for name, label, form in _SHOWN:
        value = parameters.get(name)
        if value is None or value == "" or value == [] or value == ():
            continue
        if isinstance(value, Sequence) and not isinstance(value, str):
            text = ", ".join(str(v) for v in value)
        elif isinstance(value, bool):
            text = "yes" if value else "no"
        else:
            try:
                text = form.format(value)
            except (TypeError, ValueError):
                text = str(value)
        shown.append(f"{label} {text}")
    return " \u00b7 ".join(shown)


# The sizing's sentence on Tp and Tc names the capacity row ("from the topic's own
# measurement, <source>"): for a creation plan the request is the source.
_CAPACITY_ORIGIN = re.compile(r" per partition from [^;]*")


def creation_rationale(
    sentences: Iterable[str], *, growth_from_request: bool, capacity: str
) -> tuple[str, ...]:
    """A creation plan's rationale: the sizing's sentences, with the growth and Tp/Tc
    told by where they came from.

    Args:
        sentences: The plan's rationale as the sizing wrote it.
        growth_from_request: The growth is the request's (it gave peaks, not a file),
            which the sizing applied as its floor.
        capacity: Where Tp and Tc came from (`capacity_source`).
    """
    out = []
    for sentence in sentences:
        if sentence.startswith("Tp ") and " per partition from " in sentence:
            sentence = _CAPACITY_ORIGIN.sub(" per partition", sentence) + f" ({capacity})"
        elif growth_from_request:
            sentence = sentence.replace("/year (floor)", "/year (given in the request)")
        out.append(sentence)
    return tuple(out)
