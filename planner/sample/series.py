"""Hourly throughput of a sample fleet, one UTC day at a time, as Arrow tables.

For topic `i` and the hour starting at `t`, evaluated at the middle of the hour:

    bytes_in   = level_i * daily_i(local hour) * weekly_i(local weekday)
                 * (1 + growth_i) ** ((t - end) / 365 days) * burst_i(t) * noise
    records_in = bytes_in / (record_bytes_i * small record-size jitter)
    bytes_out  = bytes_in * fan_out_i * small noise * replay_i(t)

so records/s and bytes/s agree through the record size, and bytes out is the fan-out of
the groups that read the topic (0 for a topic nobody reads). The noise is log-normal
with mean 1 (`exp(s z - s^2 / 2)`), so it does not move the level.

A day's rows depend only on the fleet and the day (each day has its own random stream),
so days can be generated in any order, or in parallel, with identical results.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from planner.figures.schema import TIMESTAMP
from planner.sample import streams
from planner.sample.fleet import Events, Fleet, daily_shape, weekly_factors
from planner.sample.streams import Floats

__all__ = ["THROUGHPUT_SCHEMA", "hourly_rates", "throughput_day"]

THROUGHPUT_SCHEMA = pa.schema(
    [
        pa.field("topic", pa.string()),
        pa.field("ts", TIMESTAMP),
        pa.field("bytes_in_per_s", pa.float64()),
        pa.field("records_in_per_s", pa.float64()),
        pa.field("bytes_out_per_s", pa.float64()),
    ]
)
_SECONDS_PER_YEAR = 365.0 * 86_400.0
_RECORD_JITTER = 0.03  # the topic's record-size mix moves a little hour to hour
_OUT_NOISE = 0.05
# 1970-01-01, day 0 of the epoch, was a Thursday (Monday = 0).
_EPOCH_WEEKDAY = 3


def _apply(values: Floats, events: Events, first_hour: int, hours: int) -> None:
    """Multiply `values[topic, hour - first_hour]` by each event's factor, in place."""
    inside = (events.hour >= first_hour) & (events.hour < first_hour + hours)
    if inside.any():
        np.multiply.at(
            values, (events.topic[inside], events.hour[inside] - first_hour), events.factor[inside]
        )


def hourly_rates(
    fleet: Fleet, first_hour: int, hours: int, rng: np.random.Generator
) -> tuple[Floats, Floats, Floats]:
    """Bytes in, records in and bytes out per second, shape (topics, hours).

    Args:
        fleet: The fleet's parameters.
        first_hour: Index of the first hour from the start of the history.
        hours: How many hours.
        rng: The random stream for the noise of these hours.
    """
    t = fleet.topics
    n = len(t.names)
    start_h = fleet.start.timestamp() / 3600.0
    end_s = fleet.end.timestamp()
    mid_h = start_h + np.arange(first_hour, first_hour + hours, dtype=np.float64) + 0.5
    local = mid_h[None, :] + t.utc_offset_h[:, None]
    shape = daily_shape(
        np.mod(local, 24.0),
        t.amplitude[:, None],
        t.peak_hour[:, None],
        t.concentration[:, None],
    )
    weekday_factor, weekend_factor = weekly_factors(t.weekend_factor)
    weekday = (np.floor(local / 24.0).astype(np.int64) + _EPOCH_WEEKDAY) % 7
    weekly = np.where(weekday >= 5, weekend_factor[:, None], weekday_factor[:, None])
    years = (mid_h * 3600.0 - end_s) / _SECONDS_PER_YEAR
    growth = np.exp(np.log1p(t.growth_per_year)[:, None] * years[None, :])
    z = rng.standard_normal((3, n, hours))
    sigma = t.noise_sigma[:, None]
    bytes_in = t.level_bytes_per_s[:, None] * shape * weekly * growth
    bytes_in *= np.exp(sigma * z[0] - 0.5 * sigma**2)
    _apply(bytes_in, fleet.bursts, first_hour, hours)
    record_bytes = t.record_bytes[:, None] * np.exp(_RECORD_JITTER * z[1])
    records_in = bytes_in / record_bytes
    bytes_out = bytes_in * t.fan_out[:, None].astype(np.float64)
    bytes_out *= np.exp(_OUT_NOISE * z[2] - 0.5 * _OUT_NOISE**2)
    _apply(bytes_out, fleet.replays, first_hour, hours)
    return bytes_in, records_in, bytes_out


def day_rng(fleet: Fleet, day: int) -> np.random.Generator:
    """The noise stream of day `day` (0 = the first day of the history)."""
    return streams.stream(fleet.seed, streams.HOURLY_NOISE, day)


def throughput_day(fleet: Fleet, day: int, names: pa.Array | None = None) -> pa.Table:
    """The throughput rows of one UTC day: every topic, 24 hourly samples, by topic then ts.

    Args:
        fleet: The fleet's parameters.
        day: Day index, 0 = the first day of the history.
        names: The topic names as an Arrow array (built once by a caller writing many days).
    """
    if not 0 <= day < fleet.days:
        raise ValueError(f"day {day} is outside the history of {fleet.days} days")
    n = len(fleet.topics.names)
    bytes_in, records_in, bytes_out = hourly_rates(fleet, day * 24, 24, day_rng(fleet, day))
    topic_names = pa.array(fleet.topics.names, pa.string()) if names is None else names
    first_us = int(fleet.start.timestamp() + day * 86_400) * 1_000_000
    hour_us = first_us + np.arange(24, dtype=np.int64) * 3_600_000_000
    return pa.table(
        [
            topic_names.take(pa.array(np.repeat(np.arange(n, dtype=np.int64), 24))),
            pa.array(np.tile(hour_us, n), TIMESTAMP),
            pa.array(bytes_in.ravel()),
            pa.array(records_in.ravel()),
            pa.array(bytes_out.ravel()),
        ],
        schema=THROUGHPUT_SCHEMA,
    )
