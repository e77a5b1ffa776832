"""Reading the output of Kafka's perf tools into runs (`planner.partition_capacity.PerfRun`).

`kafka-producer-perf-test.sh` (class `org.apache.kafka.tools.ProducerPerformance`)
prints one line per reporting window (every 5 s) and one summary line:

    4999 records sent, 999.6 records/sec (0.98 MB/sec), 2.5 ms avg latency, 61.0 ms max latency.
    5000000 records sent, 751992.780869 records/sec (71.72 MB/sec), 7.00 ms avg latency,
    230.00 ms max latency, 4 ms 50th, 29 ms 95th, 53 ms 99th, 68 ms 99.9th.

(the summary is one line). With `--warmup-records` a second summary follows, whose count
reads `N steady state records sent`. `kafka-consumer-perf-test.sh` (`ConsumerPerformance`)
prints a header and one row, or with `--show-detailed-stats` a row per reporting
interval and no summary row:

    start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
    rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
    time, threadId, data.consumed.in.MB, MB.sec, ...           (detailed stats)

Both tools format numbers with the JVM's default locale, so a German JVM prints
`95,3674`; fields are still separated by `", "` and decimals never have a space after
the comma, which is how the two are told apart.

"MB" in both tools is MiB: they divide bytes by 1024 * 1024. The figures are kept as
printed (nothing is converted) and named `mib_per_s` accordingly.

These formats were checked against the tools of Apache Kafka 4.4.0 run on a real broker
(`tests/adapters/data/perf/kafka44*.txt`): the producer's summary still prints records/sec
with `%f`, the consumer's columns are unchanged, and its timeout warning now says
"records" where 3.x said "messages".

`kafka-share-consumer-perf-test.sh` (`ShareConsumerPerformance`, Kafka 4.x) measures a
share group (KIP-932): its members, `--threads` share consumers, read one partition
together. Kafka 4.4.0 prints a header with other columns, and per member and reporting
interval with `--show-detailed-stats`, then per member with `--show-consumer-stats`, then
the group's summary row:

    start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec,
    data.consumed.in.nMsg, fetch.time.ms
    2026-11-26 08:45:58:397, 2026-11-26 08:46:00:411, 4.9521, 2.4584, 2517.3784,
    5071, 2014 for share consumer 2
    Share consumer 1 having client id perf-share-consumer-client-1 consumption metrics-
    2026-11-26 08:45:51:375, 2026-11-26 08:46:06:509, 44.6777, 2.9521, 3022.9946, 45750,
    15134
    2026-11-26 08:45:51:375, 2026-11-26 08:46:06:511, 98.4668, 6.5055, 6661.6015,
    100830, 15136

(each one line; records/s comes before the record count, and `fetch.time.ms` is the whole
elapsed time: there is no group-join column). Those rows are `share` runs, and give a
partition's share-fetch throughput (`planner.partition_capacity`), never Tc.

Every file is read whole; anything that is not perf-tool output (`--print-metrics`
tables, log lines, the warm-up notices) is skipped, but a line that says `records sent`
and does not parse, and a consumer row that cannot be a real measurement, raise
`PerfTestError` naming the file and line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from planner.partition_capacity import Kind, PerfRun, PerfTestError, Window

__all__ = ["check_topic_name", "parse_perf_test", "read_perf_test"]

# Kafka's own rule (org.apache.kafka.common.internals.Topic): 1-249 legal characters.
_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")
_TOPIC_LINE = re.compile(r"#\s*topic\s*:\s*(?P<name>\S*)\s*$", re.IGNORECASE)
_FILE_NAME = re.compile(r"(?P<name>.+)\.(?P<kind>producer|consumer|share)\.txt")

# A number as Java's Formatter prints it: `%d`, or `%f`/`%.Nf` with a `.` or, in locales
# such as de_DE, a `,` before the decimals; `Infinity`/`NaN` after a division by a zero
# elapsed time. U+2212 is the minus sign some locales use.
_NUM = r"[-\u2212]?(?:\d+(?:[.,]\d+)?|Infinity|NaN)"
_INT = r"[-\u2212]?\d+"

_PRODUCER = re.compile(
    rf"(?P<records>\d+)(?P<steady> steady state)? records sent, "
    rf"(?P<rps>{_NUM}) records/sec \((?P<mib>{_NUM}) MB/sec\), "
    rf"(?P<avg>{_NUM}) ms avg latency, (?P<max>{_NUM}) (?:ms )?max latency"
    rf"(?:, (?P<p50>{_INT}) ms 50th, (?P<p95>{_INT}) ms 95th, "
    rf"(?P<p99>{_INT}) ms 99th, (?P<p999>{_INT}) ms 99\.9th)?\.\s*"
)
_CONSUMER_TAIL = (
    "data.consumed.in.MB",
    "MB.sec",
    "data.consumed.in.nMsg",
    "nMsg.sec",
    "rebalance.time.ms",
    "fetch.time.ms",
    "fetch.MB.sec",
    "fetch.nMsg.sec",
)
_SUMMARY_HEADER = ("start.time", "end.time", *_CONSUMER_TAIL)
_DETAILED_HEADER = ("time", "threadId", *_CONSUMER_TAIL)
# ShareConsumerPerformance's header (Kafka 4.x): note nMsg.sec before the count.
_SHARE_TAIL = (
    "data.consumed.in.MB",
    "MB.sec",
    "nMsg.sec",
    "data.consumed.in.nMsg",
    "fetch.time.ms",
)
_SHARE_HEADER = ("start.time", "end.time", *_SHARE_TAIL)
# A member's summary (`--show-consumer-stats`); 4.4.0 names the client id, older builds
# of the tool did not.
_SHARE_MEMBER = re.compile(
    r"Share consumer (?P<member>\d+)(?: having client id (?P<client>\S*))? "
    r"consumption metrics- (?P<row>.+)"
)
# A member's progress row (`--show-detailed-stats`): the row, then the member.
_SHARE_DETAILED = re.compile(r"(?P<row>.+) for share consumer (?P<member>\d+)")
_FOR_MEMBER = re.compile(r" for share consumer (?P<member>\d+)")
_INT_FIELDS = {"data.consumed.in.nMsg", "rebalance.time.ms", "fetch.time.ms"}
_KINDS: dict[str, Kind] = {"producer": "producer", "consumer": "consumer", "share": "share"}
_DEFAULT_DATE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}")
# 10**12 ms is 31 years: no rebalance takes that long, an epoch timestamp (2001 on) does.
_EPOCH_MS = 10**12


def check_topic_name(name: str) -> str | None:
    """Why `name` is not a legal Kafka topic name, or None when it is."""
    if name in {".", ".."}:
        return f"topic name {name!r} is not allowed ('.' and '..' are reserved)"
    if not _TOPIC.fullmatch(name):
        return (
            f"topic name {name[:60]!r} is not legal: Kafka allows 1-249 characters "
            f"of a-z, A-Z, 0-9, '.', '_' and '-'"
        )
    return None


def read_perf_test(path: str | Path) -> tuple[PerfRun, ...]:
    """Read one file of Kafka's producer, consumer or share-consumer perf-tool output.

    The topic comes from a first line `# topic: NAME`, or from a file name
    `NAME.producer.txt` / `NAME.consumer.txt` / `NAME.share.txt`.

    Returns:
        The runs in the file, in file order.

    Raises:
        PerfTestError: see `parse_perf_test`; also when the file cannot be read.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise PerfTestError(f"{path}: cannot read the file: {exc.strerror}") from None
    return parse_perf_test(text, str(path))


