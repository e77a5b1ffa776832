# The two commands a fresh machine needs (see README.md):
#   make demo   install what is needed and run the partition_planner DAG once, end to end,
#               on a sample fleet (Airflow, Spark local[2], SQLite; everything under var/)
#   make test   install what is needed and run the whole test suite (what CI runs)
.PHONY: setup demo test test-fast lint bench lock kafka kafka-stop

PY := .venv/bin/python

setup:
	@bash scripts/setup.sh

demo: setup
	@bash scripts/demo.sh

test: setup
	@.venv/bin/ruff check .
	@.venv/bin/ruff format --check .
	@$(PY) -m mypy
	@$(PY) -m pytest -n 2 --dist loadfile --no-loadscope-reorder

# The edit loop: the tests that need no Kafka, Airflow, browser or other server and take
# seconds each (markers in pyproject.toml); `make test` is still what CI runs.
test-fast: setup
	@$(PY) -m pytest -n 2 -q -m "not slow and not integration and not kafka and not airflow and not browser"

# A single-node Apache Kafka (KRaft) on 127.0.0.1:$KAFKA_PORT (default 9092) to try the
# collectors and `partition-planner measure` on; data and log under $KAFKA_DIR (default
# var/kafka-broker). JMX_PORT=7071 adds the Prometheus JMX exporter agent with
# deploy/jmx-exporter/kafka-broker.yml, serving http://127.0.0.1:7071/metrics.
#   make kafka [KAFKA_PORT=9092] [KAFKA_DIR=var/kafka-broker] [JMX_PORT=7071]
#   make kafka-stop [KAFKA_DIR=var/kafka-broker]
KAFKA_DIR ?= var/kafka-broker
kafka: setup
	@$(PY) -m planner.adapters.kraft start --dir '$(KAFKA_DIR)' $(if $(JMX_PORT),--jmx-port '$(JMX_PORT)')

kafka-stop:
	@$(PY) -m planner.adapters.kraft stop --dir '$(KAFKA_DIR)'

bench: setup
	@$(PY) benchmarks/partitioners_bench.py
	@$(PY) benchmarks/assignors_bench.py
	@$(PY) benchmarks/simulate_bench.py
	@$(PY) benchmarks/sample_bench.py
	@$(PY) benchmarks/spark_bench.py
	@$(PY) benchmarks/observe_bench.py
	@$(PY) benchmarks/validation_bench.py

# Re-resolve the pinned environment after editing pyproject.toml. The image's lock (the
# `pipeline` extra's closure only, for the Dockerfile) is resolved within the full one,
# so the image runs exactly the versions the tests ran. uv as scripts/setup.sh installs it.
lock:
	python3 -m uv pip compile pyproject.toml --all-extras --python-version 3.11 -q -o requirements.lock
	python3 -m uv pip compile pyproject.toml --extra pipeline --python-version 3.11 \
		-c requirements.lock -q -o requirements-runtime.lock
