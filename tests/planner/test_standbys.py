"""Standby tasks of a Kafka Streams application: what they cost, and the instances they
need (`planner.standbys`), in the plan of a Streams group."""

from __future__ import annotations

import doctest

import pytest

from planner import standbys
from planner.examples import load_example
from planner.notes import render
from planner.recommend import GroupInfo, GroupPlan, plan_topic
from planner.standbys import Changelog, standby_cost, standby_record

_MIB = 2**20
#: Two changelogs of one 6-task subtopology or of two (the figures do not say), and one
#: of a 3-task subtopology: 9 to 15 stateful tasks.
_LOGS = (
    Changelog("wc-counts-changelog", 6, 2 * _MIB, 24),
    Changelog("wc-totals-changelog", 6, 1 * _MIB, 24),
    Changelog("wc-users-changelog", 3, 0.5 * _MIB, 24),
)


def test_the_docstring_examples() -> None:
    assert doctest.testmod(standbys).failed == 0


def test_no_standbys_cost_nothing_and_ask_one_instance() -> None:
    cost = standby_cost("wc", "classic", 0, _LOGS)
    assert (cost.standby_tasks_min, cost.standby_tasks_max) == (0, 0)
    assert cost.standby_read_bytes_per_s == 0.0
    assert cost.min_instances == 1
    assert cost.standby_evidence == "given"


def test_one_standby_reads_the_changelogs_bytes_in_and_needs_two_instances() -> None:
    cost = standby_cost("wc", "streams", 1, _LOGS)
    # 6 + 3 when the 6-partition changelogs share a subtopology, 6 + 6 + 3 when not.
    assert (cost.stateful_tasks_min, cost.stateful_tasks_max) == (9, 15)
    assert cost.tasks_evidence == "bound"
    assert (cost.standby_tasks_min, cost.standby_tasks_max) == (9, 15)
    # Every changelog partition is read by each standby of its task: exact.
    assert cost.standby_read_bytes_per_s == 3.5 * _MIB
    assert cost.changelog_evidence == "observed"
    # No state-store size in the figures: the state they hold is unknown, not 0.
    assert cost.state_bytes is None and cost.standby_state_bytes is None
    assert cost.state_evidence == "unknown"
    assert cost.min_instances == 2
    text = standbys.standby_note(cost).text
    assert "streams.num.standby.replicas, given" in text
    assert "9 to 15 standby tasks" in text
    assert "3.50 MiB/s of changelog continuously" in text
    assert "unknown (the figures hold no state-store size)" in text
    assert "at least 2 instances" in text


def test_two_standbys_with_one_changelog_sampled_are_a_lower_bound() -> None:
    logs = (Changelog("wc-a-changelog", 4, 1 * _MIB, 12), Changelog("wc-b-changelog", 8))
    cost = standby_cost("wc", "classic", 2, logs)
    assert cost.tasks_evidence == "observed"  # 4 and 8 are two subtopologies
    assert cost.standby_tasks_min == cost.standby_tasks_max == 24
    assert cost.changelog_evidence == "bound"
    assert cost.standby_read_bytes_per_s == 2 * _MIB
    assert "at least 2.00 MiB/s" in standbys.standby_note(cost).text
    # Retained bytes of every changelog stand for the state, at most.
    held = standby_cost("wc", "classic", 2, [Changelog("wc-a-changelog", 4, None, 0, 3e9)])
    assert (held.standby_state_bytes, held.state_evidence) == (6e9, "bound")


def test_unknown_standbys_are_said_unknown_with_kafkas_default() -> None:
    cost = standby_cost("wc", "classic", None, _LOGS)
    assert cost.standby_evidence == "unknown"
    assert cost.standby_tasks_min is None and cost.standby_read_bytes_per_s is None
    assert cost.min_instances is None
    text = standbys.standby_note(cost).text
    assert "num.standby.replicas): not given (Kafka's default is 0)" in text
    record = standby_record(cost)
    assert record is not None
    assert record["standby_replicas"] is None
    assert record["standby_replicas_evidence"] == "unknown"
    assert record["stateful_tasks_evidence"] == "bound"


def test_no_changelog_says_the_tasks_are_not_known() -> None:
    cost = standby_cost("wc", "classic", 1, ())
    assert cost.tasks_evidence == "unknown" and cost.changelog_evidence == "unknown"
    assert "standby tasks are not known" in standbys.standby_note(cost).text
    with pytest.raises(ValueError, match="standby replicas must be >= 0"):
        standby_cost("wc", "classic", -1, ())


def _streams_plan(*groups: GroupInfo) -> dict[str, GroupPlan]:
    ex = load_example()
    plan = plan_topic(ex.history, ex.producer, ex.consumer, brokers=ex.brokers, groups=groups)
    return {g.group_id: g for g in plan.groups}


def _params(plan: GroupPlan, code: str) -> dict[str, object]:
    (found,) = [dict(n.params) for n in plan.notes if n.code == code]
    return found


def test_a_plan_raises_the_instances_to_host_the_standbys() -> None:
    # The example's threads fit on one instance of 64 threads; two standbys ask for 3.
    plans = _streams_plan(
        GroupInfo("wc", "stream", 3, stream_threads=64, standby_replicas=2, changelogs=_LOGS),
        GroupInfo("plain", "stream", 3, stream_threads=64),
        GroupInfo("audit", "range", 3),
    )
    wc = plans["wc"]
    threads = _params(wc, "streams-threads")
    assert threads["instances"] == 3 and threads["standby_instances"] == 3
    assert "3 instances (3 for its standbys" in next(
        n.text for n in wc.notes if n.code == "streams-threads"
    )
    standby = _params(wc, "streams-standbys")
    assert standby["standby_tasks_min"] == 18 and standby["min_instances"] == 3
    assert wc.standbys is not None and wc.standbys.standby_replicas == 2
    # Without S the instances are the threads' alone, and the note says S is not known.
    plain = plans["plain"]
    assert _params(plain, "streams-threads")["instances"] == 1
    assert "standby_instances" not in _params(plain, "streams-threads")
    assert _params(plain, "streams-standbys")["standby_replicas"] is None
    assert plain.standbys is not None and plain.standbys.min_instances is None
    # Not a Streams application: no word, no figure.
    assert plans["audit"].standbys is None
    assert not [n for n in plans["audit"].notes if n.code.startswith("streams-")]
    # The coded form renders the same sentence.
    n = next(n for n in wc.notes if n.code == "streams-standbys")
    assert render(n.code, n.as_dict()["params"]) == n.text