def parse_perf_test(text: str, source: str) -> tuple[PerfRun, ...]:
    """Parse perf-tool output; `source` is the file name (for the topic and messages).

    Returns:
        The runs, in order.

    Raises:
        PerfTestError: no topic, or an illegal one; a `records sent` line that does not
            parse; a producer run with no records or zero elapsed time; a consumer row
            from the Kafka <= 2.7 bug (an epoch timestamp in `rebalance.time.ms`,
            negative `fetch.*` figures), with zero elapsed time or with no records;
            output of the wrong tool for a `NAME.producer.txt`/`NAME.consumer.txt` name;
            or no run at all. The message names the file and the line.
    """
    lines = text.splitlines()
    topic, expected_kind = _topic_of(lines, source)
    runs: list[PerfRun] = []
    header: tuple[str, ...] | None = None
    timed_out = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}: line {number}"
        if line.startswith("WARNING: Exiting before consuming"):
            timed_out = True
            continue
        found_rows: list[PerfRun] = []
        if "records sent" in line:
            found_rows.append(_producer_run(line, where, topic, source, number))
        else:
            fields = tuple(f.strip() for f in line.split(", "))
            if fields in (_SUMMARY_HEADER, _DETAILED_HEADER, _SHARE_HEADER):
                header = fields
                continue
            pieces = _share_detailed_rows(line)
            for piece in pieces or ():
                row = _share_run(piece, header, where, topic, source, number, timed_out)
                if row is None:
                    raise PerfTestError(
                        f"{where}: text glued to a share consumer's row that is not one: "
                        f"{piece[:80]!r}"
                    )
                found_rows.append(row)
            if pieces is None:
                found = _share_run(line, header, where, topic, source, number, timed_out)
                if found is None:
                    found = _consumer_run(fields, header, where, topic, source, number, timed_out)
                if found is None:
                    continue  # --print-metrics, log lines, warm-up notices
                found_rows.append(found)
                # The share tool warns before its members' rows, and its summary comes last.
                if found.kind == "consumer" or found.window == "summary":
                    timed_out = False
        for run in found_rows:
            if expected_kind is not None and run.kind != expected_kind:
                raise PerfTestError(
                    f"{where}: {run.kind} perf-test output in a file named for "
                    f"{expected_kind} output"
                )
            runs.append(run)
    if not runs:
        raise PerfTestError(
            f"{source}: no kafka-producer-perf-test, kafka-consumer-perf-test or "
            f"kafka-share-consumer-perf-test output found"
        )
    return tuple(runs)


