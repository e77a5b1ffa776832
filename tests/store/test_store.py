"""The store on SQLite and PostgreSQL: publish, rerun, failure, history, hostile names."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import importlib.util
import threading
import time
from typing import Any

import pytest

from planner.store import (
    FAILED,
    PUBLISHED,
    REPLACED,
    RecommendationStore,
    RunSummary,
    StoreError,
    StoreUnavailable,
    sqlite_url,
    topic_scope,
)
from planner.store.records import MAX_TOPIC_BYTES, prepare_rows
from tests.store.conftest import run_for
from tests.store.rows import fleet_rows

HOSTILE_TOPICS = [
    "x'); DROP TABLE runs;--",
    "Robert'); DROP TABLE recommendations;--",
    '"; DELETE FROM recommendations WHERE ""="',
    "' OR '1'='1",
    "%s",
    "%(topic)s",
    ":topic",
    "?",
    "back\\slash",
    "tab\tand\nnewline",
    "\x1b[2J\x1b[31mred",
    "主题-ü-🚀",
    # The longest name stored, incompressible (PostgreSQL's index limit is on what
    # remains after compression).
    "".join(chr(0x4E00 + (i * 7919) % 20_000) for i in range(MAX_TOPIC_BYTES // 3)),
    "",
]


def _row(template: dict[str, Any], topic: str, **changes: Any) -> dict[str, Any]:
    row = copy.deepcopy(template)
    row.update(topic=topic, **changes)
    return row


def _published(row: dict[str, Any]) -> dict[str, Any]:
    [prepared] = prepare_rows([row])
    return {**prepared.columns, **prepared.detail}


def test_a_published_run_reads_back_exactly(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    run = run_for("2026-11-21", sources=["prometheus"], config_sha256="ab12")
    summary = RunSummary({"recommendations.published": {"success": True, "failed": []}}, 7)
    other = _row(example_row, "clicks", status="missing-capacity", recommended_partitions=None)
    record = fresh_store.publish_run(run, [example_row, other], summary)

    assert record.key == "20261121T0000Z" and record.status == PUBLISHED
    assert record.interval == run.interval
    assert record.started_at == run.started_at
    assert record.finished_at.tzinfo == dt.UTC
    assert (record.topics, record.increases, record.missing_capacity) == (2, 1, 1)
    assert record.rejected_rows == 7
    assert record.validation == {"recommendations.published": {"success": True, "failed": []}}
    assert record.source == {"sources": ["prometheus"], "config_sha256": "ab12"}
    assert fresh_store.last_good_run() == record
    assert fresh_store.runs() == [record]

    latest = fresh_store.latest(example_row["topic"])
    assert latest is not None and latest.run == record
    assert latest.as_row() == _published(example_row)
    assert latest.groups[0]["group_id"] == "fraud-scoring"
    assert [r.topic for r in fresh_store.recommendations()] == [
        "clicks",
        "payments.authorizations",
    ]
    # What the publish guard compares a new run with.
    assert fresh_store.topic_statuses(record) == {
        "clicks": "missing-capacity",
        "payments.authorizations": example_row["status"],
    }


def test_publishing_an_interval_again_replaces_its_rows(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    run = run_for("2026-11-21")
    first = fresh_store.publish_run(run, [_row(example_row, "orders"), _row(example_row, "clicks")])
    second = fresh_store.publish_run(
        run,
        [_row(example_row, "orders", recommended_partitions=48), _row(example_row, "audit")],
    )

    assert [r.topic for r in fresh_store.recommendations(run.key)] == ["audit", "orders"]
    orders = fresh_store.latest("orders")
    assert orders is not None and orders.recommended_partitions == 48
    assert fresh_store.latest("clicks") is None
    assert fresh_store.history("orders") == [orders]
    attempts = fresh_store.runs()
    assert [(r.id, r.status) for r in attempts] == [(second.id, PUBLISHED), (first.id, REPLACED)]
    assert fresh_store.last_good_run() == second


def test_a_failed_run_is_recorded_and_the_last_good_rows_stay(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    good = fresh_store.publish_run(run_for("2026-11-21"), [example_row])
    message = "recommendations.published: expect_column_pair_values_A_to_be_greater_than_B"
    failed = fresh_store.record_failure(
        run_for("2026-11-22"), message, RunSummary({"recommendations.published": False}, 2)
    )
    # A rerun of the good interval that fails must not touch its rows either.
    fresh_store.record_failure(run_for("2026-11-21"), "sizing.published failed")

    assert failed.status == FAILED and failed.message == message and failed.topics == 0
    assert failed.rejected_rows == 2 and failed.validation == {"recommendations.published": False}
    assert fresh_store.last_good_run() == good
    latest = fresh_store.latest(example_row["topic"])
    assert latest is not None and latest.run == good
    assert [(r.key, r.status) for r in fresh_store.runs()] == [
        ("20261122T0000Z", FAILED),
        ("20261121T0000Z", FAILED),
        ("20261121T0000Z", PUBLISHED),
    ]


def test_a_new_topic_planned_by_hand_never_replaces_the_fleets_run(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    fleet = fresh_store.publish_run(
        run_for("2026-11-21"), [_row(example_row, "orders"), _row(example_row, "clicks")]
    )
    new = _row(example_row, "payments.v2", current_partitions=None, recommended_partitions=24)
    by_hand = dataclasses.replace(run_for("2026-11-21"), scope=topic_scope("payments.v2"))
    planned = fresh_store.publish_run(by_hand, [new])
    # Planned again with other figures: replaces only its own run.
    again = fresh_store.publish_run(by_hand, [_row(new, "payments.v2", recommended_partitions=36)])

    assert planned.scope == again.scope == "topic:payments.v2"
    assert fresh_store.last_good_run() == fleet
    assert [r.topic for r in fresh_store.recommendations()] == ["clicks", "orders"]
    assert [r.topic for r in fresh_store.recommendations(scope="topic:payments.v2")] == [
        "payments.v2"
    ]
    latest = fresh_store.latest("payments.v2")
    assert latest is not None and latest.recommended_partitions == 36
    assert latest.run.scope == "topic:payments.v2"
    statuses = [(r.scope, r.status) for r in fresh_store.runs()]
    assert sorted(statuses) == [
        ("fleet", PUBLISHED),
        ("topic:payments.v2", PUBLISHED),
        ("topic:payments.v2", REPLACED),
    ]
    with pytest.raises(StoreError, match="run scope"):
        dataclasses.replace(run_for("2026-11-21"), scope="team-a")


def test_latest_follows_the_data_interval_not_the_order_of_publishing(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    topic = example_row["topic"]
    newer = fresh_store.publish_run(
        run_for("2026-11-22"), [_row(example_row, topic, recommended_partitions=24)]
    )
    backfill = fresh_store.publish_run(
        run_for("2026-11-20"), [_row(example_row, topic, recommended_partitions=16)]
    )
    middle = fresh_store.publish_run(run_for("2026-11-21"), [_row(example_row, "other")])

    assert fresh_store.last_good_run() == newer
    assert [r.run.id for r in fresh_store.history(topic)] == [newer.id, backfill.id]
    assert [r.id for r in fresh_store.runs()] == [newer.id, middle.id, backfill.id]
    latest = fresh_store.latest(topic)
    assert latest is not None and latest.recommended_partitions == 24
    assert [r.run.id for r in fresh_store.history(topic, limit=1)] == [newer.id]
    assert [r.id for r in fresh_store.runs(limit=2)] == [newer.id, middle.id]


def test_history_matches_the_exact_name_only(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    names = ["orders", "orders%", "orders_v2", "ORDERS", "orders "]
    fresh_store.publish_run(run_for("2026-11-21"), [_row(example_row, n) for n in names])
    for name in names:
        assert [r.topic for r in fresh_store.history(name)] == [name]
    assert fresh_store.history("order_") == []
    assert fresh_store.latest("%") is None
    with pytest.raises(StoreError, match="limit"):
        fresh_store.history("orders", limit=0)


def test_hostile_topic_names_are_stored_and_read_back_as_data(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    rows = [
        _row(
            example_row,
            name,
            warnings=[f"topic {name} needs care"],
            groups=[{**example_row["groups"][0], "group_id": name}],
        )
        for name in HOSTILE_TOPICS
    ]
    fresh_store.publish_run(run_for("2026-11-21"), rows)
    fresh_store.publish_run(run_for("2026-11-22"), rows[:1])

    for name, row in zip(HOSTILE_TOPICS, rows, strict=True):
        latest = fresh_store.latest(name)
        assert latest is not None, name
        assert latest.as_row() == _published(row)
    assert len(fresh_store.recommendations("20261121T0000Z")) == len(HOSTILE_TOPICS)
    assert len(fresh_store.history(HOSTILE_TOPICS[0])) == 2
    assert len(fresh_store.runs()) == 2  # the tables are all still there


def test_a_bad_row_anywhere_writes_nothing(
    fresh_store: RecommendationStore, example_row: dict[str, Any]
) -> None:
    good = fresh_store.publish_run(run_for("2026-11-21"), [example_row])
    rows = fleet_rows(example_row, 50)
    rows[37]["recommended_partitions"] = "many"
    with pytest.raises(StoreError, match=r"row 37 \(topic 'fleet.topic-00037'\)"):
        fresh_store.publish_run(run_for("2026-11-21"), rows)
    with pytest.raises(StoreError, match="NUL"):
        fresh_store.publish_run(run_for("2026-11-22"), [_row(example_row, "a\x00b")])
    with pytest.raises(StoreError, match="run 20261121T0000Z: no recommendation rows"):
        fresh_store.publish_run(run_for("2026-11-21"), [])
    assert fresh_store.runs() == [good]
    assert [r.topic for r in fresh_store.recommendations()] == [example_row["topic"]]


def test_a_big_run_is_published_in_batches(store_url: str, example_row: dict[str, Any]) -> None:
    progress: list[tuple[int, int]] = []
    with RecommendationStore(store_url, batch_rows=400) as store:
        record = store.publish_run(
            run_for("2026-11-21"),
            fleet_rows(example_row, 1_000),
            on_batch=lambda sent, total: progress.append((sent, total)),
        )
        assert progress == [(400, 1_000), (800, 1_000), (1_000, 1_000)]
        assert record.topics == 1_000
        assert len(store.recommendations()) == 1_000


def test_the_schema_is_created_once_and_reopened(
    store_url: str, example_row: dict[str, Any]
) -> None:
    with RecommendationStore(store_url) as first, RecommendationStore(store_url) as second:
        assert first.runs() == second.runs() == []
        record = first.publish_run(run_for("2026-11-21"), [example_row])
        assert second.last_good_run() == record
    with RecommendationStore(store_url) as reopened:
        assert reopened.runs() == [record]


def test_concurrent_publishes_of_one_interval_leave_the_last_one_published(
    store_url: str, example_row: dict[str, Any]
) -> None:
    run = run_for("2026-11-21")
    holding, release = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def hold(sent: int, total: int) -> None:
        holding.set()
        assert release.wait(20)

    def publish(rows: list[dict[str, Any]], on_batch: Any = None) -> None:
        try:
            with RecommendationStore(store_url) as store:
                store.publish_run(run, rows, on_batch=on_batch)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    with RecommendationStore(store_url) as store:
        store.runs()  # create the schema before the race
        first = threading.Thread(target=publish, args=([_row(example_row, "first")], hold))
        first.start()
        assert holding.wait(20)
        # The second publish starts while the first holds its open transaction: it
        # waits for the first to commit (a lock, or PostgreSQL's unique index) and then
        # replaces it.
        second = threading.Thread(target=publish, args=([_row(example_row, "second")],))
        second.start()
        time.sleep(0.3)
        release.set()
        first.join(30)
        second.join(30)
        assert errors == []
        assert [r.topic for r in store.recommendations(run.key)] == ["second"]
        assert [r.status for r in store.runs()] == [PUBLISHED, REPLACED]


def test_timestamps_come_back_in_utc(store_url: str, example_row: dict[str, Any]) -> None:
    run = run_for("2026-11-21")
    local = dt.timezone(dt.timedelta(hours=-5))
    started = dt.datetime(2026, 11, 21, 20, 15, 30, 123456, tzinfo=local)
    with RecommendationStore(store_url) as store:
        record = store.publish_run(type(run)(run.interval, started), [example_row])
    assert record.started_at == started and record.started_at.tzinfo == dt.UTC
    assert record.started_at.hour == 1  # 20:15 at UTC-5 is 01:15 UTC


# --- opening a store ----------------------------------------------------------------


def test_only_sqlite_and_postgresql_urls_are_taken() -> None:
    with pytest.raises(StoreError, match="expected sqlite or postgresql, got mysql"):
        RecommendationStore("mysql+pymysql://u:secret@db/planner")
    with pytest.raises(StoreError, match="not a database URL"):
        RecommendationStore("not a url")
    with pytest.raises(StoreError, match=r"postgresql\.nosuch"):
        RecommendationStore("postgresql+nosuch://planner@db/planner")


def test_a_missing_driver_is_named_and_the_password_is_not() -> None:
    driver = next(
        (d for d in ("pg8000", "asyncpg", "psycopg2") if importlib.util.find_spec(d) is None),
        None,
    )
    if driver is None:
        pytest.skip("every PostgreSQL driver tried here is installed")
    with pytest.raises(StoreUnavailable, match=f"the postgresql\\+{driver} driver") as caught:
        RecommendationStore(f"postgresql+{driver}://planner:s3cret@127.0.0.1:1/planner")
    assert "s3cret" not in str(caught.value)


def test_an_unreachable_sqlite_file_is_reported(tmp_path: Any) -> None:
    store = RecommendationStore(sqlite_url(tmp_path))  # a directory, not a file
    with pytest.raises(StoreUnavailable, match="cannot list runs: unable to open"):
        store.runs()


@pytest.mark.integration
def test_an_unreachable_postgresql_server_is_reported() -> None:
    from tests.support.ports import free_port
    from tests.support.postgres import installed_driver

    if installed_driver() is None:
        pytest.skip("no PostgreSQL driver in the environment")
    url = f"postgresql+{installed_driver()}://planner:s3cret@127.0.0.1:{free_port()}/planner"
    store = RecommendationStore(url)
    with pytest.raises(StoreUnavailable, match="cannot list runs") as caught:
        store.runs()
    assert "s3cret" not in str(caught.value)


def test_importing_the_store_imports_no_sqlalchemy() -> None:
    import subprocess
    import sys

    code = "import sys, planner.store; print(any(m.startswith('sqlalchemy') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
