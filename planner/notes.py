"""Warnings and notes as values: a stable code, a severity, the parameters, the sentence.

The catalogue of every finding the planner reports, as Kafka's `Errors` pairs a code
with its message: a plan's warnings (on a topic, the cost panel's limits among them)
and notes (on a consumer group) are `Note`s. The code
names the finding (`hot-key`, `keyed-remap`, `falling-behind`, `idle-members`, ...) and
does not change when the wording does; the parameters are the numbers and names the
sentence is made of (JSON values, so the coded form can be published beside the text);
the sentence is rendered from them by the code's renderer, once, when the note is made.
Tests assert codes and parameters; readers get the sentence.

`note(code, **params)` makes one; `render(code, params)` gives the sentence again from a
code and parameters, `render_coded` from a published coded form (what the report,
`summary.md` and `partition-planner show` print). Adding a finding is a renderer
registered with `_renders`; a new group protocol's wording is a parameter its renderer
reads (as `topics` picks the one-topic or the multi-topic wording of a group's notes).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from planner.sizing import DIMENSION_LABELS

__all__ = [
    "CODES",
    "LISTED_WITH_TOPIC",
    "Note",
    "Severity",
    "coded_rows",
    "note",
    "pct_apart",
    "render",
    "render_coded",
    "texts",
]

#: `warning`: something to act on or to know before acting; `info`: why the plan is
#: what it is.
Severity = Literal["warning", "info"]

_UNITS = DIMENSION_LABELS


@dataclass(frozen=True)
class Note:
    """One warning or note.

    Attributes:
        code: The finding's stable code (see `CODES`).
        severity: `warning` or `info`.
        params: The values the sentence is made of (JSON values).
        text: The rendered sentence.
    """

    code: str
    severity: Severity
    params: Mapping[str, Any] = field(compare=True)
    text: str = ""

    def __str__(self) -> str:
        return self.text

    def as_dict(self) -> dict[str, Any]:
        """The coded form: `code`, `severity`, `params`, `text` (JSON values; a load
        that is not finite, as when no group size fits, is null)."""
        return {
            "code": self.code,
            "severity": self.severity,
            "params": {k: _json_value(v) for k, v in self.params.items()},
            "text": self.text,
        }

    def as_row(self) -> dict[str, Any]:
        """The coded form with `params` as JSON text, for a dataset's fixed schema."""
        coded = self.as_dict()
        coded["params"] = json.dumps(coded["params"], sort_keys=True, allow_nan=False)
        return coded


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    return value


_log = logging.getLogger(__name__)

_Renderer = Callable[[Mapping[str, Any]], str]
_RENDERERS: dict[str, tuple[Severity, _Renderer]] = {}


def _renders(code: str, severity: Severity) -> Callable[[_Renderer], _Renderer]:
    def register(fn: _Renderer) -> _Renderer:
        _RENDERERS[code] = (severity, fn)
        return fn

    return register


#: Codes of notes a group carries that its topics list among their alternatives
#: (`TopicPlan.alternatives`): a page or listing that shows both leaves them out of the
#: group's own notes, so each is said once.
LISTED_WITH_TOPIC: frozenset[str] = frozenset({"consumer-protocol-alternative"})


def note(code: str, **params: Any) -> Note:
    """The note `code` with these parameters, its sentence rendered.

    Raises:
        KeyError: an unknown code.
    """
    severity, fn = _RENDERERS[code]
    return Note(code, severity, params, fn(params))


def render(code: str, params: Mapping[str, Any]) -> str:
    """The sentence of a note from its code and parameters (its published coded form)."""
    return _RENDERERS[code][1](params)


def render_coded(coded: Mapping[str, Any]) -> str:
    """The sentence of a published coded note (`Note.as_dict` or `Note.as_row` form),
    rendered from its code and parameters.

    A code this version does not know (written by a newer one) keeps the sentence it was
    published with, its `text`; so does a note whose parameters its renderer cannot
    read (a value the planner should not have published: a null where a number
    belongs, a missing key), logged as a warning. One such note costs its own sentence
    only, never the report of the topics around it.
    """
    found = _RENDERERS.get(coded["code"])
    if found is None:
        return str(coded.get("text") or "")
    params = coded["params"]
    try:
        return found[1](json.loads(params) if isinstance(params, str) else params)
    except (ArithmeticError, KeyError, IndexError, TypeError, ValueError) as exc:
        _log.warning(
            "note %r: its parameters %s do not render (%s: %s); the sentence it was "
            "published with is shown",
            coded["code"],
            params,
            type(exc).__name__,
            exc,
        )
        return str(coded.get("text") or "")


def texts(notes: Sequence[Note]) -> list[str]:
    """The sentences of `notes`, in order."""
    return [n.text for n in notes]


def coded_rows(notes: Sequence[Note]) -> list[dict[str, Any]]:
    """The coded forms of `notes` for a dataset (`Note.as_row`), in order."""
    return [n.as_row() for n in notes]


