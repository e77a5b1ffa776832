"""What one member joining or leaving moves and revokes, and what it costs, per protocol.

The one place that says it: the one-topic grid (`planner.simulate.grid`), the
multi-topic grid (`planner.simulate.multi_topic.group_churn`) and `simulate_group`
(counting against a previous assignment) all ask here.

**Moved and revoked** (vectorised over group sizes, from each strategy's fresh
assignment; `counts` are the topics' partition counts, `T` their sum):

- `range` and the broker's `range` (`consumer:range`): each topic's own cut moves
  `P - sum overlap(old block, new block)` (`closed_forms.range_moved_on_grow`); summed
  over the topics.
- `roundrobin`: one deal of all `T` partitions (`closed_forms.roundrobin_moved_on_grow`).
- `sticky`, `cooperative-sticky`: a join moves the joiner's quota `T div (C + 1)`; a leave
  the leaver's partitions.
- `consumer:uniform`: the broker keeps each member's partitions up to the new quota plus
  one while extra slots remain, so a join moves the joiner's quota `T div (C + 1)`
  whatever the hash order, and a leave moves the leaver's partitions: `ceil(T / C)` for
  the last member in the broker's hash order (the last `T mod C` hold one more), `T div C`
  for the first.
- `share:simple`: moved counts (member, partition) assignments taken from the existing
  members. A join: the old members held `s T` slots (`s = ceil(C / T)`), at the new size
  they may hold `s' T - d'` (`d'` the joiner's desired count, at least `lo'`), so at
  least `max(0, s T - s' T + lo')` move. A leave: the leaver's `lo` or more, plus what
  the survivors hold beyond the new slots. These are lower bounds: `simple` reads the
  members in `HashMap` order, which a join or leave may reshuffle, and a member whose
  desired count drops gives up more (`member_change` does not change them).
- When the only member leaves, every partition loses its consumer: `T`.

Revoked: the classic eager strategies (`EAGER_STRATEGIES`) revoke every partition on
either change; every other strategy only what moves.

**What an event costs** (`event_costs`, numbers per grid row; the model and its sources
are in docs/simulation.md section 4):

- classic eager: one stop of the whole group: every partition paused about one classic
  `heartbeat.interval.ms` (members learn of the rebalance at their next heartbeat and
  the group waits for the last), one round;
- classic `cooperative-sticky`: two rounds when anything moves; only moved partitions
  pause, from their revocation at the end of the first round to the end of the second,
  about one heartbeat interval;
- consumer protocol (KIP-848): no group-wide stop; a moved partition is without an owner
  from its old owner's revocation until its new owner's next heartbeat, half of
  `group.consumer.heartbeat.interval.ms` on average; a leaver's partitions wait for
  the broker's next target assignment too (`group.consumer.assignment.interval.ms`);
- share groups (KIP-932): a join pauses nothing (the old members read on until told);
  a leaver's partitions wait as in the consumer protocol (share heartbeat and assignment
  intervals); its in-flight records (up to `max.poll.records` of one poll) stay locked
  for `group.share.record.lock.duration.ms` if it stops without closing its session
  (`shrink_locked_record_s`, records x seconds). Kafka 4.4.0's broker releases them at
  once on a clean close or a dropped connection (`SharePartitionManager.releaseSession`,
  `ShareSessionCache`'s disconnect listener), so the figure is the worst case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from planner.simulate import closed_forms as cf
from planner.simulate.closed_forms import MemberChange
from planner.simulate.strategies import EAGER_STRATEGIES, protocol_of, split_key

__all__ = [
    "CHURN_COLUMNS",
    "COST_COLUMNS",
    "KAFKA_DEFAULTS",
    "ProtocolTimings",
    "assignments_moved",
    "churn",
    "event_costs",
    "join_moved",
    "leave_moved",
    "moved_between",
    "revoked",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: The churn columns, in the grid's order.
CHURN_COLUMNS = ("grow_moved", "grow_revoked", "shrink_moved", "shrink_revoked")
#: The cost columns `event_costs` adds, in the grid's order.
COST_COLUMNS = (
    "stops_group",
    "grow_rounds",
    "shrink_rounds",
    "grow_paused_partition_s",
    "shrink_paused_partition_s",
    "shrink_locked_record_s",
)


@dataclass(frozen=True)
class ProtocolTimings:
    """The settings the cost of a scale event depends on, Kafka 4.4.0's defaults.

    Attributes:
        classic_heartbeat_interval_ms: The classic consumer's `heartbeat.interval.ms`.
        consumer_heartbeat_interval_ms: The broker's `group.consumer.heartbeat.interval.ms`.
        consumer_assignment_interval_ms: The broker's `group.consumer.assignment.interval.ms`
            (the least time between two target assignments of a group).
        share_heartbeat_interval_ms: The broker's `group.share.heartbeat.interval.ms`.
        share_assignment_interval_ms: The broker's `group.share.assignment.interval.ms`.
        share_record_lock_duration_ms: `group.share.record.lock.duration.ms`.
        share_max_poll_records: The share consumer's `max.poll.records` (its in-flight
            records between two polls).
    """

    classic_heartbeat_interval_ms: float = 3000.0
    consumer_heartbeat_interval_ms: float = 5000.0
    consumer_assignment_interval_ms: float = 1000.0
    share_heartbeat_interval_ms: float = 5000.0
    share_assignment_interval_ms: float = 1000.0
    share_record_lock_duration_ms: float = 30000.0
    share_max_poll_records: int = 500

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"{name} must be a number zero or above, got {value!r}")


#: Kafka 4.4.0's defaults.
KAFKA_DEFAULTS = ProtocolTimings()


def _consecutive_from_one(sizes: IntArray) -> bool:
    return bool(sizes.size and sizes[0] == 1 and np.all(np.diff(sizes) == 1))


def join_moved(
    key: str, counts: Sequence[int], sizes: IntArray, change: MemberChange = "last"
) -> IntArray:
    """Partitions (for `share:simple`, assignments) that change owner when one member
    joins a fresh group of each size (see the module docstring)."""
    _, assignor = split_key(key)
    total = int(sum(counts))
    if assignor == "range":  # classic and the broker's: each topic cut on its own
        moved: IntArray = np.zeros(sizes.size, dtype=np.int64)
        for p in counts:
            moved = moved + cf.range_moved_on_grow(int(p), sizes, change)
        return moved
    if assignor == "roundrobin":
        return cf.roundrobin_moved_on_grow(total, sizes, change)
    if assignor == "simple":
        return _simple_join_moved(total, sizes)
    # sticky, cooperative-sticky, uniform: only the joiner's quota moves.
    return cf.sticky_moved_on_grow(total, sizes)


def leave_moved(
    key: str,
    counts: Sequence[int],
    sizes: IntArray,
    change: MemberChange = "last",
    *,
    grown: IntArray | None = None,
) -> IntArray:
    """Partitions (for `share:simple`, assignments) that change owner when one member
    leaves a fresh group of each size; all of them when the only member leaves.
    `grown`: `join_moved` of the same sizes, when the caller has it."""
    _, assignor = split_key(key)
    total = int(sum(counts))
    if assignor in ("range", "roundrobin"):
        # A leave C -> C - 1 is the join C - 1 -> C backwards (positions only matter).
        if _consecutive_from_one(sizes):
            if grown is None:
                grown = join_moved(key, counts, sizes, change)
            return np.concatenate(([total], grown[:-1])).astype(np.int64)
        before = np.maximum(sizes - 1, 1)
        return np.where(sizes > 1, join_moved(key, counts, before, change), total)
    if assignor == "simple":
        shrink = _simple_leave_moved(total, sizes)
    elif assignor == "uniform":
        # The last members in hash order hold the extra partition.
        shrink = -(-total // sizes) if change == "last" else total // sizes
    else:
        shrink = cf.sticky_moved_on_shrink(total, sizes, change)
    return np.where(sizes > 1, shrink, total).astype(np.int64)


def _simple_desired_low(total: int, sizes: IntArray) -> tuple[IntArray, IntArray]:
    # Sharing s = ceil(C / T) and the smallest desired count, floor(s T / C) (Kafka's
    # ceil(x (i + 1)) - ceil(x i) is floor(x) or ceil(x)).
    sharing = -(-sizes // total)
    return sharing, (sharing * total) // sizes


def _simple_join_moved(total: int, sizes: IntArray) -> IntArray:
    s, _ = _simple_desired_low(total, sizes)
    s_new, lo_new = _simple_desired_low(total, sizes + 1)
    moved: IntArray = np.maximum(0, s * total - s_new * total + lo_new).astype(np.int64)
    return moved


def _simple_leave_moved(total: int, sizes: IntArray) -> IntArray:
    s, lo = _simple_desired_low(total, sizes)
    s_new, _ = _simple_desired_low(total, np.maximum(sizes - 1, 1))
    survivors = s * total - lo
    moved: IntArray = (lo + np.maximum(0, survivors - s_new * total)).astype(np.int64)
    return moved


def revoked(key: str, moved: IntArray, total: int) -> IntArray:
    """Partitions revoked in the rebalance: all `total` under the classic eager
    protocol, the moved ones otherwise."""
    if key in EAGER_STRATEGIES:
        return np.full(np.shape(moved), total, dtype=np.int64)
    return np.asarray(moved, dtype=np.int64)


def churn(
    key: str, counts: Sequence[int], sizes: IntArray, change: MemberChange = "last"
) -> dict[str, IntArray]:
    """`CHURN_COLUMNS` for one member joining and one leaving a fresh group of each size.

    Args:
        key: A strategy key (`planner.simulate.strategies`).
        counts: Each topic's partition count.
        sizes: Group sizes (each >= 1).
        change: Where the joiner or leaver sorts in the assignor's member order (`last`
            or `first`; Java order for `range`, hash order for `uniform`).
    """
    total = int(sum(counts))
    grow = join_moved(key, counts, sizes, change)
    shrink = leave_moved(key, counts, sizes, change, grown=grow)
    return {
        "grow_moved": grow,
        "grow_revoked": revoked(key, grow, total),
        "shrink_moved": shrink,
        "shrink_revoked": revoked(key, shrink, total),
    }


def event_costs(
    key: str,
    moved: Mapping[str, IntArray],
    sizes: IntArray,
    total: int,
    timings: ProtocolTimings = KAFKA_DEFAULTS,
) -> dict[str, npt.NDArray[Any]]:
    """`COST_COLUMNS` of each size, from its `churn` (see the module docstring).

    Args:
        key: A strategy key.
        moved: `churn(...)` for the same sizes.
        sizes: Group sizes.
        total: The group's partitions, all topics.
        timings: The protocol settings (Kafka 4.4.0's defaults).

    Returns:
        `stops_group` (bool), `grow_rounds` and `shrink_rounds` (rebalance rounds, int),
        `grow_paused_partition_s` and `shrink_paused_partition_s` (expected partition-
        seconds without a consuming owner), `shrink_locked_record_s` (share groups: the
        leaver's in-flight records x the lock duration; 0 otherwise).
    """
    protocol = protocol_of(key)
    n = sizes.size
    ones = np.ones(n, dtype=np.int64)
    locked = np.zeros(n)
    grow_rev = moved["grow_revoked"].astype(np.float64)
    shrink_rev = moved["shrink_revoked"].astype(np.float64)
    if protocol == "classic":
        beat_s = timings.classic_heartbeat_interval_ms / 1000.0
        eager = key in EAGER_STRATEGIES
        # Eager: everything revoked pauses about a heartbeat; cooperative: the moved
        # partitions, between the two rounds.
        grow_s, shrink_s = grow_rev * beat_s, shrink_rev * beat_s
        if eager:
            rounds_grow = rounds_shrink = ones
        else:
            rounds_grow = np.where(moved["grow_moved"] > 0, 2, 1).astype(np.int64)
            rounds_shrink = np.where(moved["shrink_moved"] > 0, 2, 1).astype(np.int64)
        return {
            "stops_group": np.full(n, eager),
            "grow_rounds": rounds_grow,
            "shrink_rounds": rounds_shrink,
            "grow_paused_partition_s": grow_s,
            "shrink_paused_partition_s": shrink_s,
            "shrink_locked_record_s": locked,
        }
    if protocol == "consumer":
        wait_s = timings.consumer_heartbeat_interval_ms / 2000.0
        assign_s = timings.consumer_assignment_interval_ms / 1000.0
        grow_s = grow_rev * wait_s
    else:
        wait_s = timings.share_heartbeat_interval_ms / 2000.0
        assign_s = timings.share_assignment_interval_ms / 1000.0
        # A join takes nothing away that others stop reading before they are told.
        grow_s = np.zeros(n)
        locked = np.full(
            n, timings.share_max_poll_records * timings.share_record_lock_duration_ms / 1000.0
        )
    return {
        "stops_group": np.zeros(n, dtype=bool),
        "grow_rounds": ones,
        "shrink_rounds": ones.copy(),
        "grow_paused_partition_s": grow_s,
        "shrink_paused_partition_s": _unread_on_leave(key, moved, sizes, total)
        * (assign_s + wait_s),
        "shrink_locked_record_s": locked,
    }


def _unread_on_leave(
    key: str, moved: Mapping[str, IntArray], sizes: IntArray, total: int
) -> FloatArray:
    # The partitions a leave leaves without a reader until they are reassigned: the
    # moved ones under the consumer protocol; in a share group the leaver's own when it
    # read them alone (C <= T: its desired count, at least floor(T / C)), none when
    # every partition has other members (C > T).
    if protocol_of(key) != "share":
        return moved["shrink_revoked"].astype(np.float64)
    alone = np.where(sizes <= total, total // sizes, 0)
    return alone.astype(np.float64)


def moved_between(
    assignment: Mapping[str, Sequence[tuple[str, int]]],
    previous: Mapping[str, Sequence[tuple[str, int]]],
    counts: Mapping[str, int],
) -> int:
    """Partitions whose owner changed from `previous` to `assignment` (a departed owner
    counts as a change); partitions of topics or numbers no longer there are left out."""
    now = {tp: m for m, tps in assignment.items() for tp in tps}
    before: dict[tuple[str, int], str] = {}
    for member, tps in previous.items():
        for topic, partition in tps:
            if topic in counts and 0 <= partition < counts[topic]:
                before[(topic, int(partition))] = member
    return sum(1 for tp, owner in before.items() if now.get(tp) != owner)


def assignments_moved(
    assignment: Mapping[str, Sequence[tuple[str, int]]],
    previous: Mapping[str, Sequence[tuple[str, int]]],
    counts: Mapping[str, int],
) -> int:
    """(member, partition) assignments of `previous` that `assignment` no longer has (a
    share group, whose partitions several members may hold; a departed member's all
    count); partitions of topics or numbers no longer there are left out."""
    kept = {(m, (str(t), int(p))) for m, tps in assignment.items() for t, p in tps}
    return sum(
        1
        for member, tps in previous.items()
        for topic, partition in tps
        if topic in counts
        and 0 <= partition < counts[topic]
        and (member, (topic, int(partition))) not in kept
    )
