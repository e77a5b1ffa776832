"""The report model's chart series: throughput history, member and partition loads, churn.

Loads are a share of one consumer's capacity (1.0 = Tc).
"""

from __future__ import annotations

import dataclasses

from planner.report.model.codec import Model

__all__ = [
    "ChurnChart",
    "ChurnRow",
    "HotKeyMark",
    "MemberLoadChart",
    "MemberLoadCurve",
    "PartitionLoadChart",
    "ThroughputHistory",
]


@dataclasses.dataclass(frozen=True)
class ThroughputHistory(Model):
    """The topic's throughput samples (the figures the peak was taken from).

    Attributes:
        ts_s: Sample times, seconds since the epoch (UTC), ascending.
        mib_in: MiB/s in per sample (None: missing sample); empty if not measured.
        records_in: Records/s in per sample; empty if not measured.
    """

    ts_s: tuple[float, ...]
    mib_in: tuple[float | None, ...] = ()
    records_in: tuple[float | None, ...] = ()

    def _check(self) -> None:
        for name in ("mib_in", "records_in"):
            values = getattr(self, name)
            if values and len(values) != len(self.ts_s):
                raise ValueError(
                    f"history.{name}: {len(values)} values for {len(self.ts_s)} timestamps"
                )
            if any(v is not None and v < 0 for v in values):
                raise ValueError(f"history.{name}: rates must be zero or above")
        if any(b < a for a, b in zip(self.ts_s, self.ts_s[1:], strict=False)):
            raise ValueError("history.ts_s: timestamps must be ascending")


@dataclasses.dataclass(frozen=True)
class MemberLoadCurve(Model):
    """Busiest member's load against group size, for one strategy.

    Attributes:
        strategy: Kafka's name of the assignment strategy.
        members: Group sizes, ascending.
        busiest_load: Busiest member's load at each size, share of one consumer (1.0 = Tc).
    """

    strategy: str
    members: tuple[int, ...]
    busiest_load: tuple[float, ...]

    def _check(self) -> None:
        if len(self.members) != len(self.busiest_load):
            raise ValueError(
                f"curve {self.strategy!r}: {len(self.members)} sizes, "
                f"{len(self.busiest_load)} loads"
            )


@dataclasses.dataclass(frozen=True)
class MemberLoadChart(Model):
    """Busiest-member load against group size per strategy, at one partition count.

    Attributes:
        partitions: The partition count simulated (the recommended one).
        curves: One curve per strategy.
        load_limit: Most load one member may carry: capacity less headroom (share of Tc).
        load_basis: What load the curves are at, in words (`today's peak`).
    """

    partitions: int
    curves: tuple[MemberLoadCurve, ...]
    load_limit: float
    load_basis: str


@dataclasses.dataclass(frozen=True)
class HotKeyMark(Model):
    """A key no partition count can spread.

    Attributes:
        key: The key as text (bytes that are not UTF-8 shown as `\\xNN`); None for the
            null key.
        partition: The partition it lands on at the charted count (None: spread).
        share: Its share of the topic's records (0..1).
    """

    key: str | None
    partition: int | None
    share: float


@dataclasses.dataclass(frozen=True)
class PartitionLoadChart(Model):
    """Per-partition load of a keyed topic at one partition count.

    Attributes:
        loads: Load of each partition, share of one consumer's capacity (1.0 = Tc).
        hot_keys: Hot keys and the partitions they land on.
        load_limit: Most load one member may carry (share of Tc).
        load_basis: What load the bars are at, in words.
    """

    loads: tuple[float, ...]
    hot_keys: tuple[HotKeyMark, ...]
    load_limit: float
    load_basis: str

    def _check(self) -> None:
        if not self.loads:
            raise ValueError("partition_load.loads: at least one partition needed")
        for hot in self.hot_keys:
            if hot.partition is not None and not 0 <= hot.partition < len(self.loads):
                raise ValueError(
                    f"partition_load.hot_keys: partition {hot.partition} outside "
                    f"0..{len(self.loads) - 1}"
                )

    @property
    def hot_partitions(self) -> frozenset[int]:
        """Partitions that hold at least one hot key."""
        return frozenset(h.partition for h in self.hot_keys if h.partition is not None)


@dataclasses.dataclass(frozen=True)
class ChurnRow(Model):
    """Partitions disturbed by a rebalance, for one strategy.

    Attributes:
        strategy: Kafka's name of the assignment strategy.
        join_moved: Partitions whose owner changes when one member joins.
        join_revoked: Partitions revoked in that rebalance (every owned one under the
            eager protocol).
        leave_moved: Partitions whose owner changes when one member leaves.
        leave_revoked: Partitions revoked in that rebalance.
    """

    strategy: str
    join_moved: int
    join_revoked: int
    leave_moved: int
    leave_revoked: int


@dataclasses.dataclass(frozen=True)
class ChurnChart(Model):
    """Rebalance churn per strategy for one group size.

    Attributes:
        partitions: The partition count.
        members: Group size before the member joins or leaves.
        rows: One row per strategy.
    """

    partitions: int
    members: int
    rows: tuple[ChurnRow, ...]
