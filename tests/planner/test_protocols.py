"""Which (protocol, assignor) pairs a `groups` row may hold, and how the grid plans each."""

from __future__ import annotations

import pytest

from planner.assignors import PROTOCOL_STRATEGIES, STRATEGIES
from planner.protocols import (
    DEFAULT_PROTOCOL,
    GROUP_STRATEGIES,
    PROTOCOLS,
    assignor_of,
    candidate_strategies,
    check_group_strategy,
    planned_strategy,
    simulation_key,
)
from planner.simulate import ALL_STRATEGIES


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


def test_other_protocols_are_planned_with_their_own_assignor() -> None:
    assert planned_strategy("consumer", "uniform") == "consumer:uniform"
    assert planned_strategy("consumer", "range", topics=3) == "consumer:range"
    assert planned_strategy("share", "simple") == "share:simple"
    # A Streams application: its tasks over one topic are the topic's partitions; over
    # several, task i reads partition i of each (range's cut, threads beyond it idle).
    for pair in (("classic", "stream"), ("streams", "sticky")):
        assert planned_strategy(*pair) == "cooperative-sticky"
        assert planned_strategy(*pair, topics=3) == "range"
    # Every planned key is one the simulation knows.
    for protocol, names in GROUP_STRATEGIES.items():
        for name in names:
            for topics in (1, 2):
                assert planned_strategy(protocol, name, topics=topics) in ALL_STRATEGIES


def test_a_group_is_planned_among_the_assignors_of_its_own_protocol() -> None:
    assert candidate_strategies("classic", "range") == tuple(STRATEGIES)
    assert candidate_strategies(None, "sticky") == tuple(STRATEGIES)
    assert candidate_strategies("consumer", "range") == ("consumer:uniform", "consumer:range")
    assert candidate_strategies("share", "simple") == ("share:simple",)
    # A Streams application keeps its task assignor: one candidate, its stand-in.
    assert candidate_strategies("streams", "sticky", topics=2) == ("range",)
    assert candidate_strategies("classic", "stream") == ("cooperative-sticky",)
    # Planned keys read back as the broker names the assignor.
    assert assignor_of("consumer", "uniform", "consumer:range") == "range"
    assert assignor_of("classic", "roundrobin", "cooperative-sticky") == "cooperative-sticky"
    assert assignor_of("share", "simple", "share:simple") == "simple"
    assert assignor_of("streams", "sticky", "range") == "sticky"
    assert assignor_of("classic", "stream", "cooperative-sticky") == "stream"
    assert simulation_key("classic", "range") == "range"
    assert simulation_key(None, "range") == "range"
    assert simulation_key("consumer", "range") == "consumer:range"


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
