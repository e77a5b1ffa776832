"""The capacity estimate on runs given as values, without a perf tool's file.

`tests/adapters/test_perf_test.py` reads the tools' real output into runs and checks
the estimate on them; these check which line of a run the rule takes, alone.
"""

from __future__ import annotations

import pytest

from planner.partition_capacity import PerfRun, PerfTestError, partition_capacity


def _producer(source: str, window: str, mib: float, records: float) -> PerfRun:
    return PerfRun("producer", "t", 1000, records, mib, window, source, 1)  # type: ignore[arg-type]


def _consumer(source: str, *, mib: float, fetch_mib: float, fetch_records: float) -> PerfRun:
    return PerfRun(
        "consumer",
        "t",
        1000,
        fetch_records / 2,
        mib,
        "summary",
        source,
        2,
        rebalance_ms=3000,
        fetch_ms=1000,
        fetch_mib_per_s=fetch_mib,
        fetch_records_per_s=fetch_records,
    )


def test_a_steady_state_summary_stands_for_its_file_and_files_take_the_median() -> None:
    runs = [
        _producer("a.producer.txt", "summary", 10.0, 100.0),
        _producer("a.producer.txt", "steady-state", 12.0, 120.0),
        _producer("b.producer.txt", "summary", 20.0, 200.0),
        _producer("b.producer.txt", "detailed", 99.0, 990.0),
    ]
    capacity = partition_capacity(runs, "t")
    # a's warm-up is left out (12, not 10); b's window line is no run: median(12, 20).
    assert (capacity.tp_mib_per_s, capacity.tp_records_per_s) == (16.0, 160.0)
    assert capacity.producer_runs == 2 and capacity.tc_mib_per_s is None
    assert "producer: median of 2 runs" in capacity.notes


def test_tc_is_the_fetch_rate_without_the_group_join() -> None:
    run = _consumer("c.consumer.txt", mib=5.0, fetch_mib=8.0, fetch_records=800.0)
    capacity = partition_capacity([run], "t")
    assert (capacity.tc_mib_per_s, capacity.tc_records_per_s) == (8.0, 800.0)
    assert any("upper bound" in note for note in capacity.notes)


def test_runs_of_other_topics_do_not_count_and_none_left_is_an_error() -> None:
    run = _consumer("c.consumer.txt", mib=5.0, fetch_mib=8.0, fetch_records=800.0)
    with pytest.raises(PerfTestError, match="no perf-test runs for topic 'other'"):
        partition_capacity([run], "other")
