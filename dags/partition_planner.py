"""
# partition_planner

Every day, for the UTC day that just ended: how many partitions each Kafka topic needs,
how many consumers each group needs, and why.

1. `collect_figures` (Python, retried with backoff): the configured sources (landing
   files, Prometheus, the Kafka admin API) into the figures dataset for the data
   interval, with any missing history days; bad rows go to the `rejected` table.
2. `validate_inputs` (Spark submission): the Great Expectations input suites on the
   figures the sizing reads.
3. `size_and_simulate` (Spark submission): both Spark jobs in one application, so the
   second does not pay a second JVM and Python worker start-up. `size_partitions`:
   the sizing rule, growth, key skew and the cost panel for every topic; then
   `simulate_assignments`: every candidate group size and strategy for every topic
   and consumer group, and the recommendations.
4. `validate_outputs` (Spark submission): the output suites on the three datasets.
5. `publish` (Python, retried with backoff): store rows, report site and Data Docs, only
   for a validated run; emits the `partition_planner_recommendations` asset. A run that
   newly leaves more than `[publish] max_new_unsized_share` (10 %) of the fleet without a
   partition count, against the last good run, is held: the task fails naming the
   topics and why, and the last good report stays. Trigger the run again with the
   parameter `accept_degraded` set to publish it anyway.
6. `record_failure` (Python, only if something failed): the failure into the store's
   run history; then it fails itself, so that the run shows as failed.

A run reads and writes only its own data interval, so a rerun or
`airflow backfill create --dag-id partition_planner --from-date ... --to-date ...`
replaces exactly those intervals. A failed run publishes nothing: the last good report
and store rows stay.

Configuration: the planner config file named by the Airflow Variable `planner_config`
(or the environment variable `PLANNER_CONFIG`), and the connections `planner_spark`,
`planner_store`, `planner_kafka`, `planner_prometheus` (see docs/deployment.md).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, TypedDict

import pendulum
from airflow.sdk import Asset, CronDataIntervalTimetable, Param, dag, task

from planner.pipeline.operators import run_after

#: What `publish` produces; downstream DAGs can schedule on it.
RECOMMENDATIONS = Asset("partition_planner_recommendations")


class _Retries(TypedDict):
    retries: int
    retry_delay: timedelta
    retry_exponential_backoff: bool
    max_retry_delay: timedelta


#: Retries of the Python tasks (a TypedDict, so that `@task(**RETRY_WITH_BACKOFF)` keeps
#: the task's types).
RETRY_WITH_BACKOFF: _Retries = {
    "retries": 3,
    "retry_delay": timedelta(seconds=30),
    "retry_exponential_backoff": True,
    "max_retry_delay": timedelta(minutes=10),
}


@dag(
    dag_id="partition_planner",
    doc_md=__doc__,
    # The UTC day that ended: data_interval_start/end are that day's bounds.
    schedule=CronDataIntervalTimetable("0 0 * * *", timezone="UTC"),
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    render_template_as_native_obj=True,
    default_args={"owner": "kafka-platform"},
    tags=["kafka", "capacity-planning"],
    params={
        "accept_degraded": Param(
            False,
            type="boolean",
            title="Publish even if degraded",
            description="publish a run the guard holds: one that newly leaves more than "
            "[publish] max_new_unsized_share of the fleet without a partition count",
        ),
    },
)
def partition_planner() -> None:
    @task(**RETRY_WITH_BACKOFF)
    def collect_figures(**context: Any) -> dict[str, Any]:
        from planner.pipeline.tasks import collect_task

        return collect_task(context)

    run_after(
        collect_figures(),
        plan_task="collect_figures",
        publish_retries=RETRY_WITH_BACKOFF,
        outlets=[RECOMMENDATIONS],
    )


partition_planner()
