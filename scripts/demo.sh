#!/usr/bin/env bash
# The README's main command (after scripts/setup.sh): a sample fleet through the real
# partition_planner DAG, once, on embedded defaults, then where to look.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/airflow-env.sh
source scripts/airflow-env.sh

TOPICS=${DEMO_TOPICS:-300}
# Airflow 3 runs a data-interval DAG "after" its interval: the run of today plans the UTC
# day that ended at midnight (the sample's history ends there too).
today=$(date -u +%F)
started=$(date +%s)

# A fleet sampled on an earlier day ends before the day to plan: sample it again (and
# drop the figures collected from it, so no history day comes from the old sample).
yesterday=$(date -u -d "$today -1 day" +%F)
if [ ! -f "$PLANNER_DEMO/landing/throughput/$yesterday.parquet" ]; then
  if [ -d "$PLANNER_DEMO/landing" ]; then
    echo "[demo] the sample fleet in $PLANNER_DEMO/landing ends before $yesterday: sampling it again"
    rm -rf "$PLANNER_DEMO/figures"
  fi
  echo "[demo] writing a sample fleet of $TOPICS topics, 30 days of hourly figures"
  partition-planner sample --topics "$TOPICS" --days 30 --out "$PLANNER_DEMO/landing" --force \
    | sed -n '1,4p'
fi

echo "[demo] running the partition_planner DAG for the day before $today (airflow dags test)"
log="$PLANNER_DEMO/dags-test.log"
if ! airflow dags test partition_planner "$today" >"$log" 2>&1; then
  grep -E "ERROR|failed|Failed" "$log" | tail -20 >&2 || true
  echo "[demo] the run failed; the whole log is $log" >&2
  exit 1
fi
grep -o "DagRun Finished: .*state=[a-z]*" "$log" | sed 's/, run_start_date.*run_duration=[0-9.]*//' | tail -1 || true

report="$PLANNER_DEMO/report"
echo
# The headline and the first section (the topics to change first), at most 24 lines, not
# the whole list. awk stops by itself: `| head` would end it with SIGPIPE once the section
# outgrows a pipe's buffer, which pipefail turns into a failed demo.
awk '/^## /{n++} n >= 2 || shown >= 24 {exit} {print; shown++}' "$report/summary.md"
echo
echo "[demo] done in $(($(date +%s) - started)) s"
echo "  report:               $report/index.html"
echo "  for machines:         $PLANNER_DEMO/recommendations.json"
echo "  validation:           $report/validation/index.html"
echo "  one topic:            partition-planner show <topic> --config \$PLANNER_CONFIG"
echo
echo "Plan a topic that does not exist yet:"
echo "  source scripts/airflow-env.sh"
echo "  airflow dags test plan_new_topic --conf '{\"topic\": \"payments.v2\", \"peak_mib_per_s\": 40,"
echo "      \"peak_records_per_s\": 60000, \"growth_per_year\": 0.5, \"keyed\": true,"
echo "      \"tp_mib_per_s\": 10, \"tc_mib_per_s\": 4, \"consumer_groups\": [\"ledger\"]}'"
echo "Or in the Airflow UI's form (Dags > plan_new_topic > Trigger):"
echo "  source scripts/airflow-env.sh && airflow standalone"
echo "  then open http://127.0.0.1:8080 on this machine: no login (every visitor is an admin,"
echo "  so it listens on 127.0.0.1 only; from elsewhere: ssh -L 8080:127.0.0.1:8080 <this machine>)"
