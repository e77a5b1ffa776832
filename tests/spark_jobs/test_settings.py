"""The jobs read the planner config file; what it leaves out keeps the jobs' defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_jobs.settings import JobSettings, SettingsError, SparkSettings, load_settings


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "planner.toml"
    path.write_text(text)
    return path


def test_no_file_gives_the_defaults_for_two_cores() -> None:
    settings = load_settings(None)
    assert settings == JobSettings()
    assert settings.lookback_days == 30
    assert settings.spark.master is None  # local[2] when run directly
    conf = settings.spark.spark_conf()
    assert conf["spark.sql.shuffle.partitions"] == "4"
    assert conf["spark.sql.session.timeZone"] == "UTC"
    assert conf["spark.sql.execution.arrow.pyspark.enabled"] == "true"
    assert conf["spark.ui.enabled"] == "false"


def test_the_planner_config_sets_the_window_planning_and_spark(tmp_path: Path) -> None:
    path = _config(
        tmp_path,
        """
[figures]
history_days = 21

[planning]
headroom_pct = 40
partition_grid = [12, 24]

[spark]
master = "spark://10.0.0.1:7077"

[spark.conf]
"spark.sql.shuffle.partitions" = "4"
"spark.driver.memory" = "3g"
"spark.executor.memory" = "2g"

[store]
url = "sqlite:///var/store.db"
""",
    )
    settings = load_settings(path)
    assert settings.lookback_days == 21
    assert settings.planning.headroom_pct == 40
    assert settings.planning.partition_grid == (12, 24)
    assert settings.spark == SparkSettings(
        master="spark://10.0.0.1:7077",
        shuffle_partitions=4,
        driver_memory="3g",
        conf={"spark.executor.memory": "2g"},
    )
    assert settings.spark.spark_conf()["spark.executor.memory"] == "2g"


def test_what_the_file_leaves_out_keeps_the_core_default_or_none(tmp_path: Path) -> None:
    # No grid beyond each topic's own candidates (the core's default), and a master only
    # when the file names one (else spark-submit's applies).
    settings = load_settings(_config(tmp_path, "[planning]\nhorizon_days = 90\n"))
    assert settings.planning.partition_grid == ()
    assert settings.spark.master is None
    assert settings.planning.horizon_days == 90


def test_the_command_line_overrides_the_file(tmp_path: Path) -> None:
    settings = load_settings(_config(tmp_path, '[spark]\nmaster = "local[1]"\n'))
    assert settings.with_overrides(master="local[2]", lookback_days=7).spark.master == "local[2]"
    assert settings.with_overrides(lookback_days=7).lookback_days == 7
    assert settings.with_overrides().spark.master == "local[1]"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[planning]\nheadrom_pct = 30\n", "headrom_pct"),
        ('[spark.conf]\n"spark.sql.shuffle.partitions" = "none"\n', "shuffle.partitions"),
        ("[planning\n", "not valid TOML"),
    ],
)
def test_a_bad_file_names_itself_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = _config(tmp_path, text)
    with pytest.raises(SettingsError) as caught:
        load_settings(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_the_jobs_refuse_a_bad_interval_and_a_bad_config_before_spark_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from spark_jobs import size_partitions

    args = ["--figures", str(tmp_path), "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as caught:
        size_partitions.main([*args, "--interval", "yesterday"])
    assert caught.value.code == 2
    assert "expected YYYY-MM-DD or START/END" in capsys.readouterr().err
    bad = _config(tmp_path, "[planning]\nheadrom_pct = 30\n")
    assert size_partitions.main([*args, "--interval", "2026-11-21", "--config", str(bad)]) == 1
    assert f"size_partitions: error: {bad}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_spark_submit_master_wins_over_the_configured_one() -> None:
    from spark_jobs.session import choose_master

    # Submitted: the builder leaves spark-submit's --master alone, whatever the file says.
    assert choose_master("spark://elsewhere:7077", submitted=True) is None
    assert choose_master(None, submitted=True) is None
    # Run directly: the file's master, else two local cores.
    assert choose_master("spark://cluster:7077", submitted=False) == "spark://cluster:7077"
    assert choose_master(None, submitted=False) == "local[2]"
