"""What each live source holds of a day, asked before any step of a `plan` run.

`plan` without `--interval` on live sources plans yesterday only when some source holds
it (`planner.pipeline.interval`). A landing folder is read for that
(`interval.landing_days`); a live source is asked here, cheaply, and answers with a
`DayCover`: how many windows of the day it holds and, for a refusal, what it does hold
and how to get the day covered.

One finder per source name of `[sources] use`, in `FINDERS`:

- `prometheus`: one `count(<bytes_in_per_s query>)` range query over the day
  (`PrometheusSource.windows_held`), one number per window; if it holds none, a
  second over the 30 days before, one window a day, to name the days it does hold.
  Both only look at windows complete by then (its `settle_s`).
- `kafka`: with `[sources.kafka] observations`, what the observer recorded
  (`ObservationsSource.coverage`): the day's windows whose two ends it saw, held only
  when they make at least `min_coverage` of the day. Without it, the admin source reads
  the cluster as it is when `collect` runs (its throughput sample is of now, kept only
  for the current interval), so it never holds a past day: asked nothing, it answers at
  once.

Another source takes part by adding its finder to `FINDERS` under its source name: a
function of the config, the day and the current time that returns a `DayCover`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from planner.collect.prometheus import PrometheusSource, promql_duration
from planner.collect.sources import build_sources
from planner.config import PlannerConfig, observe_settings
from planner.figures.dataset import DataInterval
from planner.observe.settings import ObserveSettings
from planner.pipeline.sample_days import FLAG, SampleDays

__all__ = ["FINDERS", "LOOKBACK_DAYS", "DayCover", "DayCoverFinder", "live_covers"]

LOOKBACK_DAYS = 30
"""Days before the day asked about that a refusal looks at to name what a source holds."""


@dataclass(frozen=True)
class DayCover:
    """What one live source holds of a day, found out before any step runs.

    Attributes:
        source: The source as messages name it, e.g. `prometheus:http://prom:9090`.
        held: Windows of the day it holds throughput for; above 0, the day can be
            planned from it.
        windows: Windows in the day (0 for a source that cannot hold a past day).
        window: One window's length as said in messages, e.g. `1h`.
        holds: What it does hold, in a few words, for a refusal.
        remedy: How to get the day covered, for a refusal.
    """

    source: str
    held: int
    windows: int
    window: str
    holds: str
    remedy: str

    def share(self) -> str:
        """`prometheus:http://prom:9090 holds 23 of its 24 windows of 1h`."""
        return f"{self.source} holds {self.held} of its {self.windows} windows of {self.window}"


DayCoverFinder = Callable[[PlannerConfig, DataInterval, datetime], DayCover]
"""Asks one configured source what it holds of a day (config, day, now UTC)."""


def _prometheus(config: PlannerConfig, day: DataInterval, now: datetime) -> DayCover:
    (source,) = build_sources(dataclasses.replace(config, sources=("prometheus",)))
    assert isinstance(source, PrometheusSource)
    window = source.step
    windows = int((day.end - day.start) / window)
    label = promql_duration(int(window.total_seconds()))
    held = source.windows_held(day, now=now)
    if held:
        return DayCover(source.source, len(held), windows, label, "", "")
    span = DataInterval(day.start - timedelta(days=LOOKBACK_DAYS), day.end + timedelta(days=1))
    looked = source.windows_held(span, now=now, every=timedelta(days=1))
    days = SampleDays.of(looked)
    today = now.astimezone(UTC).date()
    if not days.days:
        holds = f"none of the {windows} windows of {label} of {day.start.date()}, nor any"
        holds += f" of the {LOOKBACK_DAYS} days before or today (one window a day looked at)"
        remedy = (
            "is it scraping the brokers' topic meters? This query finds no series: "
            f"{source.queries['bytes_in_per_s']}"
        )
        return DayCover(source.source, 0, windows, label, holds, remedy)
    hour = f"{looked[-1]:%H:%M}-{looked[-1] + window:%H:%M} UTC"
    holds = (
        f"none of the {windows} windows of {label} of {day.start.date()}; it holds "
        f"{days.listing()} (one window a day looked at, {hour})"
    )
    before = [d for d in days.days if d < today]
    if before:
        remedy = f"plan one of those days with {FLAG} DAY (e.g. {FLAG} {before[-1]})"
    else:
        remedy = (
            "it holds only today so far: plan tomorrow, when today is complete, or today's "
            f"complete hours with {FLAG} {today}T00:00/{looked[-1] + window:%Y-%m-%dT%H:%M}"
        )
    return DayCover(source.source, 0, windows, label, holds, remedy)


def _kafka(config: PlannerConfig, day: DataInterval, now: datetime) -> DayCover:
    settings = observe_settings(config)
    if settings.observations is not None:
        return _observed(settings, day)
    bootstrap = config.source_settings.get("kafka", {}).get("bootstrap", "?")
    return DayCover(
        source=f"kafka-admin:{bootstrap}",
        held=0,
        windows=0,
        window="",
        holds=(
            "reads the cluster only as it is when collect runs (a throughput sample of "
            "now, kept only for the current interval), so it holds no past day"
        ),
        remedy=(
            "run `partition-planner observe` to record the cluster over time, or add "
            "Prometheus ([sources.prometheus]) or a landing export with throughput files"
        ),
    )


def _observed(settings: ObserveSettings, day: DataInterval) -> DayCover:
    """What the observations of `partition-planner observe` hold of `day`: its windows
    count as held only when they cover at least `min_coverage` of it."""
    from planner.collect.observations import ObservationsSource, how_to_cover

    assert settings.observations is not None
    source = ObservationsSource(settings.observations, settings)
    cover = source.coverage(day)
    label = promql_duration(int(settings.step_s))
    windows = cover.windows
    if cover.share >= settings.min_coverage and cover.windows_known:
        return DayCover(source.label, cover.windows_known, windows, label, "", "")
    days = ", ".join(str(d) for d in source.dataset.days()[-5:]) or "no day at all"
    return DayCover(
        source.label,
        0,
        windows,
        label,
        f"covers {cover.describe()}, below min_coverage {settings.min_coverage:.0%}; it "
        f"holds samples of {days}",
        how_to_cover(cover),
    )


FINDERS: dict[str, DayCoverFinder] = {"prometheus": _prometheus, "kafka": _kafka}
"""Per source name in `[sources] use` (landing files aside), how to ask it what it holds
of a day."""


def live_covers(config: PlannerConfig, day: DataInterval, now: datetime) -> list[DayCover]:
    """What each live source of `config` holds of `day`, in the configured order.

    Raises:
        ValueError: a configured live source has no finder.
        SourceUnavailable, FiguresError: a source could not be asked (Prometheus
            unreachable or refusing the query); the message names it.
    """
    covers: list[DayCover] = []
    for name in config.sources:
        if name == "landing":
            continue
        finder = FINDERS.get(name)
        if finder is None:
            raise ValueError(f"source {name!r} cannot say which days it holds; give {FLAG}")
        covers.append(finder(config, day, now))
    return covers
