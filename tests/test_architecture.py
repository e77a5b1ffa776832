"""The pure core stays pure: no heavy imports, no file or environment access."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE_MODULES = [
    "planner.sizing",
    "planner.cost",
    "planner.partitioners",
    "planner.assignors",
    "planner.simulate",
    "planner.recommend",
    "planner.report.model",
    "planner.report.svg",
    "planner.report.charts",
    "planner.report.layout",
    "planner.report.names",
    "planner.report.exports",
    "planner.report.index_page",
    "planner.report.topic_page",
    "planner.report.from_plan",
    "planner.report.from_outputs",
]
HEAVY = (
    "pyspark",
    "pandas",
    "great_expectations",
    "airflow",
    "confluent_kafka",
    "kafka",
    "sqlalchemy",
)


def _core_files() -> list[Path]:
    files: list[Path] = []
    for module in CORE_MODULES:
        base = ROOT / Path(*module.split("."))
        files.extend(sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")])
    return files


def test_core_imports_nothing_heavy() -> None:
    code = (
        "import json, sys\n"
        + "".join(f"import {m}\n" for m in CORE_MODULES)
        + f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


@pytest.mark.parametrize("path", _core_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_reads_no_files_and_no_environment(path: Path) -> None:
    tree = ast.parse(path.read_text(), filename=str(path))
    offences: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "open"
        ):
            offences.append(f"line {node.lineno}: open()")
        if isinstance(node, ast.Attribute) and node.attr in {
            "environ",
            "getenv",
            "read_text",
            "read_bytes",
        }:
            offences.append(f"line {node.lineno}: .{node.attr}")
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            for name in names:
                if name.split(".")[0] in (*HEAVY, "os", "pathlib", "subprocess", "socket"):
                    offences.append(f"line {node.lineno}: import {name}")
    assert offences == []
