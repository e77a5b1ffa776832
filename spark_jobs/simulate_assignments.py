"""Job 2, `simulate_assignments`: consumer groups on the candidates, and the answer.

Reads the run's `sizing` dataset (job 1) and, from the run's figures, the consumer
groups (key samples are not read again: job 1 hashed them into `partition_loads`).
Then:

1. every planned topic's planning grid (each simulated candidate count x group size x
   strategy: member loads, idle members, the headroom check, churn), applied per topic
   with an Arrow function (`spark_jobs.simulation.simulate_topics`) whose tasks write
   the rows as the dataset's files themselves;
2. every group that reads several topics, simulated as one group on its topics'
   recommended counts and sized (`spark_jobs.groups`);
3. the recommendation per topic: the sizing, its groups (one-topic groups as
   `plan_topic` planned them, multi-topic groups from 2), the consumers and strategy
   to run (the core's `choose_consumers` over all of them), and the warnings, merged
   by one Python task that writes the dataset's file (`spark_jobs.recommend`).

Outputs the `simulations` and `recommendations` datasets of the run.

    python -m spark_jobs.simulate_assignments --figures FIGURES --out OUT --interval 2026-11-21
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_jobs import recommend, simulation
from spark_jobs.figures import RunFigures
from spark_jobs.outputs import (
    FILES_WRITTEN,
    TaskFiles,
    run_path,
    sorted_file,
    write_run,
)
from spark_jobs.planning import PLANNED_STATUSES
from spark_jobs.runner import JobError, main_for
from spark_jobs.schemas import (
    GROUP_RESULT,
    SIZING,
    arrow_schema,
)
from spark_jobs.settings import JobSettings

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "SIMULATION_ORDER",
    "group_inputs",
    "group_rows",
    "main",
    "multi_topic_groups",
    "plan_groups",
    "recommendations_output",
    "run",
    "simulation_inputs",
    "simulations_output",
    "write_simulations",
    "write_topic_grids",
]


def simulation_inputs(sizing: DataFrame, groups: DataFrame) -> DataFrame:
    """One row per planned topic with what its grid needs.

    Args:
        sizing: The run's `sizing` rows.
        groups: The run's consumer groups.

    Returns:
        `topic, current_partitions, recommended_partitions, consumers_at_horizon,
        simulate_counts (the candidates flagged simulated, in order), largest_group (the
        most members of a group reading the topic, those reading others too included;
        0 for none: the core's `topic_grid` decides the sizes from it),
        partition_loads` (keyed topics), `groups` (the groups of another
        protocol than classic that read only it, as their plans name them: what the
        grid simulates for them is the core's, `planner.recommend.grid_parameters`).
    """
    from pyspark.sql import functions as F

    largest = groups.groupBy("topic").agg(F.max("members").alias("largest_group"))
    counts = F.array_sort(
        F.transform(F.filter("candidates", lambda c: c["simulated"]), lambda c: c["partitions"])
    )
    return (
        sizing.where(F.col("status").isin(*PLANNED_STATUSES))
        .join(F.broadcast(largest), "topic", "left")
        .select(
            "topic",
            "current_partitions",
            "recommended_partitions",
            "consumers_at_horizon",
            counts.alias("simulate_counts"),
            F.coalesce("largest_group", F.lit(0)).cast("int").alias("largest_group"),
            "partition_loads",
            F.filter(
                F.transform(
                    "groups",
                    lambda g: F.struct(
                        g["group_id"].alias("group_id"),
                        g["current_strategy"].alias("current_strategy"),
                        g["current_members"].alias("current_members"),
                        g["protocol"].alias("protocol"),
                    ),
                ),
                # Classic groups are simulated by the classic four every grid holds.
                lambda g: g["protocol"] != "classic",
            ).alias("groups"),
        )
    )


#: The order of the `simulations` rows within each file.
SIMULATION_ORDER = ("scope", "topic", "group_id", "partitions", "members", "strategy")


def write_topic_grids(
    inputs: DataFrame, folder: str, *, run: str, settings: JobSettings
) -> DataFrame:
    """Write the `simulations` rows of every planned topic (scope `topic`) into `folder`.

    Topics are hash-partitioned by name over the `simulation_files` partitions and
    sorted by name within each; each task computes its topics' grids and writes them,
    each topic's rows in `SIMULATION_ORDER`, as its file (`part-NNNNN`, NNNNN the
    partition). The 1.2 M rows of the 10,000-topic fleet go from the grid function to
    PyArrow's writer without passing through the JVM (see `spark_jobs.outputs`).

    Returns:
        One `FILES_WRITTEN` row per file; computing it writes the files.
    """
    body = simulation.topic_grid_files_udf(
        run=run,
        headroom_pct=settings.planning.headroom_pct,
        folder=folder,
        min_group_members=settings.planning.min_group_members,
    )
    return (
        inputs.repartition(settings.spark.simulation_files, "topic")
        .sortWithinPartitions("topic")
        .mapInArrow(body, FILES_WRITTEN)
    )


def multi_topic_groups(groups: DataFrame) -> DataFrame:
    """The subscriptions of groups that read more than one topic."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    per_group = Window.partitionBy("group_id")
    return (
        groups.withColumn("group_topics", F.size(F.collect_set("topic").over(per_group)))
        .where(F.col("group_topics") > 1)
        .select(
            "group_id",
            "topic",
            "strategy",
            "members",
            "protocol",
            "client_rack",
            "consumer_records_per_s",
            "capacity_source",
        )
    )