def pct_apart(value: float, reference: float) -> tuple[str, str]:
    """`value` and `reference` as percentages with the fewest decimals (up to 3) that keep
    them apart when they differ: a member at 100.4 % of a consumer is "100.4%", not a
    "100%" that reads as keeping up."""
    digits = 0
    while digits < 3 and value != reference:
        if round(value * 100, digits) != round(reference * 100, digits):
            break
        digits += 1
    return f"{value:.{digits}%}", f"{reference:.{digits}%}"


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:,.2f}"


# --- a topic's warnings --------------------------------------------------------------


@_renders("record-size", "warning")
def _record_size(p: Mapping[str, Any]) -> str:
    names, measured, mean = p["sides"], p["measured_bytes"], p["mean_bytes"]
    which = " and ".join(names)
    factor = max(measured / mean, mean / measured)
    relation = "smaller" if mean < measured else "larger"
    return (
        f"{which} {'were' if len(names) > 1 else 'was'} measured with "
        f"{measured:,.0f}-byte records, and this topic's records average "
        f"{mean:,.0f} bytes ({factor:.1f}x {relation}): a partition's MiB/s and "
        f"records/s depend on the record size, so {which} may not hold for this topic; "
        f"re-measure {'them' if len(names) > 1 else 'it'} on records of about "
        f"{mean:,.0f} bytes (kafka-producer-perf-test --record-size {mean:.0f}"
        + ("; Tc with the real consumer reading them" if "Tc" in names else "")
        + ")"
    )


@_renders("dimension-unchecked", "warning")
def _dimension_unchecked(p: Mapping[str, Any]) -> str:
    if p["dimension"] == "records_in":
        return (
            "records/s in was not checked: neither Tp nor Tc has a records/s figure, so "
            "the count rests on MiB/s alone; a topic of small records may need more "
            "partitions than its MiB/s shows (measure records/s with the perf-test tools)"
        )
    if p["dimension"] == "mib_in":
        return (
            "MiB/s in was not checked: neither Tp nor Tc has a MiB/s figure, so the count "
            "rests on records/s alone; a topic of large records may need more partitions "
            "than its records/s shows (measure MiB/s with the perf-test tools)"
        )
    return (
        "MiB/s out per group was not checked: Tc has no MiB/s figure, so a group "
        "reading faster than producers write (catching up, or replaying) is not sized "
        "for"
    )


@_renders("key-skew", "warning")
def _key_skew(p: Mapping[str, Any]) -> str:
    return (
        f"key skew: up to {p['tried_up_to']} partitions the busiest partition still "
        f"carries {p['busiest_share']:.1%} of the topic, more than one partition's "
        f"capacity: spread the keys (a better key, or a salt) rather than add partitions"
    )


@_renders("keyed-remap", "warning")
def _keyed_remap(p: Mapping[str, Any]) -> str:
    current, recommended = p["current_partitions"], p["recommended_partitions"]
    return (
        f"keyed topic: going from {current} to {recommended} partitions changes "
        f"hash(key) % partitions, so most keys move to another partition and per-key "
        f"ordering breaks across the change. Sized for the end of the horizon "
        f"({recommended}, where today's peak needs {p['required_now']}) so it "
        f"happens once. To keep each key's order: stop the producers, wait until every "
        f"consumer group's lag on the topic is 0, alter the partition count, then "
        f"restart the producers (a producer reads the new count when it starts; one left "
        f"running keeps the old count until its next metadata refresh, "
        f"metadata.max.age.ms, 5 minutes by default). Restart them once the groups own "
        f"the new partitions (they too notice them within metadata.max.age.ms): a group "
        f"with auto.offset.reset=latest skips what is written to a partition before it "
        f"owns it"
    )


@_renders("streams-input-increase", "warning")
def _streams_input_increase(p: Mapping[str, Any]) -> str:
    apps = ", ".join(repr(a) for a in p["apps"])
    many = len(p["apps"]) > 1
    recommended = p["recommended_partitions"]
    return (
        f"Kafka Streams application{'s' if many else ''} {apps} read{'' if many else 's'} "
        f"this topic: at {recommended} partitions the subtopology reading it runs at least "
        f"{recommended} tasks (one per partition of its inputs). If it has internal topics "
        f"(<application.id>-...-repartition, -changelog: a stateful or re-keying "
        f"application), they keep their partition counts and Kafka "
        f'Streams stops on the mismatch (classic protocol: "Existing internal topic ... '
        f'has invalid partitions"; streams protocol: INCORRECTLY_PARTITIONED_TOPICS), and '
        f"its state stores, partitioned like the topic, no longer hold their keys' state. "
        f"Change it with the application stopped: alter this topic, then reset the "
        f"application (kafka-streams-application-reset.sh deletes its internal topics; its "
        f"state is rebuilt by reprocessing) or start it under a new application.id"
    )


