"""Names for a sample fleet: topics, consumer groups and record keys, as teams spell them.

Topic names follow the conventions seen on real clusters: domain-qualified event streams
(`payments.authorizations.v1`), plain service streams (`orders-events`), Debezium change
data capture (`pg-orders.public.order_items`), Kafka Streams internal topics
(`fraud-detector-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog`), environment and
team prefixes (`prod.analytics.sessionized-clicks`), retry and dead-letter topics, and,
in large fleets, per-tenant topics (`tenant-00421.orders`). Every name is legal under
Kafka's rule (1-249 characters of `a-z A-Z 0-9 . _ -`) and unique in its fleet.

Keys are built with NumPy and Arrow compute, a whole sample at a time: entity ids
(`merchant-00012345`), UUIDs, numeric account ids, and for binary keys the bytes of an
8-byte big-endian long (Java's `LongSerializer`) or of a 16-byte UUID, as hex.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "DOMAINS",
    "KEY_STYLES",
    "group_ids",
    "key_strings",
    "topic_domain",
    "topic_names",
]

# Business domains and the entities their topics carry.
DOMAINS: dict[str, tuple[str, ...]] = {
    "payments": ("authorizations", "captures", "refunds", "chargebacks", "payouts", "settlements"),
    "orders": ("orders", "order-lines", "carts", "checkouts", "returns", "cancellations"),
    "inventory": ("stock-levels", "reservations", "warehouses", "replenishments", "skus"),
    "shipping": ("shipments", "parcels", "tracking-events", "carriers", "labels"),
    "customers": ("customers", "addresses", "preferences", "consents", "profiles"),
    "identity": ("logins", "sessions", "tokens", "mfa-challenges", "password-resets"),
    "catalog": ("products", "prices", "categories", "images", "availability"),
    "search": ("queries", "impressions", "clicks", "index-updates", "suggestions"),
    "ads": ("impressions", "clicks", "conversions", "bids", "budgets", "campaigns"),
    "clickstream": ("page-views", "clicks", "scrolls", "sessions", "experiments"),
    "billing": ("invoices", "subscriptions", "usage-records", "credits", "dunning"),
    "ledger": ("entries", "balances", "journals", "transfers", "reconciliations"),
    "fraud": ("scores", "alerts", "decisions", "device-fingerprints", "rules"),
    "notifications": ("emails", "sms", "push", "webhooks", "bounces"),
    "iot": ("device-telemetry", "heartbeats", "firmware-updates", "alarms", "readings"),
    "logistics": ("routes", "vehicle-positions", "deliveries", "pickups", "depots"),
    "pricing": ("quotes", "discounts", "promotions", "fx-rates", "price-changes"),
    "risk": ("exposures", "limits", "margin-calls", "positions", "kyc-checks"),
    "support": ("tickets", "chats", "csat-surveys", "escalations", "callbacks"),
    "analytics": ("sessionized-clicks", "funnels", "cohorts", "aggregates", "features"),
    "audit": ("admin-actions", "access-logs", "config-changes", "data-exports"),
    "marketing": ("campaign-sends", "opens", "unsubscribes", "segments", "attributions"),
    "recommendations": ("candidates", "rankings", "feedback", "model-scores"),
    "trading": ("orders", "executions", "quotes", "market-data", "trades"),
}
_EVENTS = (
    "created",
    "updated",
    "deleted",
    "completed",
    "failed",
    "requested",
    "approved",
    "rejected",
    "changed",
    "expired",
)
_QUALIFIERS = ("raw", "enriched", "compacted", "snapshots", "aggregated", "cleaned")
_DB_SERVERS = ("pg-orders", "pg-core", "mysql-legacy", "dbserver1", "cdc-main", "pg-billing")
_DB_SCHEMAS = ("public", "inventory", "sales", "accounts", "core")
_STORES = ("counts-store", "totals-store", "sessions-store", "dedup-store", "joins-store")
_STREAMS_OPS = ("KSTREAM-AGGREGATE", "KTABLE-SOURCE", "KSTREAM-JOIN", "KSTREAM-REDUCE")
_APPS = (
    "fraud-detector",
    "order-enricher",
    "session-builder",
    "stock-aggregator",
    "fx-joiner",
    "alert-router",
    "feature-pipeline",
    "usage-rollup",
)
_ENVS = ("prod", "prd", "live", "prod-eu", "prod-us")
_RETRIES = ("retry-1m", "retry-5m", "retry-30m", "dlq", "dead-letter", "parking-lot")

# Consumer-group roles and sink connectors.
_ROLES = (
    "indexer",
    "ledger-writer",
    "scoring",
    "enricher",
    "archiver",
    "notifier",
    "aggregator",
    "projector",
    "auditor",
    "reconciler",
    "materializer",
    "replicator",
    "alerting",
    "ml-features",
    "cache-warmer",
    "search-sync",
    "warehouse-loader",
    "dashboard",
)
_SINKS = ("s3", "snowflake", "bigquery", "elasticsearch", "jdbc", "hdfs", "clickhouse")

_PATTERN_WEIGHTS = np.array([0.26, 0.14, 0.14, 0.12, 0.08, 0.12, 0.06, 0.08])
_TENANT = 7  # index of the per-tenant pattern, unlimited and used to fill a large fleet

KEY_STYLES: tuple[str, ...] = ("entity-id", "uuid", "numeric", "long-be", "uuid-bytes")
"""Key styles: the first three are UTF-8 keys, the last two binary (written as key_hex)."""

# What a keyed topic of each domain is keyed by; others use `account`.
_KEY_ENTITIES = {
    "payments": "merchant",
    "orders": "order",
    "inventory": "sku",
    "shipping": "shipment",
    "customers": "customer",
    "identity": "user",
    "catalog": "product",
    "clickstream": "session",
    "billing": "subscription",
    "ledger": "account",
    "fraud": "card",
    "iot": "device",
    "logistics": "vehicle",
    "trading": "instrument",
    "support": "ticket",
}
# The two hex digits of every byte value, as one little table: byte -> 2 ASCII bytes.
_HEX_PAIRS = np.frombuffer(b"".join(b"%02x" % i for i in range(256)), dtype=np.uint16)


def _pick(rng: np.random.Generator, words: Sequence[str]) -> str:
    return words[int(rng.integers(len(words)))]


def _one_name(rng: np.random.Generator, pattern: int, domain: str) -> str:
    entity = _pick(rng, DOMAINS[domain])
    if pattern == 0:  # payments.authorizations.v1
        return f"{domain}.{entity}.v{int(rng.integers(1, 4))}"
    if pattern == 1:  # orders.returns-requested
        return f"{domain}.{entity}-{_pick(rng, _EVENTS)}"
    if pattern == 2:  # orders-events, shipping-parcels-events
        return f"{entity}-events" if rng.random() < 0.4 else f"{domain}-{entity}-events"
    if pattern == 3:  # Debezium: server.schema.table
        table = entity.replace("-", "_")
        return f"{_pick(rng, _DB_SERVERS)}.{_pick(rng, _DB_SCHEMAS)}.{table}"
    if pattern == 4:  # Kafka Streams internal topics: <application.id>-<name>-changelog
        app = _pick(rng, _APPS)
        if rng.random() < 0.5:
            suffix = "changelog" if rng.random() < 0.6 else "repartition"
            return f"{app}-{_pick(rng, _STORES)}-{suffix}"
        number = int(rng.integers(1, 40))
        return f"{app}-{_pick(rng, _STREAMS_OPS)}-STATE-STORE-{number:010d}-changelog"
    if pattern == 5:  # prod.analytics.sessionized-clicks, clickstream.page-views.raw
        if rng.random() < 0.5:
            return f"{_pick(rng, _ENVS)}.{domain}.{entity}"
        return f"{domain}.{entity}.{_pick(rng, _QUALIFIERS)}"
    if pattern == 6:  # payments.refunds.dlq, orders-events-retry-5m
        return f"{domain}.{entity}.{_pick(rng, _RETRIES)}"
    return f"tenant-{int(rng.integers(100_000)):05d}.{domain}.{entity}"


def topic_names(rng: np.random.Generator, n: int) -> list[str]:
    """`n` unique, legal topic names in a realistic mix of conventions, sorted.

    Named topics come first from the fixed vocabularies; once those run short (a fleet of
    thousands), per-tenant topics fill the rest, as they do on real multi-tenant clusters.
    """
    domains = list(DOMAINS)
    names: set[str] = set()
    weights = _PATTERN_WEIGHTS / _PATTERN_WEIGHTS.sum()
    attempts = 0
    while len(names) < n:
        attempts += 1
        # After a few rounds the vocabularies are used up: tenants only.
        p = weights if attempts <= 4 else np.eye(len(weights))[_TENANT]
        want = n - len(names)
        patterns = rng.choice(len(weights), size=want, p=p)
        for pattern in patterns.tolist():
            if len(names) >= n:
                break
            names.add(_one_name(rng, pattern, _pick(rng, domains)))
    return sorted(names)


def topic_domain(name: str) -> str:
    """The business domain a topic name mentions (for naming the groups that read it)."""
    for part in name.replace("-", ".").split("."):
        if part in DOMAINS:
            return part
    for domain, entities in DOMAINS.items():
        if any(entity in name for entity in entities):
            return domain
    return "platform"


def group_ids(
    rng: np.random.Generator, first_topics: Sequence[str], multi_topic: npt.NDArray[np.bool_]
) -> list[str]:
    """One unique consumer-group id per group.

    A single-topic group is named after its topic and its role
    (`payments-authorizations-v1-ledger-writer`); a multi-topic group after a sink
    connector (`connect-s3-sink-orders`, Kafka Connect prefixes its groups `connect-`) or
    a domain-wide service (`fraud-aggregator`).
    """
    ids: list[str] = []
    seen: set[str] = set()
    for topic, multi in zip(first_topics, multi_topic.tolist(), strict=True):
        domain = topic_domain(topic)
        if multi:
            if rng.random() < 0.6:
                base = f"connect-{_pick(rng, _SINKS)}-sink-{domain}"
            else:
                base = f"{domain}-{_pick(rng, _ROLES)}"
        else:
            stem = topic.replace(".", "-").replace("_", "-").lower()
            base = f"{stem}-{_pick(rng, _ROLES)}"
        name, copy = base, 1
        while name in seen:
            copy += 1
            name = f"{base}-{copy}"
        seen.add(name)
        ids.append(name)
    return ids


def _hex(data: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Rows of bytes as rows of lower-case hex digits (ASCII), twice as wide."""
    pairs = _HEX_PAIRS[data]  # one table look-up per byte, vectorised
    return np.ascontiguousarray(pairs).view(np.uint8).reshape(data.shape[0], -1)


