"""The report model of a run: the fleet, its settings, rejected rows, the cluster.

A `FleetReport` is what the index, the topic pages and the exports show for one run
(a fleet run, or the creation plan of one new topic).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from urllib.parse import urlsplit

from planner.protocols import PROTOCOLS
from planner.report.model.codec import Model, at_least
from planner.report.model.topic import GroupReport, TopicReport

__all__ = [
    "ClusterReplicas",
    "CreationRequest",
    "FleetReport",
    "NewTopicLink",
    "RejectedExample",
    "RejectedSummary",
    "ReportSettings",
    "cluster_replicas",
]

_RESIZE_ORDER = {"under-provisioned": 0, "no-standby": 1, "unplanned": 2, "over-provisioned": 3}


@dataclasses.dataclass(frozen=True)
class ReportSettings(Model):
    """The planning settings the run used (the config's `[planning]` section).

    Attributes:
        percentile: Percentile of the per-sample rates taken as the peak.
        headroom_pct: Headroom added on the target, and kept free per consumer (%).
        horizon_days: Planning horizon, days.
        growth_model: `exponential`, `linear` or `none`.
        floor_growth_per_year: Minimum growth, yearly fraction (0.1 = +10 %/year).
        evenness_slack_pct: How far above the requirement an even count may be (%).
        max_partitions: The cap for that search.
        min_group_members: The fewest members recommended for a group.
    """

    percentile: float
    headroom_pct: float
    horizon_days: float
    growth_model: str
    floor_growth_per_year: float = 0.0
    evenness_slack_pct: float = 20.0
    max_partitions: int = 1_000
    min_group_members: int = 1


@dataclasses.dataclass(frozen=True)
class RejectedExample(Model):
    """One input row kept out by the row checks (a row of the `rejected` table)."""

    source: str
    row: int | None
    field: str | None
    value: str | None
    reason: str


@dataclasses.dataclass(frozen=True)
class RejectedSummary(Model):
    """Rejected input rows of one table.

    Attributes:
        table: The figures table (`throughput`, `topics`, `capacity`, `groups`, `keys`).
        rows: How many of its rows were rejected.
        examples: The first few, for the reader to recognise the problem.
    """

    table: str
    rows: int
    examples: tuple[RejectedExample, ...] = ()

    def _check(self) -> None:
        at_least(f"rejected {self.table!r}: rows", self.rows, 0)


@dataclasses.dataclass(frozen=True)
class ClusterReplicas(Model):
    """Partition replicas per broker over the whole cluster: every topic of a fleet run.

    A topic's cost panel counts its own replicas; the per-broker limit is the cluster's,
    so the run adds them up: today's counts, and every recommended count applied.

    Attributes:
        brokers: Brokers in the cluster.
        topics: Topics counted (those with a known partition count and replication).
        replicas_now: `partitions x replication_factor` summed over them, today.
        replicas_planned: The same with every recommended count.
        limit: Replicas one broker should hold at most (`[cost]` settings).
    """

    brokers: int
    topics: int
    replicas_now: int
    replicas_planned: int
    limit: int

    def _check(self) -> None:
        at_least("brokers", self.brokers, 1)
        for name in ("topics", "replicas_now", "replicas_planned", "limit"):
            at_least(name, getattr(self, name), 0)

    @property
    def per_broker_now(self) -> int:
        """Replicas on the busiest broker today, spread as evenly as Kafka places them."""
        return math.ceil(self.replicas_now / self.brokers)

    @property
    def per_broker_planned(self) -> int:
        """The same with every recommended count applied."""
        return math.ceil(self.replicas_planned / self.brokers)


def cluster_replicas(topics: Sequence[TopicReport], brokers: int) -> ClusterReplicas | None:
    """The cluster's replicas per broker from every topic of a fleet run (None: no topic
    with a cost panel, so no limit known)."""
    limits = [t.cost.replicas_per_broker_limit for t in topics if t.cost is not None]
    if not limits:
        return None
    counted = [
        t for t in topics if t.current_partitions is not None and t.replication_factor is not None
    ]
    now = sum((t.current_partitions or 0) * (t.replication_factor or 0) for t in counted)
    planned = sum(
        (t.recommended_partitions or t.current_partitions or 0) * (t.replication_factor or 0)
        for t in counted
    )
    return ClusterReplicas(brokers, len(counted), now, planned, max(limits))


@dataclasses.dataclass(frozen=True)
class CreationRequest(Model):
    """The request a creation plan answers (`plan_new_topic`'s form or `--conf`).

    Who asked is not known (an Airflow trigger does not say); when, and what, is.

    Attributes:
        topic: The topic to create.
        requested_at: When the request was made (the run's start), UTC.
        parameters: The request's parameters as given (numbers, flags, text; a list
            joined by commas); `planner.recommend.creation.request_summary` words them.
        run_id: The Airflow run that planned it, if known.
        fleet_link: Relative link from the site's root to the fleet report's index.
    """

    topic: str
    requested_at: datetime
    parameters: Mapping[str, str | float | bool]
    run_id: str | None = None
    fleet_link: str | None = None

    def _check(self) -> None:
        if self.fleet_link is not None:
            _check_relative_link("fleet_link", self.fleet_link)


@dataclasses.dataclass(frozen=True)
class NewTopicLink(Model):
    """A creation plan the fleet report links to ("New topics planned").

    Attributes:
        topic: The topic to create.
        requested_at: When its plan was made, UTC.
        partitions: The count to create it with (None: not planned).
        status: Its plan's status (`create`, or why it has no plan).
        href: Relative link from the fleet site's root to its page (None: its page is not
            published beside this report).
        since_last_run: Planned after the previous fleet run was published.
    """

    topic: str
    requested_at: datetime
    partitions: int | None
    status: str
    href: str | None = None
    since_last_run: bool = False

    def _check(self) -> None:
        if self.href is not None:
            _check_relative_link("href", self.href)


@dataclasses.dataclass(frozen=True)
class FleetReport(Model):
    """One run's report: what the index, the topic pages and the exports show.

    Attributes:
        run_key: The run's key (its data interval's start, e.g. `20261121T0000Z`).
        interval_start: Start of the data interval (UTC, inclusive).
        interval_end: End of the data interval (UTC, exclusive).
        generated_at: When the report was generated (UTC).
        settings: The planning settings of the run.
        topics: One report per topic (names unique).
        rejected: Rejected input rows per table.
        input_rows: Rows read per input table (accepted and rejected).
        data_docs_path: Relative link from the site's root to the GX Data Docs index,
            if published with the site.
        title: Page title prefix.
        cluster: The whole cluster's replicas per broker, for a run of the whole fleet
            (None: a run of one new topic, which does not see the others).
        request: For a creation plan (one new topic planned by request), the request:
            the report is then about creating it, not about a data interval.
        new_topics: For a fleet run, the creation plans published recently, newest first.
    """

    run_key: str
    interval_start: datetime
    interval_end: datetime
    generated_at: datetime
    settings: ReportSettings
    topics: tuple[TopicReport, ...]
    rejected: tuple[RejectedSummary, ...] = ()
    input_rows: Mapping[str, int] = dataclasses.field(default_factory=dict)
    data_docs_path: str | None = None
    title: str = "Kafka partition plan"
    cluster: ClusterReplicas | None = None
    request: CreationRequest | None = None
    new_topics: tuple[NewTopicLink, ...] = ()

    def _check(self) -> None:
        if self.interval_end <= self.interval_start:
            raise ValueError("interval_end must be after interval_start")
        seen: set[str] = set()
        for t in self.topics:
            if t.topic in seen:
                raise ValueError(f"topics: {t.topic!r} appears more than once")
            seen.add(t.topic)
        if self.data_docs_path is not None:
            _check_relative_link("data_docs_path", self.data_docs_path)

    def count(self, status: str) -> int:
        """Topics with this status."""
        return sum(1 for t in self.topics if t.status == status)

    @property
    def creation(self) -> bool:
        """Whether this is a creation plan's report (one topic planned by request)."""
        return self.request is not None

    def groups_to_deploy(self) -> list[tuple[GroupReport, tuple[str, ...]]]:
        """Every group of status `deploy`, once, by group id, with the topics it reads."""
        found: dict[str, tuple[GroupReport, list[str]]] = {}
        for t in sorted(self.topics, key=lambda t: t.topic):
            for g in t.groups:
                if g.status == "deploy":
                    found.setdefault(g.group_id, (g, []))[1].append(t.topic)
        return [(g, tuple(names)) for _, (g, names) in sorted(found.items())]

    def groups_to_resize(self) -> list[tuple[GroupReport, tuple[str, ...]]]:
        """Every group whose status is not `ok` (nor `deploy`: a group to deploy is not
        resized), once, with the topics it reads here.

        Short of members first, the most short-handed (current / recommended members)
        first; then groups that keep up but have no standby member; then groups without
        a plan; then groups with members to spare; by group id within each.
        """
        found: dict[str, tuple[GroupReport, list[str]]] = {}
        for t in sorted(self.topics, key=lambda t: t.topic):
            for g in t.groups:
                if g.status not in ("ok", "deploy"):
                    found.setdefault(g.group_id, (g, []))[1].append(t.topic)

        def order(item: tuple[GroupReport, list[str]]) -> tuple[int, float, str]:
            g = item[0]
            short = g.current_members / g.recommended_members if g.recommended_members else 1.0
            return (_RESIZE_ORDER.get(g.status, len(_RESIZE_ORDER)), short, g.group_id)

        return [(g, tuple(names)) for g, names in sorted(found.values(), key=order)]

    def groups_across_zones(self) -> list[tuple[GroupReport, tuple[str, ...]]]:
        """Every group with a cross-zone figure, once, with the topics it reads here.

        Groups whose members' racks are known come first, the most bytes across zones
        from leaders first; then those without `client.rack`, the most bytes read first
        (what is at stake); by group id within each. A group that reads several topics
        has one figure over all of them, the same under each topic.
        """
        found: dict[str, tuple[GroupReport, list[str]]] = {}
        for t in sorted(self.topics, key=lambda t: t.topic):
            for g in t.groups:
                if g.cross_zone is not None:
                    found.setdefault(g.group_id, (g, []))[1].append(t.topic)

        def order(item: tuple[GroupReport, list[str]]) -> tuple[int, float, str]:
            g = item[0]
            cz = g.cross_zone
            assert cz is not None
            if cz.evidence.member_racks:
                return (0, -cz.from_leaders.cross_zone_bytes_per_day, g.group_id)
            return (1, -cz.bytes_per_day, g.group_id)

        return [(g, tuple(names)) for g, names in sorted(found.values(), key=order)]

    def group_count(self, status: str | None = None, *, protocol: str | None = None) -> int:
        """Consumer groups with this status and protocol (any: None), each counted once.

        A group that reads several topics is listed under each of them with one plan.
        """
        return len(
            {
                g.group_id
                for t in self.topics
                for g in t.groups
                if status in (None, g.status) and protocol in (None, g.protocol)
            }
        )

    def protocol_counts(self) -> dict[str, int]:
        """Consumer groups per protocol, each counted once, in `PROTOCOLS` order (only
        the protocols some group runs)."""
        found: dict[str, set[str]] = {}
        for t in self.topics:
            for g in t.groups:
                found.setdefault(g.protocol, set()).add(g.group_id)
        return {p: len(found[p]) for p in PROTOCOLS if p in found}


def _check_relative_link(name: str, link: str) -> None:
    # The link goes into an href: a scheme (javascript:, http:) or an absolute path would
    # make the offline site fetch or run something.
    parts = urlsplit(link)
    if not link or parts.scheme or parts.netloc or link.startswith(("/", "\\")):
        raise ValueError(f"{name}: must be a relative path inside the published tree, got {link!r}")
    if any(ord(c) < 32 for c in link):
        raise ValueError(f"{name}: control characters in {link!r}")