@_renders("streams-threads", "info")
def _streams_threads(p: Mapping[str, Any]) -> str:
    threads, tasks, per = p["threads"], p["tasks"], p.get("per_instance")
    if per:
        running = p["instances"] * per
        floor = p.get("standby_instances")
        why = (
            f" ({floor} for its standbys, each on another instance than its active)"
            if floor
            else ""
        )
        how = (
            f"{p['instances']} instance{'' if p['instances'] == 1 else 's'}{why} of {per} "
            f"(num.stream.threads, {p['per_instance_from']}), {running} threads running"
        )
    else:
        running = threads
        how = "instances x num.stream.threads (its threads per instance are not known)"
    idle = (
        f"; {running - tasks} of them beyond the {tasks} tasks stand by" if running > tasks else ""
    )
    return (
        f"Kafka Streams: {threads} stream thread{'' if threads == 1 else 's'} (each a "
        f"member) for the {tasks} task{'' if tasks == 1 else 's'} reading this topic's "
        f"partitions: {how}{idle}"
    )


@_renders("streams-standbys", "info")
def _streams_standbys(p: Mapping[str, Any]) -> str:
    s, config = p["standby_replicas"], p["config"]
    if s is None:
        return (
            f"Kafka Streams standby replicas ({config}): not given (Kafka's default is 0), "
            f"so the plan does not say what standby tasks cost; give them in the groups "
            f"table's standby_replicas"
        )
    if s == 0:
        return (
            f"Kafka Streams: no standby tasks ({config} = 0, given): a stateful task that "
            f"moves to another instance restores its state from its changelog before it "
            f"processes again"
        )
    return (
        f"Kafka Streams: {s} standby replica{_s(s)} per stateful task ({config}, given): "
        f"{_standby_tasks(p)}; {_standby_reads(p)}; the state they hold: {s} x the state's "
        f"size, {_standby_state(p)}; at least {p['min_instances']} instances (a task's "
        f"standbys never run on its active's instance, nor two on one)"
    )


def _standby_tasks(p: Mapping[str, Any]) -> str:
    logs, lo, hi = p["changelogs"], p["stateful_tasks_min"], p["stateful_tasks_max"]
    if lo is None:
        return (
            "its standby tasks are not known (no changelog topic of it in the topics "
            "table: it keeps no state, and has no standby, or its changelogs are not in "
            "the figures)"
        )
    where = f"its {logs} changelog topic{_s(logs)}' partitions today"
    if lo == hi:
        return f"{p['standby_tasks_min']:,} standby tasks ({lo:,} stateful tasks, {where})"
    return (
        f"{p['standby_tasks_min']:,} to {p['standby_tasks_max']:,} standby tasks ({lo:,} to "
        f"{hi:,} stateful tasks, bounds from {where}: which changelogs share a "
        f"subtopology the figures do not say)"
    )


def _standby_reads(p: Mapping[str, Any]) -> str:
    read, logs, sampled = p["standby_read_bytes_per_s"], p["changelogs"], p["changelogs_sampled"]
    if read is None:
        return (
            "the changelog bytes they read continuously are not known (no throughput "
            "sample of its changelog topics)"
        )
    how = "observed" if sampled == logs else f"observed on {sampled} of its {logs} changelogs"
    return (
        f"they read {'' if sampled == logs else 'at least '}{_fmt(read / 2**20)} MiB/s of "
        f"changelog continuously ({p['standby_replicas']} x the "
        f"{_fmt(p['changelog_bytes_in_per_s'] / 2**20)} MiB/s written to its changelogs, "
        f"{how}), more while a new standby catches up"
    )


def _standby_state(p: Mapping[str, Any]) -> str:
    held = p["standby_state_bytes"]
    if held is None:
        return "unknown (the figures hold no state-store size)"
    return f"at most {_fmt(held / 2**30)} GiB (its changelogs' retained bytes)"


@_renders("streams-internal-topic", "warning")
def _streams_internal_topic(p: Mapping[str, Any]) -> str:
    return (
        f"internal {p['kind']} topic of Kafka Streams application {p['app']!r}: Kafka "
        f"Streams sets its partition count from the application's tasks, and refuses to "
        f"run when it differs. Change the application's input topics instead (the "
        f"recommendation here is what its load asks for), and this topic with them "
        f"through a reset of the application"
    )


@_renders("hot-key", "warning")
def _hot_key(p: Mapping[str, Any]) -> str:
    return (
        f"hot key {p['key']!r} carries {p['share']:.1%} of the records: "
        f"{pct_apart(p['load'], 1.0)[0]} of "
        f"what one partition and its consumer can take at the planned target. No "
        f"partition count fixes a single key: make its consumer faster or split the key"
    )


@_renders("hot-partition", "warning")
def _hot_partition(p: Mapping[str, Any]) -> str:
    return (
        f"the busiest of the {p['partitions']} partitions carries "
        f"{pct_apart(p['load'], 1.0)[0]} of one consumer's "
        f"capacity at "
        f"the end of the horizon"
    )


