"""Benchmark: planner.partitioners against Kafka's own ``Utils.murmur2``, in the same run.

Generates random keys (16-36 bytes, seeded) and hands the same keys to
``benchmarks/java/KafkaMurmur2Bench.java`` (compiled against the reference Kafka's
``kafka-clients`` jar, run in one JVM per round with warm-up passes) and to
``planner.partitioners``. The Java side times ``Utils.murmur2(key)`` (the reference of the
target) and ``BuiltInPartitioner.partitionForKey(key, 12)`` (the producer's placement);
ours times ``partitions_for_keys(..., "murmur2_random")`` on an Arrow array, the raw hash
(``murmur2_array``) and ``partitions_for_keys`` on a list of ``bytes``. Both sides'
position-weighted checksums of hashes and of partitions must agree.

Java and ours alternate round by round, so both see the same background load on a shared
machine; best and median pool every timed pass of every round, the ratio reported is the
median of the per-round ratios (our median over Java's ``Utils.murmur2`` median). Each
pass is timed by the wall clock (the target) and by its thread's CPU time, which other
work on the machine disturbs less.

Run from the repository root (the Kafka ``make setup`` installs, one on ``PATH``, or
``--kafka-home``)::

    .venv/bin/python benchmarks/partitioners_bench.py            # 1,000,000 keys, 5 rounds
    .venv/bin/python benchmarks/partitioners_bench.py --keys 200000 --json

Exit code 0 when the target is met and the checksums agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.adapters.kafka_dist import KafkaDistribution, find
from planner.partitioners import murmur2_array, partitions_for_keys
from tests.support.java import compiled

JAVA_SOURCE = Path(__file__).resolve().parent / "java" / "KafkaMurmur2Bench.java"
TARGET_RATIO = 0.5
PARTITIONS = 12
# Timing Kafka's code needs the JVM it runs in production: both JIT tiers. The serial
# collector keeps the JVM to one busy thread on the shared 2-core machine.
JVM_OPTIONS = ("-XX:+UseSerialGC",)
JVM_HEAP_MB = 768  # 1M keys as byte[]s, about 50 MB, and the file they are read from


def make_keys(count: int, seed: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """Key lengths (16-36 bytes) and their concatenated random bytes."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(16, 37, size=count, dtype=np.int32)
    data = rng.integers(0, 256, size=int(lengths.sum()), dtype=np.uint8)
    return lengths, data


