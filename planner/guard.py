"""The publish guard: whether a run's plan may replace the last good one.

A bad input must never replace a good plan. The input suites stop a run whose figures
are wrong as a whole; what they cannot see is a run whose figures each look fine but
leave most of the fleet without a partition count (the fleet default capacity row
deleted, a capacity export for the wrong cluster). The guard judges the result instead.

- A topic is **unsized** when the run gives it no partition count: any status but the
  sized ones (`planner.recommend.partitions.SIZED_STATUSES`), that is
  `missing-capacity`, `no-figures`, `unknown-topic`, `error` or `invalid-figures`, the
  topics the report lists under "Could not be sized".
- A topic is **newly unsized** when it is unsized in this run and was not unsized in
  the last good (published) run of the same scope: sized there, or not in it at all. A
  topic that stays unsized run after run (a topic nobody measured) was accepted once
  and is not news.
- A run is **held** when its newly unsized topics are more than `max_new_share` of its
  own topics. A first run (no last good run) is judged against an empty fleet: every
  unsized topic is new, so it is held only when more than that share of the fleet is
  unsized at all.

A held run publishes nothing; whoever decides that the plan is right anyway publishes it
on purpose (`partition-planner plan --accept-degraded`, the DAG's `accept_degraded`).
This module decides and words it; `planner.pipeline.publish` reads the store and acts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from planner.recommend.partitions import is_sized

__all__ = ["DEFAULT_MAX_NEW_UNSIZED_SHARE", "TopicOutcome", "Verdict", "judge"]

#: The share of a run's topics that may newly be unsized before the run is held.
DEFAULT_MAX_NEW_UNSIZED_SHARE = 0.1
# Topics named in the message, then a count; statuses named with a reason, then a count.
_TOPICS_SHOWN = 5
_CAUSES_SHOWN = 3


@dataclass(frozen=True)
class TopicOutcome:
    """What a run says of one topic.

    Attributes:
        topic: The topic.
        status: Its status (`ok`, `missing-capacity`, ...).
        reason: Why it has no plan (the `status_detail`), for an unsized topic.
    """

    topic: str
    status: str
    reason: str | None = None


@dataclass(frozen=True)
class Verdict:
    """The guard's judgement of one run.

    Attributes:
        topics: The run's topics.
        newly_unsized: Its newly unsized topics, by name.
        max_new_share: The share of `topics` that may be newly unsized (0..1).
        last_good: The run key of the last good run compared with (None: a first run).
    """

    topics: int
    newly_unsized: tuple[TopicOutcome, ...]
    max_new_share: float
    last_good: str | None

    @property
    def share(self) -> float:
        """The newly unsized topics' share of the run's topics (0..1)."""
        return len(self.newly_unsized) / self.topics if self.topics else 0.0

    @property
    def held(self) -> bool:
        """Whether the run may not replace the last good one unless accepted."""
        return self.share > self.max_new_share

    def message(self) -> str:
        """Why the run is held (or would be), in one paragraph: how many topics, which
        ones (a few, then a count), and their causes, the commonest first."""
        count = len(self.newly_unsized)
        since = (
            f"the last good run, {self.last_good}, sized or did not list"
            if self.last_good is not None
            else "no run was published before (a first run is judged against an empty fleet)"
        )
        names = [t.topic for t in self.newly_unsized[:_TOPICS_SHOWN]]
        more = count - len(names)
        listed = ", ".join(names) + (f" and {more:,} more" if more > 0 else "")
        return (
            f"{count:,} of the run's {self.topics:,} topics ({100 * self.share:.0f} %) could "
            f"not be sized that {since}, more than the {100 * self.max_new_share:g} % allowed "
            f"([publish] max_new_unsized_share): {listed}; {self._causes()}"
        )

    def _causes(self) -> str:
        """Each status with its topic count and its commonest reason: a set-aside topic's
        reason names its own values, so reasons repeat less than statuses."""
        reasons: dict[str, Counter[str]] = {}
        for t in self.newly_unsized:
            reasons.setdefault(t.status, Counter())[t.reason or "no reason given"] += 1
        by_count = sorted(reasons.items(), key=lambda kv: (-kv[1].total(), kv[0]))
        shown = []
        for status, found in by_count[:_CAUSES_SHOWN]:
            n = found.total()
            text = f"{status} ({n:,} topic{'s' if n != 1 else ''}): {found.most_common(1)[0][0]}"
            if len(found) > 1:
                other = len(found) - 1
                text += f" (and {other:,} other reason{'s' if other != 1 else ''})"
            shown.append(text)
        rest = len(by_count) - len(shown)
        text = "why: " + "; ".join(shown)
        return text + (f"; and {rest:,} other status{'es' if rest != 1 else ''}" if rest else "")

    def summary(self, *, accepted: bool = False) -> dict[str, Any]:
        """The verdict for the store's run record."""
        return {
            "topics": self.topics,
            "newly_unsized": len(self.newly_unsized),
            "newly_unsized_topics": [t.topic for t in self.newly_unsized[:100]],
            "max_new_unsized_share": self.max_new_share,
            "compared_with": self.last_good,
            "held": self.held,
            "accepted": accepted,
        }


def judge(
    run: Iterable[TopicOutcome],
    last_good: Mapping[str, str] | None,
    *,
    max_new_share: float = DEFAULT_MAX_NEW_UNSIZED_SHARE,
    last_good_key: str | None = None,
) -> Verdict:
    """Judge a run against the last good run (see the module docstring).

    Args:
        run: Every topic of the run, with its status.
        last_good: Topic -> status in the last good run; None when there is none.
        max_new_share: The share (0..1) of the run's topics that may newly be unsized.
        last_good_key: The last good run's key, for the message.

    Raises:
        ValueError: `max_new_share` outside 0..1.
    """
    if not 0 <= max_new_share <= 1:
        raise ValueError(f"max_new_share must be from 0 to 1, got {max_new_share!r}")
    before = last_good or {}
    topics = list(run)
    newly = tuple(
        sorted(
            (
                t
                for t in topics
                if not is_sized(t.status) and (t.topic not in before or is_sized(before[t.topic]))
            ),
            key=lambda t: t.topic,
        )
    )
    return Verdict(
        topics=len(topics),
        newly_unsized=newly,
        max_new_share=max_new_share,
        last_good=last_good_key if last_good is not None else None,
    )
