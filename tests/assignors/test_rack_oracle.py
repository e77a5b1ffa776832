"""Rack-aware classic assignors (KIP-881) against Kafka 4.4.0's own classes.

Each case is a random group (``strategies.groups``: messy previous claims included) with
racks drawn on top: every partition's replicas on racks ``a``/``b``/``c`` (replication
factor 1-3, a rack sometimes twice, sometimes a broker without ``broker.rack``), and each
member's ``client.rack`` one of ``a``/``b``/``c``, ``d`` (no replica there) or none. Kafka
allows members with and without a rack in one group; so does the planner. The oracle's
``rack_assign`` builds the cluster metadata with those brokers and sends each member's rack
in its Subscription, as the Java consumer sends ``client.rack``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.assignors import Racks, assign
from planner.assignors._racks import sticky_racks
from tests.assignors.strategies import (
    MEMBER_IDS,
    Group,
    Plain,
    changed_groups,
    examples,
    groups,
    plain,
    skewed_groups,
)
from tests.oracle.java_oracle import JavaOracle

ReplicaRacks = dict[str, list[list[str | None]]]

REPLICA_RACK = st.sampled_from(["a", "b", "c", "a", "b", "c", None])
MEMBER_RACK = st.sampled_from(["a", "b", "c", "a", "b", "c", "d", ""]) | st.none()


@st.composite
def racked(
    draw: st.DrawFn, group: Group, *, even_topics: bool = False
) -> tuple[ReplicaRacks, dict[str, str]]:
    """Replica racks for every partition of the group's topics and a rack for some members.

    With ``even_topics``, about half the topics have every partition on the same racks, so
    that they need no racks on their own (Kafka's range still matches racks on them when
    they are co-partitioned and another topic needs racks).
    """
    spread = draw(st.booleans())  # Kafka's own placement: distinct racks per partition
    replicas: ReplicaRacks = {}
    for topic, count in group.partitions_per_topic.items():
        if even_topics and draw(st.booleans()):
            factor = draw(st.integers(1, 3))
            racks = draw(st.lists(REPLICA_RACK, min_size=factor, max_size=factor))
            replicas[topic] = [list(racks) for _ in range(count)]
            continue
        per_partition = []
        for _ in range(count):
            factor = draw(st.integers(1, 3))
            if spread:
                first = draw(st.integers(0, 2))
                per_partition.append([("a", "b", "c")[(first + k) % 3] for k in range(factor)])
            else:
                per_partition.append(draw(st.lists(REPLICA_RACK, min_size=factor, max_size=factor)))
        replicas[topic] = per_partition
    members = {}
    for member_id in group.subscriptions:
        rack = draw(MEMBER_RACK)
        if rack is not None:
            members[member_id] = rack
    return replicas, members


def both(
    oracle: JavaOracle, strategy: str, group: Group, replicas: ReplicaRacks, members: dict[str, str]
) -> tuple[Plain, Plain, bool | None]:
    java = oracle.rack_assign(strategy, replicas, group.subscriptions, members, group.previous)
    racks = Racks(members=members, replicas=replicas)
    ours = assign(
        strategy, group.partitions_per_topic, group.subscriptions, group.previous, racks=racks
    )
    return plain(ours), plain(java.assignment), java.general


def rack_aware(group: Group, replicas: ReplicaRacks, members: dict[str, str]) -> bool:
    subscribed = frozenset(
        t for ts in group.subscriptions.values() for t in ts if group.partitions_per_topic.get(t, 0)
    )
    racks = Racks(members=members, replicas=replicas)
    return (
        sticky_racks(group.partitions_per_topic, group.subscriptions, subscribed, racks) is not None
    )


@examples(400)
@given(data=st.data(), group=groups(ids=MEMBER_IDS, with_previous=False, max_members=7))
def test_range_with_racks_equals_kafka(
    kafka_oracle: JavaOracle, data: st.DataObject, group: Group
) -> None:
    """Any subscriptions: per-topic rack matching, co-partitioned topics cut together."""
    replicas, members = data.draw(racked(group))
    ours, java, _ = both(kafka_oracle, "range", group, replicas, members)
    assert ours == java


@examples(300)
@given(
    data=st.data(),
    group=groups(identical=True, with_previous=False, max_members=6, max_partitions=4),
)
def test_range_co_partitioned_topics_with_racks_equal_kafka(
    kafka_oracle: JavaOracle, data: st.DataObject, group: Group
) -> None:
    """Identical subscriptions, so topics of equal partition counts are cut together, also
    when none of them needs racks on its own and a member's rack holds none of their
    replicas."""
    replicas, members = data.draw(racked(group, even_topics=True))
    ours, java, _ = both(kafka_oracle, "range", group, replicas, members)
    assert ours == java


STICKY = st.sampled_from(["sticky", "cooperative-sticky"])


@examples(500)
@given(data=st.data(), group=groups(ids=MEMBER_IDS, vanished=False), strategy=STICKY)
def test_sticky_with_racks_equals_kafka(
    kafka_oracle: JavaOracle, data: st.DataObject, group: Group, strategy: str
) -> None:
    """Fresh and messy previous assignments, both of Kafka's paths."""
    replicas, members = data.draw(racked(group))
    ours, java, general = both(kafka_oracle, strategy, group, replicas, members)
    assert general == (not group.identical)
    assert ours == java


