#!/usr/bin/env bash
# Installs what the planner, its demo and its tests need, on a bare Debian 12 machine or
# one that already has it all. Idempotent: a second run checks and returns in about a second.
#
#   scripts/setup.sh          Python environment (.venv), the Debian packages below and a
#                             pinned Apache Kafka from Maven Central (var/kafka/<version>)
#
# Debian packages are installed only when a command they provide is missing (root or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

# --- Debian packages -------------------------------------------------------------------
# command-that-must-exist:package
DEBIAN_NEEDS=(
  "java:openjdk-17-jre-headless"   # Spark's JVM
  "javac:openjdk-17-jdk-headless"  # the Java references in benchmarks/ and tests/
  "mvn:maven"                      # fetches Apache Kafka's jars from Maven Central
  "promtool:prometheus"            # a real Prometheus for the collector tests
  "/usr/lib/postgresql/15/bin/initdb:postgresql-15"  # a real PostgreSQL for the store tests
  "chromium:chromium"              # the report site is checked in a real browser
  "chromedriver:chromium-driver"
)
missing=()
for entry in "${DEBIAN_NEEDS[@]}"; do
  command -v "${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry##*:}")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Python environment ------------------------------------------------------------------
UV_VERSION=0.9.9
# uv as a module of the machine's python3, so no PATH set-up is needed.
uv() { python3 -m uv "$@"; }
if [ "$(python3 -m uv --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
  log "installing uv $UV_VERSION"
  python3 -m pip install -q --disable-pip-version-check "uv==$UV_VERSION"
fi

stamp=.venv/.installed
want=$(cat requirements.lock pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "creating .venv from requirements.lock (about 40 s the first time)"
  [ -x .venv/bin/python ] || uv venv -q --python 3.11 .venv
  uv pip sync -q --python .venv/bin/python --compile-bytecode requirements.lock
  uv pip install -q --python .venv/bin/python --no-deps -e .
  echo "$want" > "$stamp"
fi

# --- Airflow metadata database (SQLite under var/airflow) ---------------------------------
# The demo runs the real DAG with `airflow dags test`; the tests make homes of their own.
(
  source scripts/airflow-env.sh
  stamp="$AIRFLOW_HOME/.migrated"
  want=$(python -c "import importlib.metadata as m; print(m.version('apache-airflow-core'))")
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "initialising the Airflow database in $AIRFLOW_HOME"
    mkdir -p "$AIRFLOW_HOME"
    airflow db migrate >"$AIRFLOW_HOME/migrate.log" 2>&1 || {
      tail -20 "$AIRFLOW_HOME/migrate.log" >&2
      exit 1
    }
    echo "$want" >"$stamp"
  fi
)

# --- Jars from Maven Central (var/<name>/<version>) -----------------------------------------
# maven_install POM VERSION_PROPERTY NAME WHAT SCOPE:FOLDER...: copies a pom's dependency
# closure, one folder per scope, into var/<NAME>/<version>, only when the pom changed;
# sets installed_dir to that folder.
maven_install() {
  local pom=$1 property=$2 name=$3 what=$4
  shift 4
  local version dir want
  version=$(sed -n "s:.*<$property>\(.*\)</$property>.*:\1:p" "$pom")
  dir="var/$name/$version"
  installed_dir=$dir
  want=$(sha256sum "$pom" | cut -d' ' -f1)
  [ "$(cat "$dir/.installed" 2>/dev/null)" != "$want" ] || return 0
  log "installing $what $version from Maven Central into $dir (about 20 s the first time)"
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  local mvn_log="$dir.tmp/mvn.log" scope_dir
  for scope_dir in "$@"; do
    mvn -B -q -f "$pom" dependency:copy-dependencies -DincludeScope="${scope_dir%%:*}" \
      -DoutputDirectory="$PWD/$dir.tmp/${scope_dir##*:}" >>"$mvn_log" 2>&1 || {
      tail -30 "$mvn_log" >&2
      log "could not fetch $what $version from Maven Central (log: $mvn_log)"
      exit 1
    }
  done
  echo "$version" >"$dir.tmp/VERSION"
  echo "$want" >"$dir.tmp/.installed"
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
}

# Apache Kafka: the broker, its tools and its client and group-coordinator classes, as
# jars: the tests' reference Kafka, `make kafka` and `partition-planner measure` run them
# with `java -cp`. The version is scripts/kafka/pom.xml's kafka.version.
maven_install scripts/kafka/pom.xml kafka.version kafka "Apache Kafka" runtime:libs provided:agents
# Kafka's own commands (kafka-topics.sh, kafka-consumer-groups.sh, ...) as wrappers in
# var/kafka/<version>/bin, which Maven does not give: the report's and the docs' command
# lines run as written with that folder on PATH. Rewrites only what changed.
bash scripts/kafka-tools.sh "$installed_dir"
# Strimzi's model classes: the tests read the exported KafkaTopic resources with them.
maven_install scripts/strimzi/pom.xml strimzi.version strimzi "Strimzi's API classes" runtime:libs

# --- Spark's class archive (var/cache/spark-cds) --------------------------------------------
# A JDK class-data-sharing archive of the classes a Spark driver loads: every local
# session and spark-submit then starts with about half the JVM's CPU
# (spark_jobs/class_archive.py). Made once per JDK and PySpark (about a minute); a
# second run finds it and returns.
if ! .venv/bin/python -m spark_jobs.make_class_archive --check >/dev/null 2>&1; then
  log "making Spark's class archive in var/cache/spark-cds (about a minute, once)"
  mkdir -p var/cache
  .venv/bin/python -m spark_jobs.make_class_archive >var/cache/spark-cds.log 2>&1 || {
    tail -20 var/cache/spark-cds.log >&2
    exit 1
  }
fi
