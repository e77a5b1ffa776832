"""Kafka Streams applications on a topic whose partition count the plan changes.

`planner.streams` tells an application's internal topics from its name and the groups
known to be Kafka Streams applications; `plan_topic` warns where its recommendation
would break an application (docs/model.md, section 11).
"""

from __future__ import annotations

import doctest
from dataclasses import replace

import pytest

from planner import streams
from planner.examples import load_example
from planner.recommend import GroupInfo, TopicPlan, plan_topic
from planner.streams import internal_topic_of


def test_the_docstring_examples() -> None:
    failed, attempted = doctest.testmod(streams)
    assert attempted >= 2 and failed == 0


@pytest.mark.parametrize(
    ("topic", "apps", "found"),
    [
        ("app-store-changelog", ["app"], ("app", "changelog")),
        ("app-KSTREAM-MAP-0000000001-repartition", ["app"], ("app", "repartition")),
        # The longest application id that prefixes the name owns it.
        ("app-v2-store-changelog", ["app", "app-v2"], ("app-v2", "changelog")),
        # A name with no part between the id and the suffix is no internal topic.
        ("app-changelog", ["app"], None),
        # Neither a name without the suffix nor one of an unknown application.
        ("app-store", ["app"], None),
        ("other-store-changelog", ["app"], None),
        ("app-store-changelog", [], None),
        ("app-store-changelog", [""], None),
    ],
)
def test_an_internal_topic_is_known_by_its_application_and_suffix(
    topic: str, apps: list[str], found: tuple[str, str] | None
) -> None:
    assert internal_topic_of(topic, apps) == found


def _plan(groups: tuple[GroupInfo, ...] = (), **kwargs: object) -> TopicPlan:
    ex = load_example()
    return plan_topic(
        ex.history,
        ex.producer,
        ex.consumer,
        brokers=ex.brokers,
        groups=groups,
        **kwargs,  # type: ignore[arg-type]
    )


def _streams_notes(plan: TopicPlan) -> dict[str, dict[str, object]]:
    return {w.code: dict(w.params) for w in plan.warnings if w.code.startswith("streams-")}


def test_an_increase_under_a_streams_application_warns_it_and_names_the_way_through() -> None:
    ex = load_example()
    plan = _plan(
        (GroupInfo("wordcount", "stream", 3), GroupInfo("audit", "range", 2)),
        streams_readers=("enricher",),
    )
    assert ex.history.current_partitions is not None
    assert plan.recommended_partitions > ex.history.current_partitions
    found = _streams_notes(plan)
    # One-topic Streams groups count without being listed; plain groups do not.
    assert found == {
        "streams-input-increase": {
            "apps": ["enricher", "wordcount"],
            "current_partitions": ex.history.current_partitions,
            "recommended_partitions": plan.recommended_partitions,
        }
    }
    text = next(w.text for w in plan.warnings if w.code == "streams-input-increase")
    assert "kafka-streams-application-reset.sh" in text
    assert "INCORRECTLY_PARTITIONED_TOPICS" in text
    # A KIP-1071 streams group is an application too.
    kip1071 = _plan((GroupInfo("fraud", "sticky", 3, "streams"),))
    assert _streams_notes(kip1071)["streams-input-increase"]["apps"] == ["fraud"]


def test_no_streams_application_or_no_change_means_no_word() -> None:
    assert _streams_notes(_plan((GroupInfo("audit", "range", 2),))) == {}
    ex = load_example()
    # A topic already at the count its load asks for: nothing changes, nothing to warn.
    at_target = _plan((GroupInfo("wordcount", "stream", 3),))
    steady = replace(ex.history, current_partitions=at_target.recommended_partitions)
    plan = plan_topic(
        steady,
        ex.producer,
        ex.consumer,
        brokers=ex.brokers,
        groups=(GroupInfo("wordcount", "stream", 3),),
        streams_internal=("wordcount", "changelog"),
    )
    assert plan.recommended_partitions == steady.current_partitions
    assert _streams_notes(plan) == {}


def test_an_internal_topic_the_plan_would_change_says_whose_it_is() -> None:
    plan = _plan(streams_internal=("wordcount", "changelog"))
    assert _streams_notes(plan) == {
        "streams-internal-topic": {"app": "wordcount", "kind": "changelog"}
    }


def test_threads_per_instance_read_from_client_ids() -> None:
    ids = [f"app-{p}-StreamThread-{t}-consumer" for p in ("a", "b", "c") for t in (1, 2, 3)]
    assert streams.threads_per_instance(ids) == 3
    # Restore consumers and producers are not group members; any other id says nothing.
    assert streams.threads_per_instance([*ids, "app-a-StreamThread-1-restore-consumer"]) is None
    assert streams.threads_per_instance([]) is None
    assert [streams.instances_for(t, 4) for t in (1, 4, 5, 12)] == [1, 1, 2, 3]
    with pytest.raises(ValueError, match="per_instance"):
        streams.instances_for(3, 0)


def test_a_streams_groups_plan_says_its_threads_and_instances() -> None:
    plan = _plan(
        (
            GroupInfo("wordcount", "stream", 3, stream_threads=4),
            GroupInfo("fraud", "sticky", 3, "streams"),
            GroupInfo("audit", "range", 3),
        )
    )
    notes = {
        g.group_id: [dict(n.params) for n in g.notes if n.code == "streams-threads"]
        for g in plan.groups
    }
    by_id = {g.group_id: g for g in plan.groups}
    threads = by_id["wordcount"].recommended_members
    assert threads is not None
    assert notes["wordcount"] == [
        {
            "threads": threads,
            "tasks": plan.recommended_partitions,
            "per_instance": 4,
            "instances": -(-threads // 4),
            "per_instance_from": "its groups row: read from its members' client ids, or given",
        }
    ]
    assert notes["fraud"][0]["per_instance"] is None and notes["fraud"][0]["instances"] is None
    assert notes["audit"] == []
    text = next(n.text for n in by_id["wordcount"].notes if n.code == "streams-threads")
    assert f"{-(-threads // 4)} instances of 4 (num.stream.threads" in text
