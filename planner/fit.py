"""When a load fits a limit, and the most load one group member may carry.

One rule each, used by the simulation, the group plans and the Spark jobs alike:

- **Fits** (`fits`): a load fits a limit when it is at most the limit, give or take a
  relative `FIT_TOLERANCE`: float sums of partition loads land a hair above an exact fit
  (ten loads of 0.1 add up to more than 1.0), and such a fit is a fit.
- **A member's load limit** (`member_load_limit`), in consumers (one consumer's whole
  capacity, Tc, is 1): a topic is sized with its load times `1 + headroom_pct / 100`;
  a member has the same headroom when its load times that factor is at most Tc, so it
  may carry `1 - member_headroom_pct / 100` of Tc, where `member_headroom_pct` is
  `100 h / (100 + h)` (23.1 % of Tc kept free for the default 30 % headroom). With
  this, a topic sized exactly by the rule and read by one member per partition is
  exactly within capacity instead of failing a stricter member check.
"""

from __future__ import annotations

from typing import TypeVar, overload

import numpy as np
import numpy.typing as npt

__all__ = ["FIT_TOLERANCE", "fit_bound", "fits", "member_headroom_pct", "member_load_limit"]

#: The relative tolerance of `fits`.
FIT_TOLERANCE = 1e-9

_Load = TypeVar("_Load", float, npt.NDArray[np.float64])


def fit_bound(limit: _Load) -> _Load:
    """The largest load that fits `limit` (see `fits`): for a search that takes a bound."""
    return limit * (1.0 + FIT_TOLERANCE)


@overload
def fits(load: float, limit: float) -> bool: ...
@overload
def fits(load: npt.NDArray[np.float64], limit: float) -> npt.NDArray[np.bool_]: ...
def fits(load: float | npt.NDArray[np.float64], limit: float) -> bool | npt.NDArray[np.bool_]:
    """Whether `load` (a number or an array of them) fits `limit`, within `FIT_TOLERANCE`."""
    if isinstance(load, np.ndarray):
        return load <= fit_bound(limit)
    return bool(load <= fit_bound(limit))


def member_headroom_pct(headroom_pct: float) -> float:
    """The share of Tc (%) a member keeps free so that it has `headroom_pct` headroom, as
    a topic's target does (see the module's docstring)."""
    return 100.0 * headroom_pct / (100.0 + headroom_pct)


def member_load_limit(headroom_pct: float) -> float:
    """The most load one member may carry, in consumers, under the planning headroom
    `headroom_pct` (%)."""
    return 1.0 - member_headroom_pct(headroom_pct) / 100.0
