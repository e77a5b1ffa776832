"""The consumers' own metrics in Prometheus, matched to groups: a group's busy-fraction capacity.

A Java consumer measures how fast it consumes (`records-consumed-rate`, in the
`consumer-fetch-manager-metrics` group) and how much of its time it waits inside
`poll()` (`poll-idle-ratio-avg`, `consumer-metrics`, KIP-517), per client id. Where a
Prometheus scrapes them, `planner.group_capacity.busy_fraction` turns a member's pair of
readings into a capacity (records/s over its busy share). This module reads the pairs
and decides whose they are; the rule itself is the core's.

Reading (`ConsumerMetrics.readings`): two range queries over the run interval, one
reading per step (the observer's sampling period), each answer one series per consumer
instance with the client id in a label. The defaults (`DEFAULT_QUERIES`) are the names
of the two usual exporters:

- `jmx-exporter`: the Prometheus JMX exporter's Java agent with this repository's
  `deploy/jmx-exporter/kafka-consumer.yml`, whose names are the exporter's own default
  names (`kafka_consumer_consumer_metrics_poll_idle_ratio_avg{client_id=...}`). The
  fetch manager's client-level meter is the series without a `topic` label.
- `micrometer`: Micrometer's `KafkaClientMetrics` (`kafka.consumer.poll.idle.ratio.avg`,
  tag `client.id`), as its Prometheus registry names them. Micrometer keeps only the
  most detailed of meters that share a name, so `records-consumed-rate` exists per topic
  only: the default query adds the topics up.

A rate and an idle ratio are one member's pair when their series carry the same labels
(the metric name aside) and their readings the same time. Kafka publishes NaN for a
statistic with no sample in its window; such readings are dropped by the rule.

Matching (`busy_by_group`): a reading belongs to group G and topic T when, at the
observer's sample nearest to it (at most `gap_s` away), a member of G with that client
id owned partitions of T (the `members` table records the client id the group
description gives). Client ids are not unique across a cluster: a client id seen in
more than one group in the interval says nothing about either, and is left out with a
note. A member reading several topics counts its whole rate on each of them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from planner.collect.prometheus_api import MAX_POINTS, PrometheusClient, Series
from planner.group_capacity import DEFAULT_MIN_BUSY, GroupCapacity, busy_fraction

__all__ = [
    "DEFAULT_CLIENT_LABEL",
    "DEFAULT_QUERIES",
    "NAMINGS",
    "ConsumerMetrics",
    "ConsumerMetricsSettings",
    "MemberReadings",
    "Owners",
    "busy_by_group",
    "owners_by_client",
]

#: The exporters whose names the defaults follow.
NAMINGS = ("jmx-exporter", "micrometer")
#: PromQL per naming: one series per consumer instance, the client id in a label.
DEFAULT_QUERIES: Mapping[str, Mapping[str, str]] = {
    "jmx-exporter": {
        "records_consumed_rate": (
            'kafka_consumer_consumer_fetch_manager_metrics_records_consumed_rate{topic=""}'
        ),
        "poll_idle_ratio": "kafka_consumer_consumer_metrics_poll_idle_ratio_avg",
    },
    "micrometer": {
        "records_consumed_rate": (
            "sum without (topic) (kafka_consumer_fetch_manager_records_consumed_rate)"
        ),
        "poll_idle_ratio": "kafka_consumer_poll_idle_ratio_avg",
    },
}
#: The label that holds the client id (`client-id`, `client.id` with dashes and dots
#: made underscores by both exporters).
DEFAULT_CLIENT_LABEL = "client_id"


@dataclass(frozen=True)
class ConsumerMetricsSettings:
    """Where the consumers' metrics are and what they are called.

    Attributes:
        naming: Whose names the default queries use (`NAMINGS`).
        records_consumed_rate: PromQL of each consumer's records/s (None: the default).
        poll_idle_ratio: PromQL of each consumer's `poll-idle-ratio-avg` (None: the
            default).
        client_label: The label holding the client id.
        min_busy: The smallest busy share a reading is used at (0..1).
    """

    naming: str = "jmx-exporter"
    records_consumed_rate: str | None = None
    poll_idle_ratio: str | None = None
    client_label: str = DEFAULT_CLIENT_LABEL
    min_busy: float = DEFAULT_MIN_BUSY

    def __post_init__(self) -> None:
        if self.naming not in NAMINGS:
            raise ValueError(f"naming must be one of {', '.join(NAMINGS)}, got {self.naming!r}")
        if not self.client_label:
            raise ValueError("client_label must name a label")
        if not 0 < self.min_busy < 1:
            raise ValueError(f"min_busy must be between 0 and 1, got {self.min_busy}")

    def query(self, name: str) -> str:
        """The PromQL of `records_consumed_rate` or `poll_idle_ratio`."""
        given = getattr(self, name)
        return str(given).strip() if given else DEFAULT_QUERIES[self.naming][name]


@dataclass(frozen=True)
class MemberReadings:
    """One consumer instance's readings.

    Attributes:
        client_id: Its client id.
        series: Its labels, as PromQL writes them (for messages).
        times_s: Reading times, seconds since the epoch.
        rates: `records-consumed-rate` at each, records/s.
        idle_ratios: `poll-idle-ratio-avg` at each.
    """

    client_id: str
    series: str
    times_s: npt.NDArray[np.float64]
    rates: npt.NDArray[np.float64]
    idle_ratios: npt.NDArray[np.float64]


class ConsumerMetrics:
    """Reads each consumer's rate and idle ratio from one Prometheus server.

    Attributes:
        settings: The queries and the client-id label.
    """

    def __init__(self, client: PrometheusClient, settings: ConsumerMetricsSettings) -> None:
        self._client = client
        self.settings = settings

    @property
    def url(self) -> str:
        """The server's base URL."""
        return self._client.url

    def readings(self, start_s: float, end_s: float, step_s: float) -> list[MemberReadings]:
        """Every consumer's paired readings at `start_s`, `start_s + step` ... `end_s`.

        Args:
            start_s: First reading time, seconds since the epoch.
            end_s: Last one at most.
            step_s: Seconds between readings (raised to keep a query within
                Prometheus' points per series).

        Raises:
            SourceUnavailable: Prometheus could not be reached within the retries.
            PrometheusQueryError: a query was rejected or answered with something else.
        """
        step = max(1, math.ceil(step_s), math.ceil((end_s - start_s) / (MAX_POINTS - 1)))
        begin, end = math.ceil(start_s), math.floor(end_s)
        if end < begin:
            return []
        answers = {
            name: self._client.query_range(
                name, self.settings.query(name), begin_s=begin, end_s=end, step_s=step
            ).series
            for name in ("records_consumed_rate", "poll_idle_ratio")
        }
        return _paired(
            answers["records_consumed_rate"], answers["poll_idle_ratio"], self.settings.client_label
        )


