"""`partition-planner show TOPIC`: a stored recommendation as terminal text.

The numbers first (partitions, consumers, the deciding side and dimension), then the
figures they come from, the consumer groups, the warnings and the reasoning, wrapped to
80 columns. Everything read from the store is data from outside: control and format
characters in names or sentences are shown escaped (`\\x1b`), so a topic or group name
cannot move the cursor, recolour the terminal or reorder text with bidi marks.
"""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from planner.group_labels import CAPACITY_SOURCE_WORDS, group_label, lag_words
from planner.notes import LISTED_WITH_TOPIC, render_coded
from planner.recommend import creation
from planner.sizing import DIMENSION_LABELS, side_words
from planner.store.records import FAILED, FLEET_SCOPE, Recommendation, RunRecord

if TYPE_CHECKING:
    from planner.store.audit import ApplyAttempt
    from planner.store.store import RecommendationStore

__all__ = ["APPLIES_SHOWN", "render_applies", "render_latest", "render_recommendation"]

WIDTH = 80
_LABEL = 14  # label column, then the value
_STATUS = {
    "ok": "enough partitions to the end of the horizon",
    "plan-increase": "enough today, not by the end of the horizon",
    "increase": "not enough for today's peak",
    "create": "the topic does not exist yet: create it",
    "missing-capacity": "no capacity figures (Tp, Tc) to size on",
    "invalid-figures": "figures set aside by input validation (see the reason)",
}
_DIMENSIONS = DIMENSION_LABELS


def render_latest(store: RecommendationStore, topic: str, *, width: int = WIDTH) -> str:
    """The topic's latest published recommendation, with a note when it is not current.

    Raises:
        LookupError: no published run holds the topic.
    """
    found = store.latest(topic)
    if found is None:
        raise LookupError(f"no published recommendation for topic {_safe(topic)} in {store.url}")
    from planner.store.audit import history

    newest = store.runs(limit=1)
    text = render_recommendation(
        found,
        last_good=store.last_good_run(),
        newest=newest[0] if newest else None,
        width=width,
    )
    attempts = history(store, topic, limit=APPLIES_SHOWN)
    return text + ("\n\n" + render_applies(attempts, width=width) if attempts else "")


#: The newest `apply` attempts `show` prints for a topic.
APPLIES_SHOWN = 10


def render_applies(attempts: Sequence[ApplyAttempt], *, width: int = WIDTH) -> str:
    """A topic's `apply` attempts, newest first: when, who, what, outcome."""
    out = _Lines(width)
    out.wrap("Applied (partition-planner apply, newest first)")
    for a in attempts:
        change = f"{'new' if a.planned_from is None else a.planned_from} -> {a.planned_to}"
        seen = "" if a.observed is None or a.observed == a.planned_from else f", was {a.observed}"
        run = f"run {a.run_key}" if a.run_key else _safe(a.source)
        out.wrap(
            f"{a.started_at:%Y-%m-%d %H:%M:%S} UTC  {a.mode} by {_safe(a.who)}: {change}{seen} "
            f"({run}) -> {a.outcome}",
            first="  ",
            rest="      ",
        )
        if a.outcome not in ("applied", "no-op", "would-apply") and a.reason:
            out.wrap(_safe(a.reason), first="      ", rest="      ")
    return out.text()


def render_recommendation(
    rec: Recommendation,
    *,
    last_good: RunRecord | None = None,
    newest: RunRecord | None = None,
    width: int = WIDTH,
) -> str:
    """Render one stored recommendation for a terminal.

    Args:
        rec: The recommendation.
        last_good: The store's last good run: a note says so when `rec` is older
            (the topic is missing from the newest published interval).
        newest: The newest recorded attempt: a note says so when it failed.
        width: Columns to wrap to.
    """
    out = _Lines(width)
    _headline(out, rec, last_good, newest)
    _figures(out, rec)
    if rec.groups:
        out.blank()
        out.wrap("Consumer groups")
        for group in rec.groups:
            _group(out, group)
    alternatives = _sentences(list(rec.alternatives_coded), rec.alternatives)
    if alternatives:
        out.blank()
        out.wrap("Other protocols")
        for alternative in alternatives:
            out.wrap(_safe(alternative), first="  - ", rest="    ")
    warnings = _sentences(rec.detail.get("warnings_coded"), rec.warnings)
    if warnings:
        out.blank()
        out.wrap("Warnings")
        for warning in warnings:
            out.wrap(_safe(warning), first="  ! ", rest="    ")
    if rec.rationale:
        out.blank()
        out.wrap("Why")
        for sentence in _rationale(rec):
            out.wrap(_safe(sentence), first="  - ", rest="    ")
    return out.text()


