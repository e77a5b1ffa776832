"""The publish step: a validated run into the store, the report site and its Data Docs.

Nothing is published unless both validation stages of this run passed and the files
about to be published are the ones they validated (`planner.pipeline.state`), and, for
a fleet run, unless the publish guard lets it replace the last good run
(`planner.guard`: a run that newly leaves more than `[publish] max_new_unsized_share`
of the fleet unsized is held, recorded in the store as a failed run, and published only
when accepted: `accept_degraded`). Then:

1. the run's datasets are read with PyArrow and mapped into the report model
   (`planner.report.from_outputs`), with each topic's throughput history for its chart;
2. a new release of the site is rendered into a staging folder beside the published one,
   with the run's GX Data Docs under `validation/`;
3. the recommendations are written to the store in one transaction (a rerun of the
   interval replaces its rows);
4. the site link is switched to the new release in one rename, and
   `recommendations.json` beside it links into the release.

A failure in 1-3 leaves the store and the site as they were (the staging folder is
removed). A crash between 3 and 4 leaves the store one run ahead of the site; publishing
the run again puts them level. The order is chosen so the site never shows a run the
store does not hold.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.config import PlannerConfig
from planner.figures.dataset import DataInterval, interval_path, read_manifest
from planner.figures.set_aside import STATUS as SET_ASIDE_STATUS
from planner.pipeline.state import StageResult, fingerprint, load_stage
from planner.pipeline.workspace import Workspace
from planner.store.records import FLEET_SCOPE

if TYPE_CHECKING:
    import pyarrow as pa

    from planner.guard import Verdict
    from planner.report.model import FleetReport, ThroughputHistory
    from planner.store import RecommendationStore, RunRecord

__all__ = [
    "ACCEPT_HINT",
    "NotPublishable",
    "PublishHeld",
    "PublishResult",
    "publish_run",
    "record_failed_run",
    "recorded_failure",
]

_MIB = float(2**20)
_DATA_DOCS = "validation"


#: How to publish a held run anyway, both ways a run is started.
ACCEPT_HINT = (
    "to publish this run anyway: partition-planner plan --accept-degraded, or trigger "
    "the partition_planner DAG with accept_degraded=true"
)


class NotPublishable(RuntimeError):
    """The run may not be published (not validated, or changed since); nothing was."""


class PublishHeld(NotPublishable):
    """The publish guard held the run (`planner.guard`); it is recorded in the store as a
    failed run, and nothing was published."""


@dataclass(frozen=True)
class PublishResult:
    """What a publish did.

    Attributes:
        run_key: The run.
        topics: Recommendation rows published.
        store_run_id: The store's id of this attempt.
        release: The site's new release folder.
        index: The published `index.html` (through the site link).
        summary: `summary.md` of the run, for a task log or a terminal.
        page: A creation plan's topic page (through the site link); None for the fleet.
        accepted_degraded: Why the guard would have held the run, when it was published
            anyway (`accept_degraded`); None when the guard let it through.
    """

    run_key: str
    topics: int
    store_run_id: int
    release: Path
    index: Path
    summary: str
    page: Path | None = None
    accepted_degraded: str | None = None


def _validated(workspace: Workspace, key: str) -> tuple[StageResult, StageResult]:
    state = workspace.run_state(key)
    stages = []
    for stage in ("inputs", "outputs"):
        result = load_stage(state, stage)
        if result is None:
            raise NotPublishable(
                f"run {key}: its {stage} were never validated ({state}/{stage}.json is "
                "missing); nothing is published"
            )
        if result.run_key != key:
            raise NotPublishable(f"run {key}: {stage}.json belongs to run {result.run_key}")
        if not result.success:
            raise NotPublishable(f"run {key}: {stage} failed validation:\n{result.message}")
        stages.append(result)
    return stages[0], stages[1]


def _check_unchanged(result: StageResult, files: Sequence[Path], root: Path, what: str) -> None:
    # Relative to the workspace as it is now: a workspace moved whole (a volume mounted
    # elsewhere) holds the same files.
    now = fingerprint(files, root)
    if now != dict(result.fingerprint):
        changed = sorted(
            name
            for name in set(now) | set(result.fingerprint)
            if now.get(name) != result.fingerprint.get(name)
        )
        shown = ", ".join(changed[:5]) + (
            f" and {len(changed) - 5} more" if len(changed) > 5 else ""
        )
        raise NotPublishable(
            f"run {result.run_key}: the {what} changed after they were validated ({shown}); "
            "validate them again before publishing; nothing is published"
        )


def _history(
    workspace: Workspace, key: str, lookback_days: float, left_out: frozenset[str] = frozenset()
) -> tuple[DataInterval, dict[str, ThroughputHistory]]:
    """Each topic's throughput samples over the window the sizing job read, but for the
    topics in `left_out` (set aside: their samples are what broke the rules)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from planner.report.model import ThroughputHistory
    from spark_jobs.figures import locate_run

    figures = locate_run(workspace.figures, key, lookback_days=lookback_days)
    pieces = []
    for interval, spans in figures.history:
        table = pq.read_table(
            interval_path(workspace.figures, interval) / "throughput.parquet",
            columns=["topic", "ts", "bytes_in_per_s", "records_in_per_s"],
        )
        for start, end in spans:
            ts = table.column("ts")
            keep = pc.and_(
                pc.greater_equal(ts, pa.scalar(start, ts.type)),
                pc.less(ts, pa.scalar(end, ts.type)),
            )
            pieces.append(table.filter(keep))
    if not pieces:
        return figures.run, {}
    samples = pa.concat_tables(pieces)
    topic = samples.column("topic")
    kept = pc.is_valid(topic)
    if left_out:
        kept = pc.and_(kept, pc.invert(pc.is_in(topic, pa.array(sorted(left_out)))))
    samples = samples.filter(kept).sort_by([("topic", "ascending"), ("ts", "ascending")])
    topics = samples.column("topic").to_pylist()
    ts_s = pc.divide(pc.cast(samples.column("ts"), pa.int64()), 1_000_000).to_numpy()
    mib_in = samples.column("bytes_in_per_s").to_numpy(zero_copy_only=False) / _MIB
    records = samples.column("records_in_per_s").to_numpy(zero_copy_only=False)
    out: dict[str, ThroughputHistory] = {}
    starts = [0] + [i for i in range(1, len(topics)) if topics[i] != topics[i - 1]]
    for first, last in zip(starts, [*starts[1:], len(topics)], strict=True):
        out[topics[first]] = ThroughputHistory(
            ts_s=tuple(np.asarray(ts_s[first:last], dtype=np.float64).tolist()),
            mib_in=tuple(None if np.isnan(v) else float(v) for v in mib_in[first:last]),
            records_in=tuple(None if np.isnan(v) else float(v) for v in records[first:last]),
        )
    return figures.run, out


