"""Java's hash iteration orders, where Kafka's sticky assignors walk a HashMap or a HashSet.

Kafka's sticky assignors are deterministic, but in two places their result follows the
iteration order of a Java hash table:

* the constrained path visits the members in the order of a ``HashMap`` keyed by member
  id when it decides who keeps one partition above the minimum quota;
* the general path, to undo an earlier move instead of moving a partition a second time,
  takes the first partition of a ``HashSet<TopicPartition>``.

That order is a pure function of the keys' hash codes, the table's capacity and, within one
bucket, the order of insertion, all of which are emulated here. A ``java.util.HashMap``
(and a ``HashSet``, which is one):

* hashes a key as ``h ^ (h >>> 16)`` of its ``hashCode()`` and puts it in bucket
  ``hash & (capacity - 1)``;
* starts at 16 buckets and doubles when its size exceeds three quarters of them, or when
  one bucket's chain would reach 9 entries while it has fewer than 64 buckets; it never
  shrinks;
* iterates bucket by bucket and, within a bucket, in the order of its chain: ``put`` (and
  ``HashSet.add``) appends to the chain, but ``computeIfAbsent`` links a new key at its
  head (a resize splits a chain into two without reordering it).

Not emulated: a bucket of 9 or more entries in a table of 64 buckets or more, which Java
turns into a red-black tree with its own order (:class:`JavaHashTable` reports it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from typing import Generic, TypeVar

from planner.assignors._members import TopicPartition

_MASK32 = 0xFFFFFFFF
_INITIAL_CAPACITY = 16
_TREEIFY_CHAIN = 8  # a chain this long gets a ninth entry -> treeify (or grow a small table)
_MIN_TREEIFY_CAPACITY = 64

K = TypeVar("K", bound=Hashable)


@lru_cache(maxsize=1 << 16)  # planning grids hash the same member ids over and over
def string_hash(text: str) -> int:
    """Java's ``String.hashCode()``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units.

    Returns:
        The 32-bit result as an unsigned int (the bits Java's signed int holds).
    """
    h = 0
    units = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(units), 2):
        h = (31 * h + ((units[i] << 8) | units[i + 1])) & _MASK32
    return h


def topic_partition_hash(tp: TopicPartition) -> int:
    """``TopicPartition.hashCode()``: ``31 * (31 + partition) + topic.hashCode()``, unsigned."""
    return (31 * (31 + tp.partition) + string_hash(tp.topic)) & _MASK32


def _spread(h: int) -> int:
    return h ^ (h >> 16)


def int_hash(value: int) -> int:
    """``Integer.hashCode()`` as an unsigned 32-bit int."""
    return value & _MASK32


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the table size an ``initialCapacity`` gives (a power of two)."""
    return 1 if capacity <= 1 else 1 << (capacity - 1).bit_length()


def capacity_for_copy(size: int) -> int:
    """The ``initialCapacity`` ``new HashSet<>(collection)`` uses for ``size`` elements."""
    return max(int(size / 0.75) + 1, _INITIAL_CAPACITY)


def capacity_for_expected(size: int) -> int:
    """``(int) ((size + 1) / 0.75f + 1)``: the capacity Kafka's group-coordinator helpers
    (``AssignorHelpers.newHashMap``/``newHashSet``) ask for ``size`` entries."""
    return int((size + 1) / 0.75 + 1)


class JavaHashTable(Generic[K]):
    """The iteration order of one ``java.util.HashMap``/``HashSet`` over its life.

    Args:
        hash_code: The keys' Java ``hashCode()`` as an unsigned 32-bit int.
        initial_capacity: The ``initialCapacity`` the table was constructed with (Java
            rounds it up to a power of two); 16 for ``new HashMap<>()``.

    Attributes:
        treeified: A bucket became a red-black tree, whose order is not emulated.
    """

    def __init__(
        self, hash_code: Callable[[K], int], *, initial_capacity: int = _INITIAL_CAPACITY
    ) -> None:
        self._hash_code = hash_code
        self._capacity = table_size_for(initial_capacity)
        self._spread_of: dict[K, int] = {}
        self._inserted: dict[K, int] = {}  # key -> stamp: its place within its bucket
        self._stamp = 0
        self._front = 0  # stamps below every other: computeIfAbsent links at a chain's head
        # Bucket -> entries at the current capacity; only counted once the table holds
        # enough keys for a chain to grow long (most tables Kafka's assignors build never do).
        self._chains: dict[int, int] | None = None
        self.treeified = False

    def __len__(self) -> int:
        return len(self._inserted)

    @property
    def capacity(self) -> int:
        """The number of buckets."""
        return self._capacity

    def __contains__(self, key: object) -> bool:
        return key in self._inserted

    def add(self, key: K) -> None:
        """``put``/``add``; an existing key keeps its place."""
        if key in self._inserted:
            return
        spread = _spread(self._hash_code(key))
        if self._chains is not None and (
            self._chains.get(spread & (self._capacity - 1), 0) >= _TREEIFY_CHAIN
        ):
            if self._capacity < _MIN_TREEIFY_CAPACITY:
                self._grow()
            else:
                self.treeified = True
        self._spread_of[key] = spread
        self._inserted[key] = self._stamp
        self._stamp += 1
        self._count(spread)
        if len(self._inserted) > self._capacity * 3 // 4:
            self._grow()

    def compute_if_absent(self, key: K) -> None:
        """``HashMap.computeIfAbsent`` of a missing key; an existing key keeps its place.

        Unlike ``put``, it links the new entry at the *head* of its bucket's chain, grows a
        full table before inserting rather than after, and turns a chain into a tree (or
        grows a small table) once it reaches 8 entries rather than 9. Java checks for a
        full table before it looks the key up, so a present key can grow it too.
        """
        if len(self._inserted) > self._capacity * 3 // 4:
            self._grow()
        if key in self._inserted:
            return
        spread = _spread(self._hash_code(key))
        chains = self._chains
        existing = 0 if chains is None else chains.get(spread & (self._capacity - 1), 0)
        self._front -= 1
        self._spread_of[key] = spread
        self._inserted[key] = self._front
        self._count(spread)
        if existing >= _TREEIFY_CHAIN - 1:
            if self._capacity < _MIN_TREEIFY_CAPACITY:
                self._grow()
            else:
                self.treeified = True

    def _count(self, spread: int) -> None:
        """Count a new key in its bucket's chain, or start counting once chains could
        reach the treeify length (a table of fewer keys cannot hold such a chain)."""
        if self._chains is not None:
            bucket = spread & (self._capacity - 1)
            self._chains[bucket] = self._chains.get(bucket, 0) + 1
        elif len(self._inserted) >= _TREEIFY_CHAIN - 1:
            self._chains = self._counted()

    def _counted(self) -> dict[int, int]:
        return dict(Counter(map((self._capacity - 1).__and__, self._spread_of.values())))

    def remove(self, key: K) -> None:
        """``remove``; the capacity stays."""
        spread = self._spread_of.pop(key, None)
        if spread is not None:
            del self._inserted[key]
            if self._chains is not None:
                self._chains[spread & (self._capacity - 1)] -= 1

    def _grow(self) -> None:
        self._capacity *= 2
        if self._chains is not None:
            self._chains = self._counted()

    def order(self) -> list[K]:
        """The keys in Java's iteration order."""
        mask = self._capacity - 1
        return sorted(self._inserted, key=lambda k: (self._spread_of[k] & mask, self._inserted[k]))

    def first(self) -> K:
        """``iterator().next()``.

        Raises:
            KeyError: The table is empty.
        """
        if not self._inserted:
            raise KeyError("empty table")
        mask = self._capacity - 1
        return min(self._inserted, key=lambda k: (self._spread_of[k] & mask, self._inserted[k]))


def hash_map_order(member_ids: Iterable[str]) -> list[str]:
    """The iteration order of a ``HashMap<String, ?>`` filled with ``member_ids`` in order.

    Example:
        >>> hash_map_order(["consumer-1", "consumer-10", "b", "a"])
        ['a', 'b', 'consumer-10', 'consumer-1']
    """
    ids = list(dict.fromkeys(member_ids))
    spreads = list(map(_spread_string_hash, ids))
    capacity = _grown_by_size_only(spreads)
    if capacity is None:  # a long chain grew the table early: replay every insertion
        table: JavaHashTable[str] = JavaHashTable(string_hash)
        for member_id in ids:
            table.add(member_id)
        return table.order()
    buckets = list(map((capacity - 1).__and__, spreads))
    # sorted() is stable: ids sharing a bucket keep their insertion order.
    return list(map(ids.__getitem__, sorted(range(len(ids)), key=buckets.__getitem__)))


def copied_set_order(strings: Sequence[str]) -> list[str]:
    """The iteration order of ``new HashSet<>(strings)``, a list without repeats.

    Java sizes the copy for the list (:func:`capacity_for_copy`), so it never doubles for
    its size; strings sharing a bucket keep the list's order, and only a ninth string in
    one bucket of a table under 64 buckets doubles it (replayed by :class:`JavaHashTable`).

    Example:
        >>> copied_set_order(["b", "zz"])  # "zz" hashes to bucket 0, "b" to bucket 2
        ['zz', 'b']
    """
    if len(strings) <= 1:
        return list(strings)
    table: JavaHashTable[str] = JavaHashTable(
        string_hash, initial_capacity=capacity_for_copy(len(strings))
    )
    for text in strings:
        table.add(text)
    return table.order()


@lru_cache(maxsize=1 << 16)
def _spread_string_hash(text: str) -> int:
    return _spread(string_hash(text))


def _grown_by_size_only(spreads: list[int]) -> int | None:
    """The final capacity if no bucket reached 9 entries while the table had fewer than 64
    buckets (then only the size decided when it doubled), else None.

    A long chain in a larger table makes a tree instead of growing it; the table's
    capacity, and so the order :class:`JavaHashTable` gives, are then the size-given ones.
    """
    capacity = _INITIAL_CAPACITY
    while True:
        # Entries 1..threshold+1 are inserted while the table has `capacity` buckets.
        inserted = spreads[: capacity * 3 // 4 + 1]
        if (
            capacity < _MIN_TREEIFY_CAPACITY
            and len(inserted) > _TREEIFY_CHAIN
            and (max(Counter(map((capacity - 1).__and__, inserted)).values()) > _TREEIFY_CHAIN)
        ):
            return None
        if len(spreads) <= capacity * 3 // 4:
            return capacity
        capacity *= 2


# Emulates java.util.HashMap (OpenJDK 8 and later: hash spreading, power-of-two tables,
# load factor 0.75, treeification threshold 8 and minimum treeify capacity 64), the order
# Apache Kafka's AbstractStickyAssignor iterates in.
