"""The public functions that take pairs or records accept what `json.load` gives.

JSON has no tuples and no bytes: a `(topic, partition)` pair comes back as a two-item
list, a group spec as an object or a list, a key as text. Each function gives the same
answer for the JSON form as for the Python one, and still refuses what is malformed
with a `TypeError` that names the entry.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from planner.assignors import CLIENTS, STRATEGIES, assign
from planner.partitioners import hash_keys, partitions_for_keys
from planner.recommend import GroupInfo, TopicHistory, plan_topic
from planner.simulate import TopicLoad, partition_loads, simulate_group
from planner.sizing import SideCapacity


def _json(value: Any) -> Any:
    """`value` as it comes back from a JSON file."""
    return json.loads(json.dumps(value))


PARTITIONS = {"orders": 6, "payments": 3}
MEMBERS = {"c0": ["orders", "payments"], "c1": ["orders", "payments"], "c2": ["orders"]}
PREVIOUS = {
    "c0": [("orders", 0), ("orders", 1), ("payments", 0)],
    "c1": [("orders", 2), ("payments", 1), ("payments", 2)],
    "gone": [("orders", 3), ("orders", 4), ("orders", 5)],
}


@pytest.mark.parametrize("client", CLIENTS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_previous_assignment_read_from_json_assigns_as_the_tuples_do(
    strategy: str, client: str
) -> None:
    from_json = _json(PREVIOUS)
    assert from_json["c0"][0] == ["orders", 0]  # lists, not tuples
    expected = assign(strategy, PARTITIONS, MEMBERS, PREVIOUS, client=client)
    assert assign(strategy, PARTITIONS, _json(MEMBERS), from_json, client=client) == expected


@pytest.mark.parametrize(
    ("owned", "shown"),
    [
        (["orders", "0"], "['orders', '0']"),  # a partition as text
        (["orders"], "['orders']"),  # half a pair
        (["orders", 0, 1], "['orders', 0, 1]"),  # three items
        ([0, "orders"], "[0, 'orders']"),  # the wrong way round
        (["orders", True], "['orders', True]"),  # a bool is not a partition
        ("orders-0", "'orders-0'"),  # not a pair at all
        ({"topic": "orders", "partition": 0}, "{'topic': 'orders', 'partition': 0}"),
    ],
)
def test_a_malformed_previous_pair_is_refused_naming_the_member_and_the_entry(
    owned: object, shown: str
) -> None:
    with pytest.raises(TypeError) as refused:
        assign("sticky", PARTITIONS, MEMBERS, {"c1": [owned]})
    assert "'c1'" in str(refused.value) and shown in str(refused.value)


def test_previous_ownership_that_is_not_a_list_is_refused() -> None:
    with pytest.raises(TypeError, match="must be a list of partitions"):
        assign("sticky", PARTITIONS, MEMBERS, {"c1": "orders"})
    with pytest.raises(TypeError, match="member ids must be str"):
        assign("sticky", PARTITIONS, MEMBERS, {1: [["orders", 0]]})  # type: ignore[dict-item]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_simulate_group_with_a_json_previous_assignment_counts_the_same_churn(
    strategy: str,
) -> None:
    loads = {"orders": [1.0] * 6, "payments": [2.0] * 3}
    args = {"consumer_capacity": 10.0, "keep_free_pct": 0.0}
    expected = simulate_group(loads, MEMBERS, strategy, previous=PREVIOUS, **args)
    got = simulate_group(_json(loads), _json(MEMBERS), strategy, previous=_json(PREVIOUS), **args)
    assert got.assignment == expected.assignment
    assert (got.moved, got.revoked) == (expected.moved, expected.revoked)


KEYS = [b"alice", b"bob", "\u00e9l\u00e8ve".encode(), b"", None]
COUNTS = [5.0, 3.0, 1.0, 1.0, 2.0]


def test_a_key_sample_read_from_json_places_keys_as_their_utf8_bytes() -> None:
    text = _json([None if k is None else k.decode() for k in KEYS])
    assert text[0] == "alice"
    for partitioner in ("murmur2_random", "consistent", "fnv1a"):
        expected = partitions_for_keys(KEYS, 7, partitioner, keyless="mark")
        got = partitions_for_keys(text, 7, partitioner, keyless="mark")
        assert got.tolist() == expected.tolist()
        assert hash_keys(text, partitioner).folded.tolist() == (
            hash_keys(KEYS, partitioner).folded.tolist()
        )
    from_bytes = TopicLoad(12.0, KEYS, COUNTS)
    from_json = TopicLoad(12.0, text, _json(COUNTS))
    assert partition_loads(from_json, 5).tolist() == partition_loads(from_bytes, 5).tolist()


@pytest.mark.parametrize("bad", [[b"a", 7], ["a", ["b"]], ["a", {"key": "b"}], [b"a", 1.5]])
def test_a_key_that_is_not_bytes_text_or_null_is_refused_naming_its_position(
    bad: list[Any],
) -> None:
    with pytest.raises(TypeError, match=r"keys\[1\] is "):
        partitions_for_keys(bad, 3)
    with pytest.raises(TypeError, match=r"keys\[1\] is "):
        TopicLoad(1.0, bad, [1.0, 1.0])


def _history() -> TopicHistory:
    ts = np.arange(14 * 24) * 3600.0
    return TopicHistory("orders", ts, mib_in=np.full(ts.size, 20.0), current_partitions=6)


GROUPS = [GroupInfo("billing", "range", 3), GroupInfo("audit", "cooperative-sticky", 1)]


@pytest.mark.parametrize(
    "spec",
    [
        [{"group_id": g.group_id, "strategy": g.strategy, "members": g.members} for g in GROUPS],
        [[g.group_id, g.strategy, g.members] for g in GROUPS],
    ],
    ids=["objects", "lists"],
)
def test_group_specs_read_from_json_plan_as_group_infos_do(spec: list[Any]) -> None:
    def plan(groups: Any) -> Any:
        return plan_topic(
            _history(),
            SideCapacity(mib_per_s=10.0),
            SideCapacity(mib_per_s=4.0),
            brokers=3,
            groups=groups,
        )

    expected = plan(GROUPS)
    got = plan(_json(spec))
    assert got.recommended_partitions == expected.recommended_partitions
    assert got.groups == expected.groups
    assert [GroupInfo.of(g) for g in _json(spec)] == GROUPS


@pytest.mark.parametrize(
    "spec",
    [
        ["billing", "range"],  # a field missing
        {"group_id": "billing", "strategy": "range"},
        {"group_id": "billing", "strategy": "range", "members": 3, "extra": 1},
        ["billing", "range", "3"],  # members as text
        ["billing", "range", 2.5],
        ["billing", "range", True],
        [7, "range", 3],
        "billing",
    ],
)
def test_a_malformed_group_spec_is_refused(spec: object) -> None:
    with pytest.raises(TypeError):
        GroupInfo.of(spec)
    with pytest.raises(TypeError):
        plan_topic(
            _history(),
            SideCapacity(mib_per_s=10.0),
            SideCapacity(mib_per_s=4.0),
            brokers=3,
            groups=[spec],  # type: ignore[list-item]
        )
