"""The names a deployment provides and the pipeline reads: one list, checked by the tests.

Airflow, the command line and `docker-compose.yml` must agree on these. The DAGs and
the pipeline read them only here (no name is spelled twice), and
`tests/deploy/test_compose.py` checks that the compose file defines each one for the
services that need it.

Configuration comes from one planner config file (TOML, `planner.config`), whose path
is the Airflow Variable `CONFIG_VARIABLE` if it is set, else the environment variable
`CONFIG_ENV`, else no file (the embedded defaults). Where a deployment keeps servers
and secrets in Airflow connections, those connections override the file's settings:

| connection id | type | overrides |
| --- | --- | --- |
| `planner_spark` | `spark` | `[spark] master` (the SparkSubmitOperator's connection) |
| `planner_store` | `postgres` or `sqlite` | `[store] url` |
| `planner_kafka` | `generic` | `[sources.kafka] bootstrap`; extra = librdkafka settings |
| `planner_prometheus` | `http` | `[sources.prometheus] url`; password = bearer token |

A connection that is not defined leaves the file's setting alone; no secret is ever
written in code or in the config file.
"""

from __future__ import annotations

__all__ = [
    "CONFIG_ENV",
    "CONFIG_VARIABLE",
    "CONNECTIONS",
    "KAFKA_CONN_ID",
    "PROMETHEUS_CONN_ID",
    "SPARK_CONN_ID",
    "STORE_CONN_ID",
]

#: Environment variable holding the planner config file's path.
CONFIG_ENV = "PLANNER_CONFIG"
#: Airflow Variable holding the planner config file's path (wins over `CONFIG_ENV`).
CONFIG_VARIABLE = "planner_config"

SPARK_CONN_ID = "planner_spark"
STORE_CONN_ID = "planner_store"
KAFKA_CONN_ID = "planner_kafka"
PROMETHEUS_CONN_ID = "planner_prometheus"

#: Every Airflow connection the pipeline may read, with its connection type.
CONNECTIONS: dict[str, str] = {
    SPARK_CONN_ID: "spark",
    STORE_CONN_ID: "postgres",
    KAFKA_CONN_ID: "generic",
    PROMETHEUS_CONN_ID: "http",
}
