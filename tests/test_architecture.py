"""The boundaries the README promises: a pure core, a report model that writes nothing,
and Spark jobs that the pipeline runs without the jobs importing the pipeline back."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE_MODULES = [
    "planner.choices",
    "planner.guard",
    "planner.fit",
    "planner.growth",
    "planner.notes",
    "planner.sizing",
    "planner.cost",
    "planner.cross_zone",
    "planner.observed",
    "planner.partition_capacity",
    "planner.group_capacity",
    "planner.observe.reservoir",
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
    "planner.report.from_outputs",
    "planner.changes",
    "planner.export",
    "planner.apply.decide",
    "planner.apply.report",
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
            "write_text",
            "write_bytes",
        }:
            offences.append(f"line {node.lineno}: .{node.attr}")
        if (
            isinstance(node, ast.Attribute)
            and node.attr in {"open", "fdopen"}
            and isinstance(node.value, ast.Name)
            and node.value.id in {"os", "io", "tempfile"}
        ):
            offences.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
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


# The report's model and rendering: what `from_outputs` and the pages need.
REPORT_RENDERING = [m for m in CORE_MODULES if m.startswith("planner.report.")]
# What publishes and writes files: never loaded by importing the model or rendering.
WRITERS = ("planner.report.publish", "planner.report.site", "planner.locks", "planner.pipeline")


def test_importing_the_report_model_and_rendering_loads_no_publishing_or_writing() -> None:
    code = (
        "import json, sys\n"
        + "".join(f"import {m}\n" for m in ["planner.report", *REPORT_RENDERING])
        + f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({WRITERS!r}))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def _imports(path: Path) -> list[tuple[int, str]]:
    # Every module a file imports, at any depth (function-level imports included).
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize(
    "path", sorted((ROOT / "spark_jobs").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_the_spark_jobs_never_import_the_pipeline_that_runs_them(path: Path) -> None:
    # `planner.pipeline` owns the job entry points (it submits or calls the jobs); the
    # jobs import the core and `planner.figures`, never the pipeline: no import cycle.
    offences = [f"line {n}: {m}" for n, m in _imports(path) if m.startswith("planner.pipeline")]
    assert offences == []


_PACKAGES = ("planner", "spark_jobs", "expectations", "dags")


def _project_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in _PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Every project module another imports anywhere in it, functions included: a
    function-level import is a cycle put off until the call, not one removed."""

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(t for a in node.names if (t := known(a.name)))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    base = f"{anchor}.{base}" if base else anchor
                for alias in node.names:  # `from package import module` names a module
                    target = f"{base}.{alias.name}"
                    found.add(target if target in modules else known(base) or "")
        found.discard(name)
        found.discard("")
        graph[name] = found
    return graph


def test_no_import_cycles_among_the_projects_modules() -> None:
    from graphlib import CycleError, TopologicalSorter

    graph = _import_graph(_project_modules())
    assert graph["planner.cli"] >= {"planner.commands.plan", "planner.commands.common"}
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        raise AssertionError(f"import cycle: {' -> '.join(exc.args[1])}") from None


#: Test folders that test no one package but how the pieces work together or against
#: Kafka's own code: live clients and groups, the assignor oracles' Java, shared helpers,
#: and the deployment files.
CROSS_CUTTING_TEST_FOLDERS = frozenset({"integration", "oracle", "support", "deploy"})


def test_the_tests_mirror_the_packages() -> None:
    # tests/<name> tests planner/<name>, or the top-level package of that name
    # (spark_jobs, expectations, dags); tests/planner holds the tests of planner's own
    # top-level modules. A folder of another name is a cross-cutting one, said above.
    packages = {p.name for p in (ROOT / "planner").iterdir() if any(p.glob("*.py"))}
    packages |= {"planner", "spark_jobs", "expectations", "dags"}
    folders = {
        p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py"))
    }
    assert folders - packages - CROSS_CUTTING_TEST_FOLDERS == set()
    # tests/planner/<sub> would be a second home for planner/<sub>'s tests.
    nested = {p.name for p in (ROOT / "tests" / "planner").iterdir() if p.is_dir()}
    assert nested - {"__pycache__"} == set()
