"""Java consumer groups on Apache Kafka 4.4.0, rebalance by rebalance, against ``assign``.

Kafka's Java client (``kafka-clients`` 4.4.0, ``group.protocol=classic``) computes a
classic group's assignment in its group leader. ``LiveGroup.java`` runs every member of
one group in one JVM, one polling thread per ``KafkaConsumer``, and records what each
member's rebalance listener saw: its broker-given member id, the generation, and its
whole assignment after every rebalance. The tests feed ``assign`` those member ids and
check every generation the group went through, not only where it ended:

- a fresh group (all members started at once; the broker forms the first generation
  with whoever has joined, the others join in the next ones), one member joining the
  settled group, one member leaving it;
- each generation equals ``assign`` on that generation's members, their previous
  partitions being what each held after its own latest generation;
- after a join or a leave, the group settles in exactly the rounds ``assign`` predicts
  composed on itself (one for the eager strategies; for ``cooperative-sticky`` round one
  on the previous state, round two on round one's result);
- no member was ever given a partition that another still held (checked at the instant
  of every rebalance callback, under one lock for all members);
- the broker's own description of the settled group (Admin ``describeConsumerGroups``:
  state, assignor name, each member's assignment) equals what the members hold.

Member ids are ``<client.id>-<uuid>`` with the client id set to the member's name, so
members sort by name (the uuid differs every run, the order does not).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from planner.adapters.kraft import KRaftCluster
from planner.assignors import STRATEGIES
from tests.integration.group_rounds import (
    Chain,
    Owned,
    Round,
    check_chain,
    java_tie,
    plain,
    rounds_from_events,
    settling_rounds,
)
from tests.integration.java_clients import JavaGroup
from tests.integration.topics import GROUP_PARTITIONS

pytestmark = [pytest.mark.integration, pytest.mark.slow]

QUIET_S = 1.0  # a settled group shows no change for this long (members and broker agree)
SETTLE_TIMEOUT_S = 120.0  # generous: a loaded 2-core machine slows rebalances a lot

# Five members over three topics, no two alike but a and c; then f joins and b leaves.
MIXED = {
    "a": ["t1", "t2"],
    "b": ["t1", "t2", "t3"],
    "c": ["t1", "t2"],
    "d": ["t2"],
    "e": ["t2", "t3"],
}
JOINER = ("f", ["t1", "t3"])
LEAVER = "b"


@dataclass
class Tracked:
    """A live Java group and what the test knows of it between steps."""

    group: JavaGroup
    strategy: str
    partitions: dict[str, int]
    topics_by_name: dict[str, list[str]] = field(default_factory=dict)
    subscriptions: dict[str, list[str]] = field(default_factory=dict)  # member id -> topics
    settled: Owned | None = None
    generation: int = -1
    ties: int = 0  # rounds Java decided by HashMap order (checked for what holds anyway)

    def join(self, name: str, topics: Sequence[str]) -> None:
        self.topics_by_name[name] = list(topics)
        self.group.join(name, topics)

    def leave(self, name: str) -> None:
        del self.topics_by_name[name]
        self.group.leave(name)

    def settle(self, *, known: bool) -> tuple[dict[str, Any], list[Round], Chain]:
        """Wait for the group to settle; check the rounds since the last settle.

        Args:
            known: Whether the members were all in the group since the last settle (one
                joined or left), rather than still joining (a fresh group).

        Returns:
            LiveGroup's report, the rounds, and what the chain check found.
        """
        subscribed = {t for ts in self.topics_by_name.values() for t in ts}
        report = self.group.settle(
            sum(self.partitions[t] for t in subscribed),
            quiet_s=QUIET_S,
            timeout_s=SETTLE_TIMEOUT_S,
        )
        for name, member in report["members"].items():
            assert member["member_id"].startswith(f"{name}-"), member
            self.subscriptions[member["member_id"]] = member["topics"]
        rounds = rounds_from_events(report["events"], after=self.generation)
        settled = plain({m["member_id"]: m["partitions"] for m in report["members"].values()})
        assert rounds, f"no rebalance since generation {self.generation}"
        assert rounds[-1].generation == report["generation"]
        assert rounds[-1].owned == settled, (rounds[-1], settled)
        assert report["overlaps"] == [], f"given while another member held it: {report['overlaps']}"
        broker = report["broker"]
        assert (broker["type"], broker["assignor"]) == ("Classic", self.strategy), broker
        members = {m["member_id"] for m in report["members"].values()} if known else None
        chain = check_chain(
            self.strategy,
            self.partitions,
            self.subscriptions,
            rounds,
            self.settled,
            members=members,
        )
        self.ties += chain.ties
        return report, rounds, chain

    def fresh(self) -> None:
        """Settle a group whose members all started at once."""
        report, rounds, _ = self.settle(known=False)
        if self.strategy in ("range", "roundrobin"):
            members = {m["member_id"]: m["topics"] for m in report["members"].values()}
            expected = settling_rounds(self.strategy, self.partitions, members, None, client="java")
            assert rounds[-1].owned == expected[-1]
        self._remember(rounds)

    def step(self) -> bool:
        """Settle after one member joined or left: the rounds must be the composed prediction.

        Returns:
            Whether Java decided the first round by HashMap order (then only what holds
            whichever member won the tie is checked).
        """
        previous = self.settled
        report, rounds, chain = self.settle(known=True)
        members = {m["member_id"]: m["topics"] for m in report["members"].values()}
        if chain.missed:
            # A member missed a round (see Chain.missed), so later rounds started from
            # other partitions than the composed prediction's; each round was still
            # checked against the one before it.
            self._remember(rounds)
            return "sticky" in self.strategy and java_tie(self.partitions, members, previous)
        predicted = settling_rounds(
            self.strategy, self.partitions, members, previous, client="java"
        )
        assert len(rounds) == len(predicted), (
            f"{self.strategy}: {len(rounds)} rebalances {[r.owned for r in rounds]}, "
            f"predicted {len(predicted)} {predicted}"
        )
        tied = "sticky" in self.strategy and java_tie(self.partitions, members, previous)
        if not tied:
            assert [r.owned for r in rounds] == predicted
        self._remember(rounds)
        return tied

    def _remember(self, rounds: Sequence[Round]) -> None:
        self.settled = rounds[-1].owned
        self.generation = rounds[-1].generation


@pytest.fixture
def java_group(kafka: KRaftCluster, tmp_path: Path) -> Iterator[Any]:
    groups: list[JavaGroup] = []

    def make(strategy: str) -> JavaGroup:
        group_id = f"live-java-{strategy}-{uuid.uuid4().hex[:8]}"
        groups.append(JavaGroup(kafka, strategy, group_id, tmp_path))
        return groups[-1]

    yield make
    for group in groups:
        group.close()


def _real(topics: Mapping[str, str], short: Sequence[str]) -> list[str]:
    return [topics[t] for t in short]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_java_group_with_mixed_subscriptions_follows_assign(
    strategy: str, group_topics: dict[str, str], java_group: Any
) -> None:
    """Five members on three topics (fresh), then one joins, then one leaves."""
    partitions = {group_topics[t]: n for t, n in GROUP_PARTITIONS.items()}
    live = Tracked(java_group(strategy), strategy, partitions)
    for name, short in MIXED.items():
        live.join(name, _real(group_topics, short))
    live.fresh()
    live.join(JOINER[0], _real(group_topics, JOINER[1]))
    assert not live.step()
    live.leave(LEAVER)
    assert not live.step()
    assert live.ties == 0


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
def test_java_sticky_group_with_identical_subscriptions_follows_assign(
    strategy: str, group_topics: dict[str, str], java_group: Any
) -> None:
    """Identical subscriptions (t1 and t3, 8 partitions): Kafka's constrained path.

    a, b, c start at once (3, 3, 2 partitions). d joins: each keeps its lowest partition
    numbers up to 2 and d gets the rest, exactly as predicted. e joins: quotas 1 and 2
    with three slots for 2 while a, b, c and d all own 2, so Java lets the first three it
    meets in a HashMap of member ids keep 2 (a tie decided by the ids' hash codes): only
    counts, moves and kept prefixes are checked there, and the follow-up rounds exactly.
    a leaves: exact again.
    """
    short = ["t1", "t3"]
    partitions = {group_topics[t]: GROUP_PARTITIONS[t] for t in short}
    live = Tracked(java_group(strategy), strategy, partitions)
    for name in ("a", "b", "c"):
        live.join(name, _real(group_topics, short))
    live.fresh()
    live.join("d", _real(group_topics, short))
    assert not live.step()
    live.join("e", _real(group_topics, short))
    assert live.step()
    live.leave("a")
    assert not live.step()
    assert live.ties == 1
