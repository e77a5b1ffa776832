"""Cross-zone figures end to end: landing files on a three-rack cluster, collected, sized
by the Spark jobs, published in `recommendations.json` and on the topic's page.

Hand-computed: `orders` has 12 partitions with two replicas each, leaders in turn on
brokers 1, 2, 3 (racks a, b, c) and followers on the next broker. Two groups read it and
it serves 2 MiB/s out, so each group reads 1 MiB/s: 86,400 MiB (84.375 GiB) a day.
`billing` runs in rack a: from leaders the 8 partitions led in b or c cross zones
(56.25 GiB); with follower fetching only the 4 led in b (follower in c) have no replica
in a (28.125 GiB). At 0.01 per GiB: 0.5625 and 0.28125 a day. `search` gives no
client.rack: its bytes' zones are unknown, and it is told to set client.rack.
`audit` lives on brokers 4 and 5, which have no rack: no figure, and nothing said.

`ledger` reads two topics (planned by `simulate_assignments`), all its members in rack b,
so whatever its assignment: `payments` (6 partitions, the same replicas as the first six
of `orders`; 0.3 MiB/s out, 25.3125 GiB a day) is led in b on p1 and p4 and has no
replica in b on p2 and p5; `refunds` (2 partitions on brokers 3 and 1: no replica in b;
0.6 MiB/s, 50.625 GiB a day) crosses zones whole. From leaders 2/3 x 25.3125 + 50.625 =
67.5 GiB; with follower fetching 1/3 x 25.3125 + 50.625 = 59.0625 GiB.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from pyspark.sql import SparkSession

from planner.collect.landing import LandingSource
from planner.collect.run import collect_interval
from planner.figures import DataInterval
from planner.recommend import PlanSettings
from planner.report.exports import recommendations, summary_markdown
from planner.report.from_outputs import fleet_report, report_settings, topic_report
from planner.report.topic_page import topic_page
from spark_jobs import simulate_assignments, size_partitions
from spark_jobs.outputs import run_path

pytestmark = pytest.mark.slow

DAY = DataInterval.day(date(2026, 11, 21))
GIB = 2**30
ORDERS_REPLICAS = ",".join(["1:2", "2:3", "3:1"] * 4)
PRICE = 0.01
CONFIG = f"""\
[figures]
history_days = 3

[planning]
cross_zone_price_per_gib = {PRICE}

