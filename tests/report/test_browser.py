"""The report site in a real headless Chromium: loads clean, filters, sorts, links, escapes.

The site is the one `planned_fleet` renders (real plans from the core, hostile names
included), served over HTTP from a thread, and once more straight from `file://` to show
it works offline. Screenshots of the index and a topic page go to
`tests/report/artifacts/` (or `$REPORT_ARTIFACTS`), as does `timings.txt` with
Chromium's start-up time.
"""

from __future__ import annotations

import os
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from planner.report import FleetReport, page_names
from tests.report.fleets import EXAMPLE_TOPIC, HOSTILE_ATTR, HOSTILE_TOPIC, HOT_TOPIC
from tests.support.browser import Browser, running_browser, serving

pytestmark = pytest.mark.integration

ARTIFACTS = Path(os.environ.get("REPORT_ARTIFACTS", Path(__file__).parent / "artifacts"))
VISIBLE_ROWS = "return [...document.querySelectorAll('#topics tbody tr')].filter(r => !r.hidden)"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with running_browser() as b:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        (ARTIFACTS / "timings.txt").write_text(
            f"Chromium {b.version}: session ready {b.startup_s:.2f} s after starting chromedriver\n"
        )
        print(f"\nChromium {b.version} started in {b.startup_s:.2f} s")
        yield b


@pytest.fixture(scope="module")
def base_url(rendered_site: Path) -> Iterator[str]:
    with serving(rendered_site) as url:
        yield url


@pytest.fixture(scope="module")
def pages(planned_fleet: FleetReport) -> dict[str, str]:
    return page_names(t.topic for t in planned_fleet.topics)


def _open(browser: Browser, url: str) -> None:
    browser.console()  # drop entries from earlier pages
    browser.get(url)


def _errors(browser: Browser) -> list[str]:
    """Console entries at warning level or above (errors, CSP violations, 404s)."""
    return [e["message"] for e in browser.console() if e["level"] in ("SEVERE", "WARNING")]


def test_the_index_loads_without_console_errors(
    browser: Browser, base_url: str, planned_fleet: FleetReport
) -> None:
    _open(browser, base_url + "index.html")
    assert browser.title() == f"Kafka partition plan: run {planned_fleet.run_key}"
    assert browser.execute("return document.getElementById('controls').hidden") is False
    rows = browser.execute(VISIBLE_ROWS + ".length")
    assert rows == len(planned_fleet.topics)
    shown = browser.execute("return document.getElementById('shown').textContent")
    assert shown == f"{rows} of {rows} topics shown"
    assert _errors(browser) == []
    browser.screenshot(ARTIFACTS / "index.png")


def _chart_series(browser: Browser) -> dict[str, tuple[int, int]]:
    """Chart id -> (data series, reference lines), read from the rendered SVG."""
    counts = browser.execute(
        "return [...document.querySelectorAll('svg.chart')].map(s => [s.id,"
        " s.querySelectorAll('g.series').length, s.querySelectorAll('g.ref').length,"
        " s.getBoundingClientRect().width])"
    )
    assert all(width > 300 for *_, width in counts)  # laid out, not collapsed
    return {chart: (series, refs) for chart, series, refs, _ in counts}


def test_a_topic_page_loads_with_its_charts(
    browser: Browser, base_url: str, pages: dict[str, str], planned_fleet: FleetReport
) -> None:
    _open(browser, f"{base_url}topics/{pages[EXAMPLE_TOPIC]}")
    assert browser.title() == f"{EXAMPLE_TOPIC}: Kafka partition plan"
    # Throughput: the samples, and peak, target, what 12 and 16 partitions carry.
    assert _chart_series(browser) == {
        "chart-throughput-mib_in": (1, 4),
        "chart-throughput-records_in": (1, 4),
        "chart-member-load": (4, 2),  # one line per strategy; capacity and limit
        "chart-partition-load": (1, 2),  # no hot key in the example
        "chart-churn": (4, 0),  # revoked and moved, on join and on leave
    }
    path_points = browser.execute(
        "return document.querySelector('#chart-throughput-mib_in g.series path').getTotalLength()"
    )
    assert path_points > 500  # a drawn line, not an empty path
    assert _errors(browser) == []
    browser.screenshot(ARTIFACTS / "topic.png")

    _open(browser, f"{base_url}topics/{pages[HOT_TOPIC]}")
    charts = _chart_series(browser)
    assert charts["chart-partition-load"] == (2, 2)  # plain partitions and the hot one
    marked = browser.execute(
        "return [...document.querySelectorAll('#chart-partition-load g.series.emphasis text')]"
        ".map(t => t.textContent)"
    )
    hot = next(t for t in planned_fleet.topics if t.topic == HOT_TOPIC).partition_load
    assert hot is not None and marked == [str(p) for p in sorted(hot.hot_partitions)]
    assert _errors(browser) == []


