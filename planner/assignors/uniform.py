"""The consumer protocol's ``uniform`` assignor (KIP-848), computed as the broker does.

The group coordinator assigns (``group.protocol=consumer``); ``uniform`` is the first of
the broker's ``group.consumer.assignors`` and so the default. It balances partition counts
over the members and keeps what it can of each member's current target assignment.
"""

from __future__ import annotations

from planner.assignors import _fresh, _grown
from planner.assignors._fresh import FreshGroup
from planner.assignors._grown import GrownGroup
from planner.assignors._java_hashing import JavaHashTable, capacity_for_copy
from planner.assignors._members import (
    Assignment,
)
from planner.assignors._server_assignor import ServerAssignor
from planner.assignors._server_group import ServerGroup, as_assignment

# Kafka stops its balancing passes after this many rounds over the topics.
_MAX_BALANCE_ROUNDS = 16


class UniformAssignor(ServerAssignor):
    """Kafka's broker-side ``uniform`` assignor, homogeneous and heterogeneous groups.

    **Same topics for every member** (homogeneous). The members are taken in the order of
    the coordinator's member ``HashMap``; with ``T`` partitions over ``M`` members, ``T mod
    M`` of them hold ``T div M + 1`` partitions, the others ``T div M``. Each member, in
    that order, may keep up to ``T div M + 1`` of its previous target partitions while
    extra slots remain (topics in the order of its replayed assignment, partitions in
    ``HashSet`` order) and gives up the rest; a member that kept fewer leaves its extra
    slot to later members as long as enough of them remain to use all the extra slots
    (so in a fresh group the *last* members in hash order get the extra partitions). The
    partitions nobody holds then go, in topic-id hash order (topic ids sharing a bucket in
    the order of the first member's ``HashSet`` of topic names) and partition order, to
    the members below quota in member order.

    **Different topics** (heterogeneous). Each member keeps all its previous partitions of
    topics it still subscribes to. The unheld partitions go topic by topic (most partitions
    per subscriber first, then fewer subscribers, then topic id) round-robin to the least
    loaded subscribers (ties: member order). Then, up to 16 rounds over the topics with two
    or more subscribers, partitions move from the most to the least loaded subscriber of
    each topic (the highest-numbered partition of the member with the highest index among
    the most loaded first) until no topic's subscribers differ by more than one.

    Example:
        A fresh group of three over one topic of 7 partitions (the last member in hash
        order gets the extra one), then ``c3`` joins: ``c2`` gives up partition 6.

        >>> from planner.assignors.uniform import UniformAssignor
        >>> members = {"c0": ["t"], "c1": ["t"], "c2": ["t"]}
        >>> ids = {"t": "2i5pS0Q3T3anZrJ3rBNdaA"}
        >>> first = UniformAssignor().assign({"t": 7}, members, topic_ids=ids)
        >>> {m: [p for _, p in tps] for m, tps in first.items()}
        {'c0': [0, 1], 'c1': [2, 3], 'c2': [4, 5, 6]}
        >>> grown = {**members, "c3": ["t"]}
        >>> joined = UniformAssignor().assign({"t": 7}, grown, first, topic_ids=ids)
        >>> {m: [p for _, p in tps] for m, tps in joined.items()}
        {'c0': [0, 1], 'c1': [2, 3], 'c2': [4, 5], 'c3': [6]}
    """

    name = "uniform"

    def closed_form(self, fresh: FreshGroup) -> Assignment:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        return _fresh.uniform(fresh)

    def grown_form(self, grown: GrownGroup) -> Assignment | None:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        return _grown.uniform(grown)

    def build(self, group: ServerGroup) -> Assignment:
        """See :class:`~planner.assignors._server_assignor.ServerAssignor`."""
        if not group.members:
            return {}
        chosen = _homogeneous(group) if group.homogeneous else _Heterogeneous(group).build()
        return as_assignment(group.given, chosen)


