"""Choosing the partition count."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.recommend import choose_partitions, even_group_sizes


def test_even_group_sizes() -> None:
    assert even_group_sizes(12) == (1, 2, 3, 4, 6, 12)
    assert even_group_sizes(17) == (1, 17)
    assert even_group_sizes(24, max_group_size=8) == (1, 2, 3, 4, 6, 8)


def test_a_friendlier_count_within_the_slack() -> None:
    choice = choose_partitions(17, None)
    assert choice.recommended == 18  # 1, 2, 3, 6, 9, 18 against 1, 17
    assert choice.status == "create"  # a new topic: created, not increased
    assert "18 rather than the required 17" in choice.reason


def test_no_slack_means_the_requirement() -> None:
    assert choose_partitions(17, None, evenness_slack_pct=0).recommended == 17


def test_never_below_the_current_count() -> None:
    choice = choose_partitions(7, 30)
    assert choice.recommended == 30
    assert choice.status == "ok"
    assert "cannot shrink" in choice.reason


def test_one_partition_that_covers_the_rule_reads_in_the_singular() -> None:
    assert choose_partitions(1, 1).reason == (
        "the topic's 1 partition covers the 1 the rule asks for at the end of the horizon"
    )
    assert choose_partitions(2, 3).reason.startswith("the topic's 3 partitions cover the 2")


def test_status_today_versus_the_horizon() -> None:
    assert choose_partitions(20, 12, required_now=10).status == "plan-increase"
    assert choose_partitions(20, 12, required_now=14).status == "increase"
    assert choose_partitions(12, 12, required_now=10).status == "ok"


def test_the_cap_limits_the_search_not_the_requirement() -> None:
    choice = choose_partitions(1_201, None, max_partitions=1_000)
    assert choice.recommended == 1_201
    assert "above the 1000-partition cap" in choice.reason
    assert choose_partitions(997, None, max_partitions=1_000).recommended <= 1_000


def test_acceptable_filters_counts_above_the_floor() -> None:
    assert choose_partitions(17, None, acceptable=lambda n: n != 18).recommended == 20


def test_over_provision_against_today() -> None:
    assert choose_partitions(22, 12, required_now=15).over_provision == 24 - 15


@pytest.mark.parametrize("bad", [0, -1])
def test_bad_requirements(bad: int) -> None:
    with pytest.raises(ValueError):
        choose_partitions(bad, None)
    with pytest.raises(ValueError):
        choose_partitions(5, bad)


@given(required=st.integers(1, 2_000), current=st.none() | st.integers(1, 2_000))
def test_the_choice_respects_every_floor(required: int, current: int | None) -> None:
    choice = choose_partitions(required, current)
    assert choice.recommended >= required
    assert choice.recommended >= (current or 0)
    floor = max(required, current or 0)
    assert choice.recommended <= max(floor, int(floor * 1.2))


def test_todays_requirement_is_a_floor_at_the_horizon_too() -> None:
    # A keyed topic whose hot key is hot only at the horizon: the horizon's skew search
    # leaves it out (23), today's must fit it (26). Partitions cannot be removed.
    choice = choose_partitions(23, 12, required_now=26, evenness_slack_pct=0.0)
    assert choice.required == choice.required_now == 26
    assert choice.recommended == 26 and choice.over_provision == 0
    assert choice.status == "increase"
    assert choose_partitions(23, 30, required_now=26).status == "ok"