def _headline(
    out: _Lines, rec: Recommendation, last_good: RunRecord | None, newest: RunRecord | None
) -> None:
    out.wrap(f"Topic {_safe(rec.topic)}")
    out.field("Partitions", _partitions(rec))
    status = _safe(rec.status)
    described = _STATUS.get(rec.status)
    out.field("Status", f"{status}: {described}" if described else status)
    if isinstance(rec.detail.get("status_detail"), str):
        out.field("", _safe(rec.detail["status_detail"]))
    if rec.recommended_consumers is not None:
        strategy = f", {_safe(rec.strategy)}" if rec.strategy else ""
        group = rec.detail.get("consumers_group_id")
        whose = f"group '{_safe(group)}'" if isinstance(group, str) else "one group, today"
        standby = rec.detail.get("standby_consumers")
        if isinstance(standby, int) and standby > 0:
            whose += f"; {standby} standing by"
        out.field("Consumers", f"{rec.recommended_consumers}{strategy} ({whose})")
    if rec.deciding_dimension:
        dimension = _DIMENSIONS.get(rec.deciding_dimension, _safe(rec.deciding_dimension))
        side = f", {_safe(side_words(rec.deciding_side))}" if rec.deciding_side else ""
        out.field("Deciding", dimension + side)
    if rec.keyed is not None:
        keyed = "keyed" if rec.keyed else "not keyed"
        partitioner = f", {_safe(rec.partitioner)} partitioner" if rec.partitioner else ""
        out.field("Keys", keyed + partitioner)
    run = rec.run
    if run.scope != FLEET_SCOPE:
        _creation_plan(out, rec, last_good)
    else:
        out.field(
            "Run",
            f"{run.key}: data {run.interval.start:%Y-%m-%d %H:%M} to "
            f"{run.interval.end:%Y-%m-%d %H:%M} UTC, published "
            f"{run.finished_at:%Y-%m-%d %H:%M} UTC",
        )
        if last_good is not None and last_good.id != run.id:
            newer = last_good.interval.start > run.interval.start or (
                last_good.interval.start == run.interval.start
                and last_good.finished_at > run.finished_at
            )
            if newer:
                out.field("", f"! not in the last good run {last_good.key}: this is an older one")
    if newest is not None and newest.status == FAILED and newest.id != run.id:
        reason = (newest.message or "").strip().splitlines()
        out.field(
            "",
            f"! the newest run, {newest.key}, failed and published nothing"
            + (f": {_safe(reason[0])}" if reason else ""),
        )


def _rationale(rec: Recommendation) -> tuple[str, ...]:
    if rec.run.scope == FLEET_SCOPE:
        return rec.rationale
    given = _request(rec).get("parameters")
    given = given if isinstance(given, dict) else {}
    return creation.creation_rationale(
        rec.rationale,
        growth_from_request=creation.growth_from_request(given),
        capacity=creation.request_capacity_source(given),
    )


def _request(rec: Recommendation) -> dict[str, Any]:
    found = rec.run.source.get("request")
    return found if isinstance(found, dict) else {}


def _creation_plan(out: _Lines, rec: Recommendation, last_fleet: RunRecord | None) -> None:
    """A creation plan's headline: what to create, how, its cost, the request, and how
    it stands against the last fleet run (which cannot hold a topic not created yet)."""
    run = rec.run
    rf = rec.detail.get("replication_factor")
    rf = rf if isinstance(rf, int) and not isinstance(rf, bool) else None
    p = rec.recommended_partitions
    if rec.status == creation.CREATE and p is not None:
        out.field(
            "Plan",
            "creation plan: "
            + _safe(creation.create_headline(rec.topic, partitions=p, replication_factor=rf)),
        )
        out.field(
            "Command",
            _safe(creation.create_command(rec.topic, partitions=p, replication_factor=rf)),
        )
        cost = {name: rec.detail.get(f"cost_{name}") for name in creation.CREATE_COST_FIELDS}
        whole = {k: v for k, v in cost.items() if isinstance(v, int)}
        if len(whole) == len(cost):
            out.field("Cost", _safe(creation.create_cost(partitions=p, **whole)))
    request = _request(rec)
    at = request.get("requested_at")
    when = (
        f"{at[:16].replace('T', ' ')} UTC"
        if isinstance(at, str)
        else f"{run.started_at:%Y-%m-%d %H:%M} UTC"
    )
    out.field("Requested", f"{when}, published {run.finished_at:%Y-%m-%d %H:%M} UTC")
    parameters = request.get("parameters")
    if isinstance(parameters, dict) and parameters:
        out.field("Request", _safe(creation.request_summary(parameters)))
    if last_fleet is None:
        return
    if last_fleet.finished_at > run.finished_at:
        out.field(
            "",
            f"! the fleet run {last_fleet.key}, published after this plan, does not have "
            "the topic: not created yet, or its figures were not collected",
        )
    else:
        out.field(
            "",
            f"planned after the last fleet run {last_fleet.key} "
            f"(published {last_fleet.finished_at:%Y-%m-%d %H:%M} UTC)",
        )