@_renders("unread-topic", "warning")
def _unread_topic(p: Mapping[str, Any]) -> str:
    producers = p["producers_partitions"]
    head = (
        f"no consumer group reads this topic in the figures, yet the consumer side decides "
        f"its count ({p['required_partitions']} partitions for {_UNITS[p['dimension']]}"
        + (f"; producers alone need {producers}" if producers else "")
        + ")"
    )
    current = p["current_partitions"]
    if p["mib_out_peak_per_s"] is not None:
        return (
            f"{head}, and it has bytes out ({_fmt(p['mib_out_peak_per_s'])} MiB/s at the "
            f"peak): something reads it outside any known group (a consumer using assign(), "
            f"or a group the figures left out), so the requirement is for a real reader; "
            f"find it"
        )
    if current is None:
        return (
            f"{head}: that requirement is for a consumer that does not exist yet. The number "
            f"stays, since partitions are hard to add later, but only a consumer about to be "
            f"deployed needs it"
        )
    producers_now = p["producers_partitions_now"]
    due = (
        f"; the producer side alone needs {producers_now} today, more than the "
        f"{current} it has, so an increase to {producers_now} is due now"
        if producers_now > current
        else ""
    )
    return (
        f"{head}: that requirement is for a consumer that does not exist yet. The number "
        f"stays, since partitions are hard to add later, but the increase from {current} is "
        f"not urgent for today's traffic unless a consumer is about to be deployed{due}"
    )


# --- the cost panel's limits ---------------------------------------------------------


@_renders("single-replica", "warning")
def _single_replica(p: Mapping[str, Any]) -> str:
    return (
        f"replication factor 1: a broker failure takes its partitions offline until the "
        f"broker returns (up to {p['leaders_per_broker']} of this topic's {p['partitions']} "
        f"on one broker); there is no other replica, so no leader can be elected elsewhere, "
        f"and unclean leader election cannot help"
    )


@_renders("producer-buffer", "warning")
def _producer_buffer(p: Mapping[str, Any]) -> str:
    mib = float(2**20)
    return (
        f"a producer writing to all {p['partitions']} partitions needs "
        f"{p['batch_memory_bytes'] / mib:.2f} MiB of batch buffers, more than its "
        f"buffer.memory of {p['buffer_memory_bytes'] / mib:.2f} MiB: raise buffer.memory or "
        f"batches will be sent part-full"
    )


@_renders("replicas-per-broker", "warning")
def _replicas_per_broker(p: Mapping[str, Any]) -> str:
    return (
        f"{p['replicas_per_broker']} partition replicas per broker is above the "
        f"{p['limit']} limit: add brokers or spread topics"
    )


@_renders("replication-latency", "warning")
def _replication_latency(p: Mapping[str, Any]) -> str:
    return (
        f"{p['replicas_per_broker']} partition replicas per broker is above the latency "
        f"rule of thumb 100 x {p['brokers']} brokers x RF {p['replication_factor']}"
        f" = {p['limit']}: expect higher end-to-end latency from replication"
    )


# --- a consumer group's notes (one topic or several: `topics`) -----------------------


def _one_topic(p: Mapping[str, Any]) -> bool:
    return len(p["topics"]) == 1


def _owners_clause(p: Mapping[str, Any]) -> str:
    # Why members beyond those a strategy gives work to own nothing, in words.
    counts = p["partitions"]
    if len(counts) == 1:
        return f"the topic has {counts[0]} partition{_s(counts[0])}"
    if p["strategy"] == "range":
        return (
            f"range gives work to at most {max(counts)} member{_s(max(counts))} "
            f"(its largest topic's partitions)"
        )
    return f"its topics have {sum(counts)} partitions"


@_renders("no-size-fits", "warning")
def _no_size_fits(p: Mapping[str, Any]) -> str:
    needs, against = pct_apart(p["busiest_utilisation"], p["limit"])
    counts = p["partitions"]
    if "members" in p:
        return (
            f"even {p['members']} members (the most {p['strategy']} gives partitions to on "
            f"its {len(counts)} topics: member i reads partition i of each) cannot keep up: "
            f"the busiest member needs {needs} of one consumer's capacity against a limit "
            f"of {against}"
        )
    if _one_topic(p):
        return (
            f"even {counts[0]} member{_s(counts[0])} (one per partition) cannot keep up: "
            f"the busiest partition needs {needs} of one consumer's capacity against a "
            f"limit of {against}"
        )
    return (
        f"even {sum(counts)} members (one per partition of its {len(counts)} topics) cannot "
        f"keep up: the busiest member needs {needs} of one consumer's capacity against "
        f"a limit of {against}"
    )


@_renders("standby-floor", "info")
def _standby_floor(p: Mapping[str, Any]) -> str:
    # The floor asks for more members than there are partitions, and no size fits.
    members, standby = p["members"], p["standby_members"]
    where = (
        f"the topic has {p['partitions'][0]} partition{_s(p['partitions'][0])}"
        if _one_topic(p)
        else f"its topics have {sum(p['partitions'])} partitions"
    )
    return (
        f"{members} planned so that a member can take over while another restarts "
        f"(min_group_members = {p['min_group_members']}); {where}, so {standby} of them "
        f"stand{'s' if standby == 1 else ''} by"
    )


