"""Zero-rate rows for idle topics, written by the merge for windows a source covered.

The pieces are built in memory, as sources hand them over; the real Prometheus case
(a listed topic without series) is in test_prometheus.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pytest

from planner.collect.base import Collected
from planner.collect.idle import IDLE_LABEL
from planner.collect.run import merge
from planner.figures.conform import conform

T0 = datetime(2026, 11, 19, tzinfo=UTC)
PROM = "prometheus:http://prom:9090"
OBSERVED = "observations:/var/lib/planner/observations"


def _at(hour: int) -> datetime:
    return T0 + timedelta(hours=hour)


def _topics(*names: str) -> Collected:
    c = Collected()
    raw = pa.table(
        {
            "topic": list(names),
            "partitions": ["6"] * len(names),
            "replication_factor": ["3"] * len(names),
            "keyed": ["false"] * len(names),
        }
    )
    c.add("topics", conform("topics", raw, source="landing:topics.csv"))
    return c


def _samples(source: str, rows: Sequence[tuple[str, int, float]]) -> Collected:
    """Throughput rows (topic, hour, records/s; bytes are 100 per record, out twice in)."""
    c = Collected(source=source)
    raw = pa.table(
        {
            "topic": [t for t, _, _ in rows],
            "ts": pa.array([_at(h) for _, h, _ in rows], pa.timestamp("us", tz="UTC")),
            "bytes_in_per_s": [100 * r for _, _, r in rows],
            "records_in_per_s": [r for _, _, r in rows],
            "bytes_out_per_s": [200 * r for _, _, r in rows],
        }
    )
    c.add("throughput", conform("throughput", raw, source=source))
    return c


def _rows(collected: Sequence[Collected], topic: str) -> list[dict[str, Any]]:
    tables, _, _ = merge(collected)
    rows = [r for r in tables["throughput"].to_pylist() if r["topic"] == topic]
    return sorted(rows, key=lambda r: r["ts"])


def _hours(rows: Sequence[dict[str, Any]]) -> list[int]:
    return [int((r["ts"] - T0).total_seconds() // 3600) for r in rows]


def test_a_topic_without_any_sample_gets_a_zero_row_per_covered_window() -> None:
    prom = _samples(PROM, [("steady", h, 10.0) for h in range(6)])
    prom.covered = [_at(h) for h in range(6)]
    prom.covered_bytes_out = list(prom.covered)
    quiet = _rows([_topics("steady", "quiet"), prom], "quiet")
    assert _hours(quiet) == list(range(6))
    assert {(r["bytes_in_per_s"], r["records_in_per_s"], r["bytes_out_per_s"]) for r in quiet} == {
        (0.0, 0.0, 0.0)
    }
    assert {r["source"] for r in quiet} == {PROM + IDLE_LABEL}
    assert _hours(_rows([_topics("steady", "quiet"), prom], "steady")) == list(range(6))


def test_a_topic_first_seen_later_gets_zeros_only_from_its_first_sample() -> None:
    # `late` was perhaps created at hour 3: zeros before would read as growth.
    prom = _samples(PROM, [("steady", h, 10.0) for h in range(6)] + [("late", 3, 5.0)])
    prom.covered = [_at(h) for h in range(6)]
    late = _rows([_topics("steady", "late"), prom], "late")
    assert _hours(late) == [3, 4, 5]
    assert [r["records_in_per_s"] for r in late] == [5.0, 0.0, 0.0]
    _, _, notes = merge([_topics("steady", "late"), prom])
    (note,) = [n for n in notes if "covered window" in n]
    assert "1 topic(s) of the topics table had no sample in some (late)" in note
    assert "2 zero-rate row(s)" in note
    assert "3 without a sample of a topic came before that topic's first sample" in note


def test_a_row_from_any_source_beats_a_zero_and_the_first_covering_source_names_them() -> None:
    landing = _samples("landing:throughput.csv", [("quiet", 1, 7.0)])
    landing.source = ""  # landing files cover nothing and need no name
    prom = _samples(PROM, [("steady", h, 10.0) for h in range(3)])
    prom.covered = [_at(h) for h in range(3)]
    observed = Collected(source=OBSERVED, covered=[_at(h) for h in range(4)])
    quiet = _rows([_topics("steady", "quiet"), landing, prom, observed], "quiet")
    got = [
        (h, r["records_in_per_s"], r["source"]) for h, r in zip(_hours(quiet), quiet, strict=True)
    ]
    assert got == [
        (1, 7.0, "landing:throughput.csv"),
        (2, 0.0, PROM + IDLE_LABEL),
        (3, 0.0, OBSERVED + IDLE_LABEL),
    ]  # hour 0 comes before quiet's first sample, at 1


def test_a_topic_seen_without_a_row_is_not_taken_for_idle() -> None:
    prom = _samples(PROM, [("steady", h, 10.0) for h in range(3)])
    prom.covered = [_at(h) for h in range(3)]
    prom.withheld = {("quiet", _at(1))}  # e.g. its sample was rejected
    assert _hours(_rows([_topics("steady", "quiet"), prom], "quiet")) == [0, 2]


def test_bytes_out_is_zero_only_where_the_source_measured_bytes_out() -> None:
    prom = _samples(PROM, [("steady", h, 10.0) for h in range(2)])
    prom.covered = [_at(0), _at(1)]
    prom.covered_bytes_out = [_at(0)]
    quiet = _rows([_topics("steady", "quiet"), prom], "quiet")
    assert [r["bytes_out_per_s"] for r in quiet] == [0.0, None]


def test_windows_not_covered_get_nothing() -> None:
    prom = _samples(PROM, [("steady", h, 10.0) for h in range(4)])
    prom.covered = [_at(2)]  # e.g. Prometheus had no data at hours 0, 1 and 3
    assert _hours(_rows([_topics("steady", "quiet"), prom], "quiet")) == [2]
    assert _rows([_topics("steady", "quiet"), _samples(PROM, [])], "quiet") == []


def test_without_a_topics_table_nothing_is_added() -> None:
    prom = _samples(PROM, [("steady", 0, 10.0)])
    prom.covered = [_at(0)]
    tables, _, notes = merge([prom])
    assert tables["throughput"].num_rows == 1
    assert not [n for n in notes if "zero-rate" in n]


def test_covered_windows_must_name_their_source() -> None:
    nameless = Collected(covered=[_at(0)])
    with pytest.raises(ValueError, match="must name its source"):
        merge([_topics("quiet"), nameless])
