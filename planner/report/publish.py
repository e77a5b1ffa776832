"""Publishing the site atomically: readers see the old report or the new one, never a mix.

The published path (say `OUT/report`) is a symbolic link to a release folder beside it
(`OUT/report.releases/<UTC time>-<random>/`). A publish renders into a fresh staging
folder in `report.releases/`, flushes it to disk, renames it to its release name, then
points the link at it with one `rename(2)` of a new link over the old one. That rename
is atomic on POSIX file systems: a reader resolving `OUT/report/index.html` gets the
old tree or the new one. The old release is untouched until the switch has happened,
and the previous one is kept after it (`keep`), so a reader in the middle of the old
site is not cut off and an operator can point the link back.

Why a link and not renaming the report folder itself: `rename(2)` cannot replace a
non-empty folder, so swapping folders takes two renames (old aside, new in) with a
moment where `OUT/report` does not exist, and a crash between them leaves no report at
all. Swapping a link is one rename, and a crash at any point leaves the link on a
complete release.

A publish killed half-way leaves a `.staging-*` folder, or a release the link never
pointed to, or a temporary link; the next publish removes them. Publishes of one site
are serialised by an advisory lock (`report.releases/.lock`), so two runs cannot
interleave. POSIX only (symbolic links, `fcntl`).

Serving: any static web server whose document root is the link (or a folder holding
it) serves the switch as soon as it happens, as long as it resolves paths per request
(nginx's `open_file_cache` and similar caches must be off or short for that path).
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from planner.locks import exclusive

__all__ = ["current_release", "publish_site", "releases_dir"]

_STAGING = ".staging-"


def releases_dir(site: Path) -> Path:
    """The folder holding the release folders of the site published at `site`."""
    return site.parent / f"{site.name}.releases"


def current_release(site: Path) -> Path | None:
    """The release folder `site` points at (None: nothing published yet)."""
    if not site.is_symlink():
        return None
    return (site.parent / os.readlink(site)).resolve()


def _link_prefix(site: Path) -> str:
    return f".{site.name}.link-"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    # Contents on disk before the rename that publishes them: after a power cut the link
    # must not point at files whose data never reached the disk.
    for folder, _, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(folder))


def _release_name() -> str:
    now_ns = time.time_ns()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now_ns // 1_000_000_000))
    return f"{stamp}.{now_ns // 1_000 % 1_000_000:06d}Z-{secrets.token_hex(3)}"


def _remove_leftovers(site: Path, releases: Path, current: Path | None) -> None:
    """Remove what killed publishers left: staging folders, unpublished releases, links.

    Called with the lock held, so no live publisher owns any of them. Release names
    sort by time, so a release newer than the one the link points at was never
    published (its publisher died before the switch) or was rolled back by hand.
    """
    inside = current is not None and current.parent == releases.resolve()
    for entry in releases.iterdir():
        if not entry.is_dir() or entry.is_symlink():
            continue
        unpublished = current is None or (inside and entry.name > current.name)
        if entry.name.startswith(_STAGING) or unpublished:
            shutil.rmtree(entry, ignore_errors=True)
    for entry in site.parent.glob(_link_prefix(site) + "*"):
        if entry.is_symlink():
            entry.unlink(missing_ok=True)


def _prune(releases: Path, current: Path, keep: int) -> None:
    older = sorted(
        (
            e
            for e in releases.iterdir()
            if e.is_dir() and not e.name.startswith(".") and e.name < current.name
        ),
        key=lambda e: e.name,
    )
    for entry in older[: max(0, len(older) - keep)]:
        shutil.rmtree(entry, ignore_errors=True)


def publish_site(
    render: Callable[[Path], None],
    site: Path,
    *,
    keep: int = 1,
    durable: bool = True,
) -> Path:
    """Render a site into a new release and switch `site` to it in one rename.

    Args:
        render: Writes the whole site into the (empty) folder it is given, e.g.
            `lambda d: render_site(report, d)`; put anything published with the report
            (GX Data Docs) into the same folder so that it switches with it.
        site: The path readers use; a symbolic link this function manages (created on
            the first publish). Its parent folder is created if missing.
        keep: Earlier releases to keep after the switch (1: the previous one).
        durable: Flush the new release to disk before switching (off only for tests or
            throw-away output).

    Returns:
        The new release folder.

    Raises:
        FileExistsError: `site` exists and is not a symbolic link (a real folder would
            need two renames to replace: move it away first).
        Exception: whatever `render` raised; the published site is then unchanged and
            the staging folder removed.
    """
    site = Path(site)
    if keep < 0:
        raise ValueError(f"keep must be zero or above, got {keep}")
    if site.exists() and not site.is_symlink():
        raise FileExistsError(
            f"{site} exists and is not a link made by publish_site: move it away once, "
            "then publish again"
        )
    releases = releases_dir(site)
    releases.mkdir(parents=True, exist_ok=True)
    with exclusive(releases / ".lock"):
        previous = current_release(site)
        _remove_leftovers(site, releases, previous)
        staging = Path(tempfile.mkdtemp(prefix=_STAGING, dir=releases))
        release = releases / _release_name()
        link = site.parent / f"{_link_prefix(site)}{secrets.token_hex(4)}"
        try:
            render(staging)
            # mkdtemp makes the folder 0700: a web server running as another user would
            # answer 403 for every page. The site is meant to be read.
            staging.chmod(0o755)
            if durable:
                _fsync_tree(staging)
            staging.rename(release)
            if durable:
                _fsync_dir(releases)
            os.symlink(os.path.relpath(release, site.parent), link)
            os.replace(link, site)  # the switch: one atomic rename
        except BaseException:
            link.unlink(missing_ok=True)
            for leftover in (staging, release):
                shutil.rmtree(leftover, ignore_errors=True)
            raise
        if durable:
            _fsync_dir(site.parent)
        _prune(releases, release, keep)
    return release
