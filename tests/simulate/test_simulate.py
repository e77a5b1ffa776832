"""Tests for planner.simulate: hand-computed cases, and every closed form against assign()."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from planner import assignors
from planner.assignors import assign
from planner.simulate import (
    EAGER_STRATEGIES,
    PLANNING_GRID,
    STRATEGIES,
    GridResult,
    TopicLoad,
    busiest_lower_bound,
    find_hot_keys,
    grid_from_loads,
    loads_by_count,
    member_detail,
    partition_loads,
    simulate_grid,
    simulate_group,
)
from planner.simulate import closed_forms as cf
from planner.simulate.multi_topic import member_loads

# ---------------------------------------------------------------------------------------
# Brute force: Kafka's assignors (planner.assignors) on explicit member ids.

Owners = dict[tuple[str, int], str]


def _ids(n: int) -> list[str]:
    # "m000" .. "m999": Java order equals numeric order.
    return [f"m{i:03d}" for i in range(n)]


def _owners(assignment: Mapping[str, Sequence[tuple[str, int]]]) -> Owners:
    return {(t, p): m for m, tps in assignment.items() for t, p in tps}


def _member_loads(
    assignment: Mapping[str, Sequence[tuple[str, int]]], members: list[str], w: np.ndarray
) -> np.ndarray:
    return np.array([sum(w[p] for _, p in assignment[m]) for m in members])


def _settled(strategy: str, p: int, members: list[str], previous: Owners) -> tuple[Owners, int]:
    """Assignment after the rebalance (both rounds for cooperative-sticky), and what was
    revoked, counted from the assignor's own first-round output."""
    subs = {m: ["t"] for m in members}
    prev: dict[str, list[tuple[str, int]]] = {}
    for tp, m in previous.items():
        prev.setdefault(m, []).append(tp)
    first = assign(strategy, {"t": p}, subs, prev if strategy != "range" else None)
    if strategy != "cooperative-sticky":
        return _owners(first), len(previous)  # eager: everything owned is revoked
    kept = _owners(first)
    # Revoked: owned by a live member and not kept by it this round, or owned by a leaver.
    revoked = sum(1 for tp, m in previous.items() if kept.get(tp) != m)
    second = assign(strategy, {"t": p}, subs, first)
    return _owners(second), revoked


def _brute_churn(strategy: str, p: int, c: int, change: str) -> tuple[int, int, int, int]:
    members = _ids(c)
    fresh = _owners(assign(strategy, {"t": p}, {m: ["t"] for m in members}))
    joiner = "a-joiner" if change == "first" else "z-joiner"  # sorts first / last
    grown = [joiner, *members] if change == "first" else [*members, joiner]
    after, grow_revoked = _settled(strategy, p, grown, fresh)
    grow_moved = sum(1 for tp, m in fresh.items() if after.get(tp) != m)
    if c == 1:
        return grow_moved, grow_revoked, p, p
    shrunk = members[1:] if change == "first" else members[:-1]
    after, shrink_revoked = _settled(strategy, p, shrunk, fresh)
    shrink_moved = sum(1 for tp, m in fresh.items() if after.get(tp) != m)
    return grow_moved, grow_revoked, shrink_moved, shrink_revoked


def _sticky_minimum_moves(old_counts: list[int], p: int, survivors: int) -> int:
    """Fewest partitions that must change owner for a balanced result (independent of
    the closed forms): survivors keep up to their quota, the `p mod C` larger quotas
    going to members that owned that many."""
    q, r = divmod(p, survivors)
    kept = sum(min(n, q) for n in old_counts) + min(r, sum(1 for n in old_counts if n > q))
    return p - kept


# ---------------------------------------------------------------------------------------
# Hand-computed cases


def test_range_seven_partitions_five_members() -> None:
    detail = member_detail(np.ones(7), 5, "range", consumer_capacity=10)
    assert detail.member_partitions.tolist() == [2, 2, 1, 1, 1]
    assert [[p for _, p in tps] for tps in detail.assignment.values()] == [
        [0, 1],
        [2, 3],
        [4],
        [5],
        [6],
    ]
    grid = grid_from_loads({7: np.ones(7)}, consumer_capacity=10, strategies=["range"])
    row = grid.rows()[4]
    assert (row["members"], row["max_member_partitions"], row["min_member_partitions"]) == (5, 2, 1)