def _left_out(workspace: Workspace, key: str) -> frozenset[str]:
    """The topics the run's input validation set aside (none if it saved no list)."""
    from planner.figures.set_aside import FILE, load_set_aside

    try:
        return load_set_aside(workspace.run_state(key) / FILE).names
    except FileNotFoundError:
        return frozenset()


def _topic_simulations(table: pa.Table) -> dict[str, list[dict[str, Any]]]:
    import pyarrow.compute as pc

    topic_rows = table.filter(pc.equal(table.column("scope"), "topic")).sort_by("topic")
    topics = topic_rows.column("topic").to_pylist()
    out: dict[str, list[dict[str, Any]]] = {}
    first = 0
    for i in range(1, len(topics) + 1):
        if i == len(topics) or topics[i] != topics[first]:
            out[topics[first]] = topic_rows.slice(first, i - first).to_pylist()
            first = i
    return out


def _read_dataset(workspace: Workspace, dataset: str, key: str) -> pa.Table:
    import pyarrow.parquet as pq

    from spark_jobs.outputs import run_path

    return pq.read_table(run_path(workspace.datasets, dataset, key))


def _rejected(workspace: Workspace, interval: DataInterval) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    path = interval_path(workspace.figures, interval) / "rejected.parquet"
    return pq.read_table(path).to_pylist() if path.exists() else []


