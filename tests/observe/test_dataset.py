"""The observations dataset: whole samples, compaction, retention, one writer, kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pytest

from planner.observe.dataset import ObservationsDataset, ObserverRunning
from planner.observe.tables import TABLES, sample_rows

ROOT = Path(__file__).resolve().parents[2]
DAY = datetime(2026, 11, 26, tzinfo=UTC)


def _sample(ts: datetime, offset: int) -> dict[str, pa.Table]:
    return {
        "sample": sample_rows("sample", ts, observer=["test"], every_s=[60.0], topics=[1]),
        "partitions": sample_rows(
            "partitions",
            ts,
            topic=["orders", "orders"],
            partition=[0, 1],
            end_offset=[offset, 2 * offset],
            leader=[1, 1],
        ),
    }


def test_a_sample_is_read_whole_with_every_table_in_its_schema(tmp_path: Path) -> None:
    data = ObservationsDataset(tmp_path)
    for minute in range(3):
        data.append(
            DAY + timedelta(minutes=minute), _sample(DAY + timedelta(minutes=minute), minute)
        )
    rows = data.read("partitions", DAY, DAY + timedelta(days=1))
    assert rows.column("end_offset").to_pylist() == [0, 0, 1, 2, 2, 4]
    assert data.read("groups", DAY, DAY + timedelta(days=1)).schema.equals(TABLES["groups"])
    assert data.sample_times(DAY + timedelta(minutes=1), DAY + timedelta(minutes=2)) == [
        DAY + timedelta(minutes=1)
    ]


def test_a_sample_without_its_sample_row_or_with_an_unknown_table_is_refused(
    tmp_path: Path,
) -> None:
    data = ObservationsDataset(tmp_path)
    with pytest.raises(ValueError, match="one `sample` row"):
        data.append(DAY, {"partitions": _sample(DAY, 1)["partitions"]})
    with pytest.raises(ValueError, match="unknown observation table"):
        data.append(DAY, {**_sample(DAY, 1), "lag": pa.table({"x": [1]})})
    assert data.days() == [] or data.read("sample", DAY, DAY + timedelta(days=1)).num_rows == 0


def test_a_closed_day_is_compacted_and_reads_the_same(tmp_path: Path) -> None:
    data = ObservationsDataset(tmp_path)
    for minute in range(0, 24 * 60, 90):
        data.append(
            DAY + timedelta(minutes=minute), _sample(DAY + timedelta(minutes=minute), minute)
        )
    end = DAY + timedelta(days=1)
    before = {name: data.read(name, DAY, end) for name in TABLES}
    assert data.compact(DAY.date())
    folder = tmp_path / "day=2026-11-26"
    assert sorted(p.name for p in folder.iterdir()) == ["compacted"]
    after = {name: data.read(name, DAY, end) for name in TABLES}
    assert all(after[n].equals(before[n]) for n in TABLES)
    # A part of the day reads only its samples.
    part = data.read("sample", DAY + timedelta(hours=3), DAY + timedelta(hours=6))
    assert part.num_rows == 2
    assert not data.compact(DAY.date())  # once


def test_days_past_the_retention_go_and_the_rest_stay(tmp_path: Path) -> None:
    data = ObservationsDataset(tmp_path)
    for back in range(5):
        ts = DAY - timedelta(days=back)
        data.append(ts, _sample(ts, back))
    # A day goes once it ended more than three days ago: the 22nd ended on the 23rd at
    # 00:00, more than 3 days before the 26th at 01:00; the 23rd ended less than that.
    removed = data.prune(keep_days=3, now=DAY + timedelta(hours=1))
    assert removed == [date(2026, 11, 22)]
    assert data.days() == [date(2026, 11, d) for d in (23, 24, 25, 26)]


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    data = ObservationsDataset(tmp_path)
    with (
        data.writer(),
        pytest.raises(ObserverRunning, match="another observer"),
        ObservationsDataset(tmp_path).writer(),
    ):
        pass
    with data.writer():  # released when the first left
        pass


_WRITER = textwrap.dedent(
    """
    import sys, time
    from datetime import UTC, datetime, timedelta
    import planner.observe.dataset as dataset
    from planner.observe.dataset import ObservationsDataset
    from planner.observe.tables import sample_rows

    stall_at = int(sys.argv[2])
    write = dataset._write_parquet_synced
    written = []

    def stalling(table, path):
        write(table, path)
        written.append(path)
        if len(written) == stall_at:
            print("mid-write", flush=True)
            time.sleep(600)

    dataset._write_parquet_synced = stalling
    data = ObservationsDataset(sys.argv[1])
    start = datetime(2026, 11, 26, tzinfo=UTC)
    rows = 20_000
    with data.writer():
        for i in range(100_000):
            ts = start + timedelta(seconds=i)
            data.append(ts, {
                "sample": sample_rows("sample", ts, observer=["child"], every_s=[1.0]),
                "partitions": sample_rows(
                    "partitions", ts, topic=["t"] * rows, partition=list(range(rows)),
                    end_offset=[i] * rows, leader=[1] * rows,
                ),
            })
            print(i, flush=True)
    """
)


def _writer(folder: Path, stall_at: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(folder), str(stall_at)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_a_writer_killed_in_the_middle_of_a_sample_leaves_the_others_whole(
    tmp_path: Path,
) -> None:
    # Killed after the third file of its sixth sample (five whole samples written).
    per_sample = len(TABLES)
    child = _writer(tmp_path, 5 * per_sample + 3)
    assert child.stdout is not None
    while child.stdout.readline().strip() != "mid-write":
        pass
    child.send_signal(signal.SIGKILL)
    child.wait()
    data = ObservationsDataset(tmp_path)
    end = DAY + timedelta(days=1)
    folder = tmp_path / "day=2026-11-26"
    assert [p for p in folder.iterdir() if p.name.startswith(".")]  # the sample in flight
    assert data.read("sample", DAY, end).num_rows == 5
    assert data.read("partitions", DAY, end).num_rows == 5 * 20_000
    with data.writer():  # the next observer removes what the killed one left
        pass
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    assert data.read("partitions", DAY, end).column("end_offset").to_pylist()[-1] == 4


def test_a_writer_killed_at_any_moment_loses_only_the_sample_in_flight(tmp_path: Path) -> None:
    # SIGKILL at several moments of a writer that does nothing but append: every sample
    # on disk reads whole, and the next writer clears what was in flight.
    for attempt in range(3):
        child = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(tmp_path), "0"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert child.stdout is not None
        for _ in range(3 + attempt):
            child.stdout.readline()
        time.sleep(0.013 * (attempt + 1))
        child.send_signal(signal.SIGKILL)
        child.wait()
    data = ObservationsDataset(tmp_path)
    end = DAY + timedelta(days=1)
    samples = data.read("sample", DAY, end)
    partitions = data.read("partitions", DAY, end)
    assert samples.num_rows >= 3
    # Every sample that is there has its whole partitions table, no more, no less.
    assert partitions.num_rows == samples.num_rows * 20_000
    with data.writer():  # the next observer removes what the killed ones left
        pass
    folder = tmp_path / "day=2026-11-26"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    assert data.read("partitions", DAY, end).num_rows == partitions.num_rows
