"""planner.partitioners: known values from Kafka and librdkafka, oracles, layouts, errors."""

from __future__ import annotations

import ast
import doctest
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.partitioner.default import DefaultPartitioner
from kafka.partitioner.default import murmur2 as kafka_python_murmur2

from planner import partitioners
from planner.partitioners import (
    KEYLESS_BEHAVIOUR,
    PARTITIONERS,
    SPREAD,
    crc32,
    fnv1a,
    keyless_partition,
    murmur2,
    murmur2_array,
    partition_for_key,
    partitions_for_keys,
)

# Kafka's own UtilsTest.testMurmur2 (org.apache.kafka.common.utils), signed Java ints.
KAFKA_UTILS_TEST_MURMUR2 = {
    b"21": -973932308,
    b"foobar": -790332482,
    b"a-little-bit-long-string": -985981536,
    b"a-little-bit-longer-string": -1486304829,
    b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
    b"abc": 479470107,
}

_UNALIGNED = b"PreAmbleWillBeRemoved,ThePrePartThatIs"
# librdkafka's unittest_murmur2 (src/rdmurmur2.c): Java's results as int32 bit patterns.
LIBRDKAFKA_MURMUR2 = {
    b"kafka": 0xD067CF64,
    b"giberish123456789": 0x8F552B0C,
    b"1234": 0x9FC97B14,
    b"234": 0xE7C009CA,
    b"34": 0x873930DA,
    b"4": 0x5A4B5CA1,
    _UNALIGNED: 0x78424F1C,
    _UNALIGNED[1:]: 0x4A62B377,
    _UNALIGNED[2:]: 0xE0E4E09E,
    _UNALIGNED[3:]: 0x62B8B43F,
    b"": 0x106E08D9,
}
# librdkafka's unittest_fnv1a (src/rdfnv1a.c): rd_fnv1a after its sign handling (Go's
# hash/fnv values made non-negative as Sarama does).
LIBRDKAFKA_FNV1A = {
    b"kafka": 0xD33C4E1,
    b"giberish123456789": 0x77A58295,
    b"1234": 0x23BDD03,
    b"234": 0x2DEA3CD2,
    b"34": 0x740FA83E,
    b"4": 0x310CA263,
    _UNALIGNED: 0x65CBD69C,
    _UNALIGNED[1:]: 0x6E49C79A,
    _UNALIGNED[2:]: 0x69EED356,
    _UNALIGNED[3:]: 0x6ABCC023,
    b"": 0x7EE3623B,
}


