"""`partition-planner`: the command line.

Subcommands:
  size      the sizing rule and the cost panel, from flags
  simulate  consumer-group assignments over candidate partition counts and group sizes
  demo      the model on the bundled example topic, with a recommendation
  perf-test read kafka-producer/consumer-perf-test output into Tp and Tc
  measure   run Kafka's perf tools on one partition of a cluster and land Tp and Tc
  collect   gather one data interval's figures from the configured sources
  observe   sample a live cluster over time into the observations dataset
  show      a topic's latest published recommendation, from the store
  sample    write a realistic sample fleet as a landing folder (demos, tests, benchmarks)
  plan      the whole pipeline for one data interval: collect, validate, size, simulate,
            validate, publish (what the Airflow DAG runs)
  export    a published run's changes as kafka-topics scripts, Strimzi, Terraform, KEDA, JSON
  apply     make a published run's partition changes on the cluster (a dry run by default)

Bad arguments print one line naming the flag and exit with code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A bad argument: one line naming the flag, exit code 2."""


class Failed(Exception):
    """Input or a source the run cannot use: one line naming what and where, exit code 1."""


class _Parser(argparse.ArgumentParser):
    # argparse prints the whole usage block before its error; a planner run from a script
    # or a DAG wants the one line that names the flag.
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _number(kind: str, check: Callable[[float], bool]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}") from None
        if not math.isfinite(value) or not check(value):
            raise argparse.ArgumentTypeError(f"expected {kind}, got {text!r}")
        return value

    parse.__name__ = kind
    return parse


positive = _number("a number above zero", lambda v: v > 0)
non_negative = _number("a number, zero or above", lambda v: v >= 0)
growth_fraction = _number("a yearly growth fraction above -1", lambda v: v > -1)


def whole(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {text!r}")
        return value

    return parse


def int_list(text: str) -> list[int]:
    """`12,24,48` or `1-16` or a mix: `1-4,8,16`."""
    values: list[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if "-" in part:
                low, high = (int(x) for x in part.split("-", 1))
                if low < 1 or high < low:
                    raise ValueError
                values.extend(range(low, high + 1))
            else:
                value = int(part)
                if value < 1:
                    raise ValueError
                values.append(value)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected whole numbers >= 1 like 12,24 or 1-16, got {text!r}"
            ) from None
    return sorted(set(values))


def print_json(payload: Any) -> None:
    json.dump(payload, sys.stdout, indent=2, default=_json_default)
    sys.stdout.write("\n")


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    if hasattr(value, "isoformat"):  # datetime, date
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def build_parser() -> argparse.ArgumentParser:
    from planner.commands import (
        apply,
        collect,
        demo,
        export,
        measure,
        observe,
        perf_test,
        plan,
        sample,
        show,
        simulate,
        size,
    )

    parser = _Parser(prog="partition-planner", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    size.add_parser(sub)
    simulate.add_parser(sub)
    demo.add_parser(sub)
    perf_test.add_parser(sub)
    measure.add_parser(sub)
    collect.add_parser(sub)
    observe.add_parser(sub)
    sample.add_parser(sub)
    show.add_parser(sub)
    plan.add_parser(sub)
    export.add_parser(sub)
    apply.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except UsageError as exc:
        sys.stderr.write(f"partition-planner {args.command}: error: {exc}\n")
        return EXIT_USAGE
    except Failed as exc:
        sys.stderr.write(f"partition-planner {args.command}: failed: {exc}\n")
        return EXIT_FAILED
    return result


if __name__ == "__main__":
    # Run through the package module so the commands (which import planner.cli) share
    # one UsageError class with main(); `python -m planner.cli` loads this file twice.
    from planner.cli import main as package_main

    raise SystemExit(package_main())
