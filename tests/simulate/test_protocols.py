"""The grid over the consumer protocol's and share groups' strategies, against `assign`.

Every closed form of `planner.simulate` for `consumer:uniform`, `consumer:range` and
`share:simple` is checked against `planner.assignors.assign(..., protocol=...)` (which
reproduces Kafka 4.4.0's group-coordinator assignors) on many random cases: member
loads of one and several topics, the grid's rows, and the churn of a join and a leave.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from planner.assignors import assign
from planner.assignors._java_hashing import hash_map_order
from planner.simulate import (
    ALL_STRATEGIES,
    NEW_PROTOCOL_STRATEGIES,
    STRATEGIES,
    TopicLoad,
    grid_from_loads,
    protocol_of,
    simulate_grid,
    split_key,
    strategy_key,
)
from planner.simulate import member_loads as ml
from planner.simulate.churn import churn
from planner.simulate.multi_topic import search_sizes, size_rows

Assignment = Mapping[str, Sequence[tuple[str, int]]]


def _assign(key: str, counts: Mapping[str, int], members: Sequence[str], previous=None):
    protocol, assignor = split_key(key)
    topics = sorted(counts)
    return assign(assignor, dict(counts), {m: topics for m in members}, previous, protocol=protocol)


def _loads_by_member(
    result: Assignment, members: Sequence[str], weights: Mapping[str, np.ndarray]
) -> list[float]:
    """Each member's load, a partition's load split evenly between its holders."""
    holders: dict[tuple[str, int], int] = {}
    for tps in result.values():
        for topic, p in tps:
            holders[(topic, p)] = holders.get((topic, p), 0) + 1
    return sorted(sum(weights[t][p] / holders[(t, p)] for t, p in result[m]) for m in members)


def test_strategy_keys_name_each_protocol_once() -> None:
    assert ALL_STRATEGIES[:4] == STRATEGIES
    assert NEW_PROTOCOL_STRATEGIES == ("consumer:uniform", "consumer:range", "share:simple")
    assert split_key("range") == ("classic", "range")
    assert split_key("consumer:range") == ("consumer", "range")
    assert strategy_key("share", "simple") == "share:simple"
    assert strategy_key("classic", "sticky") == "sticky"
    assert [protocol_of(k) for k in NEW_PROTOCOL_STRATEGIES] == ["consumer", "consumer", "share"]
    with pytest.raises(ValueError, match="unknown strategy"):
        split_key("classic:range")
    with pytest.raises(ValueError, match="unknown strategy"):
        strategy_key("share", "uniform")


@pytest.mark.parametrize("key", NEW_PROTOCOL_STRATEGIES)
def test_member_loads_equal_assign_on_random_groups(key: str) -> None:
    """One to four topics, skewed loads, every size from 1 to beyond the partitions. The
    broker walks topics in the order of the members' set of names, not name order: "zz"
    comes before "b", and "orders-bp" and "orders-dr" share a bucket."""
    rng = np.random.default_rng(24)
    pick = random.Random(24)
    names = ["a", "b", "orders", "payments", "t", "zz", "orders-bp", "orders-dr"]
    for _ in range(40):
        topics = sorted(pick.sample(names, pick.choice([1, 2, 3, 4])))
        counts = {t: pick.randint(1, 16) for t in topics}
        total = sum(counts.values())
        weights = {t: rng.exponential(size=n) for t, n in counts.items()}
        sizes = np.arange(1, total + (8 if key == "share:simple" else 3), dtype=np.int64)
        cut = ml.cut([counts[t] for t in topics], sizes, key, topics=topics)
        loads = ml.member_loads([weights[t] for t in topics], cut)
        for c in sizes.tolist():
            members = [f"consumer-{i}" for i in range(c)]
            expected = _loads_by_member(_assign(key, counts, members), members, weights)
            start = int(cut.starts[c - 1])
            assert sorted(loads[start : start + c]) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_grid_rows_of_the_new_strategies_equal_assign() -> None:
    rng = np.random.default_rng(7)
    for p in (1, 2, 7, 13, 24):
        w = rng.exponential(size=p)
        grid = grid_from_loads(
            {p: w}, consumer_capacity=1.0, strategies=ALL_STRATEGIES, extra_members=6
        )
        for row in grid.rows():
            if row["strategy"] in STRATEGIES:
                continue
            members = [f"m{i:03d}" for i in range(row["members"])]
            result = _assign(row["strategy"], {"topic": p}, members)
            loads = _loads_by_member(result, members, {"topic": w})
            parts = [len(result[m]) for m in members]
            assert row["max_load"] == pytest.approx(max(loads), rel=1e-12)
            assert row["min_load"] == pytest.approx(min(loads), rel=1e-12, abs=1e-15)
            assert row["max_member_partitions"] == max(parts)
            assert row["min_member_partitions"] == min(parts)
            assert row["idle_members"] == sum(1 for n in parts if n == 0)


def test_share_members_beyond_the_partitions_are_not_idle() -> None:
    """12 partitions at 1.2 (a tenth each), 30 members: each partition goes to
    `ceil(30 / 12) = 3` members, 36 slots over 30 members, so 24 members hold one
    partition and 6 hold two: the busiest carries `2 x 0.1 / 3`, the least `0.1 / 3`."""
    grid = simulate_grid(
        TopicLoad(1.2),
        consumer_capacity=1.0,
        partition_counts=[12],
        strategies=("range", "share:simple"),
        extra_members=18,
    )
    share = grid.where((grid.strategy == "share:simple") & (grid.members == 30)).rows()[0]
    classic = grid.where((grid.strategy == "range") & (grid.members == 30)).rows()[0]
    assert share["idle_members"] == 0
    assert classic["idle_members"] == 18
    assert share["max_load"] == pytest.approx(2 * 0.1 / 3)
    assert share["min_load"] == pytest.approx(0.1 / 3)
    assert (share["max_member_partitions"], share["min_member_partitions"]) == (2, 1)
    assert classic["max_load"] == pytest.approx(0.1)
    assert share["stops_group"] is False and classic["stops_group"] is True


def _owner_moves(before: Assignment, after: Assignment) -> int:
    now = {tuple(tp): m for m, tps in after.items() for tp in tps}
    return sum(1 for m, tps in before.items() for tp in tps if now.get(tuple(tp)) != m)


def _pair_moves(before: Assignment, after: Assignment) -> int:
    kept = {(m, tuple(tp)) for m, tps in after.items() for tp in tps}
    return sum(1 for m, tps in before.items() for tp in tps if (m, tuple(tp)) not in kept)


def _random_groups(n: int, seed: int, most_extra: int):
    pick = random.Random(seed)
    for _ in range(n):
        topics = sorted(pick.sample(["a", "b", "orders", "t"], pick.choice([1, 1, 2])))
        counts = {t: pick.randint(1, 15) for t in topics}
        size = pick.randint(1, sum(counts.values()) + most_extra)
        members = list(dict.fromkeys(f"consumer-{pick.randrange(10**6)}" for _ in range(size)))
        yield counts, members


@pytest.mark.parametrize("key", ["consumer:uniform", "consumer:range"])
def test_consumer_protocol_churn_equals_assign(key: str) -> None:
    """A joiner (`consumer-j` sorts after every `consumer-<digits>`) and the leaver that
    sorts last in the assignor's order (Java order for range, hash order for uniform)."""
    for counts, members in _random_groups(150, 848, 2):
        fresh = _assign(key, counts, members)
        grown = _assign(key, counts, [*members, "consumer-j"], fresh)
        order = sorted(members) if key == "consumer:range" else hash_map_order(members)
        survivors = [m for m in members if m != order[-1]]
        total = sum(counts.values())
        expected_shrink = total
        if survivors:
            shrunk = _assign(key, counts, survivors, {m: fresh[m] for m in survivors})
            expected_shrink = _owner_moves(fresh, shrunk)
        got = churn(key, [counts[t] for t in sorted(counts)], np.array([len(members)]))
        assert int(got["grow_moved"][0]) == _owner_moves(fresh, grown)
        assert int(got["shrink_moved"][0]) == expected_shrink
        # No group-wide stop: only what moves is revoked.
        assert int(got["grow_revoked"][0]) == int(got["grow_moved"][0])