def _signed(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


@pytest.fixture(scope="module")
def keys_of_every_length() -> list[bytes]:
    """Three random keys of each length 0..64: every tail length, many block counts."""
    rng = np.random.default_rng(1234)
    return [rng.bytes(length) for length in range(65) for _ in range(3)]


# --- Known values -------------------------------------------------------------------------


@pytest.mark.parametrize(("key", "expected"), KAFKA_UTILS_TEST_MURMUR2.items())
def test_murmur2_matches_kafka_utils_test(key: bytes, expected: int) -> None:
    assert murmur2(key) == expected
    assert murmur2_array([key]).tolist() == [expected]


@pytest.mark.parametrize(("key", "expected"), LIBRDKAFKA_MURMUR2.items())
def test_murmur2_matches_librdkafka_unittest(key: bytes, expected: int) -> None:
    assert murmur2(key) == _signed(expected)
    assert murmur2_array([key]).tolist() == [_signed(expected)]


@pytest.mark.parametrize(("key", "expected"), LIBRDKAFKA_FNV1A.items())
def test_fnv1a_sign_handling_matches_librdkafka(key: bytes, expected: int) -> None:
    # partition = rd_fnv1a(key) % n; with n = 2**31 - 1 the partition is rd_fnv1a itself.
    assert partition_for_key(key, 2**31 - 1, "fnv1a") == expected
    assert partitions_for_keys([key], 2**31 - 1, "fnv1a_random").tolist() == [expected]


def test_fnv1a_raw_hash_is_go_hash_fnv_new32a() -> None:
    # FNV-1a test vectors from the FNV reference (isthe.com/chongo/tech/comp/fnv).
    assert fnv1a(b"") == 0x811C9DC5
    assert fnv1a(b"a") == 0xE40C292C
    assert fnv1a(b"foobar") == 0xBF9CF968


def test_fnv1a_int32_min_stays_unsigned_two_to_the_31() -> None:
    # rd_fnv1a negates a negative int32; -INT32_MIN wraps to INT32_MIN, read as 2**31.
    assert partitioners._fnv1a_positive(0x80000000) == 0x80000000
    assert partitioners._fnv1a_positive(0xFFFFFFFF) == 1
    raw = np.array([0x80000000, 0xFFFFFFFF, 5], dtype=np.uint32)
    assert partitioners._finish(raw, 7, "fnv1a").tolist() == [2**31 % 7, 1, 5]


def test_crc32_is_zlib_crc32(keys_of_every_length: list[bytes]) -> None:
    assert crc32(b"123456789") == 0xCBF43926  # the CRC-32 check value
    for key in keys_of_every_length:
        assert crc32(key) == zlib.crc32(key)


def test_consistent_is_crc32_mod_n() -> None:
    assert partition_for_key(b"123456789", 1000, "consistent") == 0xCBF43926 % 1000


# --- Oracles ------------------------------------------------------------------------------


def test_murmur2_matches_kafka_python_on_random_keys() -> None:
    rng = np.random.default_rng(99)
    keys = [b""] + [rng.bytes(length) for length in range(41) for _ in range(25)]
    expected = [_signed(kafka_python_murmur2(key)) for key in keys]
    assert [murmur2(key) for key in keys] == expected
    assert murmur2_array(keys).tolist() == expected


class _OnePartitionedTopic:
    """The slice of kafka-python's ClusterMetadata that DefaultPartitioner reads."""

    def __init__(self, topic: str, partitions: int) -> None:
        self._topic = topic
        self._partitions = set(range(partitions))

    def topics(self) -> set[str]:
        return {self._topic}

    def partitions_for_topic(self, topic: str) -> set[int]:
        return self._partitions

    def available_partitions_for_topic(self, topic: str) -> set[int]:
        return self._partitions


@pytest.mark.parametrize("num_partitions", [1, 3, 7, 12, 100, 1000])
def test_murmur2_random_matches_kafka_python_default_partitioner(num_partitions: int) -> None:
    rng = np.random.default_rng(num_partitions)
    keys = [b""] + [rng.bytes(int(n)) for n in rng.integers(1, 48, 400)]
    cluster = _OnePartitionedTopic("t", num_partitions)
    partitioner = DefaultPartitioner()
    expected = [partitioner.partition("t", None, key, None, None, cluster) for key in keys]
    assert partitions_for_keys(keys, num_partitions).tolist() == expected
    assert [partition_for_key(key, num_partitions, "murmur2") for key in keys] == expected


# --- Vectorised equals scalar --------------------------------------------------------------


@pytest.mark.parametrize("partitioner", PARTITIONERS)
@pytest.mark.parametrize("num_partitions", [1, 2, 7, 12, 100, 2**31 - 1])
def test_vectorised_equals_scalar_for_every_length(
    keys_of_every_length: list[bytes], partitioner: str, num_partitions: int
) -> None:
    keys = keys_of_every_length
    if KEYLESS_BEHAVIOUR[partitioner].empty_key_spread:
        keys = [key for key in keys if key]
    expected = [partition_for_key(key, num_partitions, partitioner) for key in keys]
    got = partitions_for_keys(keys, num_partitions, partitioner)
    assert got.dtype == np.int32
    assert got.tolist() == expected


@pytest.mark.parametrize("partitioner", PARTITIONERS)
def test_many_slices_and_a_key_larger_than_a_slice(
    monkeypatch: pytest.MonkeyPatch, partitioner: str
) -> None:
    # Tiny slices exercise slice boundaries that fall at every byte alignment.
    monkeypatch.setattr(partitioners, "_SLICE_KEYS", 5)
    monkeypatch.setattr(partitioners, "_SLICE_BYTES", 37)
    monkeypatch.setattr(partitioners, "_WIDE_SLICE_KEYS", 5)
    monkeypatch.setattr(partitioners, "_WIDE_SLICE_BYTES", 37)
    rng = np.random.default_rng(7)
    keys = [rng.bytes(int(n)) for n in rng.integers(1, 30, 300)]
    keys.insert(150, rng.bytes(500))  # larger than a slice: a slice of its own
    expected = [partition_for_key(key, 13, partitioner) for key in keys]
    assert partitions_for_keys(keys, 13, partitioner).tolist() == expected


def test_murmur2_slices_of_mixed_widths_match_scalar() -> None:
    # Short keys, keys of a few hundred bytes and one of 5,000 in the same slices: the
    # slices split by row width; the last keys' rows run past the end of the buffer.
    rng = np.random.default_rng(12)
    lengths = rng.choice([0, 1, 3, 7, 64, 65, 200, 257, 5000], size=2000, p=[*[0.12] * 8, 0.04])
    keys = [rng.bytes(int(n)) for n in lengths] + [b"", b"x"]
    assert murmur2_array(keys).tolist() == [murmur2(key) for key in keys]
    assert murmur2_array(pa.array(keys[1:-1], pa.large_binary())).tolist() == [
        murmur2(key) for key in keys[1:-1]
    ]


def test_large_batch_matches_scalar_on_a_sample() -> None:
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 70, 100_000)
    keys = [rng.bytes(int(n)) for n in lengths]
    got = murmur2_array(keys)
    for i in rng.integers(0, len(keys), 500):
        assert got[i] == murmur2(keys[i])