def _homogeneous(group: ServerGroup) -> dict[str, dict[str, list[int]]]:
    members = group.members
    subscribed = group.topics[members[0]]
    if not subscribed:
        return {}
    # The builder copies the first member's TopicIds into a HashSet<Uuid>: sized for all
    # its names (TopicIds.size() counts names without a topic too), filled in the order of
    # the names' HashSet, which decides the order within a bucket of topic ids.
    topic_table: JavaHashTable[str] = JavaHashTable(
        group.topic_hash,
        initial_capacity=capacity_for_copy(len(group.subscribed[members[0]])),
    )
    for topic in subscribed:
        topic_table.add(topic)
    held = {
        (t, p) for per_topic in group.previous.values() for t, ps in per_topic.items() for p in ps
    }
    unassigned: list[tuple[str, int]] = []
    total = 0
    for topic in topic_table.order():
        count = group.partitions[topic]
        unassigned += [(topic, p) for p in range(count) if (topic, p) not in held]
        total += count
    quota_min, extra = divmod(total, len(members))
    subscribed_set = set(subscribed)
    chosen: dict[str, dict[str, list[int]]] = {}
    unfilled: list[tuple[str, int]] = []
    for index, member_id in enumerate(members):
        quota = quota_min + (extra > 0)
        kept: dict[str, list[int]] = {}
        for topic, partitions in group.previous.get(member_id, {}).items():
            if topic not in subscribed_set:
                continue
            if len(partitions) <= quota:
                quota -= len(partitions)
                kept[topic] = list(partitions)
            else:
                kept[topic] = list(partitions[:quota])
                unassigned += [(topic, p) for p in partitions[quota:]]
                quota = 0
        quota, extra = _grown.uniform_quota_left(quota, extra, len(members) - index)
        if quota > 0:
            unfilled.append((member_id, quota))
        chosen[member_id] = kept
    index = 0
    for member_id, quota in unfilled:
        for topic, partition in unassigned[index : index + quota]:
            chosen[member_id].setdefault(topic, []).append(partition)
        index += quota
    if index < len(unassigned):  # Kafka throws too; the quotas always cover every partition
        raise AssertionError("uniform left partitions unassigned")
    return chosen


