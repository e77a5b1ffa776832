# Source this to run Airflow on this checkout with embedded defaults:
#
#   source scripts/airflow-env.sh
#   airflow standalone            # the UI on http://127.0.0.1:8080 (login printed at start)
#   airflow dags test partition_planner 2026-11-21
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
# One local machine: the API server, scheduler and workers need no login between them.
export AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS=True
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

[store]
url = "sqlite:///$PLANNER_DEMO/store.db"

[report]
dir = "report"

[work]
dir = "work"
TOML
fi
