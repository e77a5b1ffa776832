"""The planner config file: defaults, relative paths, secrets from the environment, errors."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from planner.collect.landing import LandingSource
from planner.collect.prometheus import PrometheusSource
from planner.collect.sources import build_sources
from planner.config import ConfigError, load_config


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "planner.toml"
    path.write_text(text)
    return path


def test_no_file_means_the_defaults() -> None:
    config = load_config(None)
    assert config.sources == ("landing",)
    assert config.planning.headroom_pct == 30
    assert config.spark_master == "local[2]"
    assert config.store_url.startswith("sqlite:///")


def test_a_full_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _config(
        tmp_path,
        """
[figures]
root = "data/figures"
history_days = 14

[sources]
use = ["landing", "prometheus"]

[sources.landing]
path = "in"

[sources.prometheus]
url = "http://127.0.0.1:9090"
step_s = 1800
settle_s = 300
token_env = "TEST_PROM_TOKEN"
[sources.prometheus.queries]
bytes_out_per_s = ""

[planning]
headroom_pct = 25
horizon_days = 90
partition_grid = [6, 12]
min_group_members = 3
[planning.share]
max_record_locks = 4000
lock_duration_s = 15

[spark]
master = "spark://127.0.0.1:7077"
[spark.conf]
"spark.sql.shuffle.partitions" = 8

[store]
url = "postgresql+psycopg://planner@db/planner"

[report]
dir = "/srv/report"
""",
    )
    monkeypatch.setenv("TEST_PROM_TOKEN", "s3cret")
    config = load_config(path)
    assert config.figures_root == tmp_path / "data" / "figures"
    assert config.history_days == 14
    assert config.planning.headroom_pct == 25
    assert config.planning.partition_grid == (6, 12)
    assert config.planning.min_group_members == 3
    # The share model's broker and client settings; the rest keep Kafka's defaults.
    share = config.planning.share
    assert (share.max_record_locks, share.lock_duration_s, share.records_per_poll) == (
        4000,
        15,
        500,
    )
    assert config.spark_conf == {"spark.sql.shuffle.partitions": "8"}
    assert config.report_dir == Path("/srv/report")
    landing, prometheus = build_sources(config)
    assert isinstance(landing, LandingSource) and landing.root == tmp_path / "in"
    assert isinstance(prometheus, PrometheusSource)
    assert prometheus.step == timedelta(minutes=30)
    assert prometheus.settle == timedelta(minutes=5)
    assert "s3cret" not in repr(prometheus)
    assert "s3cret" not in path.read_text()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[figures\n", "not valid TOML"),
        ("[reports]\n", "unknown key"),
        ("[planning]\nheadroom = 30\n", r"\[planning\]: unknown key\(s\) headroom"),
        ("[planning]\nheadroom_pct = 120\n", "headroom_pct must be in"),
        ("[planning]\nmin_group_members = 0\n", r"\[planning\]: min_group_members must be 1"),
        (
            "[planning.share]\nmax_group_size = 300\n",
            r"\[planning.share\]: unknown key\(s\) max_group_size",
        ),
        (
            "[planning.share]\nmax_record_locks = 0\n",
            r"\[planning.share\]: max_record_locks must be a whole number of at least 1",
        ),
        ("[planning]\nshare = 3\n", r"\[planning\]: \[share\] must be a table"),
        ('[sources]\nuse = ["s3"]\n', "use: a non-empty list"),
        ('[sources]\nuse = ["prometheus"]\n', r"\[sources.prometheus\] is missing"),
        ("[figures]\nhistory_days = -1\n", "history_days"),
    ],
)
def test_bad_files_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(_config(tmp_path, text))


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(tmp_path / "nope.toml")


def test_the_share_of_bad_rows_a_run_sets_aside_is_configurable(tmp_path: Path) -> None:
    assert load_config(None).max_bad_row_share == 0.2
    path = _config(tmp_path, "[validation]\nmax_bad_row_share = 0.05\n")
    assert load_config(path).max_bad_row_share == 0.05
    for bad in ("1.5", "-0.1", '"a fifth"', "true"):
        with pytest.raises(ConfigError, match=r"\[validation\] max_bad_row_share"):
            load_config(_config(tmp_path, f"[validation]\nmax_bad_row_share = {bad}\n"))
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(_config(tmp_path, "[validation]\nmax_bad_rows = 3\n"))


def test_the_share_of_newly_unsized_topics_a_publish_allows_is_configurable(
    tmp_path: Path,
) -> None:
    assert load_config(None).max_new_unsized_share == 0.1
    path = _config(tmp_path, "[publish]\nmax_new_unsized_share = 0.25\n")
    assert load_config(path).max_new_unsized_share == 0.25
    for bad in ("1.5", "-0.1", '"a tenth"', "true"):
        with pytest.raises(ConfigError, match=r"\[publish\] max_new_unsized_share: a number"):
            load_config(_config(tmp_path, f"[publish]\nmax_new_unsized_share = {bad}\n"))
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(_config(tmp_path, "[publish]\nmax_unsized = 3\n"))


def test_the_kafka_source_s_group_tool_settings(tmp_path: Path) -> None:
    from planner.collect.kafka_admin import KafkaAdminSource

    path = _config(
        tmp_path,
        """
