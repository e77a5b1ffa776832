"""Both DAGs run end to end through Airflow (`airflow dags test`), real Spark submissions
included, on the sample fleet: a good run, a run whose figures fail validation, and a new
topic planned from the trigger form's parameters.

Task states are read from Airflow's own metadata database.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from planner.report.names import page_names
from planner.store import FAILED, PUBLISHED, RecommendationStore
from tests.dags.conftest import PlannerHome, migrated_airflow_home, planner_home
from tests.pipeline.conftest import RUN_KEY, show, unreadable_capacity

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.first]

# Airflow 3 runs a data-interval DAG after its interval: the run dated the 21st plans the
# UTC day 2026-11-20, the sample fleet's last whole day (RUN_KEY).
DAG_DATE = "2026-11-21"
PERF = Path(__file__).resolve().parents[1] / "adapters" / "data" / "perf"
SUCCESSFUL = {"success"}


def task_states(airflow_home: Path, dag_id: str) -> dict[str, str | None]:
    """The DAG's newest run: its own state under the key `run`, and each task's state."""
    with sqlite3.connect(airflow_home / "airflow.db") as db:
        run_id, state = db.execute(
            "SELECT run_id, state FROM dag_run WHERE dag_id = ? ORDER BY id DESC LIMIT 1",
            (dag_id,),
        ).fetchone()
        rows = db.execute(
            "SELECT task_id, state FROM task_instance WHERE dag_id = ? AND run_id = ?",
            (dag_id, run_id),
        ).fetchall()
    return {"run": state, **dict(rows)}


def tries(airflow_home: Path, dag_id: str, task_id: str) -> int:
    """How many times the newest run's task was tried."""
    with sqlite3.connect(airflow_home / "airflow.db") as db:
        (count,) = db.execute(
            "SELECT try_number FROM task_instance WHERE dag_id = ? AND task_id = ? "
            "ORDER BY start_date DESC LIMIT 1",
            (dag_id, task_id),
        ).fetchone()
    return int(count)


@pytest.fixture(scope="module")
def fleet(
    airflow_home: Path, sample_landing: Path, tmp_path_factory: pytest.TempPathFactory
) -> PlannerHome:
    """The sample fleet planned once by the partition_planner DAG."""
    home = planner_home(airflow_home, tmp_path_factory.mktemp("fleet"), sample_landing)
    done = home.airflow("dags", "test", "partition_planner", DAG_DATE)
    assert done.returncode == 0, (done.stdout + done.stderr)[-5000:]
    return home


def test_the_daily_dag_publishes_the_fleet(fleet: PlannerHome, airflow_home: Path) -> None:
    states = task_states(airflow_home, "partition_planner")
    assert states.pop("record_failure") == "skipped"
    assert set(states.values()) == SUCCESSFUL, states  # the run and every task
    with RecommendationStore(fleet.store_url) as store:
        run = store.last_good_run()
        assert run is not None and run.key == RUN_KEY and run.status == PUBLISHED
        assert run.validation["inputs"]["success"] and run.validation["outputs"]["success"]
        topics = {r.topic for r in store.recommendations()}
    records = json.loads((fleet.root / "recommendations.json").read_text())
    assert {r["topic"] for r in records} == topics
    assert (fleet.report / "index.html").is_file()
    assert (fleet.report / "validation" / "index.html").is_file()
    # A run of the whole fleet adds up the cluster's replicas per broker.
    assert "Partition replicas per broker" in (fleet.report / "index.html").read_text()
    # The Spark steps wrote the run's datasets where the config says.
    for dataset in ("sizing", "simulations", "recommendations"):
        assert list(
            (fleet.root / "work" / "datasets" / dataset / f"run={RUN_KEY}").glob("*.parquet")
        )


