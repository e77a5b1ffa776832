"""Atomic publishing: one rename switches the site; a crash or a failure leaves the old one."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from planner.report import FleetReport
from planner.report.publish import current_release, publish_site, releases_dir
from planner.report.site import render_site
from tests.support.browser import serving

ROOT = Path(__file__).resolve().parents[2]


def _tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` by relative path, with its SHA-256."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _writer(text: str, pause_s: float = 0.0) -> object:
    def render(folder: Path) -> None:
        (folder / "index.html").write_text(text)
        time.sleep(pause_s)

    return render


def test_each_publish_switches_the_link_and_keeps_the_previous(tmp_path: Path) -> None:
    site = tmp_path / "out" / "report"
    first = publish_site(_writer("one"), site, durable=False)  # type: ignore[arg-type]
    assert site.is_symlink() and not os.path.isabs(os.readlink(site))
    assert (site / "index.html").read_text() == "one"
    assert current_release(site) == first.resolve()
    second = publish_site(_writer("two"), site)  # type: ignore[arg-type]
    assert (site / "index.html").read_text() == "two"
    assert first.is_dir()  # the previous release is kept (keep=1)
    third = publish_site(_writer("three"), site)  # type: ignore[arg-type]
    assert not first.exists() and second.is_dir() and third.is_dir()
    assert sorted(p.name for p in releases_dir(site).iterdir() if p.is_dir()) == sorted(
        [second.name, third.name]
    )
    assert not list(site.parent.glob(".report.link-*"))


def test_a_release_is_readable_by_a_web_server_running_as_another_user(tmp_path: Path) -> None:
    site = tmp_path / "out" / "report"
    release = publish_site(_writer("one"), site, durable=False)  # type: ignore[arg-type]
    assert release.stat().st_mode & 0o777 == 0o755
    assert (site / "index.html").stat().st_mode & 0o004  # others may read the page


def test_a_failing_render_leaves_the_published_site(tmp_path: Path) -> None:
    site = tmp_path / "report"
    good = publish_site(_writer("good"), site)  # type: ignore[arg-type]

    def broken(folder: Path) -> None:
        (folder / "index.html").write_text("half")
        raise RuntimeError("output suite failed")

    with pytest.raises(RuntimeError, match="output suite failed"):
        publish_site(broken, site)
    assert current_release(site) == good.resolve()
    assert (site / "index.html").read_text() == "good"
    assert [p.name for p in releases_dir(site).iterdir() if p.is_dir()] == [good.name]


def test_a_real_folder_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "report").mkdir()
    with pytest.raises(FileExistsError, match="is not a link made by publish_site"):
        publish_site(_writer("x"), tmp_path / "report")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="keep"):
        publish_site(_writer("x"), tmp_path / "other", keep=-1)  # type: ignore[arg-type]


def test_leftovers_of_killed_publishers_are_removed(tmp_path: Path) -> None:
    site = tmp_path / "report"
    good = publish_site(_writer("good"), site)  # type: ignore[arg-type]
    releases = releases_dir(site)
    (releases / ".staging-dead1").mkdir()
    (releases / ".staging-dead1" / "index.html").write_text("half")
    orphan = releases / "99991231T235959.000000Z-dead00"  # renamed, never switched to
    orphan.mkdir()
    (site.parent / ".report.link-dead").symlink_to(orphan)
    newest = publish_site(_writer("new"), site)  # type: ignore[arg-type]
    left = sorted(p.name for p in releases.iterdir() if p.is_dir())
    assert left == sorted([good.name, newest.name])
    assert not (site.parent / ".report.link-dead").is_symlink()


def test_concurrent_publishes_take_turns(tmp_path: Path) -> None:
    site = tmp_path / "report"
    spans: list[tuple[float, float]] = []
    errors: list[BaseException] = []

    def publish(text: str) -> None:
        def render(folder: Path) -> None:
            start = time.monotonic()
            (folder / "index.html").write_text(text)
            time.sleep(0.3)
            spans.append((start, time.monotonic()))

        try:
            publish_site(render, site)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=publish, args=(f"run {i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert errors == []
    spans.sort()
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
    assert (site / "index.html").read_text() in {"run 0", "run 1", "run 2"}
    assert len([p for p in releases_dir(site).iterdir() if p.is_dir()]) == 2


def _wait_for_pages(releases: Path, proc: subprocess.Popen[bytes], least: int) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the publisher finished before it could be killed"
        for staging in releases.glob(".staging-*"):
            topics = staging / "topics"
            if topics.is_dir() and sum(1 for _ in topics.iterdir()) >= least:
                return staging
        time.sleep(0.02)
    raise AssertionError("the publisher wrote no pages within 60 s")


@pytest.mark.integration
def test_killing_a_publish_half_way_leaves_the_previous_site_served(
    tmp_path: Path, typed_fleet: FleetReport, planned_fleet: FleetReport
) -> None:
    site = tmp_path / "out" / "report"
    before = publish_site(lambda folder: render_site(typed_fleet, folder), site)
    published = _tree(before)
    source = tmp_path / "big.json"
    source.write_text(json.dumps(planned_fleet.to_json_dict()), encoding="utf-8")

    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.report.publisher", str(source), str(site), "3000", "BIG"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        staging = _wait_for_pages(releases_dir(site), proc, least=100)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        output = proc.communicate(timeout=30)[0].decode(errors="replace")
    assert proc.returncode == -signal.SIGKILL, output
    assert staging.is_dir()  # killed mid-render: its half-written site is still there

    assert current_release(site) == before.resolve()
    assert _tree(site) == published
    with serving(site.parent) as base:
        for relative in ("index.html", "summary.md", "topics/orders_v2.html"):
            with urllib.request.urlopen(f"{base}report/{relative}", timeout=10) as response:
                assert response.status == 200
                body = response.read()
            assert hashlib.sha256(body).hexdigest() == published[relative]
        with urllib.request.urlopen(f"{base}report/index.html", timeout=10) as response:
            assert b"BIG" not in response.read()

    after = publish_site(lambda folder: render_site(typed_fleet, folder), site)
    assert not list(releases_dir(site).glob(".staging-*"))
    assert before.is_dir() and current_release(site) == after.resolve()
