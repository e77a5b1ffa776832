"""`partition-planner observe` on a real Apache Kafka 4.4.0, and the interval collected twice.

One scenario, on a broker of its own (it is restarted): keyed and keyless producers at
known rates, a lull, a consumer restart (its catch-up), a topic created inside the
interval, a group that leaves before collection, a broker restart and the observer
killed with SIGKILL and started again. The interval is collected while the traffic still
runs, and again after it stopped and the groups left: the figures are the same, records
per window match what the producers had acknowledged, the keyed topic stays keyed, and
its key sample's hashes are the partitioners' hashes of keys that were produced.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import confluent_kafka
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from planner.adapters.kraft import KRaftCluster
from planner.collect.observations import ObservationsSource
from planner.collect.run import collect_interval
from planner.figures import DataInterval
from planner.figures.dataset import read_table
from planner.observe.settings import ObserveSettings
from planner.partitioners import hash_to_hashed
from tests.support import kafka as reference_kafka
from tests.support.observer import observer_config, sleep_until, start_observer

pytestmark = pytest.mark.kafka

# Samples every 3 s, windows of 30 s: a window's end is known when the samples around
# it are at most 9 s apart, which a machine busy with other tests still keeps.
EVERY_S = 3.0
STEP_S = 30.0
WINDOWS = 5
KEYS = [b"hot", *(f"user-{i}".encode() for i in range(60))]


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KRaftCluster]:
    """A broker of this module's own: the scenario restarts it."""
    with reference_kafka.single_node(tmp_path_factory.mktemp("kafka-observed")) as cluster:
        yield cluster


class Producer:
    """Produces `rate` records/s from a thread, each acknowledgement's wall time kept;
    `pause` stops the schedule (no catch-up burst afterwards)."""

    def __init__(self, bootstrap: str, topic: str, rate: float, *, keyed: bool) -> None:
        self.bootstrap, self.topic, self.rate, self.keyed = bootstrap, topic, rate, keyed
        self.acked: list[float] = []
        self.errors: list[object] = []
        self.paused = threading.Event()
        self.stopped = threading.Event()
        self.rng = np.random.default_rng(abs(hash(topic)) % 2**32)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _key(self) -> bytes | None:
        if not self.keyed:
            return None
        # The hot key carries a third of the records.
        return KEYS[0] if self.rng.random() < 1 / 3 else KEYS[1 + int(self.rng.integers(60))]

    def _run(self) -> None:
        producer = confluent_kafka.Producer(
            {"bootstrap.servers": self.bootstrap, "linger.ms": 20, "log_level": 0}
        )

        def report(err: object, _msg: object) -> None:
            if err is not None:
                self.errors.append(err)
            else:
                self.acked.append(time.time())

        sent, start = 0, time.monotonic()
        while not self.stopped.is_set():
            if self.paused.is_set():
                time.sleep(0.05)
                sent, start = 0, time.monotonic()
                continue
            wait = start + sent / self.rate - time.monotonic()
            if wait > 0:
                time.sleep(min(wait, 0.05))
                continue
            producer.produce(self.topic, value=b"v" * 90, key=self._key(), on_delivery=report)
            sent += 1
            producer.poll(0)
        producer.flush(30)

    def acked_between(self, start: float, end: float) -> int:
        times = np.asarray(self.acked)
        return int(np.count_nonzero((times >= start) & (times < end)))

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(60)


class Reader:
    """One member of a classic group reading `topic`, committing every second."""

    def __init__(self, bootstrap: str, group: str, topic: str) -> None:
        self.consumer = confluent_kafka.Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "auto.offset.reset": "earliest",
                "auto.commit.interval.ms": 1000,
                "session.timeout.ms": 10000,
                "log_level": 0,
            }
        )
        self.consumer.subscribe([topic])
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.is_set():
            self.consumer.poll(0.2)
        self.consumer.close()  # leaves the group

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(30)


def _tables(figures: Path, interval: DataInterval) -> dict[str, pa.Table]:
    out = {}
    for name in ("throughput", "topics", "groups", "keys", "cluster"):
        table = read_table(figures, interval, name)
        assert table is not None, name
        out[name] = table
    return out


def test_an_observed_interval_is_the_same_during_the_traffic_and_after_it(
    broker: KRaftCluster, tmp_path: Path
) -> None:
    bootstrap = broker.bootstrap
    obs = tmp_path / "observations"
    config = observer_config(
        tmp_path / "planner.toml",
        bootstrap=bootstrap,
        observations=obs,
        every_s=EVERY_S,
        step_s=STEP_S,
    )
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for future in admin.create_topics(
        [NewTopic("orders", 6, 1), NewTopic("events", 3, 1)]
    ).values():
        future.result(30)
    log = tmp_path / "observer.log"
    observers = [start_observer(config, log)]
    try:
        _scenario(broker, admin, obs, tmp_path, log, config, observers)
    finally:
        for observer in observers:  # none outlives the test, whatever failed
            if observer.poll() is None:
                observer.kill()
                observer.wait(10)


