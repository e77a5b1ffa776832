"""What the Airflow tasks call: each task body in `dags/` is one call into this module.

The first task of a run (`collect_figures`, or `prepare_new_topic`) decides everything
the later ones need and returns it as a small XCom (`RunPlan.to_xcom()`): the data
interval, the run key and scope, the config file, the workspace folders (never the
store URL: it can hold a password, and XComs are visible in the UI), and for each
Spark step the application file and its arguments, which the `SparkSubmitOperator`s
template in. Later tasks read nothing else from Airflow.

Failures: bad input (a file that cannot be read, a parameter that cannot be planned, a
run that is not publishable) raises `AirflowFailException`, which fails the task at
once, without retries that could not help; an unreachable source or store raises its
own error, which Airflow retries with backoff.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NoReturn

from planner.config import PlannerConfig, load_config
from planner.deployment import CONFIG_ENV, CONFIG_VARIABLE, CONNECTIONS
from planner.figures.dataset import DataInterval
from planner.pipeline import jobs
from planner.pipeline.steps import SPARK_STEPS
from planner.pipeline.workspace import Workspace
from planner.store.records import FLEET_SCOPE, topic_scope

__all__ = [
    "ACCEPT_DEGRADED",
    "RunPlan",
    "collect_run",
    "collect_task",
    "new_topic_task",
    "planner_config",
    "prepare_new_topic",
    "publish_task",
    "record_failure_task",
    "run_interval",
]


#: The run parameter that publishes a run the publish guard holds.
ACCEPT_DEGRADED = "accept_degraded"


def _fail(message: str) -> Exception:
    from airflow.sdk.exceptions import AirflowFailException

    return AirflowFailException(message)


def planner_config(path: str | None = None) -> PlannerConfig:
    """The planner config with the deployment's Airflow connections laid over it.

    Args:
        path: The config file; default the Airflow Variable `planner_config`, else the
            environment variable `PLANNER_CONFIG`, else the embedded defaults.
    """
    from airflow.sdk import Connection, Variable
    from airflow.sdk.exceptions import AirflowNotFoundException

    from planner.config import ConfigError
    from planner.pipeline.connections import ConnectionInfo, apply_connections

    if path is None:
        path = Variable.get(CONFIG_VARIABLE, default=None) or os.environ.get(CONFIG_ENV) or None
    try:
        config = load_config(path)
        found: dict[str, ConnectionInfo] = {}
        for conn_id in CONNECTIONS:
            try:
                conn = Connection.get(conn_id)
            except AirflowNotFoundException:
                continue
            found[conn_id] = ConnectionInfo(
                conn_id=conn_id,
                conn_type=conn.conn_type or "",
                host=conn.host,
                port=conn.port,
                login=conn.login,
                password=conn.password,
                schema=conn.schema,
                extra=conn.extra_dejson,
            )
        return apply_connections(config, found)
    except ConfigError as exc:
        raise _fail(str(exc)) from None


def run_interval(context: Mapping[str, Any]) -> DataInterval:
    """The run's data interval: Airflow's, or the UTC day before the run for a manual one.

    A scheduled run and a backfill carry the interval of their schedule (one UTC day for
    `partition_planner`); a run triggered by hand may carry none, and then plans the
    last whole day before it.
    """
    start, end = context.get("data_interval_start"), context.get("data_interval_end")
    if start is not None and end is not None and end > start:
        return DataInterval(start, end)
    dag_run = context.get("dag_run")
    moment = getattr(dag_run, "run_after", None) or datetime.now(UTC)
    return DataInterval.day((moment - timedelta(days=1)).date())


@dataclass(frozen=True)
class RunPlan:
    """What the first task hands every later task of the run (as an XCom).

    Attributes:
        interval: The data interval.
        scope: `fleet`, or `topic:<name>` for a new topic.
        config: The planner config file the Spark jobs and later tasks read.
        workspace: The run's folders (the store URL is not carried).
        collected: Rows written per figures table, and rejected rows.
        request: For a new topic, the request it answers (`creation_request`): when,
            the parameters as given, the Airflow run, the link back to the fleet report.
        spark_master: The master the Spark steps are submitted to (the `planner_spark`
            connection's, else the config's), which decides their environment.
    """

    interval: DataInterval
    scope: str
    config: Path | None
    workspace: Workspace
    collected: Mapping[str, int] = field(default_factory=dict)
    request: Mapping[str, Any] | None = None
    spark_master: str | None = None

    def spark(self) -> dict[str, dict[str, Any]]:
        """Each Spark step's application file, arguments, launch settings and
        spark-submit's environment."""
        interval = str(self.interval)
        conf = jobs.launch_conf(self.config, self.spark_master)
        env = jobs.launch_env(self.spark_master)
        out: dict[str, dict[str, Any]] = {}
        for step in SPARK_STEPS:
            if step.startswith("validate_"):
                args = jobs.validation_arguments(
                    step.removeprefix("validate_"), self.workspace, interval, self.config
                )
            else:
                args = jobs.job_arguments(self.workspace, interval, self.config)
            out[step] = {
                "application": str(jobs.application_path(step)),
                "args": args,
                "conf": conf,
                "env": env,
            }
        return out

    def to_xcom(self) -> dict[str, Any]:
        """A JSON-ready dict (no secrets)."""
        return {
            "interval": str(self.interval),
            "run_key": self.interval.key,
            "scope": self.scope,
            "config": str(self.config) if self.config else None,
            "workspace": {
                "figures": str(self.workspace.figures),
                "work": str(self.workspace.work),
                "report": str(self.workspace.report),
            },
            "collected": dict(self.collected),
            "spark": self.spark(),
            "request": dict(self.request) if self.request is not None else None,
        }

    @staticmethod
    def workspace_from_xcom(plan: Mapping[str, Any], store_url: str) -> Workspace:
        """The run's workspace, with the store URL from this task's own config."""
        folders = plan["workspace"]
        return Workspace(
            figures=Path(folders["figures"]),
            work=Path(folders["work"]),
            report=Path(folders["report"]),
            store_url=store_url,
        )