# --- Arrow layouts ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def text_keys() -> list[str]:
    rng = np.random.default_rng(11)
    alphabet = [*"abcxyz019-_", "é", "ß", "€", "日本", "🙂"]
    return ["".join(rng.choice(alphabet, size=int(n))) for n in rng.integers(1, 25, 200)] + [
        "order-42",
        "k",
    ]


@pytest.mark.parametrize("partitioner", PARTITIONERS)
def test_arrow_layouts_agree_with_list_of_bytes(text_keys: list[str], partitioner: str) -> None:
    as_bytes = [key.encode() for key in text_keys]
    expected = partitions_for_keys(as_bytes, 12, partitioner)
    assert expected.tolist() == [partition_for_key(k, 12, partitioner) for k in as_bytes]
    variants = {
        "binary": pa.array(as_bytes, pa.binary()),
        "large_binary": pa.array(as_bytes, pa.large_binary()),
        "string": pa.array(text_keys, pa.string()),
        "large_string": pa.array(text_keys, pa.large_string()),
        "binary_view": pa.array(as_bytes, pa.binary_view()),
        "chunked": pa.chunked_array(
            [pa.array(as_bytes[:50], pa.binary()), pa.array(as_bytes[50:], pa.binary())]
        ),
        "chunked_mixed_width": pa.chunked_array(
            [pa.array(text_keys[:77], pa.string()), pa.array(text_keys[77:], pa.string())]
        ),
    }
    for name, array in variants.items():
        got = partitions_for_keys(array, 12, partitioner)
        assert got.tolist() == expected.tolist(), name


@pytest.mark.parametrize("arrow_type", [pa.binary(), pa.large_binary(), pa.string()])
def test_sliced_arrays_honour_their_offset(text_keys: list[str], arrow_type: pa.DataType) -> None:
    values = text_keys if pa.types.is_string(arrow_type) else [k.encode() for k in text_keys]
    full = pa.array(values, arrow_type)
    expected = partitions_for_keys(full, 31)
    for start, stop in [(1, 2), (3, 50), (77, 202), (0, 202), (201, 202)]:
        sliced = full.slice(start, stop - start)
        assert sliced.offset == start
        assert partitions_for_keys(sliced, 31).tolist() == expected[start:stop].tolist()
    chunked = pa.chunked_array([full.slice(5, 40), full.slice(100, 7), full.slice(0, 0)])
    assert partitions_for_keys(chunked, 31).tolist() == (
        expected[5:45].tolist() + expected[100:107].tolist()
    )


def test_empty_inputs() -> None:
    assert partitions_for_keys([], 3).tolist() == []
    assert partitions_for_keys(pa.array([], pa.binary()), 3).dtype == np.int32
    assert partitions_for_keys(pa.chunked_array([], pa.string()), 3).tolist() == []
    only_empty = pa.array([b"", b""], pa.binary())
    assert (
        partitions_for_keys(only_empty, 3, "murmur2").tolist()
        == [partition_for_key(b"", 3, "murmur2")] * 2
    )


def test_the_input_array_is_not_modified() -> None:
    keys = pa.array([b"abcdefgh", b"xyz"], pa.binary())
    before = keys.buffers()[2].to_pybytes()
    partitions_for_keys(keys, 5, "consistent")
    assert keys.buffers()[2].to_pybytes() == before


# --- Properties ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.binary(min_size=1, max_size=80), max_size=60),
    num_partitions=st.integers(min_value=1, max_value=2**31 - 1),
    partitioner=st.sampled_from(PARTITIONERS),
)
def test_property_batch_equals_one_by_one_and_is_in_range(
    keys: list[bytes], num_partitions: int, partitioner: str
) -> None:
    got = partitions_for_keys(keys, num_partitions, partitioner)
    assert got.tolist() == [partition_for_key(k, num_partitions, partitioner) for k in keys]
    assert ((got >= 0) & (got < num_partitions)).all()


