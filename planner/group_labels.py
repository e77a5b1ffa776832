"""A consumer group's protocol and assignor in words, as every output prints them.

The report's group tables, `summary.md` and `partition-planner show` name a group's
protocol beside its assignor (`consumer / uniform`, `share / simple`), say when it is a
Kafka Streams application, and say when the plan simulated it as another strategy (a
Streams group is planned as the classic strategy that cuts its tasks alike:
`classic / stream (Kafka Streams, planned as cooperative-sticky)`). Standard library
only, like `planner.protocols`.
"""

from __future__ import annotations

from planner.protocols import DEFAULT_PROTOCOL, is_streams

__all__ = [
    "CAPACITY_SOURCE_WORDS",
    "duration_words",
    "group_label",
    "lag_words",
]

#: A group's capacity source in the words the outputs print beside its Tc
#: (`planner.group_capacity.CAPACITY_SOURCES`): the "at least" ones say so.
CAPACITY_SOURCE_WORDS = {
    "given": "given",
    "saturation": "learned: saturated",
    "busy-fraction": "at least (busy fraction)",
    "lower-bound": "at least (kept up)",
    "topic-default": "the topic's Tc",
}


def duration_words(seconds: float | None) -> str:
    """A span as people read it: seconds below two minutes, minutes below two hours,
    hours below two days, then days (an em dash for unknown).

    Example:
        >>> [duration_words(s) for s in (4.25, 95.0, 3_000.0, 400_000.0)]
        ['4.2 s', '95 s', '50 min', '5 days']
    """
    if seconds is None or seconds != seconds or seconds in (float("inf"), float("-inf")):
        return "\u2014"
    for unit, size in (("day", 86_400.0), ("h", 3_600.0), ("min", 60.0)):
        if seconds >= 2 * size:
            value = seconds / size
            return f"{value:,.0f} days" if unit == "day" else f"{value:,.0f} {unit}"
    return f"{seconds:,.1f} s" if seconds < 10 else f"{seconds:,.0f} s"


def lag_words(records: float | None, seconds: float | None, trend: str | None) -> str:
    """A group's observed lag in words: records, time behind, trend.

    Example:
        >>> lag_words(7_500_000.0, 3_000.0, "growing")
        '7,500,000 records, 50 min behind, growing'
    """
    parts = ["\u2014" if records is None else f"{records:,.0f} records"]
    parts.append(f"{duration_words(seconds)} behind")
    if trend:
        parts.append(trend)
    return ", ".join(parts)


def _key(protocol: str, strategy: str) -> str:
    # The simulation's key of an assignor (`planner.simulate.strategies.strategy_key`):
    # classic names bare, the others prefixed with their protocol.
    return strategy if protocol == DEFAULT_PROTOCOL else f"{protocol}:{strategy}"


def group_label(
    protocol: str | None,
    current_strategy: str,
    strategy: str | None = None,
    *,
    planned_as: str | None = None,
    arrow: str = "\u2192",
) -> str:
    """`protocol / assignor`, the recommended assignor after an arrow when it differs,
    and in brackets whether it is Kafka Streams and the key the plan simulated when
    that is not the assignor itself.

    Args:
        protocol: The group's protocol (None or "" means `classic`).
        current_strategy: Its assignor today.
        strategy: The assignor recommended (None: no plan).
        planned_as: The simulation key the plan used (None or "": not known).
        arrow: Between today's assignor and the recommended one (`->` in a terminal).

    Examples:
        >>> group_label("consumer", "uniform", "uniform", planned_as="consumer:uniform")
        'consumer / uniform'
        >>> group_label("classic", "range", "cooperative-sticky", arrow="->")
        'classic / range -> cooperative-sticky'
        >>> group_label("classic", "stream", "stream", planned_as="cooperative-sticky")
        'classic / stream (Kafka Streams, planned as cooperative-sticky)'
    """
    protocol = protocol or DEFAULT_PROTOCOL
    chosen = strategy or current_strategy
    names = (
        current_strategy
        if strategy is None or strategy == current_strategy
        else f"{current_strategy} {arrow} {strategy}"
    )
    why = []
    if is_streams(protocol, chosen):
        why.append("Kafka Streams")
    if planned_as and planned_as != _key(protocol, chosen):
        why.append(f"planned as {planned_as}")
    return f"{protocol} / {names}" + (f" ({', '.join(why)})" if why else "")
