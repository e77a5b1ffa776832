#!/usr/bin/env bash
# One-shot set-up before the Airflow services start: the `airflow-init` service runs it
# and the others wait for it to succeed. Idempotent: every `docker compose up` runs it
# again and it changes only what is missing or out of date.
#
#   1. the planner config file loads, and the shared volume's folders exist and are
#      writable (a config error stops here with its message, not in a task at 2 a.m.);
#   2. the metadata database is migrated (`airflow db migrate`);
#   3. the `admin` login: the simple auth manager reads its users from
#      [core] simple_auth_manager_users and their passwords from a JSON file; admin's
#      entry is written from AIRFLOW_ADMIN_PASSWORD, so the variable stays the one source.
set -euo pipefail

log() { printf '[airflow-init] %s\n' "$*" >&2; }

: "${AIRFLOW_ADMIN_PASSWORD:?set AIRFLOW_ADMIN_PASSWORD (docs/deployment.md)}"
: "${PLANNER_CONFIG:?PLANNER_CONFIG must name the planner config file}"
: "${AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE:?the passwords file path is not set}"

log "checking the planner config ${PLANNER_CONFIG} and the shared folders"
python - <<'PY'
import os
import sys
from pathlib import Path

from planner.config import ConfigError, load_config

try:
    config = load_config(os.environ["PLANNER_CONFIG"])
except ConfigError as exc:
    sys.exit(f"[airflow-init] {exc}")
landing = config.resolve(config.source_settings["landing"]["path"])
# The report path itself is a link that the first publish creates: only its parent here.
for folder in (config.figures_root, landing, config.work_dir, config.report_dir.parent):
    folder.mkdir(parents=True, exist_ok=True)
    if not os.access(folder, os.W_OK):
        sys.exit(
            f"[airflow-init] {folder} is not writable by uid {os.getuid()}: the data volume "
            "must belong to the image's user (docs/deployment.md, 'Volumes')"
        )
PY

log "migrating the metadata database"
airflow db migrate

log "setting the admin password"
python - <<'PY'
import json
import os
import tempfile
from pathlib import Path

path = Path(os.environ["AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"])
path.parent.mkdir(parents=True, exist_ok=True)
passwords = json.loads(path.read_text() or "{}") if path.exists() else {}
# Only the admin's entry is ours: other users listed in simple_auth_manager_users keep the
# passwords the API server generated for them (it prints them in its log once).
passwords["admin"] = os.environ["AIRFLOW_ADMIN_PASSWORD"]
fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".passwords-")
with os.fdopen(fd, "w") as out:  # mkstemp: mode 0600, only this user reads it
    json.dump(passwords, out)
    out.write("\n")
os.replace(tmp, path)
PY

log "done"
