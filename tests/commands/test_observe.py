"""`partition-planner observe`: its refusals and its health check (sampling itself is
`tests/observe/test_live.py`, on a real Kafka)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from planner.cli import main
from planner.observe.dataset import ObservationsDataset
from tests.observe.synthetic import PaperTopic, write_samples


def _config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "planner.toml"
    path.write_text(body)
    return path


def test_without_a_cluster_or_a_folder_it_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["observe", "--config", str(_config(tmp_path, ""))]) == 2
    assert "[sources.kafka] bootstrap is not set" in capsys.readouterr().err
    config = _config(tmp_path, '[sources.kafka]\nbootstrap = "k:9092"\n')
    assert main(["observe", "--config", str(config)]) == 2
    assert "no observations folder" in capsys.readouterr().err


def test_status_is_healthy_while_samples_are_young(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    obs = tmp_path / "obs"
    config = _config(
        tmp_path,
        f'[sources.kafka]\nbootstrap = "k:9092"\nobservations = "{obs}"\nobserve_every_s = 60\n',
    )
    assert main(["observe", "--config", str(config), "--status"]) == 1
    assert "no sample in" in capsys.readouterr().out
    now = datetime.now(UTC).replace(microsecond=0)
    topic = PaperTopic("orders", 1, rate=1.0)
    write_samples(ObservationsDataset(obs), [topic], [], [now - timedelta(minutes=5)], every_s=60)
    assert main(["observe", "--config", str(config), "--status"]) == 1  # 5 min: past 3 periods
    assert " s ago" in capsys.readouterr().out
    write_samples(ObservationsDataset(obs), [topic], [], [now - timedelta(seconds=30)], every_s=60)
    assert main(["observe", "--config", str(config), "--status"]) == 0
