"""Quick play in the browser, at 390 px and on a desktop, in both languages: the wait screen
shows who has joined and a countdown to the bots that goes down; "start now with bots" starts the
set; after the set the result stays, with "play again" (the next set at the same table) and
"leave" (the last human out closes the table)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.live.server import ServerProcess
from tests.e2e.gaple import PHONE, LobbyApi, play_set, start_server

SEED = random.randrange(1 << 32)
FILL = 40  # long enough to watch the countdown; "start now" comes well before it
CHOICE = {"preset": "pordi", "mode": "tunggal", "turn_seconds": 60}


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = start_server(
        tmp_path_factory.mktemp("quick-server"),
        GAPLE_QUICKPLAY_BOT_FILL_SECONDS=str(FILL),
        GAPLE_BOT_MIN_DELAY="0.05",
        GAPLE_BOT_MAX_DELAY="0.1",
        GAPLE_DEAL_PAUSE_SECONDS="0.5",
    )
    try:
        yield server
    finally:
        server.stop()


def _quick(api: LobbyApi, guest: dict[str, Any]) -> dict[str, Any]:
    response = api.http.post(
        "/api/quickplay", json=CHOICE, headers={"Authorization": f"Bearer {guest['token']}"}
    )
    assert response.status_code == 200, response.text
    return dict(response.json()["room"])


def _seconds_left(page: Any) -> int:
    return int(page.by("bots-countdown").get_attribute("data-seconds-left"))


@pytest.mark.parametrize(
    ("locale", "viewport", "words"),
    [
        ("id-ID", (1366, 768), ("Mulai sekarang dengan bot", "Main lagi", "Keluar")),
        ("en-US", PHONE, ("Start now with bots", "Play again", "Leave")),
    ],
)
def test_wait_start_now_and_play_again(
    quick_server: ServerProcess, open_page: Any, locale: str, viewport: Any, words: Any
) -> None:
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    api = LobbyApi(quick_server.base_url)
    try:
        ayu, budi = api.guest(f"Ayu {locale}"), api.guest(f"Budi {locale}")
        room = _quick(api, ayu)
        code = room["code"]
        page = open_page(locale=locale, viewport=viewport, label=f"ayu-{locale}")
        page.origin = quick_server.base_url
        page.login_as(ayu)
        page.goto(f"/r/{code}")
        wait = page.by("quick-wait")
        wait.wait_for()
        # Who has joined: Ayu; then Budi sits down, and the page says so.
        joined = '[data-testid="quick-joined-seat"][data-joined="true"]'
        assert page.page.locator(joined).count() == 1
        _quick(api, budi)
        page.wait_js(f"() => document.querySelectorAll('{joined}').length === 2")
        assert f"Budi {locale}" in wait.inner_text()
        # The countdown to the bots is there and goes down.
        first = _seconds_left(page)
        assert 0 < first <= FILL
        page.page.wait_for_timeout(2200)
        later = _seconds_left(page)
        assert later < first, (first, later)
        assert page.by("bots-countdown").inner_text().strip() != ""
        # Budi leaves again; Ayu starts now with bots.
        seat = next(s["seat"] for s in api.room(code)["seats"] if s["name"] == f"Budi {locale}")
        api.http.delete(
            f"/api/rooms/{code}/seats/{seat}",
            headers={"Authorization": f"Bearer {budi['token']}"},
        ).raise_for_status()
        page.wait_js(f"() => document.querySelectorAll('{joined}').length === 1")
        start = page.by("start-now-button")
        assert start.inner_text().strip() == words[0]
        start.click()
        page.by("table").wait_for()
        assert api.room(code)["status"] == "playing"

        play_set([page], rng, timeout=240)
        # The result stays: no new set starts by itself, however long it is shown.
        page.page.wait_for_timeout(2500)
        st = page.state()
        assert st["phase"] == "set_over" and st["result"] == "set"
        assert api.room(code)["status"] == "open"
        again = page.by("play-again-button")
        leave = page.by("quick-leave-button")
        assert again.inner_text().strip() == words[1] and leave.inner_text().strip() == words[2]
        for button in (again, leave):  # on the screen, at a phone's width too
            box = page.box(button)
            width = page.page.evaluate("() => document.documentElement.clientWidth")
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)

        if viewport == PHONE:
            # Leave: the only human goes, the table closes.
            leave.click()
            page.by("lobby").wait_for()
            closed = api.room(code)
            assert (closed["status"], closed["closed_reason"]) == ("closed", "no_host")
        else:
            # Play again: the only human chose it, so the next set starts at the same table.
            again.click()
            deadline = time.monotonic() + 15
            while page.state()["phase"] != "playing":
                assert time.monotonic() < deadline, page.state()
                page.page.wait_for_timeout(100)
            assert page.state()["snapshot"]["set"] == 2
            assert api.room(code)["status"] == "playing"
    finally:
        api.close()