def _topic_of(lines: Sequence[str], source: str) -> tuple[str, Kind | None]:
    from_line: str | None = None
    if lines and (match := _TOPIC_LINE.match(lines[0].strip())):
        from_line = match["name"]
        if problem := check_topic_name(from_line):
            raise PerfTestError(f"{source}: line 1: {problem}")
    file_match = _FILE_NAME.fullmatch(Path(source).name)
    kind: Kind | None = None
    from_name: str | None = None
    if file_match:
        kind = _KINDS[file_match["kind"]]
        from_name = file_match["name"]
    if from_line is not None:
        # The line wins: `orders-run2.producer.txt` may well measure topic `orders`.
        return from_line, kind
    if from_name is None:
        raise PerfTestError(
            f"{source}: which topic? start the file with '# topic: NAME' or name it "
            f"NAME.producer.txt / NAME.consumer.txt / NAME.share.txt"
        )
    if problem := check_topic_name(from_name):
        raise PerfTestError(f"{source}: file name: {problem}")
    return from_name, kind


def _number(text: str) -> float:
    # Locales with a decimal comma print 95,3674; nothing prints thousands separators.
    return float(text.replace("\u2212", "-").replace(",", "."))


def _producer_run(line: str, where: str, topic: str, source: str, number: int) -> PerfRun:
    match = _PRODUCER.fullmatch(line)
    if match is None:
        raise PerfTestError(
            f"{where}: a 'records sent' line that is not kafka-producer-perf-test output: "
            f"{line[:80]!r}"
        )
    records = int(match["records"])
    if match["p50"] is None:
        window: Window = "detailed"
    else:
        window = "steady-state" if match["steady"] else "summary"
    if records == 0:
        raise PerfTestError(f"{where}: no records sent")
    values = {k: _number(match[k]) for k in ("rps", "mib", "avg", "max")}
    for key, label in (("rps", "records/sec"), ("mib", "MB/sec")):
        if not math.isfinite(values[key]):
            raise PerfTestError(
                f"{where}: {label} is {match[key]}: zero elapsed time, not a measurement"
            )
    percentiles = {
        k: (None if match[k] is None else float(match[k])) for k in ("p50", "p95", "p99", "p999")
    }
    return PerfRun(
        kind="producer",
        topic=topic,
        records=records,
        records_per_s=values["rps"],
        mib_per_s=values["mib"],
        window=window,
        source=source,
        line=number,
        avg_latency_ms=values["avg"],
        max_latency_ms=values["max"],
        p50_ms=percentiles["p50"],
        p95_ms=percentiles["p95"],
        p99_ms=percentiles["p99"],
        p999_ms=percentiles["p999"],
    )


