"""`apply`'s report for a terminal or a task log: each change, its cost and warnings,
what became of it, and a summary line. Pure."""

from __future__ import annotations

import textwrap

from planner.apply.run import ApplyReport, Result
from planner.changes import ChangeList

__all__ = ["render_markdown", "render_report", "summary_line"]

WIDTH = 100
_WORDS = {
    "applied": "applied",
    "would-apply": "would apply",
    "no-op": "nothing to do",
    "refused": "refused",
    "failed": "failed",
    "unverified": "not verified",
    "not-attempted": "not attempted",
}


def _wrap(text: str, first: str, rest: str) -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    ) or [first.rstrip()]


def _result(r: Result) -> list[str]:
    c = r.step.change
    lines = _wrap(c.headline(), "  ", "    ")
    if r.step.observed is not None and r.step.observed != c.from_partitions:
        lines += _wrap(f"on the cluster now: {r.step.observed} partitions", "    ", "      ")
    cost = c.cost_sentence()
    if cost and r.outcome in ("applied", "would-apply", "failed", "unverified"):
        lines += _wrap(f"cost: {cost}", "    ", "      ")
    if r.outcome != "refused":
        for w in c.warnings:
            lines += _wrap(f"{w.severity} [{w.code}]: {w.text}", "    ! ", "      ")
    lines += _wrap(f"{_WORDS[r.outcome]}: {r.detail}", "    => ", "       ")
    return lines


def summary_line(report: ApplyReport) -> str:
    """`applied 2, nothing to do 1, refused 1` (outcomes that occurred)."""
    counts = [(w, report.count(o)) for o, w in _WORDS.items()]
    return ", ".join(f"{w} {n}" for w, n in counts if n) or "no topic to change"


def render_report(report: ApplyReport, changes: ChangeList) -> str:
    """The whole report."""
    mode = (
        "executed"
        if report.execute
        else "dry run: nothing was changed (the broker validated each change); "
        "--execute applies them"
    )
    lines = [
        f"apply {report.apply_id}: run {report.run or '?'} on Kafka at {report.cluster}, {mode}"
    ]
    for r in report.results:
        lines += _result(r)
    if report.stopped:
        lines += _wrap(f"stopped early: {report.stopped}", "! ", "  ")
    if changes.groups:
        lines.append("consumer groups to resize (apply changes topics only; resize them yourself,")
        lines.append("or with the exported KEDA ScaledObjects):")
        for g in changes.groups:
            lines += _wrap(g.headline(), "  ", "    ")
    lines.append(f"summary: {summary_line(report)}")
    return "\n".join(lines)


def render_markdown(report: ApplyReport, changes: ChangeList) -> str:
    """The report as Markdown (the approval's text in Airflow): a list item per change,
    its cost and warnings below it; names in code spans, other text escaped."""
    from planner.report.exports import md_code, md_text

    lines = []
    for r in report.results:
        c = r.step.change
        name = md_code(c.topic)
        what = (
            f"create with {c.to_partitions} partitions"
            if c.creates
            else f"{c.from_partitions} → {c.to_partitions} partitions (+{c.added_partitions})"
        )
        lines.append(f"- **{name}**: {what}: **{_WORDS[r.outcome]}**: {md_text(r.detail)}")
        if r.step.observed is not None and r.step.observed != c.from_partitions:
            lines.append(f"  - on the cluster now: {r.step.observed} partitions")
        cost = c.cost_sentence()
        if cost and r.outcome != "refused":
            lines.append(f"  - cost: {md_text(cost)}")
        if r.outcome != "refused":
            lines += [f"  - {w.severity} `{w.code}`: {md_text(w.text)}" for w in c.warnings]
    if report.stopped:
        lines.append(f"\n**Stopped early**: {md_text(report.stopped)}")
    if changes.groups:
        lines.append("\nConsumer groups to resize (not changed by apply):\n")
        lines += [f"- {md_text(g.headline())}" for g in changes.groups]
    return "\n".join(lines) + "\n"
