"""`partition-planner export`: every format, checked by what reads it.

- `kafka-topics`: the script runs as written on the reference Kafka with no
  `kafka-topics.sh` on `PATH` (the project's own install's `TopicCommand`);
- `strimzi`: Strimzi 0.49.0's own model classes read each KafkaTopic, strictly
  (`java/StrictKafkaTopic.java`); a resource with a misspelt field fails there;
- `terraform`: python-hcl2 parses every file (no Terraform binary is reachable here);
- `keda`: KEDA 2.20.2's ScaledObject CRD schema (`data/`), with unknown fields refused as
  the API server's strict field validation does, and its Kafka scaler's parameters;
- `json`: the change list, whole and per topic and group.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import hcl2
import jsonschema
import pytest
import yaml

from planner.adapters.kraft import KRaftCluster
from planner.changes import change_list, read_published
from planner.cli import main
from planner.export.terraform import hcl_str
from tests.changes.plans import RUN_KEY, Published, published
from tests.support.java import compiled_against

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data"
STRIMZI_VERSION = "0.49.0"
STRIMZI_LIBS = ROOT / "var" / "strimzi" / STRIMZI_VERSION / "libs"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Published:
    # Replication factor 1 on one broker: the `kafka` fixture can take every change.
    return published(tmp_path_factory.mktemp("pub"), "ex-", replication_factor=1, brokers=1)


def _export(run: Published, out: Path, *extra: str, store: bool = True) -> int:
    source = ["--store", run.store_url] if store else ["--recommendations", str(run.file)]
    return main(["export", *source, "--out", str(out), *extra])


@pytest.fixture(scope="module")
def exported(run: Published, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export")
    args = ["--bootstrap", "kafka-0:9092,kafka-1:9092", "--strimzi-cluster", "prod"]
    assert _export(run, out, *args, "--label", "team=payments", "--namespace", "kafka") == 0
    return out


def _without_source(folder: Path) -> dict[str, str]:
    # Every file, its header (which names the store or the file) left out.
    header = re.compile(r"(#|//) partition-planner export .*?today's\.\n", re.DOTALL)
    return {
        str(p.relative_to(folder)): header.sub("", p.read_text())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_store_and_the_file_export_the_same_files(
    run: Published, exported: Path, tmp_path: Path
) -> None:
    args = ["--bootstrap", "kafka-0:9092,kafka-1:9092", "--strimzi-cluster", "prod"]
    assert _export(run, tmp_path, *args, "--label", "team=payments", "--namespace", "kafka",
                   store=False) == 0  # fmt: skip
    mine, theirs = _without_source(tmp_path), _without_source(exported)
    for name in mine:
        if name == "json/changes.json":
            a, b = json.loads(mine[name]), json.loads(theirs[name])
            a.pop("source"), b.pop("source")
            assert a == b
        else:
            assert mine[name] == theirs[name], name
    assert set(mine) == set(theirs)
    assert sorted(p.name for p in exported.iterdir()) == [
        "json",
        "kafka-topics",
        "keda",
        "strimzi",
        "terraform",
    ]


def test_every_file_carries_the_warnings_of_its_change(run: Published, exported: Path) -> None:
    keyed = run.name("payments.authorizations")
    for path in (
        exported / "kafka-topics" / "topics" / f"{keyed}.sh",
        exported / "strimzi" / "topics" / f"{keyed}.yaml",
        exported / "terraform" / "topics" / f"{keyed}.tf",
    ):
        text = path.read_text()
        assert f"run {RUN_KEY}" in text, path
        assert "# warning [keyed-remap]: keyed topic: going from 12 to 16 partitions" in text
        assert "# cost: adds 4 partition replicas" in text, path
    fraud = (exported / "keda" / "groups" / f"{run.name('fraud-scoring')}.yaml").read_text()
    assert "# warning [under-provisioned]: 6 members today, 11 needed" in fraud
    # Nothing for the topic that keeps its count, in any format.
    for folder in exported.iterdir():
        assert not list(folder.rglob(f"{run.name('audit.log')}.*")), folder


def test_the_kafka_topics_script_runs_as_written_with_the_projects_own_kafka(
    run: Published, kafka: KRaftCluster, tmp_path: Path
) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    grow, create = run.name("orders.created"), run.name("payments.v2")
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap})
    for future in admin.create_topics([NewTopic(grow, 12, 1)], operation_timeout=30).values():
        future.result(60)
    out = tmp_path / "out"
    assert _export(run, out, "--format", "kafka-topics", "--topic", grow, "--topic", create) == 0
    script = out / "kafka-topics" / "all.sh"
    assert os.access(script, os.X_OK)
    # No kafka-topics.sh on PATH: the script runs TopicCommand from var/kafka.
    path = os.pathsep.join(
        p
        for p in os.environ["PATH"].split(os.pathsep)
        if not (Path(p) / "kafka-topics.sh").exists()
    )
    done = subprocess.run(
        [shutil.which("bash") or "bash", str(script)],
        env={**os.environ, "PATH": path, "BOOTSTRAP_SERVERS": kafka.bootstrap},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    topics = admin.list_topics(timeout=30).topics
    assert len(topics[grow].partitions) == 60
    assert len(topics[create].partitions) == 12
    # Without the brokers it stops before running anything.
    unset = {k: v for k, v in os.environ.items() if k != "BOOTSTRAP_SERVERS"}
    done = subprocess.run(["bash", str(script)], env=unset, capture_output=True, text=True)
    assert done.returncode != 0 and "set BOOTSTRAP_SERVERS" in done.stderr


def _strict_kafka_topics(*files: Path) -> subprocess.CompletedProcess[str]:
    assert STRIMZI_LIBS.is_dir(), "Strimzi's classes are missing: run make test (scripts/setup.sh)"
    classpath = str(STRIMZI_LIBS / "*")
    classes = compiled_against(
        "strict-kafka-topic",
        [Path(__file__).parent / "java" / "StrictKafkaTopic.java"],
        classpath,
        version=f"strimzi-{STRIMZI_VERSION}",
    )
    return subprocess.run(
        ["java", "-Xmx128m", "-cp", f"{classes}{os.pathsep}{classpath}", "StrictKafkaTopic"]
        + [str(f) for f in files],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_strimzis_own_classes_read_every_kafka_topic_strictly(
    run: Published, exported: Path, tmp_path: Path
) -> None:
    folder = exported / "strimzi"
    files = [folder / "all.yaml", *sorted((folder / "topics").glob("*.yaml"))]
    # The older API, for Strimzi 0.48 and before, and a name Kubernetes cannot hold.
    assert _export(run, tmp_path / "b", "--format", "strimzi", "--strimzi-api-version",
                   "v1beta2") == 0  # fmt: skip
    files.append(tmp_path / "b" / "strimzi" / "all.yaml")
    # A misspelt field, and a metadata field Kubernetes does not have: Strimzi's classes
    # keep both aside; the program refuses them.
    one = (folder / "topics" / f"{run.name('orders.created')}.yaml").read_text()
    misspelt = tmp_path / "misspelt.yaml"
    misspelt.write_text(one.replace("  partitions:", "  partiton:"))
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text(one.replace("metadata:\n", "metadata:\n  owner: me\n"))
    served = tmp_path / "served.yaml"
    served.write_text(one.replace("kafka.strimzi.io/v1", "kafka.strimzi.io/v2"))
    done = _strict_kafka_topics(*files, misspelt, unknown, served)
    lines = done.stdout.splitlines()
    errors = [line for line in lines if line.startswith("ERROR")]
    assert errors == [
        f"ERROR {misspelt}: unknown field(s) in spec: [partiton]",
        f"ERROR {unknown}: unknown field(s) in metadata: [owner]",
        f"ERROR {served}: apiVersion kafka.strimzi.io/v2 is not one Strimzi serves: "
        "[v1, v1beta2, v1beta1, v1alpha1]",
    ], done.stdout + done.stderr
    read = [json.loads(line) for line in lines if not line.startswith("ERROR")]
    changes = change_list(read_published(run.records))
    expected = {c.topic: c for c in changes.topics}
    combined = [r for r in read if r["file"] == str(files[0])]
    assert [r["topicName"] for r in combined] == sorted(expected)
    for r in read:
        c = expected[r["topicName"]]
        assert (r["partitions"], r["replicas"]) == (c.to_partitions, 1)
        if r["file"].startswith(str(folder)):
            assert r["apiVersion"] == "kafka.strimzi.io/v1"
            assert r["labels"] == {"strimzi.io/cluster": "prod", "team": "payments"}
            assert r["namespace"] == "kafka" and r["name"] == c.topic
        else:
            assert r["apiVersion"] == "kafka.strimzi.io/v1beta2" and not r["labels"]
    assert len(read) == 2 * len(expected) + len(expected)


def _hcl(text: str) -> Any:
    """python-hcl2's reading of `text`, as plain values: python-hcl2 8 keeps a string's
    quotes (and HCL's escapes) and marks blocks; strings here are unquoted, marks dropped."""

    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                plain(k): plain(v)
                for k, v in value.items()
                if k not in ("__is_block__", "__comments__")
            }
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
            return value[1:-1]
        return value

    return plain(hcl2.loads(text))


