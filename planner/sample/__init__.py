"""A sample fleet: realistic landing files for demos, tests and benchmarks.

`write_landing` (the `partition-planner sample` command) draws a fleet of topics from
one seed and writes it as a landing folder that `planner.collect.landing` reads. The
model, and why it looks the way it does:

Sizes
    Weekly mean bytes/s per topic, log-normal in three tiers: 80 % small (median
    3 KiB/s), 18 % middle (median 300 KiB/s), 2 % big (median 8 MiB/s, the largest at
    tens of MiB/s; at least one per fleet). Real fleets are many near-idle topics and a
    few that carry most of the bytes. Record sizes are log-normal around 700 B, 100 B to
    10 KiB, raised for topics that would otherwise pass 100,000 records/s (producers
    batch events). Records/s is bytes/s over the record size (with 3 % hourly jitter), so
    both dimensions agree.

Cycles
    Each topic follows a time zone (UTC-8 to UTC+9, no daylight saving) and a daily
    profile: `business` (60 %: a peak between 10:30 and 15:30 local, 50-90 % of the
    traffic in the bump), `flat` (28 %: machines, 3-15 % daily swing) or `nightly`
    (12 %: batch jobs peaking 01:00-04:30 local). The daily shape is a von Mises bump
    with mean 1 over a day. Weekends (Saturday and Sunday, local) run at 35-80 % of a
    weekday for business topics, 60-100 % for nightly, 90-100 % for flat ones, with the
    week's mean kept at the topic's level.

Growth, bursts, noise
    Yearly growth compounds hourly: 82 % of topics grow 0-80 %/year, 8 % grow 80-200 %,
    10 % shrink 5-50 %. The level is the one at the end of the history. Producer bursts
    (1-4 hours at 1.5-5x, one per topic every two to three weeks on average, some topics
    far burstier) and log-normal hourly noise with mean 1 (a standard deviation of about
    3-35 %, smaller for busier topics) sit on top.

Consumers
    About 0.3 consumer groups per topic (3,000 for 10,000 topics): 85 % read one topic,
    12 % two to five, 3 % six to 25 (sink connectors, pattern subscriptions; a group's
    topics are a run of name-sorted topics, so they share a prefix). Busier topics
    attract more groups; every keyed topic has at least one. Strategies: range 38 %,
    cooperative-sticky 35 %, sticky 15 %, roundrobin 12 %. Members: 55 % right-sized for
    the topics' need, 20 % short, 15 % with idle members (more than the partitions of
    any of their topics), 10 % a single member. Bytes out is bytes in times the number of
    groups reading the topic (0 for a topic no listed group reads), with 5 % noise and
    occasional replays (a group re-reading at 1-6x the live rate for 1-4 hours).

Capacity and partitions
    A `*` default row (Tp 20 MiB/s and 20,000 records/s, Tc 4 MiB/s and 2,000 records/s at
    1 KiB) and measured rows for 20 % of the topics, big ones first (Tc from a per-record
    processing cost around 300 us; 15 % of rows give MiB/s only). A handful of topics
    from the busiest quarter (up to six) are measured by Kafka's perf tools instead, in
    `perf/`. From those
    capacities the generator estimates what the planner will require (the weekday peak
    at the noise's 99th percentile, grown over 180 days, plus 30 %) and sets today's
    partition count: 45 % fine (rounded up to a common count, at least a house default
    of 1, 3, 6 or 12), 35 % too few where more than one partition is needed, 20 %
    generous (3-8x). Replication factor 3 for 92 % of topics (1, 2 or 4 for the rest),
    never above the broker count; brokers enough for about 3,000 replicas each, at least
    six, in three racks.

Racks
    Brokers alternate between three racks (availability zones). Each topic's replicas
    (`topics.replicas`, leader first) start at a drawn broker and go round the cluster,
    so leaders spread evenly and a partition's replicas are in as many racks as it has
    replicas, up to three. Of every four consumer groups one gives `client_rack` as the
    three racks in turn (members spread over the zones), one a single rack, two nothing
    (unknown): so a plan shows both cross-zone figures and the advice to set
    `client.rack` (`planner.sample.racks`).

Keys
    About 2 % of topics are keyed (at least three): 100,000-key samples at 10,000
    topics (ten keys per topic in the fleet, at least 1,000), counts Zipf-distributed
    (exponent 0.6-1.2) with one to three hot keys taking 2-12 % of the records each.
    About 5 % of keyed topics (at least one) have binary keys, written as `key_hex`.
    Partitioners follow the producing client: murmur2_random (Java-like, 62 %),
    consistent_random (librdkafka's default, 33 %), fnv1a_random (librdkafka set to
    FNV-1a, as teams do to match Go producers, 5 %).

Determinism
    Every aspect draws from its own stream (`default_rng([seed, stream])`), every day of
    throughput and every key sample from its own too, so the same seed, size and end
    give the same content whatever the thread scheduling, and each file can be
    generated independently.
"""

from planner.sample.fleet import Fleet, build_fleet
from planner.sample.landing import (
    LandingError,
    LandingSummary,
    TableFiles,
    default_end,
    write_landing,
)

__all__ = [
    "Fleet",
    "LandingError",
    "LandingSummary",
    "TableFiles",
    "build_fleet",
    "default_end",
    "write_landing",
]
