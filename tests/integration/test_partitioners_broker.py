"""planner.partitioners against a real client: librdkafka places records, we predict them.

A confluent-kafka (librdkafka 2.16) producer configured with each of the six
partitioners sends random binary keys, UTF-8 string keys, an empty key and null keys to
topics of 7, 12 and 100 partitions on a real Kafka-protocol broker (tansu); the
partition each delivery report names must be the one `partitions_for_keys` predicts.
"""

from __future__ import annotations

import uuid
from collections import defaultdict

import numpy as np
import pyarrow as pa
import pytest

from planner.partitioners import (
    KEYLESS_BEHAVIOUR,
    PARTITIONERS,
    SPREAD,
    keyless_partition,
    partitions_for_keys,
)
from tests.support.broker import Broker

pytestmark = pytest.mark.integration

PARTITION_COUNTS = (7, 12, 100)
KEYLESS_RECORDS = 40  # per kind, topic and partitioner: enough to see any spreading


@pytest.fixture(scope="module")
def topics(kafka_broker: Broker) -> dict[int, str]:
    """One fresh topic per partition count, named uniquely for this run."""
    from confluent_kafka.admin import AdminClient, NewTopic

    names = {count: f"partitioners-{count}-{uuid.uuid4().hex[:8]}" for count in PARTITION_COUNTS}
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap})
    futures = admin.create_topics(
        [
            NewTopic(name, num_partitions=count, replication_factor=1)
            for count, name in names.items()
        ]
    )
    for future in futures.values():
        future.result(timeout=15)
    return names


@pytest.fixture(scope="module")
def binary_keys() -> list[bytes]:
    """Random keys of 0-40 bytes (every tail length), with the empty key among them."""
    rng = np.random.default_rng(20261101)
    return [b""] + [rng.bytes(int(n)) for n in rng.integers(0, 41, 800)]


@pytest.fixture(scope="module")
def text_keys() -> list[str]:
    rng = np.random.default_rng(7)
    alphabet = [*"abcdefxyz0123456789-_:", "é", "ß", "€", "日本", "🙂"]
    return [f"user-{i}" for i in range(100)] + [
        "".join(rng.choice(alphabet, size=int(n))) for n in rng.integers(1, 30, 200)
    ]


def _produce(
    broker: Broker, partitioner: str, topic: str, keys: list[bytes | str | None]
) -> list[int]:
    """Produce one record per key; the partition each one was delivered to, in key order."""
    from confluent_kafka import Producer

    producer = Producer(
        {
            "bootstrap.servers": broker.bootstrap,
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
    remaining = producer.flush(15)
    assert remaining == 0 and not errors, (remaining, errors[:3], broker.log_tail())
    return [landed[i] for i in range(len(keys))]


@pytest.mark.parametrize("partitioner", PARTITIONERS)
def test_partitions_for_keys_predicts_librdkafka(
    kafka_broker: Broker,
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
        landed = np.array(_produce(kafka_broker, partitioner, topic, keys))
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


def test_librdkafka_default_splits_keys_from_java_placement(
    kafka_broker: Broker, topics: dict[int, str], text_keys: list[str]
) -> None:
    # The fact behind the docs: a topic fed by a Java producer (murmur2) and a
    # librdkafka producer left at its default (consistent_random) splits most keys.
    topic = topics[12]
    by_client: dict[str, list[int]] = defaultdict(list)
    for partitioner in ("murmur2_random", "consistent_random"):
        by_client[partitioner] = _produce(kafka_broker, partitioner, topic, list(text_keys))
    same = sum(a == b for a, b in zip(*by_client.values(), strict=True))
    assert same < len(text_keys) / 4  # about 1/12 agree by chance
    java = partitions_for_keys(pa.array(text_keys, pa.string()), 12, "murmur2_random")
    assert by_client["murmur2_random"] == java.tolist()