@settings(max_examples=200, deadline=None)
@given(keys=st.lists(st.binary(max_size=80), max_size=60))
def test_property_murmur2_array_equals_kafka_python(keys: list[bytes]) -> None:
    assert murmur2_array(keys).tolist() == [_signed(kafka_python_murmur2(k)) for k in keys]


@settings(max_examples=100, deadline=None)
@given(
    keys=st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=40),
    start=st.integers(min_value=0, max_value=39),
    large=st.booleans(),
)
def test_property_any_slice_equals_the_same_keys(
    keys: list[bytes], start: int, large: bool
) -> None:
    start = min(start, len(keys) - 1)
    array = pa.array(keys, pa.large_binary() if large else pa.binary()).slice(start)
    assert partitions_for_keys(array, 17).tolist() == partitions_for_keys(keys[start:], 17).tolist()


# --- Keyless records and errors -----------------------------------------------------------


def test_keyless_behaviour_covers_every_partitioner_as_documented_by_librdkafka() -> None:
    assert tuple(KEYLESS_BEHAVIOUR) == PARTITIONERS
    spread_nulls = {p for p, b in KEYLESS_BEHAVIOUR.items() if b.null_key_spread}
    assert spread_nulls == {"murmur2_random", "consistent_random", "fnv1a_random"}
    spread_empty = {p for p, b in KEYLESS_BEHAVIOUR.items() if b.empty_key_spread}
    assert spread_empty == {"consistent_random"}


def test_keyless_partition() -> None:
    assert keyless_partition(7, "consistent") == 0  # crc32(b"") == 0
    assert keyless_partition(7, "murmur2") == (0x106E08D9 & 0x7FFFFFFF) % 7
    assert keyless_partition(7, "fnv1a") == 0x7EE3623B % 7
    for partitioner in ("murmur2_random", "consistent_random", "fnv1a_random"):
        assert keyless_partition(7, partitioner) is None


@pytest.mark.parametrize(
    "keys",
    [
        [b"a", None, b"c"],
        pa.array([b"a", None, b"c"], pa.binary()),
        pa.chunked_array([pa.array(["a"]), pa.array([None, "c"], pa.string())]),
    ],
    ids=["list", "arrow", "chunked"],
)
def test_null_keys_raise_by_default(keys: object) -> None:
    with pytest.raises(ValueError, match=r"keys\[1\] is null"):
        partitions_for_keys(keys, 5)
    with pytest.raises(ValueError, match="is null"):
        partitions_for_keys(keys, 5, "murmur2")  # even where the client is deterministic


def test_null_keys_marked_as_the_client_places_them() -> None:
    keys = pa.array([b"a", None, b"", b"c"], pa.binary())
    n = 7
    a, c = partition_for_key(b"a", n), partition_for_key(b"c", n)
    empty = partition_for_key(b"", n)
    assert partitions_for_keys(keys, n, keyless="mark").tolist() == [a, SPREAD, empty, c]
    for partitioner in ("murmur2", "consistent", "fnv1a"):
        got = partitions_for_keys(keys, n, partitioner, keyless="mark").tolist()
        fixed = keyless_partition(n, partitioner)
        assert got[1] == got[2] == fixed
    got = partitions_for_keys(keys, n, "consistent_random", keyless="mark").tolist()
    assert got[1] == got[2] == SPREAD
    assert got[0] == partition_for_key(b"a", n, "consistent_random")


def test_null_slot_bytes_are_not_hashed() -> None:
    # Arrow lets a null slot span bytes; a null key must not be placed by those bytes.
    offsets = pa.py_buffer(np.array([0, 5, 10], dtype=np.int32))
    validity = pa.py_buffer(np.packbits([1, 0], bitorder="little"))
    data = pa.py_buffer(b"hellonoise")
    keys = pa.Array.from_buffers(pa.binary(), 2, [validity, offsets, data])
    assert keys.to_pylist() == [b"hello", None]
    got = partitions_for_keys(keys, 1000, "murmur2", keyless="mark").tolist()
    assert got == [partition_for_key(b"hello", 1000, "murmur2"), keyless_partition(1000, "murmur2")]


