"""
# apply_plan

Trigger by hand to make a published run's partition changes on the cluster, after a
person approves them. `list_changes` reads the run (the last good fleet run unless
`run` names one) and its change list (`topics` narrows it), dry-runs it against the
cluster (the broker validates each change; nothing is changed) and shows the result in
the approval; `approve_changes` waits for a person (Airflow's human-in-the-loop
approval: **Required Actions** in the UI); `apply_changes` then runs `partition-planner
apply --execute` for exactly the approved changes (the run key, the topics and their
counts), as the approver. A keyed topic is changed only with `allow_key_remap`;
rejecting skips `apply_changes`. Every attempt is in the store (`partition-planner
show TOPIC`).

From the command line:

    airflow dags trigger apply_plan --conf '{"run": "latest", "topics": ["orders"]}'
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pendulum
from airflow.providers.standard.operators.hitl import ApprovalOperator
from airflow.sdk import Param, dag, task

PARAMS = {
    "run": Param(
        "latest",
        type="string",
        minLength=1,
        title="Published run",
        description="a fleet run's key (e.g. 20261120T0000Z), or latest",
    ),
    "topics": Param(
        [],
        type=["null", "array"],
        items={"type": "string", "minLength": 1},
        title="Only these topics",
        description="one topic per line; none: every change of the run",
    ),
    "allow_key_remap": Param(
        False,
        type="boolean",
        title="Allow key remaps",
        description="change keyed topics too: most of their keys move to another partition",
    ),
}
_LISTED = "ti.xcom_pull(task_ids='list_changes')"


@dag(
    dag_id="apply_plan",
    doc_md=__doc__,
    schedule=None,
    start_date=pendulum.datetime(2026, 1, 1, tz="UTC"),
    catchup=False,
    max_active_runs=1,
    params=PARAMS,
    default_args={"owner": "kafka-platform"},
    tags=["kafka", "capacity-planning"],
)
def apply_plan() -> None:
    @task(retries=2, retry_delay=timedelta(seconds=30), retry_exponential_backoff=True)
    def list_changes(**context: Any) -> dict[str, Any]:
        from planner.pipeline.apply_tasks import list_changes_task

        return list_changes_task(context["params"], context)

    approve_changes = ApprovalOperator(
        task_id="approve_changes",
        subject="{{ " + _LISTED + "['subject'] }}",
        body="{{ " + _LISTED + "['body'] }}",
        response_timeout=timedelta(days=1),
    )

    # No retry: a change made and then retried would meet its own count ("no-op"), but
    # a failure here is for a person to read first.
    @task(retries=0)
    def apply_changes(listed: dict[str, Any], **context: Any) -> dict[str, Any]:
        from planner.pipeline.apply_tasks import apply_task

        return apply_task(listed, context)

    # The XCom stands for the dict `list_changes` returns, which the next task gets.
    listed: Any = list_changes()
    listed >> approve_changes >> apply_changes(listed)


apply_plan()