def _key(series: Series) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in series.labels.items() if k != "__name__"))


def _paired(rates: Sequence[Series], idle: Sequence[Series], label: str) -> list[MemberReadings]:
    """Rate and idle series with the same labels, at the times both have a reading."""
    idle_by_key = {_key(s): s for s in idle}
    out: list[MemberReadings] = []
    for rate in rates:
        key = _key(rate)
        other = idle_by_key.get(key)
        client_id = rate.labels.get(label)
        if other is None or not client_id:
            continue
        at = dict(zip(other.times, other.values, strict=True))
        times = [t for t in rate.times if t in at]
        if not times:
            continue
        by_time = dict(zip(rate.times, rate.values, strict=True))
        out.append(
            MemberReadings(
                client_id=client_id,
                series="{" + ",".join(f'{k}="{v}"' for k, v in key) + "}",
                times_s=np.asarray(times, dtype=np.float64),
                rates=np.asarray([by_time[t] for t in times], dtype=np.float64),
                idle_ratios=np.asarray([at[t] for t in times], dtype=np.float64),
            )
        )
    return out


@dataclass(frozen=True)
class Owners:
    """Which client ids owned partitions of one group's topic, sample by sample.

    Attributes:
        times_s: Sample times, seconds since the epoch, ascending.
        clients: At each, the client ids of the group's members owning partitions of
            the topic.
    """

    times_s: npt.NDArray[np.float64]
    clients: tuple[frozenset[str], ...]