def _figures(out: _Lines, rec: Recommendation) -> None:
    records_growth = rec.detail.get("records_in_growth_per_year")
    growth_from = _safe(str(rec.detail.get("mib_in_growth_source") or ""))
    capacity_from = None
    if rec.run.scope != FLEET_SCOPE:
        given = _request(rec).get("parameters")
        given = given if isinstance(given, dict) else {}
        growth = rec.mib_in_growth_per_year
        if creation.growth_from_request(given) and isinstance(growth, float):
            growth_from = creation.growth_given(growth)
        capacity_from = creation.request_capacity_source(given)
    figures = [
        (
            "Peak in",
            _rate(rec.mib_in_peak_per_s, "MiB/s", 2),
            _rate(rec.records_in_peak_per_s, "rec/s", 0),
            "",
        ),
        (
            "Target in",
            _rate(rec.mib_in_target_per_s, "MiB/s", 2),
            _rate(rec.records_in_target_per_s, "rec/s", 0),
            "peak, growth and headroom",
        ),
        (
            "Growth",
            _growth(rec.mib_in_growth_per_year),
            _growth(records_growth),
            growth_from,
        ),
        (
            "Tp",
            _rate(rec.tp_mib_per_s, "MiB/s", 2),
            _rate(rec.tp_records_per_s, "rec/s", 0),
            "per partition, producing",
        ),
        (
            "Tc",
            _rate(rec.tc_mib_per_s, "MiB/s", 2),
            _rate(rec.tc_records_per_s, "rec/s", 0),
            "per partition, consuming",
        ),
    ]
    figures = [f for f in figures if f[1] or f[2]]
    if figures:
        out.blank()
        out.wrap("Figures")
        for label, mib, records, note in figures:
            out.field(label, f"{mib or '-':>14} {records or '-':>16}  {note}".rstrip())
    if capacity_from is not None:
        out.field("Tp/Tc from", _safe(capacity_from))


class _Lines:
    def __init__(self, width: int) -> None:
        self.width = width
        self.lines: list[str] = []

    def wrap(self, text: str, *, first: str = "", rest: str = "  ") -> None:
        self.lines.extend(
            textwrap.wrap(
                text,
                self.width,
                initial_indent=first,
                subsequent_indent=rest,
                break_on_hyphens=False,
            )
            or [first.rstrip()]
        )

    def field(self, label: str, value: str) -> None:
        pad = " " * (2 + _LABEL)
        self.wrap(value, first=f"  {label:<{_LABEL}}", rest=pad)

    def blank(self) -> None:
        self.lines.append("")

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines)


def _partitions(rec: Recommendation) -> str:
    current = "new topic" if rec.current_partitions is None else str(rec.current_partitions)
    recommended = "?" if rec.recommended_partitions is None else str(rec.recommended_partitions)
    rule = []
    if rec.required_partitions_now is not None:
        rule.append(f"{rec.required_partitions_now} for today's peak")
    if rec.required_partitions is not None:
        rule.append(f"{rec.required_partitions} at the horizon")
    return f"{current} -> {recommended}" + (f" (needed: {', '.join(rule)})" if rule else "")