def build_report(
    workspace: Workspace,
    key: str,
    *,
    config: PlannerConfig,
    lookback_days: float,
    generated_at: datetime,
    recommendations: pa.Table,
    whole_fleet: bool = True,
) -> FleetReport:
    """The run's report from its validated datasets and figures.

    `whole_fleet`: the run saw every topic of the cluster (not one new topic), so the
    report adds up the cluster's replicas per broker.
    """
    from planner.report.from_outputs import (
        fleet_report,
        rejected_summaries,
        report_settings,
        topic_report,
    )

    interval, history = _history(workspace, key, lookback_days, _left_out(workspace, key))
    simulations = _topic_simulations(_read_dataset(workspace, "simulations", key))
    rejected = _rejected(workspace, interval)
    topics = [
        topic_report(
            row,
            simulations.get(row["topic"], []),
            # A set-aside topic's samples are what broke the rules: no chart of them.
            history=None if row["status"] == SET_ASIDE_STATUS else history.get(row["topic"]),
            settings=config.planning,
        )
        for row in recommendations.to_pylist()
    ]
    manifest = read_manifest(workspace.figures, interval.key) or {}
    summaries = rejected_summaries(rejected)
    input_rows = {str(k): int(v) for k, v in manifest.get("tables", {}).items() if k != "rejected"}
    for s in summaries:
        input_rows[s.table] = input_rows.get(s.table, 0) + s.rows
    return fleet_report(
        topics,
        run_key=key,
        interval_start=interval.start,
        interval_end=interval.end,
        generated_at=generated_at,
        settings=report_settings(config.planning),
        rejected=summaries,
        input_rows=input_rows,
        data_docs_path=f"{_DATA_DOCS}/index.html",
        brokers=_brokers(recommendations) if whole_fleet else None,
    )


def _brokers(recommendations: pa.Table) -> int | None:
    # Every row of a run carries the cluster's broker count (one snapshot).
    if recommendations.num_rows == 0:
        return None
    import pyarrow.compute as pc

    return int(pc.max(recommendations.column("brokers")).as_py())


def _data_docs(stages: Sequence[StageResult], out: Path, key: str, run_time: datetime) -> None:
    from great_expectations.core.expectation_validation_result import (
        ExpectationSuiteValidationResultSchema,
    )

    from expectations import ValidationReport, build_data_docs

    schema = ExpectationSuiteValidationResultSchema()
    reports = [
        ValidationReport(
            suite_name=name,
            success=bool(document.get("success")),
            outcomes=(),
            gx_result=schema.load(document),
        )
        for stage in stages
        for name, document in stage.gx_results.items()
    ]
    build_data_docs(reports, out, run_name=key, run_time=run_time)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _link_recommendations(workspace: Workspace) -> None:
    """`recommendations.json` beside the site, pointing through the site link."""
    link = workspace.recommendations_json
    target = f"{workspace.report.name}/recommendations.json"
    # A publisher killed between making its link and renaming it left the link behind,
    # named after its process; another publisher's (a backfill's) is still in use.
    for stale in link.parent.glob(f".{link.name}.*"):
        pid = stale.name.rsplit(".", 1)[1]
        if pid.isdigit() and not _alive(int(pid)):
            stale.unlink(missing_ok=True)
    if link.is_symlink() and os.readlink(link) == target:
        return
    temporary = link.with_name(f".{link.name}.{os.getpid()}")
    temporary.unlink(missing_ok=True)
    os.symlink(target, temporary)
    os.replace(temporary, link)


