"""Fixtures for the browser end-to-end tests.

* ``e2e_server`` — one real server for the whole run (``python -m app.cli serve`` in a subprocess,
  via ``tests.app.live.server.ServerProcess``) on a fresh SQLite file, with short deal pauses,
  fast bots and the page's own origin allowed for the WebSocket.
* ``browser`` — Debian's headless Chromium driven by Playwright's sync API, open while the run is
  in this package. No Chromium means the tests FAIL with a message saying so; they never skip.
  ``GAPLE_E2E_CHROMIUM`` points elsewhere.
* ``open_page`` — ``page = open_page(locale="id-ID", viewport=PHONE, spectator=False)``: a new
  browser context (its own localStorage, so its own guest) with the recording init script from
  ``gaple.py``. Every context is closed after the test; an uncaught exception or a console
  error on any page fails the test; when a test fails, each page's screenshot, console log and
  state land in ``test-artifacts/failures/<test>/`` (with the server's log; the folder is emptied
  when the run starts, tests/conftest.py).
* ``lobby_api`` — REST helper bound to the server (guests, rooms, seats, bots, start, close).

The server runs the room lifecycle with short delays (``QUICKPLAY_BOT_FILL_SECONDS``,
``HOST_AWAY_SECONDS`` in ``gaple.py``) and per-address limits far above what the tests use.

Artifacts (screenshots) are written to ``test-artifacts/`` at the repo root (git-ignored). Set
``GAPLE_E2E_UPDATE_DOCS=1`` to also copy the four README screenshots into ``docs/screenshots/``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.app.live.server import ServerProcess
from tests.e2e.gaple import (
    ARTIFACTS,
    INIT_SCRIPT,
    LobbyApi,
    Page,
    start_server,
)

CHROMIUM = os.environ.get("GAPLE_E2E_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_FAILED] = report.failed


_FAILED = pytest.StashKey[bool]()


@pytest.fixture(scope="session")
def e2e_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = start_server(tmp_path_factory.mktemp("e2e-server"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def lobby_api(e2e_server: ServerProcess) -> Iterator[LobbyApi]:
    api = LobbyApi(e2e_server.base_url)
    try:
        yield api
    finally:
        api.close()


# Playwright's sync API keeps an event loop running in this thread while it is open, and no
# asyncio test can start under a running loop: the browser is closed when the run leaves this
# package (the other tests may come after it, in a worker process of pytest-xdist above all).
@pytest.fixture(scope="package")
def _playwright() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="package")
def browser(_playwright: Any) -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"Chromium is missing: no executable at {CHROMIUM}. The browser end-to-end tests need "
            "Debian's chromium package (`apt-get install chromium`) or GAPLE_E2E_CHROMIUM set to "
            "a Chromium binary; they do not download one.",
            pytrace=False,
        )
    try:
        chromium = _playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception as exc:  # a broken binary is as fatal as a missing one
        pytest.fail(f"Chromium at {CHROMIUM} did not start: {exc}", pytrace=False)
    try:
        yield chromium
    finally:
        chromium.close()


@pytest.fixture
def open_page(
    browser: Any, e2e_server: ServerProcess, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Page]]:
    contexts: list[Any] = []
    pages: list[Page] = []

    def make(
        *,
        locale: str = "id-ID",
        viewport: tuple[int, int] = (1366, 768),
        spectator: bool = False,
        label: str | None = None,
        motion: bool = False,
    ) -> Page:
        # Pages ask for reduced motion unless a test watches the motion itself (test_motion.py):
        # a tile still flying into the hand is not where a quick test's click lands.
        context = browser.new_context(
            base_url=e2e_server.base_url,
            locale=locale,
            viewport={"width": viewport[0], "height": viewport[1]},
            device_scale_factor=1,
            reduced_motion="no-preference" if motion else "reduce",
        )
        contexts.append(context)
        context.set_default_timeout(15_000)
        context.add_init_script(INIT_SCRIPT)
        if spectator:
            context.add_init_script("window.__gapleSpectator = true;")
        page = Page(context.new_page(), label or f"page{len(pages)}")
        pages.append(page)
        return page

    try:
        yield make
    finally:
        if request.node.stash.get(_FAILED, False):
            folder = ARTIFACTS / "failures" / re.sub(r"[^\w.-]+", "_", request.node.name)
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True, exist_ok=True)
            for page in pages:
                page.dump(folder)
            with contextlib.suppress(OSError):
                shutil.copyfile(e2e_server.log_path, folder / "server.log")
        # What the DOM watcher saw on every page (a hand on a spectator page, revealed tiles
        # during play), uncaught exceptions and console errors fail the test at teardown.
        problems = []
        for page in pages:
            with contextlib.suppress(Exception):  # a page that is already gone
                seen = page.page.evaluate("() => (window.__gaple || {}).violations || []")
                problems += [f"{page.label}: DOM: {v}" for v in seen]
            problems += [f"{page.label}: pageerror: {e}" for e in page.errors]
            problems += [f"{page.label}: {c}" for c in page.console if c.startswith("error:")]
        for context in contexts:
            with contextlib.suppress(Exception):  # the browser may be gone after a crash
                context.close()
        assert not problems, "the pages logged errors:\n" + "\n".join(problems)