[spark.conf]
"spark.sql.shuffle.partitions" = "2"
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _landing(root: Path) -> Path:
    _write(
        root / "topics" / "topics.csv",
        "topic,partitions,replication_factor,keyed,replicas\n"
        f'orders,12,2,false,"{ORDERS_REPLICAS}"\n'
        'audit,2,2,false,"4:5,5:4"\n'
        'payments,6,2,false,"1:2,2:3,3:1,1:2,2:3,3:1"\n'
        'refunds,2,2,false,"3:1,1:3"\n',
    )
    _write(root / "cluster" / "cluster.csv", "broker_id,rack\n1,a\n2,b\n3,c\n4,\n5,\n")
    _write(
        root / "capacity" / "capacity.csv",
        "topic,producer_mib_per_s,producer_records_per_s,consumer_mib_per_s,"
        "consumer_records_per_s\n*,10,20000,2,4000\n",
    )
    _write(
        root / "groups" / "groups.csv",
        "group_id,topic,strategy,members,client_rack\n"
        "billing,orders,range,3,a\n"
        "search,orders,range,2,\n"
        "archive,audit,range,2,a\n"
        "ledger,payments,range,2,b\n"
        "ledger,refunds,range,2,b\n",
    )
    # Three days of hourly samples at a constant rate, the last day the interval's.
    lines = ["topic,ts,bytes_in_per_s,records_in_per_s,bytes_out_per_s,unit"]
    start = DAY.start - timedelta(days=2)
    for hour in range(72):
        ts = (start + timedelta(hours=hour)).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines.append(f"orders,{ts},1,2000,2,MiB/s")
        lines.append(f"audit,{ts},0.5,1000,0.5,MiB/s")
        lines.append(f"payments,{ts},0.3,600,0.3,MiB/s")
        lines.append(f"refunds,{ts},0.6,1200,0.6,MiB/s")
    _write(root / "throughput" / "samples.csv", "\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def published(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("racks")
    figures = tmp / "figures"
    collected = collect_interval(
        [LandingSource(_landing(tmp / "landing"))], DAY, figures, history_days=3
    )
    assert collected.rejected.num_rows == 0, collected.rejected.to_pylist()
    config = tmp / "planner.toml"
    config.write_text(CONFIG)
    out = tmp / "out"
    args = ["--figures", str(figures), "--out", str(out), "--interval", DAY.key]
    assert size_partitions.main([*args, "--config", str(config)]) == 0
    assert simulate_assignments.main([*args, "--config", str(config)]) == 0
    rows = pq.read_table(run_path(out, "recommendations", DAY.key)).to_pylist()
    settings = PlanSettings(cross_zone_price_per_gib=PRICE)
    topics = [topic_report(r, [], history=None, settings=settings) for r in rows]
    report = fleet_report(
        topics,
        run_key=DAY.key,
        interval_start=DAY.start,
        interval_end=DAY.end,
        generated_at=datetime(2026, 11, 22, tzinfo=UTC),
        settings=report_settings(settings),
    )
    pages = {t.topic: f"{t.topic}.html" for t in report.topics}
    by_topic = {t.topic: t for t in report.topics}
    return {
        "json": {r["topic"]: r for r in recommendations(report, pages)},
        "pages": {name: topic_page(t, report, pages) for name, t in by_topic.items()},
        "summary": summary_markdown(report),
    }


def _group(published: dict[str, Any], topic: str, group_id: str) -> dict[str, Any]:
    topic_record = published["json"][topic]
    assert topic_record["recommended_partitions"] == topic_record["current_partitions"]
    (group,) = [g for g in topic_record["groups"] if g["group_id"] == group_id]
    return group


def test_follower_fetching_cuts_billings_cross_zone_bytes(published: dict[str, Any]) -> None:
    cz = _group(published, "orders", "billing")["cross_zone"]
    assert cz["bytes_per_day"] == pytest.approx(84.375 * GIB)
    assert cz["from_leaders"] == pytest.approx(
        {
            "same_zone_bytes_per_day": 28.125 * GIB,
            "cross_zone_bytes_per_day": 56.25 * GIB,
            "unknown_bytes_per_day": 0.0,
        }
    )
    assert cz["follower_fetching"]["cross_zone_bytes_per_day"] == pytest.approx(28.125 * GIB)
    assert cz["price_per_gib"] == PRICE
    assert cz["leader_cost_per_day"] == pytest.approx(0.5625)
    assert cz["follower_cost_per_day"] == pytest.approx(0.28125)
    assert cz["evidence"]["replicas"] == [
        {"topic": "orders", "partitions": 12, "replicas": ORDERS_REPLICAS}
    ]
    assert {b["broker_id"]: b["rack"] for b in cz["evidence"]["brokers"]} == {
        1: "a",
        2: "b",
        3: "c",
    }
    (advice,) = cz["advice"]
    assert advice["code"] == "follower-fetching"
    assert advice["params"]["leader_cost_per_day"] == pytest.approx(0.5625)
    page = published["pages"]["orders"]
    assert 'id="cross-zone"' in page
    # 28.125 rounds to even at two decimals.
    assert "56.25 GiB (0.56 a day)" in page and "28.12 GiB (0.28 a day)" in page
    assert "RackAwareReplicaSelector" in page


def test_a_group_without_client_rack_is_told_to_set_it(published: dict[str, Any]) -> None:
    cz = _group(published, "orders", "search")["cross_zone"]
    assert cz["from_leaders"]["unknown_bytes_per_day"] == pytest.approx(84.375 * GIB)
    assert cz["from_leaders"]["cross_zone_bytes_per_day"] == 0.0
    assert [a["code"] for a in cz["advice"]] == ["client-rack"]
    assert "not known (no client.rack)" in published["pages"]["orders"]


def test_brokers_without_racks_give_no_figure_and_no_advice(published: dict[str, Any]) -> None:
    assert _group(published, "audit", "archive")["cross_zone"] is None
    page = published["pages"]["audit"]
    assert "cross-zone" not in page and "client.rack" not in page


def test_a_group_of_two_topics_is_located_on_both(published: dict[str, Any]) -> None:
    # Listed under each topic it reads, with the one figure for all of its fetches.
    for topic in ("payments", "refunds"):
        cz = _group(published, topic, "ledger")["cross_zone"]
        assert cz["bytes_per_day"] == pytest.approx((25.3125 + 50.625) * GIB)
        assert cz["from_leaders"]["cross_zone_bytes_per_day"] == pytest.approx(67.5 * GIB)
        assert cz["follower_fetching"]["cross_zone_bytes_per_day"] == pytest.approx(59.0625 * GIB)
        assert [r["topic"] for r in cz["evidence"]["replicas"]] == ["payments", "refunds"]
        assert cz["follower_cost_per_day"] == pytest.approx(59.0625 * PRICE)


def test_the_summary_gives_each_group_s_figure_and_says_unknown_where_it_is(
    published: dict[str, Any],
) -> None:
    summary = published["summary"]
    section = summary[summary.index("## Cross-zone fetches") :].split("\n## ")[0]
    # billing and ledger give racks: 56.25 + 67.5 GiB from leaders, 28.125 + 59.0625 with
    # follower fetching, at 0.01 per GiB; search gives none: its 84.375 GiB are unknown.
    # archive has no figure (its brokers have no rack): not listed.
    assert (
        "2 groups whose members' racks are given fetch 124 GiB a day across zones from "
        "leaders (1.24 a day), 87.19 GiB with follower fetching (0.87 a day). 1 group "
        "gives no client.rack: where its 84.38 GiB a day are fetched from is not known."
    ) in section
    assert "costs at 0.01 per GiB, the configured price" in section
    items = [line for line in section.splitlines() if line.startswith("- ")]
    assert items == [
        "- `ledger` on `payments`, `refunds`: reads 75.94 GiB a day; across zones "
        "67.50 GiB from leaders (0.68 a day), 59.06 GiB with follower fetching (0.59 a day)",
        "- `billing` on `orders`: reads 84.38 GiB a day; across zones 56.25 GiB from "
        "leaders (0.56 a day), 28.12 GiB with follower fetching (0.28 a day)",
        "- `search` on `orders`: reads 84.38 GiB a day; across zones: not known "
        "(no client.rack given)",
    ]
    advice = [line for line in section.splitlines() if line.startswith("  - ")]
    selector = "replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector"
    assert advice == [
        f"  - follower fetching (brokers: {selector}) fetches 8.44 GiB a day less across "
        "zones (0.08 a day), if same-zone replicas keep up",
        f"  - follower fetching (brokers: {selector}) fetches 28.12 GiB a day less across "
        "zones (0.28 a day), if same-zone replicas keep up",
        "  - set client.rack to each consumer's zone (brokers in a, b, c): then its "
        "cross-zone bytes can be counted and cut by follower fetching",
    ]
    assert "archive" not in section