def publish_run(
    workspace: Workspace,
    run: str,
    *,
    config: PlannerConfig,
    lookback_days: float,
    started_at: datetime,
    durable: bool = True,
    scope: str = "fleet",
    request: Mapping[str, Any] | None = None,
    new_topics_most: int = 20,
    accept_degraded: bool = False,
) -> PublishResult:
    """Publish a validated run (see the module docstring for the order and guarantees).

    Args:
        workspace: Where the run's files are and where it is published.
        run: The run (interval key, UTC day or START/END).
        config: The planner config (planning settings, sources for the run record).
        lookback_days: History days the jobs read (the throughput charts show the same).
        started_at: When the run started (time-zone aware), for the run record.
        durable: Flush the release to disk before switching (off only in tests).
        scope: The store run's scope: `fleet`, or `topic:<name>` for a new topic.
        request: A new topic's request (`planner.pipeline.tasks.creation_request`): the
            report is then its creation plan, and the store run's source keeps it.
        new_topics_most: For a fleet run, the most recent creation plans its report
            links to ("New topics planned").
        accept_degraded: Publish a fleet run the guard would hold (`planner.guard`); the
            run record keeps the verdict, marked accepted.

    Raises:
        PublishHeld: the guard held the fleet run (recorded in the store as failed).
        NotPublishable: a stage was not validated, failed, or its files changed since.
        planner.store.StoreError: the store refused the rows (nothing was published).
    """
    from planner.pipeline import jobs
    from planner.pipeline.validation import output_files
    from planner.report.exports import summary_markdown
    from planner.report.publish import publish_site
    from planner.report.site import render_site
    from planner.store import RecommendationStore, Run, RunSummary

    key = jobs.run_key(run)
    inputs, outputs = _validated(workspace, key)
    _check_unchanged(outputs, output_files(workspace, key), workspace.datasets, "Spark datasets")
    figures = [workspace.figures / name for name in inputs.fingerprint]
    _check_unchanged(inputs, [f for f in figures if f.exists()], workspace.figures, "figures")
    now = datetime.now(UTC)
    recommendations = _read_dataset(workspace, "recommendations", key)
    guard: dict[str, Any] = {}
    accepted: str | None = None
    if scope == FLEET_SCOPE:
        # Before anything is rendered: a held run costs no site release.
        guard, accepted = _guard(
            workspace,
            key,
            recommendations,
            config=config,
            started_at=started_at,
            accept_degraded=accept_degraded,
        )
    report = build_report(
        workspace,
        key,
        config=config,
        lookback_days=lookback_days,
        generated_at=now,
        recommendations=recommendations,
        whole_fleet=scope == "fleet",
    )
    if request is not None:
        from planner.report.creation import creation_report, creation_request_of

        report = creation_report(report, creation_request_of(request))
    elif scope == "fleet":
        from planner.pipeline.creation_plans import recent_creation_plans

        with RecommendationStore(workspace.store_url) as store:
            links = recent_creation_plans(store, workspace.report, most=new_topics_most)
        report = replace(report, new_topics=links)
    rejected = sum(s.rows for s in report.rejected)
    validation: dict[str, Any] = {"inputs": inputs.summary(), "outputs": outputs.summary()}
    if guard:
        validation["publish_guard"] = guard
    summary = RunSummary(validation=validation, rejected_rows=rejected)
    source: dict[str, Any] = {
        "sources": list(config.sources),
        "config": str(config.path) if config.path else None,
        "figures": str(workspace.figures),
        # What tells a retry of this attempt from another run of the same start
        # (`airflow dags test` starts every run of a date at that date).
        "outputs_sha256": _digest(outputs.fingerprint),
    }
    if request is not None:
        source["request"] = dict(request)
    record: list[Any] = []

    def render(folder: Path) -> None:
        render_site(report, folder)
        _data_docs((inputs, outputs), folder / _DATA_DOCS, key, started_at)
        # Last, so that a rendering failure leaves the store untouched as well.
        with RecommendationStore(workspace.store_url) as store:
            done = _published_attempt(store, key, scope, started_at, source["outputs_sha256"])
            # A retry of an attempt whose store write committed before it died (an
            # Airflow task killed between the commit and the site switch): its rows are
            # this run's rows, validated; publishing them again would only mark the
            # first write replaced.
            record.append(
                done
                or store.publish_run(
                    Run(report_interval(report), started_at, source, scope),
                    recommendations,
                    summary,
                )
            )

    release = publish_site(render, workspace.report, durable=durable)
    _link_recommendations(workspace)
    page = None
    if request is not None:
        from planner.report.names import page_names

        topic = str(request["topic"])
        page = workspace.report / "topics" / page_names([topic])[topic]
    return PublishResult(
        run_key=key,
        topics=recommendations.num_rows,
        store_run_id=record[0].id,
        release=release,
        index=workspace.report / "index.html",
        summary=summary_markdown(report),
        page=page,
        accepted_degraded=accepted,
    )


def _guard(
    workspace: Workspace,
    key: str,
    recommendations: pa.Table,
    *,
    config: PlannerConfig,
    started_at: datetime,
    accept_degraded: bool,
) -> tuple[dict[str, Any], str | None]:
    """The publish guard on a fleet run: its verdict for the run record, and why it would
    hold the run when `accept_degraded` publishes it anyway (None: it would not).

    Raises:
        PublishHeld: the guard holds the run (recorded in the store as a failed run).
    """
    verdict = _judge(workspace, recommendations, config.max_new_unsized_share)
    summary = verdict.summary(accepted=accept_degraded and verdict.held)
    if not verdict.held:
        return summary, None
    if accept_degraded:
        return summary, verdict.message()
    message = f"run {key}: publish held: {verdict.message()}; {ACCEPT_HINT}"
    record_failed_run(workspace, key, message, config=config, started_at=started_at, guard=summary)
    raise PublishHeld(message)


