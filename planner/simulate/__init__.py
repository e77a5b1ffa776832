"""How load spreads over partitions and consumer-group members, for every candidate.

Loads are rates in one unit the caller chooses (MiB/s, records/s, or a utilisation
normalised to one consumer); every load and capacity passed in or returned is in that
unit. The package is pure: standard library and NumPy, with PyArrow imported only by
`GridResult.to_arrow` and for Arrow key arrays.

- `loads`: per-partition load of a keyless or keyed topic; hot keys.
- `strategies`: strategy keys per protocol (`range`, `consumer:uniform`, `share:simple`).
- `closed_forms`: the formulas of fresh assignments and churn for identical subscriptions.
- `member_loads`: every member's load for many group sizes at once (the one place).
- `churn`: what a join or leave moves and revokes, and what it costs, per protocol.
- `grid`: `simulate_grid`, one row per (partitions, members, strategy).
- `multi_topic`: the same for a group reading several topics, size by size.
- `group`: `simulate_group` (several topics, any subscriptions) and `member_detail`.

See docs/simulation.md for the definitions and conventions.
"""

from planner.simulate.churn import KAFKA_DEFAULTS, ProtocolTimings
from planner.simulate.closed_forms import MemberChange
from planner.simulate.grid import (
    ALL_STRATEGIES,
    EAGER_STRATEGIES,
    PLANNING_GRID,
    STRATEGIES,
    GridResult,
    grid_from_loads,
    imbalance,
    load_limit,
    simulate_grid,
)
from planner.simulate.group import GroupResult, member_detail, simulate_group
from planner.simulate.loads import (
    HotKey,
    TopicLoad,
    busiest_lower_bound,
    find_hot_keys,
    hot_key_partitions,
    loads_by_count,
    partition_loads,
)
from planner.simulate.strategies import (
    NEW_PROTOCOL_STRATEGIES,
    protocol_of,
    split_key,
    strategy_key,
)

__all__ = [
    "ALL_STRATEGIES",
    "EAGER_STRATEGIES",
    "KAFKA_DEFAULTS",
    "NEW_PROTOCOL_STRATEGIES",
    "PLANNING_GRID",
    "STRATEGIES",
    "GridResult",
    "GroupResult",
    "HotKey",
    "MemberChange",
    "ProtocolTimings",
    "TopicLoad",
    "busiest_lower_bound",
    "find_hot_keys",
    "grid_from_loads",
    "hot_key_partitions",
    "imbalance",
    "load_limit",
    "loads_by_count",
    "member_detail",
    "partition_loads",
    "protocol_of",
    "simulate_grid",
    "simulate_group",
    "split_key",
    "strategy_key",
]
