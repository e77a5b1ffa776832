"""The DAG files: they import cleanly, light, and have the structure the runbook says."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.dags.conftest import ROOT, airflow_env

DAGS = ROOT / "dags"
STEPS = ["validate_inputs", "size_and_simulate", "validate_outputs"]
HEAVY = ("pyspark", "pandas", "great_expectations", "confluent_kafka", "kafka")


@pytest.fixture(scope="module")
def dag_bag(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The DAG bag of dags/, parsed as the DAG processor parses it."""
    env = airflow_env(tmp_path_factory.mktemp("airflow-bag"), None)
    os.environ.update({k: v for k, v in env.items() if k.startswith("AIRFLOW")})
    from airflow.dag_processing.dagbag import DagBag

    return DagBag(dag_folder=str(DAGS))


def test_the_dag_files_import_without_errors(dag_bag: Any) -> None:
    assert dag_bag.import_errors == {}
    assert sorted(dag_bag.dags) == ["apply_plan", "partition_planner", "plan_new_topic"]
    for path in DAGS.glob("*.py"):
        assert path.stem in dag_bag.dags, f"{path.name}: the file name is the dag_id"


@pytest.mark.parametrize("dag_file", sorted(p.name for p in DAGS.glob("*.py")))
def test_importing_a_dag_file_imports_nothing_heavy(dag_file: str, tmp_path: Path) -> None:
    code = (
        "import importlib.util, json, sys\n"
        "spec = importlib.util.spec_from_file_location("
        f"'dag_under_test', {str(DAGS / dag_file)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=airflow_env(tmp_path, None),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def _structure(dag: Any) -> dict[str, list[str]]:
    return {t.task_id: sorted(t.downstream_task_ids) for t in dag.tasks}


@pytest.mark.parametrize(
    ("dag_id", "first"),
    [
        ("partition_planner", "collect_figures"),
        ("plan_new_topic", "prepare_new_topic"),
    ],
)
def test_each_run_is_first_task_then_the_spark_steps_then_publish(
    dag_bag: Any, dag_id: str, first: str
) -> None:
    dag = dag_bag.dags[dag_id]
    order = [first, *STEPS, "publish"]
    structure = _structure(dag)
    for task, following in itertools.pairwise(order):
        expected = {following, "record_failure"}
        if task == first:
            expected.add("publish")  # publish reads the run plan's XCom
        assert structure[task] == sorted(expected), task
    assert structure["publish"] == ["record_failure"]
    assert structure["record_failure"] == []
    assert dag.get_task("record_failure").trigger_rule == "one_failed"
    assert dag.get_task("record_failure").retries == 0  # it fails on purpose: no retry
    assert set(dag.tags) == {"kafka", "capacity-planning"}
    assert dag.doc_md and dag.doc_md.strip().startswith(f"# {dag_id}")
    assert dag.render_template_as_native_obj
    for step in STEPS:
        task = dag.get_task(step)
        # A validation whose data failed is not retried (planner.pipeline.validation_operator).
        assert task.task_type == (
            "ValidationSubmitOperator" if step.startswith("validate_") else "SparkSubmitOperator"
        )
        assert task._conn_id == "planner_spark"
        assert "xcom_pull" in task.application and "xcom_pull" in task.application_args
        assert "xcom_pull" in task.conf and "['conf']" in task.conf
        assert "xcom_pull" in task.env_vars and "['env']" in task.env_vars
        # Killed half-way, a step is retried once (tests/pipeline/test_faults.py).
        assert task.retries == 1


def test_collection_and_publishing_retry_with_backoff(dag_bag: Any) -> None:
    for dag_id, first in (
        ("partition_planner", "collect_figures"),
        ("plan_new_topic", "prepare_new_topic"),
    ):
        dag = dag_bag.dags[dag_id]
        for task_id in (first, "publish"):
            task = dag.get_task(task_id)
            assert task.retries >= 2 and task.retry_exponential_backoff, (dag_id, task_id)
            assert task.retry_delay == timedelta(seconds=30)


def test_the_daily_dag_plans_one_utc_day_per_run_one_run_at_a_time(dag_bag: Any) -> None:
    from airflow.sdk import CronDataIntervalTimetable

    dag = dag_bag.dags["partition_planner"]
    assert isinstance(dag.timetable, CronDataIntervalTimetable)
    assert (dag.timetable.expression, str(dag.timetable.timezone)) == ("0 0 * * *", "UTC")
    assert dag.catchup is False and dag.max_active_runs == 1
    [outlet] = dag.get_task("publish").outlets
    assert outlet.name == "partition_planner_recommendations"


def test_the_daily_dag_publishes_a_run_the_guard_holds_only_when_asked(dag_bag: Any) -> None:
    from planner.pipeline.tasks import ACCEPT_DEGRADED

    params = dag_bag.dags["partition_planner"].params
    assert set(params.keys()) == {ACCEPT_DEGRADED}
    param = params.get_param(ACCEPT_DEGRADED)
    # A scheduled run never accepts a degraded plan: it must be asked for.
    assert param.value is False and param.schema["type"] == "boolean"


def test_the_new_topic_form_offers_the_planners_own_choices(dag_bag: Any) -> None:
    from planner.partitioners import PARTITIONERS, partition_for_key
    from planner.pipeline.new_topic import NewTopicRequest
    from planner.protocols import GROUP_STRATEGIES, PROTOCOLS

    dag = dag_bag.dags["plan_new_topic"]
    assert dag.schedule is None or dag.timetable.summary == "None"
    params = dag.params
    assert params.get_param("partitioner").schema["enum"] == list(PARTITIONERS)
    # Each is one the core hashes keys with (the form takes the list from planner.choices).
    for name in PARTITIONERS:
        assert 0 <= partition_for_key(b"k", 3, name) < 3
    # Every assignor of every protocol, once; the request checks the pair.
    offered = params.get_param("strategy").schema["enum"]
    assert sorted(offered) == sorted({n for names in GROUP_STRATEGIES.values() for n in names})
    assert params.get_param("protocol").schema["enum"] == list(PROTOCOLS)
    # Every form field is a field of the request, and the other way round.
    from dataclasses import fields

    assert set(params.keys()) == {f.name for f in fields(NewTopicRequest)}
    with pytest.raises(Exception, match="topic"):
        params.get_param("topic").resolve("bad topic!")
    assert params.get_param("topic").resolve("payments.v2") == "payments.v2"


def test_apply_plan_lists_waits_for_an_approval_then_applies(dag_bag: Any) -> None:
    from airflow.providers.standard.operators.hitl import ApprovalOperator

    dag = dag_bag.dags["apply_plan"]
    assert dag.schedule is None and dag.max_active_runs == 1
    assert _structure(dag) == {
        "list_changes": ["apply_changes", "approve_changes"],
        "approve_changes": ["apply_changes"],
        "apply_changes": [],
    }
    approval = dag.get_task("approve_changes")
    assert isinstance(approval, ApprovalOperator)
    assert approval.options == ["Approve", "Reject"]
    assert "list_changes" in approval.subject and "['body']" in approval.body
    assert approval.response_timeout == timedelta(days=1)
    assert dag.get_task("apply_changes").retries == 0  # a person reads a failure first
    assert dag.get_task("list_changes").retries == 2
    assert set(dag.params.keys()) == {"run", "topics", "allow_key_remap"}
    assert dag.params.get_param("allow_key_remap").value is False
    assert set(dag.tags) == {"kafka", "capacity-planning"}
    assert dag.doc_md and dag.doc_md.strip().startswith("# apply_plan")