def _strings(chars: npt.NDArray[np.uint8]) -> pa.Array:
    """An (n, width) array of ASCII bytes as an Arrow string array of n values."""
    n, width = chars.shape
    flat = np.ascontiguousarray(chars)
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), n, [None, pa.py_buffer(flat)])
    return pc.cast(fixed, pa.string())


def key_strings(
    rng: np.random.Generator, style: str, n: int, topic: str = ""
) -> tuple[str, pa.Array]:
    """`n` distinct keys in `style`, and the column they belong in (`key` or `key_hex`).

    Args:
        rng: The random stream of this sample.
        style: One of `KEY_STYLES`.
        n: How many distinct keys.
        topic: The topic, whose domain names the entity of `entity-id` keys
            (`merchant-00012345` on a payments topic).
    """
    if style in ("entity-id", "numeric", "long-be"):
        # Ids drawn without replacement from a large space: distinct, not consecutive.
        ids = rng.choice(100_000_000, size=n, replace=False).astype(np.int64)
        if style == "long-be":
            raw = ids.astype(">i8").view(np.uint8).reshape(n, 8)
            return "key_hex", _strings(_hex(raw))
        text = pc.cast(pa.array(ids), pa.string())
        if style == "numeric":
            return "key", text
        prefix = _KEY_ENTITIES.get(topic_domain(topic), "account")
        padded = pc.utf8_lpad(text, width=8, padding="0")
        return "key", pc.binary_join_element_wise(f"{prefix}-", padded, "")
    if style in ("uuid", "uuid-bytes"):
        raw = rng.integers(0, 256, size=(n, 16), dtype=np.uint8)
        # Version 4, RFC 4122 variant, as java.util.UUID.randomUUID() makes them.
        raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
        raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
        # 122 random bits: two equal keys among 100,000 have a chance of about 1e-27, so
        # the sample is distinct without a check (the figures' dedupe would catch one).
        chars = _hex(raw)
        if style == "uuid-bytes":
            return "key_hex", _strings(chars)
        text = np.full((n, 36), ord("-"), dtype=np.uint8)  # 8-4-4-4-12
        for start, stop, at in ((0, 8, 0), (8, 12, 9), (12, 16, 14), (16, 20, 19), (20, 32, 24)):
            text[:, at : at + stop - start] = chars[:, start:stop]
        return "key", _strings(text)
    raise ValueError(f"unknown key style {style!r}: use one of {', '.join(KEY_STYLES)}")
