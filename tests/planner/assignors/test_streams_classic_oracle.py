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

import os
from typing import Any

from hypothesis import HealthCheck, given, settings

from planner.assignors.streams_classic import (
    StreamsClassicAssignment,
    StreamsClient,
    TaskId,
)
from tests.oracle.java_oracle import JavaOracle
from tests.planner.assignors.streams_classic_groups import (
    ClassicStreamsGroup,
    classic_streams_groups,
)

SCALE = max(1, int(os.environ.get("KAFKA_ORACLE_SCALE", "1")))

Plain = dict[str, dict[str, set[tuple[int, int]]]]


def examples(count: int) -> settings:
    return settings(
        max_examples=count * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
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


@examples(250)
@given(group=classic_streams_groups())
def test_streams_classic_equals_kafka(kafka_oracle: JavaOracle, group: ClassicStreamsGroup) -> None:
    ours = group.ours()
    kafka = kafka_assign(kafka_oracle, group)
    if kafka["probing"]:
        # Kafka moved a task toward a caught-up client: ours must have said so.
        assert ours.lag_dependent
    if not ours.lag_dependent:
        assert ours_plain(ours) == {"clients": kafka["clients"], "threads": kafka["threads"]}
        assert not kafka["probing"]


@examples(40)
@given(group=classic_streams_groups(max_clients=8, max_threads=6, max_tasks=24))
def test_streams_classic_equals_kafka_on_larger_groups(
    kafka_oracle: JavaOracle, group: ClassicStreamsGroup
) -> None:
    """More tasks per thread: long interleaving, leftovers spread in heap order, and
    task hash sets that outgrow their first table."""
    ours = group.ours()
    kafka = kafka_assign(kafka_oracle, group)
    if not ours.lag_dependent:
        assert ours_plain(ours) == {"clients": kafka["clients"], "threads": kafka["threads"]}


@examples(60)
@given(group=classic_streams_groups(max_clients=2, max_threads=7, max_tasks=12))
def test_streams_classic_threads_equal_kafka(
    kafka_oracle: JavaOracle, group: ClassicStreamsGroup
) -> None:
    """Few instances with many threads, so the tasks-to-threads step decides most: the
    leftover tasks follow Java's heap array (fed from a ``HashSet<TaskId>`` for actives)
    and threads take back their previous tasks, least lag first."""
    ours = group.ours()
    kafka = kafka_assign(kafka_oracle, group)
    if not ours.lag_dependent:
        assert ours_plain(ours) == {"clients": kafka["clients"], "threads": kafka["threads"]}


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
