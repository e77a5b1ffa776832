#!/usr/bin/env bash
# Writes the secrets docker-compose.yml requires into a new `.env` file (mode 0600) beside
# it, where `docker compose` reads them. Every value is fresh and random; none is ever
# committed. Refuses to overwrite an existing file: the postgres volume keeps the
# passwords it was first initialised with (docs/deployment.md, "Changing a secret").
#
#   deploy/make-env.sh            writes .env in the repository root
#   deploy/make-env.sh FILE       writes FILE (then: docker compose --env-file FILE ...)
#
# Needs only python3's standard library.
set -euo pipefail

# Default: the repository root, where docker-compose.yml is; a FILE given is taken as is.
out=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.env"}
if [ -e "$out" ]; then
  echo "make-env: $out exists; not overwriting it (remove it first to start afresh)" >&2
  exit 1
fi
umask 077
python3 - "$out" <<'PY'
import base64
import os
import secrets
import sys

# Hex passwords: they go into URLs and JSON connection strings unquoted, so no character
# may need escaping there.
values = {
    "AIRFLOW_DB_PASSWORD": secrets.token_hex(24),
    "PLANNER_STORE_PASSWORD": secrets.token_hex(24),
    "AIRFLOW_ADMIN_PASSWORD": secrets.token_hex(12),
    # Fernet: 32 random bytes, URL-safe base64 (what cryptography's Fernet.generate_key gives).
    "AIRFLOW_FERNET_KEY": base64.urlsafe_b64encode(os.urandom(32)).decode(),
    # JWTs are signed with HMAC-SHA512: a key of 64 bytes or more (RFC 7518, 3.2).
    "AIRFLOW_JWT_SECRET": secrets.token_urlsafe(64),
    "AIRFLOW_API_SECRET_KEY": secrets.token_urlsafe(64),
}
with open(sys.argv[1], "x", encoding="utf-8") as out:
    out.write("# Secrets for docker-compose.yml, made by deploy/make-env.sh. Never commit this file.\n")
    for name, value in values.items():
        out.write(f"{name}={value}\n")
PY
echo "make-env: wrote $out (the Airflow login is admin / AIRFLOW_ADMIN_PASSWORD in it)" >&2