def _label(topic: str) -> str:
    return topic.replace(".", "_").replace("-", "_")


def test_the_terraform_files_parse_as_hcl2(run: Published, exported: Path) -> None:
    folder = exported / "terraform"
    changes = change_list(read_published(run.records))
    combined = _hcl((folder / "kafka_topics.tf").read_text())
    assert combined["terraform"][0]["required_providers"][0]["kafka"]["source"] == "Mongey/kafka"
    resources = {
        label: body
        for block in combined["resource"]
        for label, body in block["kafka_topic"].items()
    }
    assert sorted(resources) == sorted(_label(c.topic) for c in changes.topics)
    for c in changes.topics:
        body = resources[_label(c.topic)]
        assert (body["name"], body["partitions"], body["replication_factor"]) == (
            c.topic,
            c.to_partitions,
            1,
        )
        assert body["lifecycle"] == [{"prevent_destroy": True}]
        one = _hcl((folder / "topics" / f"{c.topic}.tf").read_text())
        assert one["resource"] == [{"kafka_topic": {_label(c.topic): body}}]


@pytest.mark.parametrize("text", ['a"b', "back\\slash", "${var.x}", "%{if x}", "line\nbreak"])
def test_a_string_reaches_terraform_as_written(text: str) -> None:
    value = _hcl(f"x = {hcl_str(text)}\n")["x"]
    # HCL's own escapes, undone as Terraform reads them: $${ and %%{ are literal ${ and %{.
    assert json.loads(f'"{value}"').replace("$${", "${").replace("%%{", "%{") == text


