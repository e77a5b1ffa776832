"""Airflow connections over the planner config: servers and secrets from the deployment.

A deployment keeps its servers and secrets in Airflow connections (see
`planner.deployment`); the config file keeps everything else. `apply_connections`
lays the connections that exist over a loaded config. It takes plain `ConnectionInfo`
values, so it runs (and is tested) without Airflow; the DAG tasks read the connections
and pass them in.

Secrets stay out of the config object's files and out of the command lines: the store
URL (with its password) lives only in the process that publishes, and a Prometheus
token or librdkafka settings are handed to the sources in memory.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from planner.config import ConfigError, PlannerConfig
from planner.deployment import KAFKA_CONN_ID, PROMETHEUS_CONN_ID, SPARK_CONN_ID, STORE_CONN_ID

__all__ = ["ConnectionInfo", "apply_connections", "spark_master", "store_url"]


@dataclass(frozen=True)
class ConnectionInfo:
    """The parts of an Airflow connection the planner reads.

    Attributes:
        conn_id: The connection id.
        conn_type: Airflow's connection type (`spark`, `postgres`, `sqlite`, ...).
        host: Host name, a Spark master URL, or a SQLite file path.
        port: Port, if any.
        login: User name.
        password: Password or token.
        schema: Database name (Airflow calls it schema).
        extra: The connection's extra JSON, parsed.
    """

    conn_id: str
    conn_type: str
    host: str | None = None
    port: int | None = None
    login: str | None = None
    password: str | None = field(default=None, repr=False)
    schema: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


def spark_master(conn: ConnectionInfo) -> str:
    """The Spark master URL a `spark` connection names (as SparkSubmitHook reads it).

    `local[2]`, `yarn` and `k8s://...` are hosts without a port; `spark://host` takes
    the port when one is given.
    """
    host = (conn.host or "").strip()
    if not host:
        raise ConfigError(f"connection {conn.conn_id}: no host (the Spark master URL)")
    if conn.port and "://" in host and not host.startswith("k8s://"):
        return f"{host}:{conn.port}"
    return host


def store_url(conn: ConnectionInfo) -> str:
    """The SQLAlchemy URL of a `postgres` or `sqlite` connection.

    PostgreSQL goes through psycopg 3 (the driver the project pins); the password is
    URL-quoted, so any character works.
    """
    kind = conn.conn_type.lower()
    if kind in ("postgres", "postgresql"):
        if not conn.host:
            raise ConfigError(f"connection {conn.conn_id}: no host for the store")
        user = quote(conn.login or "", safe="")
        secret = f":{quote(conn.password, safe='')}" if conn.password else ""
        auth = f"{user}{secret}@" if user else ""
        port = f":{conn.port}" if conn.port else ""
        return f"postgresql+psycopg://{auth}{conn.host}{port}/{conn.schema or ''}"
    if kind == "sqlite":
        if not conn.host:
            raise ConfigError(f"connection {conn.conn_id}: no file path for the SQLite store")
        return f"sqlite:///{conn.host}"
    raise ConfigError(
        f"connection {conn.conn_id}: the store needs a postgres or sqlite connection, "
        f"got {conn.conn_type!r}"
    )


def _kafka(settings: Mapping[str, Any], conn: ConnectionInfo) -> dict[str, Any]:
    if not conn.host:
        raise ConfigError(f"connection {conn.conn_id}: no host (the Kafka bootstrap servers)")
    out = dict(settings)
    out["bootstrap"] = f"{conn.host}:{conn.port}" if conn.port else conn.host
    return out


def _prometheus(settings: Mapping[str, Any], conn: ConnectionInfo) -> dict[str, Any]:
    if not conn.host:
        raise ConfigError(f"connection {conn.conn_id}: no host (the Prometheus server)")
    scheme = conn.schema or "http"
    host = conn.host if "://" in conn.host else f"{scheme}://{conn.host}"
    out = dict(settings)
    out["url"] = f"{host}:{conn.port}" if conn.port else host
    return out


def apply_connections(
    config: PlannerConfig, connections: Mapping[str, ConnectionInfo]
) -> PlannerConfig:
    """`config` with the settings the given connections override.

    Args:
        config: The loaded planner config.
        connections: Connections by id; ids that are not the planner's are ignored, and
            a missing one leaves the config's setting as it is.

    Raises:
        ConfigError: a connection that cannot say what it should (no host, wrong type).
    """
    changes: dict[str, Any] = {}
    if (spark := connections.get(SPARK_CONN_ID)) is not None:
        changes["spark_master"] = spark_master(spark)
    if (store := connections.get(STORE_CONN_ID)) is not None:
        changes["store_url"] = store_url(store)
    sources = {name: dict(value) for name, value in config.source_settings.items()}
    secrets = dict(config.secrets)
    if (kafka := connections.get(KAFKA_CONN_ID)) is not None:
        sources["kafka"] = _kafka(sources.get("kafka", {}), kafka)
        if kafka.extra:
            # librdkafka settings (SASL, TLS): in memory only, never written out.
            secrets["kafka_config"] = {str(k): v for k, v in kafka.extra.items()}
    if (prometheus := connections.get(PROMETHEUS_CONN_ID)) is not None:
        sources["prometheus"] = _prometheus(sources.get("prometheus", {}), prometheus)
        if prometheus.password:
            secrets["prometheus_bearer_token"] = prometheus.password
    if sources != config.source_settings:
        changes["source_settings"] = sources
    if secrets != config.secrets:
        changes["secrets"] = secrets
    return dataclasses.replace(config, **changes) if changes else config
