# syntax=docker/dockerfile:1.7
# One image for everything that runs planner code: the Airflow API server, scheduler, DAG
# processor and triggerer, and the Spark master and worker (docker-compose.yml). A Spark
# job's driver runs in the scheduler's task process and its executors on the worker, and
# both unpickle each other's functions: one image makes them run the same `planner`,
# Python and pandas by construction. On Kubernetes it can be the executors' image too, with
# Spark's own executor entrypoint added (docs/deployment.md, section 7).
#
#   docker compose build        (or: docker build -t kafka-partition-planner:0.1.0 .)

# Debian 12 and CPython 3.11: the pair the project is developed and tested on. A
# patch-level tag, so that a rebuild gets the same Python; bump it on purpose.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm

# --- build: a virtual environment with the runtime closure and the project ------------
FROM ${PYTHON_IMAGE} AS build

# uv pinned as scripts/setup.sh pins it: the installer the tests' environment came from.
ARG UV_VERSION=0.9.9
RUN pip install --no-cache-dir --disable-pip-version-check "uv==${UV_VERSION}"
ENV UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy \
    UV_PYTHON_DOWNLOADS=never

RUN uv venv --python /usr/local/bin/python3.11 /opt/venv

# requirements-runtime.lock is the `pipeline` extra's closure, resolved inside
# requirements.lock (`make lock`): the versions the tests ran, without the dev tools.
# --no-deps: nothing is resolved at build time, so a build cannot drift from the lock.
WORKDIR /src
COPY requirements-runtime.lock ./
RUN --mount=type=cache,target=/root/.cache/uv \
    uv pip install --python /opt/venv/bin/python --no-deps -r requirements-runtime.lock

# The project itself, as a wheel (not editable): the image needs no source tree.
COPY pyproject.toml README.md ./
COPY planner ./planner
COPY spark_jobs ./spark_jobs
COPY expectations ./expectations
RUN --mount=type=cache,target=/root/.cache/uv \
    uv pip install --python /opt/venv/bin/python --no-deps . \
 && uv pip check --python /opt/venv/bin/python

# --- runtime ------------------------------------------------------------------------
FROM ${PYTHON_IMAGE}

# Java 17 for Spark's JVM (driver, master, worker); procps for `ps`, which Spark's daemon
# scripts call (and whoever debugs a container); tini as PID 1, to pass signals on and reap
# what Spark and Airflow's LocalExecutor fork. Debian's versions, not pinned: bookworm
# only takes security fixes, and a pinned Debian version disappears from the mirrors when
# the next fix lands.
# (The man folder: openjdk's post-install step links into it, and slim images drop it.)
RUN mkdir -p /usr/share/man/man1 \
 && apt-get update \
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless procps tini \
 && rm -rf /var/lib/apt/lists/*

# Not root. uid 50000 as in Airflow's own images; the shared data volume, the Airflow
# logs and the report server (docker-compose.yml) all go by this uid.
RUN groupadd --gid 50000 planner \
 && useradd --uid 50000 --gid planner --create-home --home-dir /home/planner \
        --shell /bin/bash planner \
 && mkdir -p /opt/airflow/logs /opt/airflow/auth /var/lib/planner \
 && chown -R planner:planner /opt/airflow /var/lib/planner

# Root-owned and read-only for the user: the code that runs cannot change itself.
COPY --from=build /opt/venv /opt/venv
COPY dags /opt/planner/dags

# Spark's Python workers and driver run the image's interpreter, the one with the planner
# installed (otherwise "No module named 'pandas'" inside a UDF); spark-submit and
# spark-class are on PATH, where SparkSubmitOperator looks for them.
ENV PATH=/opt/venv/bin:$PATH \
    VIRTUAL_ENV=/opt/venv \
    PYTHONUNBUFFERED=1 \
    PYSPARK_PYTHON=/opt/venv/bin/python \
    PYSPARK_DRIVER_PYTHON=/opt/venv/bin/python \
    AIRFLOW_HOME=/opt/airflow \
    AIRFLOW__CORE__DAGS_FOLDER=/opt/planner/dags \
    AIRFLOW__CORE__LOAD_EXAMPLES=False

USER planner
WORKDIR /home/planner

# The API server's port; the other services' ports are set in docker-compose.yml.
EXPOSE 8080

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["airflow", "version"]
