"""The per-topic sizing function gives `plan_topic`'s answer, and a status when it cannot."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from planner.cost import ClusterShape, partition_cost
from planner.figures.schema import TABLES
from planner.recommend import (
    GroupInfo,
    PlanSettings,
    TopicHistory,
    mean_record_bytes,
    plan_topic,
)
from planner.sizing import SideCapacity
from spark_jobs.planning import sample_from_rows, size_unit, sizing_row
from spark_jobs.schemas import SIZING, arrow_schema
from spark_jobs.settings import JobSettings
from spark_jobs.units import cut_units
from tests.spark_jobs import arrow_inputs as ai

SETTINGS = JobSettings()
MIB = 2**20


def _row(throughput: pa.Table, facts: pa.Table, **kwargs: Any) -> dict[str, Any]:
    settings = kwargs.pop("settings", SETTINGS)
    topic = kwargs.pop("topic", "orders")
    return sizing_row(
        topic, throughput, facts, run="20261115T0000Z", brokers=3, settings=settings, **kwargs
    )


def _history(throughput: pa.Table, **kwargs: Any) -> TopicHistory:
    ts = throughput.column("ts").cast(pa.int64()).to_numpy() / 1e6
    out = throughput.column("mib_out")
    return TopicHistory(
        "orders",
        ts,
        mib_in=throughput.column("mib_in").to_numpy(),
        records_in=throughput.column("records_in").to_numpy(),
        mib_out=None if out.null_count == len(out) else out.to_numpy(),
        retention_ms=604_800_000,
        **{"current_partitions": 12, **kwargs},
    )


def _direct(history: TopicHistory, groups: list[GroupInfo], **kwargs: Any) -> Any:
    return plan_topic(
        history,
        SideCapacity(10.0, 20_000.0),
        SideCapacity(2.0, 4_000.0),
        brokers=3,
        groups=groups,
        settings=kwargs.get("settings", PlanSettings()),
    )


def test_a_keyless_topic_gets_plan_topics_numbers() -> None:
    throughput = ai.hourly(out_ratio=1.5)
    groups = [("audit", "range", 3), ("billing", "roundrobin", 9)]
    row = _row(throughput, ai.facts(partitions=4, groups=groups))
    plan = _direct(_history(throughput, current_partitions=4), [GroupInfo(*g) for g in groups])

    assert row["status"] == plan.status == "increase"
    assert row["recommended_partitions"] == plan.recommended_partitions
    assert row["required_partitions"] == plan.choice.required
    assert row["required_partitions_now"] == plan.choice.required_now
    assert row["rule_partitions"] == plan.sizing.required_partitions
    assert (row["deciding_dimension"], row["deciding_side"]) == (
        plan.sizing.deciding_dimension,
        plan.sizing.deciding_side,
    )
    for dim, target in plan.targets.items():
        assert row[f"{dim}_peak_per_s"] == pytest.approx(target.peak, rel=1e-12)
        assert row[f"{dim}_target_per_s"] == pytest.approx(target.target, rel=1e-12)
        assert row[f"{dim}_growth_per_year"] == pytest.approx(target.growth_per_year, rel=1e-12)
    assert row["mib_out_peak_per_s"] is not None
    for r in plan.sizing.requirements:
        assert row[f"{r.dimension}_required_partitions"] == r.required
        assert row[f"{r.dimension}_side"] == r.side
    assert row["consumers_now"] == pytest.approx(plan.utilisation_now, rel=1e-12)
    assert row["cost_replicas_per_broker"] == plan.cost.replicas_per_broker
    assert row["cost_producer_batch_memory_bytes"] == plan.cost.producer_batch_memory_bytes
    assert [
        (g["group_id"], g["members_now"], g["recommended_members"], g["strategy"], g["status"])
        for g in row["groups"]
    ] == [
        (g.group_id, g.members_now, g.recommended_members, g.strategy, g.status)
        for g in plan.groups
    ]
    assert {w.text for w in plan.warnings} <= set(row["warnings"])
    # The coded form beside the sentences, one for one.
    assert [w["text"] for w in row["warnings_coded"]] == row["warnings"]
    assert [w.as_row() for w in plan.warnings] == [
        w for w in row["warnings_coded"] if w["code"] in {p.code for p in plan.warnings}
    ]
    assert list(plan.rationale) == row["rationale"][-len(plan.rationale) :]


def test_the_planned_single_group_is_reported_apart_from_real_groups() -> None:
    row = _row(ai.hourly(), ai.facts(groups=[("audit", "range", 3)]))
    assert [g["group_id"] for g in row["groups"]] == ["audit"]
    assert "" not in [g["group_id"] for g in row["groups"]]
    one = _direct(_history(ai.hourly()), [GroupInfo("x", "cooperative-sticky", 0)]).groups[0]
    assert (row["one_group_members"], row["one_group_strategy"]) == (
        one.members_now,
        one.strategy,
    )


def test_bytes_out_are_shared_by_every_group_reading_the_topic() -> None:
    # One group reads only this topic, two more read it among others: each fetches a
    # third of the bytes out, whatever plan_topic is given.
    throughput = ai.hourly(out_ratio=3.0)
    row = _row(throughput, ai.facts(groups=[("solo", "range", 2)], consuming_groups=3))
    alone = _row(throughput, ai.facts(groups=[("solo", "range", 2)]))
    assert row["mib_out_peak_per_s"] == pytest.approx(alone["mib_out_peak_per_s"] / 3, rel=1e-12)
    assert row["mib_in_peak_per_s"] == alone["mib_in_peak_per_s"]
    assert any("3 consumer groups" in line for line in row["rationale"])
    assert not any("all of its bytes out" in line for line in row["rationale"])


@pytest.mark.parametrize(("groups", "said"), [([], True), ([("solo", "range", 2)], False)])
def test_bytes_out_read_by_no_known_group_are_one_groups_and_the_rationale_says_so(
    groups: list[tuple[str, str, int]], said: bool
) -> None:
    throughput = ai.hourly(out_ratio=3.0)
    row = _row(throughput, ai.facts(groups=groups))
    alone = _row(throughput, ai.facts(groups=[("solo", "range", 2)]))
    assert row["mib_out_peak_per_s"] == alone["mib_out_peak_per_s"]
    line = (
        "MiB/s out per group: no consumer group is known to read the topic, so all of its "
        "bytes out count as one group's read rate"
    )
    assert (line in row["rationale"]) is said
    assert not any("divided over" in r for r in row["rationale"])


def test_a_keyed_topic_hashes_its_sample_like_plan_topic() -> None:
    ranks = np.arange(1, 3_001, dtype=np.float64)
    keys = [f"user-{i}".encode() for i in range(3_000)]
    counts = np.round(30_000 / ranks**1.1)
    counts[0] = 60_000.0  # a key heavier than one partition's share at the target
    facts = ai.facts(keyed=True)
    throughput = ai.hourly(mib=20.0)
    # The key rows arrive shuffled; the sample is rebuilt sorted, as the core would see it.
    rows = ai.key_rows(keys, counts).take(np.random.default_rng(3).permutation(3_000))
    sample, sample_counts = sample_from_rows(rows)
    row = _row(throughput, facts, keys=sample, key_counts=sample_counts)
    order = np.argsort(np.array(keys, dtype=object))
    keys = [keys[i] for i in order]
    counts = counts[order]
    plan = _direct(_history(throughput, keyed=True, keys=keys, key_counts=counts), [])

    assert row["key_sample_keys"] == 3_000
    assert row["skew_partitions"] == plan.skew.partitions
    assert row["recommended_partitions"] == plan.recommended_partitions
    assert row["busiest_partition_share"] == pytest.approx(plan.skew.busiest_share, rel=1e-12)
    assert [h["key"] for h in row["hot_keys"]] == [h.key.decode() for h in plan.hot_keys]
    assert row["hot_keys"][0]["key_hex"] == b"user-0".hex()
    assert any("hot key 'user-0'" in w for w in row["warnings"])


def test_row_order_does_not_change_a_single_bit() -> None:
    throughput = ai.hourly(out_ratio=1.0)
    shuffled = throughput.take(np.random.default_rng(7).permutation(throughput.num_rows))
    assert _row(shuffled, ai.facts()) == _row(throughput, ai.facts())


def test_no_consumer_capacity_gives_no_number_but_the_peaks() -> None:
    facts = ai.facts(
        tc_mib_per_s=None, tc_records_per_s=None, tc_source=None, groups=[("g", "range", 2)]
    )
    row = _row(ai.hourly(), facts)
    assert row["status"] == "missing-capacity"
    assert row["required_partitions"] is None
    assert row["recommended_partitions"] is None
    assert row["candidates"] == []
    assert row["mib_in_peak_per_s"] > 0
    assert row["mib_in_target_per_s"] > row["mib_in_peak_per_s"]
    assert "no consumer capacity (Tc)" in row["warnings"][0]
    assert [w["code"] for w in row["warnings_coded"]] == ["missing-capacity"]
    assert [(g["group_id"], g["status"], g["recommended_members"]) for g in row["groups"]] == [
        ("g", "unplanned", None)
    ]


def test_no_producer_capacity_is_sized_on_consumers_with_a_warning() -> None:
    facts = ai.facts(tp_mib_per_s=None, tp_records_per_s=None, tp_source=None)
    row = _row(ai.hourly(), facts)
    assert row["status"] in ("ok", "plan-increase", "increase")
    assert row["mib_in_producer_partitions"] is None
    assert row["deciding_side"] == "consumer"
    assert any("no producer capacity (Tp)" in w for w in row["warnings"])


def test_topics_without_figures_or_without_a_snapshot() -> None:
    empty = ai.hourly().slice(0, 0)
    no_figures = _row(empty, ai.facts(groups=[("g", "range", 1)]))
    assert no_figures["status"] == "no-figures"
    assert no_figures["samples"] == 0
    assert no_figures["groups"][0]["status"] == "unplanned"
    unknown = _row(ai.hourly(), ai.facts().slice(0, 0))
    assert unknown["status"] == "unknown-topic"
    assert unknown["current_partitions"] is None
    assert unknown["samples"] == 14 * 24
    assert unknown["history_days"] == 14


def test_figures_the_core_refuses_make_one_error_row() -> None:
    row = _row(ai.hourly(), ai.facts(replication_factor=5))
    assert row["status"] == "error"
    assert row["status_detail"] == "Replication factor: 5 larger than available brokers: 3"
    assert row["recommended_partitions"] is None


def test_candidates_carry_flags_and_the_core_cost_panel() -> None:
    settings = replace(SETTINGS, planning=replace(SETTINGS.planning, partition_grid=(48,)))
    row = _row(ai.hourly(), ai.facts(partitions=4), settings=settings)
    by_count = {c["partitions"]: c for c in row["candidates"]}
    assert by_count[4]["is_current"] and by_count[4]["simulated"]
    assert by_count[48]["simulated"] and not by_count[48]["considered"]
    recommended = by_count[row["recommended_partitions"]]
    assert recommended["is_recommended"] and recommended["considered"]
    assert sum(c["is_recommended"] for c in row["candidates"]) == 1
    cost = partition_cost(
        48,
        ClusterShape(brokers=3, replication_factor=3),
        retention_ms=604_800_000,
        bytes_in_per_s=row["mib_in_target_per_s"] * MIB,
    )
    assert by_count[48]["file_handles_per_broker"] == cost.file_handles_per_broker
    assert by_count[48]["even_group_sizes"] == [1, 2, 3, 4, 6, 8, 12, 16, 24, 48]


def _throughput_file(path: Path, tables: list[pa.Table]) -> Path:
    # Samples in the planner's units (`ai.hourly`) as the figures store them: bytes/s.
    rows = pa.concat_tables(tables)
    figures = pa.table(
        {
            "topic": rows.column("topic"),
            "ts": rows.column("ts"),
            "bytes_in_per_s": pc.multiply(rows.column("mib_in"), float(MIB)),
            "records_in_per_s": rows.column("records_in"),
            "bytes_out_per_s": pc.multiply(rows.column("mib_out"), float(MIB)),
            "source": pa.array(["test"] * rows.num_rows),
            "busiest_group_bytes_out_per_s": pa.nulls(rows.num_rows, pa.float64()),
        },
        schema=TABLES["throughput"].schema,
    )
    pq.write_table(figures, path, row_group_size=100)
    return path


def test_a_unit_sizes_each_of_its_topics_as_sizing_row_does(tmp_path: Path) -> None:
    # a: keyless; b: in the topics table, no samples; c: samples, not in the topics
    # table; k: keyed, with its key rows in the keys table.
    samples = _throughput_file(
        tmp_path / "throughput.parquet",
        [ai.hourly("a"), ai.hourly("c", mib=2.0), ai.hourly("k", out_ratio=1.0)],
    )
    keys = [f"k{i}" for i in range(300)]
    counts = np.arange(300, 0, -1, dtype=np.float64)
    key_table = pa.table(
        {
            "topic": ["k"] * 300,
            "key": keys,
            "key_hex": pa.nulls(300, pa.string()),
            "count": counts,
            "source": pa.nulls(300, pa.string()),
            **{c: pa.nulls(300) for c in ("hash_murmur2", "hash_crc32", "hash_fnv1a", "key_empty")},
        },
        schema=TABLES["keys"].schema,
    )
    pq.write_table(key_table, tmp_path / "keys.parquet", row_group_size=64)
    facts = pa.concat_tables(
        [ai.facts("a"), ai.facts("b", partitions=1), ai.facts("k", keyed=True, partitions=6)]
    )
    (unit,) = cut_units(
        ["a", "b", "k"],
        [False, False, True],
        [(samples, [(0, 2**62)])],
        tmp_path / "keys.parquet",
        units=1,
    )
    result = size_unit(facts.to_pylist(), unit, run="r", brokers=3, settings=SETTINGS)
    assert result.column_names == [f.name for f in SIZING.fields]
    assert result.column("topic").to_pylist() == ["a", "b", "c", "k"]
    assert result.column("status").to_pylist() == ["ok", "no-figures", "unknown-topic", "increase"]
    sample_keys, sample_counts = sample_from_rows(ai.key_rows([k.encode() for k in keys], counts))
    expected = [
        _row(ai.hourly("a"), ai.facts("a"), topic="a"),
        _row(ai.hourly("a").slice(0, 0), ai.facts("b", partitions=1), topic="b"),
        _row(ai.hourly("c", mib=2.0), ai.facts().slice(0, 0), topic="c"),
        _row(
            ai.hourly("k", out_ratio=1.0),
            ai.facts("k", keyed=True, partitions=6),
            topic="k",
            keys=sample_keys,
            key_counts=sample_counts,
        ),
    ]
    assert result.to_pylist() == [r | {"run": "r"} for r in expected]
    assert result.to_pylist()[3]["key_sample_keys"] == 300
    # A unit without topics of the topics table still reports the samples it holds.
    only_c = size_unit([], unit, run="r", brokers=3, settings=SETTINGS)
    assert only_c.column("status").to_pylist() == ["unknown-topic"] * 3


def test_a_key_sample_comes_out_ordered_by_count() -> None:
    rows = ai.key_rows([b"ab", None, b"\x00\xff", b"c", b"d"], [2, 1, 3, -0.0, 2])
    keys, counts = sample_from_rows(rows)
    assert isinstance(keys, pa.BinaryArray)
    assert counts.tolist() == [0.0, 1.0, 2.0, 2.0, 3.0]
    assert str(counts[0]) == "0.0"  # not -0.0
    assert keys.to_pylist()[:2] == [b"c", None]
    assert sorted(keys.to_pylist()[2:4]) == [b"ab", b"d"]  # a tie, either order
    assert keys.to_pylist()[4] == b"\x00\xff"
    assert sample_from_rows(rows.slice(0, 0)) == (None, None)


def test_a_keyed_topic_s_row_does_not_depend_on_the_order_of_its_key_rows() -> None:
    # Zipf counts with many ties (as real samples have; thirds, so that float sums
    # depend on their order) and two hot keys of equal count: every float in the row,
    # and the hot keys' order, are the same bit for bit.
    ranks = np.arange(1, 5_001, dtype=np.float64)
    counts = np.round(20_000 / ranks**1.1) / 3
    counts[:2] = 30_000.0
    keys = [f"user-{i}".encode() for i in range(5_000)]
    rows = ai.key_rows(keys, counts)
    facts = ai.facts(keyed=True)
    throughput = ai.hourly(mib=20.0)
    results = []
    for seed in (None, 1, 2):
        mine = rows if seed is None else rows.take(np.random.default_rng(seed).permutation(5_000))
        sample, sample_counts = sample_from_rows(mine)
        results.append(_row(throughput, facts, keys=sample, key_counts=sample_counts))
    assert [h["key"] for h in results[0]["hot_keys"]] == ["user-0", "user-1"]
    assert results[1] == results[0]
    assert results[2] == results[0]


def test_a_keyed_topic_gets_its_partition_loads_at_every_simulated_count() -> None:
    keys = [f"k{i}".encode() for i in range(400)]
    counts = np.arange(400, 0, -1, dtype=np.float64)
    sample_keys, sample_counts = sample_from_rows(ai.key_rows(keys, counts))
    row = _row(
        ai.hourly(),
        ai.facts(keyed=True, partitions=6),
        keys=sample_keys,
        key_counts=sample_counts,
    )
    simulated = sorted(c["partitions"] for c in row["candidates"] if c["simulated"])
    assert [e["partitions"] for e in row["partition_loads"]] == simulated
    for entry in row["partition_loads"]:
        assert len(entry["loads"]) == entry["partitions"]
        assert sum(entry["loads"]) == pytest.approx(row["consumers_at_horizon"])
    assert row["key_sample_keys"] == 400


def test_a_replication_factor_of_one_has_no_election_time_in_the_row() -> None:
    row = _row(ai.hourly(), ai.facts(replication_factor=1))
    assert row["status"] in ("ok", "plan-increase", "increase")
    assert row["cost_election_unavailability_ms"] is None
    assert any(w.startswith("replication factor 1: a broker failure") for w in row["warnings"])
    assert any(w.startswith("replication factor 1:") for w in row["cost_warnings"])
    assert all(c["election_unavailability_ms"] is None for c in row["candidates"])
    # The sizing schema holds it: the column is nullable.
    table = pa.Table.from_pylist([row], schema=arrow_schema("sizing"))
    assert table.column("cost_election_unavailability_ms").null_count == 1


def test_an_unread_topic_is_told_from_one_read_by_multi_topic_groups() -> None:
    # No group reads only this topic either way; plan_topic always gets the planned
    # group (members 0), so it is the count of consuming groups that tells them apart.
    unread = _row(ai.hourly(), ai.facts(partitions=4))
    read = _row(ai.hourly(), ai.facts(partitions=4, consuming_groups=2))
    assert unread["recommended_partitions"] == read["recommended_partitions"] > 4
    assert unread["deciding_side"] == "consumer"
    said = [w for w in unread["warnings"] if w.startswith("no consumer group reads this topic")]
    assert len(said) == 1 and "for a consumer that does not exist yet" in said[0]
    assert not any("no consumer group reads" in w for w in read["warnings"])


def test_a_lagging_group_and_an_unmeasured_dimension_reach_the_row() -> None:
    # One range member on 12 partitions carries the whole topic, several consumers'
    # worth; Tp and Tc have no records/s figure.
    facts = ai.facts(groups=[("audit", "range", 1)], tp_records_per_s=None, tc_records_per_s=None)
    row = _row(ai.hourly(), facts)
    behind = [w for w in row["warnings"] if "is falling behind now" in w]
    assert len(behind) == 1 and behind[0].startswith("group 'audit' is falling behind now")
    audit = row["groups"][0]
    assert behind[0] in audit["notes"]
    assert row["skipped_dimensions"] == ["records_in: no producer or consumer capacity measured"]
    assert any(w.startswith("records/s in was not checked") for w in row["warnings"])


def test_a_capacity_measured_on_other_records_is_a_warning_on_the_row() -> None:
    # The samples carry 500-byte records; Tc's row was measured with 4,096-byte ones,
    # Tp's with 512: only Tc is named.
    throughput = ai.hourly(record_bytes=500.0)
    row = _row(throughput, ai.facts(tp_record_bytes=512.0, tc_record_bytes=4096.0))
    sized = [w for w in row["warnings"] if "-byte records" in w]
    assert len(sized) == 1
    assert sized[0].startswith(
        "Tc was measured with 4,096-byte records, and this topic's records average 500 bytes"
    )
    unknown = _row(throughput, ai.facts())
    assert not any("-byte records" in w for w in unknown["warnings"])


@pytest.mark.parametrize("partitioner", ["murmur2_random", "consistent_random", "fnv1a"])
def test_a_topic_planned_from_its_keys_hashes_gets_the_plan_of_its_keys(
    partitioner: str,
) -> None:
    # A live cluster's key sample keeps each key's hashes, never the key
    # (planner.observe): every figure of the plan is the one its keys give, the hot keys
    # (named by label, placed by their own hash) included.
    from planner.partitioners import hash_to_hashed, hashed_label, partition_for_key

    ranks = np.arange(1, 2_001, dtype=np.float64)
    counts = np.round(20_000 / ranks**1.1)
    counts[:2] = 60_000.0
    keys = [f"user-{i}".encode() for i in range(2_000)]
    keys[5] = b""  # consistent_random spreads an empty key
    facts = ai.facts(keyed=True, partitioner=partitioner, partitions=6)
    throughput = ai.hourly(mib=20.0)
    plain, plain_counts = sample_from_rows(ai.key_rows(keys, counts))
    by_bytes = _row(throughput, facts, keys=plain, key_counts=plain_counts)
    hashed = hash_to_hashed(keys)
    labels = [hashed_label(m) for m in hashed.field("murmur2").to_pylist()]
    from planner.partitioners import hashed_key_array

    sample = hashed_key_array(
        hashed.field("murmur2"),
        hashed.field("crc32"),
        hashed.field("fnv1a"),
        hashed.field("empty"),
        labels=labels,
    )
    rows = pa.table({"topic": ["orders"] * 2_000, "key": sample, "count": counts})
    hashed_keys, hashed_counts = sample_from_rows(rows)
    by_hash = _row(throughput, facts, keys=hashed_keys, key_counts=hashed_counts)
    hot_bytes, hot_hash = by_bytes.pop("hot_keys"), by_hash.pop("hot_keys")
    # The warnings name a hot key by its label where the key itself is not known.
    named = {
        hashed_label(m).decode(): k.decode()
        for m, k in zip(hashed.field("murmur2").to_pylist(), keys, strict=True)
    }
    for field in ("warnings", "warnings_coded"):
        text = json.dumps(by_hash[field])
        for label, key in named.items():
            text = text.replace(label, key) if label in text else text
        by_hash[field] = json.loads(text)
    assert by_hash == by_bytes
    assert [h["key"] for h in hot_bytes] == ["user-0", "user-1", "user-2"]
    assert [h["key"] for h in hot_hash] == [
        hashed_label(m).decode() for m in hashed.field("murmur2").to_pylist()[:3]
    ]
    assert [h["share"] for h in hot_hash] == [h["share"] for h in hot_bytes]
    recommended = by_bytes["recommended_partitions"]
    for hot, key in zip(hot_hash, keys[:3], strict=True):
        assert hot["hash"] % recommended == partition_for_key(key, recommended, partitioner)


def test_a_groups_row_with_its_own_tc_changes_that_groups_members_only() -> None:
    # Tc 4,000 records/s for the topic; the indexer's own Tc_g is 1,000 (saturation):
    # four times the load per member, so more members; the audit group keeps the
    # topic's Tc, and the topic's partitions follow the indexer (the slower).
    throughput = ai.hourly()
    groups = [("audit", "range", 3), ("indexer", "range", 3)]
    plain = _row(throughput, ai.facts(partitions=4, groups=groups))
    facts = ai.facts(partitions=4, groups=groups)
    own = {
        "consumer_records_per_s": 1_000.0,
        "capacity_source": "saturation",
        "capacity_evidence": "2 windows, lag +900 records/s at a flat 3,000 records/s",
        "lag_records": 12_000.0,
        "lag_seconds": 4.5,
        "lag_trend": "growing",
    }
    rows = facts.to_pylist()
    rows[0]["groups"] = [
        {**g, **(own if g["group_id"] == "indexer" else {})} for g in rows[0]["groups"]
    ]
    row = _row(throughput, pa.Table.from_pylist(rows, schema=ai.FACTS_WITH_CAPACITY))
    by_id = {g["group_id"]: g for g in row["groups"]}
    before = {g["group_id"]: g for g in plain["groups"]}
    assert by_id["indexer"]["members_now"] > before["indexer"]["members_now"]
    assert row["rule_partitions"] >= plain["rule_partitions"]
    # The same answer as the core given the same group.
    history = _history(throughput, current_partitions=4)
    fields = {
        "capacity_records_per_s": 1_000.0,
        "capacity_source": "saturation",
        "lag_trend": "growing",
    }
    plan = _direct(
        history, [GroupInfo("audit", "range", 3), GroupInfo("indexer", "range", 3, **fields)]
    )
    assert [g["members_now"] for g in row["groups"]] == [g.members_now for g in plan.groups]
    assert by_id["indexer"]["consumer_capacity"] == {
        "records_per_s": 1_000.0,
        "mib_per_s": pytest.approx(1_000.0 * mean_record_bytes(history) / MIB),
        "source": "saturation",
        "evidence": own["capacity_evidence"],
        # At the topic's Tc it would need what the audit group (same strategy, same size,
        # the topic's Tc, the same partitions) needs.
        "members_now_at_topic_tc": by_id["audit"]["members_now"],
    }
    assert by_id["indexer"]["lag"] == {"records": 12_000.0, "seconds": 4.5, "trend": "growing"}
    assert by_id["audit"]["consumer_capacity"]["source"] == "topic-default"
    assert by_id["audit"]["consumer_capacity"]["members_now_at_topic_tc"] is None
    assert by_id["audit"]["lag"] is None


def test_the_job_hands_kafka_streams_applications_and_internal_topics_to_the_core() -> None:
    # The facts name the Kafka Streams applications reading the topic (a multi-topic one
    # among them, not in `groups`) and whose internal topic it is; the sizing row carries
    # the core's warnings for them, the same as `plan_topic` given the same.
    throughput = ai.hourly()
    facts = ai.facts(
        groups=[("wordcount", "stream", 3)],
        consuming_groups=2,
        streams_readers=["enricher", "wordcount"],
        streams_internal=["legacy-app", "repartition"],
        # A tenth of the usual Tc: the consumer side asks for more partitions.
        tc_mib_per_s=0.2,
        tc_records_per_s=400.0,
    )
    row = _row(throughput, facts)
    coded = {w["code"]: json.loads(w["params"]) for w in row["warnings_coded"]}
    assert row["recommended_partitions"] > row["current_partitions"]
    assert coded["streams-input-increase"] == {
        "apps": ["enricher", "wordcount"],
        "current_partitions": row["current_partitions"],
        "recommended_partitions": row["recommended_partitions"],
    }
    assert coded["streams-internal-topic"] == {"app": "legacy-app", "kind": "repartition"}
    plain = _row(
        throughput,
        ai.facts(groups=[("audit", "range", 3)], tc_mib_per_s=0.2, tc_records_per_s=400.0),
    )
    assert plain["recommended_partitions"] == row["recommended_partitions"]
    assert not {w["code"] for w in plain["warnings_coded"]} & {
        "streams-input-increase",
        "streams-internal-topic",
    }
