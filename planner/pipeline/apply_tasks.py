"""What the `apply_plan` DAG's tasks call: list and dry-run the changes, then apply the
approved ones.

The approval binds to what was shown: `list_changes_task` resolves `latest` to a run
key and returns the topics with their counts (a small XCom; no store URL, no
credentials); `apply_task` reads that run again and applies only those topics, and
only if each still has the counts that were approved (a change list that moved since,
say a newer plan of the same run key, is refused whole: approve it again).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["apply_task", "list_changes_task"]

_APPROVAL = "approve_changes"


def _fail(message: str) -> Exception:
    from airflow.sdk.exceptions import AirflowFailException

    return AirflowFailException(message)


def _changes(run: str, topics: list[str] | None) -> tuple[Any, Any, Any]:
    from planner.adapters.published_run import RunNotFound, from_store
    from planner.changes import UnknownTopics, change_list
    from planner.collect.sources import build_kafka_source
    from planner.config import ConfigError
    from planner.pipeline.tasks import planner_config

    config = planner_config()
    try:
        published = from_store(config.store_url, run)
        changes = change_list(published.topics, topics=topics or None)
        source = build_kafka_source(config)
    except (RunNotFound, UnknownTopics, ConfigError, ValueError) as exc:
        raise _fail(str(exc)) from None
    return config, published, (changes, source)


def list_changes_task(params: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """Read the run's change list, dry-run it, and say it for the approval."""
    from planner.apply.report import render_markdown, render_report, summary_line
    from planner.apply.session import apply_published

    allow = bool(params.get("allow_key_remap"))
    config, published, (changes, source) = _changes(
        str(params.get("run") or "latest"), list(params.get("topics") or [])
    )
    dag_run = context["dag_run"].run_id
    report = apply_published(
        changes,
        source,
        store_url=config.store_url,
        source_text=published.source,
        who=f"airflow {dag_run} (dry run before approval)",
        execute=False,
        allow_key_remap=allow,
    )
    text = render_report(report, changes)
    print(text)
    topics = [
        {"topic": c.topic, "from": c.from_partitions, "to": c.to_partitions} for c in changes.topics
    ]
    body = (
        f"Run **{changes.run}**: {len(topics)} topic change(s) on Kafka at "
        f"`{source.bootstrap_servers}`; key remaps {'allowed' if allow else 'not allowed'}. "
        f"The dry run: {summary_line(report)}. Approving applies exactly these changes, "
        "one topic at a time, each verified.\n\n" + render_markdown(report, changes)
    )
    return {
        "run": changes.run,
        "topics": topics,
        "allow_key_remap": allow,
        "subject": f"Apply run {changes.run}: {summary_line(report)}",
        "body": body,
    }


def apply_task(listed: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    """Apply what was approved, as the approver; the task fails unless every topic ends at
    its planned count."""
    from planner.apply.report import render_report, summary_line
    from planner.apply.session import apply_published

    approved = {t["topic"]: (t["from"], t["to"]) for t in listed["topics"]}
    if not approved:
        print("nothing to apply: the run changes no topic")
        return {"summary": "nothing to apply"}
    config, published, (changes, source) = _changes(str(listed["run"]), sorted(approved))
    now = {c.topic: (c.from_partitions, c.to_partitions) for c in changes.topics}
    if now != approved:
        moved = sorted(t for t in set(now) | set(approved) if now.get(t) != approved.get(t))
        raise _fail(
            f"run {listed['run']}: the changes of {', '.join(moved)} are not the ones approved "
            f"(approved {[approved.get(t) for t in moved]}, now {[now.get(t) for t in moved]}); "
            "nothing was applied: trigger apply_plan again"
        )
    who = _approver(context)
    report = apply_published(
        changes,
        source,
        store_url=config.store_url,
        source_text=published.source,
        who=who,
        execute=True,
        allow_key_remap=bool(listed["allow_key_remap"]),
    )
    text = render_report(report, changes)
    print(text)
    if not report.ok:
        raise _fail(f"apply {report.apply_id}: {summary_line(report)}\n{text}")
    return {"apply_id": report.apply_id, "summary": summary_line(report)}


def _approver(context: Mapping[str, Any]) -> str:
    """`airflow:<approver> (<dag run>)`, from the approval task's answer."""
    answer = context["ti"].xcom_pull(task_ids=_APPROVAL) or {}
    user = answer.get("responded_by_user") or {}
    name = user.get("name") or user.get("id") or "unknown"
    return f"airflow:{name} ({context['dag_run'].run_id})"
