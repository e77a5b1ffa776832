"""A topic page's "Standby tasks" section: each Kafka Streams group's standbys and cost.

The figures are the plan's (`planner.standbys`, carried as `GroupReport.standbys`); this
only prints them, each with how it is known. A topic no Streams group of which has a
figure gets no section.
"""

from __future__ import annotations

from html import escape

from planner.report.model import GroupReport, StandbysReport, TopicReport

__all__ = ["standbys_section"]

_MIB = 2**20
_GIB = 2**30


def _range(lo: int | None, hi: int | None) -> str:
    if lo is None or hi is None:
        return "unknown"
    return f"{lo:,}" if lo == hi else f"{lo:,} to {hi:,}"


def _cells(sb: StandbysReport) -> tuple[str, ...]:
    s = sb.standby_replicas
    given = "not given (Kafka's default is 0)" if s is None else f"{s} (given)"
    tasks = (
        "unknown"
        if sb.standby_tasks_min is None
        else f"{_range(sb.standby_tasks_min, sb.standby_tasks_max)} ({sb.stateful_tasks_evidence})"
    )
    read = sb.standby_read_bytes_per_s
    reads = (
        "unknown"
        if read is None
        else f"{'at least ' if sb.changelog_evidence == 'bound' else ''}"
        f"{read / _MIB:,.2f} MiB/s ({sb.changelog_evidence})"
    )
    held = sb.standby_state_bytes
    state = "unknown: no state-store size" if held is None else f"at most {held / _GIB:,.2f} GiB"
    instances = "unknown" if sb.min_instances is None else f"at least {sb.min_instances}"
    return given, tasks, reads, state, instances


def _row(g: GroupReport, sb: StandbysReport) -> str:
    cells = "".join(f"<td>{escape(c)}</td>" for c in _cells(sb))
    logs = ", ".join(
        f"{c.topic} ({c.partitions if c.partitions is not None else '?'} partitions)"
        for c in sb.changelog_topics
    )
    return (
        f"<tr><td><code>{escape(g.group_id)}</code> <small>{escape(sb.config)}</small></td>"
        f'{cells}<td class="evidence">{escape(logs or "no changelog topic in the figures")}'
        f"</td></tr>"
    )


def standbys_section(t: TopicReport) -> str:
    """The section's HTML, or "" when no group of the topic has a standby figure."""
    found = [(g, g.standbys) for g in t.groups if g.standbys is not None]
    if not found:
        return ""
    return (
        '<h2 id="standbys">Standby tasks</h2>'
        "<p>What each Kafka Streams application's standby replicas cost: standby tasks (S x "
        "its stateful tasks), the changelog bytes they read continuously (S x the bytes "
        "written to its changelogs), the state they hold (S x the state's size) and the "
        "instances they need (S + 1: a standby never runs on its active's instance).</p>"
        "<table><thead><tr><th>Group</th><th>Standby replicas</th><th>Standby tasks</th>"
        "<th>Changelog reads</th><th>State held</th><th>Instances</th><th>Changelogs</th>"
        f"</tr></thead><tbody>{''.join(_row(g, sb) for g, sb in found)}</tbody></table>"
    )