def test_three_members_on_ten_uniform_partitions() -> None:
    # 10 MiB/s over 10 partitions: 1 MiB/s each; range [0-3] [4-6] [7-9] -> 4, 3, 3.
    grid = simulate_grid(
        TopicLoad(10.0), consumer_capacity=5.0, keep_free_pct=20.0, partition_counts=[10]
    )
    rows = [r for r in grid.rows() if r["members"] == 3]
    assert [r["strategy"] for r in rows] == list(STRATEGIES)
    for row in rows:
        assert row["max_load"] == pytest.approx(4.0)
        assert row["min_load"] == pytest.approx(3.0)
        assert row["mean_load"] == pytest.approx(10 / 3)
        assert row["imbalance"] == pytest.approx(1.2)
        assert row["idle_members"] == 0
        # Limit 5 x (1 - 0.2) = 4 MiB/s: the busiest member fits exactly.
        assert row["within_capacity"] is True
    detail = member_detail(partition_loads(TopicLoad(10.0), 10), 3, "range", consumer_capacity=5)
    assert detail.member_loads.tolist() == pytest.approx([4.0, 3.0, 3.0])
    two = [r for r in grid.rows() if r["members"] == 2]
    assert all(r["within_capacity"] is False for r in two)  # 5 MiB/s > 4 MiB/s


def test_hot_key_holding_sixty_percent() -> None:
    keys = [b"hot", *(f"key-{i}".encode() for i in range(40))]
    counts = [60.0, *([1.0] * 40)]
    topic = TopicLoad(100.0, keys=keys, key_counts=counts)  # 100 MiB/s
    hot = find_hot_keys(topic, consumer_capacity=30.0)
    assert [(h.key, h.share) for h in hot] == [(b"hot", pytest.approx(0.6))]
    assert hot[0].rate == pytest.approx(60.0)
    grid = simulate_grid(topic, consumer_capacity=30.0, partition_counts=[12, 48])
    assert grid.hot_keys == hot
    assert np.all(grid.max_partition_load >= 60.0 - 1e-9)
    assert np.all(grid.hot_partition)
    assert not np.any(grid.within_capacity)  # no group size can fix a hot partition
    for p, loads in loads_by_count(topic, [12, 48]).items():
        assert loads.max() >= 60.0
        assert loads.sum() == pytest.approx(100.0)
        assert loads.size == p


def test_hot_keys_of_equal_rate_come_in_the_order_of_their_bytes() -> None:
    keys = [b"zeta", b"b", None, b"alpha", *(f"key-{i}".encode() for i in range(40))]
    counts = [20.0, 30.0, 20.0, 20.0, *([1.0] * 40)]
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 0, 3, 1]):
        topic = TopicLoad(
            100.0,
            keys=[keys[i] for i in order] + keys[4:],
            key_counts=[counts[i] for i in order] + counts[4:],
            partitioner="murmur2",  # the null key is placed, so it can be hot
        )
        hot = find_hot_keys(topic, consumer_capacity=10.0)
        assert [h.key for h in hot] == [b"b", None, b"alpha", b"zeta"]


@pytest.mark.parametrize("partitioner", ["murmur2_random", "murmur2", "consistent_random", "fnv1a"])
def test_the_heaviest_keys_bound_the_busiest_partition_from_below(partitioner: str) -> None:
    rng = np.random.default_rng(7)
    keys: list[bytes | None] = [None, b"", *(f"key-{i}".encode() for i in range(3_000))]
    counts = rng.pareto(1.2, size=len(keys)) + rng.random(len(keys))
    topic = TopicLoad(37.0, keys=keys, key_counts=counts, partitioner=partitioner)
    few, every = busiest_lower_bound(topic, keys=50), busiest_lower_bound(topic, keys=10_000)
    for p in range(1, 300):
        busiest = float(partition_loads(topic, p).max())
        assert few(p) <= every(p) <= busiest * (1 + 1e-12)
        if not topic.hashes.spread.any():
            assert every(p) == pytest.approx(busiest, rel=1e-12)  # every key placed
    assert few(7) > 0
    assert busiest_lower_bound(TopicLoad(5.0))(12) == 0.0


def test_no_hot_key_below_capacity() -> None:
    topic = TopicLoad(100.0, keys=[b"a", b"b"], key_counts=[60.0, 40.0])
    assert find_hot_keys(topic, consumer_capacity=60.0) == ()  # equal is not above
    assert find_hot_keys(TopicLoad(100.0), consumer_capacity=1.0) == ()


def test_spread_null_keys_are_not_hot_and_spread_evenly() -> None:
    topic = TopicLoad(100.0, keys=[None, b"a"], key_counts=[90.0, 10.0])
    assert find_hot_keys(topic, consumer_capacity=20.0) == ()
    loads = partition_loads(topic, 10)
    assert loads.sum() == pytest.approx(100.0)
    assert np.sort(loads)[:9] == pytest.approx([9.0] * 9)  # 90 spread over 10
    # Under `murmur2` (not random) every null-key record lands on one partition.
    pinned = TopicLoad(100.0, keys=[None, b"a"], key_counts=[90.0, 10.0], partitioner="murmur2")
    assert [h.key for h in find_hot_keys(pinned, consumer_capacity=20.0)] == [None]
    assert partition_loads(pinned, 10).max() >= 90.0


def test_arrow_keys_equal_list_keys() -> None:
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(7)
    keys = [f"user-{i}".encode() for i in range(500)]
    counts = rng.zipf(1.5, size=500).astype(float)
    as_list = TopicLoad(50.0, keys=keys, key_counts=counts, partitioner="consistent_random")
    as_arrow = TopicLoad(
        50.0,
        keys=pa.array([k.decode() for k in keys]),
        key_counts=counts,
        partitioner="consistent_random",
    )
    for p in (12, 24, 96):
        assert partition_loads(as_arrow, p) == pytest.approx(partition_loads(as_list, p))