def collect_run(
    config: PlannerConfig, workspace: Workspace, interval: DataInterval, landing: Path | None
) -> dict[str, int]:
    """The body of a run's first task: collect the interval, forget earlier validations.

    Returns:
        Rows written per figures table, and rejected rows.

    Raises:
        AirflowFailException: a source's input cannot be used (no retry can help).
        planner.collect.base.SourceUnavailable: a source could not be reached (retried).
    """
    from planner.collect.base import SourceUnavailable
    from planner.figures import FiguresError
    from planner.pipeline.run import collect_figures
    from planner.pipeline.state import clear_stages

    try:
        report = collect_figures(config, workspace, interval, landing=landing)
    except FiguresError as exc:
        raise _fail(f"collection stopped, nothing was written: {exc}") from None
    except SourceUnavailable:
        raise  # retried: the source may be back
    print(report.summary())
    clear_stages(workspace.run_state(interval.key))
    return {**report.rows, "rejected": report.rejected.num_rows}


def collect_task(context: Mapping[str, Any]) -> dict[str, Any]:
    """`partition_planner.collect_figures`: the interval's figures, and the run plan."""
    config = planner_config()
    workspace = Workspace.from_config(config)
    interval = run_interval(context)
    collected = collect_run(config, workspace, interval, None)
    return RunPlan(
        interval, FLEET_SCOPE, config.path, workspace, collected, spark_master=config.spark_master
    ).to_xcom()


