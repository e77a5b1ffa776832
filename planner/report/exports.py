"""The report for machines (`recommendations.json`) and for chat (`summary.md`).

`recommendations.json` is a list with one object per topic, sorted by name, carrying the
numbers, the deciding dimension and side, plain-language warnings, the status and one
object per consumer group. `summary.md` puts the topics that need action first and
stays short: it is meant to be pasted into a ticket or a chat. Its cross-zone section
gives each group's bytes across zones where its racks are known, says "not known" where
they are not, and repeats the plan's `client-rack` and `follower-fetching` advice.

In Markdown, names go into code spans (CommonMark shows their content as literal text)
and other text has Markdown's and HTML's special characters backslash-escaped, so a
hostile topic name or key renders as the text it is, never as markup.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from planner.protocols import DEFAULT_PROTOCOL, is_streams
from planner.recommend import creation
from planner.report.cross_zone import gib_text
from planner.report.layout import STATUS_LABELS
from planner.report.model import (
    DIMENSION_UNITS,
    PLANNED_STATUSES,
    TOPIC_STATUSES,
    CodedNote,
    CrossZoneReport,
    FleetReport,
    GroupReport,
    TopicReport,
)
from planner.report.names import topic_href
from planner.sizing import side_words

__all__ = ["md_code", "md_text", "recommendations", "summary_markdown"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&~|#])")
_LIST_MOST = 25
_WARNINGS_MOST = 3
# Topics named on a group's line; the rest are counted.
_GROUP_TOPICS_MOST = 3
_WARNING_CHARS = 240
_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector"  # KIP-392
#: Statuses of topics that could not be sized, in the order the summary lists them.
_UNSIZED = tuple(s for s in TOPIC_STATUSES if s not in PLANNED_STATUSES)


def _visible(text: str) -> str:
    # A newline inside a name would end the list item it is in; show it as \x0a instead.
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def md_code(text: str) -> str:
    """`text` as a Markdown code span (literal text, whatever it contains)."""
    text = _visible(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_text(text: str) -> str:
    """Plain text safe inside a Markdown paragraph or list item."""
    return _MD_SPECIAL.sub(r"\\\1", _visible(text))


def _group_record(g: GroupReport) -> dict[str, Any]:
    return {
        "group_id": g.group_id,
        "topics": list(g.topics),
        "status": g.status,
        "current_strategy": g.current_strategy,
        "strategy": g.strategy,
        "current_members": g.current_members,
        "recommended_members": g.recommended_members,
        "members_now": g.members_now,
        "members_at_horizon": g.members_at_horizon,
        "standby_members": g.standby_members,
        "busiest_utilisation": g.busiest_utilisation,
        "notes": list(g.notes),
        "notes_coded": [_coded(n) for n in g.notes_coded],
        "protocol": g.protocol,
        "planned_as": g.planned_as,
        # The Tc its members were sized with (records/s, MiB/s at the topic's mean record
        # size, null when unknown; its source and evidence) and its observed lag; null
        # for a group of several topics, or one not observed.
        "consumer_capacity": _as_object(g.consumer_capacity),
        "lag": _as_object(g.lag),
        # Bytes fetched per day by zone under the planned assignment, from leaders and
        # with follower fetching, the price and costs when a price is configured, and the
        # racks and replica lists it came from; null where racks are unknown.
        "cross_zone": _cross_zone(g),
        # A Kafka Streams application's standby tasks, the changelog bytes they read, the
        # state they hold and the instances they need, each with its evidence
        # (`planner.standbys`); null for any other group.
        "standbys": None if g.standbys is None else g.standbys.to_json_dict(),
    }


def _cross_zone(g: GroupReport) -> dict[str, Any] | None:
    if g.cross_zone is None:
        return None
    record = g.cross_zone.to_json_dict()
    record["advice"] = [_coded(n) for n in g.cross_zone.advice]
    return record


def _as_object(value: object) -> dict[str, Any] | None:
    return None if value is None else dataclasses.asdict(value)  # type: ignore[call-overload]


def _coded(n: CodedNote) -> dict[str, Any]:
    # The coded form beside the sentences, its parameters as JSON values again.
    return {"code": n.code, "severity": n.severity, "params": json.loads(n.params), "text": n.text}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def recommendations(report: FleetReport, pages: dict[str, str]) -> list[dict[str, Any]]:
    """One JSON object per topic, sorted by topic name.

    Args:
        report: The report.
        pages: Topic -> page file name (from `page_names`).
    """
    out = []
    for t in sorted(report.topics, key=lambda t: t.topic):
        out.append(
            {
                "topic": t.topic,
                "status": t.status,
                "current_partitions": t.current_partitions,
                "required_partitions_now": t.required_partitions_now,
                "required_partitions": t.required_partitions,
                "recommended_partitions": t.recommended_partitions,
                "recommended_consumers": t.recommended_consumers,
                "standby_consumers": t.standby_consumers,
                "strategy": t.strategy,
                "consumers_group": t.consumers_group,
                "deciding": (
                    None
                    if t.deciding is None
                    else {"dimension": t.deciding.dimension, "side": t.deciding.side}
                ),
                "keyed": t.keyed,
                "partitioner": t.partitioner,
                "replication_factor": t.replication_factor,
                "headroom_now_pct": _round(t.spare_pct(t.current_partitions)),
                "headroom_recommended_pct": _round(t.spare_pct(t.recommended_partitions)),
                "current_count_lasts_days": _round(t.current_count_lasts_days),
                "warnings": list(t.warnings),
                "warnings_coded": [_coded(w) for w in t.warnings_coded],
                "rationale": list(t.rationale),
                "error": t.error,
                "rejected_rows": t.rejected_rows,
                "groups": [_group_record(g) for g in t.groups],
                "page": topic_href(pages[t.topic]),
                "alternatives": list(t.alternatives),
                "alternatives_coded": [_coded(a) for a in t.alternatives_coded],
                # Added for the change list (`planner.changes`): the run, Tp and Tc
                # (KEDA's lag threshold), the cost of the recommended count.
                "run": report.run_key,
                **_capacities(t),
                "cost": _cost(t),
            }
        )
    return out


def _capacities(t: TopicReport) -> dict[str, float | None]:
    # Tp and Tc of the dimensions the rule ran in, under the dataset's names (Tc in MiB/s
    # is the same in `mib_in` and `mib_out`; Tp has no `mib_out` figure).
    out: dict[str, float | None] = {
        f"{side}_{unit}_per_s": None for side in ("tp", "tc") for unit in ("mib", "records")
    }
    for d in t.dimensions:
        unit = "records" if d.dimension == "records_in" else "mib"
        for side, value in (("tp", d.producer_capacity), ("tc", d.consumer_capacity)):
            if value is not None and out[f"{side}_{unit}_per_s"] is None:
                out[f"{side}_{unit}_per_s"] = value
    return out


def _cost(t: TopicReport) -> dict[str, Any] | None:
    if t.cost is None:
        return None
    fields = dataclasses.asdict(t.cost)
    fields.pop("warnings", None)
    return fields


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _partitions(t: TopicReport) -> str:
    def count(n: int | None) -> str:
        return "?" if n is None else f"{n:,}"

    if t.status == "create":
        return f"create with {count(t.recommended_partitions)} partitions"
    current = "new" if t.current_partitions is None else count(t.current_partitions)
    return f"{current} -> {count(t.recommended_partitions)} partitions"


def _topic_line(t: TopicReport) -> list[str]:
    parts = [f"- {md_code(t.topic)}: {_partitions(t)}"]
    if t.deciding is not None:
        unit = DIMENSION_UNITS[t.deciding.dimension]
        parts.append(f" ({md_text(unit)}, {side_words(t.deciding.side)})")
    if t.recommended_consumers is not None and t.strategy is not None:
        whose = (
            "one group reading only it"
            if t.consumers_group is None
            else f"group {md_code(t.consumers_group)}"
        )
        standby = f", {t.standby_consumers:,} standing by" if t.standby_consumers else ""
        parts.append(
            f"; {_count(t.recommended_consumers, 'consumer', 'consumers')} "
            f"({whose}{standby}), {md_code(t.strategy)}"
        )
    lines = ["".join(parts)]
    warnings = t.warning_sentences
    for w in warnings[:_WARNINGS_MOST]:
        short = w if len(w) <= _WARNING_CHARS else w[: _WARNING_CHARS - 1].rstrip() + "\u2026"
        lines.append(f"  - warning: {md_text(short)}")
    if len(warnings) > _WARNINGS_MOST:
        lines.append(f"  - and {len(warnings) - _WARNINGS_MOST} more warnings on its page")
    return lines


def _group_line(g: GroupReport, topics: tuple[str, ...]) -> str:
    shown = ", ".join(md_code(n) for n in topics[:_GROUP_TOPICS_MOST])
    more = len(topics) - _GROUP_TOPICS_MOST
    where = f"- {md_code(g.group_id)} on {shown}" + (f" and {more} more" if more > 0 else "") + ": "
    if g.strategy is None or g.recommended_members is None:
        notes = g.note_sentences
        why = md_text(notes[0]) if notes else ""
        return f"{where}{STATUS_LABELS[g.status][0]}: {why}"
    # A plain classic group keeps its strategy alone; any other says its protocol too.
    plain = g.protocol == DEFAULT_PROTOCOL and not is_streams(g.protocol, g.strategy)
    return (
        f"{where}{g.current_members} -> {g.recommended_members} members"
        f"{f' ({g.standby_members:,} standing by)' if g.standby_members else ''}, "
        f"{md_code(g.strategy if plain else g.label(arrow='->'))} "
        f"({STATUS_LABELS[g.status][0]})"
    )


def _per_day(cost: float | None) -> str:
    # In the configured price's currency, never named: the config gives a number only.
    return "" if cost is None else f" ({cost:,.2f} a day)"


def _cross_zone_item(g: GroupReport, topics: tuple[str, ...]) -> list[str]:
    cz = g.cross_zone
    assert cz is not None
    shown = ", ".join(md_code(n) for n in topics[:_GROUP_TOPICS_MOST])
    more = len(topics) - _GROUP_TOPICS_MOST
    where = f"- {md_code(g.group_id)} on {shown}" + (f" and {more} more" if more > 0 else "")
    read = f"{where}: reads {gib_text(cz.bytes_per_day)} a day; "
    if not cz.evidence.member_racks:
        line = f"{read}across zones: not known (no client.rack given)"
    else:
        leaders, followers = cz.from_leaders, cz.follower_fetching
        line = (
            f"{read}across zones {gib_text(leaders.cross_zone_bytes_per_day)} from leaders"
            f"{_per_day(cz.leader_cost_per_day)}, "
            f"{gib_text(followers.cross_zone_bytes_per_day)} with follower fetching"
            f"{_per_day(cz.follower_cost_per_day)}"
        )
        if leaders.unknown_bytes_per_day > 0:
            # Partitions not created yet, or a broker without a rack: counted neither way.
            line += f"; zone not known for {gib_text(leaders.unknown_bytes_per_day)}"
    return [line, *(f"  - {md_text(_advice(n, cz))}" for n in cz.advice)]


def _advice(n: CodedNote, cz: CrossZoneReport) -> str:
    # The plan's advice, shorter than its sentence: the group's line above has the figures.
    if n.code == "follower-fetching":
        saved = (
            cz.from_leaders.cross_zone_bytes_per_day - cz.follower_fetching.cross_zone_bytes_per_day
        )
        costs = (cz.leader_cost_per_day, cz.follower_cost_per_day)
        cut = "" if None in costs else _per_day((costs[0] or 0.0) - (costs[1] or 0.0))
        return (
            f"follower fetching (brokers: replica.selector.class={_SELECTOR}) fetches "
            f"{gib_text(saved)} a day less across zones{cut}, if same-zone replicas keep up"
        )
    if n.code == "client-rack":
        racks = sorted({b.rack for b in cz.evidence.brokers if b.rack})
        return (
            f"set client.rack to each consumer's zone (brokers in {', '.join(racks)}): "
            f"then its cross-zone bytes can be counted and cut by follower fetching"
        )
    return n.sentence


def _cross_zone_lines(report: FleetReport) -> list[str]:
    """The "Cross-zone fetches" section: the fleet's figure, then each group's, and what
    the figures show to do. Nothing where no group has a figure (racks unknown)."""
    located = report.groups_across_zones()
    if not located:
        return []
    figures = [cz for g, _ in located if (cz := g.cross_zone) is not None]
    known = [cz for cz in figures if cz.evidence.member_racks]
    price = next((cz.price_per_gib for cz in figures if cz.price_per_gib is not None), None)

    def total(values: list[float | None]) -> float | None:
        return None if price is None else sum(v or 0.0 for v in values)

    intro = (
        "Consumer fetches a day under each group's planned assignment, by the replicas' "
        "and brokers' racks in the figures and the members' client.rack as given"
        + ("" if price is None else f"; costs at {price:g} per GiB, the configured price")
        + "."
    )
    if known:
        intro += (
            f" {_count(len(known), 'group', 'groups')} whose members' racks are given "
            f"fetch {gib_text(sum(cz.from_leaders.cross_zone_bytes_per_day for cz in known))} "
            f"a day across zones from leaders"
            f"{_per_day(total([cz.leader_cost_per_day for cz in known]))}, "
            f"{gib_text(sum(cz.follower_fetching.cross_zone_bytes_per_day for cz in known))} "
            f"with follower fetching{_per_day(total([cz.follower_cost_per_day for cz in known]))}."
        )
    unknown = len(figures) - len(known)
    if unknown:
        at_stake = sum(cz.bytes_per_day for cz in figures if not cz.evidence.member_racks)
        intro += (
            f" {_count(unknown, 'group gives', 'groups give')} no client.rack: where "
            f"{'its' if unknown == 1 else 'their'} {gib_text(at_stake)} a day are fetched "
            f"from is not known."
        )
    out = ["", "## Cross-zone fetches", "", intro, ""]
    for g, topics in located[:_LIST_MOST]:
        out.extend(_cross_zone_item(g, topics))
    if len(located) > _LIST_MOST:
        out.append(f"- and {len(located) - _LIST_MOST} more: see `index.html`")
    return out


def _section(title: str, items: list[list[str]]) -> list[str]:
    if not items:
        return []
    out = ["", f"## {title}", ""]
    for lines in items[:_LIST_MOST]:
        out.extend(lines)
    if len(items) > _LIST_MOST:
        out.append(f"- and {len(items) - _LIST_MOST} more: see `index.html`")
    return out


def _creation_summary(report: FleetReport) -> str:
    # A creation plan: the request, what to create with the command and its cost, the
    # groups to deploy.
    r = report.request
    assert r is not None
    s = report.settings
    run = f" (Airflow run {md_code(r.run_id)})" if r.run_id else ""
    lines = [
        f"# Creation plan: {md_code(r.topic)}",
        "",
        f"Requested {r.requested_at:%Y-%m-%d %H:%M} UTC{run}: "
        f"{md_text(creation.request_summary(r.parameters))}. "
        f"p{s.percentile:g} peak, {s.headroom_pct:g} % headroom, {s.horizon_days:g}-day horizon.",
    ]
    items = []
    for t in report.topics:
        if t.status != "create" or t.recommended_partitions is None:
            continue
        p, rf = t.recommended_partitions, t.replication_factor
        headline = creation.create_headline(t.topic, partitions=p, replication_factor=rf)
        item = [f"- **{md_text(headline)}**"]
        if t.cost is not None:
            c = t.cost
            cost = creation.create_cost(
                partitions=p,
                replicas_total=c.replicas_total,
                replicas_per_broker=c.replicas_per_broker,
                replicas_per_broker_limit=c.replicas_per_broker_limit,
                producer_batch_memory_bytes=c.producer_batch_memory_bytes,
                consumer_threads=c.consumer_threads,
            )
            item.append(f"  - cost: {md_text(cost)}")
        item += _topic_line(t)[1:]
        # A fenced block inside the list item: the command copies as it is.
        command = creation.create_command(t.topic, partitions=p, replication_factor=rf)
        item += ["", "  ```sh", f"  {command}", "  ```"]
        items.append(item)
    lines += _section("Create", items)
    lines += _section(
        "Consumer groups to deploy",
        [
            [
                f"- {md_code(g.group_id)}: "
                + md_text(
                    creation.deploy_headline(
                        members=g.recommended_members or 0, standby=g.standby_members
                    )
                )
                + (f", {md_code(g.strategy)}" if g.strategy else "")
            ]
            for g, _ in report.groups_to_deploy()
        ],
    )
    lines += _section(
        "Could not be planned",
        [
            [f"- {md_code(t.topic)}: {STATUS_LABELS[t.status][0]}: {md_text(t.error or '')}"]
            for t in report.topics
            if not t.planned
        ],
    )
    back = f"; the fleet report: `{r.fleet_link}`" if r.fleet_link else ""
    lines += ["", f"Full plan: `index.html`{back}.", ""]
    return "\n".join(lines)


def _new_topics_lines(report: FleetReport) -> list[list[str]]:
    out = []
    for n in report.new_topics:
        what = (
            creation.create_headline(n.topic, partitions=n.partitions, replication_factor=None)
            if n.status == "create" and n.partitions is not None
            else f"{n.topic}: {STATUS_LABELS.get(n.status, (n.status, ''))[0]}"
        )
        since = ", since the last run" if n.since_last_run else ""
        where = f" ({md_code(n.href)})" if n.href else ""
        out.append(
            [f"- {md_text(what)}: requested {n.requested_at:%Y-%m-%d %H:%M} UTC{since}{where}"]
        )
    return out


def summary_markdown(report: FleetReport) -> str:
    """A short Markdown summary, topics needing action first (for a creation plan: what
    to create, how, and the groups to deploy)."""
    if report.creation:
        return _creation_summary(report)
    s = report.settings
    by_status = {
        status: sorted((t for t in report.topics if t.status == status), key=lambda t: t.topic)
        for status in TOPIC_STATUSES
    }
    unsized = [t for status in _UNSIZED for t in by_status[status]]
    under = report.group_count("under-provisioned")
    no_standby = report.group_count("no-standby")
    over = report.group_count("over-provisioned")
    unplanned = report.group_count("unplanned")
    lines = [
        f"# {md_text(report.title)}: run {md_code(report.run_key)}",
        "",
        f"Data interval {report.interval_start:%Y-%m-%d %H:%M} to "
        f"{report.interval_end:%Y-%m-%d %H:%M} UTC; p{s.percentile:g} peak, "
        f"{s.headroom_pct:g} % headroom, {s.horizon_days:g}-day horizon.",
        "",
        f"**{_count(len(by_status['increase']), 'topic needs', 'topics need')} more "
        f"partitions now, {len(by_status['plan-increase'])} within the horizon, "
        f"{_count(len(by_status['ok']), 'is', 'are')} fine, {len(unsized)} could not be "
        f"sized"
        + (
            f" ({len(by_status['invalid-figures'])} with figures set aside by input validation)"
            if by_status["invalid-figures"]
            else ""
        )
        + f".** Consumer groups: {under} under-provisioned"
        # Counted apart: they keep up with the load; only min_group_members asks for more.
        + (f", {no_standby} without a standby member" if no_standby else "")
        + f", {over} over-provisioned"
        + (f", {unplanned} not planned." if unplanned else "."),
    ]
    lines += _section("Create", [_topic_line(t) for t in by_status["create"]])
    lines += _section("Increase now", [_topic_line(t) for t in by_status["increase"]])
    lines += _section(
        "Increase within the horizon", [_topic_line(t) for t in by_status["plan-increase"]]
    )
    groups = [[_group_line(g, topics)] for g, topics in report.groups_to_resize()]
    title = "Consumer groups to resize" + (", and groups without a plan" if unplanned else "")
    lines += _section(title, groups)
    lines += _cross_zone_lines(report)
    lines += _section("New topics planned", _new_topics_lines(report))
    lines += _section(
        "Could not be sized",
        [
            [f"- {md_code(t.topic)}: {STATUS_LABELS[t.status][0]}: {md_text(t.error or '')}"]
            for t in unsized
        ],
    )
    fine = by_status["ok"]
    if fine:
        names = ", ".join(md_code(t.topic) for t in fine[:_LIST_MOST])
        more = f" and {len(fine) - _LIST_MOST} more" if len(fine) > _LIST_MOST else ""
        lines += ["", "## Fine to the end of the horizon", "", f"{names}{more}."]
    rejected = sum(r.rows for r in report.rejected)
    if rejected:
        tables = ", ".join(f"{md_text(r.table)} {r.rows:,}" for r in report.rejected if r.rows)
        lines += ["", f"Rejected input rows: {tables} (see `index.html`)."]
    lines += ["", "Full report: `index.html`; for machines: `recommendations.json`.", ""]
    return "\n".join(lines)
