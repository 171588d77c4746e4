"""Debian's chromium through Playwright (never a downloaded browser), for the page's tests.

Without /usr/bin/chromium a test skips, unless VD_REQUIRE_BROWSER=1 (scripts/test.sh, and so CI, set
it): then it fails, so a missing browser can never pass for a green run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import playwright.sync_api as playwright_api
import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
STEP_TIMEOUT_MS = 15_000  # a deadlock guard for each wait, never a timing assertion
# wait_for_function gets functions, never bare expressions: Playwright evals those in the page, which
# the page's Content-Security-Policy (no 'unsafe-eval') rightly forbids.

DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 1000}}
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


def require_chromium() -> None:
    if shutil.which(CHROMIUM) is None:
        missing = "Debian chromium is not installed (scripts/test.sh installs it)"
        if os.environ.get("VD_REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)


class _Chromium:
    """This worker's chromium, launched on the first page and shared by the tests until close():
    a launch costs over a second of CPU, a fresh context a fraction of it, with the same isolation."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None

    def browser(self) -> Any:
        if self._browser is None or not self._browser.is_connected():
            self.close()
            self._playwright = playwright_api.sync_playwright().start()
            self._browser = self._playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
        return self._browser

    def close(self) -> None:
        browser, driver, self._browser, self._playwright = self._browser, self._playwright, None, None
        try:
            if browser is not None:
                browser.close()
        finally:
            if driver is not None:
                driver.stop()


CHROMIUM_OF_THIS_WORKER = _Chromium()  # tests/e2e/conftest.py closes it after each module


@contextmanager
def open_page(device: dict[str, Any] | None = None) -> Iterator[Any]:
    """A tab in a fresh browser context (no storage, cookies or cache shared with any other page, as
    in a new profile); fails the test if the page raised anything."""
    require_chromium()
    context = CHROMIUM_OF_THIS_WORKER.browser().new_context(**(device or DESKTOP))
    try:
        tab = context.new_page()
        tab.set_default_timeout(STEP_TIMEOUT_MS)
        errors: list[str] = []
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        yield tab
        assert errors == [], f"the page raised: {errors}"
    finally:
        context.close()


def wait_for_seq(page: Any, seq: int) -> None:
    """Until the page has shown every event up to `seq`, connected and not catching up."""
    page.wait_for_function(
        "seq => window.visualDegrees.connected && window.visualDegrees.run && "
        "!window.visualDegrees.run.resyncing && window.visualDegrees.run.lastSeq === seq",
        arg=seq,
    )
    # The page redraws once a frame, after the events it holds: wait for that frame's drawing too
    # (animation frame callbacks run in the order they were asked for).
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => done()))")


def start_run(page: Any, url: str, person_a: str, person_b: str, **options: str) -> None:
    """Open the page at `url` and start a run from its form; `options`: field id -> value (under
    Options, e.g. `**{"opt-searches": "1"}`)."""
    page.goto(url)
    page.wait_for_function("() => window.visualDegrees.connected")
    page.fill("#person-a", person_a)
    page.fill("#person-b", person_b)
    if options:
        page.click(".options summary")
        for field, value in options.items():
            page.fill(f"#{field}", value)
    page.click("#start")


def artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