@pytest.mark.parametrize("partitioner", ["murmur2_random", "consistent_random", "fnv1a"])
def test_keyed_loads_follow_the_partitioner_and_sum_to_the_topic_load(partitioner: str) -> None:
    from planner.partitioners import partition_for_key

    rng = np.random.default_rng(11)
    keys = [f"order-{i}".encode() for i in range(300)]
    counts = rng.integers(1, 50, size=300).astype(float)
    topic = TopicLoad(7.5, keys=keys, key_counts=counts, partitioner=partitioner)
    for p in (1, 5, 24):
        expected = np.zeros(p)
        for key, count in zip(keys, counts, strict=True):
            expected[partition_for_key(key, p, partitioner)] += count
        expected *= 7.5 / counts.sum()
        assert partition_loads(topic, p) == pytest.approx(expected)
        assert partition_loads(topic, p).sum() == pytest.approx(7.5)


@pytest.mark.parametrize(
    "partitioner",
    ["murmur2_random", "murmur2", "consistent_random", "consistent", "fnv1a_random", "fnv1a"],
)
def test_folded_loads_equal_hashing_each_count(partitioner: str) -> None:
    # loads_by_count hashes 192 once and folds 12..96 from it; hashing each count
    # directly must give the same loads, for every partitioner (null and empty keys too).
    rng = np.random.default_rng(3)
    keys: list[bytes | None] = [rng.bytes(int(n)) for n in rng.integers(1, 40, size=2000)]
    keys = [*dict.fromkeys(keys), None, b""]
    counts = rng.pareto(1.0, size=len(keys)) + 0.1
    topic = TopicLoad(42.0, keys=keys, key_counts=counts, partitioner=partitioner)
    counts_to_try = [*PLANNING_GRID, 7, 35, 1]
    folded = loads_by_count(topic, counts_to_try)
    assert list(folded) == counts_to_try
    for p in counts_to_try:
        assert folded[p] == pytest.approx(partition_loads(topic, p), rel=1e-9, abs=1e-12), p
        assert folded[p].sum() == pytest.approx(42.0)


def test_keyless_loads_are_uniform_and_sum_to_the_topic_load() -> None:
    for p in PLANNING_GRID:
        loads = partition_loads(TopicLoad(123.4), p)
        assert loads == pytest.approx(np.full(p, 123.4 / p))
        assert loads.sum() == pytest.approx(123.4)


def test_zero_load_imbalance_is_one() -> None:
    grid = simulate_grid(TopicLoad(0.0), consumer_capacity=1.0, partition_counts=[4])
    assert np.all(grid.imbalance == 1.0)
    assert np.all(grid.within_capacity)
    detail = member_detail(np.zeros(3), 5, "roundrobin", consumer_capacity=1.0)
    assert detail.imbalance == 1.0
    assert detail.idle_members == 2


def test_idle_members_count_in_the_mean() -> None:
    grid = simulate_grid(
        TopicLoad(12.0), consumer_capacity=10.0, partition_counts=[12], extra_members=4
    )
    row = grid.where((grid.members == 16) & (grid.strategy == "roundrobin")).rows()[0]
    assert row["idle_members"] == 4
    assert row["mean_load"] == pytest.approx(12.0 / 16)
    assert row["imbalance"] == pytest.approx(16 / 12)
    assert row["min_load"] == 0.0


# ---------------------------------------------------------------------------------------
# Grid shape and the result type


def test_grid_has_one_row_per_partitions_members_strategy() -> None:
    grid = simulate_grid(TopicLoad(10.0), consumer_capacity=1.0, extra_members=3)
    expected = sum(p + 3 for p in PLANNING_GRID) * len(STRATEGIES)
    assert len(grid) == expected
    keys = list(
        zip(grid.partitions.tolist(), grid.members.tolist(), grid.strategy.tolist(), strict=True)
    )
    order = {s: i for i, s in enumerate(STRATEGIES)}
    assert keys == sorted(keys, key=lambda k: (k[0], k[1], order[k[2]]))
    assert len(set(keys)) == expected
    for name in GridResult.column_names():
        assert getattr(grid, name).shape == (expected,), name


