"""The published sizing, rebuilt from the landing files with pandas alone.

An oracle written from the documented rules (docs/model.md), importing nothing from
`planner` or `spark_jobs`: each planned topic's observed peaks (nearest-rank p99 of its
samples in the window), its bytes out per consuming group, and, with the capacity row
that applies (the topic's own, else `*`), ceil(target / Tp) and ceil(target / Tc) for
every dimension, from the target the dataset states. Topics whose Tp or Tc come from
perf-tool output files are checked on their peaks only. Growth fitting, key skew and
the even-spread choice are not rebuilt here (their own tests cover them); the
recommended count is checked to cover the requirement and today's count.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.pipeline.conftest import RUN_KEY, Planned

MIB = 1024.0 * 1024.0
PERCENTILE = 99.0  # the embedded default, which `plan` runs on


def _nearest_rank(values: Any) -> float:
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    return float(ordered[max(math.ceil(ordered.size * PERCENTILE / 100.0) - 1, 0)])


def _ceil(numerator: float, denominator: float) -> tuple[int, ...]:
    # On the decimals as written, as a person with a calculator would (1.1 / 0.1 = 11),
    # at least 1. A quotient within a billionth above a whole number may count as that
    # number (the target is computed, and carries float noise): both answers accepted.
    quotient = Decimal(repr(numerator)) / Decimal(repr(denominator))
    ceiling = max(1, math.ceil(quotient))
    below = ceiling - 1
    near = below >= 1 and quotient - below <= Decimal("1e-9") * ceiling
    return (ceiling, below) if near else (ceiling,)


def _number(value: Any) -> float | None:
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return None
    return float(value)


def test_peaks_and_partition_rules_match_an_independent_recomputation(planned: Planned) -> None:
    landing = planned.landing
    samples = pd.concat(
        [pd.read_parquet(f) for f in sorted((landing / "throughput").glob("*.parquet"))],
        ignore_index=True,
    )
    # The sample's whole history lies inside the 30-day window ending with the run.
    samples = samples.drop_duplicates(["topic", "ts"])
    groups = pd.concat(
        [pd.read_json(f, lines=True, dtype=False) for f in (landing / "groups").glob("*.jsonl")]
    ).drop_duplicates(["group_id", "topic"])
    readers = groups.groupby("topic")["group_id"].nunique().to_dict()
    capacity = pd.read_csv(landing / "capacity" / "capacity.csv", dtype=str).set_index("topic")
    measured = {
        p.name.removesuffix(".txt").rsplit(".", 1)[0] for p in (landing / "perf").glob("*.txt")
    }
    sizing = pd.read_parquet(planned.out / "work" / "datasets" / "sizing" / f"run={RUN_KEY}")
    published = {
        t["topic"]: t for t in json.loads((planned.out / "recommendations.json").read_text())
    }

    checked_peaks = checked_rules = 0
    for row in sizing.to_dict("records"):
        topic = row["topic"]
        if row["status"] not in ("ok", "plan-increase", "increase"):
            continue
        mine = samples[samples["topic"] == topic]
        fan_out = max(1, readers.get(topic, 0))
        peaks = {
            "mib_in": (mine["bytes_in_per_s"] / MIB).dropna(),
            "records_in": mine["records_in_per_s"].dropna(),
            "mib_out": (mine["bytes_out_per_s"] / MIB / fan_out).dropna(),
        }
        for dim, values in peaks.items():
            stated = row[f"{dim}_peak_per_s"]
            if stated is None or (isinstance(stated, float) and math.isnan(stated)):
                assert values.empty, (topic, dim)
                continue
            peak = _nearest_rank(values)
            assert stated == pytest.approx(peak, rel=1e-9, abs=1e-12), (topic, dim)
            checked_peaks += 1
        if topic in measured:
            continue  # Tp/Tc from perf-tool output: the peaks are checked, not the rule
        own = topic in capacity.index
        for side, columns in (
            ("producer", ("producer_mib_per_s", "producer_records_per_s")),
            ("consumer", ("consumer_mib_per_s", "consumer_records_per_s")),
        ):
            source = (
                topic
                if own and any(_number(capacity.loc[topic, c]) is not None for c in columns)
                else "*"
            )
            limits = {
                "mib_in": _number(capacity.loc[source, columns[0]]),
                "records_in": _number(capacity.loc[source, columns[1]]),
                "mib_out": _number(capacity.loc[source, columns[0]])
                if side == "consumer"
                else None,
            }
            for dim, limit in limits.items():
                target = row[f"{dim}_target_per_s"]
                stated = row[f"{dim}_{side}_partitions"]
                if limit is None or target is None or np.isnan(target):
                    assert stated is None or np.isnan(stated), (topic, dim, side)
                    continue
                assert int(stated) in _ceil(float(target), limit), (topic, dim, side)
                checked_rules += 1
        required = int(row["required_partitions"])
        recommended = int(row["recommended_partitions"])
        assert recommended >= required, topic
        if row["current_partitions"] is not None and not np.isnan(row["current_partitions"]):
            assert recommended >= int(row["current_partitions"]), topic
        assert published[topic]["recommended_partitions"] == recommended, topic
    # Most of the 40 topics are planned and most take their capacity from capacity.csv.
    assert checked_peaks >= 90 and checked_rules >= 150, (checked_peaks, checked_rules)