def group_inputs(multi: DataFrame, sizing: DataFrame) -> DataFrame:
    """Each subscription of a multi-topic group, with its topic's sizing.

    `loads` is a keyed topic's partition loads at its recommended count (null for an
    even spread); `consumer_records_per_s` and `capacity_source` are the group's own Tc
    on the topic, `topic_tc_records_per_s` the topic's Tc it is compared with;
    `replicas`, `broker_racks` and `group_read_bytes_per_day` are what the group's
    cross-zone figure needs of the topic.
    """
    from pyspark.sql import functions as F

    at_recommended = F.filter(
        "partition_loads", lambda e: e["partitions"] == F.col("recommended_partitions")
    )
    sized = sizing.select(
        "topic",
        "status",
        "current_partitions",
        "recommended_partitions",
        "consumers_now",
        "consumers_at_horizon",
        "topic_tc_records_per_s",
        F.get(at_recommended, 0)["loads"].alias("loads"),
        "replicas",
        "broker_racks",
        "group_read_bytes_per_day",
    )
    return multi.join(F.broadcast(sized), "topic", "left")


def plan_groups(inputs: DataFrame, *, run: str, settings: JobSettings) -> DataFrame:
    """One `GROUP_RESULT` row per multi-topic group."""
    body = simulation.group_plans_udf(
        run=run,
        headroom_pct=settings.planning.headroom_pct,
        min_group_members=settings.planning.min_group_members,
        price_per_gib=settings.planning.cross_zone_price_per_gib,
    )
    return inputs.groupBy("group_id").applyInArrow(body, GROUP_RESULT)


def group_rows(group_results: DataFrame) -> DataFrame:
    """The `simulations` rows of the multi-topic groups (scope `group`), unordered."""
    from pyspark.sql import functions as F

    return group_results.select(F.explode("grid").alias("row")).select("row.*")


def _group_file(group_results: DataFrame, folder: str, *, settings: JobSettings) -> DataFrame:
    # The multi-topic groups' rows, sorted, as file number `simulation_files`.
    return sorted_file(
        group_rows(group_results),
        folder,
        arrow_schema("simulations"),
        sort_by=SIMULATION_ORDER,
        number=settings.spark.simulation_files,
    )


def write_simulations(
    inputs: DataFrame,
    group_results: DataFrame,
    folder: str,
    *,
    run: str,
    settings: JobSettings,
) -> DataFrame:
    """Write the run's `simulations` files into `folder`.

    The topic grids' files first (`write_topic_grids`, numbered from 0), then one file
    of the multi-topic groups' rows, sorted, numbered `simulation_files`.

    Returns:
        One `FILES_WRITTEN` row per file; computing it writes the files.
    """
    groups = _group_file(group_results, folder, settings=settings)
    topics = write_topic_grids(inputs, folder, run=run, settings=settings)
    return topics.unionByName(groups)


