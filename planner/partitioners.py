"""Where Kafka clients put a keyed record: the key hashes of the Java client and librdkafka.

A producer sends a record to its explicit partition if it has one, else to
``hash(key) % num_partitions``, else (no key) to a partition it picks at run time. The hash
depends on the client library, so the same key can land in different partitions of the
same topic when two clients feed it:

- the Java client (and kafka-python) use MurmurHash2: ``toPositive(murmur2(key)) % n``;
- librdkafka (confluent-kafka for Python, Go, .NET) defaults to ``consistent_random``,
  ``crc32(key) % n``, and offers ``murmur2_random`` (the Java client's placement) and
  ``fnv1a_random`` (Sarama's default) as well.

Partitioners are named by librdkafka's ``partitioner`` config values (see `PARTITIONERS`).
For a keyed record each ``_random`` variant hashes exactly like its base; they differ only
for keyless records, described by `KEYLESS_BEHAVIOUR`.

`partitions_for_keys` is vectorised with NumPy over the Arrow binary layout (one buffer of
concatenated bytes plus offsets, the form Spark hands to Arrow UDFs), in cache-sized
slices of keys. For murmur2 every key of a slice is one gather of a fixed-width row of
words straight from the buffer, mixed in a few passes over all rows at once; CRC-32 and
FNV-1a gather each 4-byte block from aligned word copies, keys ordered by block count
so block ``b`` touches a prefix.

Example:
    The same key, two clients, two partitions of a 12-partition topic:

    >>> murmur2(b"21")
    -973932308
    >>> partition_for_key(b"21", 12)  # Java client, librdkafka murmur2_random
    0
    >>> partition_for_key(b"21", 12, "consistent_random")  # librdkafka's default
    4
    >>> partitions_for_keys([b"21", b"foobar"], 12).tolist()
    [0, 6]
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final, Literal

import numpy as np
import numpy.typing as npt

from planner.choices import DEFAULT_PARTITIONER, PARTITIONERS

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
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
]


SPREAD: Final[int] = -1
"""Marks a record whose partition the client picks at run time, not from its key."""

KeylessMode = Literal["raise", "mark"]

_U32: Final = np.uint32
_MASK32: Final[int] = 0xFFFFFFFF

# MurmurHash2 constants as the Java client fixes them (Utils.murmur2).
_MURMUR_SEED: Final[int] = 0x9747B28C
_MURMUR_M: Final[int] = 0x5BD1E995
_MURMUR_R: Final[int] = 24

# FNV-1a 32-bit (Go's hash/fnv New32a, which Sarama and librdkafka follow).
_FNV_OFFSET: Final[int] = 0x811C9DC5
_FNV_PRIME: Final[int] = 0x01000193

# A slice of keys is hashed while its words stay in cache: at most this many key bytes
# and keys per slice. Measured on a 2-core EPYC: 8K-key slices pay Python call overhead;
# unsliced 1M-key gathers ran about 3x slower than gathers within a 32K-key slice.
_SLICE_BYTES: Final[int] = 1 << 19
_SLICE_KEYS: Final[int] = 1 << 15

# murmur2 reads each key as one row (`_murmur2_rows`): at 8K keys of up to 40 bytes a
# slice's rows and its chain of hashes (640 KiB) stay in the 1.25 MiB L2 of this
# machine's Xeon. CPU time per 1M keys of 16-36 bytes on 2026-11-28, best of 9, two
# runs: 49 / 47 ms with 4K-key slices, 45 / 44 with 8K, 46 / 41 with 16K (whose medians
# were the least steady, 51 / 62), the machine shared with other work.
_WIDE_SLICE_KEYS: Final[int] = 1 << 13
_WIDE_SLICE_BYTES: Final[int] = 1 << 18
# Keys of up to this many blocks share one row width (see _murmur2_layout).
_NARROW_BLOCKS: Final[int] = 15


@dataclass(frozen=True)
class KeylessBehaviour:
    """What a librdkafka partitioner does with a record that has no usable key.

    Measured against librdkafka 2.16 (confluent-kafka 2.16.1) and matching its
    ``partitioner`` documentation. A record that is not spread goes to the partition
    `partition_for_key` gives for the empty key ``b""``: all such records pile up there.

    Attributes:
        null_key_spread: True if null-key records are spread (random, or sticky random
            per ``sticky.partitioning.linger.ms``); False if they all go to one partition.
        empty_key_spread: True if a zero-length key is treated as keyless and spread;
            False if it is hashed like any other key.
    """

    null_key_spread: bool
    empty_key_spread: bool


KEYLESS_BEHAVIOUR: Final[Mapping[str, KeylessBehaviour]] = MappingProxyType(
    {
        "murmur2_random": KeylessBehaviour(null_key_spread=True, empty_key_spread=False),
        "murmur2": KeylessBehaviour(null_key_spread=False, empty_key_spread=False),
        # Only consistent_random treats b"" as keyless (librdkafka issue #4510).
        "consistent_random": KeylessBehaviour(null_key_spread=True, empty_key_spread=True),
        "consistent": KeylessBehaviour(null_key_spread=False, empty_key_spread=False),
        "fnv1a_random": KeylessBehaviour(null_key_spread=True, empty_key_spread=False),
        "fnv1a": KeylessBehaviour(null_key_spread=False, empty_key_spread=False),
    }
)
"""Keyless-record behaviour per partitioner name (see `KeylessBehaviour`)."""


# ---------------------------------------------------------------------------------------
# Scalar hashes: the specification, and what partition_for_key uses.


def murmur2(key: bytes) -> int:
    """MurmurHash2 of ``key`` as the Java client computes it.

    Args:
        key: The serialized key bytes.

    Returns:
        Java's signed 32-bit result (``-2**31 <= h < 2**31``).
    """
    length = len(key)
    h = (_MURMUR_SEED ^ length) & _MASK32
    tail = length & ~3
    for i in range(0, tail, 4):
        k = int.from_bytes(key[i : i + 4], "little")
        k = (k * _MURMUR_M) & _MASK32
        k ^= k >> _MURMUR_R
        k = (k * _MURMUR_M) & _MASK32
        h = ((h * _MURMUR_M) & _MASK32) ^ k
    if length & 3:
        # The 1-3 trailing bytes are XORed in as one little-endian word, then mixed once.
        h ^= int.from_bytes(key[tail:], "little")
        h = (h * _MURMUR_M) & _MASK32
    h ^= h >> 13
    h = (h * _MURMUR_M) & _MASK32
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def crc32(key: bytes) -> int:
    """CRC-32 (IEEE, as zlib and librdkafka's ``rd_crc32``) of ``key``, unsigned."""
    return zlib.crc32(key)


def fnv1a(key: bytes) -> int:
    """FNV-1a 32-bit hash of ``key``, unsigned (Go's ``hash/fnv`` ``New32a``)."""
    h = _FNV_OFFSET
    for byte in key:
        h = ((h ^ byte) * _FNV_PRIME) & _MASK32
    return h


def _fnv1a_positive(h: int) -> int:
    # librdkafka's rd_fnv1a negates a negative int32 to match Sarama; -INT32_MIN wraps
    # back to INT32_MIN, which the unsigned modulo then reads as 2**31.
    return ((1 << 32) - h) & _MASK32 if h & 0x80000000 else h


def _check(num_partitions: int, partitioner: str) -> None:
    if partitioner not in KEYLESS_BEHAVIOUR:
        raise ValueError(f"unknown partitioner {partitioner!r}; valid: {', '.join(PARTITIONERS)}")
    if isinstance(num_partitions, bool) or not isinstance(num_partitions, int | np.integer):
        raise TypeError(f"num_partitions must be an int, got {type(num_partitions).__name__}")
    if num_partitions < 1:
        raise ValueError(f"num_partitions must be >= 1, got {num_partitions}")


def _base(partitioner: str) -> str:
    return partitioner.removesuffix("_random")


def partition_for_key(
    key: bytes, num_partitions: int, partitioner: str = DEFAULT_PARTITIONER
) -> int:
    """The partition a client configured with ``partitioner`` picks for a keyed record.

    Args:
        key: The serialized key bytes (``b""`` is a key; ``None`` is not).
        num_partitions: Partition count of the topic (>= 1).
        partitioner: A librdkafka ``partitioner`` name from `PARTITIONERS`; the default,
            ``murmur2_random``, places keys like the Java client.

    Returns:
        The partition number, ``0 <= p < num_partitions``.

    Raises:
        ValueError: Unknown partitioner, ``num_partitions < 1``, a ``None`` key, or
            ``b""`` with ``consistent_random`` (the client spreads it like a keyless
            record, so it has no key-determined partition).
    """
    _check(num_partitions, partitioner)
    if key is None:
        raise ValueError(_keyless_message("key is None", partitioner))
    if not key and KEYLESS_BEHAVIOUR[partitioner].empty_key_spread:
        raise ValueError(_keyless_message("key is empty", partitioner))
    base = _base(partitioner)
    if base == "murmur2":
        return (murmur2(key) & 0x7FFFFFFF) % num_partitions
    if base == "consistent":
        return crc32(key) % num_partitions
    return _fnv1a_positive(fnv1a(key)) % num_partitions


def keyless_partition(num_partitions: int, partitioner: str = DEFAULT_PARTITIONER) -> int | None:
    """Where a null-key record goes: one fixed partition, or None if the client spreads them.

    Args:
        num_partitions: Partition count of the topic (>= 1).
        partitioner: A librdkafka ``partitioner`` name from `PARTITIONERS`.

    Returns:
        The single partition every null-key record lands in (the non-random partitioners
        hash a null key like ``b""``), or None for the ``_random`` partitioners.
    """
    _check(num_partitions, partitioner)
    if KEYLESS_BEHAVIOUR[partitioner].null_key_spread:
        return None
    return partition_for_key(b"", num_partitions, partitioner)


def _keyless_message(what: str, partitioner: str) -> str:
    return (
        f"{what}: under {partitioner!r} such a record has no key-determined partition "
        "(the client picks one at run time); see KEYLESS_BEHAVIOUR, or pass "
        f"keyless='mark' to partitions_for_keys to get SPREAD ({SPREAD}) for it"
    )


# ---------------------------------------------------------------------------------------
# Vectorised hashes over the Arrow binary layout.

_Words = npt.NDArray[np.uint32]
_Index = npt.NDArray[np.intp]
_Kernel = Callable[[_Words, _Index, _Index, _Words], None]


def _longest_first(blocks: _Index) -> tuple[_Index, list[int]]:
    """Order keys by block count, descending, so block ``b`` is needed by a prefix only.

    Returns:
        The order, and for each block ``b`` how many keys (a prefix) have more than
        ``b`` blocks.
    """
    most = int(blocks.max()) if blocks.size else 0
    # A uint8/uint16 sort key lets NumPy's stable sort use radix sort: O(n).
    flipped = most - blocks
    if most < 1 << 8:
        order = np.argsort(flipped.astype(np.uint8), kind="stable")
    elif most < 1 << 16:
        order = np.argsort(flipped.astype(np.uint16), kind="stable")
    else:
        order = np.argsort(flipped, kind="stable")
    counts = np.bincount(blocks, minlength=most + 1)
    active = (blocks.size - np.cumsum(counts[:most])).tolist()
    return order.astype(np.intp, copy=False), active


def _murmur2_layout(data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> _Words:
    """MurmurHash2 of every key of an Arrow binary layout, as uint32 bit patterns.

    Keys are taken a cache-sized slice at a time (`_slices` with the ``_WIDE_SLICE_*``
    bounds). Keys of a slice whose lengths are within a factor of two of each other are
    hashed together by `_murmur2_rows`; a slice with a few much longer keys is split
    by width class, so one long key does not widen every row of its slice.
    """
    n = offsets.size - 1
    out = np.empty(n, dtype=np.uint32)
    starts = offsets[:-1]
    lengths = np.diff(offsets)
    for lo, hi in _slices(offsets, _WIDE_SLICE_KEYS, _WIDE_SLICE_BYTES):
        blocks = lengths[lo:hi] >> 2
        most = int(blocks.max())
        if most <= _NARROW_BLOCKS or most < 2 * int(blocks.min()):
            _murmur2_rows(data, starts[lo:hi], lengths[lo:hi], out[lo:hi])
            continue
        # Width class: the bit length of the block count, keys of up to _NARROW_BLOCKS
        # blocks (rows of at most 64 bytes) all in one; within any other class the
        # longest row is less than twice the shortest.
        classes = np.frexp(np.maximum(blocks, _NARROW_BLOCKS))[1]
        for width_class in np.unique(classes).tolist():
            at = lo + np.flatnonzero(classes == width_class)
            part = np.empty(at.size, dtype=np.uint32)
            _murmur2_rows(data, starts[at], lengths[at], part)
            out[at] = part
    return out


def _murmur2_rows(
    data: npt.NDArray[np.uint8],
    starts: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.int64],
    out: _Words,
) -> None:
    """MurmurHash2 of the keys ``data[starts[i]:starts[i] + lengths[i]]``, into ``out``.

    Every key is read in one gather as a row of ``width`` 4-byte words (the longest key's
    blocks and its tail word): a view of ``data`` whose items are ``4 * width`` bytes
    wide and start at every byte, so any key's row is one item, unaligned, with no copy
    of the data. A row runs past its key into the next keys' bytes; those words are
    mixed and chained too (cheaper than sorting keys by length) and never used.
    """
    n = starts.size
    blocks = lengths >> 2
    width = int(blocks.max()) + 1
    data, starts = _room_for_rows(data, starts, 4 * width)
    rows_view = np.ndarray(
        (data.size - 4 * width + 1,), dtype=np.dtype(f"V{4 * width}"), buffer=data, strides=(1,)
    )
    rows = rows_view[starts].view(np.uint32)  # (n * width,): key i's words at i * width
    at = np.arange(0, n * width, width)
    at += blocks
    tail = rows.take(at)  # the word holding each key's 0-3 last bytes, before mixing
    m = _U32(_MURMUR_M)
    t = np.empty_like(rows)
    np.multiply(rows, m, out=rows)
    np.right_shift(rows, _MURMUR_R, out=t)
    np.bitwise_xor(rows, t, out=rows)
    np.multiply(rows, m, out=rows)
    # chain[b] is every key's h after b blocks; key i stops at chain[blocks[i], i].
    chain = np.empty((width, n), dtype=np.uint32)
    np.bitwise_xor(lengths, _U32(_MURMUR_SEED), out=chain[0], casting="unsafe")
    # Block b of every key is a strided column of the rows: transposing first (one
    # strided pass) measured no faster than reading the columns strided.
    columns = rows.reshape(n, width).T
    for b in range(width - 1):
        np.multiply(chain[b], m, out=chain[b + 1])
        np.bitwise_xor(chain[b + 1], columns[b], out=chain[b + 1])
    np.multiply(blocks, n, out=at)
    at += np.arange(n)
    h = chain.reshape(-1).take(at)
    # Java folds the 1-3 tail bytes in and mixes once only if there are any.
    rem = lengths & 3
    np.bitwise_and(tail, _TAIL_MASKS[rem], out=tail)
    np.bitwise_xor(h, tail, out=h)
    np.multiply(h, _TAIL_MULTIPLIERS[rem], out=h)
    np.right_shift(h, 13, out=tail)
    np.bitwise_xor(h, tail, out=h)
    np.multiply(h, m, out=h)
    np.right_shift(h, 15, out=tail)
    np.bitwise_xor(h, tail, out=out)


def _room_for_rows(
    data: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], row_bytes: int
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """``data`` and ``starts``, or, if the last row would run past the end of the buffer,
    a zero-padded copy of the buffer from the first start on and the starts within it.

    Starts are ascending (Arrow offsets never decrease), so only the keys at the very
    end of a buffer pay for the copy.
    """
    first, last = int(starts[0]), int(starts[-1])
    if last + row_bytes <= data.size:
        return data, starts
    padded = np.zeros(data.size - first + row_bytes, dtype=np.uint8)
    padded[: data.size - first] = data[first:]
    return padded, starts - first


_TAIL_MASKS: Final[_Words] = np.array([0, 0xFF, 0xFFFF, 0xFFFFFF], dtype=np.uint32)
_TAIL_MULTIPLIERS: Final[_Words] = np.array([1, _MURMUR_M, _MURMUR_M, _MURMUR_M], np.uint32)


def _select(h: _Words, new: _Words, take_new: npt.NDArray[np.bool_], scratch: _Words) -> None:
    """``h = where(take_new, new, h)`` in place, without the slow masked copy."""
    np.copyto(scratch, take_new, casting="unsafe")
    np.negative(scratch, out=scratch)  # True -> 0xFFFFFFFF, False -> 0
    np.bitwise_xor(new, h, out=new)
    np.bitwise_and(new, scratch, out=new)
    np.bitwise_xor(h, new, out=h)


def _fnv1a_kernel(words: _Words, first: _Index, lengths: _Index, out: _Words) -> None:
    """FNV-1a 32-bit of each key in a slice, into ``out``."""
    p = _U32(_FNV_PRIME)
    blocks = lengths >> 2
    order, active = _longest_first(blocks)
    idx = first[order]
    lens = lengths[order]
    h = np.full(lens.size, _FNV_OFFSET, dtype=np.uint32)
    k = np.empty_like(h)
    t = np.empty_like(h)
    for b, count in enumerate(active):
        ka, ta, ha = k[:count], t[:count], h[:count]
        # One gather per 4 bytes; FNV-1a itself is byte-serial, lowest byte first.
        np.take(words[b:], idx[:count], out=ka, mode="clip")
        np.bitwise_and(ka, _U32(0xFF), out=ta)
        np.bitwise_xor(ha, ta, out=ha)
        np.multiply(ha, p, out=ha)
        for shift in (8, 16):
            np.right_shift(ka, shift, out=ta)
            np.bitwise_and(ta, _U32(0xFF), out=ta)
            np.bitwise_xor(ha, ta, out=ha)
            np.multiply(ha, p, out=ha)
        np.right_shift(ka, 24, out=ta)
        np.bitwise_xor(ha, ta, out=ha)
        np.multiply(ha, p, out=ha)
    rem = lens & 3
    if rem.any():
        idx += blocks[order]
        np.take(words, idx, out=k, mode="clip")
        new = np.empty_like(h)
        for j in range(3):
            np.right_shift(k, 8 * j, out=t)
            np.bitwise_and(t, _U32(0xFF), out=t)
            np.bitwise_xor(h, t, out=new)
            np.multiply(new, p, out=new)
            _select(h, new, rem > j, t)
    out[order] = h


def _crc32_tables() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Lookup tables for the reflected CRC-32 polynomial 0xEDB88320.

    Returns:
        The byte table, and two 65,536-entry tables that advance the CRC over the low and
        the high half of a 4-byte little-endian block (slicing-by-4 with each pair of
        byte tables pre-combined, so a block costs two lookups, not four).
    """
    by_byte = np.zeros((4, 256), dtype=np.intp)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0xEDB88320 if c & 1 else 0)
        by_byte[0, i] = c
    for s in range(1, 4):
        prev = by_byte[s - 1]
        # by_byte[s][i]: CRC of byte i followed by s zero bytes.
        by_byte[s] = (prev >> 8) ^ by_byte[0][prev & 0xFF]
    low = (by_byte[2][:, None] ^ by_byte[3][None, :]).ravel()  # index: b1 << 8 | b0
    high = (by_byte[0][:, None] ^ by_byte[1][None, :]).ravel()  # index: b3 << 8 | b2
    return by_byte[0], low, high


_CRC_BYTE, _CRC_LOW, _CRC_HIGH = _crc32_tables()


def _crc32_kernel(words: _Words, first: _Index, lengths: _Index, out: _Words) -> None:
    """CRC-32 of each key in a slice, into ``out``."""
    # The state is kept as intp so it indexes the tables directly (no index conversion).
    blocks = lengths >> 2
    order, active = _longest_first(blocks)
    idx = first[order]
    lens = lengths[order]
    h = np.full(lens.size, _MASK32, dtype=np.intp)
    x = np.empty_like(h)
    y = np.empty_like(h)
    k = np.empty(h.size, dtype=np.uint32)
    for b, count in enumerate(active):
        ha, xa, ya, ka = h[:count], x[:count], y[:count], k[:count]
        np.take(words[b:], idx[:count], out=ka, mode="clip")
        np.bitwise_xor(ha, ka, out=xa)
        np.bitwise_and(xa, 0xFFFF, out=ya)
        np.take(_CRC_LOW, ya, out=ha, mode="clip")
        np.right_shift(xa, 16, out=ya)
        np.take(_CRC_HIGH, ya, out=xa, mode="clip")
        np.bitwise_xor(ha, xa, out=ha)
    rem = lens & 3
    if rem.any():
        idx += blocks[order]
        np.take(words, idx, out=k, mode="clip")
        new = np.empty_like(h)
        for j in range(3):
            # One reflected step per byte: h = T[(h ^ byte) & 0xFF] ^ (h >> 8).
            np.right_shift(k, 8 * j, out=x, casting="unsafe")
            np.bitwise_xor(x, h, out=x)
            np.bitwise_and(x, 0xFF, out=x)
            np.take(_CRC_BYTE, x, out=new, mode="clip")
            np.right_shift(h, 8, out=y)
            np.bitwise_xor(new, y, out=new)
            np.copyto(h, new, where=rem > j)
    np.bitwise_xor(h, _MASK32, out=h)
    out[order] = h


_KERNELS: Final[Mapping[str, _Kernel]] = MappingProxyType(
    {"consistent": _crc32_kernel, "fnv1a": _fnv1a_kernel}
)


def _slices(offsets: npt.NDArray[np.int64], max_keys: int, max_bytes: int) -> list[tuple[int, int]]:
    """Cut keys into runs of at most ``max_keys`` keys and about ``max_bytes`` bytes."""
    n = offsets.size - 1
    bounds = []
    lo_key = 0
    while lo_key < n:
        by_bytes = int(np.searchsorted(offsets, offsets[lo_key] + max_bytes, "right")) - 1
        hi_key = max(lo_key + 1, min(n, lo_key + max_keys, by_bytes))  # >= 1 key
        bounds.append((lo_key, hi_key))
        lo_key = hi_key
    return bounds


def _hash_layout(
    data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], kernel: _Kernel
) -> _Words:
    """Hash every key of an Arrow binary layout: key ``i`` is ``data[offsets[i]:offsets[i+1]]``.

    Keys are taken a cache-sized slice at a time. For each slice, four copies of its bytes
    are laid out as aligned uint32 rows, row ``a`` starting ``a`` bytes in, so the block
    at any byte offset ``s`` is one aligned word (row ``s % 4``, word ``s // 4``): a
    plain gather, where an unaligned strided view measured 3-4 times slower.
    """
    n = offsets.size - 1
    out = np.empty(n, dtype=np.uint32)
    if n == 0:
        return out
    bounds = _slices(offsets, _SLICE_KEYS, _SLICE_BYTES)
    # Slices start on a 4-byte boundary of the data, so a key's row (start % 4) and word
    # (start // 4, less the slice's first word) follow from its absolute start.
    row = max(int(offsets[hi] - (offsets[lo] & ~3)) for lo, hi in bounds) // 4 + 2
    starts = offsets[:-1]
    first = (starts & 3) * row + (starts >> 2)
    lengths = np.diff(offsets)
    words = np.empty(4 * row, dtype=np.uint32)
    raw = words.view(np.uint8).reshape(4, 4 * row)
    for lo_key, hi_key in bounds:
        lo = int(offsets[lo_key]) & ~3
        hi = int(offsets[hi_key])
        for a in range(4):
            filled = max(0, hi - lo - a)
            raw[a, :filled] = data[lo + a : hi]
            # Tail words read up to 3 bytes past a key; kernels mask them off, and zeroing
            # keeps stale bytes from an earlier slice out of every intermediate value.
            raw[a, filled : filled + 8] = 0
        kernel(
            words,
            (first[lo_key:hi_key] - (lo >> 2)).astype(np.intp, copy=False),
            lengths[lo_key:hi_key].astype(np.intp, copy=False),
            out[lo_key:hi_key],
        )
    return out


def _fold(raw: _Words, base: str) -> _Words:
    """Turn raw hashes (uint32 bit patterns) into what each client takes the modulo of."""
    h = raw
    if base == "murmur2":
        np.bitwise_and(h, _U32(0x7FFFFFFF), out=h)  # Utils.toPositive
    elif base == "fnv1a":
        negative = h >= _U32(0x80000000)
        np.negative(h, out=h, where=negative)  # int32 negation, INT32_MIN stays itself
    return h


def _mod(h: _Words, num_partitions: int) -> _Words:
    """``h % num_partitions``, as ``h - (h // n) * n``.

    NumPy divides an integer array by a scalar with a precomputed multiplier (libdivide)
    but takes its remainder by a hardware division per element: measured 0.04 ms
    against 0.18 ms for 100,000 keys, for a planner that tries hundreds of counts.
    """
    n = _U32(num_partitions)
    out: _Words = h - (h // n) * n
    return out


def _finish(raw: _Words, num_partitions: int, base: str) -> npt.NDArray[np.int32]:
    """Turn per-key hashes (uint32 bit patterns) into partitions, as each client does."""
    return _mod(_fold(raw, base), num_partitions).view(np.int32)


def murmur2_array(keys: Any) -> npt.NDArray[np.int32]:
    """Java-client MurmurHash2 of every key, vectorised (signed results, like `murmur2`).

    Args:
        keys: As for `partitions_for_keys`, without null keys.

    Returns:
        One int32 per key.

    Raises:
        ValueError: A key is null (a null key has no hash).
    """
    arrow = key_array(keys)
    if arrow.null_count:
        raise ValueError("murmur2_array: keys must not be null (a null key has no hash)")
    return _raw_hashes(arrow, "murmur2").view(np.int32)


def key_array(keys: Any) -> Any:
    """A key sample as a PyArrow (chunked) array of a binary-layout type.

    Args:
        keys: A PyArrow binary or string array (view types are cast), or a sequence
            whose items are `bytes`, `str` (its UTF-8 bytes, as a `StringSerializer`
            sends it: what `json.load` gives for a key) or None (a null key).

    Raises:
        TypeError: `keys` is a single key, an Arrow array of another type, or a
            sequence holding something that is not a key (the message names the first).
    """
    import pyarrow as pa

    if isinstance(keys, pa.Array | pa.ChunkedArray):
        t = keys.type
        if pa.types.is_binary_view(t) or pa.types.is_string_view(t):
            return keys.cast(pa.large_binary())
        if is_hashed(keys):
            return keys
        if not (
            pa.types.is_binary(t)
            or pa.types.is_large_binary(t)
            or pa.types.is_string(t)
            or pa.types.is_large_string(t)
        ):
            raise TypeError(f"keys must be a binary or string Arrow array, got type {t}")
        return keys
    if isinstance(keys, str | bytes):
        raise TypeError("keys must be a sequence of keys, not a single key")
    # pa.array copies the bytes once into the layout the kernels read; measured faster
    # than hashing a Python list key by key.
    try:
        return pa.array(keys, type=pa.binary())
    except (pa.ArrowTypeError, pa.ArrowInvalid, TypeError):
        pass
    for i, key in enumerate(keys):
        if key is not None and not isinstance(key, bytes | str):
            raise TypeError(
                f"keys[{i}] is {key!r} ({type(key).__name__}): a key is bytes, str "
                "(its UTF-8 bytes) or None (a null key)"
            ) from None
    raise TypeError(f"keys must be a sequence of bytes, str or None, got {type(keys).__name__}")


def _layouts(arrow: Any) -> list[tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]]:
    """(data, offsets) of each chunk, honouring the chunk's ``offset`` (a sliced array)."""
    import pyarrow as pa

    chunks = arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    layouts = []
    for chunk in chunks:
        _validity, offset_buf, data_buf = chunk.buffers()
        wide = pa.types.is_large_binary(chunk.type) or pa.types.is_large_string(chunk.type)
        offsets: npt.NDArray[np.int64]
        if len(chunk) == 0:
            offsets = np.zeros(1, dtype=np.int64)
        else:
            all_offsets = np.frombuffer(offset_buf, dtype=np.int64 if wide else np.int32)
            offsets = all_offsets[chunk.offset : chunk.offset + len(chunk) + 1].astype(np.int64)
        # An array of only empty keys may have no data buffer at all.
        data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else _NO_BYTES
        layouts.append((data, offsets))
    return layouts


_NO_BYTES: Final[npt.NDArray[np.uint8]] = np.zeros(0, dtype=np.uint8)


def _raw_hashes(arrow: Any, base: str) -> _Words:
    parts = [_hash_chunk(data, offsets, base) for data, offsets in _layouts(arrow)]
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.uint32)


def _hash_chunk(data: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], base: str) -> _Words:
    if base == "murmur2":
        return _murmur2_layout(data, offsets)
    return _hash_layout(data, offsets, _KERNELS[base])


# `KeyHashes` and `hash_keys` are the planner's own tools (planner.simulate hashes a
# key sample once per plan with them); the curated surface above is what tools outside
# the planner use, and stays as the tests pin it.


@dataclass(frozen=True, eq=False)
class KeyHashes:
    """The keys of a sample hashed once, ready to be placed on any partition count.

    Every partitioner places a key on ``g(key) mod n`` with ``g`` independent of ``n``
    (the positive murmur2, the unsigned CRC-32, the sign-folded FNV-1a), so ``g`` is
    computed once per key and each partition count costs one remainder. A planner that
    tries dozens of counts for one key sample hashes it once instead of once per count.

    Attributes:
        folded: ``g(key)`` per key, as each client computes it before its modulo (uint32);
            for a null key that a non-random partitioner hashes as ``b""``, ``g(b"")``.
        null: Which keys are null.
        spread: Which records the client spreads at run time (null keys under a
            ``*_random`` partitioner, empty keys under ``consistent_random``).
        partitioner: The librdkafka ``partitioner`` name.
    """

    folded: npt.NDArray[np.uint32]
    null: npt.NDArray[np.bool_]
    spread: npt.NDArray[np.bool_]
    partitioner: str

    def __len__(self) -> int:
        return int(self.folded.size)

    def take(self, indices: npt.ArrayLike) -> KeyHashes:
        """The hashes of the keys at `indices` (a sub-sample), without hashing again."""
        at = np.asarray(indices, dtype=np.intp)
        return KeyHashes(self.folded[at], self.null[at], self.spread[at], self.partitioner)

    def partitions(self, num_partitions: int) -> npt.NDArray[np.int32]:
        """Each key's partition on ``num_partitions`` partitions, `SPREAD` for spread ones.

        The same as ``partitions_for_keys(keys, num_partitions, partitioner,
        keyless="mark")``.
        """
        _check(num_partitions, self.partitioner)
        out = _mod(self.folded, num_partitions).view(np.int32)
        if self.spread.any():
            out[self.spread] = SPREAD
        return out


def hash_keys(
    keys: Sequence[bytes | None] | Any, partitioner: str = DEFAULT_PARTITIONER
) -> KeyHashes:
    """Hash a key sample once for every partition count it will be placed on.

    Args:
        keys: As for `partitions_for_keys`.
        partitioner: A librdkafka ``partitioner`` name from `PARTITIONERS`.

    Returns:
        The hashes; ``hash_keys(keys, p).partitions(n)`` equals
        ``partitions_for_keys(keys, n, p, keyless="mark")``.

    Example:
        >>> hash_keys([b"21", b"foobar", None], "murmur2_random").partitions(12).tolist()
        [0, 6, -1]
    """
    _check(1, partitioner)
    arrow = key_array(keys)
    base = _base(partitioner)
    if is_hashed(arrow):
        return _from_hashed(arrow, partitioner)
    folded = _fold(_raw_hashes(arrow, base), base)
    behaviour = KEYLESS_BEHAVIOUR[partitioner]
    if arrow.null_count == 0 and not behaviour.empty_key_spread:
        none = np.zeros(folded.size, dtype=bool)
        return KeyHashes(folded, none, none, partitioner)
    import pyarrow.compute as pc

    null = np.asarray(arrow.is_null(), dtype=bool)
    empty = np.asarray(pc.fill_null(pc.equal(pc.binary_length(arrow), 0), False), dtype=bool)
    spread = empty & ~null if behaviour.empty_key_spread else np.zeros_like(null)
    if behaviour.null_key_spread or behaviour.empty_key_spread:
        spread |= null
    if not behaviour.null_key_spread:
        # Null slots may carry arbitrary bytes in Arrow; librdkafka hashes them as b"".
        folded[null] = _fold(_raw_hashes(key_array([b""]), base), base)[0]
    return KeyHashes(folded, null, spread, partitioner)


# --- Hashed keys ------------------------------------------------------------------------
# A key sample taken from a live cluster keeps no key, only what the partitioners need
# of it (planner.observe): each base partitioner's g(key) and whether the key is empty.

#: The fields of a hashed key sample: a label to name the key by, each base
#: partitioner's g(key) (as `KeyHashes.folded` holds it), and whether the key is empty.
HASHED_FIELDS: Final[tuple[str, ...]] = ("label", "murmur2", "crc32", "fnv1a", "empty")
_HASH_OF_BASE: Final[Mapping[str, str]] = MappingProxyType(
    {"murmur2": "murmur2", "consistent": "crc32", "fnv1a": "fnv1a"}
)


def hashed_label(murmur2_hash: int) -> bytes:
    """How a hashed key is named where a key would be shown: `#murmur2:1a2b3c4d`."""
    return f"#murmur2:{murmur2_hash:08x}".encode("ascii")


def hashed_key_array(
    murmur2_hash: npt.ArrayLike,
    crc32_hash: npt.ArrayLike,
    fnv1a_hash: npt.ArrayLike,
    empty: npt.ArrayLike,
    *,
    labels: Sequence[bytes] | None = None,
) -> Any:
    """A key sample given by its hashes, in the form every function here takes as keys.

    Args:
        murmur2_hash: The Java client's `toPositive(murmur2(key))` per key.
        crc32_hash: librdkafka's unsigned `crc32(key)`.
        fnv1a_hash: The sign-folded FNV-1a.
        empty: Whether each key has zero bytes (`consistent_random` spreads those).
        labels: What to call each key where one is shown (default `hashed_label`).

    Returns:
        A PyArrow struct array of `HASHED_FIELDS`; `hash_keys` reads its hashes
        instead of hashing.
    """
    import pyarrow as pa

    m = np.asarray(murmur2_hash, dtype=np.uint32)
    names = list(labels) if labels is not None else [hashed_label(int(h)) for h in m]
    return pa.StructArray.from_arrays(
        [
            pa.array(names, pa.binary()),
            pa.array(m, pa.uint32()),
            pa.array(np.asarray(crc32_hash, dtype=np.uint32), pa.uint32()),
            pa.array(np.asarray(fnv1a_hash, dtype=np.uint32), pa.uint32()),
            pa.array(np.asarray(empty, dtype=bool), pa.bool_()),
        ],
        names=list(HASHED_FIELDS),
    )


def hash_to_hashed(keys: Sequence[bytes | None] | Any) -> Any:
    """Keys given as bytes, in the hashed form (`hashed_key_array`): each base
    partitioner's `g(key)` and whether it is empty, labelled by the key's own bytes.

    A null key is a null entry. The inverse is not possible: that is the point.
    """
    import pyarrow as pa

    arrow = key_array(keys)
    null = np.asarray(arrow.is_null(), dtype=bool)
    filled = [b"" if k is None else k for k in arrow.cast(pa.binary()).to_pylist()]
    hashes = {h: hash_keys(filled, base).folded for base, h in _HASH_OF_BASE.items()}
    empty = np.fromiter((len(k) == 0 for k in filled), dtype=bool, count=len(filled))
    out = hashed_key_array(
        hashes["murmur2"], hashes["crc32"], hashes["fnv1a"], empty, labels=filled
    )
    if null.any():
        out = pa.StructArray.from_arrays(
            out.flatten(), names=list(HASHED_FIELDS), mask=pa.array(null)
        )
    return out


def is_hashed(keys: Any) -> bool:
    """Whether `keys` is a hashed key sample (`hashed_key_array`)."""
    import pyarrow as pa

    t = getattr(keys, "type", None)
    return (
        t is not None
        and pa.types.is_struct(t)
        and tuple(t.field(i).name for i in range(t.num_fields)) == HASHED_FIELDS
    )


def _from_hashed(keys: Any, partitioner: str) -> KeyHashes:
    import pyarrow as pa
    import pyarrow.compute as pc

    flat = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    column = _HASH_OF_BASE[_base(partitioner)]
    folded = np.asarray(
        pc.fill_null(flat.field(column), 0).to_numpy(zero_copy_only=False), dtype=np.uint32
    ).copy()
    null = np.asarray(flat.is_null(), dtype=bool)
    empty = np.asarray(pc.fill_null(flat.field("empty"), False), dtype=bool) & ~null
    behaviour = KEYLESS_BEHAVIOUR[partitioner]
    spread = empty.copy() if behaviour.empty_key_spread else np.zeros_like(null)
    if behaviour.null_key_spread:
        spread |= null
    else:
        folded[null] = _fold(_raw_hashes(key_array([b""]), _base(partitioner)), _base(partitioner))[
            0
        ]
    return KeyHashes(folded, null, spread, partitioner)


def partitions_for_keys(
    keys: Sequence[bytes | None] | Any,
    num_partitions: int,
    partitioner: str = DEFAULT_PARTITIONER,
    *,
    keyless: KeylessMode = "raise",
) -> npt.NDArray[np.int32]:
    """The partition a client configured with ``partitioner`` picks for each key.

    To place one sample on many partition counts, hash it once with `hash_keys`.

    Args:
        keys: A sequence of ``bytes`` or ``str`` (``None`` for a null key; a list of
            ``str`` is what ``json.load`` gives), or a PyArrow ``binary``,
            ``large_binary``, ``string`` or ``large_string`` array (view types are
            cast), chunked or not, sliced or not (strings hash as their UTF-8 bytes, as
            a ``StringSerializer`` sends them).
        num_partitions: Partition count of the topic (>= 1).
        partitioner: A librdkafka ``partitioner`` name from `PARTITIONERS`.
        keyless: What to do with a record whose partition its key does not decide: a
            null key, or under ``consistent_random`` an empty one. ``"raise"``
            (default): raise ValueError if there is any null key, or any record the
            client would spread. ``"mark"``: return `SPREAD` (-1) for records the client
            spreads, and the fixed partition for null keys under a non-random
            partitioner (librdkafka hashes those as ``b""``; see `keyless_partition`).

    Returns:
        One int32 partition per key, in input order.

    Raises:
        ValueError: Unknown partitioner or keyless mode, ``num_partitions < 1``, or a
            keyless record with ``keyless="raise"``.
        TypeError: ``keys`` is neither a sequence of bytes nor a binary/string array.
    """
    _check(num_partitions, partitioner)
    if keyless not in ("raise", "mark"):
        raise ValueError(f"keyless must be 'raise' or 'mark', got {keyless!r}")
    hashes = hash_keys(keys, partitioner)
    if keyless == "raise":
        spread_empty = hashes.spread & ~hashes.null
        for mask, what in ((hashes.null, "is null"), (spread_empty, "is empty")):
            if mask.any():
                first = int(np.flatnonzero(mask)[0])
                raise ValueError(_keyless_message(f"keys[{first}] {what}", partitioner))
    return hashes.partitions(num_partitions)


# Follows (names only):
#   org.apache.kafka.common.utils.Utils.murmur2, Utils.toPositive
#   org.apache.kafka.clients.producer.internals.BuiltInPartitioner.partitionForKey
#   librdkafka src/rdmurmur2.c rd_murmur2, src/rdcrc32.c rd_crc32, src/rdfnv1a.c rd_fnv1a
#   librdkafka src/rdkafka_msg.c rd_kafka_msg_partitioner_{murmur2,consistent,fnv1a}[_random]
#   librdkafka CONFIGURATION.md: topic property `partitioner`
