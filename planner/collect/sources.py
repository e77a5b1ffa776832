"""The configured sources, built from the config's `[sources.*]` sections.

Kept out of `planner.config`, which reads settings and builds nothing: a source module
may import what it needs (the observation suites, the Kafka clients) without a cycle
back into the config.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planner.collect.base import Source
from planner.config import ConfigError, PlannerConfig, observe_settings, refuse_unknown_keys
from planner.observe.settings import ObserveSettings

if TYPE_CHECKING:
    from planner.collect.consumer_metrics import ConsumerMetrics
    from planner.collect.kafka_admin import KafkaAdminSource

__all__ = ["build_consumer_metrics", "build_kafka_source", "build_sources"]

_KAFKA_KEYS = {
    "bootstrap",
    "sample_window_s",
    "request_timeout_s",
    "retries",
    "retry_delay_s",
    "max_sample_records",
    "sample_timeout_s",
    "config_env",
    "group_tools",
    "kafka_home",
    "group_tools_command_config",
    *ObserveSettings.config_keys(),
}
_PROMETHEUS_KEYS = {
    "url",
    "step_s",
    "settle_s",
    "queries",
    "timeout_s",
    "query_timeout_s",
    "first_delay_s",
    "attempts",
    "token_env",
    "user_env",
    "password_env",
    "consumer_metrics",
    "consumer_groups",
    "group_queries",
    "group_labels",
    "group_sample_s",
}
_CONSUMER_METRICS_KEYS = {
    "naming",
    "records_consumed_rate",
    "poll_idle_ratio",
    "client_label",
    "min_busy",
}
_GROUP_KEYS = ("group_queries", "group_labels", "group_sample_s")


def _secret(settings: Mapping[str, Any], key: str) -> str | None:
    """The value of the environment variable a setting names (None if unset)."""
    name = settings.get(key)
    return os.environ.get(str(name)) if name else None


def build_sources(config: PlannerConfig, *, landing: str | Path | None = None) -> list[Source]:
    """The configured sources, highest priority first.

    Args:
        config: The configuration.
        landing: A landing folder that replaces the configured one (the CLI's `--landing`).
    """
    from planner.collect.landing import LandingSource

    out: list[Source] = []
    for name in config.sources:
        settings = config.source_settings.get(name, {})
        if name == "landing":
            out.append(LandingSource(landing or config.resolve(settings["path"])))
        elif name == "prometheus":
            from planner.collect.prometheus import PrometheusSource

            args = _prometheus_args(settings)
            if token := config.secrets.get("prometheus_bearer_token"):
                args["bearer_token"] = token
            out.append(PrometheusSource(**args))
        elif name == "kafka":
            observations = observe_settings(config)
            if observations.observations is not None:
                from planner.collect.observations import ObservationsSource

                out.append(
                    ObservationsSource(
                        observations.observations,
                        observations,
                        consumer_metrics=build_consumer_metrics(config),
                    )
                )
            else:
                out.append(build_kafka_source(config))
    return out


def build_kafka_source(config: PlannerConfig) -> KafkaAdminSource:
    """The Kafka admin source of `[sources.kafka]` (the observer samples with it too).

    Raises:
        ConfigError: the section is missing or has a bad value.
    """
    from planner.collect.kafka_admin import KafkaAdminSource

    settings = config.source_settings.get("kafka") or {}
    if "bootstrap" not in settings:
        where = config.path or "the default config"
        raise ConfigError(f"{where}: [sources.kafka] bootstrap is not set")
    args = _kafka_args(settings)
    if extra := config.secrets.get("kafka_config"):
        args["config"] = dict(extra)
    return KafkaAdminSource(**args)


def build_consumer_metrics(config: PlannerConfig) -> ConsumerMetrics | None:
    """The consumers' metrics reader of `[sources.prometheus.consumer_metrics]`, on the
    server (and credentials) of `[sources.prometheus]`; None when the block is absent.

    The observations source reads them whether or not `prometheus` is one of the
    sources used for throughput: a Prometheus that scrapes the consumers need not
    scrape the brokers.

    Raises:
        ConfigError: an unknown key or a bad value, or no `url` for the server.
    """
    settings = config.source_settings.get("prometheus") or {}
    block = settings.get("consumer_metrics")
    if block is None:
        return None
    where = "[sources.prometheus.consumer_metrics]"
    if not isinstance(block, dict):
        raise ConfigError(f"{where} must be a table")
    refuse_unknown_keys(settings, _PROMETHEUS_KEYS, "[sources.prometheus]")
    refuse_unknown_keys(block, _CONSUMER_METRICS_KEYS, where)
    if "url" not in settings:
        raise ConfigError(f"{where} needs the server's url in [sources.prometheus]")
    from planner.collect.consumer_metrics import ConsumerMetrics, ConsumerMetricsSettings
    from planner.collect.prometheus_api import PrometheusClient

    args = _client_args(settings)
    if token := config.secrets.get("prometheus_bearer_token"):
        args["bearer_token"] = token
    try:
        values: dict[str, Any] = {k: str(v) for k, v in block.items() if k != "min_busy"}
        if "min_busy" in block:
            values["min_busy"] = float(block["min_busy"])
        chosen = ConsumerMetricsSettings(**values)
        return ConsumerMetrics(PrometheusClient(**args), chosen)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _prometheus_args(settings: Mapping[str, Any]) -> dict[str, Any]:
    from datetime import timedelta

    refuse_unknown_keys(settings, _PROMETHEUS_KEYS, "[sources.prometheus]")
    args = _client_args(settings)
    if "step_s" in settings:
        args["step"] = timedelta(seconds=float(settings["step_s"]))
    if "settle_s" in settings:
        args["settle"] = timedelta(seconds=float(settings["settle_s"]))
    if "queries" in settings:
        args["queries"] = {str(k): (str(v) or None) for k, v in settings["queries"].items()}
    # The lag exporter's offsets ride on the throughput source (`planner.collect.group_offsets`).
    args.update(_group_args(settings))
    return args


def _client_args(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The server, timeouts, tries and credentials of `[sources.prometheus]`."""
    args: dict[str, Any] = {"url": str(settings["url"])}
    for key in ("timeout_s", "query_timeout_s", "first_delay_s"):
        if key in settings:
            args[key] = float(settings[key])
    if "attempts" in settings:
        args["attempts"] = int(settings["attempts"])
    token = _secret(settings, "token_env")
    if token:
        args["bearer_token"] = token
    user, password = _secret(settings, "user_env"), _secret(settings, "password_env")
    if user and password:
        args["basic_auth"] = (user, password)
    return args


def _group_args(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The lag exporter reading of `[sources.prometheus]` (`consumer_groups = "<preset>"`)."""
    from planner.collect.group_offsets import group_queries

    if "consumer_groups" not in settings:
        given = [k for k in _GROUP_KEYS if k in settings]
        if given:
            raise ConfigError(
                f"[sources.prometheus] {', '.join(given)} without consumer_groups: name the "
                "exporter (kafka_exporter, kminion, kafka-lag-exporter or custom)"
            )
        return {}
    queries, labels = settings.get("group_queries") or {}, settings.get("group_labels") or {}
    for key, table in (("group_queries", queries), ("group_labels", labels)):
        if not isinstance(table, Mapping):
            raise ConfigError(f"[sources.prometheus] {key} must be a table")
    try:
        args: dict[str, Any] = {
            "groups": group_queries(
                str(settings["consumer_groups"]),
                {str(k): (None if v is None else str(v)) for k, v in queries.items()},
                {str(k): str(v) for k, v in labels.items()},
            )
        }
    except ValueError as exc:
        raise ConfigError(f"[sources.prometheus] {exc}") from None
    if "group_sample_s" in settings:
        args["group_sample_s"] = int(settings["group_sample_s"])
    return args


def _kafka_args(settings: Mapping[str, Any]) -> dict[str, Any]:
    refuse_unknown_keys(settings, _KAFKA_KEYS, "[sources.kafka]")
    settings = {k: v for k, v in settings.items() if k not in ObserveSettings.config_keys()}
    args: dict[str, Any] = {"bootstrap_servers": str(settings["bootstrap"])}
    for key in ("sample_window_s", "request_timeout_s", "retry_delay_s", "sample_timeout_s"):
        if key in settings:
            args[key] = float(settings[key])
    for key in ("retries", "max_sample_records"):
        if key in settings:
            args[key] = int(settings[key])
    if "group_tools" in settings:
        if not isinstance(settings["group_tools"], bool):
            raise ConfigError("[sources.kafka] group_tools must be true or false")
        args["group_tools"] = settings["group_tools"]
    for key in ("kafka_home", "group_tools_command_config"):
        if key in settings:
            args[key] = Path(str(settings[key]))
    extra = _secret(settings, "config_env")
    if extra:
        try:
            args["config"] = json.loads(extra)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"environment variable {settings['config_env']} is not JSON: {exc}"
            ) from None
    return args