@_renders("min-group-size", "info")
def _min_group_size(p: Mapping[str, Any]) -> str:
    by_load, members, standby = p["members_by_load"], p["members"], p["standby_members"]
    text = (
        f"today's load needs {by_load} member{_s(by_load)}; {members} "
        f"planned so that a member can take over while another restarts "
        f"(min_group_members = {p['min_group_members']})"
    )
    if standby:
        one = standby == 1
        text += (
            f"; {_owners_clause(p)}, so {standby} of them own{'s' if one else ''} none and "
            f"stand{'s' if one else ''} by until a rebalance hands {'it' if one else 'them'} "
            f"the partitions of a member that fails or leaves"
        )
    return text


@_renders("no-standby", "warning")
def _no_standby(p: Mapping[str, Any]) -> str:
    # The group keeps up with today's load; only the floor asks for more. Not a load: the
    # sentence must not say the members are "needed for today's peak".
    members, by_load, planned = p["current_members"], p["members_by_load"], p["members"]
    text = (
        f"no standby member: {members} member{_s(members)} keep{'s' if members == 1 else ''} "
        f"up with today's peak ({by_load} needed for the load), and none can take over "
        f"while {'it' if members == 1 else 'one'} restarts; min_group_members = "
        f"{p['min_group_members']} plans {planned}"
    )
    standby = p["standby_members"]
    if standby:
        one = standby == 1
        text += (
            f" ({_owners_clause(p)}, so {standby} of them own{'s' if one else ''} none and "
            f"stand{'s' if one else ''} by)"
        )
    return text


@_renders("deploy", "info")
def _deploy(p: Mapping[str, Any]) -> str:
    members = p["members_now"]
    return (
        f"a new group: deploy {members:,} member{_s(members)} for the expected peak with "
        f"{p['headroom_pct']:g} % headroom (busiest member at most {p['limit']:.0%} of Tc)"
    )


@_renders("under-provisioned", "warning")
def _under_provisioned(p: Mapping[str, Any]) -> str:
    members = p["current_members"]
    if _one_topic(p):
        return (
            f"{members} member{_s(members)} today, "
            f"{p['members_now']} needed for today's peak with {p['headroom_pct']:g} % headroom "
            f"(busiest member at most {p['limit']:.0%} of Tc)"
        )
    return (
        f"{members} member{_s(members)} today, {p['members_now']} needed for "
        f"today's peak of its {len(p['topics'])} topics with {p['headroom_pct']:g} % headroom"
    )


@_renders("idle-members-planned", "info")
def _idle_members_planned(p: Mapping[str, Any]) -> str:
    idle, members, standby = p["idle_members"], p["current_members"], p["standby_members"]
    kept = (
        f" ({standby} kept as a standby: min_group_members = {p['min_group_members']})"
        if standby
        else ""
    )
    if _one_topic(p):
        count = p["partitions"][0]
        return (
            f"{idle} of {members} members would own no partition: a classic "
            f"group cannot use more members than the topic's {count} partition{_s(count)}" + kept
        )
    return f"{idle} of {members} members would own no partition of its topics" + kept


@_renders("above-horizon-need", "info")
def _above_horizon_need(p: Mapping[str, Any]) -> str:
    return (
        f"{p['current_members']} members is more than the {p['members_at_horizon']} needed "
        f"even at the end of the horizon"
    )


@_renders("strategy-switch", "info")
def _strategy_switch(p: Mapping[str, Any]) -> str:
    current, strategy = p["current_strategy"], p["strategy"]
    members, revoked, busiest = p["members"], p["revoked"], p["busiest_utilisation"]
    current_key = p["current_key"]
    if current_key is None:
        why = (
            f"no group size with {current} keeps the busiest member within the limit"
            if p["current_simulated"]
            else f"the planner does not simulate {current}"
        )
    elif current_key[0] > members:
        why = f"it needs {members} members where {current} needs {current_key[0]}"
    elif current_key[1] > revoked:
        why = (
            f"both fit with {members} members, and when a member joins it revokes {revoked} "
            f"partition{_s(revoked)} against {current_key[1]} with {current}"
            + (
                " (only those that move), so the rest of the group keeps consuming through "
                "a rebalance"
                if strategy == "cooperative-sticky"
                else ""
            )
        )
    elif current_key[2] > busiest:
        why = (
            f"a lower busiest-member load at this group size ({busiest:.1%} of Tc against "
            f"{current_key[2]:.1%})"
        )
    else:
        why = "an equal choice (same size, revocations and load), first by name"
    if p.get("protocol") == "consumer":
        # The broker assigns: the switch is the members' group.remote.assignor.
        text = (
            f"the broker's {strategy} assignor instead of {current} (group.remote.assignor): {why}"
        )
    else:
        text = f"{strategy} instead of {current}: {why}"
    if p["two_bounces"]:
        # KIP-429's upgrade path: a group's members must share an assignor. Listing both
        # keeps the group on the old, eager one until every member has the new one; the
        # second bounce then moves it to cooperative rebalancing.
        text += (
            f"; switching from the eager {current} takes two rolling bounces (KIP-429): "
            f"first every member with partition.assignment.strategy = "
            f"[cooperative-sticky, {current}], then again with {current} removed"
        )
    return text


