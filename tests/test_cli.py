"""The `partition-planner` command line: size, simulate, demo, and bad arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.cli import main

SCRIPT = Path(sys.executable).with_name("partition-planner")
# A valid simulate call, to which each bad-argument case adds one bad flag.
SIMULATE_4 = ["simulate", "--partitions", "4", "--load-mib", "1", "--tc-mib", "1"]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_size_the_domain_example(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys, "size", "--mib-per-s", "20", "--tp-mib", "5", "--tc-mib", "3", "--headroom-pct", "0"
    )
    assert out["sizing"]["required_partitions"] == 7
    assert out["sizing"]["deciding_side"] == "consumer"
    # Chosen as `plan` chooses (planner.recommend.partitions): 8 splits evenly over more
    # group sizes, within the 20 % slack; the cost is that of the recommended count.
    assert out["recommended_partitions"] == out["cost"]["partitions"] == 8
    assert out["choice"]["status"] == "create"
    exact = run_json(
        capsys,
        "size",
        *("--mib-per-s", "20", "--tp-mib", "5", "--tc-mib", "3", "--headroom-pct", "0"),
        *("--evenness-slack-pct", "0"),
    )
    assert exact["recommended_partitions"] == 7


def test_size_text_shows_the_arithmetic(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["size", "--mib-per-s", "20", "--tp-mib", "5", "--tc-mib", "3"]) == 0
    text = capsys.readouterr().out
    assert "Required: 9 partitions" in text  # 20 x 1.3 = 26 -> ceil(26 / 3) = 9
    assert "producer batch memory" in text


def test_size_keyed_increase_warns_about_ordering(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys,
        "size",
        "--mib-per-s",
        "40",
        "--records-per-s",
        "60000",
        "--tp-mib",
        "10",
        "--tc-mib",
        "4",
        "--tp-records",
        "20000",
        "--tc-records",
        "5000",
        "--current-partitions",
        "12",
        "--keyed",
    )
    assert out["sizing"]["required_partitions"] == 16  # ceil(78000 / 5000)
    assert out["recommended_partitions"] == 18  # even over more group sizes, within 20 %
    assert out["sizing"]["deciding_dimension"] == "records_in"
    # The coded note `plan` gives the same change.
    (remap,) = out["notes_coded"]
    assert remap["code"] == "keyed-remap"
    assert remap["params"] == {
        "current_partitions": 12,
        "recommended_partitions": 18,
        "required_now": 16,
    }
    assert "per-key ordering" in out["notes"][0]


def test_size_never_shrinks(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys,
        "size",
        "--mib-per-s",
        "1",
        "--tp-mib",
        "5",
        "--tc-mib",
        "3",
        "--current-partitions",
        "48",
    )
    assert out["recommended_partitions"] == 48


def test_simulate_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    out = run_json(
        capsys,
        "simulate",
        "--partitions",
        "7",
        "--members",
        "5",
        "--strategies",
        "range",
        "--load-mib",
        "7",
        "--tc-mib",
        "10",
    )
    (row,) = out["rows"]
    assert row["max_member_partitions"] == 2 and row["min_member_partitions"] == 1
    assert row["max_load"] == pytest.approx(0.2)  # 2 of 7 partitions of 0.7 consumers
    assert main(["simulate", "--partitions", "12", "--load-mib", "6", "--tc-mib", "1"]) == 0
    assert "cooperative-sticky" in capsys.readouterr().out


def test_simulate_a_share_group_beyond_the_partition_count(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Six members of a share group on three partitions: two on each, none idle, each
    carrying half of a partition's load (the even split of docs/simulation.md)."""
    out = run_json(
        capsys,
        "simulate",
        "--partitions", "3",
        "--members", "6",
        "--strategies", "share:simple,consumer:uniform",
        "--load-mib", "3",
        "--tc-mib", "10",
    )  # fmt: skip
    rows = {r["strategy"]: r for r in out["rows"]}
    assert rows["share:simple"]["idle_members"] == 0
    assert rows["share:simple"]["max_load"] == pytest.approx(0.05)  # half of 1 MiB/s of 10
    assert rows["consumer:uniform"]["idle_members"] == 3
    assert rows["consumer:uniform"]["max_load"] == pytest.approx(0.1)


