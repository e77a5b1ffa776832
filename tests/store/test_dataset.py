"""The store takes the `recommendations` dataset of the Spark job as it is written.

If `spark_jobs.schemas.RECOMMENDATIONS` renames or drops a field the store has a column
for, these fail, naming it: the store and the dataset are changed together.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from planner.examples import Example
from planner.recommend import TopicPlan
from planner.store import COLUMNS, RecommendationStore
from planner.store.records import RUN_FIELD
from tests.store.conftest import run_for
from tests.store.rows import recommendation_row

schemas = pytest.importorskip("spark_jobs.schemas")


def test_every_store_column_is_a_field_of_the_dataset() -> None:
    names = {f.name for f in schemas.RECOMMENDATIONS.fields}
    assert sorted(set(COLUMNS) - names) == []
    assert RUN_FIELD in names


def test_the_test_rows_use_only_dataset_fields(example_row: dict[str, Any]) -> None:
    names = {f.name for f in schemas.RECOMMENDATIONS.fields}
    assert sorted(set(example_row) - names) == []
    assert len(example_row) > len(COLUMNS) + 20  # most of the dataset goes to detail


def test_an_arrow_table_of_the_dataset_round_trips(
    store_url: str, example: Example, example_plan: TopicPlan, example_facts: dict[str, Any]
) -> None:
    run = run_for("2026-11-21")
    row = recommendation_row(
        example_plan, example.history, example_facts, brokers=example.brokers, run=run.key
    )
    table = pa.Table.from_pylist([row], schema=schemas.arrow_schema("recommendations"))
    with RecommendationStore(store_url) as store:
        store.publish_run(run, table)
        [stored] = store.recommendations()
    expected = table.to_pylist()[0]
    del expected[RUN_FIELD]
    assert stored.as_row() == expected
