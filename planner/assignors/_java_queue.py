"""``java.util.PriorityQueue``'s exact order, ties included.

Kafka's streams task assignor keeps processes (and each process its members) in
``PriorityQueue``s ordered by load alone, so among equally loaded entries the one polled
first is decided by the binary heap's layout: by the order the entries were added and
every earlier ``poll``. Python's ``heapq`` sifts differently, so this emulates Java's
``offer`` (sift up from the new last slot) and ``poll`` (move the last entry to the root
and sift it down, preferring the left child on a tie) step for step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class JavaPriorityQueue(Generic[T]):
    """A ``java.util.PriorityQueue`` built with a comparator.

    Args:
        compare: Java's ``Comparator.compare``: negative, zero or positive.
    """

    def __init__(self, compare: Callable[[T, T], int]) -> None:
        self._compare = compare
        self._heap: list[T] = []

    @classmethod
    def heapified(cls, items: Iterable[T], compare: Callable[[T, T], int]) -> JavaPriorityQueue[T]:
        """``new PriorityQueue<>(collection)`` of a collection that is not a ``SortedSet``:
        the elements in the collection's iteration order, then Java's bottom-up ``heapify``
        (sift down every parent slot, last first)."""
        queue = cls(compare)
        queue._heap = list(items)
        for k in range((len(queue._heap) >> 1) - 1, -1, -1):
            queue._sift_down(k, queue._heap[k])
        return queue

    def __len__(self) -> int:
        return len(self._heap)

    def __iter__(self) -> Iterator[T]:
        """Java's iterator: the heap's array order, not sorted."""
        return iter(list(self._heap))

    def __contains__(self, item: object) -> bool:
        return item in self._heap

    def add(self, item: T) -> None:
        """``offer``: sift up from the new last slot; an equal parent stays above."""
        self._heap.append(item)
        self._sift_up(len(self._heap) - 1, item)

    def poll(self) -> T | None:
        """``poll``: the root; the last entry sifts down from the root in its place."""
        heap = self._heap
        if not heap:
            return None
        result = heap[0]
        last = heap.pop()
        if heap:
            self._sift_down(0, last)
        return result

    def remove(self, item: T) -> bool:
        """``remove(Object)``: Java's ``removeAt`` on the first equal slot in array order:
        the last entry takes the slot and sifts down, or up if it did not move down."""
        heap = self._heap
        try:
            i = heap.index(item)
        except ValueError:
            return False
        last = heap.pop()
        if i < len(heap):
            self._sift_down(i, last)
            if heap[i] is last:
                self._sift_up(i, last)
        return True

    def _sift_up(self, k: int, item: T) -> None:
        heap = self._heap
        while k > 0:
            parent = (k - 1) >> 1
            if self._compare(item, heap[parent]) >= 0:
                break
            heap[k] = heap[parent]
            k = parent
        heap[k] = item

    def _sift_down(self, k: int, item: T) -> None:
        heap = self._heap
        n = len(heap)
        half = n >> 1
        while k < half:
            child = 2 * k + 1
            right = child + 1
            # Java takes the right child only when the left is strictly greater.
            if right < n and self._compare(heap[child], heap[right]) > 0:
                child = right
            if self._compare(item, heap[child]) <= 0:
                break
            heap[k] = heap[child]
            k = child
        heap[k] = item


def compare_numbers(a: float, b: float) -> int:
    """``Double.compare``/``Integer.compare`` for the assignors' values (no NaN, no -0.0)."""
    return (a > b) - (a < b)