def _group(out: _Lines, group: Mapping[str, Any]) -> None:
    # Field names of the dataset's group plans, or of recommendations.json.
    def first(*names: str) -> Any:
        return next((group[n] for n in names if group.get(n) is not None), None)

    name = _safe(str(group.get("group_id", "?")))
    current = first("current_members")
    recommended = first("recommended_members", "recommended_consumers")
    standby = first("standby_members")
    if group.get("status") == creation.DEPLOY and isinstance(recommended, int):
        change = f"{creation.DEPLOY} {recommended}"  # "deploy 4 consumers"
    elif recommended is None or recommended == current:
        change = f"keep {current}"
    else:
        change = f"{current} -> {recommended}"
    # Its protocol and assignor (`classic` for rows written before groups had one):
    # today's assignor, the recommended one after an arrow, and what the plan ran.
    protocol = first("protocol")
    was = first("current_strategy")
    now = first("strategy")
    planned_as = first("planned_as")
    strategy = _safe(
        group_label(
            protocol if isinstance(protocol, str) else None,
            str(was or now or "?"),
            None if now is None else str(now),
            planned_as=planned_as if isinstance(planned_as, str) else None,
            arrow="->",
        )
    )
    by = f" ({standby} standing by)" if isinstance(standby, int) and standby > 0 else ""
    out.wrap(f"{name}: {change} consumers{by}, {strategy}", first="  ", rest="      ")
    status = first("status")
    if status is not None:
        now = first("members_now", "consumers_now")
        horizon = first("members_at_horizon", "consumers_at_horizon")
        # A group that keeps up but has no standby member: the floor sets `now`, not the
        # load, so it is not "needed".
        said = (
            f"no standby member: min_group_members plans {now} now, {horizon} at the horizon"
            if status == "no-standby"
            else f"{_safe(str(status))}: {now} needed now, {horizon} at the horizon"
        )
        out.wrap(said, first="    ", rest="      ")
    coded = group.get("notes_coded")
    if isinstance(coded, list) and coded:
        # The topic's "Other protocols" lists these (`LISTED_WITH_TOPIC`).
        coded = [
            c for c in coded if not (isinstance(c, Mapping) and c.get("code") in LISTED_WITH_TOPIC)
        ]
        notes = _sentences(coded, ()) if coded else []
    else:
        notes = _sentences(coded, first("notes") or ())
    for note in notes:
        out.wrap(_safe(note), first="    - ", rest="      ")
    _capacity_and_lag(out, group, now)
    # Its fetches by zone (`planner.cross_zone`): only the advice the figure supports,
    # rendered from its codes; nothing for a group whose racks are unknown.
    cross_zone = group.get("cross_zone")
    if isinstance(cross_zone, Mapping):
        for advice in _sentences(cross_zone.get("advice"), ()):
            out.wrap(_safe(advice), first="    - ", rest="      ")


def _capacity_and_lag(out: _Lines, group: Mapping[str, Any], members_now: Any) -> None:
    # The Tc its members were sized with and where it comes from, what the topic's Tc
    # would have asked for instead, and its lag where observed (rows written before
    # groups had them have neither).
    capacity = group.get("consumer_capacity")
    # The topic's own Tc is in the figures above: said once, not per group.
    if isinstance(capacity, Mapping) and capacity.get("source") not in (None, "topic-default"):
        source = str(capacity["source"])
        records, mib = capacity.get("records_per_s"), capacity.get("mib_per_s")
        figure = (
            f"{records:,.1f} records/s"
            if isinstance(records, int | float)
            else f"{mib:,.3f} MiB/s"
            if isinstance(mib, int | float)
            else "unknown"
        )
        words = CAPACITY_SOURCE_WORDS.get(source, source)
        said = f"Tc per member: {figure} ({_safe(words)})"
        if capacity.get("evidence"):
            said += f": {_safe(str(capacity['evidence']))}"
        out.wrap(said, first="    ", rest="      ")
        at_topic = capacity.get("members_now_at_topic_tc")
        if isinstance(at_topic, int) and at_topic != members_now:
            out.wrap(
                f"with the topic's Tc instead: {at_topic} needed now", first="    ", rest="      "
            )
    lag = group.get("lag")
    if isinstance(lag, Mapping):
        out.wrap(
            "lag: " + lag_words(lag.get("records"), lag.get("seconds"), lag.get("trend")),
            first="    ",
            rest="      ",
        )


def _sentences(coded: Any, stored: Sequence[Any]) -> list[str]:
    """Warnings or notes rendered from their codes and parameters (`planner.notes`).

    Rows published before notes had codes carry the sentences only; a coded note that
    does not render (not the shape this version writes: the store is data from
    outside) is shown as the sentence stored with it.
    """
    if not isinstance(coded, list) or not coded:
        return [str(s) for s in stored]
    out = []
    for c in coded:
        if not isinstance(c, Mapping):
            out.append(str(c))
            continue
        try:
            out.append(render_coded(c))
        except (KeyError, TypeError, ValueError, IndexError, ArithmeticError):
            out.append(str(c.get("text") or ""))
    return out


def _rate(value: float | None, unit: str, decimals: int) -> str:
    return "" if value is None else f"{value:,.{decimals}f} {unit}"


def _growth(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return f"{value:+.0%}/year"


def _safe(text: str | None) -> str:
    """`text` with control, format and unassigned characters escaped, e.g. `\\x1b`."""
    if text is None:
        return ""
    return "".join(
        ch if unicodedata.category(ch)[0] != "C" else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )
