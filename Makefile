# The two commands a fresh machine needs (see README.md):
#   make demo   install what is needed and run the planner on the bundled example
#   make test   install what is needed and run the whole test suite
.PHONY: setup demo test lint bench lock

PY := .venv/bin/python

setup:
	@bash scripts/setup.sh

demo: setup
	@.venv/bin/partition-planner demo

test: setup
	@.venv/bin/ruff check .
	@.venv/bin/ruff format --check .
	@$(PY) -m mypy
	@$(PY) -m pytest

bench: setup
	@$(PY) benchmarks/partitioners_bench.py
	@$(PY) benchmarks/assignors_bench.py
	@$(PY) benchmarks/simulate_bench.py
	@$(PY) benchmarks/sample_bench.py

# Re-resolve the pinned environment after editing pyproject.toml.
lock:
	uv pip compile pyproject.toml --all-extras --python-version 3.11 -q -o requirements.lock