def _crd_schema() -> dict[str, Any]:
    crd = yaml.safe_load((DATA / "keda.sh_scaledobjects-v2.20.2.yaml").read_text())
    [version] = [v for v in crd["spec"]["versions"] if v["name"] == "v1alpha1"]
    return _strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Unknown fields refused, as `kubectl apply --validate=strict` refuses them: every
    object with declared properties and no other rule gets additionalProperties false;
    Kubernetes' own `metadata` is checked apart."""
    if schema.get("type") == "object" and "properties" in schema:
        schema.setdefault("additionalProperties", False)
    for key in ("properties", "additionalProperties", "items"):
        found = schema.get(key)
        if isinstance(found, dict):
            if key == "properties":
                for sub in found.values():
                    _strict(sub)
            else:
                _strict(found)
    return schema


def _scaler_parameters() -> dict[str, str]:
    # name -> its tag: which the scaler reads from a trigger's metadata.
    found = {}
    for line in (DATA / "keda-kafka-scaler-v2.20.2.txt").read_text().splitlines():
        match = re.search(r'`keda:"name=([A-Za-z]+),order=([^,"]+)([^"]*)"`', line)
        if match and "triggerMetadata" in match.group(2):
            found[match.group(1)] = line
    return found


_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")


def _check_scaled_object(so: dict[str, Any], schema: dict[str, Any]) -> None:
    jsonschema.validate(so, schema)
    assert _DNS_LABEL.fullmatch(so["metadata"]["name"]), so["metadata"]
    assert set(so["metadata"]) <= {"name", "namespace", "labels"}
    parameters = _scaler_parameters()
    for trigger in so["spec"]["triggers"]:
        assert trigger["type"] == "kafka"
        meta = trigger["metadata"]
        assert set(meta) <= set(parameters), set(meta) - set(parameters)
        assert {"bootstrapServers", "consumerGroup"} <= set(meta)  # required by the scaler
        assert int(meta["lagThreshold"]) >= 1  # int64 in the scaler
        for flag in ("allowIdleConsumers",):
            assert meta.get(flag, "false") in ("true", "false")
    assert 1 <= so["spec"]["minReplicaCount"] <= so["spec"]["maxReplicaCount"]


