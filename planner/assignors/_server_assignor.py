"""What the broker-side assignors share: a fresh group's closed form, else the general path.

Each of ``uniform``, ``range`` (consumer protocol) and ``simple`` (share groups) says how it
reads the inputs (static members, the previous target, partitions shared by members) and
supplies its closed form for a fresh group with identical subscriptions and its general
path over :class:`~planner.assignors._server_group.ServerGroup`; :meth:`ServerAssignor.assign`
picks one. The tests prove each closed form equal to its general path.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from planner.assignors._fresh import FreshGroup, fresh_group
from planner.assignors._grown import GrownGroup, grown_group
from planner.assignors._members import (
    Assignment,
    PartitionsPerTopic,
    PreviousAssignment,
    Subscriptions,
)
from planner.assignors._server_group import InstanceIds, ServerGroup, server_group
from planner.assignors._topic_ids import TopicIds

__all__ = ["ServerAssignor"]


class ServerAssignor(ABC):
    """A broker-side assignor of Kafka 4.4.0's group coordinator.

    Attributes:
        name: The strategy's name (``group.remote.assignor`` or the share assignor).
        reads_instance_ids: Whether static members' ``group.instance.id`` matter.
        reads_previous: Whether the previous target assignment changes the result (it is
            checked either way).
        shared: Whether a partition may go to several members (share groups).
    """

    name: str
    reads_instance_ids = False
    reads_previous = True
    shared = False

    def assign(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        topic_ids: TopicIds | None = None,
        instance_ids: InstanceIds | None = None,
    ) -> Assignment:
        """Assign partitions; see the subclass's docstring for its rules.

        Args:
            partitions_per_topic: Topic -> partition count.
            subscriptions: Member id -> subscribed topics, in the order of the group's
                member map.
            previous: Member id -> its current target assignment, or None.
            topic_ids: Topic -> Kafka topic id; stand-ins for the missing ones.
            instance_ids: Member id -> ``group.instance.id`` of static members (read
                only where ``reads_instance_ids``).

        Returns:
            Member id -> partitions, every member present, lists sorted (with ``shared``,
            a partition may appear under several members).
        """
        fresh = fresh_group(
            partitions_per_topic,
            subscriptions,
            previous,
            topic_ids=topic_ids,
            instance_ids=instance_ids if self.reads_instance_ids else None,
            reads_previous=self.reads_previous,
        )
        if fresh is not None:
            return self.closed_form(fresh)
        if self.reads_previous:
            grown = grown_group(
                partitions_per_topic,
                subscriptions,
                previous,
                topic_ids=topic_ids,
                shared=self.shared,
            )
            if grown is not None:
                result = self.grown_form(grown)
                if result is not None:
                    return result
        return self.general(
            partitions_per_topic,
            subscriptions,
            previous,
            topic_ids=topic_ids,
            instance_ids=instance_ids,
        )

    def general(
        self,
        partitions_per_topic: PartitionsPerTopic,
        subscriptions: Subscriptions,
        previous: PreviousAssignment | None = None,
        *,
        topic_ids: TopicIds | None = None,
        instance_ids: InstanceIds | None = None,
    ) -> Assignment:
        """The general path, which :meth:`assign` takes unless the group is fresh with
        identical subscriptions. Arguments and result as for :meth:`assign`."""
        group = server_group(
            partitions_per_topic,
            subscriptions,
            previous,
            topic_ids=topic_ids,
            instance_ids=instance_ids if self.reads_instance_ids else None,
            shared=self.shared,
        )
        return self.build(group)

    @abstractmethod
    def closed_form(self, fresh: FreshGroup) -> Assignment:
        """The assignment of a fresh group with identical subscriptions."""

    def grown_form(self, grown: GrownGroup) -> Assignment | None:
        """The assignment of a group with identical subscriptions and a clean previous
        target (see :mod:`planner.assignors._grown`), or None for the general path."""
        return None

    @abstractmethod
    def build(self, group: ServerGroup) -> Assignment:
        """The general path's assignment of the coordinator's view of the group."""
