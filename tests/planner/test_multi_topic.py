"""The multi-topic grid's math: every size's member loads and churn, from closed forms.

`planner.simulate.multi_topic` sizes a group that reads several topics without one
simulation per group size; these tests hold its vectorised rows to `simulate_group`
(the assignors themselves) and to the closed forms, on random groups. No Spark.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from planner.simulate import simulate_group
from planner.simulate.multi_topic import group_churn, size_rows


@pytest.mark.parametrize("seed", range(6))
def test_every_size_row_is_what_simulate_group_gives(seed: int) -> None:
    # Random topics (1 to 5, 1 to 13 partitions, uneven loads): the vectorised rows of
    # every size and strategy equal simulate_group's fresh assignment, member by member.
    rng = np.random.default_rng(seed)
    names = sorted(f"t{i}" for i in range(int(rng.integers(1, 6))))
    weights = [rng.random(int(rng.integers(1, 14))) for _ in names]
    total = sum(w.size for w in weights)
    sizes = np.arange(1, total + 3, dtype=np.int64)
    for strategy in ("range", "roundrobin", "sticky", "cooperative-sticky"):
        rows = size_rows(weights, sizes, strategy)
        for i, count in enumerate(sizes.tolist()):
            direct = simulate_group(
                dict(zip(names, weights, strict=True)),
                {f"consumer-{m:03d}": names for m in range(count)},
                strategy,
                consumer_capacity=1.0,
            )
            assert rows["max_load"][i] == pytest.approx(direct.max_load, abs=1e-12)
            assert rows["min_load"][i] == pytest.approx(direct.min_load, abs=1e-12)
            assert rows["max_member_partitions"][i] == direct.member_partitions.max()
            assert rows["min_member_partitions"][i] == direct.member_partitions.min()
            assert rows["idle_members"][i] == direct.idle_members


def test_range_stops_changing_past_the_largest_topic() -> None:
    # Why the search for range stops at the largest topic's partition count: past it,
    # member i owns partition i of every topic that has one, whatever the group size.
    rng = np.random.default_rng(11)
    weights = [rng.random(n) for n in (3, 7, 5)]
    rows = size_rows(weights, np.arange(7, 20, dtype=np.int64), "range")
    assert np.all(rows["max_load"] == rows["max_load"][0])
    assert np.all(rows["max_member_partitions"] == rows["max_member_partitions"][0])
    assert rows["idle_members"].tolist() == list(range(0, 13))


@pytest.mark.parametrize("seed", range(4))
def test_churn_is_what_the_assignors_do_with_the_previous_assignment(seed: int) -> None:
    # Random groups of 1 to 4 topics (1 to 11 partitions each), every size from 1 to two
    # past the partitions: a member joining (its id sorts last) and the last member
    # leaving, run through simulate_group with the fresh assignment as the previous one
    # (the real assignors, not the closed forms), give group_churn's counts.
    rng = np.random.default_rng(100 + seed)
    names = sorted(f"t{i}" for i in range(int(rng.integers(1, 5))))
    loads = {n: rng.random(int(rng.integers(1, 12))) for n in names}
    counts = [w.size for w in loads.values()]
    total = sum(counts)
    width = max(3, len(str(total + 3)))

    def run(size: int, strategy: str, previous: Any = None) -> Any:
        return simulate_group(
            loads,
            {f"consumer-{m:0{width}d}": names for m in range(size)},
            strategy,
            consumer_capacity=1.0,
            previous=previous,
        )

    for strategy in ("range", "roundrobin", "sticky", "cooperative-sticky"):
        for size in range(1, total + 3):
            fresh = run(size, strategy)
            grown = run(size + 1, strategy, fresh.assignment)
            expected = {"grow_moved": int(grown.moved), "grow_revoked": int(grown.revoked)}
            if size > 1:
                shrunk = run(size - 1, strategy, fresh.assignment)
                expected |= {
                    "shrink_moved": int(shrunk.moved),
                    "shrink_revoked": int(shrunk.revoked),
                }
            else:
                expected |= {"shrink_moved": total, "shrink_revoked": total}
            got = group_churn(counts, size, strategy)
            assert got == expected, (strategy, size, counts)


def test_churn_of_one_member_and_of_no_member() -> None:
    assert group_churn([4, 2], 1, "cooperative-sticky") == {
        "grow_moved": 3,
        "grow_revoked": 3,
        "shrink_moved": 6,
        "shrink_revoked": 6,
    }
    with pytest.raises(ValueError, match="at least one member"):
        group_churn([4, 2], 0, "range")


@pytest.mark.parametrize("strategy", ["range", "roundrobin"])
@pytest.mark.parametrize("seed", range(4))
def test_member_loads_from_a_shared_cut_are_the_assignors_own(strategy: str, seed: int) -> None:
    # The search cuts the partitions once for the horizon's and today's loads; the
    # members' loads must be the assignor's own (the brute force: assign, then add up
    # each member's partitions), and exactly those of a cut made for them alone.
    from planner.assignors import assign
    from planner.simulate.member_loads import cut
    from planner.simulate.multi_topic import member_loads as _member_loads

    rng = np.random.default_rng(seed)
    counts = [int(c) for c in rng.integers(1, 30, size=int(rng.integers(1, 5)))]
    counts.append(counts[0])  # two topics of one count share their cut
    topics = [f"t{i}" for i in range(len(counts))]  # Java order is list order
    horizon = [rng.uniform(0, 1, c) * rng.choice([1e-6, 1.0, 1e6]) for c in counts]
    now = [w * rng.uniform(0, 2) for w in horizon]
    first = int(rng.integers(1, 40))
    sizes = np.arange(first, first + int(rng.integers(1, 60)), dtype=np.int64)
    cuts = cut(counts, sizes, strategy)
    for weights in (horizon, now):
        loads = {(t, p): w[p] for t, w in zip(topics, weights, strict=True) for p in range(w.size)}
        expected = []
        for size in sizes:
            members = [f"m{i:03d}" for i in range(size)]
            owned = assign(
                strategy, dict(zip(topics, counts, strict=True)), dict.fromkeys(members, topics)
            )
            expected += [sum(loads[tp] for tp in owned[m]) for m in members]
        shared = _member_loads(weights, sizes, strategy, cuts)
        assert shared.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-300)
        alone = _member_loads(weights, sizes, strategy)
        assert shared.dtype == alone.dtype and shared.tobytes() == alone.tobytes()
