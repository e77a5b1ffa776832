"""A topic's consumers: which group's plan sets the number to run, and why.

A topic may be read by several consumer groups, each with its own plan; the topic's
answer is one number of consumers. The rule: the recommended size of the largest group
with a plan that reads the topic (on a tie, the smaller group id, so the pick is
stable); when no group with a plan reads it, what one group reading only it would need
today (`TopicPlan.one_group`). `plan_topic` applies it to the topic's one-topic groups
(`TopicPlan.consumers`); the `simulate_assignments` job applies it again once the
groups that read several topics are planned too, through the same function.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = ["ConsumerChoice", "SizedGroup", "choose_consumers"]


class SizedGroup(Protocol):
    """What the rule reads of a group's plan (a `GroupPlan`, or a published group row).

    `recommended_members` is None for a group the run could not plan.
    """

    @property
    def group_id(self) -> str: ...

    @property
    def recommended_members(self) -> int | None: ...

    @property
    def strategy(self) -> str | None: ...

    @property
    def standby_members(self) -> int | None: ...


@dataclass(frozen=True)
class ConsumerChoice:
    """The consumers to run for a topic.

    Attributes:
        members: How many: the recommended size of `group_id`, or what one group reading
            only the topic needs today (`group_id` None).
        strategy: The assignment strategy for them.
        group_id: The group whose plan sets the number (None: one group reading only the
            topic, as no group with a plan reads it).
        standby_members: Of `members`, those that own no partition: the minimum group
            size (`min_group_members`) asks for more than the partitions (None: unknown).
        groups_with_plan: How many groups with a plan read the topic.
    """

    members: int
    strategy: str | None
    group_id: str | None
    standby_members: int | None
    groups_with_plan: int

    @property
    def reason(self) -> str:
        """The choice in one sentence, for the rationale."""
        if self.group_id is None:
            why = (
                "consumers: no consumer group with a plan reads the topic; one group reading "
                f"only it would need {self.members} member{'' if self.members == 1 else 's'} "
                f"today ({self.strategy})"
            )
        else:
            among = (
                f"the largest of the {self.groups_with_plan} groups with a plan that read the topic"
                if self.groups_with_plan > 1
                else "the only group with a plan that reads the topic"
            )
            why = (
                f"consumers: {self.members}, the recommended size of group '{self.group_id}' "
                f"({self.strategy}), {among}"
            )
        standby = self.standby_members or 0
        if standby > 0:
            s = "s" if standby == 1 else ""
            why += (
                f"; {standby} of them own{s} no partition and stand{s} by to take over from a "
                "member that fails (min_group_members)"
            )
        return why


def choose_consumers(
    groups: Sequence[SizedGroup], *, one_group: SizedGroup | None
) -> ConsumerChoice | None:
    """The topic's consumers from the plans of the groups that read it.

    Args:
        groups: The plans of every group reading the topic (one topic or several);
            those without a plan (`recommended_members` None) are left out.
        one_group: The plan of one group reading only the topic that runs no member yet
            (`TopicPlan.one_group`); None for a topic without a plan.

    Returns:
        The choice; None when no group with a plan reads the topic and there is no
        `one_group` either (a topic the run could not plan).

    Example:
        >>> from typing import NamedTuple
        >>> class G(NamedTuple):
        ...     group_id: str
        ...     recommended_members: int | None
        ...     strategy: str | None = "range"
        ...     standby_members: int | None = 0
        >>> c = choose_consumers([G("b", 4), G("a", 4), G("c", None)], one_group=G("", 2))
        >>> c.group_id, c.members, c.groups_with_plan
        ('a', 4, 2)
    """
    planned = [g for g in groups if g.recommended_members is not None]
    pick = min(
        planned, key=lambda g: (-(g.recommended_members or 0), g.group_id), default=one_group
    )
    if pick is None or pick.recommended_members is None:
        return None
    return ConsumerChoice(
        members=pick.recommended_members,
        strategy=pick.strategy,
        group_id=pick.group_id if planned else None,
        standby_members=pick.standby_members,
        groups_with_plan=len(planned),
    )
