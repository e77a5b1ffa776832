"""Plans per group protocol: each group among its own protocol's assignors, share groups
sized past the partition count and their topic by the share model, and the alternatives
a classic group is offered."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planner.config import load_config
from planner.recommend import GroupInfo, PlanSettings, TopicHistory, TopicPlan, plan_topic
from planner.recommend.share import size_share_group
from planner.sizing import SideCapacity

HOUR = 3600.0
#: The worked example of docs/model.md section 8: 10,000 records/s of 1 KiB records,
#: members that take 1.3 ms a record (769 records/s), producers at 5,000 records/s.
RECORDS = 10_000.0
MEMBER = SideCapacity(records_per_s=1 / 0.0013)
PRODUCER = SideCapacity(records_per_s=5_000.0)


def _history(*, current: int | None = 4, keyed: bool = False) -> TopicHistory:
    ts = np.arange(14 * 24) * HOUR
    return TopicHistory(
        "jobs",
        ts,
        records_in=np.full(ts.size, RECORDS),
        current_partitions=current,
        keyed=keyed,
    )


def _plan(*groups: GroupInfo, **kwargs: object) -> TopicPlan:
    settings = PlanSettings(floor_growth_per_year=0.0, growth_model="none")
    return plan_topic(
        _history(),
        PRODUCER,
        MEMBER,
        brokers=3,
        groups=list(groups),
        settings=settings,
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_topic_only_share_groups_read_is_sized_by_the_share_model_not_by_tc() -> None:
    classic = _plan(GroupInfo("workers", "cooperative-sticky", 13))
    share = _plan(GroupInfo("workers", "simple", 13, "share"))
    # Tc asks for ceil(13,000 / 769) = 17 partitions for a classic group.
    assert classic.sizing.required_partitions == 17
    assert classic.recommended_partitions >= 17
    # A share group: the in-flight bound, 13,000 x 500 x 1.3 ms / 2,000 = 4.2 -> 5, and
    # the producers' 13,000 / 5,000 -> 3; the topic keeps its 4 and grows to 5.
    expected = size_share_group(
        {"records_in": RECORDS * 1.3}, producer=PRODUCER, member=MEMBER
    ).partitions
    assert share.share is not None and share.share.partitions == expected == 5
    assert share.choice.required == 5
    assert share.recommended_partitions < classic.recommended_partitions
    assert any("only share groups read it" in line for line in share.rationale)
    # The note that the share-fetch rate was assumed is among the topic's warnings.
    assert "share-fetch-assumed" in {w.code for w in share.warnings}


def test_the_configured_share_limits_size_a_share_only_topic(tmp_path: Path) -> None:
    """A broker with half the default record locks (`[planning.share] max_record_locks =
    1000`) doubles the in-flight bound: 13,000 x 500 x 1.3 ms / 1,000 = 8.45 -> 9
    partitions against 5, read from the config file as the jobs read it."""
    config = tmp_path / "planner.toml"
    config.write_text(
        "[planning]\ngrowth_model = 'none'\n[planning.share]\nmax_record_locks = 1000\n"
    )
    settings = load_config(config).planning
    plan = plan_topic(
        _history(),
        PRODUCER,
        MEMBER,
        brokers=3,
        groups=[GroupInfo("workers", "simple", 13, "share")],
        settings=settings,
    )
    assert plan.share is not None and plan.share.partitions == 9
    assert plan.choice.required == 9
    assert _plan(GroupInfo("workers", "simple", 13, "share")).choice.required == 5


def test_a_share_group_is_sized_past_the_partition_count_without_idle_members() -> None:
    plan = _plan(GroupInfo("workers", "simple", 4, "share"))
    (group,) = plan.groups
    assert (group.protocol, group.strategy, group.planned_as) == ("share", "simple", "share:simple")
    # 13 consumers' worth of load at the horizon, 10 today: more members than partitions.
    assert group.members_now > plan.recommended_partitions
    assert group.status == "under-provisioned" and group.recommended_members == group.members_now
    assert group.idle_members_now == 0 and group.standby_members == 0
    assert not {"idle-members", "strategy-switch"} & {n.code for n in group.notes}
    # Every member within the headroom: the busiest member's share of one partition.
    assert group.busiest_utilisation <= 1 - 0.3 / 1.3 + 1e-9


def test_a_shared_topic_takes_the_larger_of_the_rule_and_the_share_bounds() -> None:
    both = _plan(
        GroupInfo("billing", "cooperative-sticky", 13), GroupInfo("audit", "simple", 13, "share")
    )
    assert both.share is not None
    assert both.choice.required == max(both.sizing.required_partitions, both.share.partitions)
    # Counted from outside `groups` too: a multi-topic share group among the readers.
    alone = _plan(consuming_groups=1, share_groups=1)
    assert alone.share is not None and alone.choice.required == 5


def test_a_consumer_protocol_group_is_planned_among_the_brokers_assignors() -> None:
    plan = _plan(GroupInfo("billing", "range", 20, "consumer"))
    (group,) = plan.groups
    assert group.protocol == "consumer"
    assert group.strategy in ("uniform", "range")
    assert group.planned_as == f"consumer:{group.strategy}"
    assert not any(
        n.code == "strategy-switch" and n.params["strategy"] in ("cooperative-sticky", "sticky")
        for n in group.notes
    )
    # A group of the consumer protocol is not offered the consumer protocol.
    assert "consumer-protocol-alternative" not in {n.code for n in group.notes}


@pytest.mark.parametrize(("protocol", "assignor"), [("classic", "stream"), ("streams", "sticky")])
def test_a_streams_application_keeps_its_task_assignor(protocol: str, assignor: str) -> None:
    plan = _plan(GroupInfo("app", assignor, 3, protocol))
    (group,) = plan.groups
    assert (group.protocol, group.strategy, group.current_strategy) == (
        protocol,
        assignor,
        assignor,
    )
    assert group.planned_as == "cooperative-sticky"
    codes = {n.code for n in group.notes}
    assert "strategy-switch" not in codes and "consumer-protocol-alternative" not in codes


def test_a_classic_group_is_offered_the_consumer_protocol_with_its_costs() -> None:
    plan = _plan(GroupInfo("billing", "range", 20))
    (group,) = plan.groups
    (alternative,) = [n for n in group.notes if n.code == "consumer-protocol-alternative"]
    p = alternative.params
    assert p["members"] == group.recommended_members and p["strategy"] == group.planned_as
    assert p["assignor"] == ("range" if group.planned_as == "range" else "uniform")
    assert p["members_needed"] is not None


def test_a_keyless_topic_tc_decides_gets_the_share_alternative_a_keyed_one_why_not() -> None:
    keyless = _plan(GroupInfo("billing", "range", 13))
    offer, move = keyless.alternatives
    assert offer.code == "share-alternative"
    # The group's own move to the consumer protocol (it saves against its eager range)
    # is listed with the topic's, named.
    assert move.code == "consumer-protocol-alternative" and move.params["group_id"] == "billing"
    assert move.text.startswith("group 'billing': with the consumer protocol")
    # On cooperative-sticky already, it would pause more: not offered (issue 38).
    assert [n.code for n in _plan(GroupInfo("billing", "cooperative-sticky", 13)).alternatives] == [
        "share-alternative"
    ]
    assert offer.params["partitions"] == 5 < offer.params["classic_partitions"]
    assert offer.params["replicas_saved"] > 0
    keyed = plan_topic(
        _history(keyed=True),
        PRODUCER,
        MEMBER,
        brokers=3,
        groups=[GroupInfo("billing", "range", 13)],
        settings=PlanSettings(floor_growth_per_year=0.0, growth_model="none"),
    )
    assert [n.code for n in keyed.alternatives] == [
        "share-not-for-keyed",
        "consumer-protocol-alternative",
    ]
    # Read only by a share group already: nothing to offer.
    assert _plan(GroupInfo("workers", "simple", 13, "share")).alternatives == ()


def test_a_group_whose_own_assignor_is_as_good_is_not_told_to_switch() -> None:
    """At one member per partition the broker's range and uniform give every member one
    partition: same size, moves and load. Either group keeps its assignor; only the
    name order used to decide, which recommended a change for nothing."""
    for own in ("uniform", "range"):
        plan = plan_topic(
            _history(current=4),
            PRODUCER,
            SideCapacity(records_per_s=RECORDS / 4 / 0.7),
            brokers=3,
            groups=[GroupInfo("g", own, 4, "consumer")],
            settings=PlanSettings(floor_growth_per_year=0.0, growth_model="none"),
        )
        (group,) = plan.groups
        assert plan.recommended_partitions == 4 and group.members_now == 4
        assert group.strategy == own
        assert "strategy-switch" not in {n.code for n in group.notes}
