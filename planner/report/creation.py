"""A creation plan's report: the run's report told as a plan to create one topic.

The pipeline maps a new topic's outputs into a `FleetReport` as it does the fleet's;
`creation_report` then adds what only the request knows: when it was made and with what
parameters (the header names the request, not a data interval), where the growth came
from (the request's figure, not "the floor") and where Tp and Tc came from (the
request's numbers or the perf-test files it named). The statuses (`create`, `deploy`)
and the sentences are `planner.recommend.creation`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from planner.recommend import creation
from planner.report.model import CreationRequest, DimensionArithmetic, FleetReport, TopicReport

__all__ = ["creation_report", "creation_request_of"]


def creation_request_of(request: Mapping[str, Any]) -> CreationRequest:
    """The report's request from the XCom form (`planner.pipeline.tasks.creation_request`).

    Raises:
        ValueError: a field the model refuses.
    """
    at = request["requested_at"]
    return CreationRequest(
        topic=str(request["topic"]),
        requested_at=datetime.fromisoformat(at) if isinstance(at, str) else at,
        parameters=dict(request.get("parameters") or {}),
        run_id=request.get("run_id"),
        fleet_link=request.get("fleet_link"),
    )


def _topic(t: TopicReport, parameters: Mapping[str, Any]) -> TopicReport:
    capacity = creation.request_capacity_source(parameters)
    given = creation.growth_from_request(parameters)
    changes: dict[str, Any] = {
        "capacity_source": capacity,
        "rationale": creation.creation_rationale(
            t.rationale, growth_from_request=given, capacity=capacity
        ),
    }
    if given:
        changes["dimensions"] = tuple(
            dataclasses.replace(d, growth_method=creation.growth_given(d.growth_per_year))
            if isinstance(d, DimensionArithmetic)
            else d
            for d in t.dimensions
        )
    return dataclasses.replace(t, **changes)


def creation_report(report: FleetReport, request: CreationRequest) -> FleetReport:
    """`report` (a new topic's run) as the creation plan answering `request`."""
    topics = tuple(
        _topic(t, request.parameters) if t.topic == request.topic else t for t in report.topics
    )
    return dataclasses.replace(
        report, topics=topics, request=request, title=f"Creation plan: {request.topic}"
    )
