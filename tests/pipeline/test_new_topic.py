"""A new topic's request: refused with the parameter named, or written as a landing
folder that the real collection reads without a rejected row."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from planner.collect.landing import LandingSource
from planner.collect.run import collect_interval
from planner.config import load_config
from planner.figures.dataset import DataInterval, read_table
from planner.pipeline.new_topic import (
    NewTopicError,
    NewTopicRequest,
    write_request,
    write_run_config,
)
from planner.recommend import PlanSettings

PERF = Path(__file__).resolve().parents[1] / "adapters" / "data" / "perf"
DAY = DataInterval.parse("2026-11-20")
GOOD: dict[str, Any] = {
    "topic": "payments.v2",
    "peak_mib_per_s": 40,
    "peak_records_per_s": 60_000,
    "tp_mib_per_s": 10,
    "tc_mib_per_s": 4,
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"topic": "bad topic!"}, "topic: 'bad topic!' is not a legal Kafka topic name"),
        ({"topic": ".."}, "not a legal Kafka topic name"),
        ({"peak_records_per_s": None}, "peak_mib_per_s and peak_records_per_s are both needed"),
        ({"peak_mib_per_s": -1}, "peak_mib_per_s: a number above zero"),
        ({"figures_file": "/nowhere.csv"}, "give either figures_file or the two peaks"),
        ({"growth_per_year": -1.5}, "growth_per_year: above -1"),
        ({"partitioner": "random"}, "partitioner: one of murmur2_random"),
        ({"strategy": "greedy"}, "strategy: one of range"),
        ({"protocol": "queue"}, "protocol: one of classic, consumer, share, streams"),
        ({"protocol": "share", "strategy": "range"}, "strategy: one of simple for share groups"),
        ({"replication_factor": 5, "brokers": 3}, "replication_factor 5 is above the 3 brokers"),
        ({"tp_mib_per_s": None}, "Tp: give tp_mib_per_s and/or tp_records_per_s"),
        ({"producer_perf_file": str(PERF / "orders.producer.txt")}, "Tp: give the numbers or"),
        ({"key_sample_file": "/tmp/keys.csv"}, "key_sample_file is for keyed topics"),
        ({"brokers": 2.5}, "brokers: a whole number"),
        ({"colour": "blue"}, "unknown parameter(s): colour"),
    ],
)
def test_a_request_that_cannot_be_planned_names_the_parameter(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(NewTopicError, match=_escaped(message)):
        NewTopicRequest.from_params({**GOOD, **change})


def _escaped(text: str) -> str:
    import re

    return re.escape(text)


def test_empty_values_from_the_form_mean_not_given() -> None:
    request = NewTopicRequest.from_params(
        {**GOOD, "figures_file": "", "key_sample_file": None, "consumer_groups": "a, b,"}
    )
    assert request.figures_file is None and request.consumer_groups == ("a", "b")


def _collect(landing: Path, tmp_path: Path) -> Any:
    return collect_interval([LandingSource(landing)], DAY, tmp_path / "figures")


def test_a_request_becomes_figures_the_collection_takes_whole(tmp_path: Path) -> None:
    keys = tmp_path / "sample.csv"
    keys.write_text("key,count\ncustomer-1,900\ncustomer-2,30\n")
    request = NewTopicRequest.from_params(
        {
            **GOOD,
            "tp_mib_per_s": None,
            "producer_perf_file": str(PERF / "orders.producer.txt"),
            "tc_records_per_s": 5000,
            "keyed": True,
            "key_sample_file": str(keys),
            "consumer_groups": ["ledger", "fraud-scoring"],
            "brokers": 6,
        }
    )
    landing = write_request(request, tmp_path / "landing", DAY)
    report = _collect(landing, tmp_path)

    assert report.rejected.num_rows == 0, report.rejected.to_pylist()
    folder = tmp_path / "figures"
    throughput = read_table(folder, DAY, "throughput").to_pylist()
    assert len(throughput) == 24  # one sample an hour, each at the expected peak
    assert {r["bytes_in_per_s"] for r in throughput} == {40 * 2**20}
    assert {r["records_in_per_s"] for r in throughput} == {60_000}
    assert {r["bytes_out_per_s"] for r in throughput} == {2 * 40 * 2**20}  # two groups
    [topic] = read_table(folder, DAY, "topics").to_pylist()
    assert topic["partitions"] is None and topic["keyed"] and topic["replication_factor"] == 3
    [capacity] = read_table(folder, DAY, "capacity").to_pylist()
    assert 13.0 < capacity["producer_mib_per_s"] < 15.0  # the perf file's summary line
    assert capacity["producer_records_per_s"] > 100_000
    assert (capacity["consumer_mib_per_s"], capacity["consumer_records_per_s"]) == (4.0, 5000.0)
    # Where each side came from, as the creation plan tells it.
    assert capacity["source"] == (
        f"Tp read from kafka-producer-perf-test output {PERF / 'orders.producer.txt'}; "
        "Tc given in the request"
    )
    groups = read_table(folder, DAY, "groups").to_pylist()
    assert {(g["group_id"], g["members"]) for g in groups} == {("ledger", 0), ("fraud-scoring", 0)}
    assert {g["protocol"] for g in groups} == {"classic"}
    assert read_table(folder, DAY, "keys").num_rows == 2
    assert read_table(folder, DAY, "cluster").num_rows == 6


def test_a_share_group_request_lands_its_protocol(tmp_path: Path) -> None:
    request = NewTopicRequest.from_params(
        {**GOOD, "consumer_groups": ["workers"], "protocol": "share", "strategy": "simple"}
    )
    report = _collect(write_request(request, tmp_path / "landing", DAY), tmp_path)
    assert report.rejected.num_rows == 0, report.rejected.to_pylist()
    [group] = read_table(tmp_path / "figures", DAY, "groups").to_pylist()
    assert (group["protocol"], group["strategy"], group["members"]) == ("share", "simple", 0)


def test_the_run_config_carries_the_requests_growth_and_no_secret(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text(
        '[store]\nurl = "postgresql+psycopg://planner:s3cret@db/planner"\n'
        "[planning]\nheadroom_pct = 40\n[planning.share]\nmax_record_locks = 1000\n"
        '[spark]\nmaster = "spark://spark:7077"\n'
    )
    request = NewTopicRequest.from_params({**GOOD, "growth_per_year": 0.5, "horizon_days": 365})
    path = write_run_config(load_config(base), request, tmp_path / "run.toml", landing=tmp_path)
    text = path.read_text()
    assert "s3cret" not in text
    config = load_config(path)
    assert config.planning.floor_growth_per_year == 0.5
    assert config.planning.horizon_days == 365
    assert config.planning.headroom_pct == 40  # the base's other planning settings stay
    # The share settings come through as a table, not their text in the file.
    assert config.planning.share == replace(PlanSettings().share, max_record_locks=1000)
    # Every setting but those without a value (TOML has no null: no price was given).
    unset = {"cross_zone_price_per_gib"}
    assert set(tomllib.loads(text)["planning"]) == {*PlanSettings.config_keys(), "share"} - unset
    assert config.history_days == 0  # expected peaks are one day: no history
    assert config.spark_master == "spark://spark:7077"
    assert tomllib.loads(text)["sources"]["use"] == ["landing"]