def _consumer_run(
    fields: tuple[str, ...],
    header: tuple[str, ...] | None,
    where: str,
    topic: str,
    source: str,
    number: int,
    timed_out: bool,
) -> PerfRun | None:
    """A consumer row, recognised by its shape: at least two leading fields (times, or
    time and threadId; a custom `--date-format` may itself contain ", ") and then eight
    numbers. Anything else is not a consumer row: None."""
    if len(fields) < 10:
        return None
    tail = fields[-8:]
    pattern = {name: (_INT if name in _INT_FIELDS else _NUM) for name in _CONSUMER_TAIL}
    if not all(re.fullmatch(pattern[n], v) for n, v in zip(_CONSUMER_TAIL, tail, strict=True)):
        return None
    values = {n: _number(v) for n, v in zip(_CONSUMER_TAIL, tail, strict=True)}
    lead = fields[:-8]
    if header is not None:
        detailed = header == _DETAILED_HEADER
    else:
        # Without a header: the detailed row's second field is the thread id (0).
        detailed = len(lead) == 2 and re.fullmatch(r"\d{1,4}", lead[1]) is not None
    _check_consumer(values, tail, lead if not detailed else (), where)
    return PerfRun(
        kind="consumer",
        topic=topic,
        records=int(values["data.consumed.in.nMsg"]),
        records_per_s=values["nMsg.sec"],
        mib_per_s=values["MB.sec"],
        window="detailed" if detailed else "summary",
        source=source,
        line=number,
        rebalance_ms=int(values["rebalance.time.ms"]),
        fetch_ms=int(values["fetch.time.ms"]),
        fetch_mib_per_s=values["fetch.MB.sec"],
        fetch_records_per_s=values["fetch.nMsg.sec"],
        mib=values["data.consumed.in.MB"],
        timed_out=timed_out,
    )


def _share_detailed_rows(line: str) -> list[str] | None:
    """A line of share detailed rows split into rows, or None for any other line.

    Kafka 4.4.0's share tool prints a detailed row and its line end in two calls, so the
    rows of members that report at the same moment can share a line, the second glued to
    the first's member number: `ROW for share consumer 12026-11-26 ..., 5 for share
    consumer 2`. Each row starts with its start.time, formatted like its end.time, so the
    member number ends where the rest begins with a field as long as this row's first.
    """
    if " for share consumer " not in line or _SHARE_MEMBER.fullmatch(line):
        return None
    rows: list[str] = []
    rest = line
    while rest:
        match = _FOR_MEMBER.search(rest)
        if match is None:
            rows.append(rest)  # not a row: the parser refuses it
            break
        after = rest[match.end() :]
        if not after:
            rows.append(rest)
            break
        digits = match["member"]
        width = len(rest.split(", ", 1)[0])
        cut = next(
            (
                k
                for k in range(1, len(digits) + 1)
                if len((digits[k:] + after).split(", ", 1)[0]) == width
            ),
            len(digits),
        )
        rows.append(rest[: match.start("member") + cut])
        rest = digits[cut:] + after
    return rows


