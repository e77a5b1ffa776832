"""How the observer samples and how collection reads its observations (`[sources.kafka]`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path

from planner.group_capacity import DEFAULT_COMMIT_INTERVAL_S

__all__ = ["DEFAULT_MIN_COVERAGE", "ObserveSettings"]

#: The share of an interval the observations must cover for a topic to be planned from them.
DEFAULT_MIN_COVERAGE = 0.8


@dataclass(frozen=True)
class ObserveSettings:
    """The observation keys of `[sources.kafka]`.

    Attributes:
        observations: The observations dataset's folder; None: the Kafka source samples
            the cluster once, at collection (no history, today only).
        observe_every_s: Seconds between samples.
        retention_days: Days of samples kept.
        key_sample_size: Keyed records per topic and day in the key reservoir.
        group_tools_every_s: Seconds between descriptions of share and streams groups
            with Kafka's tools (a JVM start each).
        configs_every_s: Seconds between reads of every topic's `retention.ms`.
        min_coverage: The share of an interval the observations must cover for a topic
            to be planned from them (0 to 1).
        step_s: The length of one throughput window collected from the observations
            (as Prometheus' `step_s`: a peak is a percentile over windows).
        commit_interval_s: How often the consumers commit their offsets, seconds (the
            Java consumer's `auto.commit.interval.ms`, 5 s by default): committed
            offsets trail processing by up to this long, so a change of lag within the
            records it holds is noise to the rules of a group's own capacity and lag
            (`planner.group_capacity.lag_noise`). Groups committing more often may set
            it lower, and then show growth over shorter windows.
    """

    observations: Path | None = None
    observe_every_s: float = 60.0
    retention_days: int = 35
    key_sample_size: int = 1000
    group_tools_every_s: float = 300.0
    configs_every_s: float = 600.0
    min_coverage: float = DEFAULT_MIN_COVERAGE
    step_s: float = 3600.0
    commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S

    def __post_init__(self) -> None:
        for name in (
            "observe_every_s",
            "group_tools_every_s",
            "configs_every_s",
            "step_s",
            "commit_interval_s",
        ):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a number of seconds above zero, got {value}")
        if self.retention_days < 1 or self.key_sample_size < 1:
            raise ValueError("retention_days and key_sample_size must be at least 1")
        if not 0 <= self.min_coverage <= 1:
            raise ValueError(f"min_coverage must be from 0 to 1, got {self.min_coverage}")
        if self.step_s < self.observe_every_s:
            raise ValueError(
                f"step_s ({self.step_s:g}) must be at least observe_every_s "
                f"({self.observe_every_s:g}): a window needs samples around it"
            )

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        """The `[sources.kafka]` keys these settings take."""
        return tuple(f.name for f in fields(cls))
