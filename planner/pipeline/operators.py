"""The Spark steps of the DAGs as `SparkSubmitOperator`s, templated from the run plan.

Imported by the DAG files at parse time, so it imports only the Spark provider's
operator, the standard library and `planner.deployment` (no Spark, no Arrow). The
application file and its arguments come from the XCom of the run's first task
(`planner.pipeline.tasks.RunPlan`), rendered as native Python values: the DAG must set
`render_template_as_native_obj=True`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from planner.deployment import SPARK_CONN_ID
from planner.pipeline.steps import SPARK_STEPS

__all__ = ["run_after", "spark_step", "spark_steps"]


def spark_step(step: str, *, plan_task: str, **kwargs: Any) -> Any:
    """A real Spark submission of one step of the run.

    Args:
        step: `validate_inputs`, `size_and_simulate` or `validate_outputs` (also the
            task id).
        plan_task: The task whose XCom holds the run plan.
        **kwargs: Further operator arguments (retries, ...).
    """
    from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

    from planner.pipeline.validation_operator import ValidationSubmitOperator

    spark = f"ti.xcom_pull(task_ids={plan_task!r})['spark'][{step!r}]"
    # One retry each: a submission killed half-way (a lost node, the OOM killer) is run
    # again and ends as one that was not. Data that failed a validation's suites fails
    # without a retry (`ValidationSubmitOperator`).
    kwargs.setdefault("retries", 1)
    validation = step.startswith("validate_")
    kwargs.setdefault("retry_delay", timedelta(seconds=10) if validation else timedelta(minutes=1))
    if validation:
        kwargs.update(plan_task=plan_task, stage=step.removeprefix("validate_"))
    operator = ValidationSubmitOperator if validation else SparkSubmitOperator
    return operator(
        task_id=step,
        conn_id=SPARK_CONN_ID,
        application="{{ " + spark + "['application'] }}",
        application_args="{{ " + spark + "['args'] }}",  # type: ignore[arg-type]
        # Driver memory and JVM options: spark-submit starts the driver before the job
        # reads its config, so they go on the submission.
        conf="{{ " + spark + "['conf'] }}",  # type: ignore[arg-type]
        name=f"partition-planner-{step}",
        # The workers' interpreter, and loopback for a local-mode driver: the plan
        # knows the master the connection names (`planner.pipeline.jobs.launch_env`).
        env_vars="{{ " + spark + "['env'] }}",  # type: ignore[arg-type]
        doc_md=f"Spark submission of `{step}` for the run's data interval "
        f"(application and arguments from `{plan_task}`).",
        **kwargs,
    )


def spark_steps(*, plan_task: str) -> list[Any]:
    """Every Spark step of a run, in order (see `spark_step`)."""
    return [spark_step(step, plan_task=plan_task) for step in SPARK_STEPS]


def run_after(
    plan: Any,
    *,
    plan_task: str,
    publish_retries: Mapping[str, Any],
    outlets: Sequence[Any] = (),
    new_topic: bool = False,
) -> None:
    """The rest of a run after the task that made its plan: the Spark steps, `publish`,
    and `record_failure`, wired the same way in both DAGs.

    `record_failure` records a failed run in the store, then fails itself: as the run's
    only leaf, it makes the run show as failed.

    Args:
        plan: The first task's output (its XCom holds the run plan).
        plan_task: That task's id.
        publish_retries: `publish`'s retry arguments.
        outlets: `publish`'s outlets (assets downstream DAGs may schedule on).
        new_topic: Whether the run plans one new topic (`plan_new_topic`).
    """
    from airflow.sdk import TriggerRule, chain, task

    @task(task_id="publish", outlets=list(outlets), **publish_retries)
    def publish(plan: dict[str, Any], **context: Any) -> dict[str, Any]:
        from planner.pipeline.tasks import publish_task

        return publish_task(plan, context)

    @task(task_id="record_failure", trigger_rule=TriggerRule.ONE_FAILED, retries=0)
    def record_failure(**context: Any) -> None:
        from planner.pipeline.tasks import record_failure_task

        record_failure_task(
            context["ti"].xcom_pull(task_ids=plan_task), context, new_topic=new_topic
        )

    # validate_inputs -> size_and_simulate -> validate_outputs
    steps = spark_steps(plan_task=plan_task)
    published = publish(plan)
    chain(plan, *steps, published)
    [plan, *steps, published] >> record_failure()
