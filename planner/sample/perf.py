"""Output of Kafka's perf tools for the topics a sample fleet measured.

The text is what `kafka-producer-perf-test.sh` (`ProducerPerformance`) and
`kafka-consumer-perf-test.sh` (`ConsumerPerformance`) print, with figures that agree with
each other the way the tools compute them ("MB" = bytes / 2**20; the consumer's
`fetch.time.ms` = elapsed - `rebalance.time.ms`):

- producer: a window line every 5 s (`%d records sent, %.1f records/sec (%.2f MB/sec),
  %.1f ms avg latency, %.1f ms max latency.`), then the summary with percentiles; the
  summary's records/sec has six decimals (`%f`, Kafka 3.x and 4.x alike, checked on
  4.4.0's own output in `tests/adapters/data/perf/kafka44.producer.txt`). With
  `--warmup-records` the warm-up notice, `In steady state.` and a second,
  `N steady state records sent` summary follow the fixtures' layout.
- consumer: the header and one summary row; or `--show-detailed-stats` (a row per
  5-second interval with running totals); or a summary row from a JVM in a German
  locale (decimal commas).

`planner.adapters.perf_test.read_perf_test` reads every variant.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np

from planner.sample import streams
from planner.sample.capacity import MIB, PerfSpec
from planner.sample.fleet import Fleet

__all__ = ["consumer_output", "producer_output"]

_WINDOW_S = 5.0
_NICE_RECORDS = np.array([100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000])
_NICE_RECORDS = np.concatenate([_NICE_RECORDS, _NICE_RECORDS * 10])
_HEADER = (
    "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
    "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
)
_DETAILED_HEADER = (
    "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
    "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
)


def _rng(fleet: Fleet, spec: PerfSpec, side: int) -> np.random.Generator:
    return streams.stream(fleet.seed, streams.PERF, spec.topic, side)


def run_records(spec: PerfSpec) -> int:
    """`--num-records` of the run: the round figure closest to about 45 s of sending."""
    rate = spec.producer_mib_per_s * MIB / spec.record_bytes
    return int(_NICE_RECORDS[np.argmin(np.abs(np.log(_NICE_RECORDS / (rate * 45.0))))])


def _java_time(epoch_ms: int) -> str:
    # ConsumerPerformance's default --date-format: yyyy-MM-dd HH:mm:ss:SSS
    moment = datetime.fromtimestamp(epoch_ms / 1000.0, UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S:") + f"{epoch_ms % 1000:03d}"


def producer_output(fleet: Fleet, spec: PerfSpec) -> str:
    """What kafka-producer-perf-test.sh printed for the topic of `spec`."""
    rng = _rng(fleet, spec, 0)
    total = run_records(spec)
    rate = spec.producer_mib_per_s * MIB / spec.record_bytes
    warmup = total // 10 if spec.warmup else 0
    lines: list[str] = []
    if warmup:
        lines.append(
            f"Warmup first {warmup} records. Steady state results will print after the "
            "complete test summary."
        )
    sent = 0
    avgs: list[float] = []
    maxes: list[float] = []
    in_steady_state = False
    window = 0
    while True:
        # The first window pays for metadata, connections and batch warm-up.
        speed = rate * (rng.uniform(0.55, 0.8) if window == 0 else rng.normal(1.0, 0.03))
        count = int(speed * _WINDOW_S)
        if sent + count >= total:
            break
        avg = rng.uniform(15.0, 80.0) if window == 0 else rng.uniform(1.2, 4.0)
        peak = avg * rng.uniform(6.0, 15.0)
        lines.append(
            f"{count} records sent, {count / _WINDOW_S:.1f} records/sec "
            f"({count * spec.record_bytes / MIB / _WINDOW_S:.2f} MB/sec), {avg:.1f} ms avg "
            f"latency, {peak:.1f} ms max latency."
        )
        sent += count
        avgs.append(avg)
        maxes.append(peak)
        window += 1
        if warmup and not in_steady_state and sent >= warmup:
            in_steady_state = True
            lines.append("In steady state.")
    # The whole run: the windows printed, then the rest at the steady rate.
    elapsed_s = window * _WINDOW_S + (total - sent) / rate
    avg_all = float(np.mean(avgs)) if avgs else 2.0
    max_all = max(maxes) if maxes else 40.0
    lines.append(_summary(total, elapsed_s, spec, avg_all, max_all, rng, steady=False))
    if warmup:
        steady = total - warmup
        # The steady state leaves out the slow first window: a little faster overall.
        steady_s = steady / (rate * rng.uniform(1.0, 1.03))
        steady_avg = float(np.mean(avgs[1:])) if len(avgs) > 1 else avg_all
        steady_max = max(maxes[1:]) if len(maxes) > 1 else max_all
        lines.append(_summary(steady, steady_s, spec, steady_avg, steady_max, rng, steady=True))
    return "\n".join(lines) + "\n"


def _summary(
    records: int,
    elapsed_s: float,
    spec: PerfSpec,
    avg: float,
    peak: float,
    rng: np.random.Generator,
    *,
    steady: bool,
) -> str:
    rate = records / elapsed_s
    mib = records * spec.record_bytes / MIB / elapsed_s
    p50 = max(1, round(avg * 0.6))
    p95 = max(p50, round(avg * rng.uniform(2.0, 4.0)))
    p99 = max(p95, round(peak * rng.uniform(0.3, 0.6)))
    p999 = max(p99, round(peak * rng.uniform(0.7, 0.95)))
    rps = f"{rate:f}"
    label = f"{records} steady state records sent" if steady else f"{records} records sent"
    return (
        f"{label}, {rps} records/sec ({mib:.2f} MB/sec), {avg:.2f} ms avg latency, "
        f"{peak:.2f} ms max latency, {p50} ms 50th, {p95} ms 95th, {p99} ms 99th, "
        f"{p999} ms 99.9th."
    )


def _number(value: float, german: bool) -> str:
    text = f"{value:.4f}"
    return text.replace(".", ",") if german else text


def consumer_output(fleet: Fleet, spec: PerfSpec) -> str:
    """What kafka-consumer-perf-test.sh printed for the topic of `spec`.

    It consumes what the producer run wrote, a few minutes after it.
    """
    rng = _rng(fleet, spec, 1)
    records = run_records(spec)
    mib_total = records * spec.record_bytes / MIB
    rebalance_ms = int(rng.integers(3_000, 3_150))  # group.initial.rebalance.delay.ms
    fetch_ms = max(1, round(mib_total / spec.consumer_fetch_mib_per_s * 1000.0))
    start_ms = (spec.started_at_s + int(rng.integers(120, 900))) * 1000 + int(rng.integers(1000))
    if spec.consumer_format == "detailed":
        return _detailed(start_ms, rebalance_ms, records, spec, rng)
    german = spec.consumer_format == "de"
    elapsed_ms = rebalance_ms + fetch_ms
    fields = [
        _java_time(start_ms),
        _java_time(start_ms + elapsed_ms),
        _number(mib_total, german),
        _number(mib_total / (elapsed_ms / 1000.0), german),
        str(records),
        _number(records / (elapsed_ms / 1000.0), german),
        str(rebalance_ms),
        str(fetch_ms),
        _number(mib_total / fetch_ms * 1000.0, german),
        _number(records / fetch_ms * 1000.0, german),
    ]
    return f"{_HEADER}\n{', '.join(fields)}\n"


def _detailed(
    start_ms: int, rebalance_ms: int, records: int, spec: PerfSpec, rng: np.random.Generator
) -> str:
    """`--show-detailed-stats`: a row per 5 s interval, running totals, no summary row."""
    rate = spec.consumer_fetch_mib_per_s * MIB / spec.record_bytes
    interval_ms = int(_WINDOW_S * 1000)
    lines = [_DETAILED_HEADER]
    done = 0
    now = start_ms
    first = True
    while True:
        elapsed = interval_ms + int(rng.integers(0, 4))
        fetch = elapsed - rebalance_ms if first else elapsed
        count = math.floor(rate * rng.normal(1.0, 0.04) * fetch / 1000.0)
        if done + count > records or fetch <= 0:
            break
        done += count
        now += elapsed
        mib = count * spec.record_bytes / MIB
        fields = [
            _java_time(now),
            "0",
            f"{done * spec.record_bytes / MIB:.4f}",
            f"{mib / (elapsed / 1000.0):.4f}",
            str(done),
            f"{count / (elapsed / 1000.0):.4f}",
            str(rebalance_ms if first else 0),
            str(fetch),
            f"{mib / (fetch / 1000.0):.4f}",
            f"{count / (fetch / 1000.0):.4f}",
        ]
        lines.append(", ".join(fields))
        first = False
    if len(lines) == 1:  # a run shorter than one interval prints no row: report one anyway
        fetch = interval_ms - rebalance_ms
        count = min(records, max(1, math.floor(rate * fetch / 1000.0)))
        mib = count * spec.record_bytes / MIB
        lines.append(
            f"{_java_time(now + interval_ms)}, 0, {mib:.4f}, {mib / 5.0:.4f}, {count}, "
            f"{count / 5.0:.4f}, {rebalance_ms}, {fetch}, {mib / (fetch / 1000.0):.4f}, "
            f"{count / (fetch / 1000.0):.4f}"
        )
    return "\n".join(lines) + "\n"
