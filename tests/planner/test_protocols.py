"""Which (protocol, assignor) pairs a `groups` row may hold, and how the grid plans each."""

from __future__ import annotations

import pytest

from planner.assignors import PROTOCOL_STRATEGIES, STRATEGIES
from planner.protocols import (
    DEFAULT_PROTOCOL,
    GROUP_STRATEGIES,
    PROTOCOLS,
    check_group_strategy,
    planned_strategy,
)


def test_every_assignor_planner_assignors_implements_is_a_valid_group_assignor() -> None:
    for protocol, strategies in PROTOCOL_STRATEGIES.items():
        assert set(strategies) <= set(GROUP_STRATEGIES[protocol])
    # What a broker reports beyond them: Kafka Streams' assignors, classic and KIP-1071.
    extra = {(p, s) for p in PROTOCOLS for s in GROUP_STRATEGIES[p]} - {
        (p, s) for p, names in PROTOCOL_STRATEGIES.items() for s in names
    }
    assert extra == {("classic", "stream"), ("streams", "sticky")}
    assert DEFAULT_PROTOCOL == "classic"


@pytest.mark.parametrize(
    ("protocol", "strategy", "why"),
    [
        (
            "classic",
            "uniform",
            "classic groups use the assignors range, roundrobin, sticky, "
            "cooperative-sticky, stream, not 'uniform'",
        ),
        ("consumer", "sticky", "consumer groups use the assignors uniform, range, not 'sticky'"),
        ("share", "uniform", "share groups use the assignors simple, not 'uniform'"),
        (
            "queue",
            "simple",
            "unknown group protocol 'queue' (one of classic, consumer, share, streams)",
        ),
    ],
)
def test_a_pair_no_broker_reports_is_refused_with_the_reason(
    protocol: str, strategy: str, why: str
) -> None:
    assert check_group_strategy(protocol, strategy) == why
    with pytest.raises(ValueError, match=r"not|unknown"):
        planned_strategy(protocol, strategy)


def test_classic_strategies_are_planned_as_themselves() -> None:
    for strategy in STRATEGIES:
        assert planned_strategy("classic", strategy) == strategy
        assert planned_strategy(None, strategy) == strategy  # no protocol: classic
        assert planned_strategy("", strategy) == strategy


def test_other_protocols_are_planned_as_the_classic_strategy_that_assigns_alike() -> None:
    assert planned_strategy("consumer", "uniform") == "cooperative-sticky"
    assert planned_strategy("consumer", "range") == "range"
    # A Streams application: its tasks over one topic are the topic's partitions; over
    # several, task i reads partition i of each (range's cut, threads beyond it idle).
    for pair in (("classic", "stream"), ("streams", "sticky")):
        assert planned_strategy(*pair) == "cooperative-sticky"
        assert planned_strategy(*pair, topics=3) == "range"
    assert planned_strategy("consumer", "uniform", topics=3) == "cooperative-sticky"
    # No classic strategy gives one partition to several members.
    assert planned_strategy("share", "simple") is None


def test_the_broker_uniform_assignor_gives_the_counts_of_its_stand_in() -> None:
    """The stand-in's claim, on Kafka's own rules (our assignors equal Kafka 4.4.0's):
    a fresh group of any size gets the same partition count per member."""
    from planner.assignors import assign

    for partitions in (1, 5, 12, 13):
        for size in range(1, partitions + 3):
            members = {f"m{i:02d}": ["t"] for i in range(size)}
            for protocol, strategy in (("consumer", "uniform"), ("consumer", "range")):
                broker = assign(strategy, {"t": partitions}, members, protocol=protocol)
                stand_in = planned_strategy(protocol, strategy)
                assert stand_in is not None
                client = assign(stand_in, {"t": partitions}, members)
                assert sorted(len(v) for v in broker.values()) == sorted(
                    len(v) for v in client.values()
                ), (protocol, strategy, partitions, size)


def test_a_streams_task_reads_the_same_partition_number_of_every_input_topic() -> None:
    """The multi-topic stand-in's claim: range gives every member the same partition
    numbers of each co-partitioned topic (one task = one number), so a member beyond
    the task count is idle, as a stream thread beyond the task count is."""
    from planner.assignors import assign

    for tasks in (3, 6, 7):
        for threads in range(1, tasks + 4):
            members = {f"t{i:02d}": ["a", "b"] for i in range(threads)}
            got = assign("range", {"a": tasks, "b": tasks}, members)
            for owned in got.values():
                numbers = {t: sorted(p for topic, p in owned if topic == t) for t in "ab"}
                assert numbers["a"] == numbers["b"]
            idle = sum(1 for owned in got.values() if not owned)
            assert idle == max(0, threads - tasks)
