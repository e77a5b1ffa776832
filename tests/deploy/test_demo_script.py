"""The README's main command ends by printing the top of the run's summary."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.deploy.compose import ROOT

DEMO = ROOT / "scripts" / "demo.sh"


def _excerpt_command() -> str:
    # The one line of demo.sh that prints the summary's top, run as the script runs it.
    lines = [line for line in DEMO.read_text().splitlines() if "summary.md" in line]
    assert len(lines) == 1, lines
    return lines[0]


def _print_top(folder: Path, summary: str) -> subprocess.CompletedProcess[str]:
    (folder / "summary.md").write_text(summary)
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail\nreport={folder}\n{_excerpt_command()}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_long_first_section_prints_24_lines_and_does_not_fail_the_demo(
    tmp_path: Path,
) -> None:
    # A fleet whose first section outgrows a pipe's buffer: a reader that stops early
    # must not take the writer down with SIGPIPE under `set -o pipefail`.
    rows = [f"- `topic-{i:05d}`: 12 -> 24 partitions; {'x' * 120}" for i in range(5000)]
    summary = "\n".join(["# Partition plan", "", "## Change first", *rows, "## The rest", "- a"])
    done = _print_top(tmp_path, summary + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["# Partition plan", "", "## Change first", *rows[:21]]


def test_a_short_summary_prints_up_to_the_second_section(tmp_path: Path) -> None:
    summary = "# Partition plan\n\n## Change first\n- `a`: 1 -> 2\n## The rest\n- `b`\n"
    done = _print_top(tmp_path, summary)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "# Partition plan\n\n## Change first\n- `a`: 1 -> 2\n"