def test_the_table_filters(browser: Browser, base_url: str, planned_fleet: FleetReport) -> None:
    _open(browser, base_url + "index.html")
    box = browser.find("#filter")
    browser.type(box, "ORDERS.")  # case-insensitive, typed key by key
    assert browser.execute(VISIBLE_ROWS + ".map(r => r.cells[0].textContent)") == ["orders.created"]
    browser.clear(box)
    browser.type(box, "<script>")
    assert browser.execute(VISIBLE_ROWS + ".map(r => r.cells[0].textContent)") == [HOSTILE_TOPIC]
    browser.clear(box)
    browser.execute(
        "const s = document.getElementById('status-filter'); s.value = 'ok';"
        " s.dispatchEvent(new Event('change'));"
    )
    ok = sorted(t.topic for t in planned_fleet.topics if t.status == "ok")
    assert sorted(browser.execute(VISIBLE_ROWS + ".map(r => r.cells[0].textContent)")) == ok
    assert browser.execute("return document.getElementById('shown').textContent") == (
        f"{len(ok)} of {len(planned_fleet.topics)} topics shown"
    )
    browser.type(box, "audit")
    assert browser.execute(VISIBLE_ROWS + ".length") == 1
    browser.clear(box)
    browser.execute(
        "const s = document.getElementById('status-filter'); s.value = '';"
        " s.dispatchEvent(new Event('change'));"
    )
    assert browser.execute(VISIBLE_ROWS + ".length") == len(planned_fleet.topics)
    assert _errors(browser) == []


def test_the_table_sorts(browser: Browser, base_url: str, planned_fleet: FleetReport) -> None:
    _open(browser, base_url + "index.html")
    column = browser.execute(
        "return [...document.querySelectorAll('#topics thead th')]"
        ".findIndex(th => th.textContent.startsWith('Partitions'))"
    )
    button = browser.find(f"#topics thead th:nth-child({column + 1}) button")
    read = VISIBLE_ROWS + f".map(r => Number(r.cells[{column}].dataset.sort))"
    browser.click(button)
    ascending = browser.execute(read)
    assert ascending == sorted(t.recommended_partitions or 0 for t in planned_fleet.topics)
    assert (
        browser.execute(
            f"return document.querySelectorAll('#topics th')[{column}].getAttribute('aria-sort')"
        )
        == "ascending"
    )
    browser.click(button)
    assert browser.execute(read) == sorted(ascending, reverse=True)
    topic = browser.find("#topics thead th:nth-child(1) button")
    browser.click(topic)
    names = browser.execute(VISIBLE_ROWS + ".map(r => r.cells[0].textContent)")
    assert names == sorted(names, key=str.lower)
    assert _errors(browser) == []


def _links(browser: Browser) -> list[str]:
    return list(
        browser.execute("return [...document.querySelectorAll('a[href]')].map(a => a.href)")
    )


def test_every_link_resolves(browser: Browser, base_url: str, pages: dict[str, str]) -> None:
    to_visit = [base_url + "index.html"]
    seen: set[str] = set()
    checked: set[str] = set()
    while to_visit:
        url = to_visit.pop()
        if url in seen:
            continue
        seen.add(url)
        _open(browser, url)
        for href in _links(browser):
            parts = urlsplit(href)
            assert href.startswith(base_url), f"{url} links outside the site: {href}"
            target = href.split("#")[0]
            if parts.fragment and target == url:
                found = browser.execute(
                    "return !!document.getElementById(arguments[0])", parts.fragment
                )
                assert found, f"{url}: no element #{parts.fragment}"
            if target not in checked:
                with urllib.request.urlopen(target, timeout=10) as response:
                    assert response.status == 200, target
                checked.add(target)
            if target.endswith(".html") and "/topics/" in target:
                to_visit.append(target)
        assert _errors(browser) == [], url
    assert {f"{base_url}topics/{name}" for name in pages.values()} <= seen


def test_hostile_names_show_as_text_and_run_nothing(
    browser: Browser, base_url: str, pages: dict[str, str]
) -> None:
    for url, title, heading in (
        (base_url + "index.html", "Kafka partition plan: run 20261121T0000Z", None),
        (
            f"{base_url}topics/{pages[HOSTILE_TOPIC]}",
            f"{HOSTILE_TOPIC}: Kafka partition plan",
            HOSTILE_TOPIC,
        ),
        (
            f"{base_url}topics/{pages[HOSTILE_ATTR]}",
            f"{HOSTILE_ATTR}: Kafka partition plan",
            HOSTILE_ATTR,
        ),
    ):
        _open(browser, url)
        time.sleep(0.2)  # an injected handler (onerror) would have fired by now
        assert browser.alert_text() is None, url
        assert browser.title() == title
        if heading is not None:
            assert browser.execute("return document.querySelector('h1').textContent") == heading
        assert browser.execute("return document.querySelectorAll('img').length") == 0
        scripts = browser.execute("return document.scripts.length")
        assert scripts == (1 if url.endswith("index.html") else 0)
        body = browser.execute("return document.body.textContent")
        assert HOSTILE_TOPIC in body or HOSTILE_ATTR in body
        assert _errors(browser) == [], url  # no CSP violation: nothing tried to run


def test_the_site_works_offline_from_a_file_url(
    browser: Browser, rendered_site: Path, pages: dict[str, str]
) -> None:
    _open(browser, (rendered_site / "index.html").as_uri())
    assert browser.execute("return document.getElementById('controls').hidden") is False
    browser.type(browser.find("#filter"), "payments")
    assert browser.execute(VISIBLE_ROWS + ".length") == 1
    assert _errors(browser) == []
    _open(browser, (rendered_site / "topics" / pages[EXAMPLE_TOPIC]).as_uri())
    assert len(_chart_series(browser)) == 5
    assert _errors(browser) == []