def test_simulate_with_a_key_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = tmp_path / "keys.csv"
    sample.write_text(
        "key_hex,count\n" + "".join(f"{i:04x},{1 if i else 500}\n" for i in range(200))
    )
    out = run_json(
        capsys,
        "simulate",
        "--partitions",
        "12",
        "--members",
        "12",
        "--key-sample",
        str(sample),
        "--load-records",
        "9000",
        "--tc-records",
        "1000",
        "--strategies",
        "roundrobin",
    )
    assert out["hot_keys"][0]["key"] == "\x00\x00"
    assert out["rows"][0]["hot_partition"] is True


def test_demo_prints_a_recommendation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    text = capsys.readouterr().out
    assert "Topic payments.authorizations" in text
    assert "12 -> 16" in text
    assert "Warnings" in text


def test_demo_locates_each_group_s_fetches_on_the_three_zones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Replicas 1:2:3, 2:3:4, ... on brokers alternating use1-az1/az2/az4: every partition
    # has a replica in every zone, and partition p is led in zone p mod 3.
    assert main(["demo", "--json"]) == 0
    groups = {g["group_id"]: g for g in json.loads(capsys.readouterr().out)["groups"]}
    fraud, ledger = groups["fraud-scoring"]["cross_zone"], groups["ledger-writer"]["cross_zone"]
    # fraud-scoring runs all its members in use1-az1: whatever its assignment, what the
    # partitions led in the other two zones carry crosses from leaders, and nothing with
    # follower fetching. The 4 partitions the plan adds (12 -> 16) have no zone yet.
    split = fraud["from_leaders"]
    assert sum(split.values()) == pytest.approx(fraud["bytes_per_day"])
    assert split["cross_zone_bytes_per_day"] > split["same_zone_bytes_per_day"] > 0
    assert split["unknown_bytes_per_day"] > 0 and fraud["evidence"]["new_partitions"] == 4
    assert fraud["follower_fetching"]["cross_zone_bytes_per_day"] == 0.0
    assert fraud["price_per_gib"] is None and fraud["leader_cost_per_day"] is None
    assert [a["code"] for a in fraud["advice"]] == ["follower-fetching"]
    # ledger-writer gives no client.rack: every byte's zone is unknown, nothing crosses.
    assert ledger["from_leaders"]["unknown_bytes_per_day"] == pytest.approx(ledger["bytes_per_day"])
    assert ledger["from_leaders"]["cross_zone_bytes_per_day"] == 0.0
    assert [a["code"] for a in ledger["advice"]] == ["client-rack"]
    assert main(["demo"]) == 0
    text = capsys.readouterr().out
    assert "group ledger-writer: reads" in text and "zones not known (no client.rack)" in text
    assert "across zones from leaders, 0.00 GiB with follower fetching; zone not known" in text


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["size", "--mib-per-s", "20", "--tp-mib", "-1", "--tc-mib", "3"], "--tp-mib"),
        (["size", "--mib-per-s", "abc", "--tp-mib", "1"], "--mib-per-s"),
        (["size", "--mib-per-s", "1", "--tp-mib", "1", "--brokers", "1"], "--replication-factor"),
        (["size", "--records-per-s", "1", "--tp-mib", "1"], "--records-per-s"),
        (["simulate", "--partitions", "0"], "--partitions"),
        (["simulate", "--partitions", "4", "--load-mib", "1"], "--load-mib"),
        ([*SIMULATE_4, "--strategies", "uniform"], "--strategies"),
        ([*SIMULATE_4, "--key-sample", "/nonexistent/keys.csv"], "--key-sample"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(argv: list[str], flag: str) -> None:
    done = subprocess.run([str(SCRIPT), *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert flag in lines[0]
    assert done.stdout == ""
