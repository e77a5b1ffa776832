"""`plan_new_topic` through the real Airflow UI, as a person uses it, in headless Chromium.

A real Airflow (API server with its React UI, scheduler, DAG processor; LocalExecutor;
metadata in a throwaway PostgreSQL 15) on a free loopback port with a temporary
`AIRFLOW_HOME`, and a real Chromium over WebDriver (`tests.support.browser`). The first
test fills the trigger form (opening its sections, typing, flipping the "Keyed" switch)
and presses Trigger, waits for the run to succeed (the run is read through the REST API,
the way the UI reads it), and opens the published creation plan's page. The second
types a name Kafka refuses and reads the refusal in the dialog. Every process is
stopped at the end.

Cost: about 35 s for the services and the browser, then the run (four tasks, three of
them Spark submissions: about 70 s on an idle 2-core machine, several minutes when
other jobs share the cores).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from planner.adapters.kraft import KRaftCluster
from planner.report.names import page_names
from planner.store import RecommendationStore
from tests.dags.conftest import PlannerHome, write_config
from tests.dags.test_scheduler import Airflow, _env, _wait, running_airflow
from tests.support.browser import Browser, WebDriverError, running_browser
from tests.support.ports import free_port
from tests.support.postgres import running_postgres

pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.first]

#: The issue's request, as a person types it into the form: each section of the form
#: (they open one at a time) with the fields typed into it.
TOPIC = "payments.v2"
FORM: dict[str, dict[str, str]] = {
    "The topic": {"topic": TOPIC},
    "Expected load: both peaks, or a throughput file instead": {
        "peak_mib_per_s": "40",
        "peak_records_per_s": "60000",
        "growth_per_year": "0.5",
    },
    "Tp and Tc per side: numbers, or a perf-test output file instead": {
        "tp_mib_per_s": "10",
        "tc_mib_per_s": "4",
    },
    "Who will read it": {"consumer_groups": "ledger"},
}
RUN_WAIT_S = 900.0
_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


@dataclass(frozen=True)
class UI:
    """The running Airflow, its UI's address, the browser and the planner's folders."""

    api: Airflow
    base: str
    browser: Browser
    home: PlannerHome
    logs: Path


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UI]:
    tmp = tmp_path_factory.mktemp("airflow-ui")
    started = time.monotonic()
    with running_postgres("airflow") as metadata:
        port = free_port()
        root = tmp / "planner"
        landing = tmp / "landing"  # the fleet's: a new topic writes its own
        landing.mkdir()
        config = write_config(root, landing)
        env = _env(tmp / "airflow", metadata, config, port)
        home = PlannerHome(root, config, env)
        migrated = home.airflow("db", "migrate", timeout=600)
        assert migrated.returncode == 0, migrated.stderr[-3000:]
        logs = tmp / "logs"
        with running_airflow(env, logs), running_browser() as browser:
            api = Airflow(port)
            _wait("the API server", lambda: api.get("/api/v2/version"), 180, logs)
            api.login()
            _wait(
                "plan_new_topic to be parsed",
                lambda: api.get("/api/v2/dags/plan_new_topic"),
                240,
                logs,
            )
            api.patch("/api/v2/dags/plan_new_topic", {"is_paused": False})
            print(f"\nAirflow and Chromium ready in {time.monotonic() - started:.1f} s")
            yield UI(api, f"http://127.0.0.1:{port}", browser, home, logs)


def _until(what: str, check: Any, timeout_s: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        with contextlib.suppress(WebDriverError):
            found = check()
            if found:
                return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        time.sleep(0.5)


def _dialog_text(b: Browser) -> str:
    return str(
        b.execute(
            "const d = [...document.querySelectorAll('[role=dialog]')].pop();"
            "return d ? d.innerText : '';"
        )
    )


def _button(b: Browser, label: str, *, in_dialog: bool = True) -> str | None:
    """The element id of the button whose text is `label` (in the open dialog)."""
    found = b.execute(
        "const root = arguments[1] ? [...document.querySelectorAll('[role=dialog]')].pop()"
        " : document; if (!root) return null;"
        "return [...root.querySelectorAll('button')]"
        ".find(e => e.innerText.trim() === arguments[0]) || null;",
        label,
        in_dialog,
    )
    return None if found is None else str(found[_ELEMENT])


def _open_form(b: Browser, base: str) -> None:
    """The DAG's page, and its Trigger button's form."""
    b.get(f"{base}/dags/plan_new_topic")
    trigger = _until("the Trigger button", lambda: _button(b, "Trigger", in_dialog=False), 120)
    b.click(trigger)
    _until("the trigger form", lambda: "Trigger Dag - plan_new_topic" in _dialog_text(b))


def _open_section(b: Browser, title: str) -> None:
    """Open one section of the form (opening one closes the others)."""
    button = _until(f"the section {title!r}", lambda: _button(b, title))
    if b.execute("return arguments[0].getAttribute('aria-expanded')", {_ELEMENT: button}) != "true":
        b.click(button)
    _until(
        f"the section {title!r} open",
        lambda: (
            b.execute("return arguments[0].getAttribute('aria-expanded')", {_ELEMENT: button})
            == "true"
        ),
    )


def _field(b: Browser, name: str) -> str:
    return _until(f"the field {name}", lambda: b.find(f"[name=element_{name}]"))


def _press_trigger(b: Browser) -> None:
    button = _until("the dialog's Trigger button", lambda: _button(b, "Trigger"))
    b.click(button)


# The run is three Spark submissions: minutes on two busy cores (pytest-timeout's 600 s
# default is too short then; the run's own wait is bounded by RUN_WAIT_S).
@pytest.mark.timeout(1500)
def test_a_new_topic_planned_through_the_form_reads_as_a_creation_plan(ui: UI) -> None:
    b = ui.browser
    _open_form(b, ui.base)
    for section, fields in FORM.items():
        _open_section(b, section)
        # Fields with defaults are not marked required: the topic name alone has its "*"
        # (waited for: the section that closes fades out).
        stars = 1 if "topic" in fields else 0
        with contextlib.suppress(AssertionError):
            _until("the open section alone", lambda n=stars: _dialog_text(b).count("*") == n, 10)
        assert _dialog_text(b).count("*") == stars, (section, _dialog_text(b))
        for name, value in fields.items():
            field = _field(b, name)
            b.clear(field)
            b.type(field, value)
        if section == "The topic":
            # The switch's input is hidden behind its control: click the control.
            switch = b.execute(
                "return document.querySelector('[name=element_keyed]').closest('label')"
            )
            b.click(switch[_ELEMENT])
    started = time.monotonic()
    _press_trigger(b)

    def the_run() -> dict[str, Any] | None:
        runs = ui.api.get("/api/v2/dags/plan_new_topic/dagRuns")["dag_runs"]
        return runs[0] if runs else None

    run = _until("the triggered run", the_run, 60)
    # What the form sent is what the person typed, in the types the task reads.
    conf = run["conf"]
    assert conf["topic"] == TOPIC and conf["keyed"] is True, conf
    assert conf["consumer_groups"] == ["ledger"], conf
    assert float(conf["peak_mib_per_s"]) == 40 and float(conf["growth_per_year"]) == 0.5, conf
    path = f"/api/v2/dags/plan_new_topic/dagRuns/{quote(run['dag_run_id'])}"

    def finished() -> str | None:
        state = ui.api.get(path)["state"]
        return state if state in ("success", "failed") else None

    assert _wait("the plan_new_topic run", finished, RUN_WAIT_S, ui.logs) == "success"
    print(f"\nrun of plan_new_topic: {time.monotonic() - started:.1f} s")

    # The run's page in the UI shows it succeeded.
    b.get(f"{ui.base}/dags/plan_new_topic/runs/{quote(run['dag_run_id'])}")
    _until(
        "the run page",
        lambda: "success" in str(b.execute("return document.body.innerText")).lower(),
    )

    page = page_names([TOPIC])[TOPIC]
    site = ui.home.root / "report-new-topics" / page.removesuffix(".html")
    b.get((site / "topics" / page).as_uri())
    shown = str(b.execute("return document.body.innerText"))
    assert "create payments.v2 with 18 partitions, replication factor 3" in shown, shown
    assert (
        'kafka-topics.sh --bootstrap-server "$BOOTSTRAP_SERVERS" --create --topic payments.v2 '
        "--partitions 18 --replication-factor 3" in shown
    )
    assert "54 partition replicas on the cluster" in shown  # its cost
    assert "deploy 18 members" in shown  # the group, not "0 -> 18 under-provisioned"
    assert "given in the request (+50%/year)" in shown
    assert "Tp and Tc given in the request" in shown
    for fleet_wording in ("increase now", "under-provisioned", "(floor)", "data interval"):
        assert fleet_wording not in shown, fleet_wording
    b.get((site / "index.html").as_uri())
    index = str(b.execute("return document.body.innerText"))
    assert "Requested" in index and "peak MiB/s 40" in index and "growth/year +50%" in index
    assert "To create" in index and "Consumer groups to deploy" in index
    assert "Need more partitions now" not in index and "data interval" not in index
    with RecommendationStore(ui.home.store_url) as store:
        stored = store.latest(TOPIC)
    assert stored is not None and stored.status == "create"
    assert [g["status"] for g in stored.groups] == ["deploy"]


def test_a_bad_topic_name_shows_kafkas_naming_rule(ui: UI) -> None:
    b = ui.browser
    _open_form(b, ui.base)
    _open_section(b, "The topic")
    b.type(_field(b, "topic"), "payments v2!")
    _press_trigger(b)
    refused = _until("the refusal", lambda: "does not match" in _dialog_text(b) and _dialog_text(b))
    assert "Invalid input for param topic: 'payments v2!'" in refused, refused
    assert "Kafka's rule: 1 to 249 of a-z A-Z 0-9 . _ -, not . or .." in refused, refused
    runs = ui.api.get("/api/v2/dags/plan_new_topic/dagRuns")["dag_runs"]
    assert all(r["conf"].get("topic") != "payments v2!" for r in runs)  # nothing was run


def test_apply_plan_is_approved_in_the_ui_and_applies_what_was_shown(
    ui: UI, kafka: KRaftCluster, tmp_path: Path
) -> None:
    """`apply_plan`: triggered, its dry run shown in the approval, approved by clicking
    Approve on the task's Required Actions page; the changes land on the reference Kafka
    and the audit names the approver."""
    from confluent_kafka.admin import AdminClient, NewTopic

    from planner.store.audit import history
    from tests.changes.plans import RUN_KEY, published

    run = published(tmp_path, "ui-", replication_factor=1, brokers=1, store_url=ui.home.store_url)
    grow, create = run.name("orders.created"), run.name("payments.v2")
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
    new = [NewTopic(t, n, 1) for t, n in run.current.items() if n is not None]
    for future in admin.create_topics(new, operation_timeout=30).values():
        future.result(60)
    with ui.home.config.open("a", encoding="utf-8") as config:
        config.write(f'\n[sources.kafka]\nbootstrap = "{kafka.bootstrap}"\n')
    _wait("apply_plan to be parsed", lambda: ui.api.get("/api/v2/dags/apply_plan"), 240, ui.logs)
    ui.api.patch("/api/v2/dags/apply_plan", {"is_paused": False})
    started = time.monotonic()
    dag_run = ui.api.post(
        "/api/v2/dags/apply_plan/dagRuns",
        {"logical_date": None, "conf": {"run": RUN_KEY, "topics": [grow, create]}},
    )
    run_path = f"/api/v2/dags/apply_plan/dagRuns/{quote(dag_run['dag_run_id'])}"

    def waiting() -> bool:
        state = ui.api.get(f"{run_path}/taskInstances/approve_changes")["state"]
        assert state not in ("failed", "upstream_failed", "skipped"), state
        return state in ("awaiting_input", "deferred")

    _wait("the approval to wait for a person", waiting, 300, ui.logs)
    # Airflow 3.3.2's race: the process that parked the task exits "success"; if the
    # scheduler reads that event only after the approval re-queued the task, it takes it
    # for a state changed behind its back and fails the task. A person takes longer than
    # the scheduler; the test waits for the event as a person would (docs/apply.md).
    parked = (
        "Received executor event with state success for task instance TaskInstanceKey("
        f"dag_id='apply_plan', task_id='approve_changes', run_id='{dag_run['dag_run_id']}'"
    )
    _wait(
        "the scheduler to see the approval parked",
        lambda: parked in (ui.logs / "scheduler.log").read_text(errors="replace"),
        120,
        ui.logs,
    )
    b = ui.browser
    b.get(
        f"{ui.base}/dags/apply_plan/runs/{quote(dag_run['dag_run_id'])}/tasks/approve_changes"
        "/required_actions"
    )
    approve = _until("the Approve button", lambda: _button(b, "Approve", in_dialog=False), 120)
    shown = str(b.execute("return document.body.innerText"))
    # The approval shows the dry run: what changes, what it costs, its warnings.
    assert f"Apply run {RUN_KEY}: would apply 2" in shown, shown
    assert f"{grow}: 12 \u2192 60 partitions (+48): would apply" in shown, shown
    assert "cost: adds 48 partition replicas" in shown
    assert "warning falling-behind: group 'ui-billing' is falling behind now" in shown
    assert f"{create}: create with 12 partitions: would apply" in shown
    assert "key remaps not allowed" in shown
    b.screenshot(_artifacts() / "apply_plan-approval.png")
    b.click(approve)

    def finished() -> str | None:
        state = ui.api.get(run_path)["state"]
        return state if state in ("success", "failed") else None

    assert _wait("the apply_plan run", finished, 300, ui.logs) == "success"
    print(f"\napply_plan: approved and applied in {time.monotonic() - started:.1f} s")
    tasks = {
        t["task_id"]: t["state"] for t in ui.api.get(f"{run_path}/taskInstances")["task_instances"]
    }
    assert tasks == {
        "list_changes": "success",
        "approve_changes": "success",
        "apply_changes": "success",
    }
    topics = admin.list_topics(timeout=30).topics
    assert len(topics[grow].partitions) == 60
    assert len(topics[create].partitions) == 12
    # What was not approved is left alone.
    assert len(topics[run.name("payments.authorizations")].partitions) == 12
    with RecommendationStore(ui.home.store_url) as store:
        rows = history(store)
    executed = {r.topic: r for r in rows if r.mode == "execute"}
    assert executed[grow].outcome == executed[create].outcome == "applied"
    assert executed[grow].who.startswith("airflow:") and dag_run["dag_run_id"] in executed[grow].who
    dry = [r for r in rows if r.mode == "dry-run"]
    assert {r.topic for r in dry} == {grow, create}


def _artifacts() -> Path:
    import os

    return Path(
        os.environ.get("REPORT_ARTIFACTS", Path(__file__).parents[1] / "report" / "artifacts")
    )
