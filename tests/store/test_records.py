"""Row checks and conversion: every bad row is refused before a write, by name."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from planner.figures import DataInterval
from planner.store import COLUMNS, Run, RunSummary, StoreError
from planner.store.records import MAX_TOPIC_BYTES, prepare_rows, run_counts


def _row(**fields: Any) -> dict[str, Any]:
    return {"topic": "orders", "status": "ok", **fields}


def test_known_fields_become_columns_and_the_rest_detail(example_row: dict[str, Any]) -> None:
    [prepared] = prepare_rows([example_row])
    assert set(prepared.columns) == set(COLUMNS)
    assert set(prepared.detail) == set(example_row) - set(COLUMNS)
    assert prepared.columns["recommended_partitions"] == example_row["recommended_partitions"]
    assert prepared.detail["cost_consumer_threads"] == example_row["recommended_partitions"]


def test_an_arrow_table_gives_the_same_rows_as_dicts() -> None:
    rows = [
        _row(recommended_partitions=12, warnings=["a"], mib_in_peak_per_s=1.5, extra=None),
        _row(topic="clicks", recommended_partitions=None, warnings=[], extra={"n": 3}),
    ]
    from_arrow = prepare_rows(pa.Table.from_pylist(rows))
    from_dicts = prepare_rows(rows)
    assert [p.columns for p in from_arrow] == [p.columns for p in from_dicts]
    assert [p.detail for p in from_arrow] == [p.detail for p in from_dicts]
    assert from_arrow[1].detail == {"extra": {"n": 3}}


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"recommended_partitions": "16"}, "recommended_partitions", "expected an integer"),
        ({"recommended_partitions": True}, "recommended_partitions", "expected an integer"),
        ({"recommended_partitions": 16.5}, "recommended_partitions", "expected an integer"),
        ({"mib_in_peak_per_s": math.inf}, "mib_in_peak_per_s", "finite number"),
        ({"mib_in_peak_per_s": "fast"}, "mib_in_peak_per_s", "expected a number"),
        ({"keyed": 1}, "keyed", "expected true or false"),
        ({"warnings": "one warning"}, "warnings", "expected a list"),
        ({"warnings": ["ok", 7]}, "warnings", "[1]: expected a string"),
        ({"groups": ["fraud-scoring"]}, "groups", "[0]: expected an object"),
        ({"strategy": 3}, "strategy", "expected a string"),
    ],
)
def test_a_bad_value_is_named_by_row_topic_and_field(
    fields: dict[str, Any], field: str, message: str
) -> None:
    rows = [_row(topic="fine"), _row(topic="orders.v2", **fields)]
    with pytest.raises(StoreError) as caught:
        prepare_rows(rows)
    text = str(caught.value)
    assert text.startswith(f"recommendations row 1 (topic 'orders.v2'), field '{field}'")
    assert message in text


def test_topic_and_status_are_required() -> None:
    with pytest.raises(StoreError, match=r"row 0: field 'topic' is required"):
        prepare_rows([{"status": "ok"}])
    with pytest.raises(StoreError, match=r"row 0 \(topic 'orders'\): field 'status'"):
        prepare_rows([{"topic": "orders"}])
    with pytest.raises(StoreError, match="row 0: expected a mapping"):
        prepare_rows([("orders", "ok")])


def test_a_topic_twice_in_one_run_is_refused() -> None:
    with pytest.raises(StoreError, match=r"row 2 \(topic 'orders'\): topic repeats row 0"):
        prepare_rows([_row(), _row(topic="clicks"), _row()])


@pytest.mark.parametrize("topic", ["a\x00b", "lone \udc80 surrogate"])
def test_text_postgresql_cannot_hold_is_refused_on_every_backend(topic: str) -> None:
    with pytest.raises(StoreError, match=r"row 0.*field 'topic'"):
        prepare_rows([_row(topic=topic)])
    with pytest.raises(StoreError, match=r"field 'warnings'\[0\]"):
        prepare_rows([_row(warnings=[topic])])


def test_nulls_from_pandas_and_numpy_scalars_are_converted() -> None:
    [prepared] = prepare_rows(
        [
            _row(
                current_partitions=np.float64("nan"),  # pandas' null in an int column
                recommended_partitions=np.int64(24),
                required_partitions=24.0,
                mib_in_peak_per_s=np.float32(2.5),
                records_in_peak_per_s=float("nan"),
                keyed=np.bool_(True),
                warnings=np.array(["w1", "w2"]),
            )
        ]
    )
    c = prepared.columns
    assert c["current_partitions"] is None
    assert c["recommended_partitions"] == 24 and type(c["recommended_partitions"]) is int
    assert c["required_partitions"] == 24 and type(c["required_partitions"]) is int
    assert c["mib_in_peak_per_s"] == 2.5 and c["records_in_peak_per_s"] is None
    assert c["keyed"] is True
    assert c["warnings"] == ["w1", "w2"]


def test_detail_values_are_made_json_ready() -> None:
    moment = dt.datetime(2026, 11, 21, 2, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    [prepared] = prepare_rows(
        [
            _row(
                busiest={1: 0.5, 2: np.float64(0.25)},
                measured_at=moment,
                day=dt.date(2026, 11, 21),
                loads=np.array([0.1, np.inf, np.nan]),
                flags=(True, np.bool_(False)),
            )
        ]
    )
    assert prepared.detail == {
        "busiest": {"1": 0.5, "2": 0.25},
        "measured_at": "2026-11-21T00:30:00+00:00",
        "day": "2026-11-21",
        "loads": [0.1, None, None],  # JSON has no Infinity or NaN
        "flags": [True, False],
    }


def test_bytes_in_detail_are_refused_with_a_hint() -> None:
    with pytest.raises(StoreError, match=r"detail\.hot_keys\[0\]\.key: bytes cannot be stored"):
        prepare_rows([_row(hot_keys=[{"key": b"\xff\x00"}])])


def test_the_nested_deciding_pair_of_recommendations_json_is_accepted() -> None:
    [prepared] = prepare_rows([_row(deciding={"dimension": "mib_in", "side": "consumer"})])
    assert prepared.columns["deciding_dimension"] == "mib_in"
    assert prepared.columns["deciding_side"] == "consumer"
    assert "deciding" not in prepared.detail
    with pytest.raises(StoreError, match="side 'consumer' disagrees with deciding_side"):
        prepare_rows(
            [_row(deciding={"dimension": "mib_in", "side": "consumer"}, deciding_side="producer")]
        )


def test_run_counts_come_from_the_rows() -> None:
    rows = prepare_rows(
        [
            _row(topic="a", status="ok"),
            _row(topic="b", status="increase"),
            _row(topic="c", status="plan-increase"),
            _row(topic="d", status="missing-capacity"),
        ]
    )
    assert run_counts(rows) == {"topics": 4, "increases": 2, "missing_capacity": 1}


def test_runs_need_aware_times_and_summaries_sane_counts() -> None:
    interval = DataInterval.parse("2026-11-21")
    with pytest.raises(StoreError, match="time zone"):
        Run(interval, dt.datetime(2026, 11, 22, 1, 0))
    with pytest.raises(StoreError, match="rejected_rows"):
        RunSummary(rejected_rows=-1)
    assert Run(interval, interval.end).key == "20261121T0000Z"


def test_a_row_of_another_run_is_refused() -> None:
    [prepared] = prepare_rows([_row(run="20261121T0000Z")], "20261121T0000Z")
    assert "run" not in prepared.detail  # the run is the row's run_id, not detail
    with pytest.raises(StoreError, match=r"field 'run': row of run '20261120T0000Z'"):
        prepare_rows([_row(run="20261120T0000Z")], "20261121T0000Z")


def test_topic_names_longer_than_the_index_takes_are_refused() -> None:
    [prepared] = prepare_rows([_row(topic="é" * (MAX_TOPIC_BYTES // 2))])
    assert len(prepared.columns["topic"]) == MAX_TOPIC_BYTES // 2
    with pytest.raises(StoreError, match=f"2002 bytes of UTF-8, more than the {MAX_TOPIC_BYTES}"):
        prepare_rows([_row(topic="é" * (MAX_TOPIC_BYTES // 2 + 1))])
