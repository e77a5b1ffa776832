"""How the simulation names a strategy of each group protocol, and how it assigns.

`range` exists in the classic protocol (the client's) and in the consumer protocol (the
broker's, KIP-848), so a strategy alone does not say what runs. The simulation names a
strategy by one **key**: the classic strategies keep their bare names (`range`,
`roundrobin`, `sticky`, `cooperative-sticky`, so every classic table and number stays as
it was), and the others carry their protocol as a prefix, `protocol:assignor`:
`consumer:uniform`, `consumer:range` and `share:simple`. `split_key` turns a key back
into what `planner.assignors.assign` takes.

Each key also has a **shape**, the arithmetic of its fresh assignment over identical
subscriptions (members by position, see `planner.simulate.closed_forms`):

- `blocks`: each topic cut into consecutive blocks, the first `P mod C` members one more
  (classic `range` and the broker's `range`, which sorts members the same way);
- `dealt`: all partitions dealt to the members in turn (`roundrobin`, and a fresh
  `sticky` / `cooperative-sticky`);
- `slices`: all partitions, topics in topic-id hash order, cut into consecutive slices,
  the *last* `T mod C` members in hash order one more (`uniform`);
- `shared`: `simple`, which gives each partition to `ceil(C / T)` members.
"""

from __future__ import annotations

from typing import Literal

from planner.assignors import STRATEGIES as CLASSIC_STRATEGIES
from planner.protocols import simulation_key

__all__ = [
    "ALL_STRATEGIES",
    "CLASSIC_STRATEGIES",
    "EAGER_STRATEGIES",
    "NEW_PROTOCOL_STRATEGIES",
    "Shape",
    "protocol_of",
    "shape_of",
    "split_key",
    "strategy_key",
]

Shape = Literal["blocks", "dealt", "slices", "shared"]

#: The consumer protocol's (KIP-848) and share groups' (KIP-932) strategies, as keys.
NEW_PROTOCOL_STRATEGIES: tuple[str, ...] = ("consumer:uniform", "consumer:range", "share:simple")
#: Every strategy the simulation knows: the classic four first, then the others.
ALL_STRATEGIES: tuple[str, ...] = (*CLASSIC_STRATEGIES, *NEW_PROTOCOL_STRATEGIES)
#: Strategies run under the classic eager protocol: every member revokes everything it
#: owns at the start of every rebalance, whatever moves.
EAGER_STRATEGIES: frozenset[str] = frozenset({"range", "roundrobin", "sticky"})

_SHAPES: dict[str, Shape] = {
    "range": "blocks",
    "roundrobin": "dealt",
    "sticky": "dealt",
    "cooperative-sticky": "dealt",
    "consumer:uniform": "slices",
    "consumer:range": "blocks",
    "share:simple": "shared",
}


def split_key(key: str) -> tuple[str, str]:
    """`(protocol, assignor)` of a strategy key, e.g. `("consumer", "range")`.

    Raises:
        ValueError: not a key of `ALL_STRATEGIES`.
    """
    if key not in _SHAPES:
        raise ValueError(f"unknown strategy {key!r}: use {', '.join(ALL_STRATEGIES)}")
    protocol, _, assignor = key.rpartition(":")
    return (protocol or "classic"), assignor


def strategy_key(protocol: str, assignor: str) -> str:
    """The key of an assignor of a protocol (`classic` names stay bare).

    Raises:
        ValueError: not a strategy the simulation knows.
    """
    key = simulation_key(protocol, assignor)
    split_key(key)
    return key


def protocol_of(key: str) -> str:
    """The group protocol of a strategy key: `classic`, `consumer` or `share`."""
    return split_key(key)[0]


def shape_of(key: str) -> Shape:
    """The shape of a strategy key's fresh assignment (see the module docstring)."""
    split_key(key)
    return _SHAPES[key]
