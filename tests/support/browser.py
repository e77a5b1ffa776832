"""A real headless Chromium for tests, driven over W3C WebDriver with the standard library.

No Selenium or Playwright: `chromedriver` (Debian package `chromium-driver`) speaks the
W3C WebDriver HTTP protocol, and the few commands the report tests need (navigate, run
a script, find an element, type, click, read the console, take a screenshot) are plain
JSON requests. `running_browser()` starts chromedriver on a free loopback port, opens
one session with a fresh profile, and on exit closes the session, stops chromedriver and
kills the Chromium process it started (by its process id) if it is still there, so no
browser outlives the tests. Start-up is bounded by a deadline.

`serving(folder)` serves a folder over HTTP on loopback from a thread, for pages that
must be fetched the way a reader's browser fetches them.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.ports import free_port

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: STACK.md's flags for Chromium on these machines, plus a fixed window for screenshots.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)
# W3C's element reference key.
_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class WebDriverError(RuntimeError):
    """A WebDriver command failed; carries the W3C error code (`no such alert`, ...)."""

    def __init__(self, error: str, message: str) -> None:
        super().__init__(f"{error}: {message}")
        self.error = error


@dataclass
class Browser:
    """One WebDriver session.

    Attributes:
        endpoint: chromedriver's base URL.
        session_id: The session.
        browser_pid: Chromium's process id (from the session's capabilities).
        startup_s: Seconds from starting chromedriver to a ready session.
        command_timeout_s: Bound on every WebDriver request.
    """

    endpoint: str
    session_id: str
    browser_pid: int | None
    startup_s: float
    command_timeout_s: float = 30.0
    version: str = ""
    _closed: bool = field(default=False, repr=False)

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return _request(
            method,
            f"{self.endpoint}/session/{self.session_id}{path}",
            body,
            self.command_timeout_s,
        )

    def get(self, url: str) -> None:
        """Navigate and wait for the page to load."""
        self._call("POST", "/url", {"url": url})

    def execute(self, script: str, *args: Any) -> Any:
        """Run a function body in the page (`return ...` gives the result)."""
        return self._call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css: str) -> str:
        """The element id of the first element matching a CSS selector."""
        found = self._call("POST", "/element", {"using": "css selector", "value": css})
        return str(found[_ELEMENT])

    def type(self, element: str, text: str) -> None:
        """Type into an element as a user would (key events, `input` events)."""
        self._call("POST", f"/element/{element}/value", {"text": text})

    def clear(self, element: str) -> None:
        """Clear an input."""
        self._call("POST", f"/element/{element}/clear", {})

    def click(self, element: str) -> None:
        """Click an element."""
        self._call("POST", f"/element/{element}/click", {})

    def title(self) -> str:
        """`document.title`."""
        return str(self._call("GET", "/title"))

    def alert_text(self) -> str | None:
        """The text of an open alert, or None when there is none."""
        try:
            return str(self._call("GET", "/alert/text"))
        except WebDriverError as exc:
            if exc.error == "no such alert":
                return None
            raise

    def console(self) -> list[dict[str, Any]]:
        """Browser console entries since the last call (`level`, `message`, `source`)."""
        entries = self._call("POST", "/se/log", {"type": "browser"})
        return list(entries)

    def screenshot(self, path: Path, *, full_page: bool = True) -> Path:
        """Save a PNG screenshot; `full_page` grows the window to the page's height."""
        if full_page:
            height = int(self.execute("return document.documentElement.scrollHeight;"))
            self._call("POST", "/window/rect", {"width": 1280, "height": min(height, 8000)})
        png = base64.b64decode(self._call("GET", "/screenshot"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(png)
        if full_page:
            self._call("POST", "/window/rect", {"width": 1280, "height": 1000})
        return path

    def close(self) -> None:
        """End the session (Chromium quits)."""
        if not self._closed:
            self._closed = True
            _request("DELETE", f"{self.endpoint}/session/{self.session_id}", None, 10.0)


def _request(method: str, url: str, body: dict[str, Any] | None, timeout_s: float) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            payload = json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        payload = json.loads(exc.read() or b"{}")
        value = payload.get("value", {})
        raise WebDriverError(
            str(value.get("error", exc.code)), str(value.get("message", ""))[:2000]
        ) from None
    return payload.get("value")


def _wait_ready(endpoint: str, driver: subprocess.Popen[bytes], deadline: float) -> None:
    while time.monotonic() < deadline:
        if driver.poll() is not None:
            raise RuntimeError(f"chromedriver exited with code {driver.returncode}")
        try:
            if _request("GET", f"{endpoint}/status", None, 2.0).get("ready"):
                return
        except (OSError, WebDriverError):
            pass
        time.sleep(0.05)
    raise RuntimeError("chromedriver not ready before the deadline")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def running_browser(timeout_s: float = 60.0) -> Iterator[Browser]:
    """Start chromedriver and one headless Chromium session; stop both on exit.

    Args:
        timeout_s: Deadline for chromedriver and Chromium to be ready.

    Raises:
        RuntimeError: start-up failed or took longer than `timeout_s` (the message
            carries the end of chromedriver's log).
    """
    started = time.monotonic()
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="chromium-") as tmp:
        profile = Path(tmp) / "profile"
        log_path = Path(tmp) / "chromedriver.log"
        with log_path.open("wb") as log:
            driver = subprocess.Popen(
                [CHROMEDRIVER, f"--port={port}", "--allowed-ips=127.0.0.1"],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        browser: Browser | None = None
        try:
            deadline = started + timeout_s
            try:
                _wait_ready(endpoint, driver, deadline)
                capabilities = {
                    "browserName": "chrome",
                    "goog:loggingPrefs": {"browser": "ALL"},
                    "goog:chromeOptions": {
                        "binary": CHROMIUM,
                        "args": [*CHROMIUM_ARGS, f"--user-data-dir={profile}"],
                    },
                    "timeouts": {"pageLoad": 30_000, "script": 30_000, "implicit": 0},
                }
                session = _request(
                    "POST",
                    f"{endpoint}/session",
                    {"capabilities": {"alwaysMatch": capabilities}},
                    max(1.0, deadline - time.monotonic()),
                )
            except (RuntimeError, WebDriverError, OSError) as exc:
                tail = log_path.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"headless Chromium did not start: {exc}\n{tail}") from exc
            caps = session["capabilities"]
            browser = Browser(
                endpoint=endpoint,
                session_id=session["sessionId"],
                browser_pid=caps.get("goog:processID"),
                startup_s=time.monotonic() - started,
                version=str(caps.get("browserVersion", "")),
            )
            yield browser
        finally:
            if browser is not None:
                with contextlib.suppress(OSError, WebDriverError):
                    browser.close()
            driver.terminate()
            try:
                driver.wait(timeout=10)
            except subprocess.TimeoutExpired:
                driver.kill()
                driver.wait()
            pid = browser.browser_pid if browser else None
            if pid is not None and _alive(pid):
                # chromedriver did not take its browser down: end it by its own id.
                os.kill(pid, signal.SIGKILL)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """Serve `folder` over HTTP on a free loopback port; yields the base URL (ends in /)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="report-http", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
