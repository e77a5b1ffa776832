"""Kafka 4.4.0's Kafka Streams leader on the classic protocol (``StreamsPartitionAssignor``
with ``HighAvailabilityTaskAssignor``) as the differential oracle of
``planner.assignors.streams_classic``.

The oracle (``tests/oracle/java/StreamsClassicAssignor.java``) builds one ``ClientState``
per instance from its threads and their reported offset sums, runs the task assignor and
then ``assignTasksToThreads`` per instance. Wherever ours says the result does not hang on
lags, every client's and every thread's tasks must equal Kafka's exactly.

Run more examples with ``KAFKA_ORACLE_SCALE=<factor>``.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from hypothesis import HealthCheck, assume, given, settings

from planner.assignors.streams_classic import (
    LATEST_OFFSET,
    StreamsClassicAssignment,
    StreamsClient,
    TaskId,
)
from tests.assignors.streams_classic_groups import (
    ClassicStreamsGroup,
    classic_streams_groups,
)
from tests.oracle.java_oracle import JavaOracle

SCALE = max(1, int(os.environ.get("KAFKA_ORACLE_SCALE", "1")))

Plain = dict[str, dict[str, set[tuple[int, int]]]]


def examples(count: int) -> settings:
    return settings(
        max_examples=count * SCALE,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


def kafka_assign(oracle: JavaOracle, group: ClassicStreamsGroup) -> dict[str, Any]:
    reply = oracle.request(group.request())

    def plain(side: dict[str, Any]) -> Plain:
        return {
            k: {kind: {(s, p) for s, p in v[kind]} for kind in ("active", "standby")}
            for k, v in side.items()
        }

    return {
        "probing": reply["probing"],
        "clients": plain(reply["clients"]),
        "threads": plain(reply["threads"]),
    }


def ours_plain(result: StreamsClassicAssignment) -> dict[str, Plain]:
    def plain(side: dict[str, Any]) -> Plain:
        return {
            k: {"active": {tuple(t) for t in v.active}, "standby": {tuple(t) for t in v.standby}}
            for k, v in side.items()
        }

    return {"clients": plain(result.clients), "threads": plain(result.threads)}


def assert_equal_where_no_task_moved(ours: StreamsClassicAssignment, kafka: dict[str, Any]) -> None:
    if kafka["probing"]:
        # Kafka moved a task toward a caught-up client: ours must have said so.
        assert ours.lag_dependent
    else:
        # Nothing moved, even where ours warned (a standby move that finds no client to
        # take the standby moves nothing): the assignment is ours to the thread.
        assert ours_plain(ours) == {"clients": kafka["clients"], "threads": kafka["threads"]}


@examples(250)
@given(group=classic_streams_groups())
def test_streams_classic_equals_kafka(kafka_oracle: JavaOracle, group: ClassicStreamsGroup) -> None:
    assert_equal_where_no_task_moved(group.ours(), kafka_assign(kafka_oracle, group))


@examples(40)
@given(group=classic_streams_groups(max_clients=8, max_threads=6, max_tasks=24))
def test_streams_classic_equals_kafka_on_larger_groups(
    kafka_oracle: JavaOracle, group: ClassicStreamsGroup
) -> None:
    """More tasks per thread: long interleaving, leftovers spread in heap order, and
    task hash sets that outgrow their first table."""
    assert_equal_where_no_task_moved(group.ours(), kafka_assign(kafka_oracle, group))


@examples(60)
@given(group=classic_streams_groups(max_clients=2, max_threads=7, max_tasks=12))
def test_streams_classic_threads_equal_kafka(
    kafka_oracle: JavaOracle, group: ClassicStreamsGroup
) -> None:
    """Few instances with many threads, so the tasks-to-threads step decides most: the
    leftover tasks follow Java's heap array (fed from a ``HashSet<TaskId>`` for actives)
    and threads take back their previous tasks, least lag first."""
    assert_equal_where_no_task_moved(group.ours(), kafka_assign(kafka_oracle, group))


MAX_PROBING_REBALANCES = 60


def _settled(oracle: JavaOracle, group: ClassicStreamsGroup) -> dict[str, Any]:
    """Kafka's assignment once its warm-ups caught up: rebalance after rebalance, each
    thread reports its active tasks as running (offset sum -2) and its standbys (warm-ups
    included) as restored to the end, until Kafka asks for no probing rebalance."""
    kafka = kafka_assign(oracle, group)
    for _ in range(MAX_PROBING_REBALANCES):
        if not kafka["probing"]:
            return kafka
        clients = {
            p: StreamsClient(
                client.consumers,
                {
                    c: {
                        **{
                            TaskId(*t): group.end_offset_sums.get(TaskId(*t), 0)
                            for t in kafka["threads"][c]["standby"]
                        },
                        **{
                            TaskId(*t): LATEST_OFFSET
                            for t in kafka["threads"][c]["active"]
                            if TaskId(*t) in group.end_offset_sums
                        },
                    }
                    for c in client.consumers
                },
            )
            for p, client in group.clients.items()
        }
        group = dataclasses.replace(group, clients=clients)
        kafka = kafka_assign(oracle, group)
    raise AssertionError(f"Kafka still probing after {MAX_PROBING_REBALANCES} rebalances")


@examples(60)
@given(group=classic_streams_groups(kinds=("behind",)))
def test_lag_dependent_groups_settle_where_ours_says(
    kafka_oracle: JavaOracle, group: ClassicStreamsGroup
) -> None:
    """Where lags make Kafka hand out warm-ups first, its probing rebalances settle on our
    tasks per client, and on our number of tasks per thread (which thread holds which
    task follows the threads' previous tasks, so only the counts are compared)."""
    ours = group.ours()
    assume(ours.lag_dependent)  # about one group in five: the others are tested exactly
    settled = _settled(kafka_oracle, group)
    assert ours_plain(ours)["clients"] == settled["clients"]
    for p, client in group.clients.items():
        ours_counts = sorted(
            len(ours.threads[c].active) + len(ours.threads[c].standby) for c in client.consumers
        )
        kafka_counts = sorted(
            len(settled["threads"][c]["active"]) + len(settled["threads"][c]["standby"])
            for c in client.consumers
        )
        assert ours_counts == kafka_counts, p


def test_docstring_example_equals_kafka(kafka_oracle: JavaOracle) -> None:
    a, b = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
    group = ClassicStreamsGroup(
        {a: StreamsClient(("a-1", "a-2")), b: StreamsClient(("b-1",))},
        [TaskId(0, p) for p in range(4)],
        [],
        1,
    )
    ours = group.ours()
    assert not ours.lag_dependent
    kafka = kafka_assign(kafka_oracle, group)
    assert ours_plain(ours) == {"clients": kafka["clients"], "threads": kafka["threads"]}