def test_keda_scaled_objects_meet_the_crd_schema_and_the_scalers_parameters(
    run: Published, exported: Path
) -> None:
    schema = _crd_schema()
    folder = exported / "keda"
    objects = [d for d in yaml.safe_load_all((folder / "scaledobjects.yaml").read_text()) if d]
    changes = change_list(read_published(run.records))
    assert [o["spec"]["triggers"][0]["metadata"]["consumerGroup"] for o in objects] == [
        g.group_id for g in changes.groups
    ]
    for so, group in zip(objects, changes.groups, strict=True):
        _check_scaled_object(so, schema)
        meta = so["spec"]["triggers"][0]["metadata"]
        assert meta["bootstrapServers"] == "kafka-0:9092,kafka-1:9092"
        assert meta["topic"] == group.topics[0]
        # lagThreshold = Tc (records/s per member) x the target lag, 30 s by default.
        assert group.tc_records_per_s is not None
        assert meta["lagThreshold"] == str(math.ceil(group.tc_records_per_s * 30))
        assert so["spec"]["minReplicaCount"] == group.members_now
        assert so["spec"]["maxReplicaCount"] == group.to_members
        assert so["metadata"]["labels"] == {"team": "payments"}
        one = yaml.safe_load((folder / "groups" / f"{group.group_id}.yaml").read_text())
        assert one == so
    text = (folder / "scaledobjects.yaml").read_text()
    assert "# lagThreshold 237,000 records = Tc 7,900 records/s per member" in text
    # What the schema refuses: a number where KEDA's metadata holds strings, a field
    # KEDA does not have.
    bad = copy.deepcopy(objects[0])
    bad["spec"]["triggers"][0]["metadata"]["lagThreshold"] = 237000
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    bad = copy.deepcopy(objects[0])
    bad["spec"]["minReplicas"] = 1
    with pytest.raises(jsonschema.ValidationError, match="minReplicas"):
        jsonschema.validate(bad, schema)


def test_the_json_change_list(run: Published, exported: Path) -> None:
    whole = json.loads((exported / "json" / "changes.json").read_text())
    assert whole["run"] == RUN_KEY
    keyed = next(t for t in whole["topics"] if t["topic"] == run.name("payments.authorizations"))
    assert (keyed["action"], keyed["from"], keyed["to"], keyed["keyed"]) == (
        "increase",
        12,
        16,
        True,
    )
    assert keyed["warnings"][0]["code"] == "keyed-remap"
    assert keyed["warnings"][0]["params"]["current_partitions"] == 12
    created = next(t for t in whole["topics"] if t["topic"] == run.name("payments.v2"))
    assert (created["action"], created["from"], created["to"]) == ("create", None, 12)
    assert [(s["name"], s["reason"]) for s in whole["skipped"]] == [
        (run.name("audit.log"), "no-change"),
        (run.name("ledger-writer"), "members-unchanged"),
    ]
    fraud = json.loads(
        (exported / "json" / "groups" / f"{run.name('fraud-scoring')}.json").read_text()
    )
    assert (fraud["group"], fraud["from"], fraud["to"], fraud["run"]) == (
        run.name("fraud-scoring"),
        6,
        11,
        RUN_KEY,
    )


def test_a_second_export_replaces_the_first(run: Published, tmp_path: Path) -> None:
    assert _export(run, tmp_path, "--format", "json") == 0
    assert (tmp_path / "json" / "topics" / f"{run.name('orders.created')}.json").is_file()
    assert _export(run, tmp_path, "--format", "json", "--topic", run.name("payments.v2")) == 0
    assert [p.name for p in (tmp_path / "json" / "topics").iterdir()] == [
        f"{run.name('payments.v2')}.json"
    ]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".staging")]


