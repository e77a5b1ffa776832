"""Topics on the reference Kafka for the live tests, created under fresh names."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping

# The live groups' topics (short name -> partition count): small and uneven, so range's
# per-topic cut, roundrobin's circle and sticky's balancing all show.
GROUP_PARTITIONS = {"t1": 5, "t2": 7, "t3": 3}


def create_topics(bootstrap: str, counts: Mapping[str, int], *, prefix: str) -> dict[str, str]:
    """Create one topic per short name under a fresh name; short name -> real name.

    Returns once every topic is in the metadata with all its partitions, so a client that
    starts next sees them whole.
    """
    from confluent_kafka.admin import AdminClient, NewTopic

    suffix = uuid.uuid4().hex[:6]
    names = {short: f"{prefix}{short}-{suffix}" for short in counts}
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(names[s], num_partitions=n, replication_factor=1) for s, n in counts.items()]
    )
    for future in futures.values():
        future.result(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        listed = admin.list_topics(timeout=10).topics
        if all(
            names[s] in listed and len(listed[names[s]].partitions) == n for s, n in counts.items()
        ):
            return names
        time.sleep(0.2)
    raise AssertionError(f"topics {names} not complete in the metadata after 30 s")