def new_topic_task(params: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """`plan_new_topic.prepare_new_topic`: the request as figures of its own, and the plan.

    See `prepare_new_topic`; a request that cannot be planned fails the task at once.
    """
    from planner.pipeline.new_topic import NewTopicError

    base = planner_config()
    dag_run = context.get("dag_run")
    requested_at = getattr(dag_run, "run_after", None) or datetime.now(UTC)
    try:
        plan = prepare_new_topic(
            base,
            params,
            run_interval(context),
            requested_at=requested_at,
            run_id=getattr(dag_run, "run_id", None),
        )
    except NewTopicError as exc:
        raise _fail(f"plan_new_topic: {exc}") from None
    return plan.to_xcom()


def creation_request(
    params: Mapping[str, Any],
    *,
    requested_at: datetime,
    run_id: str | None,
    fleet_report: Path,
) -> dict[str, Any]:
    """The request a creation plan answers, as the XCom and the report carry it.

    Args:
        params: The request's parameters as given (None and empty strings: not given).
        requested_at: When it was made (aware; the Airflow run's time).
        run_id: The Airflow run, if any.
        fleet_report: The fleet report's folder: the plan's site links back to it.
    """
    given = {
        str(k): ", ".join(map(str, v))
        if isinstance(v, list | tuple)
        else v
        if isinstance(v, bool | int | float)
        else str(v)
        for k, v in params.items()
        if v is not None and v != "" and v != [] and k != "topic"
    }
    return {
        "topic": str(params.get("topic")),
        "requested_at": requested_at.astimezone(UTC).isoformat(),
        "parameters": given,
        "run_id": run_id,
        # From <report>-new-topics/<name>/ (the plan's site root) to <report>/index.html.
        "fleet_link": f"../../{fleet_report.name}/index.html",
    }


def prepare_new_topic(
    base: PlannerConfig,
    params: Mapping[str, Any],
    interval: DataInterval,
    *,
    requested_at: datetime | None = None,
    run_id: str | None = None,
) -> RunPlan:
    """A new topic's request written as figures of its own and collected; its run plan.

    The new topic gets its own folders under the work folder
    (`new-topics/<page name>/`) and its own report site beside the fleet's
    (`<report>-new-topics/<page name>`), and its store run has the scope
    `topic:<name>`, so nothing of the fleet's is replaced. Every file is rewritten
    whole, so a task killed half-way and run again ends as one that was not.

    Raises:
        planner.pipeline.new_topic.NewTopicError: the request cannot be planned.
    """
    from planner.pipeline.new_topic import NewTopicRequest, write_request, write_run_config
    from planner.report.names import page_names

    request = NewTopicRequest.from_params(params)
    name = page_names([request.topic])[request.topic].removesuffix(".html")
    root = base.work_dir / "new-topics" / name
    landing = root / "landing"
    write_request(request, landing, interval)
    run_config = write_run_config(base, request, root / "planner.toml", landing=landing)
    config = load_config(run_config)
    workspace = Workspace(
        figures=root / "figures",
        work=root / "work",
        report=base.report_dir.parent / f"{base.report_dir.name}-new-topics" / name,
        store_url=base.store_url,
    )
    collected = collect_run(config, workspace, interval, landing)
    asked = creation_request(
        params,
        requested_at=requested_at or datetime.now(UTC),
        run_id=run_id,
        fleet_report=base.report_dir,
    )
    return RunPlan(
        interval,
        topic_scope(request.topic),
        run_config,
        workspace,
        collected,
        request=asked,
        spark_master=base.spark_master,
    )


def _run_config(plan: Mapping[str, Any]) -> tuple[PlannerConfig, Workspace]:
    """The run's config (its planning settings) and workspace, with the deployment's store.

    A new topic's run config holds only what the run plans with; the store (whose URL
    may hold a password) is always the deployment's: its config and connections.
    """
    deployment = planner_config()
    config = planner_config(plan["config"]) if plan["config"] else deployment
    return config, RunPlan.workspace_from_xcom(plan, deployment.store_url)


def publish_task(plan: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """`publish`: the validated run into the store and the site.

    A fleet run the publish guard holds (`planner.guard`) fails the task at once, naming
    the topics and why; the run's parameter `accept_degraded` publishes it anyway.
    """
    from planner.pipeline.publish import NotPublishable, lookback_days_of, publish_run
    from planner.store import StoreError

    _quiet_libraries()
    config, workspace = _run_config(plan)
    started = getattr(context.get("dag_run"), "start_date", None) or datetime.now(UTC)
    params = context.get("params") or {}
    try:
        result = publish_run(
            workspace,
            plan["run_key"],
            config=config,
            lookback_days=lookback_days_of(config),
            started_at=started,
            scope=plan["scope"],
            request=plan.get("request"),
            accept_degraded=bool(params.get(ACCEPT_DEGRADED, False)),
        )
    except (NotPublishable, StoreError) as exc:
        raise _fail(str(exc)) from None
    if result.accepted_degraded is not None:
        print(f"published with {ACCEPT_DEGRADED}, although {result.accepted_degraded}")
    _log_published(result)
    # The page first: Airflow logs the returned value after the task's own lines.
    page = {"page": str(result.page)} if result.page is not None else {}
    return {
        **page,
        "index": str(result.index),
        "topics": result.topics,
        "store_run": result.store_run_id,
    }


def _quiet_libraries() -> None:
    """Libraries' INFO chatter out of the task log; their warnings stay in.

    Airflow's task logging takes every logger's INFO lines: Great Expectations writes
    about 200 of them on import (the Data Docs), py4j one per connection.
    """
    import logging

    from expectations.validate import quiet_gx_logging

    logging.getLogger("py4j").setLevel(logging.WARNING)
    quiet_gx_logging()


def _log_published(result: Any) -> None:
    """The summary, then the published page's path as the log's last line.

    Printed straight to the task's stdout (Airflow keeps it in the task log, outside
    any collapsed group), and flushed, so the path is the last thing a reader sees.
    """
    import sys

    print(result.summary, flush=True)
    page = result.page or result.index
    what = "creation plan" if result.page is not None else f"report of {result.topics} topics"
    sys.stdout.write(f"published the {what}: {page}\n")
    sys.stdout.flush()


def record_failure_task(
    plan: Mapping[str, Any] | None, context: Mapping[str, Any], *, new_topic: bool = False
) -> NoReturn:
    """`record_failure`: a failed run into the store's run history (rows stay as they were).

    Runs only when a task of the run failed. The message is the publish guard's, if it
    held the run (`publish` recorded it already: it is not recorded twice); the failed
    validation's, if a validation failed; otherwise it names the tasks that failed. A
    new-topic run that failed before it had a plan (its parameters were refused) has
    nothing to record: the refusal is in the first task's log.

    Then it fails itself, always: it is downstream of every task, so it is the run's
    only leaf, and a leaf that succeeded would make Airflow mark the failed run
    successful.

    Raises:
        AirflowFailException: always, saying the run failed and where it was recorded.
    """
    from planner.pipeline.publish import record_failed_run, recorded_failure
    from planner.pipeline.state import load_stage

    if plan is None and new_topic:
        raise _fail("plan_new_topic: the request was refused before planning (see its log)")
    if plan is None:
        config = planner_config()
        workspace = Workspace.from_config(config)
        key, scope = run_interval(context).key, FLEET_SCOPE
    else:
        config, workspace = _run_config(plan)
        key, scope = plan["run_key"], plan["scope"]
    failed_tasks = _failed_tasks(context)
    message = f"tasks failed: {', '.join(failed_tasks) or 'unknown'} (see their logs)"
    for stage in ("inputs", "outputs"):
        result = load_stage(workspace.run_state(key), stage)
        if result is not None and not result.success:
            message = f"validate_{stage} failed:\n{result.message}"
            break
    started = getattr(context.get("dag_run"), "start_date", None) or datetime.now(UTC)
    # A publish the guard held recorded its own failure, which says which topics and why.
    message = recorded_failure(workspace, key, started_at=started, scope=scope) or message
    run_id = record_failed_run(
        workspace, key, message, config=config, started_at=started, scope=scope
    )
    where = f"the store (run id {run_id})" if run_id is not None else "no store run (no figures)"
    raise _fail(
        f"run {key} failed; recorded in {where}; nothing was published and the last good "
        f"report and rows stay:\n{message}"
    )


def _failed_tasks(context: Mapping[str, Any]) -> list[str]:
    """Ids of the run's failed tasks, as far as the task can see them."""
    ti = context.get("ti")
    try:
        states = ti.get_task_states(  # type: ignore[union-attr]
            dag_id=ti.dag_id,  # type: ignore[union-attr]
            run_ids=[ti.run_id],  # type: ignore[union-attr]
        )
    except Exception:  # an older SDK or a test context: the message says "unknown"
        return []
    out: list[str] = []
    for tasks in states.values():
        out += sorted(t for t, state in tasks.items() if state in ("failed", "upstream_failed"))
    return out