def test_figures_failing_validation_fail_the_run_and_keep_the_last_good_report(
    fleet: PlannerHome, airflow_home: Path, tmp_path: Path
) -> None:
    # A second deployment, a copy of the first after its good run, whose landing folder
    # now lists 2 of the cluster's 6 brokers: most topics claim more replicas than that,
    # too many to set aside (a run-level failure), so the run stops. Its capacity file
    # is unreadable too: rows refused at collection count as bad rows, and the message
    # gives every reason the run stops for.
    root = tmp_path / "deployment"
    shutil.copytree(fleet.root, root, symlinks=True)
    landing = tmp_path / "landing"
    shutil.copytree(Path(_landing_of(fleet)), landing)
    brokers = landing / "cluster" / "brokers.csv"
    brokers.write_text("\n".join(brokers.read_text().splitlines()[:3]) + "\n")
    capacity = unreadable_capacity(landing)
    # Another Airflow home: one home cannot run the same interval twice.
    home = planner_home(migrated_airflow_home(tmp_path / "airflow"), root, landing)
    before = os.readlink(home.report)

    done = home.airflow("dags", "test", "partition_planner", DAG_DATE)

    assert done.returncode != 0 or "state=failed" in done.stdout + done.stderr
    states = task_states(Path(home.env["AIRFLOW_HOME"]), "partition_planner")
    assert states["collect_figures"] == "success"
    assert states["validate_inputs"] == "failed"
    # The data failed the suites: the same data would fail again, so no retry.
    assert tries(Path(home.env["AIRFLOW_HOME"]), "partition_planner", "validate_inputs") == 1
    assert "the data failed validation; the same data would fail again" in (
        done.stdout + done.stderr
    )
    assert states["size_and_simulate"] == states["publish"] == "upstream_failed"
    # record_failure recorded the failure, then failed itself, so the run shows failed.
    assert states["record_failure"] == "failed"
    assert states["run"] == "failed"
    assert "nothing was published and the last good report and rows stay" in (
        done.stdout + done.stderr
    )
    assert os.readlink(home.report) == before
    with RecommendationStore(home.store_url) as store:
        runs = store.runs()
        assert [r.status for r in runs[:2]] == [FAILED, PUBLISHED]
        message = runs[0].message or ""
        assert "validate_inputs failed" in message and "topics.input" in message
        assert "would be set aside, more than the 20 % allowed" in message
        assert "2 brokers listed, the topic has 3 replicas: a broker down or missing" in message
        assert (
            f"the fleet default row '*' was refused at collection: landing:{capacity}: row 2: "
            "field 'producer_mib_per_s' = 'n/a': not a number"
        ) in message
        assert "capacity.input: 8 of 13 rows (62 %) are bad: 8 refused at collection" in message
        assert store.last_good_run() == runs[1]


def test_a_run_that_newly_leaves_the_fleet_unsized_is_held_and_published_when_accepted(
    fleet: PlannerHome, tmp_path: Path
) -> None:
    # A copy of the deployment after its good run, whose capacity file lost its fleet
    # default row `*`: every figure passes its rules, but most topics have no Tc left.
    # The guard holds the run (publish fails, naming topics and cause; the report
    # stays); the same run triggered with accept_degraded=true publishes it.
    root = tmp_path / "deployment"
    shutil.copytree(fleet.root, root, symlinks=True)
    landing = tmp_path / "landing"
    shutil.copytree(Path(_landing_of(fleet)), landing)
    capacity = landing / "capacity" / "capacity.csv"
    lines = capacity.read_text().splitlines()
    capacity.write_text("\n".join(line for line in lines if not line.startswith("*,")) + "\n")
    airflow_home = migrated_airflow_home(tmp_path / "airflow")
    home = planner_home(airflow_home, root, landing)
    before = os.readlink(home.report)

    held = home.airflow("dags", "test", "partition_planner", DAG_DATE)

    output = held.stdout + held.stderr
    states = task_states(airflow_home, "partition_planner")
    assert states["validate_outputs"] == "success"
    assert states["publish"] == states["record_failure"] == states["run"] == "failed"
    assert f"run {RUN_KEY}: publish held: " in output
    assert "could not be sized that the last good run, 20261120T0000Z, sized or did not list" in (
        output
    )
    assert "why: missing-capacity (" in output
    assert "trigger the partition_planner DAG with accept_degraded=true" in output
    assert os.readlink(home.report) == before
    with RecommendationStore(home.store_url) as store:
        runs = store.runs()
        good = store.last_good_run()
    # Recorded once, by publish, with the guard's words; record_failure found it.
    assert [r.status for r in runs[:2]] == [FAILED, PUBLISHED] and good == runs[1]
    assert (runs[0].message or "").startswith(f"run {RUN_KEY}: publish held: ")
    lost = runs[0].validation["publish_guard"]["newly_unsized_topics"]
    assert len(lost) > 4 and f"{', '.join(lost[:5])} and {len(lost) - 5} more" in output

    # The held run's validated datasets published with the DAG's parameter set: its
    # publish task again, through Airflow (`tasks test` on the same run, its XComs and
    # the parameter as a trigger with accept_degraded=true gives it). A new trigger
    # would recompute the same datasets first: the Spark steps are tested above.
    accepted = home.airflow(
        "tasks",
        "test",
        "partition_planner",
        "publish",
        DAG_DATE,
        "--task-params",
        '{"accept_degraded": true}',
    )

    assert accepted.returncode == 0, (accepted.stdout + accepted.stderr)[-5000:]
    assert "published with accept_degraded, although " in accepted.stdout + accepted.stderr
    assert os.readlink(home.report) != before
    with RecommendationStore(home.store_url) as store:
        now = store.last_good_run()
        statuses = store.topic_statuses(now) if now is not None else {}
    assert now is not None and now.validation["publish_guard"]["accepted"] is True
    assert sorted(t for t, s in statuses.items() if s == "missing-capacity") == lost


