"""The broker's streams task assignor (``sticky``, KIP-1071) on a live Kafka Streams
application, against ``planner.assignors.streams_sticky``.

A real Kafka Streams 4.4.0 application (``StreamsApp.java``: a source topic of 6
partitions holding 3,000 records, re-keyed through a repartition topic into a logged count
store, so subtopology ``0`` has 6 stateless tasks and ``1`` has 6 stateful ones) runs
with ``group.protocol=streams`` on a broker of its own whose heartbeat interval is short
(see ``streams_kafka``). The broker, not the client, decides the assignment: after each step
the settled assignment Admin's ``describeStreamsGroups`` reports must be what
``assign_tasks`` computes from what the broker knew:

1. **fresh**: three instances start at once (the group's first assignment waits
   ``group.streams.initial.rebalance.delay.ms`` for all of them); no previous assignment;
2. **join**: a fourth instance of one thread starts; the previous assignment is each
   member's settled assignment after step 1, with the task offsets it had reported
   (stickiness: the test also says whether a fresh group's assignment would differ);
3. **leave**: the fourth instance closes and leaves; the previous assignment and task
   offsets are those settled after step 2 (members that lost a task in the join report
   its offset sum, so they rank as its previous holders; the test says whether the
   offsets decided anything);

with ``num.standby.replicas`` 0 (instances of one thread) and 1 (instances of two threads,
so two members per process, and 6 standby tasks of subtopology ``1``). The members' ids
are random (the clients make them), so they come from Admin; so do the process ids (each
instance's state directory holds one). The broker walks members in its member map's
order where their ids share a bucket of its ``HashMap``s; the test accepts the
prediction of any such order (``streams_groups.predictions``) and says how many there
were.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from planner.adapters.kraft import KRaftCluster
from tests.integration.modern_groups import create_topics_named
from tests.integration.streams_groups import (
    LiveStreamsApp,
    Plain,
    PlannerInput,
    assignment,
    planner_input,
    predictions,
    processes,
    settle,
    step_input,
    subtopologies,
)
from tests.support.kafka import single_node

pytestmark = [pytest.mark.integration, pytest.mark.kafka, pytest.mark.slow]

# Streams members heartbeat every 5 s by default, and a new target reaches them on their
# next heartbeat; the minimum must allow the short interval. The first assignment of a new
# group waits for more members: 5 s covers three instances starting in one JVM on two
# loaded cores (Kafka's 3 s default did on an idle machine).
STREAMS_GROUP_SETTINGS = {
    "group.streams.heartbeat.interval.ms": "500",
    "group.streams.min.heartbeat.interval.ms": "500",
    "group.streams.initial.rebalance.delay.ms": "5000",
}
INPUT_PARTITIONS = 6
RECORDS = 3000
# standby replicas -> stream threads of each of the three first instances. The joiner has
# one thread: see `join_prediction_input` for why not more.
CASES = {0: 1, 1: 2}


@pytest.fixture(scope="module")
def streams_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KRaftCluster]:
    """A single-node Kafka 4.4.0 (streams groups on: ``streams.version`` 1 is finalized by
    default) with a short streams heartbeat interval."""
    with single_node(tmp_path_factory.mktemp("kafka-streams"), **STREAMS_GROUP_SETTINGS) as cluster:
        yield cluster


def _produce_words(bootstrap: str, topic: str) -> None:
    """Records for the count to work on, so the changelog has data and the members report
    offset sums above zero (a previous standby holder ranks by them)."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap})
    for i in range(RECORDS):
        producer.produce(topic, key=str(i), value=f"word-{i % 97}")
    assert producer.flush(30) == 0


def _check(step: str, described: dict, given: PlannerInput, standbys: int) -> int:
    """Assert the broker's settled assignment is a prediction; the number of predictions."""
    actual: Plain = assignment(described)
    expected = predictions(given, standbys)
    assert actual in expected, (
        f"{step}: the broker assigned\n{actual}\nthe planner predicts (one per member order)\n"
        f"{expected}\nfrom {given}"
    )
    return len(expected)


@pytest.mark.parametrize("standbys", sorted(CASES))
def test_streams_group_equals_planner(
    streams_kafka: KRaftCluster, tmp_path: Path, standbys: int
) -> None:
    threads = CASES[standbys]
    topic = f"words-{uuid.uuid4().hex[:8]}"
    create_topics_named(streams_kafka.bootstrap, {topic: INPUT_PARTITIONS})
    _produce_words(streams_kafka.bootstrap, topic)
    app = LiveStreamsApp(
        streams_kafka, f"streams-{standbys}-{uuid.uuid4().hex[:8]}", topic, standbys, tmp_path
    )
    try:
        for name in ("i1", "i2", "i3"):
            app.start(name, threads)
        fresh = settle(app, 3 * threads)
        assert fresh["assignor"] == "sticky"
        subs = subtopologies(fresh, {topic: INPUT_PARTITIONS})
        assert {s: (t.task_count, t.stateful) for s, t in subs.items()} == {
            "0": (INPUT_PARTITIONS, False),
            "1": (INPUT_PARTITIONS, True),
        }
        assert len(set(processes(fresh).values())) == 3
        orders = _check("fresh", fresh, planner_input(processes(fresh), subs), standbys)

        app.start("i4", 1)
        joined = settle(app, 3 * threads + 1)
        given = step_input(fresh, joined, {topic: INPUT_PARTITIONS})
        orders_join = _check("join", joined, given, standbys)
        # Whether the previous assignment decided anything: the same members without one.
        without_previous = planner_input(processes(joined), subs)
        sticky = assignment(joined) not in predictions(without_previous, standbys)

        app.stop("i4")
        left = settle(app, 3 * threads)
        given = step_input(joined, left, {topic: INPUT_PARTITIONS})
        orders_leave = _check("leave", left, given, standbys)
        # Whether the reported task offsets decided anything: the same input without them.
        without_offsets = PlannerInput(
            {m: replace(spec, task_offsets={}) for m, spec in given.members.items()},
            given.subtopologies,
        )
        offsets_decided = assignment(left) not in predictions(without_offsets, standbys)
        reported = sum(len(spec.task_offsets) for spec in given.members.values())
        print(
            f"standbys {standbys}: {3 * threads} members on 3 processes, then "
            f"{3 * threads + 1} on 4, then {3 * threads} on 3; {orders}, {orders_join} and "
            f"{orders_leave} distinct predictions over member orders; the join differs from "
            f"a fresh group's: {sticky}; {reported} task offsets reported before the leave, "
            f"deciding: {offsets_decided}"
        )
    finally:
        app.close()