def test_bad_requests_say_what_is_wrong(
    run: Published, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _export(run, tmp_path, "--format", "keda") == 2
    assert "--bootstrap: KEDA's scaler needs the brokers" in capsys.readouterr().err
    # Every format by default: all but KEDA are written, and it says why.
    assert _export(run, tmp_path / "all") == 0
    assert "keda: not written: give the brokers" in capsys.readouterr().out
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == [
        "json",
        "kafka-topics",
        "strimzi",
        "terraform",
    ]
    assert _export(run, tmp_path, "--topic", "nope") == 2
    assert "--topic: not in the published plan: nope" in capsys.readouterr().err
    assert main(["export", "--store", run.store_url, "--run", "20200101T0000Z",
                 "--out", str(tmp_path)]) == 1  # fmt: skip
    err = capsys.readouterr().err
    assert "no published run '20200101T0000Z'" in err and RUN_KEY in err
    assert main(["export", "--recommendations", str(tmp_path / "missing.json"),
                 "--out", str(tmp_path)]) == 1  # fmt: skip
    assert "cannot read it as recommendations.json" in capsys.readouterr().err


def test_keda_for_groups_of_several_topics_share_groups_and_hostile_ids() -> None:
    from planner.changes import ChangeList, GroupChange
    from planner.export import ExportOptions, render

    def group(group_id: str, topics: tuple[str, ...], **changes: Any) -> GroupChange:
        fields: dict[str, Any] = {
            "group_id": group_id,
            "topics": topics,
            "protocol": "classic",
            "strategy": "cooperative-sticky",
            "from_members": 2,
            "to_members": 5,
            "members_now": 4,
            "standby_members": 0,
            "partitions": 4,
            "tc_records_per_s": 1000.5,
            "notes": (),
        }
        return GroupChange(**(fields | changes))

    hostile = 'evil\n  topic: "x"\u2028#'
    changes = ChangeList(
        run=RUN_KEY,
        topics=(),
        groups=(
            group("ingest", ("a", "b")),
            group(hostile, ("a",), partitions=12),
            group("shared", ("a",), protocol="share", strategy="simple"),
            group("unmeasured", ("c",), tc_records_per_s=None),
        ),
        skipped=(),
    )
    options = ExportOptions(bootstrap_servers="k:9092", target_lag_s=12.5)
    files = {f.path: f.text for f in render("keda", changes, options)}
    text = files["scaledobjects.yaml"]
    objects = [d for d in yaml.safe_load_all(text) if d]
    schema = _crd_schema()
    for so in objects:
        _check_scaled_object(so, schema)
    ingest, evil = objects
    meta = ingest["spec"]["triggers"][0]["metadata"]
    # Two topics: no topic, so the scaler sums the lag of both; 5 members on 4 partitions
    # need idle consumers allowed.
    assert "topic" not in meta and meta["allowIdleConsumers"] == "true"
    assert meta["lagThreshold"] == str(math.ceil(1000.5 * 12.5))
    assert "No topic: the scaler sums the lag of every topic the group commits on (a, b)" in text
    # A group id that is YAML: a value, exactly; in comments, escaped.
    assert evil["spec"]["triggers"][0]["metadata"]["consumerGroup"] == hostile
    assert "allowIdleConsumers" not in evil["spec"]["triggers"][0]["metadata"]
    assert all(not line.startswith("  topic") for line in text.splitlines() if "evil" in line)
    assert "Not written: shared: 2 -> 5 members (simple): a share group (KIP-932)" in text
    assert (
        "Not written: unmeasured: 2 -> 5 members (cooperative-sticky): no Tc in records/s" in text
    )
    assert sorted(files) == sorted(
        ["scaledobjects.yaml", "groups/ingest.yaml", f"groups/{_stem(hostile)}.yaml"]
    )


def _stem(name: str) -> str:
    from planner.export._text import file_stems

    return file_stems([name])[name]
