"""Property tests on random groups: validity, balance, stickiness, cooperative rounds."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.assignors import STRATEGIES, TopicPartition, assign, java_order_key
from tests.assignors.strategies import WIDE_IDS, Group, groups

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Result = dict[str, list[TopicPartition]]


def existing_subscribed(group: Group) -> dict[tuple[str, int], set[str]]:
    """Every partition that must be assigned -> the members allowed to take it."""
    allowed: dict[tuple[str, int], set[str]] = {}
    for member, topics in group.subscriptions.items():
        for topic in topics:
            for partition in range(group.partitions_per_topic.get(topic, 0)):
                allowed.setdefault((topic, partition), set()).add(member)
    return allowed


def check_valid(group: Group, result: Result, *, complete: bool = True) -> None:
    allowed = existing_subscribed(group)
    assert set(result) == set(group.subscriptions), "every member present, no stranger"
    seen = Counter(tp for tps in result.values() for tp in tps)
    assert all(n == 1 for n in seen.values()), "no partition twice"
    for member, tps in result.items():
        assert tps == sorted(tps, key=lambda tp: (java_order_key(tp[0]), tp[1])), "sorted"
        for tp in tps:
            assert member in allowed.get(tp, set()), f"{tp} given to non-subscriber {member}"
    if complete:
        assert set(seen) == set(allowed), "every subscribed partition assigned"


def valid_ownership(group: Group) -> dict[tuple[str, int], str]:
    """Claims Kafka honours: live member, existing partition, subscribed topic, one claimant."""
    claims: dict[tuple[str, int], list[str]] = {}
    for member, tps in (group.previous or {}).items():
        if member not in group.subscriptions:
            continue
        for tp in set(tps):
            claims.setdefault(tp, []).append(member)
    allowed = existing_subscribed(group)
    return {
        tp: members[0]
        for tp, members in claims.items()
        if len(members) == 1 and members[0] in allowed.get(tp, set())
    }


def moved(owner_before: dict[tuple[str, int], str], result: Result) -> int:
    return sum(
        1 for m, tps in result.items() for tp in tps if tp in owner_before and owner_before[tp] != m
    )


def check_kafka_balance(group: Group, result: Result) -> None:
    """No member with 2+ more partitions than another holds a partition the other could take."""
    count = {m: len(tps) for m, tps in result.items()}
    for member, tps in result.items():
        for tp in tps:
            for other, topics in group.subscriptions.items():
                assert not (tp[0] in topics and count[member] >= count[other] + 2), (
                    f"{member} ({count[member]}) holds {tp}, {other} ({count[other]}) could take it"
                )


@SETTINGS
@given(group=groups(), strategy=st.sampled_from(STRATEGIES))
def test_valid(group: Group, strategy: str) -> None:
    result = assign(strategy, group.partitions_per_topic, group.subscriptions, group.previous)
    check_valid(group, result, complete=strategy != "cooperative-sticky" or not group.previous)


@SETTINGS
@given(group=groups(ids=WIDE_IDS), strategy=st.sampled_from(STRATEGIES))
def test_valid_with_ids_beyond_the_bmp(group: Group, strategy: str) -> None:
    result = assign(strategy, group.partitions_per_topic, group.subscriptions, group.previous)
    check_valid(group, result, complete=strategy != "cooperative-sticky" or not group.previous)


@SETTINGS
@given(group=groups(with_previous=False))
def test_range_balances_each_topic(group: Group) -> None:
    result = assign("range", group.partitions_per_topic, group.subscriptions)
    for topic, count in group.partitions_per_topic.items():
        subscribers = [m for m, topics in group.subscriptions.items() if topic in topics]
        if not subscribers or not count:
            continue
        per_member = [sum(1 for tp in result[m] if tp.topic == topic) for m in subscribers]
        assert max(per_member) - min(per_member) <= 1
        # and the extra partitions go to the first members in Java order
        ordered = sorted(subscribers, key=java_order_key)
        got = [sum(1 for tp in result[m] if tp.topic == topic) for m in ordered]
        assert got == sorted(got, reverse=True)


@SETTINGS
@given(group=groups(identical=True), strategy=st.sampled_from(["roundrobin", "sticky"]))
def test_identical_subscriptions_balance_totals(group: Group, strategy: str) -> None:
    result = assign(strategy, group.partitions_per_topic, group.subscriptions, group.previous)
    totals = [len(tps) for tps in result.values()]
    assert max(totals) - min(totals) <= 1


@SETTINGS
@given(group=groups())
def test_sticky_meets_kafkas_balance_rule(group: Group) -> None:
    result = assign("sticky", group.partitions_per_topic, group.subscriptions, group.previous)
    check_kafka_balance(group, result)


def minimum_moves(group: Group) -> int:
    """With identical subscriptions: members keep what they own up to their quota."""
    owner = valid_ownership(group)
    n_partitions = len(existing_subscribed(group))
    n_members = len(group.subscriptions)
    min_quota, extra = divmod(n_partitions, n_members)
    owned = Counter(owner.values())
    counts = [owned.get(m, 0) for m in group.subscriptions]
    kept = sum(min(c, min_quota) for c in counts) + min(
        extra, sum(1 for c in counts if c > min_quota)
    )
    return len(owner) - kept


@SETTINGS
@given(group=groups(identical=True))
def test_identical_sticky_moves_the_minimum(group: Group) -> None:
    result = assign("sticky", group.partitions_per_topic, group.subscriptions, group.previous)
    assert moved(valid_ownership(group), result) == minimum_moves(group)


@SETTINGS
@given(group=groups(identical=True, with_previous=False))
def test_fresh_identical_sticky_is_roundrobin(group: Group) -> None:
    args = (group.partitions_per_topic, group.subscriptions)
    assert assign("sticky", *args) == assign("roundrobin", *args)


def check_cooperative_round(
    group: Group, owned: Result | dict[str, list[tuple[str, int]]] | None, result: Result
) -> None:
    """A round adds to no member a partition another live member still owns.

    This is the rule Kafka's ConsumerCoordinator enforces on a cooperative assignment: a
    member may keep a partition it owned even when another member claimed it too (Kafka's
    general path does that with a double claim), but never receive one still owned elsewhere.
    """
    live_claims: dict[tuple[str, int], set[str]] = {}
    for member, tps in (owned or {}).items():
        if member in group.subscriptions:
            for tp in tps:
                live_claims.setdefault(tuple(tp), set()).add(member)  # type: ignore[arg-type]
    for member, tps in result.items():
        for tp in tps:
            claims = live_claims.get(tp, set())
            assert member in claims or not claims, f"{tp} added to {member}, still owned elsewhere"


@SETTINGS
@given(group=groups())
def test_cooperative_rounds(group: Group) -> None:
    args = (group.partitions_per_topic, group.subscriptions)
    target = assign("sticky", *args, group.previous)
    round1 = assign("cooperative-sticky", *args, group.previous)
    check_valid(group, round1, complete=False)
    check_cooperative_round(group, group.previous, round1)
    # Round one is the target minus exactly the partitions another live member owns.
    for member, tps in round1.items():
        assert set(tps) <= set(target[member])
    for member in target:
        for tp in set(target[member]) - set(round1[member]):
            others = {
                m
                for m, tps in (group.previous or {}).items()
                if m in group.subscriptions and m != member and tp in tps
            }
            assert others, f"{tp} held back from {member} though no other member owns it"
    # Follow-up rebalances: each one is sticky on what the last one handed out; they
    # settle on a complete, balanced assignment within a few rounds.
    rounds = [round1]
    while len(rounds) < 6:
        following = assign("cooperative-sticky", *args, rounds[-1])
        check_cooperative_round(group, rounds[-1], following)
        if following == rounds[-1]:
            break
        rounds.append(following)
    settled = rounds[-1]
    assert assign("cooperative-sticky", *args, settled) == settled, "not settled after 6 rounds"
    check_valid(group, settled)
    check_kafka_balance(group, settled)
    if group.identical:
        # Constrained path: round two revokes nothing and is final.
        assert len(rounds) <= 2
        for member, tps in round1.items():
            assert set(tps) <= set(settled[member])


@SETTINGS
@given(
    group=groups(identical=True, with_previous=False, messy_previous=False),
    change=st.sampled_from(["join", "leave"]),
)
def test_cooperative_reaches_the_target_when_one_member_joins_or_leaves(
    group: Group, change: str
) -> None:
    args = [group.partitions_per_topic, dict(group.subscriptions)]
    settled = assign("sticky", *args)
    subscriptions = dict(group.subscriptions)
    if change == "join":
        subscriptions["zz-new-member"] = next(iter(subscriptions.values()))
    elif len(subscriptions) > 1:
        del subscriptions[sorted(subscriptions)[0]]
    target = assign("sticky", group.partitions_per_topic, subscriptions, settled)
    round1 = assign("cooperative-sticky", group.partitions_per_topic, subscriptions, settled)
    round2 = assign("cooperative-sticky", group.partitions_per_topic, subscriptions, round1)
    assert round2 == target
    changed = Group(group.partitions_per_topic, subscriptions, settled)  # type: ignore[arg-type]
    check_valid(changed, target)
    check_kafka_balance(changed, target)
    assert moved(valid_ownership(changed), target) == minimum_moves(changed)


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky"])
def test_growing_a_fresh_group_by_one_moves_p_div_c_plus_1(strategy: str) -> None:
    """Closed form for planners: from a fresh assignment of P partitions over C members,
    a (C+1)-th member takes exactly P div (C+1) partitions, all revoked from the others."""
    for n_partitions in range(1, 41):
        for n_members in range(1, n_partitions + 1):
            members = [f"m{i:02d}" for i in range(n_members + 1)]
            fresh = assign("sticky", {"t": n_partitions}, {m: ["t"] for m in members[:-1]})
            grown = assign("sticky", {"t": n_partitions}, {m: ["t"] for m in members}, fresh)
            totals = [len(tps) for tps in grown.values()]
            assert max(totals) - min(totals) <= 1
            newcomer = grown[members[-1]]
            assert len(newcomer) == n_partitions // (n_members + 1)
            for member, tps in fresh.items():
                assert set(grown[member]) <= set(tps)
            if strategy == "cooperative-sticky":
                round1 = assign(strategy, {"t": n_partitions}, {m: ["t"] for m in members}, fresh)
                assert round1[members[-1]] == []
                round2 = assign(strategy, {"t": n_partitions}, {m: ["t"] for m in members}, round1)
                assert round2 == grown