def _scenario(
    broker: KRaftCluster,
    admin: AdminClient,
    obs: Path,
    tmp_path: Path,
    log: Path,
    config: Path,
    observers: list[subprocess.Popen[bytes]],
) -> None:
    bootstrap = broker.bootstrap
    orders = Producer(bootstrap, "orders", 200.0, keyed=True)
    events = Producer(bootstrap, "events", 100.0, keyed=False)
    readers = {g: Reader(bootstrap, g, "orders") for g in ("billing", "audit")}
    late: Producer | None = None
    try:
        # The interval starts at the next whole minute at least 12 s from now.
        t0 = (int(time.time() + 12) // 60 + 1) * 60.0
        interval = DataInterval(
            datetime.fromtimestamp(t0, UTC),
            datetime.fromtimestamp(t0 + WINDOWS * STEP_S, UTC),
        )
        sleep_until(t0 + 33)
        orders.paused.set()  # a lull, 33 s to 45 s
        sleep_until(t0 + 36)
        readers.pop("billing").stop()  # a consumer restart: back at 48 s, catching up
        sleep_until(t0 + 45)
        orders.paused.clear()
        sleep_until(t0 + 48)
        readers["billing"] = Reader(bootstrap, "billing", "orders")
        sleep_until(t0 + 52)
        admin.create_topics([NewTopic("late", 2, 1)])["late"].result(30)
        late = Producer(bootstrap, "late", 50.0, keyed=False)
        sleep_until(t0 + 63)
        readers.pop("audit").stop()  # leaves for good
        sleep_until(t0 + 64)
        broker.stop_node(1)  # a broker restart, inside the 60 s to 90 s window
        broker.start_node(1)
        sleep_until(t0 + 102)
        observers[0].send_signal(signal.SIGKILL)  # and the observer, in whatever it was doing
        observers[0].wait(10)
        observers.append(start_observer(config, log))
        # Collected during the traffic, once the samples around the end are in.
        sleep_until(t0 + WINDOWS * STEP_S + 15)
        settings = ObserveSettings(observe_every_s=EVERY_S, step_s=STEP_S)
        source = ObservationsSource(obs, settings)
        collect_interval([source], interval, tmp_path / "during")
    finally:
        for producer in (orders, events, late):
            if producer is not None:
                producer.stop()
        for reader in readers.values():
            reader.stop()
    # After the traffic stopped and every group left, collected again.
    time.sleep(8)
    collect_interval([source], interval, tmp_path / "after")
    observers[-1].send_signal(signal.SIGTERM)
    assert observers[-1].wait(30) == 0, log.read_text()[-2000:]
    assert not orders.errors and not events.errors, (orders.errors, events.errors)

    during, after = _tables(tmp_path / "during", interval), _tables(tmp_path / "after", interval)
    for name, table in during.items():
        assert after[name].equals(table), name

    # Records per window: what the producers had acknowledged in it (the window's ends
    # interpolated between samples two seconds apart).
    throughput = during["throughput"]
    for producer in (orders, events):
        rows = throughput.filter(pc.equal(throughput.column("topic"), producer.topic))
        assert rows.num_rows == WINDOWS, log.read_text()[-3000:]
        observed = rows.column("records_in_per_s").to_numpy() * STEP_S
        acked = np.array(
            [producer.acked_between(t0 + i * STEP_S, t0 + (i + 1) * STEP_S) for i in range(WINDOWS)]
        )
        assert observed.sum() == pytest.approx(acked.sum(), rel=0.01)
        # Away from the lull, the restarts and the windows' ends, each window too.
        assert observed[0] == pytest.approx(acked[0], rel=0.01)
        assert observed[4] == pytest.approx(acked[4], rel=0.01)
    # The topic created in the interval: nothing before it, its traffic after.
    late_rows = throughput.filter(pc.equal(throughput.column("topic"), "late")).sort_by("ts")
    late_records = late_rows.column("records_in_per_s").to_numpy() * STEP_S
    assert late_records[0] == 0.0
    assert late_records.sum() == pytest.approx(
        late.acked_between(t0, t0 + WINDOWS * STEP_S) if late else 0, rel=0.01
    )
    # A group's catch-up is not demand: no group reads more than the topic produced.
    orders_rows = throughput.filter(pc.equal(throughput.column("topic"), "orders"))
    busiest = orders_rows.column("busiest_group_bytes_out_per_s").to_numpy(zero_copy_only=False)
    bytes_in = orders_rows.column("bytes_in_per_s").to_numpy()
    # Unknown (null) where no group's committed offsets were read at both ends: around the
    # broker restart the coordinator answers late.
    known = ~np.isnan(busiest)
    assert known.sum() >= 2
    assert np.all(busiest[known] <= bytes_in[known] * (1 + 1e-9))

    topics = {r["topic"]: r for r in during["topics"].to_pylist()}
    assert set(topics) == {"orders", "events", "late"}
    assert topics["orders"]["keyed"] is True and topics["events"]["keyed"] is False
    assert topics["orders"]["observed_share"] == 1.0
    groups = {(r["group_id"], r["topic"]) for r in during["groups"].to_pylist()}
    assert groups == {("billing", "orders"), ("audit", "orders")}  # audit left at 63 s

    # The key sample: hashes only, each of a key that was produced; the hot one on top.
    keys = during["keys"].filter(pc.equal(during["keys"].column("topic"), "orders"))
    assert keys.num_rows > 10 and keys.column("key").null_count == keys.num_rows
    produced = hash_to_hashed(KEYS)
    known = {
        (m, c, f): key
        for m, c, f, key in zip(
            produced.field("murmur2").to_pylist(),
            produced.field("crc32").to_pylist(),
            produced.field("fnv1a").to_pylist(),
            KEYS,
            strict=True,
        )
    }
    sample = keys.to_pylist()
    assert all((r["hash_murmur2"], r["hash_crc32"], r["hash_fnv1a"]) in known for r in sample)
    hottest = max(sample, key=lambda r: r["count"])
    assert known[(hottest["hash_murmur2"], hottest["hash_crc32"], hottest["hash_fnv1a"])] == b"hot"
    share = hottest["count"] / sum(r["count"] for r in sample)
    assert share == pytest.approx(1 / 3, abs=0.08)
    assert log.read_text().count("observing ") == 2  # killed and started again
