"""``java.util.PriorityQueue``'s exact order, ties included.

Kafka's streams task assignor keeps processes (and each process its members) in
``PriorityQueue``s ordered by load alone, so among equally loaded entries the one polled
first is decided by the binary heap's layout: by the order the entries were added and
every earlier ``poll``. Python's ``heapq`` sifts differently, so this emulates Java's
``offer`` (sift up from the new last slot) and ``poll`` (move the last entry to the root
and sift it down, preferring the left child on a tie) step for step.
"""

from __future__ import annotations

from collections.abc import Callable
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

    def __len__(self) -> int:
        return len(self._heap)

    def add(self, item: T) -> None:
        """``offer``: sift up from the new last slot; an equal parent stays above."""
        heap = self._heap
        heap.append(item)
        k = len(heap) - 1
        while k > 0:
            parent = (k - 1) >> 1
            if self._compare(item, heap[parent]) >= 0:
                break
            heap[k] = heap[parent]
            k = parent
        heap[k] = item

    def poll(self) -> T | None:
        """``poll``: the root; the last entry sifts down from the root in its place."""
        heap = self._heap
        if not heap:
            return None
        result = heap[0]
        last = heap.pop()
        n = len(heap)
        if n:
            k = 0
            half = n >> 1
            while k < half:
                child = 2 * k + 1
                right = child + 1
                # Java takes the right child only when the left is strictly greater.
                if right < n and self._compare(heap[child], heap[right]) > 0:
                    child = right
                if self._compare(last, heap[child]) <= 0:
                    break
                heap[k] = heap[child]
                k = child
            heap[k] = last
        return result


def compare_numbers(a: float, b: float) -> int:
    """``Double.compare``/``Integer.compare`` for the assignors' values (no NaN, no -0.0)."""
    return (a > b) - (a < b)