def _landing_of(home: PlannerHome) -> str:
    for line in home.config.read_text().splitlines():
        if line.startswith("path = "):
            return line.split('"')[1]
    raise AssertionError("no landing path in the config")


def _key_sample(path: Path) -> Path:
    rows = ["key,count", "customer-hot,90000"] + [f"customer-{i},{1 + i % 7}" for i in range(2000)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_new_topic_is_planned_from_the_forms_parameters(
    fleet: PlannerHome, airflow_home: Path, tmp_path: Path
) -> None:
    topic = "payments.authorizations.v2"
    conf = {
        "topic": topic,
        "peak_mib_per_s": 40,
        "peak_records_per_s": 60000,
        "growth_per_year": 0.5,
        "horizon_days": 365,
        "keyed": True,
        "partitioner": "murmur2_random",
        "key_sample_file": str(_key_sample(tmp_path / "keys.csv")),
        "producer_perf_file": str(PERF / "orders.producer.txt"),
        "tc_mib_per_s": 4,
        "tc_records_per_s": 5000,
        "consumer_groups": ["fraud-scoring", "ledger"],
        "strategy": "cooperative-sticky",
        "replication_factor": 3,
        "brokers": 6,
    }
    done = fleet.airflow("dags", "test", "plan_new_topic", "--conf", json.dumps(conf))
    assert done.returncode == 0, (done.stdout + done.stderr)[-5000:]
    states = task_states(airflow_home, "plan_new_topic")
    assert states.pop("record_failure") == "skipped"
    assert set(states.values()) == SUCCESSFUL, states

    page_name = page_names([topic])[topic]
    site = fleet.root / "report-new-topics" / page_name.removesuffix(".html")
    page = (site / "topics" / page_name).read_text()
    assert topic in page
    # One new topic does not see the cluster's other topics: no cluster-wide figures.
    assert "Partition replicas per broker" not in (site / "index.html").read_text()
    assert "whole cluster" not in page
    with RecommendationStore(fleet.store_url) as store:
        latest = store.latest(topic)
        assert latest is not None
        assert latest.run.scope == f"topic:{topic}"
        assert latest.current_partitions is None  # not created yet
        assert latest.recommended_partitions is not None and latest.recommended_partitions >= 1
        assert latest.keyed is True
        assert {g["group_id"] for g in latest.groups} == {"fraud-scoring", "ledger"}
        # The fleet's run is untouched by the new topic's.
        fleet_run = store.last_good_run()
        assert fleet_run is not None and fleet_run.key == RUN_KEY
        assert topic not in {r.topic for r in store.recommendations()}
    # Tp from the perf-test file (median of its window lines, MB/s as MiB/s).
    assert latest.tp_mib_per_s is not None and 13.0 < latest.tp_mib_per_s < 15.0
    assert (latest.tc_mib_per_s, latest.tc_records_per_s) == (4.0, 5000.0)

    # A creation plan everywhere: the store, the page, show.
    assert latest.status == "create"
    assert sorted(g["status"] for g in latest.groups) == ["deploy", "deploy"]
    assert "To create" in page and f"--create --topic {topic}" in page
    assert "Tp read from kafka-producer-perf-test output" in page
    assert "given in the request (+50%/year)" in page
    shown = show(topic, fleet.store_url)
    assert shown.returncode == 0 and topic in shown.stdout
    assert f"creation plan: create {topic} with" in " ".join(shown.stdout.split())
    assert "older" not in shown.stdout


def test_a_new_topic_request_that_cannot_be_planned_fails_its_first_task(
    fleet: PlannerHome, airflow_home: Path
) -> None:
    conf = {"topic": "orders.v2", "peak_mib_per_s": 5, "peak_records_per_s": 100}
    done = fleet.airflow("dags", "test", "plan_new_topic", "--conf", json.dumps(conf))
    output = done.stdout + done.stderr
    assert "Tp: give tp_mib_per_s and/or tp_records_per_s" in output
    states = task_states(airflow_home, "plan_new_topic")
    assert states["prepare_new_topic"] == "failed"
    assert states["publish"] == "upstream_failed"
    assert states["record_failure"] == "failed" and states["run"] == "failed"
