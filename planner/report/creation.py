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
        parameters={str(k): str(v) for k, v in (request.get("parameters") or {}).items()},
        run_id=request.get("run_id"),
        fleet_link=request.get("fleet_link"),
    )


def _given(parameters: Mapping[str, str], name: str) -> bool:
    return bool(parameters.get(name, "").strip())


def _topic(t: TopicReport, parameters: Mapping[str, str]) -> TopicReport:
    changes: dict[str, Any] = {
        "capacity_source": creation.capacity_source(
            tp_numbers=_given(parameters, "tp_mib_per_s") or _given(parameters, "tp_records_per_s"),
            tc_numbers=_given(parameters, "tc_mib_per_s") or _given(parameters, "tc_records_per_s"),
            producer_perf_file=parameters.get("producer_perf_file"),
            consumer_perf_file=parameters.get("consumer_perf_file"),
        )
    }
    # Peaks given as numbers make one day of figures: the growth is the request's. A
    # throughput file may hold weeks, whose growth is fitted (or floored) as the fleet's.
    if not _given(parameters, "figures_file"):
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
