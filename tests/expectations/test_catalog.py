"""The suites as data: the JSON does not drift from the builders, and is what GX reads."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from expectations import export
from expectations.catalog import SUITE_DIR, SUITES, build_suite, suite_json, suite_parameters
from expectations.rules import TOPIC_OR_DEFAULT_REGEX, TOPIC_REGEX, column_rules, spark_type, target
from planner.figures.schema import TABLES, Column, Table
from planner.observe.tables import TABLES as OBSERVATION_TABLES


@pytest.mark.parametrize("name", list(SUITES))
def test_json_matches_its_builder(name: str) -> None:
    path = SUITE_DIR / f"{name}.json"
    assert path.is_file(), "run: python -m expectations.export"
    assert path.read_text(encoding="utf-8") == suite_json(name), (
        f"{path} has drifted from its builder; run: python -m expectations.export"
    )


def test_no_json_without_a_suite() -> None:
    assert sorted(p.stem for p in SUITE_DIR.glob("*.json")) == sorted(SUITES)
    assert export.drift() == []


@pytest.mark.parametrize("name", list(SUITES))
def test_json_is_a_suite_gx_reads_back_unchanged(name: str) -> None:
    import great_expectations as gx

    document = json.loads((SUITE_DIR / f"{name}.json").read_text(encoding="utf-8"))
    suite = gx.ExpectationSuite(**document)
    assert suite.name == name
    again = suite.to_json_dict()
    for expectation in again["expectations"]:
        expectation.pop("id", None)
    again.pop("id", None)
    assert again == document


def test_suite_names_follow_dataset_dot_layer() -> None:
    assert list(SUITES) == [
        "throughput.input",
        "topics.input",
        "capacity.input",
        "groups.input",
        "keys.input",
        "sizing.output",
        "simulations.output",
        "recommendations.output",
        *(f"{t}.observed" for t in OBSERVATION_TABLES),
    ]
    for name, spec in SUITES.items():
        assert spec.name == name
        assert spec.doc.startswith(f"`{name}`: ")


def test_input_suites_gate_every_column_of_their_table() -> None:
    for table in ("throughput", "topics", "capacity", "groups", "keys"):
        first = build_suite(f"{table}.input").expectations[0]
        assert first.expectation_type == "expect_table_columns_to_match_set"
        assert first.column_set == [c.name for c in TABLES[table].columns]


def test_output_suites_gate_every_column_of_their_schema() -> None:
    from spark_jobs import schemas

    for dataset, schema in (
        ("sizing", schemas.SIZING),
        ("simulations", schemas.SIMULATIONS),
        ("recommendations", schemas.RECOMMENDATIONS),
    ):
        first = build_suite(f"{dataset}.output").expectations[0]
        assert first.column_set == [f.name for f in schema.fields]


def test_only_topics_input_takes_parameters() -> None:
    assert {name: suite_parameters(name) for name in SUITES} == {
        name: ("broker_count", "min_coverage") if name == "topics.input" else () for name in SUITES
    }


def test_every_query_reads_the_batch_and_names_its_rule() -> None:
    for name in SUITES:
        for e in build_suite(name).expectations:
            if e.expectation_type == "unexpected_rows_expectation":
                assert "{batch}" in e.unexpected_rows_query
                assert re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", e.meta["rule"])
                assert e.meta["rule"].split(".")[0] in name.split(".")[0]


def test_every_expectation_says_its_rule_in_words() -> None:
    for name in SUITES:
        for e in build_suite(name).expectations:
            assert e.description and len(e.description) > 10, (name, e.expectation_type)


@pytest.mark.parametrize(
    ("name", "legal"),
    [
        ("orders", True),
        ("payments.v2_eu-west-1", True),
        ("a" * 249, True),
        ("a" * 250, False),
        ("", False),
        ("orders/eu", False),
        ("bad topic", False),
        ("ordérs", False),
        ("*", False),
    ],
)
def test_topic_regex_is_kafkas_rule(name: str, legal: bool) -> None:
    assert (re.fullmatch(TOPIC_REGEX, name) is not None) is legal
    assert re.fullmatch(TOPIC_OR_DEFAULT_REGEX, "*")


def test_an_unknown_rule_or_type_in_the_schema_is_refused() -> None:
    odd = Table("odd", (Column("x", pa.string(), True, "shiny", "?"),), (), "?")
    with pytest.raises(ValueError, match="rule 'shiny'"):
        column_rules(odd)
    with pytest.raises(ValueError, match="no Spark type"):
        spark_type(pa.float32())
    assert spark_type(pa.timestamp("us", tz="UTC")) == "TimestampType"


def test_targets_key_results() -> None:
    assert target("expect_column_values_to_be_unique", {"column": "topic"}, {}) == "topic"
    assert target("x", {"column_A": "a", "column_B": "b"}, None) == "a,b"
    assert target("x", {"column_list": ["topic", "ts"]}, None) == "topic,ts"
    assert target("unexpected_rows_expectation", {}, {"rule": "keys.text_or_hex"}) == (
        "keys.text_or_hex"
    )
    assert target("expect_table_row_count_to_be_between", {"min_value": 1}, {}) == "table"


def test_export_writes_checks_and_cleans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert export.main(["--check", "--dir", str(tmp_path)]) == 1
    assert "missing" in capsys.readouterr().err
    (tmp_path / "old.suite.json").write_text("{}", encoding="utf-8")
    assert export.main(["--dir", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.json" for n in SUITES)
    assert export.main(["--check", "--dir", str(tmp_path)]) == 0
    (tmp_path / "keys.input.json").write_text("{}\n", encoding="utf-8")
    assert export.drift(tmp_path) == [f"{tmp_path / 'keys.input.json'}: differs from its builder"]


def test_importing_the_package_imports_no_heavy_module() -> None:
    code = (
        "import json, sys, expectations, expectations.export\n"
        "heavy = ('pyspark', 'pandas', 'great_expectations', 'sqlalchemy', 'airflow')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


@pytest.mark.parametrize("name", list(SUITES))
def test_every_input_expectation_says_whether_it_stops_the_run(name: str) -> None:
    from expectations.inputs import RUN_LEVEL_TYPES, level_of

    document = json.loads((SUITE_DIR / f"{name}.json").read_text(encoding="utf-8"))
    for expectation in build_suite(name).expectations:
        if name.endswith((".output", ".observed")):
            # All or nothing: an output suite's failure always stops the publish, an
            # observation suite's the collection.
            assert "level" not in (expectation.meta or {})
            continue
        level = level_of(expectation)
        assert level == ("run" if expectation.expectation_type in RUN_LEVEL_TYPES else "row")
    levels = {e["meta"].get("level") for e in document["expectations"]}
    assert levels == ({None} if name.endswith((".output", ".observed")) else {"row", "run"})
