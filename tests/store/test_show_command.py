"""`partition-planner show TOPIC`: the store's latest recommendation in the terminal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from planner.cli import main
from planner.store import RecommendationStore, sqlite_url
from tests.store.conftest import run_for


def test_show_prints_the_latest_published_recommendation(
    tmp_path: Any, example_row: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    url = sqlite_url(tmp_path / "store.db")
    store = RecommendationStore(url)
    store.publish_run(run_for("2026-11-20"), [example_row])
    newer = dict(example_row, recommended_partitions=example_row["recommended_partitions"] + 6)
    store.publish_run(run_for("2026-11-21"), [newer])
    topic = example_row["topic"]

    assert main(["show", topic, "--store", url]) == 0
    out = capsys.readouterr().out
    assert topic in out
    assert str(newer["recommended_partitions"]) in out

    assert main(["show", topic, "--store", url, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["recommended_partitions"] == newer["recommended_partitions"]

    assert main(["show", "no.such.topic", "--store", url]) == 1
    assert "no published recommendation" in capsys.readouterr().err
