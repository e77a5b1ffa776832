# Source this to run Airflow on this checkout with embedded defaults:
#
#   source scripts/airflow-env.sh
#   airflow standalone            # the UI on http://127.0.0.1:8080: no login, see below
#   airflow dags test partition_planner 2026-11-21
#
# The UI: `airflow standalone` serves it on http://127.0.0.1:8080 (this machine only:
# [api] host is 127.0.0.1; from another machine, `ssh -L 8080:127.0.0.1:8080 <this one>`
# and open the same address there). There is no login page and no password: the simple
# auth manager runs with [core] simple_auth_manager_all_admins = True, so whoever
# reaches the port is an admin. That is for a demo on one machine; a deployment has real
# logins (docs/deployment.md).
#
# Sized for a 2-core machine: at most 2 tasks at once ([core] parallelism, which is also
# how many processes the LocalExecutor starts), one API server worker, one DAG parsing
# process. Each Spark step is a JVM of its own, so more would only queue for the cores.
#
# Everything lives under var/: the Airflow home (SQLite), the planner config, the sample
# landing folder, the figures, the Spark datasets, the store and the report. Spark runs
# local[2] through the planner_spark connection; a deployment sets these in
# docker-compose.yml instead (docs/deployment.md).

_planner_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PLANNER_ROOT="$_planner_root"
export PLANNER_DEMO="$_planner_root/var/demo"
export PATH="$_planner_root/.venv/bin:$PATH"
export AIRFLOW_HOME="$_planner_root/var/airflow"
export AIRFLOW__CORE__DAGS_FOLDER="$_planner_root/dags"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
# One local machine: no login at all, everyone is an admin (see the top of this file),
# so the UI listens on loopback only.
export AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS=True
export AIRFLOW__API__HOST=127.0.0.1
# Two cores: two tasks at once (LocalExecutor processes), one API worker, one parser.
export AIRFLOW__CORE__PARALLELISM=2
export AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG=2
export AIRFLOW__API__WORKERS=1
export AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES=1
export AIRFLOW_CONN_PLANNER_SPARK='{"conn_type": "spark", "host": "local[2]"}'
export PLANNER_CONFIG="$PLANNER_DEMO/planner.toml"
export PYSPARK_PYTHON="$_planner_root/.venv/bin/python"
unset _planner_root

# The planner config of the demo: every path under var/demo.
if [ ! -f "$PLANNER_CONFIG" ]; then
  mkdir -p "$PLANNER_DEMO"
  cat > "$PLANNER_CONFIG" <<TOML
# Written by scripts/airflow-env.sh; paths are relative to this file.
[figures]
root = "figures"
history_days = 30

[sources]
use = ["landing"]

[sources.landing]
path = "landing"

[planning]
# The demo's own figure, not a default (the planner has none): a typical cloud price for
# bytes crossing availability zones, about 0.01 (USD) per GB charged on each side of the
# transfer on the large clouds' price lists, so about 0.02 per GiB that crosses.
cross_zone_price_per_gib = 0.02

[store]
url = "sqlite:///$PLANNER_DEMO/store.db"

[report]
dir = "report"

[work]
dir = "work"
TOML
fi