class _Heterogeneous:
    """The heterogeneous builder's state: owners per partition, sizes per member index."""

    def __init__(self, group: ServerGroup) -> None:
        self.group = group
        self.members = group.members
        self.subscribers: dict[str, list[int]] = {}
        for index, member_id in enumerate(self.members):
            for topic in group.topics[member_id]:
                self.subscribers.setdefault(topic, []).append(index)
        self.owners = {t: [-1] * group.partitions[t] for t in self.subscribers}
        self.sizes = [0] * len(self.members)
        self.chosen: dict[str, dict[str, set[int]]] = {m: {} for m in self.members}

    def _topic_key(self, topic: str) -> tuple[float, int, tuple[int, int]]:
        subscribers = len(self.subscribers[topic])
        return (
            -(self.group.partitions[topic] / subscribers),
            subscribers,
            self.group.ids[topic].sort_key(),
        )

    def build(self) -> dict[str, dict[str, set[int]]]:
        if not self.subscribers:
            return {}
        for index, member_id in enumerate(self.members):
            topics = set(self.group.topics[member_id])
            for topic, partitions in self.group.previous.get(member_id, {}).items():
                if topic not in topics:
                    continue  # a topic the member no longer subscribes to is revoked
                self.sizes[index] += len(partitions)
                self.chosen[member_id][topic] = set(partitions)
                for partition in partitions:
                    self.owners[topic][partition] = index
        balancer = _Balancer(self.sizes)
        unheld = {t: [p for p, o in enumerate(self.owners[t]) if o == -1] for t in self.subscribers}
        for topic in sorted((t for t, ps in unheld.items() if ps), key=self._topic_key):
            balancer.initialize(self.subscribers[topic])
            for partition in unheld[topic]:
                self._move(topic, partition, balancer.next_least_loaded())
        movable = [t for t in self.subscribers if len(self.subscribers[t]) >= 2]
        if movable:
            self._balance(sorted(movable, key=self._topic_key))
        return self.chosen

    def _balance(self, topics: list[str]) -> None:
        balancer = _Balancer(self.sizes)
        last_moved = -1
        for _ in range(_MAX_BALANCE_ROUNDS):
            for index, topic in enumerate(topics):
                if index == last_moved:
                    return  # a whole round without a move
                moved = self._balance_topic(topic, balancer)
                if moved > 0 or last_moved == -1:
                    last_moved = index

    def _balance_topic(self, topic: str, balancer: _Balancer) -> int:
        owners = self.owners[topic]
        if balancer.initialize(self.subscribers[topic]) <= 1:
            return 0
        # Partitions grouped by owner index, each owner's run in partition order.
        partitions = sorted(range(len(owners)), key=lambda p: (owners[p], p))
        start: dict[int, int] = {}
        end: dict[int, int] = {}
        for i, partition in enumerate(partitions):
            start.setdefault(owners[partition], i)
            end[owners[partition]] = i + 1
        moved = 0
        while not balancer.is_balanced():
            while True:
                donor = balancer.next_most_loaded()
                if donor == -1:
                    break
                if donor not in end or end[donor] - start[donor] <= 0:
                    balancer.exclude_most_loaded()
                    continue
                break
            if donor == -1:
                break
            partition = partitions[end[donor] - 1]
            end[donor] -= 1
            taker = balancer.next_least_loaded()
            if balancer.is_balanced():
                break
            self._move(topic, partition, taker)
            moved += 1
        return moved

    def _move(self, topic: str, partition: int, index: int) -> None:
        old = self.owners[topic][partition]
        if old != -1:
            held = self.chosen[self.members[old]][topic]
            held.discard(partition)
            if not held:
                del self.chosen[self.members[old]][topic]
            self.sizes[old] -= 1
        self.chosen[self.members[index]].setdefault(topic, set()).add(partition)
        self.owners[topic][partition] = index
        self.sizes[index] += 1


class _Balancer:
    """Two moving ranges over one topic's subscribers sorted by load: the least loaded
    (filled left to right, level by level) and the most loaded (emptied right to left)."""

    def __init__(self, sizes: list[int]) -> None:
        self.sizes = sizes
        self.sorted: list[int] = []
        self.least_end = 0
        self.least_count = -1
        self.next_least = 0
        self.most_start = 0
        self.most_end = 0
        self.most_count = 1
        self.next_most = -1

    def initialize(self, members: list[int]) -> int:
        sizes = self.sizes
        self.sorted = sorted(members, key=lambda i: (sizes[i], i))
        self.least_end = 0
        self.least_count = sizes[self.sorted[0]] - 1
        self.next_least = 0
        self.most_start = self.most_end = len(self.sorted)
        self.most_count = sizes[self.sorted[-1]] + 1
        self.next_most = len(self.sorted) - 1
        return sizes[self.sorted[-1]] - sizes[self.sorted[0]]

    def next_least_loaded(self) -> int:
        if self.next_least >= self.least_end:
            self.least_count += 1
            while (
                self.least_end < len(self.sorted)
                and self.sizes[self.sorted[self.least_end]] == self.least_count
            ):
                self.least_end += 1
            self.next_least = 0
        member = self.sorted[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = self.sizes[self.sorted[self.most_start - 1]]
            else:
                self.most_count -= 1
            while (
                self.most_start > 0
                and self.sizes[self.sorted[self.most_start - 1]] == self.most_count
            ):
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = self.sorted[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        i = self.next_most + 1
        self.sorted[i], self.sorted[self.most_end - 1] = (
            self.sorted[self.most_end - 1],
            self.sorted[i],
        )
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


# Follows Apache Kafka 4.4.0's org.apache.kafka.coordinator.group.assignor.UniformAssignor
# (UniformHomogeneousAssignmentBuilder and UniformHeterogeneousAssignmentBuilder), KIP-848.