def _share_run(
    line: str,
    header: tuple[str, ...] | None,
    where: str,
    topic: str,
    source: str,
    number: int,
    timed_out: bool,
) -> PerfRun | None:
    """A share-consumer row (summary, member or detailed), or None for any other line.

    A member row and a detailed row say so in their text; a summary row is recognised
    after the share header, or without one (`--hide-header`) by its shape: two leading
    fields and then the five share columns, which no other tool prints.
    """
    member: int | None = None
    window: Window = "summary"
    if match := _SHARE_MEMBER.fullmatch(line):
        member, window, row = int(match["member"]), "member", match["row"]
    elif match := _SHARE_DETAILED.fullmatch(line):
        member, window, row = int(match["member"]), "detailed", match["row"]
    else:
        row = line
    fields = tuple(f.strip() for f in row.split(", "))
    tail = fields[-5:]
    pattern = {n: (_INT if n in _INT_FIELDS else _NUM) for n in _SHARE_TAIL}
    if len(fields) < 7 or not all(
        re.fullmatch(pattern[n], v) for n, v in zip(_SHARE_TAIL, tail, strict=True)
    ):
        if member is None:
            return None
        raise PerfTestError(
            f"{where}: a share consumer's row that is not kafka-share-consumer-perf-test "
            f"output: {line[:80]!r}"
        )
    if member is None and header != _SHARE_HEADER and len(fields) != 7:
        return None  # without the share header, only the exact shape counts
    values = {n: _number(v) for n, v in zip(_SHARE_TAIL, tail, strict=True)}
    text = dict(zip(_SHARE_TAIL, tail, strict=True))
    for name in _SHARE_TAIL:
        if values[name] < 0 or text[name].startswith(("-", "\u2212")):
            raise PerfTestError(f"{where}: {name} {text[name]} is negative")
        if not math.isfinite(values[name]):
            raise PerfTestError(
                f"{where}: {name} is {text[name]}: zero elapsed time, not a measurement"
            )
    if window != "detailed":
        # A detailed row covers one reporting interval, which may hold no records; a
        # whole run (the group's or a member's) must have taken time, and the group's
        # must have read something.
        if values["fetch.time.ms"] == 0:
            raise PerfTestError(f"{where}: zero elapsed time: fetch.time.ms is 0")
        if window == "summary" and values["data.consumed.in.nMsg"] == 0:
            raise PerfTestError(f"{where}: no records consumed (data.consumed.in.nMsg is 0)")
    return PerfRun(
        kind="share",
        topic=topic,
        records=int(values["data.consumed.in.nMsg"]),
        records_per_s=values["nMsg.sec"],
        mib_per_s=values["MB.sec"],
        window=window,
        source=source,
        line=number,
        fetch_ms=int(values["fetch.time.ms"]),
        mib=values["data.consumed.in.MB"],
        timed_out=timed_out and window == "summary",
        member=member,
    )


def _check_consumer(
    values: dict[str, float], printed: tuple[str, ...], times: tuple[str, ...], where: str
) -> None:
    text = dict(zip(_CONSUMER_TAIL, printed, strict=True))
    bug = (
        "the Kafka <= 2.7 consumer-perf-test bug (KAFKA-10701, fixed in 2.8): "
        "rerun with a newer kafka-consumer-perf-test.sh"
    )
    rebalance = values["rebalance.time.ms"]
    if rebalance >= _EPOCH_MS:
        raise PerfTestError(
            f"{where}: rebalance.time.ms {text['rebalance.time.ms']} is an epoch timestamp, "
            f"not a duration: {bug}"
        )
    for name in ("rebalance.time.ms", "fetch.time.ms", "fetch.MB.sec", "fetch.nMsg.sec"):
        # Java prints a tiny negative rate as -0.0000, which float() reads as -0.0.
        if values[name] < 0 or text[name].startswith(("-", "\u2212")):
            raise PerfTestError(f"{where}: {name} {text[name]} is negative: {bug}")
    if len(times) == 2 and times[0] == times[1] and _DEFAULT_DATE.fullmatch(times[0]):
        raise PerfTestError(f"{where}: zero elapsed time: end.time equals start.time ({times[0]})")
    for name in ("MB.sec", "nMsg.sec", "fetch.MB.sec", "fetch.nMsg.sec"):
        if not math.isfinite(values[name]):
            raise PerfTestError(
                f"{where}: {name} is {text[name]}: zero elapsed time, not a measurement"
            )
    if values["fetch.time.ms"] == 0:
        raise PerfTestError(
            f"{where}: zero elapsed time: fetch.time.ms is 0, so fetch.MB.sec means nothing"
        )
    if values["data.consumed.in.nMsg"] == 0:
        raise PerfTestError(f"{where}: no records consumed (data.consumed.in.nMsg is 0)")


# Formats follow Kafka's tools/src/main/java/org/apache/kafka/tools/ProducerPerformance.java
# (Stats.printWindow, Stats.printTotal) and ConsumerPerformance.java (printHeader, the
# summary printf, printBasicProgress/printExtendedProgress); KAFKA-10701 for the bug.