def test_idle_members_equal_members_beyond_partitions() -> None:
    grid = simulate_grid(
        TopicLoad(3.0), consumer_capacity=1.0, partition_counts=[1, 5, 12], extra_members=6
    )
    assert grid.idle_members.tolist() == np.maximum(0, grid.members - grid.partitions).tolist()
    assert np.all(grid.max_member_partitions == -(-grid.partitions // grid.members))
    assert np.all(grid.min_member_partitions == grid.partitions // grid.members)


def test_to_arrow_and_rows_agree() -> None:
    pa = pytest.importorskip("pyarrow")
    grid = simulate_grid(TopicLoad(10.0), consumer_capacity=1.0, partition_counts=[3, 6])
    table = grid.to_arrow()
    assert isinstance(table, pa.Table)
    assert table.column_names == list(GridResult.column_names())
    assert table.to_pylist() == grid.rows()
    assert table.schema.metadata[b"keep_free_pct"] == b"30.0"


def test_strategies_are_the_assignors() -> None:
    assert STRATEGIES == assignors.STRATEGIES
    assert {"range", "roundrobin", "sticky"} == EAGER_STRATEGIES


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"consumer_capacity": 0.0}, "consumer_capacity"),
        ({"consumer_capacity": 1.0, "keep_free_pct": 100.0}, "keep_free_pct"),
        ({"consumer_capacity": 1.0, "strategies": ["uniform"]}, "strategies"),
        ({"consumer_capacity": 1.0, "partition_counts": [0]}, "partition counts"),
        ({"consumer_capacity": 1.0, "extra_members": -1}, "extra_members"),
    ],
)
def test_bad_grid_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate_grid(TopicLoad(1.0), **kwargs)  # type: ignore[arg-type]


def test_bad_topic_loads() -> None:
    with pytest.raises(ValueError, match="distinct"):
        TopicLoad(1.0, keys=[b"a", b"a"], key_counts=[1, 2])
    with pytest.raises(ValueError, match="one count per key"):
        TopicLoad(1.0, keys=[b"a"], key_counts=[1, 2])
    with pytest.raises(ValueError, match="load"):
        TopicLoad(-1.0)
    with pytest.raises(ValueError, match="partitioner"):
        TopicLoad(1.0, keys=[b"a"], key_counts=[1], partitioner="java")


# ---------------------------------------------------------------------------------------
# Closed forms == brute force through assign()


def _random_cases(seed: int, n: int, max_p: int = 40) -> list[tuple[int, int, np.ndarray]]:
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(n):
        p = int(rng.integers(1, max_p + 1))
        c = int(rng.integers(1, p + 6))
        loads = rng.pareto(1.2, size=p)  # skewed, as keyed topics are
        cases.append((p, c, loads))
    return cases


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_member_loads_equal_assign(strategy: str, seed: int) -> None:
    for p, c, w in _random_cases(seed, 60):
        members = _ids(c)
        brute = _member_loads(assign(strategy, {"t": p}, {m: ["t"] for m in members}), members, w)
        closed = member_loads([w], np.array([c]), strategy)
        assert closed == pytest.approx(brute, abs=1e-12), (strategy, p, c)
        detail = member_detail(w, c, strategy, consumer_capacity=1.0, member_ids=members)
        assert detail.member_loads == pytest.approx(brute, abs=1e-12)


@pytest.mark.parametrize("seed", [4, 5])
def test_grid_rows_equal_assign(seed: int) -> None:
    rng = np.random.default_rng(seed)
    loads = {p: rng.pareto(1.0, size=p) for p in (1, 2, 7, 13, 24)}
    grid = grid_from_loads(loads, consumer_capacity=2.0, keep_free_pct=10.0, extra_members=3)
    for row in grid.rows():
        p, c, strategy = row["partitions"], row["members"], row["strategy"]
        members = _ids(c)
        result = assign(strategy, {"t": p}, {m: ["t"] for m in members})
        member_loads = _member_loads(result, members, loads[p])
        sizes = [len(result[m]) for m in members]
        assert row["max_load"] == pytest.approx(member_loads.max(), abs=1e-12)
        assert row["min_load"] == pytest.approx(member_loads.min(), abs=1e-12)
        assert row["mean_load"] == pytest.approx(member_loads.mean())
        assert (row["max_member_partitions"], row["min_member_partitions"]) == (
            max(sizes),
            min(sizes),
        )
        assert row["idle_members"] == sizes.count(0)
        assert row["within_capacity"] == (member_loads.max() <= 1.8 + 1e-9)
        assert row["max_partition_load"] == pytest.approx(loads[p].max())


