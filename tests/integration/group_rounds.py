"""What a live consumer group did, rebalance by rebalance, and what ``assign`` predicts for it.

Shared by the Java and the librdkafka live-group tests. A group's history is a list of
*rounds*: the assignment the leader handed out in one rebalance (one generation), member
id -> partitions. The predictions:

- every round is ``assign`` on the members of that round, with each member's previous
  partitions being what it held after its own latest earlier round (what the client
  sends as its owned partitions / sticky user data);
- after one member joins or leaves a settled group, the eager strategies settle in one
  round and ``cooperative-sticky`` in as many as ``assign`` composed on itself needs
  (round one revokes, round two hands the revoked partitions over), each round predicted
  from the one before, the first from the previous settled state.

Where Kafka's Java ``sticky``/``cooperative-sticky`` walks a ``HashMap`` to decide a tie
(identical subscriptions: more members own ``q + 1`` partitions than there are ``q + 1``
slots), its choice depends on the member ids' hash codes, not on any documented order;
there `check_tied_round` checks what does not depend on it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from planner.assignors import assign

Partition = tuple[str, int]
Owned = dict[str, list[Partition]]


def plain(result: Mapping[str, Iterable[Sequence[Any]]]) -> Owned:
    """Member id -> sorted ``(topic, partition)`` tuples, from ``assign`` or from JSON."""
    return {m: sorted((str(t), int(p)) for t, p in tps) for m, tps in result.items()}


@dataclass(frozen=True)
class Round:
    """One rebalance as the members saw it: its generation and what each member got."""

    generation: int
    owned: Owned


def rounds_from_events(events: Sequence[Mapping[str, Any]], *, after: int = -1) -> list[Round]:
    """The rounds (generations above ``after``) in a LiveGroup event log.

    Every member of a generation gets ``onPartitionsAssigned`` once for it, with its whole
    assignment recorded beside the partitions it added.
    """
    by_generation: dict[int, Owned] = {}
    for event in events:
        if event["kind"] == "assigned" and event["generation"] > after:
            owned = by_generation.setdefault(event["generation"], {})
            owned[event["member_id"]] = plain({"m": event["assignment"]})["m"]
    return [Round(g, by_generation[g]) for g in sorted(by_generation)]


def predict(
    strategy: str,
    partitions: Mapping[str, int],
    subscriptions: Mapping[str, Sequence[str]],
    previous: Mapping[str, Sequence[Partition]] | None,
    *,
    client: str,
) -> Owned:
    """``assign`` as plain data, passing the previous partitions of current members only."""
    kept = {m: list(tps) for m, tps in (previous or {}).items() if m in subscriptions}
    return plain(assign(strategy, partitions, subscriptions, kept or None, client=client))


def settling_rounds(
    strategy: str,
    partitions: Mapping[str, int],
    subscriptions: Mapping[str, Sequence[str]],
    previous: Mapping[str, Sequence[Partition]] | None,
    *,
    client: str,
    limit: int = 6,
) -> list[Owned]:
    """The rounds a group runs from ``previous`` until every partition is owned.

    One round for the eager strategies; for ``cooperative-sticky``, ``assign`` composed on
    its own result until a round revokes nothing.
    """
    total = sum(partitions[t] for t in {t for ts in subscriptions.values() for t in ts})
    rounds: list[Owned] = []
    owned = previous
    for _ in range(limit):
        result = predict(strategy, partitions, subscriptions, owned, client=client)
        rounds.append(result)
        if sum(map(len, result.values())) == total:
            return rounds
        owned = result
    raise AssertionError(f"{strategy} did not settle in {limit} predicted rounds: {rounds}")


def settled_states_with_missed_rounds(
    strategy: str,
    partitions: Mapping[str, int],
    subscriptions: Mapping[str, Sequence[str]],
    previous: Mapping[str, Sequence[Partition]] | None,
    *,
    client: str,
) -> list[Owned]:
    """Every state a cooperative group can settle in when members miss round one.

    A member misses a round when its SyncGroup reaches the broker after another member,
    done with that round, has already rejoined for the next (the broker answers
    REBALANCE_IN_PROGRESS). It then neither revokes nor receives anything in that round
    and joins the next one with what it had. Any set of members but all of them (the
    leader's SyncGroup carries the round) may miss round one; the later rounds are
    composed as usual (the race has only been seen in round one).

    Returns:
        The distinct settled states, the one where nobody misses a round first.
    """
    first = predict(strategy, partitions, subscriptions, previous, client=client)
    members = sorted(subscriptions)
    before = {m: list((previous or {}).get(m, [])) for m in members}
    found: list[Owned] = []
    for size in range(len(members)):
        for missing in itertools.combinations(members, size):
            owned = {m: before[m] if m in missing else first[m] for m in members}
            rounds = settling_rounds(strategy, partitions, subscriptions, owned, client=client)
            if rounds[-1] not in found:
                found.append(rounds[-1])
    return found


def java_tie(
    partitions: Mapping[str, int],
    subscriptions: Mapping[str, Sequence[str]],
    previous: Mapping[str, Sequence[Partition]] | None,
) -> bool:
    """Whether Java's sticky constrained path decides this round by ``HashMap`` order.

    With identical subscriptions, ``q = N div C`` and ``r = N mod C``, Java walks the
    members in ``HashMap`` order and lets the first ``r`` that own more than ``q`` valid
    partitions keep ``q + 1``: a tie when more than ``r`` members own that many.
    """
    topic_sets = {frozenset(ts) for ts in subscriptions.values()}
    if len(topic_sets) != 1 or not previous:
        return False
    topics = next(iter(topic_sets))
    total = sum(partitions[t] for t in topics)
    quota, extra = divmod(total, len(subscriptions))
    claims = Counter(tp for m, tps in previous.items() if m in subscriptions for tp in set(tps))
    over = 0
    for member, tps in previous.items():
        if member not in subscriptions:
            continue
        valid = {
            (t, p) for t, p in tps if t in topics and p < partitions[t] and claims[(t, p)] == 1
        }
        over += len(valid) > quota
    return 0 < extra < over


def moved(
    before: Mapping[str, Sequence[Partition]], after: Mapping[str, Sequence[Partition]]
) -> int:
    """Partitions owned before by a member still present that now belong to another."""
    owner = {tp: m for m, tps in after.items() for tp in tps}
    return sum(1 for m, tps in before.items() if m in after for tp in tps if owner.get(tp) != m)


def check_tied_round(
    observed: Owned,
    predicted: Owned,
    previous: Mapping[str, Sequence[Partition]],
) -> None:
    """A round Java decided by ``HashMap`` order: what holds whichever member won the tie.

    The same multiset of per-member counts (so the same balance), the same number of moved
    partitions (the minimum), and every member kept a prefix of its previous partitions
    ordered by (partition number, topic), which is the order Java keeps them in.
    """
    assert sorted(map(len, observed.values())) == sorted(map(len, predicted.values())), (
        f"counts differ: observed {observed}, predicted {predicted}"
    )
    assert moved(previous, observed) == moved(previous, predicted), (
        f"moved differs: observed {observed}, predicted {predicted}, from {previous}"
    )
    for member, tps in previous.items():
        if member not in observed:
            continue
        ranked = sorted(tps, key=lambda tp: (tp[1], tp[0]))
        kept = [tp for tp in ranked if tp in set(observed[member])]
        assert kept == ranked[: len(kept)], f"{member} kept {kept}, not a prefix of {ranked}"


@dataclass(frozen=True)
class Chain:
    """What `check_chain` found besides the rounds it checked exactly.

    Attributes:
        ties: Rounds Java decided by ``HashMap`` order (checked by `check_tied_round`).
        missed: Member id -> generations it belonged to but never received: its SyncGroup
            reached the broker after another member, done with that round, had already
            rejoined for the next one (the broker then answers REBALANCE_IN_PROGRESS). Rare,
            and seen only on a loaded machine; the member keeps what it had.
    """

    ties: int
    missed: dict[str, list[int]]


def check_chain(
    strategy: str,
    partitions: Mapping[str, int],
    subscriptions: Mapping[str, Sequence[str]],
    rounds: Sequence[Round],
    previous: Mapping[str, Sequence[Partition]] | None,
    *,
    members: Iterable[str] | None = None,
    client: str = "java",
) -> Chain:
    """Every round equals ``assign`` on the round before it.

    A round's members are those that received it, plus those known to be in the group
    then that did not (see `Chain.missed`): the leader assigned to them too, so they are
    part of the prediction, but only the members that received the round are compared.

    Args:
        strategy: The group's strategy.
        partitions: Topic -> partition count.
        subscriptions: Member id -> topics, for every member that took part.
        rounds: The observed rounds, oldest first.
        previous: The settled state before the first round (None for a fresh group).
        members: The group's members throughout these rounds, when the test knows them
            (one member joined or left a settled group); None when members were still
            joining (then a member is known to be in once it has received a round).
        client: Whose sticky flavour to predict (``java`` or ``librdkafka``).
    """
    latest: dict[str, list[Partition]] = {m: list(tps) for m, tps in (previous or {}).items()}
    final = set(rounds[-1].owned) if rounds else set()
    known = set(members) if members is not None else set()
    ties = 0
    missed: dict[str, list[int]] = {}
    for step in rounds:
        in_round = set(step.owned) | (known & final)
        for member in sorted(in_round - set(step.owned)):
            missed.setdefault(member, []).append(step.generation)
        group = {m: subscriptions[m] for m in sorted(in_round)}
        before = {m: latest[m] for m in group if m in latest}
        predicted = predict(strategy, partitions, group, before, client=client)
        expected = {m: predicted[m] for m in step.owned}
        if client == "java" and "sticky" in strategy and java_tie(partitions, group, before):
            ties += 1
            check_tied_round(step.owned, expected, before)
        else:
            assert step.owned == expected, (
                f"generation {step.generation}: the group got {step.owned}, assign predicts "
                f"{predicted} (members' previous partitions {before})"
            )
        latest.update(step.owned)
        if members is None:
            known |= set(step.owned)
    return Chain(ties, missed)
