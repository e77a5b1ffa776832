"""The validation steps' operator: a Spark submission whose data verdict is not retried.

A validation step is retried like any Spark step when its submission dies (a lost node,
the OOM killer): the retry ends as a run that was not disturbed. But when the suites
ran and the data failed them, the same data fails them again: a retry costs one more
Spark application and delays the failure's alert. The step's own record tells the two
apart: `planner.pipeline.validation` saves the stage's result in the run's state folder
before it exits 1, and only when the suites ran. A failed submission that left a
failed result written during this attempt fails the task at once, without retries
(`AirflowFailException`), with the validation's message as the error; any other failure
is left to Airflow's retries.

Imported by `planner.pipeline.operators.spark_step` when a DAG file is parsed: it
imports only the Spark provider's operator and the standard library at the top.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator
from airflow.sdk.exceptions import AirflowException, AirflowFailException

__all__ = ["ValidationSubmitOperator", "data_verdict"]


def data_verdict(plan: Mapping[str, Any], stage: str, since: datetime) -> str | None:
    """The failure message of `stage` when the run's saved result says its data failed
    the suites at or after `since`; None when there is no such result (the submission
    failed before or outside the suites: a retry may help).

    Args:
        plan: The run plan's XCom (`RunPlan.to_xcom`): where the state folder is.
        stage: `inputs` or `outputs`.
        since: When this attempt started, UTC.
    """
    from planner.pipeline.state import load_stage

    state = Path(plan["workspace"]["work"]) / "runs" / str(plan["run_key"])
    result = load_stage(state, stage)
    if result is None or result.success:
        return None
    try:
        finished = datetime.fromisoformat(result.finished_at)
    except ValueError:
        return None
    if finished < since:
        return None  # an earlier attempt's verdict: this one failed before the suites
    return result.message


class ValidationSubmitOperator(SparkSubmitOperator):
    """`SparkSubmitOperator` for `validate_inputs` and `validate_outputs` that fails
    without retries when the data failed the suites (see the module's docstring).

    Args:
        plan_task: The task whose XCom holds the run plan.
        stage: `inputs` or `outputs`.
        **kwargs: `SparkSubmitOperator`'s arguments.
    """

    def __init__(self, *, plan_task: str, stage: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plan_task = plan_task
        self.stage = stage

    def execute(self, context: Any) -> None:
        started = datetime.now(UTC)
        try:
            super().execute(context)
        except AirflowException as exc:
            plan = context["ti"].xcom_pull(task_ids=self.plan_task)
            verdict = data_verdict(plan, self.stage, started) if plan else None
            if verdict is None:
                raise
            raise AirflowFailException(
                f"validate_{self.stage}: the data failed validation; the same data would "
                f"fail again, so this task is not retried:\n{verdict}"
            ) from exc
