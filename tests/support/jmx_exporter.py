"""Apache Kafka brokers exporting their JMX metrics to a real Prometheus, the usual way.

Every node of a KRaft cluster runs the Prometheus JMX exporter as a Java agent (the
`jmx_prometheus_javaagent` jar `make test` installs beside Kafka's jars, from Maven
Central) with the rules of `deploy/jmx-exporter/kafka-broker.yml`, and a Prometheus
(the Debian package, 2.42) scrapes each agent every `scrape_s` seconds, as a production
Prometheus scrapes its brokers every 15-60 s.

The agents get the repository's rules with one addition: `includeObjectNames` limited to
the broker topic meters (`kafka.server:type=BrokerTopicMetrics,*`). It decides which
MBeans the agent reads, not how it names them: the rules, the only thing that makes
names, are the repository's. A full scrape of one broker is about 5,700 series (94 % of
them the request metrics, mostly time percentiles) and took 3-5 s on this 2-core machine
under load; the topic meters alone took a median 0.23 s and at most about 1 s with the
machine's load average above 30, so a one-second scrape interval mostly holds (a missed
scrape only widens the tests' bounds).
"""

from __future__ import annotations

import contextlib
import json
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from planner.adapters.kraft import KRaftCluster, free_port
from tests.support.kafka import (
    CLUSTER_NODE_HEAP_MB,
    RACKS,
    TEST_JVM_OPTIONS,
    TEST_PROPERTIES,
    distribution,
)
from tests.support.prometheus import launched

__all__ = [
    "AGENT",
    "RULES",
    "TOPIC_METERS",
    "ExportedKafka",
    "exported_kafka",
    "exporter_config",
    "instant",
    "raw_samples",
]

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "jmx-exporter" / "kafka-broker.yml"
"""The exporter rules the compose deployment's broker would load."""
AGENT = "jmx_prometheus_javaagent"
"""The agent's Maven artifact, installed as `var/kafka/<version>/agents/<artifact>-<v>.jar`."""
TOPIC_METERS = "kafka.server:type=BrokerTopicMetrics,*"


def exporter_config(folder: Path) -> Path:
    """The repository's rules plus `includeObjectNames` for the topic meters, in `folder`."""
    config: dict[str, Any] = yaml.safe_load(RULES.read_text())
    config["includeObjectNames"] = [TOPIC_METERS]
    path = folder / "jmx-exporter.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def instant(url: str, query: str, at_s: float | None = None) -> list[dict[str, Any]]:
    """The result of an instant query (`/api/v1/query`), at `at_s` or now."""
    form = {"query": query, **({"time": f"{at_s:.3f}"} if at_s is not None else {})}
    body = urllib.parse.urlencode(form).encode()
    with urllib.request.urlopen(f"{url}/api/v1/query", data=body, timeout=30) as response:
        payload = json.load(response)
    if payload.get("status") != "success":
        raise RuntimeError(f"query {query!r} failed: {payload}")
    result: list[dict[str, Any]] = payload["data"]["result"]
    return result


def raw_samples(
    url: str, selector: str, *, start_s: float, end_s: float
) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """The samples Prometheus stored for `selector` in [start_s, end_s], as scraped.

    Returns:
        Per (instance, topic) label pair (topic "" when absent), (seconds, value) pairs
        in time order.
    """
    window = f"{round((end_s - start_s) * 1000)}ms"
    out: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for series in instant(url, f"{selector}[{window}]", end_s):
        labels = series["metric"]
        key = (labels["instance"], labels.get("topic", ""))
        out[key] = [(float(t), float(v)) for t, v in series["values"]]
    return out


@dataclass(frozen=True)
class ExportedKafka:
    """A running cluster, its exporters and the Prometheus that scrapes them.

    Attributes:
        cluster: The Kafka nodes (combined broker-controllers, racks a, b, c).
        instances: The `instance` label of each node's series -> its node id.
        prometheus_url: The scraping Prometheus's base URL.
        scrape_s: Seconds between scrapes of each agent.
        folder: Where the nodes, the exporter config and Prometheus keep their files.
        start_s: Seconds from launching the nodes to every agent scraped as up.
    """

    cluster: KRaftCluster
    instances: dict[str, int]
    prometheus_url: str
    scrape_s: int
    folder: Path
    start_s: float

    def log_tail(self, lines: int = 40) -> str:
        """The nodes' and Prometheus's last log lines, for a failing test's report."""
        prometheus_log = self.folder / "prometheus.log"
        try:
            tail = prometheus_log.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            tail = []
        return self.cluster.log_tail(lines) + f"\n--- {prometheus_log} ---\n" + "\n".join(tail)


def _prometheus_config(targets: list[str], scrape_s: int) -> str:
    listed = ", ".join(f'"{t}"' for t in targets)
    return (
        "global:\n"
        f"  scrape_interval: {scrape_s}s\n"
        f"  scrape_timeout: {scrape_s}s\n"
        "scrape_configs:\n"
        "  - job_name: kafka-brokers\n"
        "    static_configs:\n"
        f"      - targets: [{listed}]\n"
    )


def _wait_all_up(url: str, targets: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    up: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        up = instant(url, 'up{job="kafka-brokers"} == 1')
        if len(up) == targets:
            return
        time.sleep(0.2)
    raise RuntimeError(f"{len(up)} of {targets} exporters scraped as up after {timeout_s:.0f} s")


@contextlib.contextmanager
def exported_kafka(
    folder: Path, *, scrape_s: int = 1, timeout_s: float = 120.0
) -> Iterator[ExportedKafka]:
    """Three Kafka nodes with the JMX exporter agent, scraped by a real Prometheus.

    Args:
        folder: An empty folder for the nodes, the exporter config and Prometheus.
        scrape_s: Seconds between scrapes (whole seconds, at least 1).
        timeout_s: Seconds to wait for the cluster and for every agent to be scraped.

    Raises:
        RuntimeError: The exporter agent is not installed, or an agent never came up.
    """
    kafka = distribution()
    agent = kafka.agent(AGENT)
    if agent is None:
        raise RuntimeError(
            f"the JMX exporter agent is not installed in {kafka.home / 'agents'}: run "
            "`make test` (scripts/setup.sh installs it from Maven Central)"
        )
    config = exporter_config(folder)
    ports = {node: free_port() for node in range(1, len(RACKS) + 1)}
    began = time.monotonic()
    cluster = KRaftCluster(
        kafka,
        folder,
        nodes=len(RACKS),
        racks=RACKS,
        heap_mb=CLUSTER_NODE_HEAP_MB,
        base_jvm_options=TEST_JVM_OPTIONS,
        properties=TEST_PROPERTIES,
        # host:port:config binds the agent's HTTP server to loopback only.
        jvm_options={
            node: [f"-javaagent:{agent}=127.0.0.1:{port}:{config}"] for node, port in ports.items()
        },
    )
    targets = [f"127.0.0.1:{port}" for port in ports.values()]
    prometheus_config = folder / "prometheus.yml"
    prometheus_config.write_text(_prometheus_config(targets, scrape_s))
    data_dir = folder / "prometheus-data"
    data_dir.mkdir()
    try:
        cluster.start(timeout_s=timeout_s)
        with launched(prometheus_config, data_dir, folder / "prometheus.log") as (url, _):
            _wait_all_up(url, len(targets), timeout_s)
            yield ExportedKafka(
                cluster=cluster,
                instances={f"127.0.0.1:{port}": node for node, port in ports.items()},
                prometheus_url=url,
                scrape_s=scrape_s,
                folder=folder,
                start_s=time.monotonic() - began,
            )
    finally:
        cluster.stop()
