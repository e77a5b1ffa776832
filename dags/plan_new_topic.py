"""
# plan_new_topic

Trigger by hand to plan a topic that does not exist yet: how many partitions to create
it with, how many consumers its groups need, and why. The form asks what is expected
of it; the run sizes, simulates, validates and publishes it exactly as the daily
`partition_planner` run does for the fleet, and publishes its own report page beside
the fleet's report (`<report>-new-topics/<topic>/index.html`). Its store run has the
scope `topic:<name>`, so it never replaces the fleet's rows; `partition-planner show
<topic>` prints it.

Give **either** the expected peak (MiB/s and records/s) **or** `figures_file` (a
throughput file in the landing format, e.g. from a similar topic or a load test), and
**either** the Tp/Tc numbers **or** kafka-producer/consumer-perf-test output files
(paths the workers can read).

From the command line:

    airflow dags trigger plan_new_topic --conf '{"topic": "payments.v2",
        "peak_mib_per_s": 40, "peak_records_per_s": 60000, "growth_per_year": 0.5,
        "keyed": true, "tp_mib_per_s": 10, "tc_mib_per_s": 4,
        "consumer_groups": ["fraud-scoring", "ledger"]}'
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pendulum
from airflow.sdk import Param, dag, task

from planner.choices import ASSIGNORS, DEFAULT_PARTITIONER, PARTITIONERS, PROTOCOLS
from planner.pipeline.operators import run_after

_POSITIVE_OR_EMPTY: dict[str, Any] = {"type": ["null", "number"], "exclusiveMinimum": 0}
_PATH_OR_EMPTY: dict[str, Any] = {"type": ["null", "string"]}

# The form's sections: their titles say which inputs go together. A field with a
# default allows null, so the form does not mark it required (Airflow marks every field
# whose type refuses null); the task fills in the default for a field left empty.
_TOPIC = "The topic"
_LOAD = "Expected load: both peaks, or a throughput file instead"
_CAPACITY = "Tp and Tc per side: numbers, or a perf-test output file instead"
_READERS = "Who will read it"
_KAFKA_RULE = "Kafka's rule: 1 to 249 of a-z A-Z 0-9 . _ -, not . or .."

# Airflow's refusal of a bad topic name quotes the schema: its `$comment` puts the rule
# in words beside the pattern, where the person reads it.
_RULE_IN_WORDS: dict[str, Any] = {"$comment": _KAFKA_RULE}

PARAMS = {
    "topic": Param(
        type="string",
        # The negative look-ahead refuses "." and "..", which Kafka refuses too.
        pattern=r"^(?!\.\.?$)[a-zA-Z0-9._-]{1,249}$",
        title="Topic name",
        description=_KAFKA_RULE,
        section=_TOPIC,
        **_RULE_IN_WORDS,
    ),
    "replication_factor": Param(
        3, type=["null", "integer"], minimum=1, title="Replication factor", section=_TOPIC
    ),
    "brokers": Param(
        3, type=["null", "integer"], minimum=1, title="Brokers in the cluster", section=_TOPIC
    ),
    "keyed": Param(
        False,
        type=["null", "boolean"],
        title="Keyed",
        description="producers set a key and consumers rely on per-key order",
        section=_TOPIC,
    ),
    # A list to choose from is not marked required (its default is chosen).
    "partitioner": Param(
        DEFAULT_PARTITIONER, enum=list(PARTITIONERS), title="Producers' partitioner", section=_TOPIC
    ),
    "key_sample_file": Param(
        None,
        title="Key sample file (CSV: key or key_hex, count)",
        description="keyed topics only: a path the workers can read",
        section=_TOPIC,
        **_PATH_OR_EMPTY,
    ),
    "peak_mib_per_s": Param(
        None,
        title="Expected peak, MiB/s in",
        description="give it with records/s; leave both empty for a throughput file",
        section=_LOAD,
        **_POSITIVE_OR_EMPTY,
    ),
    "peak_records_per_s": Param(
        None, title="Expected peak, records/s in", section=_LOAD, **_POSITIVE_OR_EMPTY
    ),
    "figures_file": Param(
        None,
        title="Throughput file (landing format)",
        description="instead of the two peaks: e.g. a similar topic's figures or a load test",
        section=_LOAD,
        **_PATH_OR_EMPTY,
    ),
    "growth_per_year": Param(
        0.0,
        type=["null", "number"],
        exclusiveMinimum=-1,
        title="Expected growth per year",
        description="a fraction: 0.5 = +50 % a year",
        section=_LOAD,
    ),
    "horizon_days": Param(
        180,
        type=["null", "integer"],
        minimum=0,
        title="Planning horizon, days",
        section=_LOAD,
    ),
    "tp_mib_per_s": Param(
        None,
        title="Tp: MiB/s one partition takes in",
        description="Tp (producing) and Tc (consuming): numbers, or that side's perf-test file",
        section=_CAPACITY,
        **_POSITIVE_OR_EMPTY,
    ),
    "tp_records_per_s": Param(
        None, title="Tp: records/s one partition takes in", section=_CAPACITY, **_POSITIVE_OR_EMPTY
    ),
    "producer_perf_file": Param(
        None,
        title="Tp from kafka-producer-perf-test output",
        description="instead of the Tp numbers: a path the workers can read",
        section=_CAPACITY,
        **_PATH_OR_EMPTY,
    ),
    "tc_mib_per_s": Param(
        None,
        title="Tc: MiB/s one consumer reads from a partition",
        section=_CAPACITY,
        **_POSITIVE_OR_EMPTY,
    ),
    "tc_records_per_s": Param(
        None, title="Tc: records/s one consumer reads", section=_CAPACITY, **_POSITIVE_OR_EMPTY
    ),
    "consumer_perf_file": Param(
        None,
        title="Tc from kafka-consumer-perf-test output",
        description="instead of the Tc numbers: a path the workers can read",
        section=_CAPACITY,
        **_PATH_OR_EMPTY,
    ),
    "consumer_groups": Param(
        [],
        type=["null", "array"],
        items={"type": "string", "minLength": 1},
        title="Consumer groups that will read it",
        description="one group id per line; none: sized as one group reading only this topic",
        section=_READERS,
    ),
    "strategy": Param(
        "cooperative-sticky",
        enum=list(ASSIGNORS),
        title="Their assignor",
        description=(
            "one of their protocol's: classic range, roundrobin, sticky, cooperative-sticky "
            "or stream (Kafka Streams); consumer uniform or range; share simple; streams sticky"
        ),
        section=_READERS,
    ),
    "protocol": Param(
        "classic",
        enum=list(PROTOCOLS),
        title="Their group protocol",
        description=(
            "classic; consumer (KIP-848, group.protocol=consumer); share (KIP-932, a share "
            "group: members past the partition count, no per-key order); streams (KIP-1071)"
        ),
        section=_READERS,
    ),
}


@dag(
    dag_id="plan_new_topic",
    doc_md=__doc__,
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    params=PARAMS,
    render_template_as_native_obj=True,
    default_args={"owner": "kafka-platform"},
    tags=["kafka", "capacity-planning"],
)
def plan_new_topic() -> None:
    @task(retries=2, retry_delay=timedelta(seconds=30), retry_exponential_backoff=True)
    def prepare_new_topic(**context: Any) -> dict[str, Any]:
        from planner.pipeline.tasks import new_topic_task

        return new_topic_task(context["params"], context)

    run_after(
        prepare_new_topic(),
        plan_task="prepare_new_topic",
        publish_retries={
            "retries": 3,
            "retry_delay": timedelta(seconds=30),
            "retry_exponential_backoff": True,
        },
        new_topic=True,
    )


plan_new_topic()