@_renders("falling-behind", "warning")
def _falling_behind(p: Mapping[str, Any]) -> str:
    members, members_needed, strategy = p["members"], p["members_needed"], p["strategy"]
    today, planned = p["partitions_today"], p["partitions_planned"]
    one = _one_topic(p)
    changes = today != planned
    if not changes:
        counted_on = ""
    elif p["on_today"]:
        counted_on = (
            f" on today's {sum(today)} partition{_s(sum(today))}"
            if one
            else f" on today's {sum(today)} partitions of its topics"
        )
    elif one:
        counted_on = (
            f" (read at the recommended {planned[0]} partitions: its load on today's "
            f"{today[0]} was not computed)"
        )
    else:
        counted_on = (
            f" (read at the recommended counts, {sum(planned)} partitions: its topics' loads "
            f"at today's counts are not at hand)"
        )
    recommended = None
    if changes:
        recommended = (
            f"the recommended {planned[0]} partitions"
            if one
            else f"its topics' recommended {sum(planned)} partitions"
        )
    busiest = p["busiest_utilisation"]
    # Notes published before the lag was observed have no `lag_growing`.
    if p.get("lag_growing"):
        head = f"group {p['group_id']!r} is falling behind now: its lag grew over the interval"
        behind = [
            f"{_fmt(p[k])} {unit}"
            for k, unit in (("lag_records", "records"), ("lag_seconds", "s"))
            if p.get(k) is not None
        ]
        head += f" (to {' and '.join(behind)})" if behind else ""
        if busiest is not None:
            head += (
                f"; by its Tc its busiest member needs {pct_apart(busiest, 1.0)[0]} of one "
                f"consumer's capacity with {members} member{_s(members)}{counted_on}"
            )
        if busiest is None or busiest <= 1.0:
            # The offsets say what the Tc does not: that Tc is higher than the group does.
            return (
                f"{head}: the Tc it is sized with overstates what its members process; "
                f"measure or learn its own (docs/model.md section 9)"
            )
    else:
        head = (
            f"group {p['group_id']!r} is falling behind now: its busiest member needs "
            f"{pct_apart(busiest, 1.0)[0]} "
            f"of one consumer's capacity at today's peak with {members} "
            f"member{_s(members)}{counted_on}"
        )
    on = f" on {recommended}" if recommended else ""
    steps = [f"the increase to {recommended}"] if recommended else []
    if strategy:
        steps.append(f"a switch to {strategy}")
    change = " and ".join(steps)
    if not p["fits"]:
        tail = f"no group size keeps up with headroom{on} (see the group's notes)"
    elif members_needed <= members:
        tail = (
            f"after {change}, {members_needed} members keep up (it has {members})"
            if change
            else f"{members_needed} members would keep up: with {members} one member is "
            f"dealt too much"
        )
    elif p["more_members_help"] or not change:
        tail = f"add members ({members_needed} needed{on}{f' with {strategy}' if strategy else ''})"
    else:
        # Members beyond today's partitions (or range's largest topic) own nothing: the
        # increase, or a strategy that deals every partition, comes first.
        until = f"the increase to {recommended}" if recommended else f"a switch to {strategy}"
        tail = (
            f"more members would own no partition until {until}; then {members_needed} are "
            f"needed{f' with {strategy}' if strategy and recommended else ''}"
        )
    return f"{head}; {tail}"


@_renders("idle-members", "warning")
def _idle_members(p: Mapping[str, Any]) -> str:
    group_id, members = p["group_id"], p["current_members"]
    idle_planned, standby, floor = p["idle_members"], p["standby_members"], p["min_group_members"]
    planned, idle_today = p["partitions_planned"], p["idle_members_today"]
    one = _one_topic(p)
    if idle_today is None:
        # The counts do not change: one sentence about them.
        if one:
            count = planned[0]
            return (
                f"group {group_id!r} has {members} members for {count} "
                f"partition{_s(count)}: {idle_planned} sit idle"
                + (
                    f"; min_group_members = {floor} asks for {standby} standby{_s(standby)}"
                    if standby
                    else ""
                )
            )
        return (
            f"group {group_id!r} reads {', '.join(p['topics'])} with {members} members for "
            f"{sum(planned)} partitions in all: {idle_planned} sit idle"
            + (
                f"; min_group_members = {floor} asks for {standby} standby{_s(standby)}"
                if standby
                else ""
            )
        )
    today = sum(p["partitions_today"])
    own = "s" if idle_today == 1 else ""
    if one:
        head = (
            f"group {group_id!r}: of its {members} members, {idle_today} own{own} no "
            f"partition today ({today} partition{_s(today)})"
        )
        increase = f"the increase to {planned[0]} partitions"
    else:
        head = (
            f"group {group_id!r} reads {', '.join(p['topics'])}: of its {members} members, "
            f"{idle_today} own{own} no partition today ({today} partitions in all)"
        )
        increase = f"the increases to {sum(planned)} partitions"
    if idle_planned:
        return f"{head} and {idle_planned} will after {increase}"
    return f"{head}; after {increase} every member owns at least one"


