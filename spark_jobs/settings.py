"""The jobs' settings: planning (the core's `PlanSettings`), the data window, and Spark.

Read once into frozen objects that the jobs pass down; nothing below reads the
environment or a file. The file is the planner config (`planner.config`, one TOML file
for the whole pipeline); the jobs use these parts of it:

    [figures]
    history_days = 30             # history before the end of the run: peak and growth fit

    [planning]                    # planner.recommend.PlanSettings
    headroom_pct = 30
    horizon_days = 180
    partition_grid = [12, 24, 48] # counts simulated for every topic as well (none by default)

    [spark]
    master = "local[2]"           # for direct runs; under spark-submit its --master wins
    [spark.conf]                  # any Spark setting; these have typed defaults here:
    "spark.sql.shuffle.partitions" = "4"
    "spark.driver.memory" = "2g"
    "spark.driver.extraJavaOptions" = "-XX:TieredStopAtLevel=1 -XX:+UseParallelGC"
    "spark.sql.execution.arrow.maxRecordsPerBatch" = "10000"

Defaults suit the 2-core machines the project runs on; see docs/spark-jobs.md.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from planner.recommend import PlanSettings

__all__ = [
    "DEFAULT_JAVA_OPTIONS",
    "DEFAULT_MASTER",
    "JobSettings",
    "SettingsError",
    "SparkSettings",
    "load_settings",
]

#: The master used when neither the settings nor spark-submit name one.
DEFAULT_MASTER = "local[2]"
#: The driver JVM's options when the job starts it (see `SparkSettings`).
DEFAULT_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseParallelGC"


class SettingsError(ValueError):
    """A settings file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class SparkSettings:
    """How the jobs run on Spark.

    Attributes:
        master: Spark master URL for a job run directly (None: `local[2]`). Under
            spark-submit, its `--master` applies instead (`session.choose_master`).
        shuffle_partitions: `spark.sql.shuffle.partitions`. Two per core: the sizing
            job cuts its units by their planning cost (`spark_jobs.units`), so topics of
            very different cost (a keyed topic with a 100,000-key sample costs as much
            as a hundred keyless ones) even out without many tasks, and each further
            task and shuffle partition costs its own overhead (8 on two cores: about
            1.2 s more of the 10,000-topic run, with the same rows).
        driver_memory: `spark.driver.memory` (only effective when the job starts the
            JVM itself, i.e. not under spark-submit, which takes `--driver-memory`).
        driver_java_options: `spark.driver.extraJavaOptions` (as `driver_memory`: only
            when the job starts the JVM). The default keeps the JIT at its first tier
            (C1): a job of a minute or two spent about 40 of its 80 JVM CPU-seconds
            compiling with C2 on two cores, more than C2's faster code saved (measured
            on the 10,000-topic fleet: the bare job 30 -> 19 CPU-s, size_partitions'
            JVM 95 -> 76; with both jobs at about 30 s, C2 still cost 2-3 s). It also
            picks the parallel collector over G1, whose concurrent threads compete with
            the tasks for the two cores (both jobs in one application: 33.4 -> 31.1 s,
            mean of two runs each, 2026-11-24).
        arrow_batch_records: `spark.sql.execution.arrow.maxRecordsPerBatch`.
        simulation_files: Parquet files the topic grids of the `simulations` dataset
            are written as (topics hash-partitioned by name, so the split is
            deterministic), beside one file of the multi-topic groups' rows. Also the
            tasks that compute the grids.
        ui: Whether to start the Spark web UI.
        conf: Any other Spark settings, passed through.
    """

    master: str | None = None
    shuffle_partitions: int = 4
    driver_memory: str = "2g"
    driver_java_options: str = DEFAULT_JAVA_OPTIONS
    arrow_batch_records: int = 10_000
    simulation_files: int = 2
    ui: bool = False
    conf: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("shuffle_partitions", "arrow_batch_records", "simulation_files"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SettingsError(f"spark.{name} must be a whole number >= 1, got {value!r}")

    def spark_conf(self) -> dict[str, str]:
        """Every Spark setting these settings imply, as text (master excluded)."""
        conf = {
            "spark.sql.shuffle.partitions": str(self.shuffle_partitions),
            "spark.default.parallelism": str(self.shuffle_partitions),
            "spark.driver.memory": self.driver_memory,
            "spark.driver.extraJavaOptions": self.driver_java_options,
            "spark.sql.execution.arrow.pyspark.enabled": "true",
            "spark.sql.execution.arrow.maxRecordsPerBatch": str(self.arrow_batch_records),
            # Times in the figures are UTC; so are the data intervals.
            "spark.sql.session.timeZone": "UTC",
            "spark.ui.enabled": "true" if self.ui else "false",
            # AQE sizes partitions by bytes, not by what the Python planner costs per
            # topic: coalescing a small shuffle into one partition would leave the
            # per-topic planning on one core.
            "spark.sql.adaptive.coalescePartitions.enabled": "false",
            # PySpark 4 tags each DataFrame call with its Python call site for error
            # messages: five JVM round trips a call. A validation makes hundreds of
            # calls (GX builds each expectation's columns): with the tags, 7,112 round
            # trips and 9.3 s for `sizing.output` on the 40-topic test fleet; 1,952 and
            # 7.2 s without (2026-11-27). Errors still name the failing operation.
            "spark.python.sql.dataFrameDebugging.enabled": "false",
        }
        conf.update(self.conf)
        return conf


@dataclass(frozen=True)
class JobSettings:
    """Everything the two jobs need besides their paths.

    Attributes:
        planning: The core's planning settings. The counts simulated for a topic are
            its plan's (`TopicPlan.candidates`): its own and `partition_grid`.
        lookback_days: Days of throughput history before the end of the run's data
            interval used for the peak and the growth fit (the run's own interval is
            always used whole, even when it is longer).
        spark: Spark settings.
    """

    planning: PlanSettings = field(default_factory=PlanSettings)
    lookback_days: float = 30.0
    spark: SparkSettings = field(default_factory=SparkSettings)

    def __post_init__(self) -> None:
        if not math.isfinite(self.lookback_days) or self.lookback_days < 0:
            raise SettingsError(f"lookback_days must be zero or above, got {self.lookback_days!r}")

    def with_overrides(
        self, *, master: str | None = None, lookback_days: float | None = None
    ) -> JobSettings:
        """These settings with the command line's explicit values on top."""
        out = self
        if master is not None:
            out = replace(out, spark=replace(out.spark, master=master))
        if lookback_days is not None:
            out = replace(out, lookback_days=lookback_days)
        return out


def _whole(conf: dict[str, str], key: str, default: int, path: Path) -> int:
    text = conf.pop(key, None)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise SettingsError(f"{path} [spark.conf] {key}: a whole number >= 1, got {text!r}")
    return value


def load_settings(path: str | Path | None = None) -> JobSettings:
    """The job settings: defaults, with the planner config file at `path` (if any).

    The file is checked by `planner.config.load_config` (the same rules for every part
    of the pipeline). `[spark] master` counts only when the file gives it (for jobs run
    directly; spark-submit's master always wins).

    Raises:
        SettingsError: the planner config refuses the file; the message names the file
            and the key.
    """
    if path is None:
        return JobSettings()
    from planner.config import ConfigError, load_config

    path = Path(path)
    try:
        config = load_config(path)
    except ConfigError as exc:
        raise SettingsError(str(exc)) from None
    given = tomllib.loads(path.read_text(encoding="utf-8"))
    conf = dict(config.spark_conf)
    # A setting the file does not give keeps SparkSettings' own default.
    default = SparkSettings()
    spark = SparkSettings(
        master=config.spark_master if "master" in given.get("spark", {}) else None,
        shuffle_partitions=_whole(
            conf, "spark.sql.shuffle.partitions", default.shuffle_partitions, path
        ),
        driver_memory=conf.pop("spark.driver.memory", default.driver_memory),
        driver_java_options=conf.pop("spark.driver.extraJavaOptions", default.driver_java_options),
        arrow_batch_records=_whole(
            conf,
            "spark.sql.execution.arrow.maxRecordsPerBatch",
            default.arrow_batch_records,
            path,
        ),
        conf=conf,
    )
    try:
        return JobSettings(
            planning=config.planning,
            lookback_days=float(config.history_days),
            spark=spark,
        )
    except SettingsError as exc:
        raise SettingsError(f"{path}: {exc}") from None
