"""Racks of a sample fleet: where each partition's replicas are, and which groups say
where their consumers run.

The brokers are in three racks (availability zones), broker `i` (from 1) in rack
`(i - 1) mod 3`, so consecutive brokers are in different racks and the broker count is
a multiple of three (`planner.sample.fleet`).

Replicas
    A topic's partition 0 is led by a broker drawn from its own stream (Kafka's
    assignment too starts at a random broker); each next partition is led by the next
    broker, round the cluster, and a partition's followers are the brokers after its
    leader. So leaders are spread evenly, and a partition's replicas are in as many
    racks as it has replicas, up to three: what Kafka's rack-aware placement guarantees
    (its follower shift between rounds is not modelled: it spreads which broker follows
    which, not racks). Every partition's leader is its preferred one (the fleet is
    healthy), so the text is the `topics.replicas` a collector would write.

Consumers' racks
    Chosen by group index, without a random draw, so a seed's other figures stay what
    they were: of every four groups one runs members in all three zones in turn, one
    all in one zone, and two say nothing (`client.rack` unset, or not given to the
    planner), which is what fleets look like before anyone counts cross-zone bytes.
"""

from __future__ import annotations

import numpy as np

from planner.cross_zone import replicas_text
from planner.sample.streams import Ints

__all__ = ["CLIENT_RACK_EVERY", "client_rack", "first_leaders", "replica_assignment"]

CLIENT_RACK_EVERY = 4
"""Groups cycle through this many kinds of `client_rack`: spread, one zone, unknown x2."""


def first_leaders(rng: np.random.Generator, topics: int, brokers: int) -> Ints:
    """The broker index (from 0) leading partition 0 of each topic."""
    return rng.integers(0, brokers, topics).astype(np.int64)


def replica_assignment(first: int, partitions: int, replication_factor: int, brokers: int) -> str:
    """A topic's `replicas` text: partition p led by broker `first + p`, followed by the
    brokers after it, round the cluster (broker ids from 1).

    Args:
        first: The broker index (from 0) leading partition 0.
        partitions: Its partition count.
        replication_factor: Replicas per partition (at most `brokers`).
        brokers: Brokers in the cluster.

    Example:
        >>> replica_assignment(4, 3, 3, 6)
        '5:6:1,6:1:2,1:2:3'
    """
    if not 1 <= replication_factor <= brokers:
        raise ValueError(
            f"replication factor {replication_factor} must be 1 to the {brokers} brokers"
        )
    return replicas_text(
        [
            [(first + p + r) % brokers + 1 for r in range(replication_factor)]
            for p in range(partitions)
        ]
    )


def client_rack(group: int, racks: tuple[str, ...]) -> str | None:
    """The `client_rack` of sample group number `group`: every rack in turn (members
    spread over the zones), one rack (all members in one zone), or None (not known)."""
    kind = group % CLIENT_RACK_EVERY
    if kind == 0:
        return ",".join(racks)
    if kind == 1:
        return racks[(group // CLIENT_RACK_EVERY) % len(racks)]
    return None