@_renders("groups-table-disagrees", "warning")
def _groups_table_disagrees(p: Mapping[str, Any]) -> str:
    return (
        f"the groups table disagrees with itself about this group (strategies "
        f"{', '.join(p['strategies'])}; members {', '.join(map(str, p['sizes']))}): planned "
        f"with {p['strategy']} and {p['members']} members"
    )


@_renders("group-unplanned", "warning")
def _group_unplanned(p: Mapping[str, Any]) -> str:
    return str(p["reason"])


# --- a topic the sizing job could not plan, or planned on less ------------------------


@_renders("unknown-topic", "warning")
def _unknown_topic(p: Mapping[str, Any]) -> str:
    return (
        "throughput figures for a topic the run's topics table does not list (deleted, "
        "or the snapshot is incomplete): not planned"
    )


@_renders("no-figures", "warning")
def _no_figures(p: Mapping[str, Any]) -> str:
    return (
        f"no throughput samples in the {p['lookback_days']:g} days before the end of "
        f"the run: not planned"
    )


@_renders("missing-capacity", "warning")
def _missing_capacity(p: Mapping[str, Any]) -> str:
    return (
        "no consumer capacity (Tc) for this topic and no fleet default '*' with one: "
        "Tc sizes the consumers and usually decides the partition count, so no number "
        "is given without it; measure it with kafka-consumer-perf-test, processing "
        "included"
    )


@_renders("no-producer-capacity", "warning")
def _no_producer_capacity(p: Mapping[str, Any]) -> str:
    return (
        "no producer capacity (Tp) for this topic and no fleet default '*' with one: "
        "sized on the consumer side only; measure Tp with kafka-producer-perf-test"
    )


@_renders("no-key-sample", "warning")
def _no_key_sample(p: Mapping[str, Any]) -> str:
    return (
        "keyed topic without a key sample: partitions are assumed evenly loaded, so "
        "uneven hashing or a hot key cannot be seen; collect a key sample (keys table)"
    )


@_renders("plan-error", "warning")
def _plan_error(p: Mapping[str, Any]) -> str:
    return f"could not plan this topic: {p['error']}"


@_renders("invalid-figures", "warning")
def _invalid_figures(p: Mapping[str, Any]) -> str:
    return f"figures set aside by input validation, not planned: {p['reason']}"


# --- a share group (KIP-932): planner.recommend.share ----------------------------------


@_renders("share-fetch-assumed", "info")
def _share_fetch_assumed(p: Mapping[str, Any]) -> str:
    return (
        "no share-fetch measurement for this topic (capacity share_fetch_*): one "
        "partition's share-fetch rate was assumed not to bind; on Kafka 4.4.0 it measured "
        "0.3-0.8 of a classic consumer's fetch rate, so measure it with "
        "`partition-planner measure --share`"
    )


@_renders("share-in-flight-unchecked", "warning")
def _share_in_flight_unchecked(p: Mapping[str, Any]) -> str:
    return (
        f"the share-partitions' in-flight cap (group.share.partition.max.record.locks) "
        f"was not checked: {p['missing']} is unknown"
    )


@_renders("share-lock-expiry", "warning")
def _share_lock_expiry(p: Mapping[str, Any]) -> str:
    return (
        f"a member holds a poll of {p['records_per_poll']:,} records for "
        f"{p['holding_s']:.1f} s, past the {p['lock_duration_s']:g} s acquisition lock "
        f"(group.share.record.lock.duration.ms): their locks expire and the records are "
        f"delivered again; set max.poll.records to about {p['max_poll_records']:,} or less"
    )


@_renders("share-group-size", "warning")
def _share_group_size(p: Mapping[str, Any]) -> str:
    return (
        f"the share group needs {p['members']:,} members, more than a share group may have "
        f"(group.share.max.size {p['max_size']:,}): faster members or a second group"
    )


@_renders("share-not-for-keyed", "info")
def _share_not_for_keyed(p: Mapping[str, Any]) -> str:
    return (
        "no share-group alternative: a share group (KIP-932) delivers records to any "
        "member, with no per-key or per-partition order, and this topic is keyed"
    )


