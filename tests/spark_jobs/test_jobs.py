"""Both jobs end to end on the small fleet: the core's numbers, every status, one run."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from planner.figures.dataset import read_table
from planner.recommend import GroupInfo, PlanSettings, TopicHistory, TopicPlan, plan_topic
from planner.sizing import SideCapacity
from spark_jobs import simulate_assignments, size_and_simulate, size_partitions
from spark_jobs.outputs import run_path
from spark_jobs.schemas import RECOMMENDATIONS, SIMULATIONS, SIZING
from tests.spark_jobs.fleet import Fleet, key_rows

pytestmark = pytest.mark.slow

RUN = "20261121T0000Z"
PREVIOUS = "20261120T0000Z"


def _args(fleet: Fleet, out: Path, config: Path, interval: str = RUN) -> list[str]:
    return [
        "--figures",
        str(fleet.root),
        "--out",
        str(out),
        "--interval",
        interval,
        "--config",
        str(config),
    ]


def _run_both(fleet: Fleet, out: Path, config: Path, interval: str = RUN) -> None:
    assert size_partitions.main(_args(fleet, out, config, interval)) == 0
    assert simulate_assignments.main(_args(fleet, out, config, interval)) == 0


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@dataclass
class Runs:
    """Where the jobs wrote, and what the first run of the 21st wrote."""

    out: Path
    first: dict[str, dict[str, bytes]]
    previous_stat: dict[str, tuple[int, int]]


@pytest.fixture(scope="module")
def runs(
    spark: SparkSession, fleet: Fleet, test_config: Path, tmp_path_factory: pytest.TempPathFactory
) -> Runs:
    """The 21st, then the 20th, then the 21st again, all into one output folder."""
    out = tmp_path_factory.mktemp("out")
    _run_both(fleet, out, test_config)
    datasets = ("sizing", "simulations", "recommendations")
    first = {d: _files(run_path(out, d, RUN)) for d in datasets}
    _run_both(fleet, out, test_config, PREVIOUS)
    previous_stat = {
        f"{d}/{p.name}": (p.stat().st_ino, p.stat().st_mtime_ns)
        for d in datasets
        for p in run_path(out, d, PREVIOUS).iterdir()
    }
    _run_both(fleet, out, test_config)
    return Runs(out, first, previous_stat)


def _table(runs: Runs, dataset: str, run: str = RUN) -> dict[str, dict[str, Any]]:
    rows = pq.read_table(run_path(runs.out, dataset, run)).to_pylist()
    return {r["topic"]: r for r in rows}


def _history(fleet: Fleet, topic: str, **facts: Any) -> TopicHistory:
    tables = [read_table(fleet.root, i, "throughput") for i in [*fleet.history, fleet.run]]
    rows = pa.concat_tables(tables)
    rows = rows.filter(pc.equal(rows.column("topic"), topic)).sort_by("ts")
    start = fleet.run.end - timedelta(days=30)
    assert rows.column("ts")[0].as_py() >= start
    out = rows.column("bytes_out_per_s")
    return TopicHistory(
        topic,
        rows.column("ts").cast(pa.int64()).to_numpy() / 1e6,
        mib_in=rows.column("bytes_in_per_s").to_numpy() / 2**20,
        records_in=rows.column("records_in_per_s").to_numpy(),
        mib_out=None if out.null_count else out.to_numpy() / 2**20,
        **facts,
    )


def _orders_keys() -> tuple[list[bytes], np.ndarray]:
    pairs = sorted(
        (r["key"].encode() if r.get("key") is not None else bytes.fromhex(r["key_hex"]), r["count"])
        for r in key_rows()
    )
    return [k for k, _ in pairs], np.array([c for _, c in pairs])


def _plan(
    history: TopicHistory,
    tp: SideCapacity,
    tc: SideCapacity,
    groups: list[GroupInfo],
    consuming_groups: int | None = None,
) -> TopicPlan:
    return plan_topic(
        history,
        tp,
        tc,
        brokers=3,
        groups=groups,
        consuming_groups=consuming_groups,
        settings=PlanSettings(),
    )


def _same_plan(row: dict[str, Any], plan: TopicPlan) -> None:
    assert row["status"] == plan.status
    assert row["recommended_partitions"] == plan.recommended_partitions
    assert row["required_partitions"] == plan.choice.required
    assert row["required_partitions_now"] == plan.choice.required_now
    assert row["deciding_dimension"] == plan.sizing.deciding_dimension
    assert row["deciding_side"] == plan.sizing.deciding_side
    for dim, t in plan.targets.items():
        assert row[f"{dim}_peak_per_s"] == pytest.approx(t.peak, rel=1e-12)
        assert row[f"{dim}_growth_per_year"] == pytest.approx(t.growth_per_year, rel=1e-9)
        assert row[f"{dim}_target_per_s"] == pytest.approx(t.target, rel=1e-9)
    assert row["consumers_at_horizon"] == pytest.approx(plan.utilisation_at_horizon, rel=1e-9)
    assert row["cost_file_handles_per_broker"] == plan.cost.file_handles_per_broker


def test_the_keyed_topic_is_what_plan_topic_says(runs: Runs, fleet: Fleet) -> None:
    keys, counts = _orders_keys()
    history = _history(
        fleet,
        "orders",
        current_partitions=12,
        keyed=True,
        keys=keys,
        key_counts=counts,
        retention_ms=604_800_000,
    )
    plan = _plan(
        history,
        SideCapacity(10.0, 20_000.0),
        SideCapacity(2.0, 3_000.0),
        [GroupInfo("billing", "range", 4)],
    )
    row = _table(runs, "recommendations")["orders"]
    _same_plan(row, plan)
    assert row["key_sample_keys"] == len(keys) == 2_002
    assert row["skew_partitions"] == plan.skew.partitions
    billing = plan.groups[0]
    assert [(g["group_id"], g["recommended_members"], g["strategy"]) for g in row["groups"]] == [
        ("billing", billing.recommended_members, billing.strategy)
    ]
    assert row["recommended_consumers"] == billing.recommended_members
    assert any(w.startswith("keyed topic: going from 12 to") for w in row["warnings"])
    # Its simulated grid at the recommended count is the plan's own grid.
    sims = pq.read_table(run_path(runs.out, "simulations", RUN))
    mine = sims.filter(
        pc.and_(
            pc.equal(sims.column("topic"), "orders"),
            pc.equal(sims.column("partitions"), plan.recommended_partitions),
        )
    ).sort_by([("members", "ascending")])
    core = plan.grid.to_arrow()
    core = core.filter(pc.equal(core.column("partitions"), plan.recommended_partitions))
    assert mine.num_rows == core.num_rows
    for strategy in ("range", "cooperative-sticky"):
        a = mine.filter(pc.equal(mine.column("strategy"), strategy))
        b = core.filter(pc.equal(core.column("strategy"), strategy))
        assert a.column("max_load").to_pylist() == pytest.approx(b.column("max_load").to_pylist())
        assert a.column("grow_revoked").to_pylist() == b.column("grow_revoked").to_pylist()


def test_a_topic_read_by_a_two_topic_group_shares_its_bytes_out(runs: Runs, fleet: Fleet) -> None:
    # clicks: its own Tc, Tp from '*'; read by audit (alone) and analytics (with views),
    # so one group's read rate is half the bytes out.
    history = _history(fleet, "clicks", current_partitions=6, retention_ms=86_400_000)
    plan = _plan(
        history,
        SideCapacity(8.0, 16_000.0),
        SideCapacity(3.0, None),
        [GroupInfo("audit", "cooperative-sticky", 2)],
        consuming_groups=2,
    )
    assert plan.fan_out == 2
    row = _table(runs, "recommendations")["clicks"]
    _same_plan(row, plan)
    assert (row["tp_source"], row["tc_source"]) == ("*", "topic")
    assert (row["tp_measured_by"], row["tc_measured_by"]) == ("perf:fleet", "perf:clicks")
    groups = {g["group_id"]: g for g in row["groups"]}
    assert sorted(groups) == ["analytics", "audit"]
    assert groups["audit"]["recommended_members"] == plan.groups[0].recommended_members
    assert groups["analytics"]["topics"] == ["clicks", "views"]
    views = _table(runs, "recommendations")["views"]
    assert [g["group_id"] for g in views["groups"]] == ["analytics"]
    assert views["groups"][0] == groups["analytics"]
    assert views["consumers_group_id"] == "analytics"
    sims = pq.read_table(run_path(runs.out, "simulations", RUN))
    analytics = sims.filter(pc.equal(sims.column("group_id"), "analytics"))
    total = row["recommended_partitions"] + views["recommended_partitions"]
    assert set(analytics.column("partitions").to_pylist()) == {total}
    assert set(analytics.column("scope").to_pylist()) == {"group"}


def test_every_status_is_reported_with_a_reason(runs: Runs) -> None:
    rows = _table(runs, "recommendations")
    assert {t: r["status"] for t, r in rows.items()} == {
        "clicks": "increase",
        "ghost": "unknown-topic",
        "idle": "no-figures",
        "legacy": "missing-capacity",
        "orders": "increase",
        "views": "ok",
        "wide": "error",
    }
    legacy = rows["legacy"]
    assert legacy["recommended_partitions"] is None
    assert legacy["required_partitions"] is None
    assert "no consumer capacity (Tc)" in legacy["warnings"][0]
    assert legacy["groups"][0]["status"] == "unplanned"
    assert rows["wide"]["status_detail"] == (
        "Replication factor: 5 larger than available brokers: 3"
    )
    for topic in ("ghost", "idle", "wide"):
        assert rows[topic]["warnings"], topic


def test_the_datasets_have_their_schemas_and_the_published_columns(runs: Runs) -> None:
    for name, schema in (
        ("sizing", SIZING),
        ("simulations", SIMULATIONS),
        ("recommendations", RECOMMENDATIONS),
    ):
        table = pq.read_table(run_path(runs.out, name, RUN))
        assert table.schema.names == [f.name for f in schema.fields], name
        assert set(table.column("run").to_pylist()) == {RUN}
    published = {
        "run",
        "topic",
        "status",
        "current_partitions",
        "required_partitions",
        "required_partitions_now",
        "recommended_partitions",
        "recommended_consumers",
        "strategy",
        "deciding_dimension",
        "deciding_side",
        "keyed",
        "partitioner",
        "warnings",
        "rationale",
        "groups",
        "tp_source",
        "tc_source",
        "mib_in_peak_per_s",
        "mib_in_growth_per_year",
        "mib_in_target_per_s",
        "cost_replicas_per_broker",
    }
    assert published <= set(RECOMMENDATIONS.fieldNames())


def test_the_same_figures_give_the_same_bytes(runs: Runs) -> None:
    for dataset, files in runs.first.items():
        assert _files(run_path(runs.out, dataset, RUN)) == files, dataset


def test_every_file_is_sorted_and_one_topic_s_rows_are_in_one_file(runs: Runs) -> None:
    owners: dict[tuple[str, str], str] = {}
    for dataset, keys in (
        ("sizing", ("topic",)),
        ("simulations", simulate_assignments.SIMULATION_ORDER),
        ("recommendations", ("topic",)),
    ):
        for path in sorted(run_path(runs.out, dataset, RUN).iterdir()):
            table = pq.read_table(path)
            ordered = table.sort_by([(k, "ascending") for k in keys])
            assert table.equals(ordered), f"{path.name} of {dataset} is not sorted by {keys}"
            if dataset != "simulations":
                continue
            names = pc.coalesce(table.column("topic"), table.column("group_id"))
            for scope, name in set(
                zip(table.column("scope").to_pylist(), names.to_pylist(), strict=True)
            ):
                assert owners.setdefault((scope, name), path.name) == path.name
    # Two files of topic grids (the default; an empty one is not written), then groups.
    files = {p.name for p in run_path(runs.out, "simulations", RUN).iterdir()}
    assert files <= {f"part-0000{i}.zstd.parquet" for i in range(3)}
    assert {f for (scope, _), f in owners.items() if scope == "group"} == {
        "part-00002.zstd.parquet"
    }
    assert {scope for scope, _ in owners} == {"topic", "group"}


def test_sizing_is_one_file_of_the_frame_s_rows_in_topic_order(
    spark: SparkSession, runs: Runs, fleet: Fleet, test_config: Path
) -> None:
    from pyspark.testing import assertDataFrameEqual

    from spark_jobs.figures import locate_run
    from spark_jobs.settings import load_settings

    folder = run_path(runs.out, "sizing", RUN)
    assert [p.name for p in folder.iterdir()] == ["part-00000.zstd.parquet"]
    topics = pq.read_table(folder / "part-00000.zstd.parquet").column("topic").to_pylist()
    assert topics == sorted(topics) and len(set(topics)) == len(topics) > 1
    figures = locate_run(fleet.root, RUN, lookback_days=30)
    frame = size_partitions.sizing(spark, figures, load_settings(test_config))
    assertDataFrameEqual(spark.read.schema(SIZING).parquet(str(folder)), frame)


@pytest.mark.parametrize("grid_files", [1, 3])
def test_any_number_of_grid_files_holds_the_same_rows_with_the_groups_last(
    spark: SparkSession, runs: Runs, fleet: Fleet, tmp_path: Path, grid_files: int
) -> None:
    # The grid tasks name their files after their partitions: with one grid file
    # (the topics' partition and the groups' both alone) or three, every file must
    # still be its own, the groups' the last.
    from spark_jobs.figures import locate_run
    from spark_jobs.outputs import write_run
    from spark_jobs.settings import JobSettings, SparkSettings

    settings = JobSettings(spark=SparkSettings(shuffle_partitions=2, simulation_files=grid_files))
    figures = locate_run(fleet.root, RUN, lookback_days=30)
    sizing = spark.read.schema(SIZING).parquet(str(run_path(runs.out, "sizing", RUN)))
    groups = figures.table(spark, "groups")
    inputs = simulate_assignments.simulation_inputs(sizing, groups)
    group_results = simulate_assignments.plan_groups(
        simulate_assignments.group_inputs(simulate_assignments.multi_topic_groups(groups), sizing),
        run=RUN,
        settings=settings,
    )
    output = simulate_assignments.simulations_output(
        inputs, group_results, run=RUN, settings=settings
    )
    folder = write_run({"simulations": output}, tmp_path, RUN)["simulations"]
    names = sorted(p.name for p in folder.iterdir())
    assert set(names) <= {f"part-{i:05d}.zstd.parquet" for i in range(grid_files + 1)}
    groups_file = pq.read_table(folder / f"part-{grid_files:05d}.zstd.parquet")
    assert set(groups_file.column("scope").to_pylist()) == {"group"}
    order = [(k, "ascending") for k in simulate_assignments.SIMULATION_ORDER]
    got = pq.read_table(folder, partitioning=None).sort_by(order)
    default = pq.read_table(run_path(runs.out, "simulations", RUN), partitioning=None)
    assert got.equals(default.sort_by(order))


def test_a_rerun_replaces_only_its_own_run(runs: Runs) -> None:
    after = {
        key: (os.stat(runs.out / key.split("/")[0] / f"run={PREVIOUS}" / key.split("/")[1]))
        for key in runs.previous_stat
    }
    assert {k: (s.st_ino, s.st_mtime_ns) for k, s in after.items()} == runs.previous_stat
    for dataset in runs.first:
        names = sorted(p.name for p in (runs.out / dataset).iterdir())
        assert names == [f"run={PREVIOUS}", f"run={RUN}"]


def test_both_jobs_in_one_application_write_what_the_two_write(
    runs: Runs, fleet: Fleet, test_config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As the DAGs run them (`size_and_simulate`): the same rows as each job's own main.
    out = tmp_path / "out"
    assert size_and_simulate.main(_args(fleet, out, test_config)) == 0
    printed = capsys.readouterr().out
    for dataset, files in runs.first.items():
        folder = run_path(out, dataset, RUN)
        assert f"size_and_simulate: run {RUN}: {dataset} -> {folder}" in printed
        assert sorted(p.name for p in folder.iterdir()) == sorted(files)
        for name in files:
            mine = pq.read_table(folder / name)
            assert mine.equals(pq.read_table(run_path(runs.out, dataset, RUN) / name)), name


@pytest.mark.parametrize("job", [size_partitions, size_and_simulate], ids=lambda m: m.__name__)
def test_a_missing_interval_fails_with_its_name_and_writes_nothing(
    job: Any,
    fleet: Fleet,
    test_config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    code = job.main(_args(fleet, out, test_config, "2026-12-24"))
    assert code == 1
    assert "no interval 20261224T0000Z" in capsys.readouterr().err
    assert not out.exists()


def test_simulating_without_a_sizing_fails_and_writes_nothing(
    spark: SparkSession,
    fleet: Fleet,
    test_config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    assert simulate_assignments.main(_args(fleet, out, test_config)) == 1
    err = capsys.readouterr().err
    assert f"no sizing for run {RUN}; run size_partitions for this interval first" in err
    assert not out.exists()
