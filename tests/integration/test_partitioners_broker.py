"""planner.partitioners against real producers on Apache Kafka 4.4.0: they place, we predict.

Two clients send to topics of 7, 12 and 100 partitions on the reference Kafka:

- Kafka's Java producer (``kafka-clients`` 4.4.0, ``KeyedProducer.java``, default
  partitioning): random binary keys (``ByteArraySerializer``), UTF-8 string keys
  (``StringSerializer``), the empty key, and keyless records. Each keyed send's
  ``RecordMetadata.partition()`` must be ``partition_for_key(key, n, "murmur2_random")``;
  keyless records must be spread, stickily, as ``keyless_partition`` (None: spread) says.
- a confluent-kafka (librdkafka 2.16) producer with each of the six partitioners: every
  delivery report's partition must be the one `partitions_for_keys` predicts, and null
  and empty keys must behave as ``KEYLESS_BEHAVIOUR`` says.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pytest

from planner.adapters.kraft import KRaftCluster
from planner.partitioners import (
    KEYLESS_BEHAVIOUR,
    PARTITIONERS,
    SPREAD,
    keyless_partition,
    partition_for_key,
    partitions_for_keys,
)
from tests.integration.java_clients import produce_with_java
from tests.integration.topics import create_topics

pytestmark = pytest.mark.integration

PARTITION_COUNTS = (7, 12, 100)
KEYLESS_RECORDS = 40  # per kind, topic and librdkafka partitioner: enough to see spreading
# Java keyless records: 1 KB each, so each topic sees many of the producer's sticky stints
# (one partition for about one to two batch.size = 16 KiB, then another).
JAVA_KEYLESS_RECORDS = 600
JAVA_VALUE_BYTES = 1000
BATCH_SIZE_BYTES = 16384  # the Java producer's default batch.size


@pytest.fixture(scope="module")
def topics(kafka: KRaftCluster) -> dict[int, str]:
    """One fresh topic per partition count: count -> name."""
    names = create_topics(
        kafka.bootstrap, {f"p{n}": n for n in PARTITION_COUNTS}, prefix="partitioners-"
    )
    return {n: names[f"p{n}"] for n in PARTITION_COUNTS}


@pytest.fixture(scope="module")
def binary_keys() -> list[bytes]:
    """Random keys of 0-40 bytes (every tail length), with the empty key among them."""
    rng = np.random.default_rng(20261101)
    return [b""] + [rng.bytes(int(n)) for n in rng.integers(0, 41, 800)]


@pytest.fixture(scope="module")
def text_keys() -> list[str]:
    """ASCII ids and random strings with 2-, 3- and 4-byte UTF-8 characters."""
    rng = np.random.default_rng(7)
    alphabet = [*"abcdefxyz0123456789-_:", "é", "ß", "€", "日本", "🙂"]
    return [f"user-{i}" for i in range(100)] + [
        "".join(rng.choice(alphabet, size=int(n))) for n in rng.integers(1, 30, 200)
    ]


# -- the Java producer -----------------------------------------------------------------


@dataclass(frozen=True)
class JavaPlacements:
    """Where one Java producer run put each kind of record, per partition count."""

    keyed: dict[int, list[int]]  # binary keys, then text keys
    keyless: dict[int, list[int]]  # in send order
    empty: dict[int, list[int]]


@pytest.fixture(scope="module")
def java_placements(
    kafka: KRaftCluster,
    topics: dict[int, str],
    binary_keys: list[bytes],
    text_keys: list[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> JavaPlacements:
    """One Java producer (one JVM) sends every record of the Java tests, topic by topic."""
    keys: list[bytes | str] = [*binary_keys, *text_keys]
    records: list[tuple[str, bytes | str | None, int]] = []
    for topic in topics.values():
        records += [(topic, key, 1) for key in keys]
        records += [(topic, None, JAVA_VALUE_BYTES)] * JAVA_KEYLESS_RECORDS
        records += [(topic, b"", 1)] * KEYLESS_RECORDS
    log = tmp_path_factory.mktemp("java-producer") / "producer.log"
    landed = iter(produce_with_java(kafka, records, log=log))
    placements = JavaPlacements({}, {}, {})
    for count in topics:
        placements.keyed[count] = [next(landed) for _ in keys]
        placements.keyless[count] = [next(landed) for _ in range(JAVA_KEYLESS_RECORDS)]
        placements.empty[count] = [next(landed) for _ in range(KEYLESS_RECORDS)]
    return placements


def test_java_producer_places_every_key_where_partition_for_key_says(
    java_placements: JavaPlacements, binary_keys: list[bytes], text_keys: list[str]
) -> None:
    keys: list[bytes | str] = [*binary_keys, *text_keys]
    for count, landed in java_placements.keyed.items():
        expected = [
            partition_for_key(k.encode("utf-8") if isinstance(k, str) else k, count) for k in keys
        ]
        wrong = [
            (k, got, want)
            for k, got, want in zip(keys, landed, expected, strict=True)
            if got != want
        ]
        assert not wrong, f"{count} partitions: {len(wrong)} keys elsewhere, first {wrong[:3]}"
        # The same, vectorised over an Arrow string array (a Spark UDF's input).
        arrow = partitions_for_keys(pa.array(text_keys, pa.string()), count, "murmur2_random")
        assert landed[len(binary_keys) :] == arrow.tolist()


def test_java_producer_spreads_keyless_records_in_sticky_stints(
    java_placements: JavaPlacements,
) -> None:
    """Kafka 4.4's producer: a null key is spread, an empty key is a key.

    Keyless records stay on one partition for a stint of about one to two ``batch.size``
    of bytes, then move to another chosen at random (KIP-794: uniform sticky, weighted by
    queue length). Our model says so: ``keyless_partition`` is None (no fixed partition)
    for ``murmur2_random``, whose ``KEYLESS_BEHAVIOUR`` spreads null keys and hashes the
    empty key.
    """
    behaviour = KEYLESS_BEHAVIOUR["murmur2_random"]
    assert behaviour.null_key_spread and not behaviour.empty_key_spread
    min_records = BATCH_SIZE_BYTES // 2 // JAVA_VALUE_BYTES
    for count, keyless in java_placements.keyless.items():
        assert keyless_partition(count, "murmur2_random") is None
        empty = java_placements.empty[count]
        assert set(empty) == {partition_for_key(b"", count)}, (count, set(empty))
        stints = _run_lengths(keyless)
        # Spread: many stints, on several partitions (about 18 stints of 32 records here).
        assert len(set(keyless)) >= 4, (count, stints)
        # Sticky, not per record: every stint but the last holds at least half a batch.
        assert min(stints[:-1]) >= min_records, (count, stints)
        assert len(stints) <= JAVA_KEYLESS_RECORDS // min_records, (count, stints)


def _run_lengths(partitions: list[int]) -> list[int]:
    """Lengths of the runs of consecutive records on the same partition."""
    runs = [1]
    for before, after in itertools.pairwise(partitions):
        if after == before:
            runs[-1] += 1
        else:
            runs.append(1)
    return runs


# -- librdkafka --------------------------------------------------------------------------


def _produce(
    bootstrap: str, partitioner: str, topic: str, keys: list[bytes | str | None]
) -> list[int]:
    """Produce one record per key; the partition each one was delivered to, in key order."""
    from confluent_kafka import Producer

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "partitioner": partitioner,
            # Re-pick for every keyless record, so spreading shows within a few records.
            "sticky.partitioning.linger.ms": 0,
            "linger.ms": 5,
        }
    )
    landed: dict[int, int] = {}
    errors: list[object] = []

    def report(index: int):  # type: ignore[no-untyped-def]
        def on_delivery(err, msg) -> None:  # type: ignore[no-untyped-def]
            if err is not None:
                errors.append(err)
            else:
                landed[index] = msg.partition()

        return on_delivery

    for index, key in enumerate(keys):
        producer.produce(topic, value=b"v", key=key, on_delivery=report(index))
        if index % 500 == 0:
            producer.poll(0)
    remaining = producer.flush(30)
    assert remaining == 0 and not errors, (remaining, errors[:3])
    return [landed[i] for i in range(len(keys))]


@pytest.mark.parametrize("partitioner", PARTITIONERS)
def test_partitions_for_keys_predicts_librdkafka(
    kafka: KRaftCluster,
    topics: dict[int, str],
    binary_keys: list[bytes],
    text_keys: list[str],
    partitioner: str,
) -> None:
    behaviour = KEYLESS_BEHAVIOUR[partitioner]
    nulls: list[bytes | str | None] = [None] * KEYLESS_RECORDS
    empties: list[bytes | str | None] = [b""] * KEYLESS_RECORDS
    for count, topic in topics.items():
        keys: list[bytes | str | None] = [*binary_keys, *text_keys, *nulls, *empties]
        landed = np.array(_produce(kafka.bootstrap, partitioner, topic, keys))
        n_bin, n_text = len(binary_keys), len(text_keys)
        on_bin = landed[:n_bin]
        on_text = landed[n_bin : n_bin + n_text]
        on_null = landed[n_bin + n_text : n_bin + n_text + KEYLESS_RECORDS]
        on_empty = landed[n_bin + n_text + KEYLESS_RECORDS :]

        # Keyed records: predicted from a list of bytes, and from an Arrow string array
        # (the client sends a str key as its UTF-8 bytes).
        predicted = partitions_for_keys(binary_keys, count, partitioner, keyless="mark")
        determined = predicted != SPREAD
        assert (on_bin[determined] == predicted[determined]).all(), (count, partitioner)
        empty = np.array([key == b"" for key in binary_keys])
        spread_expected = empty if behaviour.empty_key_spread else np.zeros_like(empty)
        assert ((~determined) == spread_expected).all(), (count, partitioner)
        predicted_text = partitions_for_keys(pa.array(text_keys, pa.string()), count, partitioner)
        assert on_text.tolist() == predicted_text.tolist(), (count, partitioner)

        # Keyless records: one fixed partition, or spread, as KEYLESS_BEHAVIOUR says.
        fixed = keyless_partition(count, partitioner)
        if behaviour.null_key_spread:
            assert len(set(on_null.tolist())) > 1, (count, partitioner, on_null)
        else:
            assert set(on_null.tolist()) == {fixed}, (count, partitioner)
        if behaviour.empty_key_spread:
            assert len(set(on_empty.tolist())) > 1, (count, partitioner, on_empty)
        else:
            expected_empty = partitions_for_keys([b""], count, partitioner)[0]
            assert set(on_empty.tolist()) == {expected_empty}, (count, partitioner)


def test_librdkafka_default_splits_keys_from_the_java_producer(
    kafka: KRaftCluster,
    topics: dict[int, str],
    binary_keys: list[bytes],
    text_keys: list[str],
    java_placements: JavaPlacements,
) -> None:
    """The fact behind the docs, with both real clients on one topic.

    A Java producer and a librdkafka producer left at its default (``consistent_random``)
    put most keys in different partitions; librdkafka with ``murmur2_random`` agrees
    with Java on every key.
    """
    topic = topics[12]
    java = java_placements.keyed[12][len(binary_keys) :]
    default = _produce(kafka.bootstrap, "consistent_random", topic, list(text_keys))
    murmur = _produce(kafka.bootstrap, "murmur2_random", topic, list(text_keys))
    same = sum(a == b for a, b in zip(java, default, strict=True))
    assert same < len(text_keys) / 4  # about 1 in 12 agree by chance
    assert murmur == java