def test_share_churn_is_a_lower_bound_of_assign() -> None:
    """`simple` reads members in hash order, which a join or leave may reshuffle: the
    closed form is the least that must move; measured, it is exact in a large share."""
    exact = 0
    cases = 0
    for counts, members in _random_groups(150, 932, 6):
        fresh = _assign("share:simple", counts, members)
        grown = _assign("share:simple", counts, [*members, "consumer-j"], fresh)
        got = churn("share:simple", [counts[t] for t in sorted(counts)], np.array([len(members)]))
        survivors = members[:-1]
        shrink = sum(counts.values())
        if survivors:
            shrunk = _assign("share:simple", counts, survivors, {m: fresh[m] for m in survivors})
            shrink = _pair_moves(fresh, shrunk)
        assert int(got["grow_moved"][0]) <= _pair_moves(fresh, grown)
        assert int(got["shrink_moved"][0]) <= shrink
        exact += int(got["grow_moved"][0]) == _pair_moves(fresh, grown)
        cases += 1
    assert exact >= cases // 4


@pytest.mark.parametrize("key", NEW_PROTOCOL_STRATEGIES)
def test_multi_topic_search_equals_size_rows_of_assign(key: str) -> None:
    rng = np.random.default_rng(3)
    topics = ["orders", "payments", "t"]
    weights = [rng.exponential(size=n) for n in (5, 3, 8)]
    search = search_sizes(weights, weights, key, 2.0, 1, 1, topics=topics)
    sizes = np.arange(1, search.stats["max_load"].size + 1, dtype=np.int64)
    rows = size_rows(weights, sizes, key, topics=topics)
    np.testing.assert_array_equal(search.stats["max_load"], rows["max_load"])
    for c in sizes.tolist():
        members = [f"m{i}" for i in range(c)]
        result = _assign(key, dict(zip(topics, (5, 3, 8), strict=True)), members)
        loads = _loads_by_member(result, members, dict(zip(topics, weights, strict=True)))
        assert rows["max_load"][c - 1] == pytest.approx(max(loads), rel=1e-12)


