"""Write every suite's JSON from its builder: `python -m expectations.export [--check]`.

Run it after changing a rule (in `expectations.rules`, `inputs`, `outputs`, or a schema
the suites are derived from) and commit the JSON with the change, so the review shows
what the data must now meet. `--check` writes nothing and exits 1 when a file is
missing, different, or left over from a suite that no longer exists.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from expectations.catalog import SUITE_DIR, SUITES, suite_json

__all__ = ["drift", "export", "main"]


def drift(directory: Path = SUITE_DIR) -> list[str]:
    """What differs between the builders and the JSON files in `directory`, one line each."""
    problems: list[str] = []
    for name in SUITES:
        path = directory / f"{name}.json"
        if not path.is_file():
            problems.append(f"{path}: missing")
        elif path.read_text(encoding="utf-8") != suite_json(name):
            problems.append(f"{path}: differs from its builder")
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        if path.stem not in SUITES:
            problems.append(f"{path}: no suite called {path.stem}")
    return problems


def export(directory: Path = SUITE_DIR) -> list[Path]:
    """Write `<name>.json` for every suite into `directory`; remove files of no suite.

    Returns:
        The files written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SUITES:
        path = directory / f"{name}.json"
        text = suite_json(name)
        # Write beside and rename, so a reader never sees half a file.
        partial = path.with_suffix(".json.partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
        written.append(path)
    for path in directory.glob("*.json"):
        if path.stem not in SUITES:
            path.unlink()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Export the suites (or `--check` them); returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m expectations.export", description=__doc__)
    parser.add_argument(
        "--dir", type=Path, default=SUITE_DIR, help=f"where the JSON goes (default {SUITE_DIR})"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if the files have drifted"
    )
    args = parser.parse_args(argv)
    if args.check:
        problems = drift(args.dir)
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("run: python -m expectations.export", file=sys.stderr)
        return 1 if problems else 0
    for path in export(args.dir):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
