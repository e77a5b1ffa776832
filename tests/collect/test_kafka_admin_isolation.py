"""The group reads' child process: a crash of the client library costs a retry, not the run.

The crash is librdkafka's abort (confluentinc/librdkafka#4605), which cannot be provoked
on purpose; the readers below stand in for the child's work and die the same way, with
SIGABRT from `os.abort()`. Everything else (the spawn, the pool, the pickling of the
settings and the results) is the real code path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from planner.collect.base import SourceUnavailable
from planner.collect.kafka_admin.calls import AdminCalls
from planner.collect.kafka_admin.consumer_groups import GroupsRead
from planner.collect.kafka_admin.isolated import read_groups_isolated
from planner.collect.kafka_groups import DescribedGroup, DescribedMember, GroupScan, group_rows

CALLS = AdminCalls(
    where="kafka-admin: Kafka at nowhere:9092", timeout_s=1, retries=0, retry_delay_s=0
)


def _group() -> DescribedGroup:
    member = DescribedMember(
        member_id="m1", client_id="c", group_instance_id=None, assignment=(("orders", 0),)
    )
    return DescribedGroup(
        group_id="billing", protocol="classic", state="STABLE", assignor="range", members=(member,)
    )


def _reads(config: Mapping[str, Any], calls: AdminCalls) -> tuple[GroupsRead, GroupScan]:
    described = [_group()]
    return GroupsRead(described=described), group_rows(described, lambda _: set())


def _crashes_once(config: Mapping[str, Any], calls: AdminCalls) -> tuple[GroupsRead, GroupScan]:
    marker = Path(config["marker"])
    if not marker.exists():
        marker.write_text("crashed once")
        os.abort()
    return _reads(config, calls)


def _always_crashes(config: Mapping[str, Any], calls: AdminCalls) -> tuple[GroupsRead, GroupScan]:
    os.abort()


def _unreachable(config: Mapping[str, Any], calls: AdminCalls) -> tuple[GroupsRead, GroupScan]:
    raise SourceUnavailable(f"{calls.where}: list consumer groups: timed out")


def test_the_groups_come_back_from_the_child_as_values() -> None:
    read, scan = read_groups_isolated({}, CALLS, reader=_reads)
    assert [g.group_id for g in read.described] == ["billing"]
    assert scan.rows == group_rows([_group()], lambda _: set()).rows


def test_a_child_that_aborts_is_replaced_once(tmp_path: Path) -> None:
    read, _ = read_groups_isolated({"marker": str(tmp_path / "m")}, CALLS, reader=_crashes_once)
    assert (tmp_path / "m").read_text() == "crashed once"
    assert [g.group_id for g in read.described] == ["billing"]


def test_children_that_keep_aborting_stop_the_collection_naming_the_bug() -> None:
    with pytest.raises(SourceUnavailable, match=r"crashed the client library 2 times.*#4605"):
        read_groups_isolated({}, CALLS, reader=_always_crashes)


def test_an_unreachable_cluster_in_the_child_is_reported_as_it_is() -> None:
    with pytest.raises(SourceUnavailable, match="nowhere:9092: list consumer groups: timed out"):
        read_groups_isolated({}, CALLS, reader=_unreachable)