@_renders("share-alternative", "info")
def _share_alternative(p: Mapping[str, Any]) -> str:
    kept = (
        f" (the {p['current_partitions']} it has: Kafka cannot shrink a topic; the share "
        f"model needs {p['bound_partitions']})"
        if p["current_partitions"] is not None and p["partitions"] > p["bound_partitions"]
        else f" (decided by the {p['bound']} bound)"
    )
    return (
        f"as a share group (KIP-932, Kafka 4.2+) of {p['members']:,} members, this keyless "
        f"topic would need {p['partitions']:,} partitions instead of "
        f"{p['classic_partitions']:,}{kept}: {_fewer(p['replicas_saved'], 'replicas')}, "
        f"{_fewer(p['file_handles_saved'], 'open files')} on the busiest broker, "
        f"{_less_mib(p['batch_memory_saved_bytes'], 'producer batch memory')}; records then "
        f"come in no order"
    )


# A saving is said whichever its sign: fewer partitions can cost more of something (each
# takes more bytes and rolls more segments by size, so a broker may hold more open files),
# and "-642 fewer" reads as a typo.
def _fewer(saved: int, what: str) -> str:
    return f"{-saved:,} more {what}" if saved < 0 else f"{saved:,} fewer {what}"


def _less_mib(saved_bytes: float, what: str) -> str:
    mib = saved_bytes / 2**20
    return f"{-mib:,.2f} MiB more {what}" if mib < 0 else f"{mib:,.2f} MiB less {what}"


@_renders("consumer-protocol-alternative", "info")
def _consumer_protocol_alternative(p: Mapping[str, Any]) -> str:
    needed = p["members_needed"]
    same = (
        ""
        if needed is None
        else "; the same size"
        if needed == p["members"]
        else f"; {needed} member{_s(needed)} for the load"
    )
    group = f"group {p['group_id']!r}: " if p.get("group_id") is not None else ""
    consumer, planned = p["consumer_paused_partition_s"], p["classic_paused_partition_s"]
    against = [
        f"{planned:,.0f} with the planned {p['strategy']} "
        f"({_classic_event(p['stops_group'], p['classic_rounds'])})"
    ]
    if p.get("current_strategy") is not None:
        against.append(
            f"{p['current_paused_partition_s']:,.0f} with {p['current_strategy']}, its "
            f"assignor today ({_classic_event(p['current_stops_group'], p['current_rounds'])})"
        )
    text = (
        f"{group}with the consumer protocol (KIP-848, group.protocol=consumer, the broker's "
        f"{p['assignor']} assignor{same}), a member joining or leaving this group of "
        f"{p['members']} pauses only the partitions that move ({p['moved_on_join']} on a "
        f"join): about {consumer:,.0f} partition-seconds without an owner for one join and "
        f"one leave, against {' and '.join(against)}"
    )
    if consumer >= planned:
        # Offered for what it saves against the assignor today (`alternatives`); against
        # the plan it saves nothing by this measure, and the reader must be told so.
        text += (
            f"; no fewer than the planned {p['strategy']}'s, but no rebalance round makes "
            "every member rejoin: no group-wide barrier, no wait for the slowest member's poll"
        )
    return text


def _classic_event(stops_group: bool, rounds: int) -> str:
    # What one member joining or leaving does to a classic group.
    if stops_group:
        return "each event stops the whole group: every member revokes everything"
    return f"each event runs {rounds} rebalance round{_s(rounds)}"


# --- cross-zone fetches (planner.cross_zone.advice) -----------------------------------


def _gib(n_bytes: float) -> str:
    return f"{_fmt(n_bytes / 1024**3)} GiB"


def _priced(cost: float | None, price: float | None) -> str:
    # No currency is configured or assumed: the price is the configured number per GiB.
    return "" if cost is None else f" ({_fmt(cost)} a day at {price:g} per GiB)"


@_renders("client-rack", "info")
def _client_rack(p: Mapping[str, Any]) -> str:
    return (
        f"group {p['group_id']!r} sets no client.rack, so where its "
        f"{_gib(p['bytes_per_day'])} a day are fetched from cannot be told; its brokers are "
        f"in racks {', '.join(p['broker_racks'])}: set client.rack to each consumer's zone, "
        f"so that the planner can count its cross-zone bytes and follower fetching can "
        f"serve it from its own zone"
    )


@_renders("follower-fetching", "info")
def _follower_fetching(p: Mapping[str, Any]) -> str:
    price = p.get("price_per_gib")
    return (
        f"group {p['group_id']!r} fetches {_gib(p['leader_cross_zone_bytes_per_day'])} a day "
        f"across zones from leaders{_priced(p.get('leader_cost_per_day'), price)}; with "
        f"follower fetching (brokers: replica.selector.class="
        f"org.apache.kafka.common.replica.RackAwareReplicaSelector, consumers keeping "
        f"client.rack) {_gib(p['follower_cross_zone_bytes_per_day'])} a day"
        f"{_priced(p.get('follower_cost_per_day'), price)}: "
        f"{_gib(p['leader_cross_zone_bytes_per_day'] - p['follower_cross_zone_bytes_per_day'])}"
        f" a day less, counting consumer fetches only and same-zone replicas caught up"
    )


#: Every code a note may carry.
CODES = frozenset(_RENDERERS)
