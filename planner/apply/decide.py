"""What `apply` does with each change, given what the cluster holds now. Pure.

The change list (`planner.changes`) says what the plan wants; the cluster may have moved
since it was planned. For each topic, against the count read from the cluster just
before:

- the planned count already: `no-op` (done before: a rerun changes nothing);
- the count the plan saw: `apply`, but a keyed topic without `allow_key_remap` is
  `refused`, the key-remap warning repeated;
- another count: `refused` (someone changed it since: plan again);
- no such topic: `refused` for an increase (it is gone), `apply` for a creation;
- a topic to create that exists at another count: `refused`.

A decrease is never a step: the change list holds none, and a cluster above the plan's
count is "changed since". Example:

    >>> from planner.changes import TopicChange
    >>> change = TopicChange("orders", 6, 8, 3, False, "increase", (), None, ())
    >>> decide(change, observed=6, allow_key_remap=False).action
    'apply'
    >>> decide(change, observed=8, allow_key_remap=False).action
    'no-op'
    >>> step = decide(change, observed=7, allow_key_remap=False)
    >>> (step.action, step.refusal)
    ('refused', 'changed')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from planner.changes import TopicChange

__all__ = ["Action", "Step", "decide", "steps"]

Action = Literal["apply", "no-op", "refused"]


@dataclass(frozen=True)
class Step:
    """What `apply` does for one change.

    Attributes:
        change: The change.
        observed: The topic's partition count on the cluster now (None: no such topic).
        action: `apply`, `no-op` or `refused`.
        reason: Why, in words (for `refused`, what to do).
        refusal: For `refused`: `keyed`, `changed`, `missing` or `exists`.
    """

    change: TopicChange
    observed: int | None
    action: Action
    reason: str
    refusal: str | None = None


def decide(change: TopicChange, *, observed: int | None, allow_key_remap: bool) -> Step:
    """The step for one change, given the count on the cluster now (None: no topic)."""
    want = change.to_partitions
    if observed == want:
        return Step(change, observed, "no-op", f"the topic has {want} partitions already")
    if change.creates:
        if observed is not None:
            return Step(
                change,
                observed,
                "refused",
                f"the plan creates it with {want} partitions and it exists with {observed}: "
                "plan again",
                "exists",
            )
        return Step(change, None, "apply", f"create it with {want} partitions")
    if observed is None:
        return Step(
            change,
            None,
            "refused",
            f"the topic does not exist and the plan saw {change.from_partitions} partitions: "
            "plan again",
            "missing",
        )
    if observed != change.from_partitions:
        return Step(
            change,
            observed,
            "refused",
            f"the topic has {observed} partitions and the plan saw {change.from_partitions}: "
            "it was changed since it was planned; plan again",
            "changed",
        )
    remap = change.key_remap
    if remap is not None and not allow_key_remap:
        return Step(
            change,
            observed,
            "refused",
            f"keyed topic: not changed without --allow-key-remap. {remap.text}",
            "keyed",
        )
    return Step(change, observed, "apply", f"{observed} -> {want} partitions")


def steps(
    changes: Sequence[TopicChange], observed: Mapping[str, int | None], *, allow_key_remap: bool
) -> list[Step]:
    """`decide` for each change, in the change list's order."""
    return [
        decide(c, observed=observed.get(c.topic), allow_key_remap=allow_key_remap) for c in changes
    ]