class _Once:
    """A frame made once, on first request, by whichever thread asks first; a thread
    that asks meanwhile waits for it (`run`: the multi-topic groups' plans, which both
    datasets read, checkpointed once)."""

    def __init__(self, make: Callable[[], DataFrame]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._frame: DataFrame | None = None

    def __call__(self) -> DataFrame:
        with self._lock:
            if self._frame is None:
                self._frame = self._make()
            return self._frame


def _simulation_files(
    inputs: DataFrame,
    group_results: DataFrame | Callable[[], DataFrame],
    folder: str,
    *,
    run: str,
    settings: JobSettings,
) -> Iterator[DataFrame]:
    # `write_simulations`' files in two jobs: the topic grids, which do not read the
    # multi-topic groups, while another thread may still be planning those; then the
    # groups' file.
    yield write_topic_grids(inputs, folder, run=run, settings=settings)
    groups = group_results() if callable(group_results) else group_results
    yield _group_file(groups, folder, settings=settings)


def simulations_output(
    inputs: DataFrame,
    group_results: DataFrame | Callable[[], DataFrame],
    *,
    run: str,
    settings: JobSettings,
) -> TaskFiles:
    """The `simulations` dataset for `write_run`: `write_simulations`' files into its
    staging, the topic grids first.

    `group_results` may be a function giving them, asked for once the grids are written.
    """
    return TaskFiles(
        lambda folder: _simulation_files(inputs, group_results, folder, run=run, settings=settings),
        schema=arrow_schema("simulations"),
    )


def recommendations_output(
    sizing_folder: Path, group_results: Callable[[], DataFrame], *, batch_rows: int
) -> TaskFiles:
    """The `recommendations` dataset for `write_run`: one file, sorted by topic.

    The multi-topic groups' plans (`group_results`, asked for when the dataset is
    staged) come to the driver, one row per group, and one Python task reads the run's
    sizing from `sizing_folder`, merges them in and writes the file, `batch_rows` topics
    at a time (`spark_jobs.recommend`).
    """

    def files_in(folder: str) -> DataFrame:
        results = group_results()
        multi = recommend.multi_topic_plans(
            results.select("plan", "warnings", "warnings_coded").toArrow()
        )
        body = recommend.recommendations_file_udf(
            str(sizing_folder), multi, folder, batch_rows=batch_rows
        )
        one = results.sparkSession.range(0, 1, 1, numPartitions=1)
        return one.mapInArrow(body, FILES_WRITTEN)

    return TaskFiles(files_in, schema=arrow_schema("recommendations"))


def _read_sizing(spark: SparkSession, out: Path, run: str) -> DataFrame:
    # Read again from its folder by the recommendations' task (`recommendations_output`).
    folder = run_path(out, "sizing", run)
    if not folder.is_dir():
        raise JobError(
            f"{folder}: no sizing for run {run}; run size_partitions for this interval first"
        )
    return spark.read.schema(SIZING).parquet(str(folder))


def run(
    spark: SparkSession, figures: RunFigures, settings: JobSettings, args: argparse.Namespace
) -> dict[str, Path]:
    """The job's body on a running session: read the run's sizing, write its datasets.

    Returns:
        Dataset name -> its run folder (`simulations`, `recommendations`).

    Raises:
        JobError: The run has no `sizing` in `args.out`.
    """
    sizing = _read_sizing(spark, args.out, figures.key)
    groups = figures.planned_groups_frame(spark)
    key = figures.key
    inputs = simulation_inputs(sizing, groups)
    # Planned (and checkpointed) by the first of the two datasets' threads that needs
    # them (`write_run` stages both at once): the recommendations at once, while the
    # simulations write the topic grids, which do not read them.
    group_results = _Once(
        lambda: plan_groups(
            group_inputs(multi_topic_groups(groups), sizing), run=key, settings=settings
        ).localCheckpoint()
    )
    outputs: dict[str, TaskFiles] = {
        "simulations": simulations_output(inputs, group_results, run=key, settings=settings),
        "recommendations": recommendations_output(
            run_path(args.out, "sizing", key),
            group_results,
            batch_rows=settings.spark.arrow_batch_records,
        ),
    }
    return write_run(outputs, args.out, key)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the job; see `python -m spark_jobs.simulate_assignments --help`."""
    return main_for(
        "simulate_assignments",
        "Simulate consumer groups on every topic's candidates and write the "
        "simulations and recommendations datasets (needs the run's sizing).",
        run,
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
