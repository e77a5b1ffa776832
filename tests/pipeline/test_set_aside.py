"""The set-aside list: its words, its file, its counts (no Spark)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.figures.set_aside import (
    FILE,
    STATUS,
    SetAside,
    SetAsideTopic,
    load_set_aside,
    replicas_reason,
    save_set_aside,
)
from planner.pipeline.state import clear_stages

SET_ASIDE = SetAside(
    run_key="20261121T0000Z",
    topics=(
        SetAsideTopic("audit.log", replicas_reason(3, 4), ("topics.input: between",), 1),
        SetAsideTopic("clicks", "throughput.input: ...: bytes_in_per_s = nan", ("t",), 3),
    ),
    groups=("mixed",),
    dropped=("bad topic!",),
    bad_rows={"topics": 1, "throughput": 5},
    unnamed_rows={"throughput": 2, "topics": 0},
    rows={"topics": 6, "throughput": 720},
)


def test_too_many_replicas_reads_as_a_broker_missing_not_a_bad_topic() -> None:
    assert replicas_reason(3, 4) == (
        "3 brokers listed, the topic has 4 replicas: a broker down or missing from the figures?"
    )
    assert replicas_reason(1, 3).startswith("1 broker listed, the topic has 3 replicas")


def test_the_file_round_trips_and_is_replaced_whole(tmp_path: Path) -> None:
    path = save_set_aside(tmp_path / "runs" / "k", SET_ASIDE)
    assert path.name == FILE
    assert load_set_aside(path) == SET_ASIDE
    document = json.loads(path.read_text())
    assert document["status"] == STATUS == "invalid-figures"
    assert not [p for p in path.parent.iterdir() if p.name != FILE]  # no temporary left
    save_set_aside(path.parent, SetAside("20261121T0000Z"))
    assert load_set_aside(path).empty


def test_what_the_jobs_leave_out_and_what_the_run_record_counts() -> None:
    assert SET_ASIDE.names == {"audit.log", "clicks", "bad topic!"}
    assert SET_ASIDE.summary() == {
        "topics": 2,
        "groups": 1,
        "bad_rows": {"topics": 1, "throughput": 5},
        "unnamed_rows": {"throughput": 2},
        "set_aside": ["audit.log", "clicks"],
    }
    message = SET_ASIDE.message()
    assert message.splitlines()[0] == (
        "2 topics set aside (row-level rules; every other topic is planned):"
    )
    assert "  - audit.log: 3 brokers listed, the topic has 4 replicas" in message
    assert "consumer groups set aside whole: 'mixed'" in message
    assert "rows naming no legal topic, dropped: throughput 2" in message
    assert SetAside("k").message() == "nothing set aside"


def test_a_missing_or_foreign_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_set_aside(tmp_path / FILE)
    (tmp_path / FILE).write_text("[]")
    with pytest.raises(ValueError, match="not a set-aside document"):
        load_set_aside(tmp_path / FILE)


def test_a_new_attempt_of_a_run_forgets_what_the_last_one_set_aside(tmp_path: Path) -> None:
    save_set_aside(tmp_path, SET_ASIDE)
    clear_stages(tmp_path)
    assert not (tmp_path / FILE).exists()
