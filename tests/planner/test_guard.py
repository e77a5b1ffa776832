"""The publish guard: what "unsized" means, and which runs it holds (no Spark, no store)."""

from __future__ import annotations

import pytest

from planner.guard import TopicOutcome, judge
from planner.recommend import SIZED_STATUSES, is_sized

NO_TC = "no consumer capacity (Tc) for this topic and no fleet default '*' with one"


def _run(sized: int, unsized: dict[str, str]) -> list[TopicOutcome]:
    """`sized` topics planned `ok`, then the `unsized` ones with their status."""
    out = [TopicOutcome(f"t{i:02d}", "ok") for i in range(sized)]
    out += [
        TopicOutcome(t, s, NO_TC if s == "missing-capacity" else "why") for t, s in unsized.items()
    ]
    return out


def test_unsized_is_every_status_without_a_partition_count() -> None:
    from expectations.outputs import _UNPLANNED_STATUSES
    from planner.report.model import PLANNED_STATUSES, TOPIC_STATUSES
    from spark_jobs.planning import PLANNED_STATUSES as JOB_STATUSES

    assert SIZED_STATUSES == ("ok", "plan-increase", "increase", "create")
    # The jobs, the report and the output suite say the same, from the one definition.
    assert tuple(JOB_STATUSES) == SIZED_STATUSES and set(SIZED_STATUSES) == PLANNED_STATUSES
    unsized = [s for s in TOPIC_STATUSES if not is_sized(s)]
    assert (
        sorted(unsized)
        == sorted(_UNPLANNED_STATUSES)
        == sorted(["missing-capacity", "error", "no-figures", "unknown-topic", "invalid-figures"])
    )


def test_a_topic_that_lost_its_plan_counts_one_that_never_had_one_does_not() -> None:
    last_good = {"a": "ok", "b": "missing-capacity", "c": "increase", "d": "no-figures"}
    run = [
        TopicOutcome("a", "missing-capacity", NO_TC),  # sized before: newly unsized
        TopicOutcome("b", "missing-capacity", NO_TC),  # unsized before too: not news
        TopicOutcome("c", "ok"),  # still sized
        TopicOutcome("d", "ok"),  # sized now
        TopicOutcome("e", "error", "the core refused"),  # new since, and unsized
    ]
    verdict = judge(run, last_good, max_new_share=0.5, last_good_key="20261119T0000Z")
    assert [t.topic for t in verdict.newly_unsized] == ["a", "e"]
    assert verdict.share == 2 / 5 and not verdict.held


@pytest.mark.parametrize(("lost", "held"), [(1, False), (2, True)])
def test_a_run_is_held_past_the_share_not_at_it(lost: int, held: bool) -> None:
    # 1 of 10 is 10 %: not more than the default share; 2 of 10 is.
    last_good = {f"t{i:02d}": "ok" for i in range(10)}
    run = _run(10 - lost, {f"t{i:02d}": "missing-capacity" for i in range(10 - lost, 10)})
    assert judge(run, last_good).held is held


def test_a_first_run_is_held_only_when_that_share_of_the_fleet_is_unsized_at_all() -> None:
    fine = judge(_run(9, {"x": "no-figures"}), None)
    assert not fine.held and fine.last_good is None
    verdict = judge(_run(8, {"x": "no-figures", "y": "missing-capacity"}), None)
    assert verdict.held
    assert verdict.message().startswith(
        "2 of the run's 10 topics (20 %) could not be sized that no run was published "
        "before (a first run is judged against an empty fleet), more than the 10 % allowed"
    )


def test_the_message_names_a_few_topics_then_a_count_and_the_causes_commonest_first() -> None:
    last_good = {f"t{i:02d}": "ok" for i in range(40)}
    unsized = {f"t{i:02d}": "missing-capacity" for i in range(5, 40)}
    run = [
        *_run(3, unsized),
        TopicOutcome("t03", "invalid-figures", "topics.input: partitions = 0"),
        TopicOutcome("t04", "invalid-figures", "topics.input: partitions = 0"),
        TopicOutcome("t99", "invalid-figures", "keys.input: count = nan"),
        TopicOutcome("t98", "error", "the core refused"),
    ]
    verdict = judge(run, last_good, last_good_key="20261119T0000Z")
    assert verdict.held and len(verdict.newly_unsized) == 39
    assert verdict.message() == (
        "39 of the run's 42 topics (93 %) could not be sized that the last good run, "
        "20261119T0000Z, sized or did not list, more than the 10 % allowed ([publish] "
        "max_new_unsized_share): t03, t04, t05, t06, t07 and 34 more; why: "
        f"missing-capacity (35 topics): {NO_TC}; invalid-figures (3 topics): topics.input: "
        "partitions = 0 (and 1 other reason); error (1 topic): the core refused"
    )
    assert verdict.summary(accepted=True) == {
        "topics": 42,
        "newly_unsized": 39,
        "newly_unsized_topics": [*(f"t{i:02d}" for i in range(3, 40)), "t98", "t99"],
        "max_new_unsized_share": 0.1,
        "compared_with": "20261119T0000Z",
        "held": True,
        "accepted": True,
    }


def test_a_share_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="max_new_share must be from 0 to 1"):
        judge([], None, max_new_share=1.5)
