"""Regenerate the bundled example in planner/examples/ (deterministic; run once by hand).

One keyed topic with 30 days of hourly figures (diurnal and weekly cycles, about 4 %
growth a month, a few bursts), its perf-test capacities, a Zipf key sample with one
heavy key, and two consumer groups; brokers in three zones and the partitions' replicas,
one group giving its members' client.rack (for the cross-zone figure).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from planner.sample.racks import replica_assignment

OUT = Path(__file__).resolve().parents[1] / "planner" / "examples"
_RACKS = ("use1-az1", "use1-az2", "use1-az4")
START_S = 1_760_000_400 - 1_760_000_400 % 86_400  # a UTC midnight in October 2025


def main() -> None:
    rng = np.random.default_rng(20251009)
    hours = np.arange(30 * 24)
    ts = START_S + hours * 3600
    day_phase = (hours % 24) / 24
    diurnal = 0.55 + 0.45 * np.sin(2 * np.pi * (day_phase - 0.3)) ** 2
    weekly = np.where(((hours // 24) % 7) >= 5, 0.7, 1.0)
    growth = (1.04) ** (hours / (30 * 24))
    noise = rng.lognormal(0, 0.05, hours.size)
    mib_in = 24.0 * diurnal * weekly * growth * noise
    for burst in rng.choice(hours.size, 4, replace=False):
        mib_in[burst] *= 1.6
    record_bytes = rng.normal(610, 15, hours.size)
    records_in = mib_in * 2**20 / record_bytes
    mib_out = mib_in * 2.0 * rng.lognormal(0, 0.03, hours.size)  # two groups read it all

    with (OUT / "throughput.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["ts", "bytes_in_per_s", "records_in_per_s", "bytes_out_per_s"])
        for t, b, r, o in zip(ts, mib_in * 2**20, records_in, mib_out * 2**20, strict=True):
            w.writerow([int(t), round(float(b), 1), round(float(r), 1), round(float(o), 1)])

    n_keys = 20_000
    ranks = np.arange(1, n_keys + 1)
    weights = 1.0 / ranks**0.8
    counts = rng.multinomial(2_000_000, weights / weights.sum())
    counts[0] = int(counts.sum() * 0.035)  # one merchant sends 3.5 % of all authorisations
    with (OUT / "keys.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["key", "count"])
        for i, c in enumerate(counts):
            if c > 0:
                w.writerow([f"merchant-{i:05d}", int(c)])


if __name__ == "__main__":
    main()
    meta = {
        "topic": "payments.authorizations",
        "partitions": 12,
        "replication_factor": 3,
        "keyed": True,
        "partitioner": "murmur2_random",
        "retention_ms": 604_800_000,
        # Brokers 1-6 alternate between three zones; each partition's replicas are its
        # leader and the next two brokers (planner.sample.racks), so they span all three.
        "cluster": {"brokers": 6, "racks": 3, "broker_racks": list(_RACKS * 2)},
        "replicas": replica_assignment(0, 12, 3, 6),
        "capacity": {
            "source": "kafka-producer-perf-test / kafka-consumer-perf-test, 610-byte records",
            "producer_mib_per_s": 11.5,
            "producer_records_per_s": 19_800,
            "consumer_mib_per_s": 4.6,
            "consumer_records_per_s": 7_900,
        },
        "groups": [
            # All its members in one zone, and it says so: two thirds of the partitions
            # are led from the other two. ledger-writer gives no client.rack.
            {
                "group_id": "fraud-scoring",
                "strategy": "range",
                "members": 6,
                "client_rack": _RACKS[0],
            },
            {"group_id": "ledger-writer", "strategy": "cooperative-sticky", "members": 12},
        ],
    }
    (OUT / "topic.json").write_text(json.dumps(meta, indent=2) + "\n")
