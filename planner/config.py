"""The planner config file (TOML): where figures come from, where results go, how to plan.

Every key has a default, so an empty file (or none) is a working configuration that
reads a landing folder and writes under `./var/`. Secrets never live in the file: a
source names the environment variable that holds them (`token_env`, `config_env`), and
Airflow fills those from its connections. Relative paths are relative to the file.

    [figures]
    root = "var/figures"          # the canonical figures dataset
    history_days = 30             # history the growth fit reads (collected if missing)

    [sources]
    use = ["landing"]             # in priority order: landing, prometheus, kafka

    [sources.landing]
    path = "var/landing"

    [sources.prometheus]
    url = "http://prometheus:9090"
    step_s = 3600                            # one sample per step, labelled by its start
    settle_s = 60                            # a window counts once it ended this long ago
    timeout_s = 30                           # per HTTP request; attempts = 4 with backoff
    token_env = "PLANNER_PROMETHEUS_TOKEN"   # optional bearer token (or user_env/password_env)
    [sources.prometheus.queries]             # optional PromQL overrides per column ($step)
    # consumer_groups = "kafka_exporter"     # optional: groups' capacity and lag from a lag
    #                                        # exporter (kminion, kafka-lag-exporter, custom)
    # group_sample_s = 60                    # seconds between offset points (scrape interval)
    # [sources.prometheus.group_queries]     # committed, end, owners PromQL overrides
    # [sources.prometheus.group_labels]      # group, topic, partition label names
    [sources.prometheus.consumer_metrics]    # optional: the consumers' own metrics, read
    naming = "jmx-exporter"                  # with the kafka observations for each group's
                                             # busy-fraction Tc ("micrometer": its names);
                                             # records_consumed_rate, poll_idle_ratio: PromQL
                                             # overrides; client_label = "client_id"

    [sources.kafka]
    bootstrap = "kafka:9092"
    sample_window_s = 10                     # end offsets read twice this far apart
    config_env = "PLANNER_KAFKA_CONFIG"      # optional JSON of librdkafka settings (SASL...)
    observations = "var/observations"        # optional: collect from what `observe` recorded
    observe_every_s = 60                     # the observer's sampling period
    retention_days = 35                      # days of observations kept
    key_sample_size = 1000                   # keyed records per topic and day (hashes only)
    min_coverage = 0.8                       # share of an interval observed to plan from it
    step_s = 3600                            # one throughput window collected per step

    [planning]                    # planner.recommend.PlanSettings fields
    headroom_pct = 30
    horizon_days = 180
    min_group_members = 2         # fewest members recommended per consumer group
    # cross_zone_price_per_gib = 0.01  # no default: your price per GiB fetched across zones
    [planning.share]              # share groups (KIP-932); Kafka 4.4.0's defaults
    max_record_locks = 2000       # the brokers' group.share.partition.max.record.locks
    records_per_poll = 500        # the members' max.poll.records
    lock_duration_s = 30          # the brokers' group.share.record.lock.duration.ms / 1000

    [spark]
    master = "local[2]"
    [spark.conf]                  # any Spark setting
    "spark.sql.shuffle.partitions" = "4"

    [store]
    url = "sqlite:///var/store.db"

    [report]
    dir = "var/report"

    [work]
    dir = "var/work"              # the Spark jobs' datasets and each run's validation results

    [validation]
    max_bad_row_share = 0.2       # past this share of a table's rows (or of the topics)
                                  # bad (breaking row-level rules, or refused at
                                  # collection for a value that does not parse), the run
                                  # stops instead of setting their topics aside

    [publish]
    max_new_unsized_share = 0.1   # past this share of the run's topics left newly
                                  # unsized (no partition count: missing-capacity,
                                  # no-figures, unknown-topic, error, invalid-figures;
                                  # sized or absent in the last good run; on a first run,
                                  # unsized at all), the run is held: nothing published
                                  # unless accepted (plan --accept-degraded, the DAG's
                                  # accept_degraded); see planner.guard
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.guard import DEFAULT_MAX_NEW_UNSIZED_SHARE
from planner.observe.settings import ObserveSettings
from planner.recommend.share import ShareLimits
from planner.recommend.types import PlanSettings

__all__ = [
    "ConfigError",
    "PlannerConfig",
    "load_config",
    "observe_settings",
    "refuse_unknown_keys",
]

_SOURCE_NAMES = ("landing", "prometheus", "kafka")
_SECTIONS = (
    "figures",
    "sources",
    "planning",
    "spark",
    "store",
    "report",
    "work",
    "validation",
    "publish",
)


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class PlannerConfig:
    """The planner's configuration, defaults filled in.

    Attributes:
        path: The file it was read from (None for the defaults).
        figures_root: The canonical figures dataset folder.
        history_days: Days of throughput history to plan on.
        sources: Source names in priority order.
        source_settings: Each source's section.
        planning: Planning settings.
        spark_master: Spark master URL.
        spark_conf: Extra Spark settings.
        store_url: SQLAlchemy URL of the recommendation store.
        report_dir: Where the report site is published (a symbolic link to its release).
        work_dir: The Spark jobs' datasets (`datasets/`) and each run's validation
            results (`runs/`).
        max_bad_row_share: The share (0..1) of an input table's rows, or of the run's
            topics, that row-level failures may set aside before the run stops instead.
        max_new_unsized_share: The share (0..1) of a fleet run's topics that may be
            newly unsized (`planner.guard`) before the run is held instead of published.
        secrets: Secrets handed over in memory by the deployment (Airflow connections,
            `planner.pipeline.connections`), never read from the file:
            `prometheus_bearer_token`, `kafka_config` (librdkafka settings). They win
            over the environment variables the file names.
    """

    path: Path | None = None
    figures_root: Path = Path("var/figures")
    history_days: int = 30
    sources: tuple[str, ...] = ("landing",)
    source_settings: Mapping[str, Mapping[str, Any]] = field(
        default_factory=lambda: {"landing": {"path": "var/landing"}}
    )
    planning: PlanSettings = field(default_factory=PlanSettings)
    spark_master: str = "local[2]"
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    store_url: str = "sqlite:///var/store.db"
    report_dir: Path = Path("var/report")
    work_dir: Path = Path("var/work")
    max_bad_row_share: float = 0.2
    max_new_unsized_share: float = DEFAULT_MAX_NEW_UNSIZED_SHARE
    secrets: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def resolve(self, value: str | Path) -> Path:
        """A path from the file, relative to the file's folder."""
        path = Path(value)
        if path.is_absolute() or self.path is None:
            return path
        return self.path.parent / path


