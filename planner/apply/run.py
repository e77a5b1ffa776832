"""`apply`, one topic at a time: decide, ask the cluster, verify, record.

Cruise Control's executor is the model: a dry run unless told otherwise, one change at a
time (bounded concurrency: 1), each verified before the next. For every topic of the
change list:

1. the topic's count is read from the cluster (all at once, before the first change);
2. `planner.apply.decide` says `apply`, `no-op` or `refused`;
3. a dry run asks the broker to validate the change (`validate_only`: its policies
   answer, nothing changes): `would-apply`, or `failed` with the broker's reason;
4. an execution writes a `started` row to the store, makes the change, reads the count
   until it shows (`applied`; `unverified` if it does not within the verify time-out),
   and completes the row. A refusal (policy, authorisation) fails that topic and the
   next is tried; a cluster that stops answering (time-out, unreachable) stops the run:
   the topics left are `not-attempted`, and the report says what was done.

Every topic gets a row in the store's audit (`planner.store.audit`), dry runs included.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from planner.apply.cluster import ClusterError, KafkaCluster
from planner.apply.decide import Step, decide, steps
from planner.changes import ChangeList

__all__ = ["OUTCOMES", "ApplyReport", "Audit", "Result", "apply_changes"]

#: Outcomes, and whether the topic is where the plan wants it (or would be).
OUTCOMES = {
    "applied": True,
    "would-apply": True,
    "no-op": True,
    "refused": False,
    "failed": False,
    "unverified": False,
    "not-attempted": False,
}


@dataclass(frozen=True)
class Result:
    """What became of one change.

    Attributes:
        step: The decision.
        outcome: A key of `OUTCOMES`.
        detail: Why, in words.
        error: Kafka's error name when the cluster refused or failed.
        seen: The count read after an execution (None: not read).
    """

    step: Step
    outcome: str
    detail: str
    error: str | None = None
    seen: int | None = None


@dataclass(frozen=True)
class ApplyReport:
    """An `apply`, whole.

    Attributes:
        apply_id: Its id in the audit.
        run: The published run applied.
        execute: False for a dry run.
        cluster: The brokers.
        results: One per topic of the change list, in its order.
        stopped: Why the run stopped before its last topic (None: it did not).
    """

    apply_id: str
    run: str | None
    execute: bool
    cluster: str
    results: tuple[Result, ...]
    stopped: str | None = None

    @property
    def ok(self) -> bool:
        """Every topic is (or, in a dry run, would be) at its planned count."""
        return all(OUTCOMES[r.outcome] for r in self.results)

    def count(self, outcome: str) -> int:
        """Topics with `outcome`."""
        return sum(r.outcome == outcome for r in self.results)


@dataclass
class Audit:
    """Where `apply` records its attempts: a store (None: nowhere, for a test of the
    decisions alone)."""

    store: object | None
    source: str
    who: str
    rows: list[int] = field(default_factory=list)

    def begin(
        self, apply_id: str, run: str | None, step: Step, mode: str, where: str
    ) -> int | None:
        if self.store is None:
            return None
        from planner.store.audit import STARTED, ApplyAttempt, record_attempt

        row = record_attempt(
            self.store,  # type: ignore[arg-type]
            ApplyAttempt(
                apply_id=apply_id,
                run_key=run,
                source=self.source,
                topic=step.change.topic,
                mode=mode,
                planned_from=step.change.from_partitions,
                planned_to=step.change.to_partitions,
                observed=step.observed,
                outcome=STARTED,
                reason=step.reason,
                error=None,
                who=self.who,
                cluster=where,
                started_at=dt.datetime.now(dt.UTC),
            ),
        )
        self.rows.append(row)
        return row

    def end(self, row: int | None, result: Result) -> None:
        if self.store is None or row is None:
            return
        from planner.store.audit import finish_attempt

        finish_attempt(
            self.store,  # type: ignore[arg-type]
            row,
            outcome=result.outcome,
            reason=result.detail,
            error=result.error,
        )


def apply_changes(
    changes: ChangeList,
    cluster: KafkaCluster,
    *,
    execute: bool,
    allow_key_remap: bool,
    audit: Audit,
    on_result: Callable[[Result], None] | None = None,
) -> ApplyReport:
    """Apply (or, without `execute`, validate) the change list's topics, one at a time.

    Args:
        changes: The change list.
        cluster: The cluster.
        execute: Make the changes; False: a dry run (the broker validates them).
        allow_key_remap: Change keyed topics too (their keys move: see the warning).
        audit: Where to record each attempt.
        on_result: Called after each topic (a progress line; the tests stop a broker).

    Raises:
        StoreUnavailable: the store could not record an attempt (no change is made
            without its row).
    """
    apply_id = str(uuid.uuid4())
    mode = "execute" if execute else "dry-run"
    results: list[Result] = []

    def done(result: Result, row: int | None) -> None:
        audit.end(row, result)
        results.append(result)
        if on_result is not None:
            on_result(result)

    try:
        observed = cluster.counts([c.topic for c in changes.topics])
    except ClusterError as exc:
        unread = str(exc)
        for c in changes.topics:
            step = Step(c, None, "refused", "the cluster could not be read")
            row = audit.begin(apply_id, changes.run, step, mode, cluster.where)
            done(Result(step, "not-attempted", unread, exc.name), row)
        return ApplyReport(apply_id, changes.run, execute, cluster.where, tuple(results), unread)
    stopped: str | None = None
    for step in steps(changes.topics, observed, allow_key_remap=allow_key_remap):
        row = audit.begin(apply_id, changes.run, step, mode, cluster.where)
        if stopped is not None:
            done(Result(step, "not-attempted", f"not attempted: {stopped}"), row)
        elif step.action != "apply":
            done(Result(step, step.action, step.reason), row)
        else:
            # Read again just before the change: another hand may have moved it since the
            # run started. Kafka's CreatePartitions takes no expected count, so the window
            # between this read and the change stays open (one request long).
            step = _again(step, cluster, allow_key_remap=allow_key_remap)
            result = (
                _make(step, cluster, execute=execute)
                if step.action == "apply"
                else Result(step, step.action, step.reason)
            )
            if result.error is not None and result.outcome == "failed":
                error = _gone(result)
                if error is not None:
                    stopped = f"the cluster stopped answering at {step.change.topic}: {error}"
            done(result, row)
    return ApplyReport(apply_id, changes.run, execute, cluster.where, tuple(results), stopped)


def _again(step: Step, cluster: KafkaCluster, *, allow_key_remap: bool) -> Step:
    try:
        now = cluster.counts([step.change.topic])[step.change.topic]
    except ClusterError:
        return step  # the change itself will meet the same error and say it
    return decide(step.change, observed=now, allow_key_remap=allow_key_remap)


def _gone(result: Result) -> str | None:
    from planner.apply.cluster import error_kind

    return (
        result.detail
        if result.error and error_kind(result.error) in ("timeout", "unreachable")
        else None
    )


def _make(step: Step, cluster: KafkaCluster, *, execute: bool) -> Result:
    c = step.change
    try:
        if c.creates:
            cluster.create_topic(
                c.topic, c.to_partitions, c.replication_factor, validate_only=not execute
            )
        else:
            cluster.add_partitions(c.topic, c.to_partitions, validate_only=not execute)
    except ClusterError as exc:
        return Result(step, "failed", str(exc), exc.name)
    if not execute:
        return Result(step, "would-apply", "the broker validated the change (validate_only)")
    seen = cluster.wait_for(c.topic, c.to_partitions)
    if seen != c.to_partitions:
        return Result(
            step,
            "unverified",
            f"Kafka accepted the change, but the topic shows {seen} partitions after "
            f"{cluster.verify_timeout_s:g} s: apply again to see",
            seen=seen,
        )
    return Result(step, "applied", f"{c.to_partitions} partitions, verified", seen=seen)
