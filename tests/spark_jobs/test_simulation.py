"""The per-topic grid is the core's grid; a multi-topic group row carries its plan."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from planner.recommend import GroupInfo, PlanSettings, plan_topic, topic_grid
from planner.simulate import TopicLoad, loads_by_count
from planner.simulate.churn import COST_COLUMNS
from planner.sizing import SideCapacity
from spark_jobs.schemas import GROUP_RESULT, SIMULATIONS
from spark_jobs.simulation import grid_table, plan_groups, simulate_topics
from tests.spark_jobs import arrow_inputs as ai

KEYS = [f"k{i}".encode() for i in range(500)]
COUNTS = np.round(5_000 / np.arange(1, 501) ** 1.2)


#: The columns `simulate_topics` takes (`simulate_assignments.simulation_inputs`).
_GRID_INPUTS = pa.schema(
    [
        ("topic", pa.string()),
        ("current_partitions", pa.int32()),
        ("recommended_partitions", pa.int32()),
        ("consumers_at_horizon", pa.float64()),
        ("simulate_counts", pa.list_(pa.int32())),
        ("largest_group", pa.int32()),
        (
            "partition_loads",
            pa.list_(pa.struct([("partitions", pa.int32()), ("loads", pa.list_(pa.float64()))])),
        ),
    ]
)


def test_the_topic_grid_is_plan_topic_s_grid() -> None:
    throughput = ai.hourly(mib=12.0)
    ts = throughput.column("ts").cast(pa.int64()).to_numpy() / 1e6
    from planner.recommend import TopicHistory

    history = TopicHistory(
        "t",
        ts,
        mib_in=throughput.column("mib_in").to_numpy(),
        current_partitions=6,
        keyed=True,
        keys=KEYS,
        key_counts=COUNTS,
    )
    plan = plan_topic(
        history,
        SideCapacity(10.0),
        SideCapacity(2.0),
        brokers=3,
        groups=[GroupInfo("g", "range", 7)],
        settings=PlanSettings(partition_grid=(12, 24)),
    )
    p = plan.recommended_partitions
    assert 24 in plan.simulated_counts
    # The loads size_partitions stores for a keyed topic: the sample hashed at each count.
    sample = TopicLoad(plan.utilisation_at_horizon, KEYS, COUNTS)
    ours = grid_table(
        "t",
        run="r",
        consumers_at_horizon=plan.utilisation_at_horizon,
        partition_loads={n: w.tolist() for n, w in loads_by_count(sample, [6, p, 24]).items()},
        counts=[6, p, 24],
        largest_group=7,
        current=6,
        recommended=p,
        settings=PlanSettings(),
    )
    assert ours.schema.names == [f.name for f in SIMULATIONS.fields]
    # The job's grid on the loads it was handed, against the plan's own grid (hashed by
    # plan_topic) at the recommended count, and the key sample hashed afresh at 24.
    hashed = topic_grid(sample, [24], groups=[GroupInfo("g", "range", 7)], settings=PlanSettings())
    for count, core in ((p, plan.grid.to_arrow()), (24, hashed.to_arrow())):
        mine = ours.filter(pa.compute.equal(ours.column("partitions"), count))
        theirs = core.filter(pa.compute.equal(core.column("partitions"), count))
        assert mine.num_rows == theirs.num_rows == (count + 7) * 4
        for name in (
            "members",
            "strategy",
            "max_load",
            "idle_members",
            "grow_revoked",
            "within_capacity",
            "max_partition_load",
            *COST_COLUMNS,
        ):
            assert mine.column(name).to_pylist() == theirs.column(name).to_pylist(), name
    flags = ours.group_by("partitions").aggregate(
        [("is_recommended_partitions", "all"), ("is_current_partitions", "all")]
    )
    assert {
        r["partitions"]: (r["is_recommended_partitions_all"], r["is_current_partitions_all"])
        for r in flags.to_pylist()
    } == {6: (p == 6, True), p: (True, p == 6), 24: (p == 24, False)}


def test_topic_rows_carry_what_a_join_and_a_leave_cost() -> None:
    # docs/simulation.md 4.1's worked example: 12 partitions, a group of 5, Kafka's
    # defaults (classic heartbeat 3 s): an eager join pauses all 12 for a heartbeat.
    rows = grid_table(
        "t",
        run="r",
        consumers_at_horizon=2.0,
        partition_loads=None,
        counts=[12],
        largest_group=0,
        current=12,
        recommended=12,
        settings=PlanSettings(),
    ).to_pylist()
    at_five = {r["strategy"]: r for r in rows if r["members"] == 5}
    assert {s: tuple(r[c] for c in COST_COLUMNS) for s, r in at_five.items()} == {
        "range": (True, 1, 1, 36.0, 36.0, 0.0),
        "roundrobin": (True, 1, 1, 36.0, 36.0, 0.0),
        "sticky": (True, 1, 1, 36.0, 36.0, 0.0),
        "cooperative-sticky": (False, 2, 2, 6.0, 6.0, 0.0),
    }


def test_simulate_topics_turns_a_batch_of_topics_into_grid_rows() -> None:
    batch = pa.RecordBatch.from_pylist(
        [
            {
                "topic": "a",
                "current_partitions": 2,
                "recommended_partitions": 3,
                "consumers_at_horizon": 1.5,
                "simulate_counts": [2, 3],
                "largest_group": 4,
                "partition_loads": None,
            },
            {
                "topic": "b",
                "current_partitions": 1,
                "recommended_partitions": 2,
                "consumers_at_horizon": 0.5,
                "simulate_counts": [1, 2],
                "largest_group": 4,
                # A keyed topic whose keys all hash to partition 1 of 2.
                "partition_loads": [
                    {"partitions": 1, "loads": [0.5]},
                    {"partitions": 2, "loads": [0.0, 0.5]},
                ],
            },
        ],
        schema=_GRID_INPUTS,
    )
    out = pa.Table.from_batches(list(simulate_topics(iter([batch]), run="r", headroom_pct=30.0)))
    per_topic = {
        r["topic"]: r["count_all"]
        for r in out.group_by("topic").aggregate([([], "count_all")]).to_pylist()
    }
    assert per_topic == {"a": (2 + 4 + 3 + 4) * 4, "b": (1 + 4 + 2 + 4) * 4}
    b = out.filter(
        pa.compute.and_(
            pa.compute.equal(out.column("topic"), "b"), pa.compute.equal(out.column("members"), 2)
        )
    ).to_pylist()
    assert {(r["partitions"], r["max_load"], r["min_load"]) for r in b} == {
        (1, 0.5, 0.0),
        (2, 0.5, 0.0),
    }
    a = out.filter(pa.compute.equal(out.column("topic"), "a")).to_pylist()[0]
    assert a["max_partition_load"] == pytest.approx(0.75)  # 1.5 over 2 partitions
    assert set(out.column("run").to_pylist()) == {"r"}


def test_plan_groups_gives_one_row_with_the_plan_and_its_grid() -> None:
    table = pa.Table.from_pylist(
        [
            {
                "group_id": "g",
                "topic": topic,
                "strategy": strategy,
                "members": members,
                "status": "ok",
                "current_partitions": p,
                "recommended_partitions": p,
                "consumers_now": load,
                "consumers_at_horizon": load,
                "loads": None,
            }
            for topic, strategy, members, p, load in (
                ("b", "range", 3, 2, 0.6),
                ("a", "roundrobin", 2, 4, 1.2),
            )
        ],
        schema=pa.schema(
            [
                ("group_id", pa.string()),
                ("topic", pa.string()),
                ("strategy", pa.string()),
                ("members", pa.int32()),
                ("status", pa.string()),
                ("current_partitions", pa.int32()),
                ("recommended_partitions", pa.int32()),
                ("consumers_now", pa.float64()),
                ("consumers_at_horizon", pa.float64()),
                ("loads", pa.list_(pa.float64())),
            ]
        ),
    )
    out = plan_groups((pa.scalar("g"),), table, run="r", headroom_pct=30.0, min_group_members=2)
    assert out.schema.names == [f.name for f in GROUP_RESULT.fields]
    row = out.to_pylist()[0]
    plan = row["plan"]
    # The rows disagree: planned with the first topic's strategy and the most members.
    assert (plan["current_strategy"], plan["current_members"]) == ("roundrobin", 3)
    assert plan["notes"][-1].startswith("the groups table disagrees with itself")
    assert plan["members_now"] == 3
    assert {r["run"] for r in row["grid"]} == {"r"}
    assert {r["scope"] for r in row["grid"]} == {"group"}


def _sorted_reference(batch: pa.RecordBatch, *, run: str) -> pa.Table:
    # simulate_topics with every batch sorted, whatever order its grids came in.
    from spark_jobs import simulation

    rows = batch.to_pylist()
    grids = [
        simulation._grid(
            consumers_at_horizon=r["consumers_at_horizon"],
            partition_loads=(
                None
                if r["partition_loads"] is None
                else {e["partitions"]: e["loads"] for e in r["partition_loads"]}
            ),
            counts=r["simulate_counts"],
            groups=(),
            other_group_sizes=(r["largest_group"],),
            settings=PlanSettings(headroom_pct=30.0),
        )
        for r in rows
    ]
    table = simulation._rows_table(
        run,
        [r["topic"] for r in rows],
        grids,
        [r["current_partitions"] for r in rows],
        [r["recommended_partitions"] for r in rows],
    )
    return table.sort_by([(c, "ascending") for c in simulation._ROW_ORDER])


@pytest.mark.parametrize("shuffle", [False, True])
def test_simulate_topics_rows_equal_the_sorted_grids(shuffle: bool) -> None:
    # The grids are made in the dataset's strategy order and the sort is skipped when
    # topics and counts already increase: the rows must be those of the old sort, with
    # or without it (shuffled topics, counts out of order or repeated take the sort).
    rng = np.random.default_rng(7)
    names = sorted({"t-" + "".join(rng.choice(list("abcé_-9"), size=4)) for _ in range(40)})
    if shuffle:
        names = [*rng.permutation(names).tolist(), names[0]]
    rows = []
    for i, name in enumerate(names):
        counts = sorted({int(c) for c in rng.integers(1, 40, size=int(rng.integers(1, 4)))})
        if shuffle and i % 3 == 0:
            counts = [*counts[::-1], counts[0]]
        keyed = i % 2 == 0
        rows.append(
            {
                "topic": name,
                "current_partitions": int(rng.integers(1, 40)) if i % 5 else None,
                "recommended_partitions": counts[0],
                "consumers_at_horizon": float(rng.uniform(0, 5)),
                "simulate_counts": counts,
                "largest_group": int(rng.integers(0, 9)),
                "partition_loads": (
                    [{"partitions": c, "loads": rng.uniform(0, 1, c).tolist()} for c in counts]
                    if keyed
                    else None
                ),
            }
        )
    batch = pa.RecordBatch.from_pylist(
        rows,
        schema=_GRID_INPUTS,
    )
    out = pa.Table.from_batches(list(simulate_topics(iter([batch]), run="r", headroom_pct=30.0)))
    assert out.equals(_sorted_reference(batch, run="r"))