def _judge(workspace: Workspace, recommendations: pa.Table, max_new_share: float) -> Verdict:
    """The guard's verdict on the run's recommendations against the last good fleet run."""
    from planner.guard import TopicOutcome, judge
    from planner.store import RecommendationStore

    run = [
        TopicOutcome(r["topic"], r["status"], r["status_detail"])
        for r in recommendations.select(["topic", "status", "status_detail"]).to_pylist()
    ]
    with RecommendationStore(workspace.store_url) as store:
        last = store.last_good_run(FLEET_SCOPE)
        before = None if last is None else store.topic_statuses(last)
    return judge(
        run,
        before,
        max_new_share=max_new_share,
        last_good_key=None if last is None else last.key,
    )


def _published_attempt(
    store: Any, key: str, scope: str, started_at: datetime, outputs_sha256: str
) -> Any:
    """The store's current published run of this attempt, if any: the same run, scope
    and start, and the same validated datasets. The start alone does not tell attempts
    apart: `airflow dags test` gives every run of a date the date as its start, so a
    second run of it (another day's figures, or one published with accept_degraded after
    a hold) would take the first's rows for its own and publish nothing."""
    from planner.store import PUBLISHED

    last = store.last_good_run(scope)
    if (
        last is not None
        and last.key == key
        and last.status == PUBLISHED
        and last.started_at == started_at.astimezone(UTC)
        and last.source.get("outputs_sha256") == outputs_sha256
    ):
        return last
    return None


def _digest(fingerprint: Mapping[str, str]) -> str:
    """One SHA-256 over a stage's fingerprint (file -> SHA-256)."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(dict(fingerprint), sort_keys=True).encode()).hexdigest()


def report_interval(report: FleetReport) -> DataInterval:
    """The data interval a report covers."""
    return DataInterval(report.interval_start, report.interval_end)


def record_failed_run(
    workspace: Workspace,
    run: str,
    message: str,
    *,
    config: PlannerConfig,
    started_at: datetime,
    scope: str = "fleet",
    guard: Mapping[str, Any] | None = None,
) -> int | None:
    """Record a failed run in the store (its published rows stay); returns its id.

    The stages saved for the run so far go into the record, and the publish guard's
    verdict (`guard`) for a run it held. Returns None when the
    run's interval is unknown (collection never wrote it): there is nothing to key the
    record on, and the failure is in the task log.

    An attempt is recorded once: a retried recording of the same attempt (the same
    run, scope and `started_at`, as an Airflow task killed half-way and run again
    gives) returns the failure already recorded.
    """
    from planner.pipeline import jobs
    from planner.store import RecommendationStore, Run, RunSummary

    key = jobs.run_key(run)
    manifest = read_manifest(workspace.figures, key)
    if manifest is None:
        return None
    span = manifest["interval"]
    interval = DataInterval(
        datetime.fromisoformat(span["start"]), datetime.fromisoformat(span["end"])
    )
    state = workspace.run_state(key)
    validation: dict[str, Any] = {}
    for stage in ("inputs", "outputs"):
        result = load_stage(state, stage)
        if result is not None:
            validation[stage] = result.summary()
    if guard:
        validation["publish_guard"] = dict(guard)
    source: Mapping[str, Any] = {
        "sources": list(config.sources),
        "config": str(config.path) if config.path else None,
    }
    with RecommendationStore(workspace.store_url) as store:
        earlier = _failed_attempt(store, key, scope, started_at)
        if earlier is not None:
            return earlier.id
        return store.record_failure(
            Run(interval, started_at, source, scope), message, RunSummary(validation=validation)
        ).id


def _failed_attempt(
    store: RecommendationStore, key: str, scope: str, started_at: datetime
) -> RunRecord | None:
    """The failure recorded for this attempt (run, scope and start), if any."""
    from planner.store import FAILED

    for earlier in store.runs():
        if (earlier.key, earlier.scope, earlier.status) == (key, scope, FAILED) and (
            earlier.started_at == started_at.astimezone(UTC)
        ):
            return earlier
    return None


def recorded_failure(
    workspace: Workspace, run: str, *, started_at: datetime, scope: str = "fleet"
) -> str | None:
    """The message of the failure recorded for this attempt, if one was (a held publish
    records its own before its task fails)."""
    from planner.pipeline import jobs
    from planner.store import RecommendationStore

    with RecommendationStore(workspace.store_url) as store:
        found = _failed_attempt(store, jobs.run_key(run), scope, started_at)
    return None if found is None else found.message


def lookback_days_of(config: PlannerConfig) -> float:
    """The history days the jobs read for this config (their own rule)."""
    from spark_jobs.settings import load_settings

    return load_settings(config.path).lookback_days
