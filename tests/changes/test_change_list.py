"""The change list: one decision from either published form, decreases never."""

from __future__ import annotations

import dataclasses
import doctest

import pytest

import planner.changes.decide as decide_module
import planner.changes.published as published_module
from planner.changes import (
    PublishedPlanError,
    UnknownTopics,
    change_list,
    read_published,
)
from planner.store import RecommendationStore
from tests.changes.plans import RUN_KEY, Published, published


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Published:
    return published(tmp_path_factory.mktemp("published"), "cl-")


def _stored(run: Published) -> list[dict[str, object]]:
    with RecommendationStore(run.store_url) as store:
        return [r.as_row() for r in store.recommendations(RUN_KEY)]


def test_the_file_and_the_store_give_the_same_change_list(run: Published) -> None:
    from_file = change_list(read_published(run.records))
    from_store = change_list(read_published(_stored(run), run=RUN_KEY))
    assert from_file == from_store
    assert from_file.run == RUN_KEY


def test_only_what_changes_with_the_plans_warnings_and_cost(run: Published) -> None:
    changes = change_list(read_published(run.records))
    n = run.name
    by_topic = {c.topic: c for c in changes.topics}
    assert sorted(by_topic) == [n("orders.created"), n("payments.authorizations"), n("payments.v2")]
    keyed = by_topic[n("payments.authorizations")]
    assert (keyed.from_partitions, keyed.to_partitions, keyed.keyed) == (12, 16, True)
    assert keyed.key_remap is not None and keyed.key_remap.code == "keyed-remap"
    assert keyed.key_remap.params["recommended_partitions"] == 16
    assert keyed.command() == (
        'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --alter --topic '
        f"{n('payments.authorizations')} --partitions 16"
    )
    # The cost of the change: 4 partitions more at replication factor 3.
    assert keyed.cost_sentence() is not None
    assert keyed.cost_sentence().startswith("adds 12 partition replicas; after the change: 48 ")
    created = by_topic[n("payments.v2")]
    assert created.creates and created.from_partitions is None and created.key_remap is None
    assert "--create" in created.command()
    # Enough already: skipped with the reason, as are the groups that keep their size.
    assert [(s.kind, s.name, s.reason) for s in changes.skipped] == [
        ("topic", n("audit.log"), "no-change"),
        ("group", n("ledger-writer"), "members-unchanged"),
    ]
    groups = {g.group_id: g for g in changes.groups}
    assert sorted(groups) == [n("archiver"), n("billing"), n("fraud-scoring")]
    fraud = groups[n("fraud-scoring")]
    assert (fraud.from_members, fraud.to_members, fraud.topics) == (
        6,
        11,
        (n("payments.authorizations"),),
    )
    assert fraud.partitions == 16  # after the change
    assert fraud.tc_records_per_s == 7900.0  # the example's Tc
    # A group whose topic keeps its count: the partitions it reads today.
    assert groups[n("archiver")].partitions == 24


def test_a_count_below_todays_is_never_a_change(run: Published) -> None:
    topics = read_published(run.records)
    shrunk = [
        dataclasses.replace(t, recommended_partitions=8) if t.topic == run.name("audit.log") else t
        for t in topics
    ]
    changes = change_list(shrunk)
    assert run.name("audit.log") not in {c.topic for c in changes.topics}
    [skip] = [s for s in changes.skipped if s.name == run.name("audit.log")]
    assert skip.reason == "decrease" and "Kafka cannot shrink a topic" in skip.detail


def test_topics_asked_for_narrow_the_list_and_its_groups(run: Published) -> None:
    topics = read_published(run.records)
    changes = change_list(topics, topics=[run.name("payments.authorizations")])
    assert [c.topic for c in changes.topics] == [run.name("payments.authorizations")]
    assert [g.group_id for g in changes.groups] == [run.name("fraud-scoring")]
    with pytest.raises(UnknownTopics, match="not in the published plan: nope"):
        change_list(topics, topics=["nope"])


def test_records_of_two_runs_are_refused(run: Published) -> None:
    records = [dict(r) for r in run.records]
    records[0]["run"] = "20261119T0000Z"
    with pytest.raises(PublishedPlanError, match="several runs"):
        change_list(read_published(records))


def test_a_record_with_a_bad_field_names_it() -> None:
    with pytest.raises(PublishedPlanError, match="current_partitions: expected a whole number"):
        read_published([{"topic": "t", "current_partitions": "12"}])


def test_the_modules_examples_hold() -> None:
    import planner.apply.decide as apply_decide
    import planner.export.keda as keda

    for module in (decide_module, published_module, apply_decide, keda):
        failed, attempted = doctest.testmod(module)
        assert attempted > 0 and failed == 0, module.__name__