[sources]
use = ["kafka"]
[sources.kafka]
bootstrap = "b:9092"
group_tools = false
kafka_home = "/opt/kafka"
group_tools_command_config = "/etc/planner/admin.properties"
""",
    )
    [kafka] = build_sources(load_config(path))
    assert isinstance(kafka, KafkaAdminSource)
    assert kafka.group_tools is False
    assert kafka.kafka_home == Path("/opt/kafka")
    assert kafka.tools_config == Path("/etc/planner/admin.properties")
    bad = _config(
        tmp_path,
        '[sources]\nuse = ["kafka"]\n[sources.kafka]\nbootstrap = "b"\ngroup_tools = "no"\n',
    )
    with pytest.raises(ConfigError, match="group_tools must be true or false"):
        build_sources(load_config(bad))


def test_the_observation_settings_and_the_source_they_choose(tmp_path: Path) -> None:
    from planner.collect.kafka_admin import KafkaAdminSource
    from planner.collect.observations import ObservationsSource
    from planner.config import observe_settings

    path = tmp_path / "planner.toml"
    path.write_text(
        '[sources]\nuse = ["kafka"]\n[sources.kafka]\nbootstrap = "k:9092"\n'
        'observations = "obs"\nobserve_every_s = 10\nmin_coverage = 0.5\nstep_s = 600\n'
        "commit_interval_s = 1\n"
    )
    config = load_config(path)
    settings = observe_settings(config)
    assert settings.observations == tmp_path / "obs"
    assert (settings.observe_every_s, settings.min_coverage, settings.step_s) == (10, 0.5, 600)
    assert settings.retention_days == 35 and settings.key_sample_size == 1000
    assert settings.commit_interval_s == 1.0
    (source,) = build_sources(config)
    assert isinstance(source, ObservationsSource)
    path.write_text('[sources]\nuse = ["kafka"]\n[sources.kafka]\nbootstrap = "k:9092"\n')
    (source,) = build_sources(load_config(path))
    assert isinstance(source, KafkaAdminSource)
    for bad, why in (
        ("min_coverage = 1.5", "min_coverage must be from 0 to 1"),
        ("observe_every_s = 0", "observe_every_s must be a number of seconds above zero"),
        ("step_s = 5", "step_s .5. must be at least observe_every_s"),
        ("commit_interval_s = 0", "commit_interval_s must be a number of seconds above zero"),
        ('commit_interval_s = "5s"', "commit_interval_s: a number"),
        ('retention_days = "a week"', "retention_days: a number"),
        ("key_sample_size = 10.5", "key_sample_size: a whole number"),
    ):
        path.write_text(f'[sources.kafka]\nbootstrap = "k:9092"\n{bad}\n')
        with pytest.raises(ConfigError, match=why):
            observe_settings(load_config(path))


def test_the_consumers_metrics_ride_on_the_prometheus_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planner.collect.observations import ObservationsSource

    monkeypatch.setenv("PROM_TOKEN", "s3cret")
    path = tmp_path / "planner.toml"
    kafka = '[sources.kafka]\nbootstrap = "k:9092"\nobservations = "obs"\n'
    path.write_text(
        f'[sources]\nuse = ["kafka"]\n{kafka}'
        '[sources.prometheus]\nurl = "http://prom:9090/"\ntoken_env = "PROM_TOKEN"\n'
        '[sources.prometheus.consumer_metrics]\nnaming = "micrometer"\nmin_busy = 0.1\n'
        'poll_idle_ratio = "my_idle"\n'
    )
    # Prometheus is not a throughput source here: only the observations read it.
    (source,) = build_sources(load_config(path))
    assert isinstance(source, ObservationsSource)
    metrics = source.consumer_metrics
    assert metrics is not None and metrics.url == "http://prom:9090"
    assert metrics.settings.query("poll_idle_ratio") == "my_idle"
    assert metrics.settings.query("records_consumed_rate").startswith("sum without (topic)")
    assert metrics.settings.min_busy == 0.1
    path.write_text(f'[sources]\nuse = ["kafka"]\n{kafka}')
    (source,) = build_sources(load_config(path))
    assert isinstance(source, ObservationsSource) and source.consumer_metrics is None
    for bad, why in (
        ('url = "http://p"\n[sources.prometheus.consumer_metrics]\nnamin = "x"\n', "namin"),
        ('url = "http://p"\n[sources.prometheus.consumer_metrics]\nnaming = "x"\n', "naming"),
        ('[sources.prometheus.consumer_metrics]\nnaming = "micrometer"\n', "url"),
        ('url = "http://p"\n[sources.prometheus.consumer_metrics]\nmin_busy = 2\n', "min_busy"),
    ):
        path.write_text(f'[sources]\nuse = ["kafka"]\n{kafka}[sources.prometheus]\n{bad}')
        with pytest.raises(ConfigError, match=why):
            build_sources(load_config(path))


def test_the_cross_zone_price_has_no_default_and_must_be_a_price(tmp_path: Path) -> None:
    path = tmp_path / "planner.toml"
    path.write_text("[planning]\nheadroom_pct = 30\n")
    assert load_config(path).planning.cross_zone_price_per_gib is None
    path.write_text("[planning]\ncross_zone_price_per_gib = 0.02\n")
    assert load_config(path).planning.cross_zone_price_per_gib == 0.02
    for bad in ("-0.01", '"0.02"', "nan"):
        path.write_text(f"[planning]\ncross_zone_price_per_gib = {bad}\n")
        with pytest.raises(ConfigError, match="cross_zone_price_per_gib"):
            load_config(path)


_PROMETHEUS = '[sources]\nuse = ["prometheus"]\n[sources.prometheus]\nurl = "http://prom:9090"\n'


def test_a_lag_exporter_preset_with_overrides_reaches_the_prometheus_source(
    tmp_path: Path,
) -> None:
    text = (
        _PROMETHEUS
        + 'consumer_groups = "kminion"\ngroup_sample_s = 15\n'
        + '[sources.prometheus.group_queries]\nowners = ""\n'
        + '[sources.prometheus.group_labels]\ngroup = "consumer_group"\n'
    )
    (source,) = build_sources(load_config(_config(tmp_path, text)))
    assert isinstance(source, PrometheusSource) and source.group_offsets is not None
    reading = source.group_offsets
    assert reading.sample_s == 15 and reading.queries.exporter == "kminion"
    assert reading.queries.owners is None and reading.queries.group == "consumer_group"
    assert reading.queries.end.startswith("max by (topic_name, partition_id)")
    (plain,) = build_sources(load_config(_config(tmp_path, _PROMETHEUS)))
    assert isinstance(plain, PrometheusSource) and plain.group_offsets is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('consumer_groups = "burrow"\n', "'burrow': not an exporter preset"),
        ("group_sample_s = 30\n", "group_sample_s without consumer_groups"),
        ('consumer_group = "kminion"\n', r"unknown key\(s\) consumer_group"),
        (
            'consumer_groups = "kafka_exporter"\n[sources.prometheus.group_queries]\nlag = "x"\n',
            "query.*lag unknown",
        ),
        ('consumer_groups = "custom"\n', "custom consumer group reading needs committed"),
    ],
)
def test_bad_lag_exporter_settings_are_refused(tmp_path: Path, extra: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_sources(load_config(_config(tmp_path, _PROMETHEUS + extra)))
