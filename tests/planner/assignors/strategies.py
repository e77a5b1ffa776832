"""Hypothesis strategies: random groups, subscriptions and previous ownership."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

# Legal Kafka topic characters, so Java and Python agree on topic order.
TOPIC_NAMES = st.text(alphabet="abcxyz.-_09", min_size=1, max_size=3)
# ASCII ids compare the same in Java, librdkafka and kafka-python; the wide alphabet
# brings in ids where Python's code-point order and Java's UTF-16 order disagree.
ASCII_IDS = st.text(alphabet="abcC019-", min_size=1, max_size=4)
WIDE_IDS = st.text(alphabet="ab1\u00e9\ue000\uffff\U0001f600\U00010000", min_size=1, max_size=3)


@dataclass(frozen=True)
class Group:
    partitions_per_topic: dict[str, int]
    subscriptions: dict[str, list[str]]
    previous: dict[str, list[tuple[str, int]]] | None

    @property
    def identical(self) -> bool:
        return len({frozenset(t) for t in self.subscriptions.values()}) <= 1


@st.composite
def groups(
    draw: st.DrawFn,
    *,
    ids: st.SearchStrategy[str] = ASCII_IDS,
    identical: bool | None = None,
    with_previous: bool = True,
    messy_previous: bool = True,
    max_members: int = 7,
    max_partitions: int = 9,
) -> Group:
    """A random group.

    Args:
        draw: Hypothesis draw function.
        ids: Member id strategy.
        identical: Force identical (True) or let subscriptions vary (None); False asks
            for at least two different subscriptions.
        with_previous: Draw a previous assignment.
        messy_previous: Let it hold invalid claims (double claims, gone partitions,
            members that left, topics no longer subscribed).
        max_members: Largest group size.
        max_partitions: Largest partition count of a topic.
    """
    topics = draw(st.lists(TOPIC_NAMES, min_size=1, max_size=4, unique=True))
    partitions = {t: draw(st.integers(0 if messy_previous else 1, max_partitions)) for t in topics}
    members = draw(st.lists(ids, min_size=1, max_size=max_members, unique=True))
    pool = [*topics, "ghost"] if messy_previous else topics
    if identical:
        shared = draw(st.lists(st.sampled_from(pool), min_size=1, unique=True))
        subscriptions = {m: list(shared) for m in members}
    else:
        subscriptions = {
            m: draw(st.lists(st.sampled_from(pool), min_size=1, unique=True)) for m in members
        }
        if identical is False and len({frozenset(s) for s in subscriptions.values()}) < 2:
            subscriptions[members[0]] = (
                [pool[0]] if subscriptions[members[0]] != [pool[0]] else pool[:]
            )
            if len({frozenset(s) for s in subscriptions.values()}) < 2:
                subscriptions["extra-member"] = ["ghost-2"]
    previous: dict[str, list[tuple[str, int]]] | None = None
    if with_previous and draw(st.booleans()):
        owners = [*members, "left-member"] if messy_previous else list(members)
        previous = {}
        for topic in topics:
            for partition in range(partitions[topic] + (1 if messy_previous else 0)):
                n_claims = draw(st.sampled_from([0, 1, 1, 1, 2] if messy_previous else [0, 1, 1]))
                n_claims = min(n_claims, len(owners))
                claimants = draw(
                    st.lists(
                        st.sampled_from(owners), min_size=n_claims, max_size=n_claims, unique=True
                    )
                )
                for owner in claimants:
                    previous.setdefault(owner, []).append((topic, partition))
    return Group(partitions, subscriptions, previous)
