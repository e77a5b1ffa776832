"""`apply` on a configured cluster with its audit in the store: what the command and the
`apply_plan` DAG's tasks both call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.apply.run import ApplyReport, Result
from planner.changes import ChangeList

__all__ = ["apply_published"]


def apply_published(
    changes: ChangeList,
    source: Any,
    *,
    store_url: str,
    source_text: str,
    who: str,
    execute: bool,
    allow_key_remap: bool,
    timeout_s: float | None = None,
    verify_timeout_s: float = 30.0,
    progress: Callable[[str], None] | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> ApplyReport:
    """`apply_changes` on the cluster of `source` (a `KafkaAdminSource`), recorded in the
    store at `store_url` (the command and the Airflow task both call this).

    Raises:
        StoreUnavailable: the store cannot record an attempt: the change it was for is
            not made.
    """
    from planner.apply.cluster import KafkaCluster
    from planner.apply.run import Audit, apply_changes
    from planner.store import RecommendationStore

    timeout = timeout_s or source.calls.timeout_s
    cluster = KafkaCluster(
        source.admin_client(),
        source.bootstrap_servers,
        timeout_s=timeout,
        verify_timeout_s=verify_timeout_s,
    )

    def each(result: Result) -> None:
        if progress is not None:
            progress(f"[apply] {result.step.change.topic}: {result.outcome}")
        if on_result is not None:
            on_result(result)

    with RecommendationStore(store_url) as store:
        return apply_changes(
            changes,
            cluster,
            execute=execute,
            allow_key_remap=allow_key_remap,
            audit=Audit(store, source_text, who),
            on_result=each,
        )
