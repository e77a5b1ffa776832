"""Benchmark: planner.partitioners against a JIT-compiled Java MurmurHash2, side by side.

Generates random keys (16-36 bytes, seeded), hands the same keys to
``benchmarks/java/Murmur2Bench.java`` (compiled with ``javac`` into a temp dir) and to
``planner.partitioners``, checks both computed the same hashes (a position-weighted
checksum), and prints keys/s for Java, for us on an Arrow array and on a list of bytes,
and the ratio against the target (at least half of Java's keys/s).

Run from the repository root::

    .venv/bin/python benchmarks/partitioners_bench.py            # 1,000,000 keys
    .venv/bin/python benchmarks/partitioners_bench.py --keys 200000 --json

Exit code 0 when the target is met and the checksums agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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

from planner.partitioners import murmur2_array, partitions_for_keys

JAVA_SOURCE = Path(__file__).resolve().parent / "java" / "Murmur2Bench.java"
TARGET_RATIO = 0.5
PARTITIONS = 12


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
    """The format Murmur2Bench.java reads: int32 count, int32 lengths, bytes (little-endian)."""
    with path.open("wb") as f:
        f.write(np.array([lengths.size], dtype="<i4").tobytes())
        f.write(lengths.astype("<i4").tobytes())
        f.write(data.tobytes())


def checksum(hashes: npt.NDArray[np.int32]) -> int:
    """sum((i + 1) * hash_i) in wrapping 64-bit arithmetic, as the Java program computes it."""
    weights = np.arange(1, hashes.size + 1, dtype=np.int64)
    with np.errstate(over="ignore"):
        return int(np.sum(weights * hashes.astype(np.int64), dtype=np.int64))


def compile_java(workdir: Path) -> Path:
    for tool in ("javac", "java"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found on PATH (Java 17 is expected)")
    classes = workdir / "classes"
    classes.mkdir()
    subprocess.run(["javac", "-d", str(classes), str(JAVA_SOURCE)], check=True)
    return classes


def run_java(classes: Path, keys_file: Path, warmup: int, iterations: int) -> dict[str, Any]:
    proc = subprocess.run(
        ["java", "-cp", str(classes), "Murmur2Bench", str(keys_file), str(warmup), str(iterations)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def time_it(fn: Callable[[], object], warmup: int, repeat: int) -> tuple[float, float]:
    """Best and median seconds per call after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=1_000_000, help="number of keys")
    parser.add_argument("--seed", type=int, default=20261101)
    parser.add_argument("--repeat", type=int, default=9, help="timed repetitions (Python)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed repetitions (Python)")
    parser.add_argument("--java-warmup", type=int, default=10)
    parser.add_argument("--java-iterations", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3, help="Java/ours alternations")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    lengths, data = make_keys(args.keys, args.seed)
    arrow = arrow_keys(lengths, data)
    as_list = arrow.to_pylist()

    ours_checksum = checksum(murmur2_array(arrow))
    n = args.keys

    def ours() -> object:
        return partitions_for_keys(arrow, PARTITIONS, "murmur2_random")

    # Java and ours alternate, round by round, so both see the same background load on a
    # shared machine; the ratio reported is the median of the per-round ratios.
    rounds = []
    with tempfile.TemporaryDirectory(prefix="murmur2-bench-") as tmp:
        keys_file = Path(tmp) / "keys.bin"
        write_keys_file(keys_file, lengths, data)
        classes = compile_java(Path(tmp))
        for _ in range(args.rounds):
            java = run_java(classes, keys_file, args.java_warmup, args.java_iterations)
            best_s, median_s = time_it(ours, args.warmup, args.repeat)
            rounds.append((java, n / best_s, n / median_s))

    figures: dict[str, tuple[float, float]] = {}
    runs: dict[str, Callable[[], object]] = {
        "murmur2_hash_arrow": lambda: murmur2_array(arrow),
        "murmur2_random_list": lambda: partitions_for_keys(as_list, PARTITIONS, "murmur2_random"),
        "consistent_random_arrow": lambda: partitions_for_keys(
            arrow, PARTITIONS, "consistent_random"
        ),
        "fnv1a_random_arrow": lambda: partitions_for_keys(arrow, PARTITIONS, "fnv1a_random"),
    }
    for name, fn in runs.items():
        best_s, median_s = time_it(fn, args.warmup, args.repeat)
        figures[name] = (n / best_s, n / median_s)

    ratios = [median / float(java["median_keys_per_s"]) for java, _, median in rounds]
    ratio = statistics.median(ratios)
    middle = sorted(range(len(rounds)), key=lambda i: ratios[i])[len(rounds) // 2]
    java, ours_best, ours_median = rounds[middle]
    figures = {"murmur2_random_arrow": (ours_best, ours_median), **figures}
    java_median = float(java["median_keys_per_s"])
    checksums_agree = all(int(j["checksum"]) == ours_checksum for j, _, _ in rounds)
    passed = checksums_agree and ratio >= TARGET_RATIO
    report: dict[str, Any] = {
        "keys": n,
        "key_bytes": "16-36 random",
        "seed": args.seed,
        "cpus": os.cpu_count(),
        "load_average_1m": os.getloadavg()[0],
        "java": java,
        "ours_checksum": ours_checksum,
        "checksums_agree": checksums_agree,
        "keys_per_s": {name: {"best": b, "median": m} for name, (b, m) in figures.items()},
        "rounds": [
            {"java": j, "ours_best": b, "ours_median": m, "ratio": r}
            for (j, b, m), r in zip(rounds, ratios, strict=True)
        ],
        "ratio_median": ratio,
        "target_ratio": TARGET_RATIO,
        "result": "PASS" if passed else "FAIL",
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if passed else 1

    def row(label: str, best: float, median: float, note: str = "") -> None:
        print(f"{label:<44} {best / 1e6:>9.2f} {median / 1e6:>9.2f}  {note}")

    print(
        f"{n:,} keys of 16-36 random bytes (seed {args.seed}), {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.2f}"
    )
    print(f"{'':<44} {'best':>9} {'median':>9}  (million keys/s)")
    row(f"Java {java['java_version']} Utils.murmur2 (JIT)", java["best_keys_per_s"], java_median)
    notes = {
        "murmur2_random_arrow": f"ratio {ratio:.2f} (target >= {TARGET_RATIO})",
        "murmur2_hash_arrow": f"ratio {figures['murmur2_hash_arrow'][1] / java_median:.2f}",
    }
    for name, (best, median) in figures.items():
        row(f"partitioners: {name}", best, median, notes.get(name, ""))
    agree = "agree" if checksums_agree else "DIFFER"
    print(f"checksums: java {java['checksum']} ours {ours_checksum} ({agree})")
    per_round = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"ratio per round (ours median / Java median): {per_round}; reported: median")
    print(f"{'PASS' if passed else 'FAIL'}: Arrow murmur2_random at {ratio:.2f}x Java's keys/s")
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
