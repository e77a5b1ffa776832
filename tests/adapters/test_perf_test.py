"""Reading Kafka's producer, consumer and share-consumer perf-tool output into capacities.

The fixture files under data/perf are of two kinds:

- `kafka44*.txt`: what Apache Kafka 4.4.0's tools printed, unedited, run on 2026-11-26
  with the jars `make test` installs, against one KRaft node with the tests' settings
  on a loaded 2-core machine (hence the modest rates):

      kafka-topics --create --topic k44 --partitions 1
      ProducerPerformance --topic k44 --num-records 300000 --record-size 1024
          --throughput -1 --warmup-records 30000 --reporting-interval 2000
      ConsumerPerformance --topic k44 --num-records 300000           (kafka44)
          ... --show-detailed-stats --reporting-interval 1000       (kafka44-detailed)
          ... --num-records 400000 --timeout 3000                    (kafka44-timeout)
      ShareConsumerPerformance --topic k44 --num-records 300000 --timeout 60000, its
          group set to share.auto.offset.reset=earliest             (kafka44-share)

  and `kafka44-share2.share.txt` (and `kafka44-share-glued.share.txt`, a 40,000-record
  `partition-planner measure --share` run with its own comment lines), from a one-node
  broker with Kafka's own JVM options
  (`benchmarks/share_capacity.py`'s kind), 200,000 records of 1,024 bytes, after a
  `# topic: s44` line:

      ShareConsumerPerformance --topic s1 --group g --num-records 200000 --threads 2
          --timeout 300000 --show-detailed-stats --reporting-interval 1000
          --show-consumer-stats

- the others: written from the printf formats in Kafka 3.x's ProducerPerformance.java
  and ConsumerPerformance.java, with numbers that agree with each other (MB = bytes /
  2**20, fetch.time.ms = elapsed - rebalance.time.ms).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planner.adapters.perf_test import check_topic_name, parse_perf_test, read_perf_test
from planner.cli import main
from planner.partition_capacity import PerfRun, PerfTestError, partition_capacity

DATA = Path(__file__).parent / "data" / "perf"
SCRIPT = Path(sys.executable).with_name("partition-planner")
CONSUMER_HEADER = (
    "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
    "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
)
GOOD_ROW = (
    "2024-05-14 10:02:11:482, 2024-05-14 10:02:25:907, 476.8372, 33.0563, 5000000, "
    "346620.4506, 3035, 11390, 41.8645, 438981.5628"
)


def fixture(name: str) -> tuple[PerfRun, ...]:
    return read_perf_test(DATA / name)


def consumer_text(row: str) -> str:
    return f"{CONSUMER_HEADER}\n{row}\n"


def rejects(text: str, source: str = "t.consumer.txt") -> str:
    with pytest.raises(PerfTestError) as info:
        parse_perf_test(text, source)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- producer ---------------------------------------------------------------------------


def test_producer_3x_summary_and_windows() -> None:
    runs = fixture("orders.producer.txt")
    assert [r.window for r in runs] == ["detailed"] * 6 + ["summary"]
    summary = runs[-1]
    assert summary == PerfRun(
        kind="producer",
        topic="orders",
        records=5_000_000,
        records_per_s=149804.650546,
        mib_per_s=14.29,  # as printed: the tool's "MB" is already MiB
        window="summary",
        source=str(DATA / "orders.producer.txt"),
        line=7,
        avg_latency_ms=7.0,
        max_latency_ms=230.0,
        p50_ms=2.0,
        p95_ms=29.0,
        p99_ms=53.0,
        p999_ms=68.0,
    )
    first = runs[0]
    assert (first.records, first.records_per_s, first.mib_per_s) == (726553, 145281.5, 13.86)
    assert (first.avg_latency_ms, first.max_latency_ms, first.p50_ms) == (64.2, 230.0, None)


def test_producer_warmup_output_gives_a_steady_state_summary_and_skips_metrics() -> None:
    runs = fixture("payments.producer.txt")
    assert [r.window for r in runs] == ["detailed"] * 4 + ["summary", "steady-state"]
    steady = runs[-1]
    assert (steady.records, steady.records_per_s, steady.p999_ms) == (150000, 10001.333511, 12.0)
    capacity = partition_capacity(runs, "payments")
    assert capacity.tp_records_per_s == 10001.333511  # the warm-up is left out
    assert capacity.tp_mib_per_s == 9.77
    assert capacity.producer_runs == 1


def test_producer_comma_decimal_locale() -> None:
    window, summary = fixture("de-locale.producer.txt")
    assert (window.records_per_s, window.mib_per_s, window.avg_latency_ms) == (99912.2, 9.53, 3.4)
    assert (summary.records_per_s, summary.avg_latency_ms, summary.p99_ms) == (
        99970.009997,
        2.18,
        21.0,
    )


@pytest.mark.parametrize(
    ("line", "records_per_s", "window"),
    [
        # Any number of decimals is read, whatever the version prints.
        (
            "5000000 records sent, 751992.8 records/sec (71.72 MB/sec), 7.0 ms avg latency, "
            "230.0 ms max latency, 4 ms 50th, 29 ms 95th, 53 ms 99th, 68 ms 99.9th.",
            751992.8,
            "summary",
        ),
        # Old window lines print "%.1f max latency." without "ms".
        (
            "254377 records sent, 50875.4 records/sec (48.52 MB/sec), 609.9 ms avg latency, "
            "2761.0 max latency.",
            50875.4,
            "detailed",
        ),
    ],
)
def test_producer_line_variants(line: str, records_per_s: float, window: str) -> None:
    (run,) = parse_perf_test(line + "\n", "t.producer.txt")
    assert (run.records_per_s, run.window) == (records_per_s, window)


def test_kafka_44_producer_output_with_warm_up() -> None:
    runs = fixture("kafka44.producer.txt")
    # "Warmup first ...", "In steady state." are skipped; one-record windows are read.
    assert [r.window for r in runs] == ["detailed"] * 8 + ["summary", "steady-state"]
    summary, steady = runs[-2:]
    # 4.4 still prints the summary's records/sec with %f, six decimals.
    assert (summary.records, summary.records_per_s, summary.mib_per_s) == (
        300_000,
        12939.958592,
        12.64,
    )
    assert (steady.records, steady.records_per_s, steady.mib_per_s, steady.p999_ms) == (
        270_000,
        13861.792792,
        13.54,
        5990.0,
    )
    capacity = partition_capacity(runs, "kafka44")
    assert (capacity.tp_mib_per_s, capacity.tp_records_per_s) == (13.54, 13861.792792)


def test_kafka_44_consumer_output() -> None:
    (run,) = fixture("kafka44.consumer.txt")
    assert (run.window, run.records, run.rebalance_ms, run.fetch_ms) == (
        "summary",
        300_000,
        1481,
        4119,
    )
    assert (run.fetch_mib_per_s, run.fetch_records_per_s) == (71.1262, 72833.2119)
    # The printed figures agree: 292.9688 MiB over the fetch time.
    assert run.fetch_mib_per_s == pytest.approx(292.9688 / 4.119, abs=1e-4)


def test_kafka_44_consumer_detailed_output() -> None:
    runs = fixture("kafka44-detailed.consumer.txt")
    assert [r.window for r in runs] == ["detailed"] * 5
    assert [r.rebalance_ms for r in runs] == [2275, 0, 0, 0, 0]
    capacity = partition_capacity(runs, "kafka44-detailed")
    # The tool prints an interval only when one ends while records arrive, so the last
    # running total (251,251) is short of the 300,000 read; the rate is still consistent.
    fetch_s = (343 + 1002 + 1018 + 1000 + 1008) / 1000
    assert capacity.tc_mib_per_s == pytest.approx(245.3623 / fetch_s)
    assert capacity.tc_records_per_s == pytest.approx(251_251 / fetch_s)


def test_kafka_44_timeout_warning_says_records() -> None:
    (run,) = fixture("kafka44-timeout.consumer.txt")
    assert run.timed_out and run.records == 300_000 and run.line == 3
    notes = partition_capacity([run], "kafka44-timeout").notes
    assert any("--num-records" in n for n in notes)


def test_share_output_in_a_file_named_for_consumer_output_is_refused() -> None:
    # A share group's rate is not Tc: the file name must not make it one.
    text = (DATA / "kafka44-share.share.txt").read_text()
    message = rejects(text, "kafka44-share.consumer.txt")
    assert message == (
        "kafka44-share.consumer.txt: line 2: share perf-test output in a file named for "
        "consumer output"
    )


# --- share consumer (KIP-932) -------------------------------------------------------------

SHARE_HEADER = (
    "start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg, "
    "fetch.time.ms"
)
SHARE_SUMMARY = (
    "2026-11-26 05:00:43:082, 2026-11-26 05:01:12:766, 292.9688, 9.8696, 10106.4547, 300000, 29684"
)


def detailed(member: int, mib: float, records: int, ms: int) -> str:
    return (
        f"2026-11-26 05:00:43:082, 2026-11-26 05:00:44:082, {mib:.4f}, 1.0000, 1000.0000, "
        f"{records}, {ms} for share consumer {member}"
    )


def test_kafka_44_share_summary_only_gives_its_rates_with_a_note() -> None:
    (run,) = fixture("kafka44-share.share.txt")
    assert (run.kind, run.topic, run.window, run.member, run.line) == (
        "share",
        "kafka44-share",
        "summary",
        None,
        2,
    )
    assert (run.records, run.records_per_s, run.mib_per_s, run.fetch_ms, run.mib) == (
        300_000,
        10106.4547,
        9.8696,
        29684,
        292.9688,
    )
    capacity = partition_capacity([run], "kafka44-share")
    assert capacity.share_fetch_records_per_s == 10106.4547
    assert capacity.share_fetch_mib_per_s == 9.8696
    assert (capacity.share_runs, capacity.share_members) == (1, None)
    # Never Tc: a share group's members split the partition's records.
    assert capacity.tc_mib_per_s is None and capacity.consumer_runs == 0
    assert any("includes the group join" in n for n in capacity.notes)
    assert any("not Tc" in n for n in capacity.notes)


def test_kafka_44_two_members_steady_rate_leaves_the_join_row_out() -> None:
    runs = fixture("kafka44-share2.share.txt")
    assert {r.topic for r in runs} == {"s44"} and {r.kind for r in runs} == {"share"}
    windows = [(r.window, r.member) for r in runs]
    assert windows.count(("detailed", 1)) == 5 and windows.count(("detailed", 2)) == 5
    assert windows[-3:] == [("member", 1), ("member", 2), ("summary", None)]
    members = [r for r in runs if r.window == "member"]
    (summary,) = (r for r in runs if r.window == "summary")
    # The members split the partition's records between them.
    assert [m.records for m in members] == [97_040, 102_960]
    assert sum(m.records for m in members) == summary.records == 200_000
    capacity = partition_capacity(runs, "s44")
    # Member 1 read 92,071 - 1 records over 1006+1011+1003+1004 ms, member 2 102,451 - 1
    # over 1050+1015+1010+1010 ms: the group's records over the longer span.
    span_s = (1050 + 1015 + 1010 + 1010) / 1000
    assert capacity.share_fetch_records_per_s == pytest.approx((92_070 + 102_450) / span_s)
    mib = (89.9131 - 0.0010) + (100.0498 - 0.0010)
    assert capacity.share_fetch_mib_per_s == pytest.approx(mib / span_s)
    assert (capacity.share_runs, capacity.share_members) == (1, 2)
    # The join (about 5.6 s of the 11.2 s run) halves the summary's rate.
    assert summary.records_per_s < 0.5 * capacity.share_fetch_records_per_s
    assert not any("includes the group join" in n for n in capacity.notes)


def test_kafka_44_rows_of_two_members_on_one_line_are_split() -> None:
    # 4.4.0 prints a detailed row and its line end separately: two members reporting at
    # once glue their rows together (`...5657 for share consumer 12026-11-26 ...`).
    runs = fixture("kafka44-share-glued.share.txt")
    rows = [(r.window, r.member, r.records, r.fetch_ms, r.line) for r in runs]
    assert rows == [
        ("detailed", 1, 1, 5657, 4),
        ("detailed", 2, 1, 5655, 4),
        ("member", 1, 19_724, 6868, 6),
        ("member", 2, 20_276, 6868, 7),
        ("summary", None, 40_000, 6883, 8),
    ]
    # The members read everything within one interval of their join: no steady rate,
    # so the summary's (join included) stands, with a note.
    capacity = partition_capacity(runs, "glued")
    assert capacity.share_fetch_records_per_s == 5811.4194
    assert capacity.share_members == 2
    assert any("includes the group join" in n for n in capacity.notes)


def test_glued_rows_of_member_ten_and_more_are_split_at_the_date() -> None:
    first = detailed(10, 1.0, 1024, 1000)
    second = detailed(11, 2.0, 2048, 1000)
    (one, two) = parse_perf_test(f"{SHARE_HEADER}\n{first}{second}\n", "t.share.txt")
    assert (one.member, one.records, two.member, two.records) == (10, 1024, 11, 2048)


def test_share_runs_with_fewer_members_are_left_out_and_the_rest_is_a_median() -> None:
    def run_text(members: int, per_member: int) -> str:
        rows = []
        for m in range(1, members + 1):
            rows += [detailed(m, 0.001, 1, 5000), detailed(m, per_member / 1024, per_member, 1000)]
        return "\n".join(["# topic: t", SHARE_HEADER, *rows, SHARE_SUMMARY]) + "\n"

    runs = [
        *parse_perf_test(run_text(1, 9_001), "t.r1.share.txt"),
        *parse_perf_test(run_text(2, 4_001), "t.r2.share.txt"),
        *parse_perf_test(run_text(2, 6_001), "t.r3.share.txt"),
        *parse_perf_test(run_text(2, 5_001), "t.r4.share.txt"),
    ]
    capacity = partition_capacity(runs, "t")
    # Each 2-member run: 2 * (n - 1) records in 1 s; the median of 8,000, 12,000, 10,000.
    assert capacity.share_fetch_records_per_s == 10_000
    assert (capacity.share_runs, capacity.share_members) == (3, 2)
    assert "share: median of 3 runs" in capacity.notes
    assert any("runs with 1 left out" in n for n in capacity.notes)


def test_share_rows_without_a_header_and_older_member_rows_are_read() -> None:
    text = "\n".join(
        [
            "Share consumer 1 consumption metrics- 2026-11-26 05:00:43:082, "
            "2026-11-26 05:01:12:766, 292.9688, 9.8696, 10106.4547, 300000, 29684",
            SHARE_SUMMARY,
        ]
    )
    member, summary = parse_perf_test(text, "t.share.txt")
    assert (member.window, member.member, member.records) == ("member", 1, 300_000)
    assert (summary.window, summary.records_per_s) == ("summary", 10106.4547)


def test_a_share_timeout_warning_marks_the_summary() -> None:
    warning = (
        "WARNING: Exiting before consuming the expected number of records: timeout (10000 ms) "
        "exceeded. You can use the --timeout option to increase the timeout."
    )
    text = "\n".join([SHARE_HEADER, warning, SHARE_SUMMARY])
    (run,) = parse_perf_test(text, "t.share.txt")
    assert run.timed_out
    assert any("hit its --timeout" in n for n in partition_capacity([run], "t").notes)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (
            "2026-11-26 05:00:43:082, 2026-11-26 05:01:12:766, 0.0000, 0.0000, 0.0000, 0, 29684",
            "line 2: no records consumed (data.consumed.in.nMsg is 0)",
        ),
        (
            "2026-11-26 05:00:43:082, 2026-11-26 05:00:43:082, 1.0000, Infinity, Infinity, 10, 0",
            "line 2: MB.sec is Infinity: zero elapsed time, not a measurement",
        ),
        (
            "2026-11-26 05:00:43:082, 2026-11-26 05:01:12:766, 1.0000, -0.0000, 1.0000, 10, 5",
            "line 2: MB.sec -0.0000 is negative",
        ),
        (
            "Share consumer 1 having client id c consumption metrics- 2026-11-26 05:00:43:082, "
            "2026-11-26 05:01:12:766, 292.9688, 9.8696",
            "line 2: a share consumer's row that is not kafka-share-consumer-perf-test output",
        ),
        (
            "2026-11-26 05:00:43:082, 2026-11-26 05:01:12:766, 1.0000, 1.0000, 1.0000, 10, 5 "
            "for share consumer 1garbage",
            "line 2: text glued to a share consumer's row that is not one: 'garbage'",
        ),
    ],
)
def test_share_rows_that_cannot_be_measurements_are_refused(row: str, problem: str) -> None:
    message = rejects(f"{SHARE_HEADER}\n{row}\n", "t.share.txt")
    assert message.startswith(f"t.share.txt: {problem}"), message


# --- consumer ---------------------------------------------------------------------------


def test_consumer_with_header() -> None:
    (run,) = fixture("orders.consumer.txt")
    assert (run.kind, run.topic, run.window, run.line) == ("consumer", "orders", "summary", 2)
    assert (run.records, run.records_per_s, run.mib_per_s, run.mib) == (
        5_000_000,
        346620.4506,
        33.0563,
        476.8372,
    )
    assert (run.rebalance_ms, run.fetch_ms) == (3035, 11390)
    assert (run.fetch_mib_per_s, run.fetch_records_per_s) == (41.8645, 438981.5628)
    assert run.avg_latency_ms is None and not run.timed_out


def test_consumer_without_header_is_recognised_by_its_shape() -> None:
    (run,) = fixture("orders-run2.txt")  # --hide-header; topic from '# topic: orders'
    assert (run.topic, run.window, run.line, run.fetch_mib_per_s) == (
        "orders",
        "summary",
        2,
        43.9157,
    )


def test_consumer_metrics_after_the_row_are_ignored() -> None:
    (run,) = fixture("orders-run3.consumer.txt")
    assert (run.topic, run.line, run.fetch_records_per_s) == ("orders", 3, 417292.6056)


def test_consumer_detailed_stats() -> None:
    runs = fixture("clicks.consumer.txt")
    assert [r.window for r in runs] == ["detailed"] * 4
    assert [r.records for r in runs] == [610000, 2140000, 3638000, 5000000]  # running totals
    assert (runs[0].rebalance_ms, runs[0].fetch_ms, runs[0].mib_per_s) == (3011, 1993, 116.2553)
    capacity = partition_capacity(runs, "clicks")
    # Last running totals over the sum of the intervals' fetch time, as one run.
    fetch_s = (1993 + 5000 + 5001 + 5000) / 1000
    assert capacity.consumer_runs == 1
    assert capacity.tc_mib_per_s == pytest.approx(4768.3716 / fetch_s)
    assert capacity.tc_records_per_s == pytest.approx(5_000_000 / fetch_s)


def test_detailed_row_without_header_is_told_by_its_thread_id() -> None:
    row = (
        "2024-05-14 10:02:21:486, 0, 2040.8630, 291.8243, 2140000, 306000.0000, 0, 5000, "
        "291.8243, 306000.0000"
    )
    (run,) = parse_perf_test(row + "\n", "t.consumer.txt")
    assert run.window == "detailed"


def test_consumer_warning_line_marks_the_run_timed_out() -> None:
    (run,) = fixture("timeout.consumer.txt")
    assert run.timed_out and run.line == 3 and run.records == 1_000_000
    notes = partition_capacity([run], "timeout").notes
    assert any("--timeout" in n for n in notes)


def test_consumer_comma_decimal_locale() -> None:
    (run,) = fixture("de-locale.consumer.txt")
    assert (run.mib, run.mib_per_s, run.records, run.records_per_s) == (
        95.3674,
        9.5329,
        100000,
        9996.0016,
    )
    assert (run.fetch_mib_per_s, run.fetch_records_per_s) == (13.6298, 14291.8394)


def test_consumer_custom_date_format_with_commas() -> None:
    row = (
        "Tue, 14 May 2024 10:02:11, Tue, 14 May 2024 10:02:25, 476.8372, 33.0563, 5000000, "
        "346620.4506, 3035, 11390, 41.8645, 438981.5628"
    )
    (run,) = parse_perf_test(consumer_text(row), "t.consumer.txt")
    assert (run.window, run.fetch_mib_per_s) == ("summary", 41.8645)


# --- rejections -------------------------------------------------------------------------


def test_rejects_the_kafka_27_epoch_rebalance_row() -> None:
    message = rejects((DATA / "legacy.consumer.txt").read_text(), "legacy.consumer.txt")
    assert message.startswith("legacy.consumer.txt: line 2: rebalance.time.ms 1600000010310")
    assert "epoch" in message and "KAFKA-10701" in message


def test_fixture_file_errors_name_the_path() -> None:
    with pytest.raises(PerfTestError, match=r"legacy\.consumer\.txt: line 2: "):
        fixture("legacy.consumer.txt")


@pytest.mark.parametrize(
    ("tail", "field"),
    [
        ("3035, 11390, -0.0000, 438981.5628", "fetch.MB.sec -0.0000"),
        ("3035, 11390, 41.8645, -12.5000", "fetch.nMsg.sec -12.5000"),
        ("3035, -11390, 41.8645, 438981.5628", "fetch.time.ms -11390"),
    ],
)
def test_rejects_negative_fetch_figures(tail: str, field: str) -> None:
    row = "2024-05-14 10:02:11:482, 2024-05-14 10:02:25:907, 476.8372, 33.0563, 5000000, "
    row += "346620.4506, " + tail
    message = rejects(consumer_text(row))
    assert message.startswith(f"t.consumer.txt: line 2: {field} is negative")


def test_rejects_end_equal_to_start() -> None:
    message = rejects((DATA / "zero-elapsed.consumer.txt").read_text())
    assert message == (
        "t.consumer.txt: line 2: zero elapsed time: end.time equals start.time "
        "(2024-05-14 10:02:11:482)"
    )


def test_rejects_zero_fetch_time() -> None:
    row = GOOD_ROW.replace("3035, 11390, 41.8645, 438981.5628", "14425, 0, Infinity, Infinity")
    assert "fetch.MB.sec is Infinity: zero elapsed time" in rejects(consumer_text(row))
    row = GOOD_ROW.replace("11390, 41.8645, 438981.5628", "0, 0.0000, 0.0000")
    assert "fetch.time.ms is 0" in rejects(consumer_text(row))


def test_rejects_zero_elapsed_shown_only_by_infinite_rates() -> None:
    row = "t1, t1, 0.0954, Infinity, 1000, NaN, 0, 0, Infinity, Infinity"
    assert "MB.sec is Infinity: zero elapsed time" in rejects(consumer_text(row))


def test_rejects_a_consumer_run_with_no_records() -> None:
    row = (
        "2024-05-14 10:02:11:482, 2024-05-14 10:02:25:907, 0.0000, 0.0000, 0, 0.0000, "
        "3035, 11390, 0.0000, 0.0000"
    )
    assert "no records consumed" in rejects(consumer_text(row))


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            "0 records sent, 0.000000 records/sec (0.00 MB/sec), NaN ms avg latency, "
            "0.00 ms max latency, 0 ms 50th, 0 ms 95th, 0 ms 99th, 0 ms 99.9th.",
            "no records sent",
        ),
        (
            "10 records sent, Infinity records/sec (Infinity MB/sec), 1.00 ms avg latency, "
            "2.00 ms max latency, 1 ms 50th, 2 ms 95th, 2 ms 99th, 2 ms 99.9th.",
            "records/sec is Infinity: zero elapsed time",
        ),
        (
            "5000000 records sent, 751992.780869 records/sec (71.72 MB/sec), 7.00 ms avg lat",
            "a 'records sent' line that is not kafka-producer-perf-test output",
        ),
    ],
)
def test_rejects_bad_producer_lines(line: str, problem: str) -> None:
    message = rejects(f"# topic: orders\n{line}\n", "run.txt")
    assert message.startswith(f"run.txt: line 2: {problem}")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "Metric Name   Value\nproducer-metrics:batch-size-avg:{client-id=x}   : 15204.417\n",
        f"{CONSUMER_HEADER}\n",
    ],
)
def test_rejects_a_file_with_no_run(text: str) -> None:
    assert rejects(text, "t.producer.txt") == (
        "t.producer.txt: no kafka-producer-perf-test, kafka-consumer-perf-test or "
        "kafka-share-consumer-perf-test output found"
    )


def test_rejects_output_of_the_other_tool() -> None:
    message = rejects(consumer_text(GOOD_ROW), "orders.producer.txt")
    assert message == (
        "orders.producer.txt: line 2: consumer perf-test output in a file named for producer output"
    )


def test_rejects_a_file_without_a_topic() -> None:
    message = rejects(consumer_text(GOOD_ROW), "run1.txt")
    assert message.startswith("run1.txt: which topic?")


@pytest.mark.parametrize(
    ("first_line", "source", "problem"),
    [
        ("# topic: bad/name", "x.txt", "line 1: topic name 'bad/name' is not legal"),
        ("# topic: ..", "x.txt", "line 1: topic name '..' is not allowed"),
        ("# topic:", "x.txt", "line 1: topic name '' is not legal"),
        ("# topic: " + "a" * 250, "x.txt", "line 1: topic name 'aaaa"),
        ("", "..consumer.txt", "file name: topic name '.' is not allowed"),
        ("", "caf\u00e9.consumer.txt", "file name: topic name 'caf\u00e9' is not legal"),
    ],
)
def test_rejects_illegal_topic_names(first_line: str, source: str, problem: str) -> None:
    message = rejects(f"{first_line}\n{CONSUMER_HEADER}\n{GOOD_ROW}\n", source)
    assert message.startswith(f"{source}: {problem}")


def test_topic_name_rule() -> None:
    assert check_topic_name("a" * 249) is None
    assert check_topic_name("orders.v2_eu-west") is None
    assert check_topic_name("a" * 250) is not None
    assert check_topic_name(".") is not None


def test_missing_file() -> None:
    with pytest.raises(PerfTestError, match=r"nope\.producer\.txt: cannot read the file"):
        read_perf_test(DATA / "nope.producer.txt")


# --- capacities -------------------------------------------------------------------------


def test_capacity_is_the_median_of_several_runs() -> None:
    runs = [
        *fixture("orders.producer.txt"),
        *fixture("orders-run2.producer.txt"),
        *fixture("orders.consumer.txt"),
        *fixture("orders-run2.txt"),
        *fixture("orders-run3.consumer.txt"),
    ]
    capacity = partition_capacity(runs, "orders")
    assert (capacity.producer_runs, capacity.consumer_runs) == (2, 3)
    # Producer: the two summary lines (the windows are not runs).
    assert capacity.tp_records_per_s == pytest.approx((149804.650546 + 751992.780869) / 2)
    assert capacity.tp_mib_per_s == pytest.approx((14.29 + 71.72) / 2)
    # Consumer: fetch.* figures (group join excluded), median of 41.86, 43.92, 39.80.
    assert (capacity.tc_mib_per_s, capacity.tc_records_per_s) == (41.8645, 438981.5628)
    assert "producer: median of 2 runs" in capacity.notes
    assert "consumer: median of 3 runs" in capacity.notes


def test_capacity_of_a_side_not_measured_is_none() -> None:
    capacity = partition_capacity(fixture("orders.consumer.txt"), "orders")
    assert capacity.tp_mib_per_s is None and capacity.tp_records_per_s is None
    assert capacity.producer_runs == 0 and capacity.tc_mib_per_s == 41.8645


def test_capacity_of_an_unknown_topic() -> None:
    with pytest.raises(PerfTestError, match="no perf-test runs for topic 'clicks'"):
        partition_capacity(fixture("orders.consumer.txt"), "clicks")


# --- command line -----------------------------------------------------------------------


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(DATA / n) for n in ("orders.producer.txt", "orders.consumer.txt")]
    assert main(["perf-test", *files, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    summary = out["runs"][6]
    for key in ("kind", "topic", "records", "records_per_s", "mib_per_s", "window", "line"):
        assert key in summary
    assert summary["p999_ms"] == 68.0 and summary["window"] == "summary"
    consumer = out["runs"][7]
    assert consumer["kind"] == "consumer" and consumer["avg_latency_ms"] is None
    (capacity,) = out["capacities"]
    assert capacity["topic"] == "orders"
    assert capacity["tp_mib_per_s"] == 14.29 and capacity["tc_mib_per_s"] == 41.8645


def test_cli_table(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(DATA / n) for n in ("payments.producer.txt", "clicks.consumer.txt")]
    assert main(["perf-test", *files]) == 0
    text = capsys.readouterr().out
    assert "steady-state" in text and "payments.producer.txt:8" in text
    assert "payments: Tp 9.77 MiB/s, 10,001.3 records/s; Tc not measured" in text
    assert "clicks: Tp not measured; Tc " in text


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("legacy.consumer.txt", "legacy.consumer.txt: line 2: rebalance.time.ms"),
        ("zero-elapsed.consumer.txt", "zero-elapsed.consumer.txt: line 2: zero elapsed time"),
        ("nope.producer.txt", "nope.producer.txt: cannot read the file"),
    ],
)
def test_cli_bad_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], name: str, problem: str
) -> None:
    assert main(["perf-test", str(DATA / "orders.consumer.txt"), str(DATA / name)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()
    assert line.startswith("partition-planner perf-test: error: ") and problem in line


def test_cli_exit_code_from_a_real_process() -> None:
    done = subprocess.run(
        [str(SCRIPT), "perf-test", str(DATA / "legacy.consumer.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
