"""`partition-planner plan` from observations: the whole pipeline on what `observe` recorded.

The cluster is on paper (`tests.observe.synthetic`): three days of samples every five
minutes, so the run has two days of history. The capacities come from a landing folder,
as they would (perf-test output). What goes through every step, Spark and Great
Expectations included: the busiest group's own read rate, a key sample kept as hashes
(the hot key found and named by its hash), a topic's observed share of the interval.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from planner.observe.dataset import ObservationsDataset
from planner.partitioners import hash_to_hashed, hashed_label
from tests.observe.synthetic import PaperGroup, PaperTopic, every, write_samples

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
DAY = datetime(2026, 11, 26, tzinfo=UTC)


def test_a_plan_from_observations_names_a_hot_key_by_its_hash(tmp_path: Path) -> None:
    weights = {b"hot": 0.4, **{f"user-{i}".encode(): 0.6 / 300 for i in range(300)}}
    orders = PaperTopic("orders", 6, rate=600.0, record_bytes=500, keyed=True, key_weights=weights)
    events = PaperTopic("events", 3, rate=40.0, record_bytes=200)
    # Four members keeping up with 600 records/s show at least 150 records/s each, below
    # the given Tc of 200: the group is sized with the topic's Tc (a lower bound never
    # lowers it). With two, they would show at least 300 each, and a 240/s key would no
    # longer be too hot for this group's members.
    billing = PaperGroup("billing", "orders", 4, consumed=orders.offsets)
    moments = every(
        DAY - timedelta(days=2, minutes=10, seconds=-17), DAY + timedelta(days=1, minutes=10), 300
    )
    write_samples(
        ObservationsDataset(tmp_path / "obs"), [orders, events], [billing], moments, every_s=300
    )
    landing = tmp_path / "landing"
    (landing / "capacity").mkdir(parents=True)
    (landing / "capacity" / "capacity.csv").write_text(
        "topic,producer_mib_per_s,producer_records_per_s,consumer_mib_per_s,consumer_records_per_s\n"
        "*,10,20000,1,200\n"
    )
    config = tmp_path / "planner.toml"
    config.write_text(
        '[figures]\nhistory_days = 2\n[sources]\nuse = ["kafka", "landing"]\n'
        f'[sources.landing]\npath = "{landing}"\n'
        f'[sources.kafka]\nbootstrap = "k:9092"\nobservations = "{tmp_path / "obs"}"\n'
        "observe_every_s = 300\n"
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "partition-planner"),
            "plan",
            "--config",
            str(config),
            "--out",
            str(out),
            "--interval",
            "2026-11-26",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        env={**os.environ, "PYSPARK_PYTHON": sys.executable},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "history: 2 earlier day(s)" in done.stderr
    records = {r["topic"]: r for r in json.loads((out / "recommendations.json").read_text())}
    assert set(records) == {"orders", "events"}
    assert all(r["status"] in ("ok", "increase", "plan-increase") for r in records.values())
    hot = hashed_label(hash_to_hashed([b"hot"]).field("murmur2")[0].as_py()).decode()
    # 600 records/s, 40 % on one key: 240/s on one partition, whose consumer takes 200/s:
    # the key is too hot for any one consumer, whatever the partition count.
    warnings = " ".join(records["orders"]["warnings"])
    assert f"hot key '{hot}'" in warnings, warnings
    assert not any("hot key" in w for w in records["events"]["warnings"])