def test_share_loads_far_beyond_the_partitions_equal_assign() -> None:
    """Many members a partition: the sizes whose slots of one partition would name a
    member twice take Kafka's own pass; every size agrees with `assign`."""
    rng = np.random.default_rng(932)
    for counts in ({"t": 1}, {"t": 2}, {"t": 5}, {"a": 2, "b": 3}, {"orders": 6, "t": 1}):
        topics = sorted(counts)
        weights = {t: rng.exponential(size=n) for t, n in counts.items()}
        sizes = np.arange(1, 61, dtype=np.int64)
        cut = ml.cut([counts[t] for t in topics], sizes, "share:simple", topics=topics)
        loads = ml.member_loads([weights[t] for t in topics], cut)
        for c in sizes.tolist():
            members = [f"consumer-{i}" for i in range(c)]
            result = _assign("share:simple", counts, members)
            expected = _loads_by_member(result, members, weights)
            start = int(cut.starts[c - 1])
            assert sorted(loads[start : start + c]) == pytest.approx(expected, rel=1e-12)


def test_shares_from_kafkas_own_pass_equal_the_vectorised_ones() -> None:
    """The sizes whose slots would name a member twice take Kafka's own pass; none does
    for small groups, so the pass is forced here on every size to check the assembly."""
    walk = ml._walk(["t"], [7], None)
    sizes = np.arange(1, 40, dtype=np.int64)
    fast = ml._shared_cells(7, sizes, walk)
    forced = ml._shared_cells(7, sizes, walk, kafka_pass=np.ones(sizes.size, dtype=bool))
    as_pairs = sorted(zip(*(a.tolist() for a in fast), strict=True))
    assert as_pairs == sorted(zip(*(a.tolist() for a in forced), strict=True))


def test_simulate_group_of_the_new_protocols_is_the_grid_row_and_counts_churn() -> None:
    """`member_detail` of a new strategy's row gives the grid's loads; with a previous
    target, `moved` is counted as the churn module counts it."""
    from planner.simulate import member_detail, simulate_group

    rng = np.random.default_rng(11)
    w = rng.exponential(size=9)
    grid = grid_from_loads(
        {9: w}, consumer_capacity=1.0, strategies=NEW_PROTOCOL_STRATEGIES, extra_members=5
    )
    for row in grid.rows():
        detail = member_detail(w, row["members"], row["strategy"], consumer_capacity=1.0)
        assert detail.max_load == pytest.approx(row["max_load"], rel=1e-12)
        assert detail.idle_members == row["idle_members"]
        assert int(detail.member_partitions.max()) == row["max_member_partitions"]
    members = [f"consumer-{i}" for i in range(4)]
    for key in NEW_PROTOCOL_STRATEGIES:
        fresh = simulate_group({"t": w}, {m: ["t"] for m in members}, key, consumer_capacity=1.0)
        assert fresh.moved is None
        grown = simulate_group(
            {"t": w},
            {m: ["t"] for m in [*members, "consumer-j"]},
            key,
            consumer_capacity=1.0,
            previous=fresh.assignment,
        )
        expected = _assign(key, {"t": 9}, [*members, "consumer-j"], fresh.assignment)
        moves = _pair_moves if key == "share:simple" else _owner_moves
        assert grown.moved == grown.revoked == moves(fresh.assignment, expected)
