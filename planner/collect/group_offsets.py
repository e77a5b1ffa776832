"""Consumer groups' offsets from the lag exporters teams already run, read in Prometheus.

Many teams scrape a lag exporter instead of running the planner's observer. Each one
publishes, per consumer group and partition, what the observer records: the partitions'
end offsets and the group's committed offsets. This module reads those series with
`planner.collect.prometheus_api` and hands them, as per-partition `Series`, to the same
`planner.collect.consumption.group_windows` and `group_figures` the observer's path
calls, so a group's learned capacity and lag follow the one set of rules in
`planner.group_capacity` whichever way its offsets were seen.

Three queries per exporter (`PRESETS`; each can be replaced in the config):

- `committed`: one series per group, topic and partition, valued the committed offset;
- `end`: one series per topic and partition, valued the end offset (high watermark);
- `owners` (optional): members owning partitions, per group and topic (or per group
  only: kafka_exporter counts a group's members, not who owns what).

Names and labels, as the exporters' own sources write them:

- danielqsj/kafka_exporter: `kafka_consumergroup_current_offset{consumergroup, topic,
  partition}` (-1 where the group has no offset), `kafka_topic_partition_current_offset
  {topic, partition}`, `kafka_consumergroup_members{consumergroup}` (the length of the
  classic DescribeGroups member list: on a consumer-protocol (KIP-848) group it reads 0);
- KMinion: `kminion_kafka_topic_partition_high_water_mark{topic_name, partition_id}`,
  `kminion_kafka_consumer_group_topic_partition_lag{group_id, topic_name, partition_id}`
  (no committed offset per partition: the preset takes it as end minus lag, both from one
  scrape and one cached end-offset listing; the lag is clamped at 0 there, so a commit
  read ahead of the end becomes the end), `kminion_kafka_consumer_group_topic_members
  {group_id, topic_name}` (members whose assignment names the topic);
- Kafka Lag Exporter: `kafka_consumergroup_group_offset{cluster_name, group, topic,
  partition, member_host, consumer_id, client_id}` (NaN where the group has no offset),
  `kafka_partition_latest_offset{cluster_name, topic, partition}`; owners are the distinct
  `consumer_id`s of a group's partition series (`unknown` for a group without members).

Owners decide which rules may speak (`planner.group_capacity`: a saturated run and a
lower bound are per member). Per-group counts (kafka_exporter) are used only for a group
that reads one topic, and then at most its partition count: with every assignor Kafka
ships, a one-topic group's members own a partition each until there are more members
than partitions. A group reading several topics, or a count of 0, leaves owners unknown
(0), and those rules then claim nothing for it; its lag and trend are still given.

Each point is the exporter's last scrape at most one sample interval before the query's
evaluation instant (`last_over_time(...[$sample])`: a bare selector would repeat a
series' last value for Prometheus' whole lookback, 5 min by default, and hide a hole).
The notes name what is not used, with the query and the series: a gap wider than two
missed points (the windows across it are unknown), a NaN or negative value (the
exporters' "no offset"), an offset that goes down (the group's offsets set back, a topic
created again: only the points after it are used), a series without the labels, two
series for one partition, and a group whose topic has no end offsets. Each costs that
series or that group its figures, never another group's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np

from planner.collect.consumption import (
    GAP_PERIODS,
    Series,
    group_figures,
    group_windows,
    owners_per_window,
)
from planner.collect.prometheus_api import MAX_POINTS, PrometheusClient, join_chunks
from planner.collect.prometheus_api import Series as Answer

__all__ = [
    "LABEL_ROLES",
    "PRESETS",
    "QUERY_KINDS",
    "SAMPLE_TOKEN",
    "GroupOffsets",
    "GroupQueries",
    "group_queries",
]

#: The queries an exporter's reading is made of (`owners` may be left out).
QUERY_KINDS = ("committed", "end", "owners")
#: The labels a reading needs, by role.
LABEL_ROLES = ("group", "topic", "partition")
# Several exporters, or one scraped twice (two Prometheus jobs, an HA pair), give one
# partition several equal series: `max by` keeps one. Kafka's internal topics are not
# planned, as the other sources leave them out.
_INTERNAL = '!~"__.*"'
SAMPLE_TOKEN = "$sample"
"""Written where a range goes; replaced by the sample interval (less 1 ms). `last_over_time`
over one sample interval, rather than a bare selector, keeps Prometheus from bridging a hole in
a series with its last value for its whole lookback (5 min), so a gap reads as a gap."""


@dataclass(frozen=True)
class GroupQueries:
    """One exporter's PromQL and the labels that name a group, topic and partition.

    Attributes:
        exporter: Its name in notes (a preset's name, or `custom`).
        committed: Committed offsets, one series per group, topic and partition.
        end: End offsets, one series per topic and partition.
        owners: Members owning partitions, per group and topic or per group (None: not
            known; the per-member rules then claim nothing).
        group: The label holding the group id.
        topic: The label holding the topic.
        partition: The label holding the partition number.
    """

    exporter: str
    committed: str
    end: str
    owners: str | None
    group: str
    topic: str
    partition: str


def _last(selector: str) -> str:
    return f"last_over_time({selector}[{SAMPLE_TOKEN}])"


PRESETS: Mapping[str, GroupQueries] = {
    "kafka_exporter": GroupQueries(
        exporter="kafka_exporter",
        committed=(
            "max by (consumergroup, topic, partition) "
            f"({_last('kafka_consumergroup_current_offset')})"
        ),
        end=(
            "max by (topic, partition) "
            f"({_last(f'kafka_topic_partition_current_offset{{topic{_INTERNAL}}}')})"
        ),
        owners=f"max by (consumergroup) ({_last('kafka_consumergroup_members')})",
        group="consumergroup",
        topic="topic",
        partition="partition",
    ),
    "kminion": GroupQueries(
        exporter="kminion",
        committed=(
            "max by (group_id, topic_name, partition_id) ("
            "max by (topic_name, partition_id) "
            f"({_last('kminion_kafka_topic_partition_high_water_mark')})"
            " - on (topic_name, partition_id) group_right "
            f"{_last('kminion_kafka_consumer_group_topic_partition_lag')})"
        ),
        end=(
            "max by (topic_name, partition_id) "
            f"({_last(f'kminion_kafka_topic_partition_high_water_mark{{topic_name{_INTERNAL}}}')})"
        ),
        owners=(
            f"max by (group_id, topic_name) ({_last('kminion_kafka_consumer_group_topic_members')})"
        ),
        group="group_id",
        topic="topic_name",
        partition="partition_id",
    ),
    "kafka-lag-exporter": GroupQueries(
        exporter="kafka-lag-exporter",
        committed=f"max by (group, topic, partition) ({_last('kafka_consumergroup_group_offset')})",
        end=(
            "max by (topic, partition) "
            f"({_last(f'kafka_partition_latest_offset{{topic{_INTERNAL}}}')})"
        ),
        owners=(
            "count by (group, topic) (count by (group, topic, consumer_id) "
            f"""({_last('kafka_consumergroup_group_offset{consumer_id!="unknown"}')}))"""
        ),
        group="group",
        topic="topic",
        partition="partition",
    ),
}
"""The default PromQL per exporter (docs/figures.md shows them with what each can feed)."""


def group_queries(
    exporter: str,
    queries: Mapping[str, str | None] | None = None,
    labels: Mapping[str, str] | None = None,
) -> GroupQueries:
    """An exporter's preset with the config's overrides.

    Args:
        exporter: A preset's name, or `custom` (then `committed`, `end` and every label
            must be given).
        queries: Replacements of `committed`, `end`, `owners`; an empty `owners` drops it.
        labels: Replacements of the `group`, `topic`, `partition` label names.

    Raises:
        ValueError: an unknown exporter, query kind or label role, or a missing query.
    """
    queries, labels = dict(queries or {}), dict(labels or {})
    for given, known, what in (
        (queries, QUERY_KINDS, "query"),
        (labels, LABEL_ROLES, "label"),
    ):
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ValueError(
                f"consumer group {what}(s) {', '.join(unknown)} unknown (known: {', '.join(known)})"
            )
    if exporter == "custom":
        missing = [k for k in ("committed", "end") if not queries.get(k)]
        missing += [r for r in LABEL_ROLES if not labels.get(r)]
        if missing:
            raise ValueError(f"a custom consumer group reading needs {', '.join(missing)}")
        base = GroupQueries("custom", "", "", None, "", "", "")
    elif exporter in PRESETS:
        base = PRESETS[exporter]
    else:
        raise ValueError(
            f"consumer_groups {exporter!r}: not an exporter preset "
            f"(known: {', '.join([*PRESETS, 'custom'])})"
        )
    for kind in ("committed", "end"):
        if kind in queries and not (queries[kind] or "").strip():
            raise ValueError(f"the consumer group {kind} query is required, give one")
    changes: dict[str, str | None] = {k: (v or "").strip() or None for k, v in queries.items()}
    changes.update({k: str(v) for k, v in labels.items()})
    return replace(base, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Reading:
    """What one exporter's series say, cleaned: per (group, topic) and partition the
    committed offsets, per topic and partition the end offsets, and the owner counts."""

    committed: dict[tuple[str, str], dict[int, Series]]
    end: dict[str, dict[int, Series]]
    owners_by_topic: dict[tuple[str, str], Series]
    owners_by_group: dict[str, Series]


class GroupOffsets:
    """Reads one exporter's series over a run and gives each group's `groups` figures.

    Attributes:
        queries: The exporter's PromQL and labels.
        sample_s: Seconds between the points asked for (the resolution of the offsets).
        gap_s: The widest gap between points interpolated across, seconds.
    """

    def __init__(
        self,
        client: PrometheusClient,
        queries: GroupQueries,
        *,
        sample_s: int = 60,
        max_points: int = MAX_POINTS,
    ) -> None:
        """Configure the reading; nothing is contacted yet.

        Args:
            client: The Prometheus client (the figures source's own).
            queries: The exporter's PromQL and labels (`group_queries`).
            sample_s: Seconds between points, whole; about the exporter's scrape interval
                (finer only repeats scrapes).
            max_points: Points per series per request (Prometheus refuses over 11,000).

        Raises:
            ValueError: a sample interval under 1 s or not whole.
        """
        if sample_s < 1 or sample_s != int(sample_s):
            raise ValueError(f"group_sample_s must be whole seconds, at least 1; got {sample_s}")
        self._client = client
        self.queries = queries
        self.sample_s = int(sample_s)
        # As the observer: interpolate across at most two missed samples.
        self.gap_s = GAP_PERIODS * self.sample_s
        self._max_points = max_points
        # One interval less a millisecond: Prometheus 2.x counts a range's left end, so a
        # full interval would carry the scrape one interval back across a hole, and the
        # hole would look one point narrower than the observer sees it.
        self._range = f"{self.sample_s * 1000 - 1}ms"

    def figures(
        self, bounds_s: Sequence[int], *, history_from_s: int, source: str
    ) -> tuple[dict[tuple[str, str], dict[str, object]], list[str]]:
        """Each group's `groups` figures (`planner.collect.consumption.GROUP_FIGURES`) on
        each topic it committed on, over the windows between `bounds_s`, and the notes.

        Args:
            bounds_s: The windows' ends, whole seconds since the epoch (n + 1, ascending).
            history_from_s: How far back end offsets are read, seconds (a time lag needs
                the end offsets' history back to the committed offset).
            source: The source's name in notes.

        Raises:
            SourceUnavailable, PrometheusQueryError: as `PrometheusClient.query_range`.
        """
        bounds = np.asarray(bounds_s, dtype=np.int64)
        notes: list[str] = []
        warnings: list[tuple[str, str, str]] = []
        reading = self._read(
            int(bounds[0]), min(history_from_s, int(bounds[0])), int(bounds[-1]), warnings
        )
        # A warning may mean a partial answer (Thanos with a store down): say so.
        notes.extend(
            f"{source}: Prometheus {level} on the consumer group {kind} query: {text}"
            for kind, level, text in warnings
        )
        problems = _Problems(source, self.queries)
        cleaned = self._clean(reading, problems)
        out: dict[tuple[str, str], dict[str, object]] = {}
        windows = bounds.astype(np.float64)
        for (group, topic), parts in sorted(cleaned.committed.items()):
            ends = cleaned.end.get(topic, {})
            if not ends:
                problems.add(
                    "end",
                    f"topic {topic!r}",
                    f"has no end offsets, so group {group!r}'s lag and capacity on it are unknown",
                )
            sample_s, counts = self._owners(group, topic, cleaned, problems)
            consumption = group_windows(
                windows,
                ends,
                parts,
                owners_per_window(windows, sample_s, counts),
                gap_s=self.gap_s,
            )
            out[(group, topic)] = group_figures(consumption)
        notes.extend(problems.lines())
        notes.append(
            f"{source}: {self.queries.exporter} offsets of {len(out)} group subscription(s) "
            f"over {bounds.size - 1} window(s), one point per {self.sample_s} s"
        )
        return out, notes

    # --- reading -------------------------------------------------------------------------

    def _read(
        self,
        run_from_s: int,
        history_from_s: int,
        to_s: int,
        warnings: list[tuple[str, str, str]],
    ) -> dict[str, list[Answer]]:
        """Every query's series, points on the grid of `sample_s` through `run_from_s`
        (the answers' warnings go to `warnings` as (query kind, level, text))."""
        out: dict[str, list[Answer]] = {}
        for kind in QUERY_KINDS:
            query = getattr(self.queries, kind)
            if query is None:
                continue
            begin = history_from_s if kind == "end" else run_from_s
            # On the grid through the run's start, so a point falls on every window end,
            # and a gap's width earlier, so the first window end has points around it.
            periods = math.ceil((run_from_s - begin + self.gap_s) / self.sample_s)
            out[kind] = self._fetch(
                kind,
                query.replace(SAMPLE_TOKEN, self._range),
                run_from_s - periods * self.sample_s,
                to_s,
                warnings,
            )
        return out

    def _fetch(
        self,
        kind: str,
        query: str,
        begin_s: int,
        end_s: int,
        warnings: list[tuple[str, str, str]],
    ) -> list[Answer]:
        merged: dict[tuple[tuple[str, str], ...], Answer] = {}
        chunks = self._client.query_range_chunks(
            f"consumer group {kind}",
            query,
            begin_s=begin_s,
            end_s=end_s,
            step_s=self.sample_s,
            max_points=self._max_points,
        )
        for _, _, answer in chunks:
            warnings.extend((kind, level, text) for level, text in answer.warnings)
            join_chunks(merged, answer.series)
        return list(merged.values())

    # --- cleaning ------------------------------------------------------------------------

    def _clean(self, answers: dict[str, list[Answer]], problems: _Problems) -> _Reading:
        q = self.queries
        committed: dict[tuple[str, str], dict[int, Series]] = {}
        for key, series in self._keyed("committed", answers["committed"], problems).items():
            group, topic, partition = key
            cleaned = self._series("committed", series, problems)
            if cleaned is not None:
                committed.setdefault((group, topic), {})[partition] = cleaned
        end: dict[str, dict[int, Series]] = {}
        for (_, topic, partition), series in self._keyed("end", answers["end"], problems).items():
            cleaned = self._series("end", series, problems)
            if cleaned is not None:
                end.setdefault(topic, {})[partition] = cleaned
        by_topic: dict[tuple[str, str], Series] = {}
        by_group: dict[str, Series] = {}
        for one in answers.get("owners", []):
            owner_group, owner_topic = one.labels.get(q.group), one.labels.get(q.topic)
            points = _points(one)
            if not owner_group:
                problems.add("owners", one.describe(), f"has no {q.group} label: not used")
            elif points is None:
                continue
            elif owner_topic:
                by_topic[(owner_group, owner_topic)] = points
            else:
                by_group[owner_group] = points
        return _Reading(committed, end, by_topic, by_group)

    def _keyed(
        self, kind: str, series: list[Answer], problems: _Problems
    ) -> dict[tuple[str, str, int], Answer]:
        """`series` by (group, topic, partition) (group empty for end offsets), leaving
        out those without the labels and every series of a partition given twice."""
        q = self.queries
        roles = (q.group, q.topic, q.partition) if kind == "committed" else (q.topic, q.partition)
        found: dict[tuple[str, str, int], list[Answer]] = {}
        for one in series:
            values = [one.labels.get(r) or "" for r in roles]
            partition = values[-1]
            if not all(values) or not partition.isdigit():
                problems.add(
                    kind,
                    one.describe(),
                    f"lacks the label(s) {', '.join(roles)} (with a partition number): not used",
                )
                continue
            group = values[0] if kind == "committed" else ""
            found.setdefault((group, values[-2], int(partition)), []).append(one)
        for several in (v for v in found.values() if len(v) > 1):
            for one in several:
                problems.add(
                    kind,
                    one.describe(),
                    f"is one of {len(several)} series for this partition: the query must give "
                    f"one per partition, e.g. max by ({', '.join(roles)}) (...); none is used",
                )
        out = {key: v[0] for key, v in found.items() if len(v) == 1}
        return out

    def _series(self, kind: str, one: Answer, problems: _Problems) -> Series | None:
        """One offset series as points, less what is not an offset, from its last reset on;
        None when nothing is left."""
        points = _points(one)
        if points is None:
            problems.add(kind, one.describe(), "has no point that is an offset: not used")
            return None
        t, v = points
        dropped = len(one.times) - t.size
        if dropped:
            problems.add(
                kind,
                one.describe(),
                f"has {dropped} point(s) NaN or negative (the exporter's 'no offset'): left out",
            )
        falls = np.flatnonzero(np.diff(v) < 0)
        if falls.size:
            at = int(falls[-1]) + 1
            problems.add(
                kind,
                one.describe(),
                f"goes down from {v[at - 1]:,.0f} to {v[at]:,.0f} at {_iso(t[at])} (offsets "
                "reset, or the topic created again): only its points from then on are used",
            )
            t, v = t[at:], v[at:]
        # Holes in what Prometheus holds; points dropped above are named already.
        held = np.asarray(one.times, dtype=np.float64)
        held = held[held >= t[0]]
        holes = np.flatnonzero(np.diff(held) > self.gap_s)
        for i in holes[:3].tolist():
            problems.add(
                kind,
                one.describe(),
                f"has no point from {_iso(held[i])} to {_iso(held[i + 1])}: the windows "
                "across it are unknown",
            )
        return t, v

    def _owners(
        self, group: str, topic: str, reading: _Reading, problems: _Problems
    ) -> tuple[np.ndarray, np.ndarray]:
        """The sample times and owner counts of one group on one topic (empty: unknown)."""
        none = (np.zeros(0), np.zeros(0))
        if (group, topic) in reading.owners_by_topic:
            return reading.owners_by_topic[(group, topic)]
        if group not in reading.owners_by_group:
            return none
        topics = [t for g, t in reading.committed if g == group]
        if len(topics) > 1:
            problems.add(
                "owners",
                f"group {group!r}",
                f"is counted for the whole group, which reads {len(topics)} topics: who owns "
                "partitions of each is unknown, so no saturation or lower bound is claimed",
            )
            return none
        t, members = reading.owners_by_group[group]
        partitions = len(reading.committed[(group, topic)])
        return t, np.minimum(members, partitions)


def _points(one: Answer) -> tuple[np.ndarray, np.ndarray] | None:
    """A series' points whose value is a number at or above 0 (None: none is)."""
    t = np.asarray(one.times, dtype=np.float64)
    v = np.asarray(one.values, dtype=np.float64)
    keep = np.isfinite(v) & (v >= 0)
    if not keep.any():
        return None
    return t[keep], v[keep]


class _Problems:
    """The notes of one reading, a few per query kind, each naming the query and series."""

    _SHOWN = 10

    def __init__(self, source: str, queries: GroupQueries) -> None:
        self._source = source
        self._queries = queries
        self._found: dict[str, list[str]] = {k: [] for k in QUERY_KINDS}

    def add(self, kind: str, series: str, what: str) -> None:
        found = f"{series} {what}"
        if found not in self._found[kind]:
            self._found[kind].append(found)

    def lines(self) -> list[str]:
        out = []
        for kind, found in self._found.items():
            if not found:
                continue
            query = getattr(self._queries, kind)
            shown = "; ".join(found[: self._SHOWN])
            more = f"; and {len(found) - self._SHOWN} more" if len(found) > self._SHOWN else ""
            out.append(
                f"{self._source}: the consumer group {kind} query ({self._queries.exporter}: "
                f"{query}): {shown}{more}"
            )
        return out


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
