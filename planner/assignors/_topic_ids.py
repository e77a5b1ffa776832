"""Topic ids (Kafka's ``Uuid``) as the broker-side assignors hash and order them.

The group coordinator's assignors key their tables by topic id, not by name: a topic's id
decides where it sits in a ``HashSet<Uuid>`` and breaks ties when ``uniform`` sorts topics.
Kafka prints an id as the URL-safe base64 of its 16 bytes without padding (22 characters,
e.g. ``kafka-topics --describe``'s ``TopicId: 2i5pS0Q3T3anZrJ3rBNdaA``); ``uuid.UUID``
values are accepted too.

Without the real ids, :func:`resolve_topic_ids` derives stand-in ids from the topic names
(a UUID version 5 of the name): deterministic, but not what the broker drew at topic
creation, so Java's hash orders then differ from the broker's.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from planner.assignors._java_hashing import int_hash

_MASK32 = 0xFFFFFFFF
_MASK64 = (1 << 64) - 1
_STAND_IN_NAMESPACE = uuid.UUID("5f0c3b6e-8f44-4c1b-9a55-3c2a0b8e7d21")

TopicIds = Mapping[str, "str | uuid.UUID"]
"""Topic name -> its id, as Kafka prints it (base64) or as a ``uuid.UUID``."""


@dataclass(frozen=True)
class TopicId:
    """One Kafka ``Uuid``: the two signed 64-bit halves Java compares and hashes.

    Attributes:
        most: ``mostSignificantBits`` (signed).
        least: ``leastSignificantBits`` (signed).
    """

    most: int
    least: int

    @classmethod
    def from_bytes(cls, raw: bytes) -> TopicId:
        """The id of 16 big-endian bytes."""
        if len(raw) != 16:
            raise ValueError(f"a topic id has 16 bytes, got {len(raw)}")
        return cls(
            _signed64(int.from_bytes(raw[:8], "big")), _signed64(int.from_bytes(raw[8:], "big"))
        )

    @classmethod
    def parse(cls, value: str | uuid.UUID) -> TopicId:
        """Parse Kafka's base64 form, the 36-character UUID form, or a ``uuid.UUID``.

        Raises:
            ValueError: Not a topic id.
        """
        if isinstance(value, uuid.UUID):
            return cls.from_bytes(value.bytes)
        if not isinstance(value, str):
            raise TypeError(f"a topic id must be a str or uuid.UUID, got {value!r}")
        if len(value) == 22:
            try:
                return cls.from_bytes(base64.urlsafe_b64decode(value + "=="))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"not a Kafka topic id: {value!r}") from exc
        try:
            return cls.from_bytes(uuid.UUID(value).bytes)
        except ValueError as exc:
            raise ValueError(f"not a Kafka topic id: {value!r}") from exc

    def java_hash(self) -> int:
        """``Uuid.hashCode()``: the two int halves of ``most ^ least``, xor-ed; unsigned."""
        h = (self.most ^ self.least) & _MASK64
        return ((h >> 32) ^ h) & _MASK32

    def sort_key(self) -> tuple[int, int]:
        """``Uuid.compareTo``: signed ``most``, then signed ``least``."""
        return (self.most, self.least)

    def __str__(self) -> str:
        raw = (self.most & _MASK64).to_bytes(8, "big") + (self.least & _MASK64).to_bytes(8, "big")
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


@lru_cache(maxsize=4096)  # planning grids ask for the same topics over and over
def stand_in_id(topic: str) -> TopicId:
    """A deterministic id for a topic whose real id is not known."""
    return TopicId.from_bytes(uuid.uuid5(_STAND_IN_NAMESPACE, topic).bytes)


@lru_cache(maxsize=4096)  # a planning grid passes the same ids for every group size
def _parsed(value: str | uuid.UUID) -> TopicId:
    return TopicId.parse(value)


def resolve_topic_ids(topics: Iterable[str], topic_ids: TopicIds | None) -> dict[str, TopicId]:
    """Each topic's id: the given one, else a stand-in.

    Raises:
        ValueError: A malformed id, or two topics given the same id.
    """
    given = topic_ids or {}
    out = {t: _parsed(given[t]) if t in given else stand_in_id(t) for t in topics}
    if len(set(out.values())) != len(out):
        raise ValueError("two topics have the same topic id")
    return out


def topic_partition_hash(topic_hash: int, partition: int) -> int:
    """``TopicIdPartition.hashCode()`` (a Java record of a ``Uuid`` and an ``int``):
    ``31 * topicId.hashCode() + partition`` on OpenJDK, unsigned."""
    return (31 * topic_hash + int_hash(partition)) & _MASK32