def test_empty_key_under_consistent_random_has_no_partition() -> None:
    with pytest.raises(ValueError, match="empty"):
        partition_for_key(b"", 3, "consistent_random")
    with pytest.raises(ValueError, match=r"keys\[1\] is empty"):
        partitions_for_keys([b"x", b""], 3, "consistent_random")
    assert partition_for_key(b"", 3, "consistent") == 0
    assert partition_for_key(b"", 3, "murmur2_random") == (0x106E08D9 & 0x7FFFFFFF) % 3


def test_murmur2_array_rejects_null_keys() -> None:
    with pytest.raises(ValueError, match="null"):
        murmur2_array(pa.array([b"a", None]))


def test_scalar_none_key_raises() -> None:
    with pytest.raises(ValueError, match="None"):
        partition_for_key(None, 3)  # type: ignore[arg-type]


def test_unknown_partitioner_names_the_valid_ones() -> None:
    for call in (
        lambda: partition_for_key(b"k", 3, "murmur3"),
        lambda: partitions_for_keys([b"k"], 3, "random"),
        lambda: keyless_partition(3, "default"),
    ):
        with pytest.raises(ValueError, match="murmur2_random, murmur2, consistent_random"):
            call()


@pytest.mark.parametrize("num_partitions", [0, -1])
def test_num_partitions_below_one(num_partitions: int) -> None:
    with pytest.raises(ValueError, match=">= 1"):
        partition_for_key(b"k", num_partitions)
    with pytest.raises(ValueError, match=">= 1"):
        partitions_for_keys([b"k"], num_partitions)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        partition_for_key(b"k", 2.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        partition_for_key(b"k", True)
    with pytest.raises(ValueError, match="keyless"):
        partitions_for_keys([b"k"], 3, keyless="ignore")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="binary or string"):
        partitions_for_keys(pa.array([1, 2]), 3)
    with pytest.raises(TypeError, match="sequence of keys"):
        partitions_for_keys(b"one key", 3)


# --- The module itself --------------------------------------------------------------------


def test_docstring_examples() -> None:
    result = doctest.testmod(partitioners, raise_on_error=False)
    assert result.attempted >= 4
    assert result.failed == 0


def test_module_is_pure_core() -> None:
    tree = ast.parse(Path(partitioners.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module.split(".")[0])
    allowed = {"__future__", "collections", "dataclasses", "types", "typing", "zlib"}
    # `planner` itself: the name list comes from `planner.choices` (pure, checked by
    # tests/test_architecture.py).
    assert imported <= allowed | {"numpy", "pyarrow", "planner"}, imported - allowed
    assert "os" not in imported and "open(" not in Path(partitioners.__file__).read_text()


def test_public_surface() -> None:
    assert set(partitioners.__all__) == {
        "KEYLESS_BEHAVIOUR",
        "PARTITIONERS",
        "SPREAD",
        "KeylessBehaviour",
        "crc32",
        "fnv1a",
        "keyless_partition",
        "murmur2",
        "murmur2_array",
        "partition_for_key",
        "partitions_for_keys",
    }
    assert PARTITIONERS == (
        "murmur2_random",
        "murmur2",
        "consistent_random",
        "consistent",
        "fnv1a_random",
        "fnv1a",
    )


# --- Hashing a sample once ----------------------------------------------------------------


@pytest.mark.parametrize("partitioner", PARTITIONERS)
def test_hash_keys_places_like_partitions_for_keys(
    partitioner: str, keys_of_every_length: list[bytes]
) -> None:
    # One hash per key, any number of counts: the same partitions as hashing each time,
    # null and empty keys included (spread, or pinned where b"" lands).
    keys: list[bytes | None] = [*keys_of_every_length, None, b"", None]
    hashes = partitioners.hash_keys(pa.array(keys, pa.binary()), partitioner)
    assert len(hashes) == len(keys)
    for n in (1, 2, 7, 12, 1000, 2**31 - 1):
        expected = partitions_for_keys(keys, n, partitioner, keyless="mark")
        assert hashes.partitions(n).tolist() == expected.tolist(), n
    subset = [3, 0, len(keys) - 1]
    assert (
        hashes.take(subset).partitions(24).tolist()
        == partitions_for_keys([keys[i] for i in subset], 24, partitioner, keyless="mark").tolist()
    )


def test_hash_keys_refuses_what_partitions_for_keys_refuses() -> None:
    with pytest.raises(ValueError, match="unknown partitioner"):
        partitioners.hash_keys([b"a"], "java")
    with pytest.raises(ValueError, match=">= 1"):
        partitioners.hash_keys([b"a"]).partitions(0)
