"""Numbers as a reader takes them in: no "0.00 MiB/s" for a quiet topic, no "+83467 %"."""

from __future__ import annotations

import pytest

from planner.report.layout import fmt_headroom, fmt_rate


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.0, "0 MiB/s"),
        (0.00412, "0.00412 MiB/s"),
        (0.0000123, "0.0000123 MiB/s"),
        (0.5, "0.5 MiB/s"),
        (7.18, "7.18 MiB/s"),
        (12.345, "12.35 MiB/s"),
        (150.2, "150 MiB/s"),
        (20_000.0, "20,000 MiB/s"),
        (None, "\u2014"),
        (float("nan"), "\u2014"),
    ],
)
def test_a_rate_keeps_three_significant_figures_below_one(value: float | None, text: str) -> None:
    assert fmt_rate(value, "mib_in") == text


@pytest.mark.parametrize(
    ("pct", "text"),
    [
        (-12.3, "-12 %"),
        (29.6, "+30 %"),
        (899.0, "+899 %"),
        (-0.4, "-0.4 %"),  # not "-0 %"
        (0.0, "+0 %"),
        (0.96, "+1 %"),
        (900.0, "10\u00d7 the peak"),
        (83_467.0, "836\u00d7 the peak"),
        (None, "\u2014"),
    ],
)
def test_a_large_headroom_reads_as_a_multiple_of_the_peak(pct: float | None, text: str) -> None:
    assert fmt_headroom(pct) == text