@examples(250)
@given(data=st.data(), group=changed_groups(), strategy=STICKY)
def test_sticky_with_racks_equals_kafka_after_changes(
    kafka_oracle: JavaOracle, data: st.DataObject, group: Group, strategy: str
) -> None:
    """Settled groups after members joined or left, topics grew or subscriptions changed."""
    replicas, members = data.draw(racked(group))
    ours, java, _ = both(kafka_oracle, strategy, group, replicas, members)
    assert ours == java


@examples(150)
@given(data=st.data(), group=skewed_groups(), strategy=STICKY)
def test_sticky_with_racks_equals_kafka_when_a_few_members_owned_everything(
    kafka_oracle: JavaOracle, data: st.DataObject, group: Group, strategy: str
) -> None:
    replicas, members = data.draw(racked(group))
    ours, java, _ = both(kafka_oracle, strategy, group, replicas, members)
    assert ours == java


@examples(100)
@given(data=st.data(), group=groups(with_previous=False), strategy=st.sampled_from(["roundrobin"]))
def test_roundrobin_ignores_racks_as_kafka_does(
    kafka_oracle: JavaOracle, data: st.DataObject, group: Group, strategy: str
) -> None:
    replicas, members = data.draw(racked(group))
    ours, java, _ = both(kafka_oracle, strategy, group, replicas, members)
    assert ours == java == plain(assign(strategy, group.partitions_per_topic, group.subscriptions))


@examples(150)
@given(data=st.data(), group=groups(vanished=False), strategy=st.sampled_from(["range", "sticky"]))
def test_racks_on_every_partition_change_nothing(
    kafka_oracle: JavaOracle, data: st.DataObject, group: Group, strategy: str
) -> None:
    """Replication factor 3 over racks a, b, c: every partition on every rack, so Kafka's
    condition fails and both sides give the result without racks."""
    _, members = data.draw(racked(group))
    replicas: ReplicaRacks = {
        t: [[("a", "b", "c")[(p + k) % 3] for k in range(3)] for p in range(n)]
        for t, n in group.partitions_per_topic.items()
    }
    assert not rack_aware(group, replicas, members)
    ours, java, _ = both(kafka_oracle, strategy, group, replicas, members)
    without = plain(
        assign(strategy, group.partitions_per_topic, group.subscriptions, group.previous)
    )
    assert ours == java == without


def test_a_rack_aware_case_differs_from_the_plain_one(kafka_oracle: JavaOracle) -> None:
    """The differential tests can fail: racks do change Kafka's answer, and ours with it."""
    group = Group({"t": 4}, {"c0": ["t"], "c1": ["t"]}, None)
    replicas: ReplicaRacks = {"t": [["b"], ["a"], ["b"], ["a"]]}
    members = {"c0": "a", "c1": "b"}
    for strategy in ("range", "sticky"):
        ours, java, _ = both(kafka_oracle, strategy, group, replicas, members)
        assert ours == java == {"c0": [("t", 1), ("t", 3)], "c1": [("t", 0), ("t", 2)]}
        assert ours != plain(assign(strategy, {"t": 4}, group.subscriptions))


@pytest.mark.parametrize("strategy", ["sticky", "cooperative-sticky", "range"])
def test_racks_with_librdkafka_are_refused(strategy: str) -> None:
    racks = Racks(members={"c0": "a"}, replicas={"t": [["a"]]})
    with pytest.raises(ValueError, match="Java client only"):
        assign(strategy, {"t": 1}, {"c0": ["t"]}, client="librdkafka", racks=racks)


def test_co_partitioned_topics_match_racks_even_when_they_need_none(
    kafka_oracle: JavaOracle,
) -> None:
    """t1 and t2 have every partition on rack a (neither needs racks alone), t3 does need
    them: Kafka still walks t1 and t2 together by rack, so c0 on rack d, matching none of
    their replicas, is left the partitions c1 cannot take."""
    group = Group(
        {"t1": 2, "t2": 2, "t3": 3},
        {"c0": ["t1", "t2", "t3"], "c1": ["t1", "t2", "t3"]},
        None,
    )
    replicas: ReplicaRacks = {
        "t1": [["a"], ["a"]],
        "t2": [["a"], ["a"]],
        "t3": [["a"], ["b"], ["a"]],
    }
    ours, java, _ = both(kafka_oracle, "range", group, replicas, {"c0": "d", "c1": "a"})
    assert (
        ours
        == java
        == {
            "c0": [("t1", 1), ("t2", 1), ("t3", 1)],
            "c1": [("t1", 0), ("t2", 0), ("t3", 0), ("t3", 2)],
        }
    )
