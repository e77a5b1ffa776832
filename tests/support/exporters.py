"""Consumer groups' offsets as the three common lag exporters expose them, with known values.

`GroupHistory` holds, on one grid of scrape instants, each partition's end offset and each
group's committed offset per partition (NaN: the exporter has no offset there, and no
point at all where a series is missing), and each group's members. `openmetrics()` writes
all of it three times, once in each exporter's own metric names and labels (checked in
their sources: danielqsj/kafka_exporter `kafka_exporter.go`, KMinion
`prometheus/exporter.go` and `collect_consumer_group_lags.go`, Kafka Lag Exporter
`Metrics.scala`), so one Prometheus serves a reading of each preset:

- kafka_exporter: `kafka_topic_partition_current_offset{topic,partition}`,
  `kafka_consumergroup_current_offset{consumergroup,topic,partition}` (-1 where the group
  has no offset), `kafka_consumergroup_lag`, `kafka_consumergroup_members{consumergroup}`;
- KMinion: `kminion_kafka_topic_partition_high_water_mark{topic_name,partition_id}`,
  `kminion_kafka_consumer_group_topic_partition_lag{group_id,topic_name,partition_id}`
  (end minus committed, at least 0), `kminion_kafka_consumer_group_topic_members
  {group_id,topic_name}`;
- Kafka Lag Exporter: `kafka_partition_latest_offset{cluster_name,topic,partition}`,
  `kafka_consumergroup_group_offset{cluster_name,group,topic,partition,member_host,
  consumer_id,client_id}` (NaN where the group has no offset), `kafka_consumergroup_group_lag`.

Every value is a whole number of records and every scrape falls on the reading's grid,
so a reading must give back exactly the offsets written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

#: The exporters written, by the planner's preset names.
EXPORTERS = ("kafka_exporter", "kminion", "kafka-lag-exporter")
_CLUSTER = "prod"


@dataclass
class GroupHistory:
    """Known offsets on a grid of scrape instants.

    Attributes:
        times_s: Scrape instants, whole seconds since the epoch, ascending.
        ends: Per (topic, partition), the end offset at each scrape.
        committed: Per (group, topic, partition), the committed offset at each scrape
            (NaN: the exporter reports no offset; see `missing` for no point at all).
        members: Per group, its member count at each scrape; each member owns an equal
            run of the partitions (member m of M owns partition p when p * M // P == m).
            0 is what kafka_exporter reports for a consumer-protocol (KIP-848) group.
        missing: Per (group, topic, partition), the scrapes at which the series has no
            point at all (a gap in what Prometheus holds).
    """

    times_s: np.ndarray
    ends: dict[tuple[str, int], np.ndarray] = field(default_factory=dict)
    committed: dict[tuple[str, str, int], np.ndarray] = field(default_factory=dict)
    members: dict[str, np.ndarray] = field(default_factory=dict)
    missing: dict[tuple[str, str, int], np.ndarray] = field(default_factory=dict)

    def points(self, key: tuple[str, str, int]) -> tuple[np.ndarray, np.ndarray]:
        """The committed series' points Prometheus holds: not missing and an offset."""
        values = self.committed[key]
        keep = np.isfinite(values) & ~self.missing.get(key, np.zeros(values.size, dtype=bool))
        return self.times_s[keep].astype(np.float64), values[keep]

    def openmetrics(self) -> str:
        """Every exporter's families, OpenMetrics text for promtool."""
        lines: list[str] = []
        for exporter in EXPORTERS:
            lines.extend(self._families(exporter))
        lines.append("# EOF")
        return "\n".join(lines) + "\n"

    def _families(self, exporter: str) -> Iterator[str]:
        if exporter == "kafka_exporter":
            yield from self._family(
                "kafka_topic_partition_current_offset",
                "gauge",
                ((f'partition="{p}",topic="{t}"', v) for (t, p), v in self.ends.items()),
            )
            yield from self._committed("kafka_consumergroup_current_offset", exporter)
            yield from self._lag("kafka_consumergroup_lag", exporter)
            yield from self._family(
                "kafka_consumergroup_members",
                "gauge",
                ((f'consumergroup="{g}"', v) for g, v in self.members.items()),
            )
        elif exporter == "kminion":
            yield from self._family(
                "kminion_kafka_topic_partition_high_water_mark",
                "gauge",
                ((f'partition_id="{p}",topic_name="{t}"', v) for (t, p), v in self.ends.items()),
            )
            yield from self._lag("kminion_kafka_consumer_group_topic_partition_lag", exporter)
            yield from self._family(
                "kminion_kafka_consumer_group_topic_members",
                "gauge",
                (
                    (f'group_id="{g}",topic_name="{t}"', self.members[g])
                    for g, t in sorted({(g, t) for g, t, _ in self.committed})
                ),
            )
        else:
            yield from self._family(
                "kafka_partition_latest_offset",
                "gauge",
                (
                    (f'cluster_name="{_CLUSTER}",partition="{p}",topic="{t}"', v)
                    for (t, p), v in self.ends.items()
                ),
            )
            yield from self._committed("kafka_consumergroup_group_offset", exporter)
            yield from self._lag("kafka_consumergroup_group_lag", exporter)

    def _partitions(self, topic: str) -> int:
        return sum(1 for t, _ in self.ends if t == topic) or 1 + max(
            p for _, t, p in self.committed if t == topic
        )

    def _labels(self, exporter: str, key: tuple[str, str, int]) -> str:
        group, topic, partition = key
        if exporter == "kafka_exporter":
            return f'consumergroup="{group}",partition="{partition}",topic="{topic}"'
        if exporter == "kminion":
            return f'group_id="{group}",partition_id="{partition}",topic_name="{topic}"'
        # Kafka Lag Exporter labels each partition with the member that owns it; the
        # members are constant over a series here, so one label set per partition. A
        # group without members is labelled "unknown" (its KafkaClient.scala).
        members = int(self.members[group][0])
        member = partition * members // self._partitions(topic)
        consumer, client, host = (
            (f"consumer-{group}-{member}-uuid", f"consumer-{group}-{member}", f"/10.0.0.{member}")
            if members
            else ("unknown", "unknown", "unknown")
        )
        return (
            f'client_id="{client}",cluster_name="{_CLUSTER}",consumer_id="{consumer}",'
            f'group="{group}",member_host="{host}",partition="{partition}",topic="{topic}"'
        )

    def _committed(self, family: str, exporter: str) -> Iterator[str]:
        # kafka_exporter writes -1 for "no offset"; Kafka Lag Exporter writes NaN.
        none = -1.0 if exporter == "kafka_exporter" else float("nan")
        yield from self._family(
            family,
            "gauge",
            (
                (self._labels(exporter, key), np.where(np.isnan(v), none, v), self._gaps(key))
                for key, v in self.committed.items()
            ),
        )

    def _lag(self, family: str, exporter: str) -> Iterator[str]:
        def lag(key: tuple[str, str, int]) -> np.ndarray:
            _, topic, partition = key
            end = self.ends.get((topic, partition))
            values = self.committed[key]
            if end is None:
                return np.full(values.size, np.nan)
            # KMinion clamps at 0 (a commit read after the end offset); so do the others.
            return np.maximum(end - values, 0.0)

        yield from self._family(
            family,
            "gauge",
            (
                (self._labels(exporter, key), lag(key), self._gaps(key))
                for key in self.committed
                if (key[1], key[2]) in self.ends
            ),
        )

    def _gaps(self, key: tuple[str, str, int]) -> np.ndarray:
        return self.missing.get(key, np.zeros(self.times_s.size, dtype=bool))

    def _family(
        self,
        family: str,
        kind: str,
        series: Iterator[tuple[str, np.ndarray]] | Iterator[tuple[str, np.ndarray, np.ndarray]],
    ) -> Iterator[str]:
        """One family's samples; a series given with a third array has no point where
        that array is true."""
        yield f"# TYPE {family} {kind}"
        for labels, values, *gaps in series:
            absent = gaps[0] if gaps else np.zeros(values.size, dtype=bool)
            for t, v, gap in zip(
                self.times_s.tolist(), values.tolist(), absent.tolist(), strict=True
            ):
                if not gap:
                    yield f"{family}{{{labels}}} {_number(v)} {t}"


def _number(value: float) -> str:
    if np.isnan(value):
        return "NaN"
    return str(int(value)) if value == int(value) else repr(value)
