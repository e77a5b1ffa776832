"""What every subcommand shares: the exit codes, the two errors `planner.cli.main` turns
into one line, the argument types that name a bad flag, and JSON output.

A leaf of `planner.commands`: the commands import it, and so does `planner.cli`, which
imports the commands; nothing here imports either.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any, NoReturn

__all__ = [
    "EXIT_FAILED",
    "EXIT_USAGE",
    "Failed",
    "Parser",
    "UsageError",
    "growth_fraction",
    "int_list",
    "non_negative",
    "positive",
    "print_json",
    "whole",
]

EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A bad argument: one line naming the flag, exit code 2."""


class Failed(Exception):
    """Input or a source the run cannot use: one line naming what and where, exit code 1."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose error is one line naming the flag, exit code 2."""

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
