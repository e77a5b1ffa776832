"""The sizing table over every protocol's strategies: owners, scale events, share sizes."""

from __future__ import annotations

import pytest

from planner.simulate import ALL_STRATEGIES, TopicLoad, simulate_grid
from planner.simulate.group_table import GroupTable, StrategySizes, one_topic_table
from planner.simulate.multi_topic import SHARE_GROUP_MAX_SIZE, group_churn, group_event_costs


def _table(extra: int = 0) -> GroupTable:
    grid = simulate_grid(
        TopicLoad(2.4),
        consumer_capacity=1.0,
        partition_counts=[12],
        strategies=ALL_STRATEGIES,
        extra_members=extra,
    )
    return one_topic_table(
        grid,
        topic="t",
        partitions=12,
        current_partitions=12,
        scale_now=0.5,
        most=12 + extra,
        busiest_today=None,
        on_today=False,
        strategies=ALL_STRATEGIES,
    )


def test_owners_per_protocol() -> None:
    table = GroupTable(("a", "b"), (7, 5), (7, None), {}, lambda _s, _m: 0)
    assert table.owners("range") == table.owners("consumer:range") == 7
    assert table.owners("roundrobin") == table.owners("consumer:uniform") == 12
    assert table.owners("share:simple") == SHARE_GROUP_MAX_SIZE
    assert table.owners("consumer:range", today=True) == 7
    assert table.owners("a-custom-assignor") == 12  # not simulated: as before


def test_a_share_group_fits_with_more_members_than_partitions() -> None:
    """2.4 consumers of load on 12 partitions at a limit of 0.1 a member: a classic or
    consumer-protocol group cannot fit (a partition alone is 0.2), a share group of 24
    members can (each partition read by two)."""
    table = _table(extra=20)
    assert table.sizes["range"].smallest_fit(0.1, at_horizon=True) is None
    assert table.sizes["consumer:uniform"].smallest_fit(0.1, at_horizon=True) is None
    assert table.sizes["share:simple"].smallest_fit(0.1, at_horizon=True) == 24
    assert isinstance(table.sizes["share:simple"], StrategySizes)


@pytest.mark.parametrize("key", ALL_STRATEGIES)
def test_scale_event_of_a_row_is_the_multi_topic_churn(key: str) -> None:
    table = _table()
    assert table.scale_event is not None
    for members in (1, 5, 11, 12):
        event = table.scale_event(key, members)
        expected = {**group_churn([12], members, key), **group_event_costs([12], members, key)}
        assert event == pytest.approx(expected)
        assert table.revoked_on_join(key, members) == expected["grow_revoked"]
    with pytest.raises(ValueError, match="no row"):
        table.scale_event(key, 40)
