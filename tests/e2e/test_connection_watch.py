"""A link that dies without a close frame, in the browser: the table's server process is
stopped (SIGSTOP: the kernel still holds the TCP connection, nothing answers and nothing closes),
and the page must show the connection banner within 10 s of the last frame it heard, never
showing a tap as accepted meanwhile; once the server runs again the page resumes where the
server is. The browser going offline shows the banner at once and reconnects when it is back.

The frozen server is a process of this test's own (tests/server.py), with the same settings as
the shared one, so that stopping it stalls nobody else.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.live.server import ServerProcess
from tests.e2e.gaple import LobbyApi, bot_table, start_server, tile_key, wait_my_turn, wait_until

DEAD_WITHIN_S = 10
OFFLINE_FETCH = "Failed to load resource: net::ERR_INTERNET_DISCONNECTED"

BANNER_JS = (
    "() => document.querySelector('[data-testid=\"connection-banner\"]')?.dataset.state || null"
)


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_server(tmp_path)
    try:
        yield server
    finally:
        os.kill(server.pid, signal.SIGCONT)  # a stopped process cannot take its SIGTERM
        server.stop()


def test_a_silently_dead_link_shows_the_banner_within_10s(own_server, open_page):
    api = LobbyApi(own_server.base_url)
    try:
        page, _, _ = bot_table(
            api,
            open_page,
            name="Putu",
            seat=0,
            turn_seconds=60,
            deals_per_set=3,
            origin=own_server.base_url,
        )
        st = wait_my_turn(page, timeout=40)
        page.page.wait_for_timeout(300)  # the batch that gave us the turn is all in
        heard = page.recorded()["frames"]
        os.kill(own_server.pid, signal.SIGSTOP)
        stopped = time.monotonic()
        # A tap on the dead link: sent into the void, shown as sending, the tile stays put.
        tile = page.play_turn(random.Random(7), st, wait=False)
        assert tile
        after_tap = page.state()
        assert after_tap["line"] == st["line"], after_tap
        assert tile_key(tile) in after_tap["hand"] or after_tap["choosing"]

        state = page.wait_js(BANNER_JS, timeout=DEAD_WITHIN_S)
        took = time.monotonic() - stopped
        assert took < DEAD_WITHIN_S, took
        assert state in ("connecting", "retrying"), state
        assert page.recorded()["frames"] == heard  # nothing came: the banner is the watch's
        # Still not accepted: the tile is in the hand and the line is as it was.
        shown = page.state()
        assert shown["line"] == st["line"]
        assert set(shown["hand"]) == set(st["hand"]), shown["hand"]

        os.kill(own_server.pid, signal.SIGCONT)
        page.wait_js(
            "() => !document.querySelector('[data-testid=\"connection-banner\"]')", timeout=30
        )

        # Resumed: what the page draws is what the server's latest snapshot says.
        def in_sync():
            now = page.state()
            view = now["snapshot"]["view"]
            return sorted(now["hand"]) == sorted(tile_key(t) for t in view["hand"]) and now[
                "line"
            ] == [e["tile"] for e in view["line"]]

        wait_until(in_sync, 15, lambda: f"out of sync: {page.state()}")
    finally:
        api.close()


def test_going_offline_shows_the_banner_at_once_and_back_online_reconnects(open_page, lobby_api):
    page, _, _ = bot_table(
        lobby_api, open_page, name="Gede", seat=2, turn_seconds=60, deals_per_set=3
    )
    wait_my_turn(page, timeout=40)
    sockets = page.page.evaluate("() => window.__gaple.sockets.length")
    page.page.context.set_offline(True)
    page.wait_js(BANNER_JS, timeout=2)
    st = page.state()
    assert st["mine"] and st["legal"]
    # A tap while offline is refused on the spot: nothing is shown as sent. A tile that fits both
    # ends first opens the end choice (nothing is sent yet); the end picked is what is refused,
    # and the choice closes.
    page.tile(st["legal"][0]).click()
    if page.state()["choosing"]:
        page.by("end-choice", end="left").click()
    tapped = page.state()
    assert tapped["hand"] == st["hand"] and not tapped["pending"] and not tapped["choosing"]
    page.page.context.set_offline(False)
    page.wait_js("() => !document.querySelector('[data-testid=\"connection-banner\"]')", timeout=15)
    assert page.page.evaluate("() => window.__gaple.sockets.length") > sockets
    assert wait_my_turn(page)["hand"] == st["hand"]
    # A REST call the page made while the test held it offline is logged by Chromium itself as a
    # failed resource: the network the test took away, not an error of the page.
    page.console[:] = [c for c in page.console if OFFLINE_FETCH not in c]