@pytest.mark.parametrize("change", ["last", "first"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_churn_equals_assign(strategy: str, change: str) -> None:
    cases = [(p, c) for p in (1, 2, 3, 5, 8, 12, 17) for c in range(1, p + 4)]
    cases += [(p, c) for p, c, _ in _random_cases(9, 40, max_p=60)]
    grids = {
        p: grid_from_loads(
            {p: np.ones(p)},
            consumer_capacity=1.0,
            strategies=[strategy],
            extra_members=max(0, max(c for q, c in cases if q == p) - p),
            member_change=change,  # type: ignore[arg-type]
        )
        for p in {p for p, _ in cases}
    }
    for p, c in cases:
        row = grids[p].rows()[c - 1]
        assert row["members"] == c
        got = (row["grow_moved"], row["grow_revoked"], row["shrink_moved"], row["shrink_revoked"])
        assert got == _brute_churn(strategy, p, c, change), (strategy, change, p, c)


def test_eager_revokes_everything_cooperative_only_what_moves() -> None:
    grid = simulate_grid(TopicLoad(1.0), consumer_capacity=1.0, extra_members=2)
    eager = np.isin(grid.strategy, sorted(EAGER_STRATEGIES))
    assert np.all(grid.grow_revoked[eager] == grid.partitions[eager])
    assert np.all(grid.shrink_revoked[eager] == grid.partitions[eager])
    coop = grid.strategy == "cooperative-sticky"
    assert np.all(grid.grow_revoked[coop] == grid.grow_moved[coop])
    assert np.all(grid.shrink_revoked[coop] == grid.shrink_moved[coop])
    assert np.all(grid.grow_revoked[coop] < grid.partitions[coop])


@pytest.mark.parametrize("change", ["last", "first"])
def test_sticky_moves_the_minimum(change: str) -> None:
    for p in range(1, 40):
        grid = grid_from_loads(
            {p: np.ones(p)},
            consumer_capacity=1.0,
            strategies=["sticky", "cooperative-sticky"],
            extra_members=3,
            member_change=change,  # type: ignore[arg-type]
        )
        for row in grid.rows():
            c = row["members"]
            fresh = [p // c + (1 if i < p % c else 0) for i in range(c)]
            assert row["grow_moved"] == _sticky_minimum_moves([*fresh, 0], p, c + 1)
            if c > 1:
                survivors = fresh[1:] if change == "first" else fresh[:-1]
                assert row["shrink_moved"] == _sticky_minimum_moves(survivors, p, c - 1)


def test_range_moves_more_than_sticky() -> None:
    grid = simulate_grid(TopicLoad(1.0), consumer_capacity=1.0, partition_counts=[48])
    by = {s: grid.where(grid.strategy == s) for s in STRATEGIES}
    assert np.all(by["range"].grow_moved >= by["sticky"].grow_moved)
    assert np.all(by["roundrobin"].grow_moved >= by["sticky"].grow_moved)


# ---------------------------------------------------------------------------------------
# Groups: several topics, other subscriptions, previous owners


def test_multi_topic_range_imbalance_adds_up() -> None:
    # Three topics of 7 partitions, 1 MiB/s each, five members: range gives the first two
    # members the extra partition of every topic (2 + 2 + 2), round-robin deals 21 over 5.
    loads = {t: np.ones(7) for t in ("t0", "t1", "t2")}
    subs = {m: ["t0", "t1", "t2"] for m in _ids(5)}
    ranged = simulate_group(loads, subs, "range", consumer_capacity=10.0)
    assert ranged.partition_counts.tolist() == [
        [2, 2, 2],
        [2, 2, 2],
        [1, 1, 1],
        [1, 1, 1],
        [1, 1, 1],
    ]
    assert ranged.member_partitions.tolist() == [6, 6, 3, 3, 3]
    assert ranged.member_loads.tolist() == pytest.approx([6, 6, 3, 3, 3])
    assert ranged.imbalance == pytest.approx(6 / (21 / 5))
    dealt = simulate_group(loads, subs, "roundrobin", consumer_capacity=10.0)
    assert dealt.member_partitions.tolist() == [5, 4, 4, 4, 4]
    assert dealt.imbalance == pytest.approx(5 / (21 / 5))
    assert ranged.imbalance > dealt.imbalance
    # And the closed forms agree with the assignors themselves.
    for strategy, result in (("range", ranged), ("roundrobin", dealt)):
        expected = assign(strategy, {t: 7 for t in loads}, subs)
        assert {m: list(tps) for m, tps in result.assignment.items()} == expected


def test_seed_example_two_members_two_topics() -> None:
    loads = {"t0": [1.0, 1.0, 1.0], "t1": [1.0, 1.0, 1.0]}
    subs = {"c0": ["t0", "t1"], "c1": ["t0", "t1"]}
    ranged = simulate_group(loads, subs, "range", consumer_capacity=10.0)
    assert ranged.assignment == {
        "c0": (("t0", 0), ("t0", 1), ("t1", 0), ("t1", 1)),
        "c1": (("t0", 2), ("t1", 2)),
    }
    assert ranged.rows()[0] == {
        "member": "c0",
        "partitions": 4,
        "load": 4.0,
        "partitions[t0]": 2,
        "load[t0]": 2.0,
        "partitions[t1]": 2,
        "load[t1]": 2.0,
    }
    dealt = simulate_group(loads, subs, "roundrobin", consumer_capacity=10.0)
    assert dealt.assignment == {
        "c0": (("t0", 0), ("t0", 2), ("t1", 1)),
        "c1": (("t0", 1), ("t1", 0), ("t1", 2)),
    }


def test_uneven_subscriptions_go_through_the_assignors() -> None:
    loads = {"t0": [3.0], "t1": [1.0, 2.0], "t2": [1.0, 1.0, 1.0]}
    subs = {"c0": ["t0"], "c1": ["t0", "t1"], "c2": ["t0", "t1", "t2"]}
    dealt = simulate_group(loads, subs, "roundrobin", consumer_capacity=10.0)
    assert dealt.member_partitions.tolist() == [1, 1, 4]
    assert dealt.member_loads.tolist() == pytest.approx([3.0, 1.0, 5.0])
    sticky = simulate_group(loads, subs, "sticky", consumer_capacity=10.0)
    assert sticky.member_partitions.tolist() == [1, 2, 3]
    assert sticky.member_loads.tolist() == pytest.approx([3.0, 3.0, 3.0])
    assert sticky.imbalance == pytest.approx(1.0)


@pytest.mark.parametrize("seed", [21, 22])
def test_multi_topic_identical_subscriptions_equal_assign(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(25):
        topics = {f"t{j}": rng.pareto(1.0, size=int(rng.integers(1, 15))) for j in range(3)}
        members = _ids(int(rng.integers(1, 12)))
        subs = {m: list(topics) for m in members}
        for strategy in STRATEGIES:
            got = simulate_group(topics, subs, strategy, consumer_capacity=1.0)
            expected = assign(strategy, {t: w.size for t, w in topics.items()}, subs)
            assert {m: list(tps) for m, tps in got.assignment.items()} == expected, strategy


def test_group_with_previous_counts_moved_and_revoked() -> None:
    loads = {"t": np.ones(6)}
    before = {"c0": [("t", 0), ("t", 2), ("t", 4)], "c1": [("t", 1), ("t", 3), ("t", 5)]}
    subs = {"c0": ["t"], "c1": ["t"], "c2": ["t"]}
    sticky = simulate_group(loads, subs, "sticky", consumer_capacity=1.0, previous=before)
    assert sticky.member_partitions.tolist() == [2, 2, 2]
    assert (sticky.moved, sticky.revoked) == (2, 6)
    coop = simulate_group(loads, subs, "cooperative-sticky", consumer_capacity=1.0, previous=before)
    assert coop.assignment == sticky.assignment  # settled after the follow-up round
    assert (coop.moved, coop.revoked) == (2, 2)
    fresh = simulate_group(loads, subs, "sticky", consumer_capacity=1.0)
    assert (fresh.moved, fresh.revoked) == (None, None)


# ---------------------------------------------------------------------------------------
# The examples of docs/simulation.md


def test_docs_two_topic_range_example() -> None:
    loads = {"orders": [2.0, 2.0, 2.0], "payments": [2.0, 2.0, 2.0]}  # MiB/s
    subs = {"c0": ["orders", "payments"], "c1": ["orders", "payments"]}
    ranged = simulate_group(loads, subs, "range", consumer_capacity=5.0, keep_free_pct=20.0)
    assert ranged.load_limit == pytest.approx(4.0)
    assert ranged.partition_counts.tolist() == [[2, 2], [1, 1]]
    assert ranged.loads.tolist() == [[4.0, 4.0], [2.0, 2.0]]
    assert ranged.member_loads.tolist() == [8.0, 4.0]
    assert ranged.imbalance == pytest.approx(8 / 6)
    assert not ranged.within_capacity
    dealt = simulate_group(loads, subs, "roundrobin", consumer_capacity=5.0, keep_free_pct=20.0)
    assert dealt.partition_counts.tolist() == [[2, 1], [1, 2]]
    assert dealt.member_loads.tolist() == [6.0, 6.0]
    assert dealt.imbalance == 1.0


def test_docs_churn_table() -> None:
    moved = {}
    for change in ("last", "first"):
        grid = simulate_grid(
            TopicLoad(10.0),
            consumer_capacity=1.0,
            partition_counts=[12],
            member_change=change,  # type: ignore[arg-type]
        )
        five = grid.where(grid.members == 5)
        moved[change] = dict(zip(five.strategy.tolist(), five.grow_moved.tolist(), strict=True))
        assert five.grow_revoked.tolist() == [12, 12, 12, 2]
    assert moved["last"] == {"range": 9, "roundrobin": 7, "sticky": 2, "cooperative-sticky": 2}
    assert moved["first"] == {"range": 3, "roundrobin": 12, "sticky": 2, "cooperative-sticky": 2}


# ---------------------------------------------------------------------------------------
# A key sample checked and hashed once


def _zipf_sample(partitioner: str = "murmur2_random") -> TopicLoad:
    rng = np.random.default_rng(5)
    keys = [f"k{i}".encode() for i in range(2_000)]
    return TopicLoad(1.0, keys, rng.zipf(1.3, size=2_000).astype(float), partitioner)


@pytest.mark.parametrize("partitioner", ["murmur2_random", "consistent", "fnv1a_random"])
def test_with_load_keeps_the_sample_and_its_hashes(partitioner: str) -> None:
    sample = _zipf_sample(partitioner)
    hashes = sample.hashes
    scaled = sample.with_load(8.0)
    assert scaled.load == 8.0 and scaled.keys is sample.keys
    assert scaled.hashes is hashes  # not hashed again
    fresh = TopicLoad(8.0, sample.keys, sample.key_counts, partitioner)
    for p in (3, 12, 97):
        assert partition_loads(scaled, p).tolist() == partition_loads(fresh, p).tolist()
    with pytest.raises(ValueError, match="load"):
        sample.with_load(-1.0)


def test_take_is_the_sub_sample_without_rehashing() -> None:
    sample = _zipf_sample()
    _ = sample.hashes
    keep = np.flatnonzero(sample.shares < 0.01)
    rest = sample.take(keep, 0.7)
    fresh = TopicLoad(
        0.7,
        [sample.keys[int(i)].as_py() for i in keep],
        np.asarray(sample.key_counts)[keep],
    )
    for p in (5, 48):
        assert partition_loads(rest, p).tolist() == partition_loads(fresh, p).tolist()
    assert rest.hashes.folded.tolist() == fresh.hashes.folded.tolist()
    with pytest.raises(ValueError, match="at least one"):
        sample.take([], 1.0)
    with pytest.raises(ValueError, match="keyless"):
        TopicLoad(1.0).take([0], 1.0)
    with pytest.raises(ValueError, match="keyless"):
        _ = TopicLoad(1.0).hashes


@pytest.mark.parametrize("partitioner", ["murmur2_random", "murmur2", "consistent"])
def test_distinct_count_from_hashes_equals_unique(partitioner: str) -> None:
    # The hashed count must be `unique`'s exactly, keys sharing a hash and nulls included.
    import pyarrow as pa
    import pyarrow.compute as pc

    from planner.partitioners import hash_keys
    from planner.simulate.loads import _distinct_keys

    raw = np.random.default_rng(3).integers(0, 256, size=(200_000, 8), dtype=np.uint8)
    many = [bytes(row) for row in raw]
    folded = hash_keys(many, partitioner).folded
    ordered = np.argsort(folded, kind="stable")
    same = np.flatnonzero(folded[ordered][1:] == folded[ordered][:-1])
    assert same.size  # 200,000 keys on 31 or 32 bits: a shared hash to test with
    assert many[int(ordered[same[0]])] != many[int(ordered[same[0] + 1])]
    a, b = many[int(ordered[same[0]])], many[int(ordered[same[0] + 1])]
    samples: list[list[bytes | None] | list[str]] = [
        [a, b, b"x"],
        [a, b, b"x", a],
        [a, None, b, None, b""],
        [None, b"", b"y"],
        [b"y", b"y", None],
        [f"s{i}" for i in range(1_000)] + ["s1"],
    ]
    for keys in samples:
        arrow = pa.array(keys, type=pa.string() if isinstance(keys[0], str) else pa.binary())
        expected = len(pc.unique(arrow))
        assert _distinct_keys(arrow, hash_keys(arrow, partitioner)) == expected
        assert _distinct_keys(arrow) == expected
        if expected == len(keys):
            loaded = TopicLoad(1.0, arrow, np.ones(len(keys)), partitioner)
            assert loaded.hashes.folded.tolist() == hash_keys(arrow, partitioner).folded.tolist()
        else:
            with pytest.raises(ValueError, match="distinct"):
                TopicLoad(1.0, arrow, np.ones(len(keys)), partitioner)


def test_take_refuses_an_all_zero_sub_sample() -> None:
    sample = TopicLoad(1.0, [b"a", b"b"], [0.0, 3.0])
    with pytest.raises(ValueError, match="not all zero"):
        sample.take([0], 0.5)


def test_grids_from_the_layout_cache_equal_fresh_ones_and_are_the_callers() -> None:
    from planner.simulate import grid as grid_module

    rng = np.random.default_rng(8)
    loads = {24: rng.pareto(1.2, size=24), 7: rng.pareto(1.2, size=7)}
    grid_module._LAYOUTS.clear()
    first = grid_from_loads(loads, consumer_capacity=1.0, extra_members=3)
    cached = grid_from_loads(loads, consumer_capacity=1.0, extra_members=3)
    for name in GridResult.column_names():
        assert getattr(first, name).tolist() == getattr(cached, name).tolist(), name
        getattr(cached, name)[:1] = getattr(cached, name)[:1]  # writable: the caller's
    again = grid_from_loads(loads, consumer_capacity=1.0, extra_members=3)
    assert again.members.tolist() == first.members.tolist()


def test_a_grid_too_large_to_cache_is_computed_the_same_way() -> None:
    from planner.simulate import grid as grid_module

    rng = np.random.default_rng(9)
    p = 600  # 600 x 604 cells: above the layout cache's limit
    loads = {p: rng.pareto(1.2, size=p)}
    big = grid_from_loads(loads, consumer_capacity=1.0, extra_members=4)
    assert (p, 4, tuple(STRATEGIES), "last") not in grid_module._LAYOUTS
    members = np.arange(1, p + 5)
    starts = np.cumsum(members) - members
    for strategy in ("range", "roundrobin"):
        top, _ = cf.segment_max_min(member_loads([loads[p]], members, strategy), starts)
        assert big.where(big.strategy == strategy).max_load.tolist() == top.tolist()


def _block_starts_reference(num_partitions: int, members: np.ndarray) -> np.ndarray:
    # block_starts as first written: one division per boundary.
    sizes = members + 1
    owner_size = np.repeat(members, sizes)
    i = cf.positions(sizes)
    return i * (num_partitions // owner_size) + np.minimum(i, num_partitions % owner_size)


def _range_moved_reference(num_partitions: int, members: np.ndarray, change: str) -> np.ndarray:
    # range_moved_on_grow as first written: both runs from one block_starts call.
    shift = 1 if change == "first" else 0
    both = _block_starts_reference(num_partitions, np.concatenate((members, members + 1)))
    split = int((members + 1).sum())
    old, new = both[:split], both[split:]
    old_run = np.repeat(np.cumsum(members + 1) - (members + 1), members)
    new_run = np.repeat(np.cumsum(members + 2) - (members + 2), members)
    i = cf.positions(members)
    o_lo, o_hi = old[old_run + i], old[old_run + i + 1]
    n_lo, n_hi = new[new_run + i + shift], new[new_run + i + shift + 1]
    overlap = np.maximum(0, np.minimum(o_hi, n_hi) - np.maximum(o_lo, n_lo))
    return num_partitions - np.add.reduceat(overlap, np.cumsum(members) - members)


@pytest.mark.parametrize("change", ["last", "first"])
def test_range_boundaries_and_moves_match_the_per_boundary_forms(change: str) -> None:
    # block_starts divides once per size and range_moved_on_grow shares one call between
    # consecutive sizes' runs; both must give what the first forms gave, exactly.
    rng = np.random.default_rng(3)
    shapes = [
        np.arange(1, 2, dtype=np.int64),
        np.arange(1, 70, dtype=np.int64),
        np.arange(5, 40, dtype=np.int64),
        np.array([3, 7, 8, 30], dtype=np.int64),
        np.array([9, 9], dtype=np.int64),
    ]
    for p in [*range(1, 65), 97, 128, 255]:
        for members in [*shapes, np.sort(rng.integers(1, 90, size=6)).astype(np.int64)]:
            assert np.array_equal(cf.block_starts(p, members), _block_starts_reference(p, members))
            got = cf.range_moved_on_grow(p, members, change)
            assert got.dtype == np.int64
            assert np.array_equal(got, _range_moved_reference(p, members, change))


@pytest.mark.parametrize("counts", [[6], [6, 12], [3, 6, 12]])
def test_a_grid_owns_its_columns_with_one_count_or_several(counts: list[int]) -> None:
    # Blocks of several counts are concatenated without copying each first; a grid's
    # columns must still be its own: writable, and writing them leaves the next grid of
    # the same layouts alone.
    first = simulate_grid(TopicLoad(1.0), consumer_capacity=1.0, partition_counts=counts)
    expected = {name: column.copy() for name, column in first.columns().items()}
    for name, column in first.columns().items():
        assert column.flags.writeable, name
        column[...] = column[::-1]
    again = simulate_grid(TopicLoad(1.0), consumer_capacity=1.0, partition_counts=counts)
    for name, column in again.columns().items():
        assert np.array_equal(column, expected[name]), name


def test_a_filter_that_keeps_every_row_gives_the_grid_itself() -> None:
    grid = simulate_grid(TopicLoad(2.0), consumer_capacity=1.0, partition_counts=[6, 12])
    assert grid.where(np.ones(len(grid), dtype=bool)) is grid
    six = grid.where(grid.partitions == 6)
    assert six is not grid and set(six.partitions.tolist()) == {6}
    assert six.members.tolist() == grid.members[grid.partitions == 6].tolist()


def test_the_layout_cache_keeps_the_most_recently_used_layouts_within_its_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from planner.simulate import grid as grid_module

    rows = len(STRATEGIES)  # rows of a layout per group size (no extra members)
    monkeypatch.setattr(grid_module, "_LAYOUT_ROWS", (11 + 12) * rows)
    grid_module._LAYOUTS.clear()
    rng = np.random.default_rng(12)
    loads = {p: rng.pareto(1.2, size=p) for p in (10, 11, 12)}

    def grid(p: int) -> GridResult:
        return grid_from_loads({p: loads[p]}, consumer_capacity=1.0)

    first = {p: grid(p) for p in (10, 11)}
    grid(10)  # used again: 11 is now the least recently used
    grid(12)  # 10 + 11 + 12 sizes' rows exceed the budget: 11 goes
    try:
        assert sorted(k[0] for k in grid_module._LAYOUTS) == [10, 12]
        assert grid_module._layout_rows == (10 + 12) * rows
        again = grid(11)  # rebuilt, the same grid
        for name in GridResult.column_names():
            assert getattr(again, name).tolist() == getattr(first[11], name).tolist(), name
    finally:
        grid_module._LAYOUTS.clear()