def arrow_keys(lengths: npt.NDArray[np.int32], data: npt.NDArray[np.uint8]) -> pa.Array:
    offsets = np.zeros(lengths.size + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    return pa.Array.from_buffers(
        pa.binary(), lengths.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def write_keys_file(
    path: Path, lengths: npt.NDArray[np.int32], data: npt.NDArray[np.uint8]
) -> None:
    """The format KafkaMurmur2Bench.java reads: int32 count, int32 lengths, bytes (LE)."""
    with path.open("wb") as f:
        f.write(np.array([lengths.size], dtype="<i4").tobytes())
        f.write(lengths.astype("<i4").tobytes())
        f.write(data.tobytes())


def checksum(values: npt.NDArray[np.int32]) -> int:
    """sum((i + 1) * v_i) in wrapping 64-bit arithmetic, as the Java program computes it."""
    weights = np.arange(1, values.size + 1, dtype=np.int64)
    with np.errstate(over="ignore"):
        return int(np.sum(weights * values.astype(np.int64), dtype=np.int64))


def run_java(
    kafka: KafkaDistribution, classes: Path, keys_file: Path, warmup: int, iterations: int
) -> dict[str, Any]:
    command = kafka.java_command(
        "KafkaMurmur2Bench",
        [str(keys_file), str(PARTITIONS), str(warmup), str(iterations)],
        heap_mb=JVM_HEAP_MB,
        jvm_options=JVM_OPTIONS,
        extra_classpath=[classes],
    )
    proc = subprocess.run(command, check=True, capture_output=True, text=True)
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def keys_per_s(
    fn: Callable[[], object], keys: int, warmup: int, repeat: int
) -> dict[str, list[float]]:
    """Keys/s of each of ``repeat`` timed calls after ``warmup`` untimed ones, by the wall
    clock and by this thread's CPU time (the shape the Java program prints)."""
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(repeat):
        cpu_start, start = time.thread_time(), time.perf_counter()
        fn()
        wall.append(keys / (time.perf_counter() - start))
        cpu.append(keys / (time.thread_time() - cpu_start))
    return {"keys_per_s": wall, "cpu_keys_per_s": cpu}


def best_median(rates: Sequence[float]) -> dict[str, float]:
    return {"best": max(rates), "median": statistics.median(rates)}


# Bytes one key moves through the cache (reads + writes) in each pass of
# planner.partitioners._murmur2_rows, for rows of `width` 4-byte words; indices are 8
# bytes. Java's Utils.murmur2 reads the key's bytes, its byte[] header (16 bytes) and
# the reference to it (4) once, and keeps every intermediate value in a register.
def kernel_bytes_per_key(width: int) -> dict[str, int]:
    return {
        "gather rows": 8 + 8 * width,  # start index; row read and written
        "index arithmetic": 16 + 32 + 48,  # blocks; tail index; chain pick index
        "tail word and chain pick (takes)": 16 + 16,
        "mix (4 passes over every row)": 36 * width,
        "chain (2 passes per block)": 12 + 16 * (width - 1),
        "tail bytes and final avalanche (11 passes)": 124,
    }


def java_bytes_per_key(mean_key_bytes: float) -> float:
    return mean_key_bytes + 16 + 4


def memory_figures(data: npt.NDArray[np.uint8], repeat: int) -> dict[str, float]:
    """What this machine moves per second: the keys' buffer copied and read (main
    memory), and one NumPy pass over a slice's rows (the cache our passes run in)."""

    def best_s(fn: Callable[[], object]) -> float:
        fn()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    words = data[: data.size // 8 * 8].view(np.uint64)
    rows = np.ones(_SLICE_KEYS * _ROW_WORDS, dtype=np.uint32)
    m = np.uint32(0x5BD1E995)
    return {
        "copy_gb_per_s": 2 * data.size / best_s(data.copy) / 1e9,
        "read_gb_per_s": words.nbytes / best_s(words.sum) / 1e9,
        "cache_pass_gb_per_s": 8 * rows.size / best_s(lambda: np.multiply(rows, m, out=rows)) / 1e9,
    }


_SLICE_KEYS = 8192  # planner.partitioners._WIDE_SLICE_KEYS
_ROW_WORDS = 10  # keys of 16-36 bytes: 9 blocks and a tail word


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=1_000_000, help="number of keys")
    parser.add_argument("--seed", type=int, default=20261101)
    parser.add_argument("--rounds", type=int, default=5, help="Java/ours alternations")
    parser.add_argument("--repeat", type=int, default=9, help="timed calls per round (ours)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed calls per round (ours)")
    parser.add_argument("--java-warmup", type=int, default=10, help="untimed passes per JVM")
    parser.add_argument("--java-iterations", type=int, default=15, help="timed passes per JVM")
    parser.add_argument("--kafka-home", type=Path, help="a Kafka folder with libs/")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    kafka = find(args.kafka_home)
    classes = compiled("kafka-murmur2-bench", [JAVA_SOURCE], kafka)
    lengths, data = make_keys(args.keys, args.seed)
    arrow = arrow_keys(lengths, data)
    as_list = arrow.to_pylist()
    n = args.keys
    ours_hash_sum = checksum(murmur2_array(arrow))
    ours_partition_sum = checksum(partitions_for_keys(arrow, PARTITIONS, "murmur2_random"))

    ours: dict[str, Callable[[], object]] = {
        "murmur2_random_arrow": lambda: partitions_for_keys(arrow, PARTITIONS, "murmur2_random"),
        "murmur2_hash_arrow": lambda: murmur2_array(arrow),
        "murmur2_random_list": lambda: partitions_for_keys(as_list, PARTITIONS, "murmur2_random"),
    }
    others: dict[str, Callable[[], object]] = {
        "consistent_random_arrow": lambda: partitions_for_keys(
            arrow, PARTITIONS, "consistent_random"
        ),
        "fnv1a_random_arrow": lambda: partitions_for_keys(arrow, PARTITIONS, "fnv1a_random"),
    }
    load_start = os.getloadavg()
    rounds: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="murmur2-bench-") as tmp:
        keys_file = Path(tmp) / "keys.bin"
        write_keys_file(keys_file, lengths, data)
        for _ in range(args.rounds):
            java = run_java(kafka, classes, keys_file, args.java_warmup, args.java_iterations)
            rates = {name: keys_per_s(fn, n, args.warmup, args.repeat) for name, fn in ours.items()}
            ratio, cpu_ratio = (
                statistics.median(rates["murmur2_random_arrow"][clock])
                / statistics.median(java["hash"][clock])
                for clock in ("keys_per_s", "cpu_keys_per_s")
            )
            rounds.append(
                {
                    "java": java,
                    "ours": rates,
                    "ratio": ratio,
                    "cpu_ratio": cpu_ratio,
                    "load_1m": os.getloadavg()[0],
                }
            )
    # The other partitioners once, after the rounds: they have no Java reference here.
    other_rates = {name: keys_per_s(fn, n, args.warmup, args.repeat) for name, fn in others.items()}
    load_end = os.getloadavg()
    memory = memory_figures(data, args.repeat)
    bytes_per_key = kernel_bytes_per_key(_ROW_WORDS)
    memory["ours_bytes_per_key"] = sum(bytes_per_key.values())
    memory["java_bytes_per_key"] = java_bytes_per_key(float(lengths.mean()))
    memory["ours_passes_ns_per_key_at_cache_rate"] = (
        memory["ours_bytes_per_key"] / memory["cache_pass_gb_per_s"]
    )

    def pooled(side: str, name: str, clock: str = "keys_per_s") -> dict[str, float]:
        return best_median([x for r in rounds for x in r[side][name][clock]])

    ratios = [r["ratio"] for r in rounds]
    ratio = statistics.median(ratios)
    cpu_ratios = [r["cpu_ratio"] for r in rounds]
    java_hash, java_partition = pooled("java", "hash"), pooled("java", "partition")
    figures = {name: pooled("ours", name) for name in ours}
    figures |= {name: best_median(rates["keys_per_s"]) for name, rates in other_rates.items()}
    cpu_figures = {
        "Utils.murmur2": pooled("java", "hash", "cpu_keys_per_s"),
        "partitionForKey": pooled("java", "partition", "cpu_keys_per_s"),
        **{name: pooled("ours", name, "cpu_keys_per_s") for name in ours},
    }
    checksums_agree = all(
        r["java"]["hash"]["checksum"] == ours_hash_sum
        and r["java"]["partition"]["checksum"] == ours_partition_sum
        for r in rounds
    )
    passed = checksums_agree and ratio >= TARGET_RATIO
    report: dict[str, Any] = {
        "keys": n,
        "key_bytes": "16-36 random",
        "seed": args.seed,
        "cpus": os.cpu_count(),
        "load_average_start": load_start,
        "load_average_end": load_end,
        "java_version": rounds[0]["java"]["java_version"],
        "kafka_version": rounds[0]["java"]["kafka_version"],
        "java_keys_per_s": {"Utils.murmur2": java_hash, "partitionForKey": java_partition},
        "keys_per_s": figures,
        "checksums": {"hash": ours_hash_sum, "partition": ours_partition_sum},
        "checksums_agree": checksums_agree,
        "cpu_keys_per_s": cpu_figures,
        "ratio_per_round": ratios,
        "cpu_ratio_per_round": cpu_ratios,
        "cpu_ratio_median": statistics.median(cpu_ratios),
        "load_1m_per_round": [r["load_1m"] for r in rounds],
        "ratio_median": ratio,
        "target_ratio": TARGET_RATIO,
        "result": "PASS" if passed else "FAIL",
        "memory": memory,
        "ours_bytes_per_key_by_pass": bytes_per_key,
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if passed else 1
    _print_table(report, args)
    return 0 if passed else 1


def _print_table(report: dict[str, Any], args: argparse.Namespace) -> None:
    def row(label: str, figures: dict[str, float], note: str = "") -> None:
        best, median = figures["best"] / 1e6, figures["median"] / 1e6
        print(f"{label:<52} {best:>8.2f} {median:>8.2f}  {note}")

    java_median = report["java_keys_per_s"]["Utils.murmur2"]["median"]
    print(
        f"{report['keys']:,} keys of 16-36 random bytes (seed {args.seed}), "
        f"{report['cpus']} CPUs, {args.rounds} rounds, load average "
        f"{report['load_average_start'][0]:.2f} -> {report['load_average_end'][0]:.2f}"
    )
    print(f"{'':<52} {'best':>8} {'median':>8}  (million keys/s)")
    java = f"Java {report['java_version']}, Kafka {report['kafka_version']}"
    row(f"{java} Utils.murmur2", report["java_keys_per_s"]["Utils.murmur2"])
    row(f"{java} partitionForKey", report["java_keys_per_s"]["partitionForKey"])
    for name, figures in report["keys_per_s"].items():
        ratio = figures["median"] / java_median
        row(f"partitioners: {name}", figures, f"{ratio:.2f}x" if "murmur2" in name else "")
    agree = "agree" if report["checksums_agree"] else "DIFFER"
    print(f"checksums of hashes and partitions: {agree}")
    per_round = ", ".join(
        f"{r:.2f} (load {load:.1f})"
        for r, load in zip(report["ratio_per_round"], report["load_1m_per_round"], strict=True)
    )
    print(f"ratio per round (ours median / Utils.murmur2 median): {per_round}")
    print(f"{report['result']}: Arrow murmur2_random at {report['ratio_median']:.2f}x")
    print("by CPU time (this thread's, both sides):")
    cpu_java_median = report["cpu_keys_per_s"]["Utils.murmur2"]["median"]
    for name, figures in report["cpu_keys_per_s"].items():
        row(f"  {name}", figures, f"{figures['median'] / cpu_java_median:.2f}x")
    cpu_per_round = ", ".join(f"{r:.2f}" for r in report["cpu_ratio_per_round"])
    print(f"CPU-time ratio per round: {cpu_per_round}; median {report['cpu_ratio_median']:.2f}")
    mem = report["memory"]
    java_ns = 1e9 / java_median
    ours_ns = 1e9 / report["keys_per_s"]["murmur2_hash_arrow"]["median"]
    print(
        f"memory: copy {mem['copy_gb_per_s']:.1f} GB/s, read {mem['read_gb_per_s']:.1f} GB/s, "
        f"one NumPy pass over a slice's rows {mem['cache_pass_gb_per_s']:.1f} GB/s; "
        f"bytes per key: ours {mem['ours_bytes_per_key']:.0f}, Java "
        f"{mem['java_bytes_per_key']:.0f}; ours at that pass rate "
        f"{mem['ours_passes_ns_per_key_at_cache_rate']:.1f} ns/key; medians: raw hash "
        f"{ours_ns:.1f} ns/key, Utils.murmur2 {java_ns:.1f} ns/key"
    )


if __name__ == "__main__":
    raise SystemExit(main())
