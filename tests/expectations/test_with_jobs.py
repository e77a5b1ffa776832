"""The suites against the real pipeline: the small test fleet in, both Spark jobs' outputs.

The fleet (`tests.spark_jobs.fleet`) has one topic, `wide`, that claims five replicas on a
three-broker cluster: the input suite must stop the run on it and name it, and every
other input table must pass. The jobs' own outputs must pass the output suites (`wide`
is there with status `error`, which they allow). If a job changes what it writes, this
is where the suites and the jobs are seen to disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from expectations.validate import validate

pytestmark = pytest.mark.slow

_CONFIG = """\
[figures]
history_days = 30

[spark.conf]
"spark.sql.shuffle.partitions" = "2"
"""


@dataclass(frozen=True)
class Pipeline:
    figures: Path
    out: Path
    run: str


@pytest.fixture(scope="module")
def pipeline(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    from spark_jobs import simulate_assignments, size_partitions
    from tests.spark_jobs.fleet import write_fleet

    root = tmp_path_factory.mktemp("with-jobs")
    fleet = write_fleet(root / "figures")
    config = root / "planner.toml"
    config.write_text(_CONFIG, encoding="utf-8")
    out = root / "out"
    args = ["--figures", str(fleet.root), "--out", str(out), "--interval", fleet.key]
    args += ["--config", str(config)]
    assert size_partitions.main(args) == 0
    assert simulate_assignments.main(args) == 0
    return Pipeline(fleet.root, out, fleet.key)


def _figures(spark: Any, pipeline: Pipeline, table: str) -> Any:
    return spark.read.parquet(
        str(pipeline.figures / f"interval={pipeline.run}" / f"{table}.parquet")
    )


def test_the_fleets_inputs_pass_but_for_the_topic_with_too_many_replicas(
    spark: Any, pipeline: Pipeline
) -> None:
    for table in ("throughput", "capacity", "groups", "keys"):
        report = validate(_figures(spark, pipeline, table), f"{table}.input")
        assert report.success, report.message()
    brokers = _figures(spark, pipeline, "cluster").count()
    report = validate(_figures(spark, pipeline, "topics"), "topics.input", broker_count=brokers)
    assert [o.key for o in report.failures] == [
        ("expect_column_values_to_be_between", "replication_factor")
    ]
    assert report.topics == ("wide",)
    assert f"(with broker_count={brokers}, min_coverage=0.8)" in report.message()


@pytest.mark.parametrize("dataset", ["sizing", "simulations", "recommendations"])
def test_the_jobs_outputs_pass(spark: Any, pipeline: Pipeline, dataset: str) -> None:
    from spark_jobs import schemas
    from spark_jobs.outputs import run_path

    schema = getattr(schemas, dataset.upper())
    df = spark.read.schema(schema).parquet(str(run_path(pipeline.out, dataset, pipeline.run)))
    assert df.count() > 0
    report = validate(df, f"{dataset}.output")
    assert report.success, report.message()