def owners_by_client(members: pa.Table) -> tuple[dict[tuple[str, str], Owners], set[str]]:
    """Per (group, topic), the client ids owning its partitions at each sample; and the
    client ids seen in more than one group (whose readings cannot be placed).

    Args:
        members: The observations' `members` rows (`group_id`, `member_id`,
            `client_id`, `topic`, `partition`, `ts`).
    """
    rows = members.filter(
        pc.and_(
            pc.is_valid(members.column("partition")),
            pc.greater(pc.utf8_length(pc.fill_null(members.column("client_id"), "")), 0),
        )
    )
    if rows.num_rows == 0:
        return {}, set()
    ts_s = np.asarray(rows.column("ts").cast(pa.int64()).to_numpy(), dtype=np.float64) / 1e6
    found: dict[tuple[str, str], dict[float, set[str]]] = {}
    groups_of: dict[str, set[str]] = {}
    for group, topic, client, at in zip(
        rows.column("group_id").to_pylist(),
        rows.column("topic").to_pylist(),
        rows.column("client_id").to_pylist(),
        ts_s.tolist(),
        strict=True,
    ):
        found.setdefault((group, topic), {}).setdefault(at, set()).add(client)
        groups_of.setdefault(client, set()).add(group)
    shared = {client for client, groups in groups_of.items() if len(groups) > 1}
    out = {
        key: Owners(
            np.asarray(sorted(by_time), dtype=np.float64),
            tuple(frozenset(by_time[t]) for t in sorted(by_time)),
        )
        for key, by_time in found.items()
    }
    return out, shared


def busy_by_group(
    readings: Sequence[MemberReadings],
    owners: Mapping[tuple[str, str], Owners],
    *,
    gap_s: float,
    shared: set[str] | frozenset[str] = frozenset(),
    min_busy: float = DEFAULT_MIN_BUSY,
) -> dict[tuple[str, str], GroupCapacity]:
    """Each (group, topic)'s busy-fraction capacity from its members' readings.

    Args:
        readings: Every consumer instance's readings (`ConsumerMetrics.readings`).
        owners: Per (group, topic), who owned partitions when (`owners_by_client`).
        gap_s: How far a reading may be from the nearest sample, seconds.
        shared: Client ids to leave out (seen in more than one group).
        min_busy: The smallest busy share a reading is used at.

    Returns:
        The capacity of every (group, topic) some usable reading is placed in.
    """
    out: dict[tuple[str, str], GroupCapacity] = {}
    for key, own in owners.items():
        rates: list[npt.NDArray[np.float64]] = []
        idle: list[npt.NDArray[np.float64]] = []
        times: list[npt.NDArray[np.float64]] = []
        for member in readings:
            if member.client_id in shared:
                continue
            held = _held(own, member.client_id, member.times_s, gap_s)
            if held.any():
                rates.append(member.rates[held])
                idle.append(member.idle_ratios[held])
                times.append(member.times_s[held])
        if not rates:
            continue
        found = busy_fraction(
            np.concatenate(rates).tolist(),
            np.concatenate(idle).tolist(),
            times_s=np.concatenate(times).tolist(),
            min_busy=min_busy,
        )
        if found is not None:
            out[key] = found
    return out


def _held(
    own: Owners, client_id: str, times_s: npt.NDArray[np.float64], gap_s: float
) -> npt.NDArray[np.bool_]:
    """Per reading time, whether `client_id` owned partitions at the nearest sample."""
    if own.times_s.size == 0:
        return np.zeros(times_s.size, dtype=bool)
    after = np.clip(np.searchsorted(own.times_s, times_s), 0, own.times_s.size - 1)
    before = np.clip(after - 1, 0, own.times_s.size - 1)
    nearest = np.where(
        np.abs(own.times_s[before] - times_s) <= np.abs(own.times_s[after] - times_s),
        before,
        after,
    )
    close = np.abs(own.times_s[nearest] - times_s) <= gap_s
    owned = np.asarray([client_id in own.clients[i] for i in nearest.tolist()], dtype=bool)
    held: npt.NDArray[np.bool_] = close & owned
    return held