def _table(doc: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: [{key}] must be a table")
    return value


def refuse_unknown_keys(section: Mapping[str, Any], allowed: set[str], where: str) -> None:
    """Raise `ConfigError` naming the keys of `section` not in `allowed` (`where` says where)."""
    extra = sorted(set(section) - allowed)
    if extra:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(extra)} (known: {sorted(allowed)})")


def load_config(path: str | Path | None = None) -> PlannerConfig:
    """Read a config file (None: the defaults).

    Raises:
        ConfigError: unreadable TOML, an unknown section or key, or a bad value.
    """
    if path is None:
        return PlannerConfig()
    file = Path(path)
    try:
        doc = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the config file: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    refuse_unknown_keys(doc, set(_SECTIONS), str(file))
    figures = _table(doc, "figures", str(file))
    refuse_unknown_keys(figures, {"root", "history_days"}, f"{file} [figures]")
    sources = _table(doc, "sources", str(file))
    use = sources.get("use", ["landing"])
    if not isinstance(use, list) or not use or any(u not in _SOURCE_NAMES for u in use):
        raise ConfigError(
            f"{file} [sources] use: a non-empty list of {', '.join(_SOURCE_NAMES)}, got {use!r}"
        )
    refuse_unknown_keys(sources, {"use", *_SOURCE_NAMES}, f"{file} [sources]")
    settings = {name: _table(sources, name, f"{file} [sources]") for name in _SOURCE_NAMES}
    for name in use:
        if name != "landing" and not settings[name]:
            raise ConfigError(f"{file}: source {name!r} is used but [sources.{name}] is missing")
    settings.setdefault("landing", {})
    settings["landing"].setdefault("path", "var/landing")
    planning_doc = _table(doc, "planning", str(file))
    share_doc = _table(planning_doc, "share", f"{file} [planning]")
    planning_doc.pop("share", None)
    known = set(PlanSettings.config_keys())
    refuse_unknown_keys(planning_doc, known, f"{file} [planning]")
    refuse_unknown_keys(share_doc, set(ShareLimits.config_keys()), f"{file} [planning.share]")
    if "partition_grid" in planning_doc:
        planning_doc["partition_grid"] = tuple(planning_doc["partition_grid"])
    try:
        share_limits = ShareLimits(**share_doc)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{file} [planning.share]: {exc}") from None
    try:
        planning = PlanSettings(**planning_doc, share=share_limits)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{file} [planning]: {exc}") from None
    spark = _table(doc, "spark", str(file))
    refuse_unknown_keys(spark, {"master", "conf"}, f"{file} [spark]")
    store = _table(doc, "store", str(file))
    refuse_unknown_keys(store, {"url"}, f"{file} [store]")
    report = _table(doc, "report", str(file))
    refuse_unknown_keys(report, {"dir"}, f"{file} [report]")
    work = _table(doc, "work", str(file))
    refuse_unknown_keys(work, {"dir"}, f"{file} [work]")
    validation = _table(doc, "validation", str(file))
    refuse_unknown_keys(validation, {"max_bad_row_share"}, f"{file} [validation]")
    share = _share(validation, "max_bad_row_share", 0.2, f"{file} [validation]")
    publish = _table(doc, "publish", str(file))
    refuse_unknown_keys(publish, {"max_new_unsized_share"}, f"{file} [publish]")
    new_unsized = _share(
        publish, "max_new_unsized_share", DEFAULT_MAX_NEW_UNSIZED_SHARE, f"{file} [publish]"
    )
    history_days = figures.get("history_days", 30)
    if not isinstance(history_days, int) or history_days < 0:
        raise ConfigError(f"{file} [figures] history_days: a whole number >= 0")
    config = PlannerConfig(path=file)
    return PlannerConfig(
        path=file,
        figures_root=config.resolve(figures.get("root", "var/figures")),
        history_days=history_days,
        sources=tuple(use),
        source_settings=settings,
        planning=planning,
        spark_master=str(spark.get("master", "local[2]")),
        spark_conf={str(k): str(v) for k, v in _table(spark, "conf", str(file)).items()},
        store_url=str(store.get("url", "sqlite:///var/store.db")),
        report_dir=config.resolve(report.get("dir", "var/report")),
        work_dir=config.resolve(work.get("dir", "var/work")),
        max_bad_row_share=share,
        max_new_unsized_share=new_unsized,
    )


def _share(section: Mapping[str, Any], key: str, default: float, where: str) -> float:
    """A share (0..1) from `section`, or `default`."""
    value = section.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigError(f"{where} {key}: a number from 0 to 1")
    return float(value)


def observe_settings(config: PlannerConfig) -> ObserveSettings:
    """The observation settings of `[sources.kafka]` (defaults when absent).

    Raises:
        ConfigError: a value out of range or of the wrong type.
    """
    settings = config.source_settings.get("kafka", {})
    args: dict[str, Any] = {}
    for key in ObserveSettings.config_keys():
        if key not in settings:
            continue
        value = settings[key]
        if key == "observations":
            args[key] = config.resolve(str(value))
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"[sources.kafka] {key}: a number, got {value!r}")
        elif key in ("retention_days", "key_sample_size"):
            if not isinstance(value, int):
                raise ConfigError(f"[sources.kafka] {key}: a whole number, got {value!r}")
            args[key] = value
        else:
            args[key] = float(value)
    try:
        return ObserveSettings(**args)
    except ValueError as exc:
        raise ConfigError(f"[sources.kafka]: {exc}") from None
