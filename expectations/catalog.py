"""Every suite by name, built from its Python builder, and its reviewable JSON form.

The builders in `expectations.inputs` and `expectations.outputs` are the source of truth;
`expectations/suites/<name>.json` is their export (`python -m expectations.export`), kept
in the repository so a change to a rule shows up in review as a change to data. A test
fails when the two drift. Validation builds suites from the builders, so the package
works installed without its JSON files.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expectations import inputs, observed, outputs
from expectations.rules import target
from planner.figures.schema import TABLES

if TYPE_CHECKING:
    from great_expectations.core import ExpectationSuite
    from great_expectations.expectations.expectation import Expectation

__all__ = [
    "SUITES",
    "SUITE_DIR",
    "SuiteSpec",
    "build_suite",
    "suite_document",
    "suite_json",
    "suite_parameters",
]

#: Where the exported JSON lives (in the source tree).
SUITE_DIR = Path(__file__).resolve().parent / "suites"


@dataclass(frozen=True)
class SuiteSpec:
    """One suite: its name, builder, and the columns that identify a row of its dataset.

    Attributes:
        name: `<dataset>.<layer>`, e.g. `throughput.input`.
        build: Returns the suite's expectations, in review order.
        row_key: Columns that identify a row; failure messages name bad rows by them.
    """

    name: str
    build: Callable[[], list[Expectation]]
    row_key: tuple[str, ...]

    @property
    def doc(self) -> str:
        """The first line of the builder's docstring: what the suite checks."""
        return (self.build.__doc__ or "").strip().splitlines()[0]


def _specs() -> Iterator[SuiteSpec]:
    for table, build in (
        ("throughput", inputs.throughput_input),
        ("topics", inputs.topics_input),
        ("capacity", inputs.capacity_input),
        ("groups", inputs.groups_input),
        ("keys", inputs.keys_input),
    ):
        yield SuiteSpec(f"{table}.input", build, TABLES[table].key)
    for dataset, build in (
        ("sizing", outputs.sizing_output),
        ("simulations", outputs.simulations_output),
        ("recommendations", outputs.recommendations_output),
    ):
        yield SuiteSpec(f"{dataset}.output", build, outputs.ROW_KEYS[dataset])
    for name, (table, build) in observed.OBSERVED.items():
        yield SuiteSpec(name, build, observed.ROW_KEYS[table])


SUITES: Mapping[str, SuiteSpec] = {spec.name: spec for spec in _specs()}


def _spec(name: str) -> SuiteSpec:
    try:
        return SUITES[name]
    except KeyError:
        raise KeyError(f"no suite called {name!r}; suites: {', '.join(SUITES)}") from None


def _check_unique_targets(name: str, expectations: Sequence[Expectation]) -> None:
    seen: set[tuple[str, str]] = set()
    for e in expectations:
        config = e.configuration
        key = (config.type, target(config.type, config.kwargs, config.meta))
        if key in seen:
            # Results are matched back to the suite by this key: it must be unique.
            raise ValueError(f"suite {name}: two expectations are both {key}")
        seen.add(key)


def build_suite(name: str) -> ExpectationSuite:
    """The suite called `name`, freshly built (not attached to any data context).

    Raises:
        KeyError: no such suite.
        ValueError: two of its expectations check the same thing the same way.
    """
    import great_expectations as gx

    spec = _spec(name)
    expectations = spec.build()
    _check_unique_targets(name, expectations)
    return gx.ExpectationSuite(name=name, expectations=expectations)


def _without_ids(value: Any) -> Any:
    # GX gives every suite and expectation a random UUID when it stores them; they
    # carry no meaning in a reviewed file and would change on every export.
    if isinstance(value, dict):
        return {k: _without_ids(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return value


def suite_document(name: str) -> dict[str, Any]:
    """The suite as the JSON-ready document that is exported and reviewed (no ids)."""
    document: dict[str, Any] = _without_ids(build_suite(name).to_json_dict())
    return document


def suite_json(name: str) -> str:
    """The exported file's exact text: the document, two-space indented, newline at end."""
    return json.dumps(suite_document(name), indent=2, ensure_ascii=False) + "\n"


def suite_parameters(name: str) -> tuple[str, ...]:
    """The suite parameters (`{"$PARAMETER": ...}`) a validation of `name` must supply."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "$PARAMETER" in value and value["$PARAMETER"] not in found:
                found.append(str(value["$PARAMETER"]))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(suite_document(name)["expectations"])
    return tuple(found)
