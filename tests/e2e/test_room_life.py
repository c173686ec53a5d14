"""A room's life in the browser: play now into a game with bots, a host who closes the tab
handing over to the next player, a player who left taking their seat back, a full table by link,
the closed-room page, and a second tab replacing the first.

The server runs with short lifecycle delays (conftest: bots fill a quick-play table after
QUICKPLAY_BOT_FILL_SECONDS, a host away for HOST_AWAY_SECONDS hands over).
"""

from __future__ import annotations

import contextlib
import re
import time

from tests.e2e.gaple import (
    HOST_AWAY_SECONDS,
    PHONE,
    QUICKPLAY_BOT_FILL_SECONDS,
    Page,
    bot_table,
    save_screenshot,
    tile_key,
    wait_my_turn,
)

CODE_IN_URL = re.compile(r"/r/([A-Z0-9]+)$")
# What the room screen shows once the frame just received is drawn (a frame, then a task).
AFTER_DRAW_JS = r"""
async () => {
  await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
  const has = (id) => Boolean(document.querySelector(`[data-testid="${id}"]`));
  return { room: has('room-screen') && !has('table'), form: has('settings-form') };
}
"""
HAND_JS = "() => document.querySelectorAll('[data-testid=\"hand-tile\"]').length > 0"


def _code(page: Page) -> str:
    match = CODE_IN_URL.search(page.page.url)
    assert match, page.page.url
    return match.group(1)


def _click_through_results(page: Page, button) -> None:
    """Click `button`, closing a deal's result panel when it lies over the table.

    Bots playing fast redraw the table every few hundred ms, and Playwright's click waits for an
    element that stays put for two frames: after a few such misses, with no panel over the
    table, the click is dispatched on the button as it is then."""
    deadline = time.monotonic() + 30
    for attempt in range(1000):  # bounded by the deadline too
        close = page.by("result-close")
        if close.count():
            with contextlib.suppress(Exception):  # the next deal may take the panel away first
                close.click(timeout=1000)
        try:
            if attempt >= 3 and not page.by("result-panel").count():
                button.dispatch_event("click", timeout=1500)
            else:
                button.click(timeout=1500)
            return
        except Exception:
            assert time.monotonic() < deadline, "the button stayed covered"


def test_play_now_gets_a_player_into_a_started_game_with_bots(open_page, lobby_api):
    for label, locale, mode, clock in (
        ("rina", "id-ID", "tunggal", 30),
        ("sam", "en-US", "ganda", 60),
    ):
        page = open_page(label=label, locale=locale, viewport=PHONE)
        page.open_lobby()
        page.save_name(label.title())
        page.by(f"quickplay-mode-{mode}").check()
        page.by(f"quickplay-turn-{clock}").check()
        clicked = time.monotonic()
        page.by("quickplay-submit").click()
        page.page.wait_for_url(CODE_IN_URL)
        # The waiting room once the socket's welcome is drawn: its host (this player, alone)
        # sees no settings form, a quick-play table keeps its settings.
        page.wait_js("() => window.__gaple.welcome !== null", timeout=QUICKPLAY_BOT_FILL_SECONDS)
        waiting = page.page.evaluate(AFTER_DRAW_JS)
        assert waiting == {"room": True, "form": False}, waiting
        # Nobody else comes: bots fill the free seats after the delay and the set starts by itself.
        page.by("table").wait_for(timeout=(QUICKPLAY_BOT_FILL_SECONDS + 20) * 1000)
        took = time.monotonic() - clicked
        page.wait_js(HAND_JS)
        st = page.state()
        assert st["role"] == "seat" and st["phase"] == "playing", st
        assert page.by("seat-panel", connected="bot").count() == 3
        room = lobby_api.room(_code(page))
        assert room["status"] == "playing"
        assert (room["settings"]["mode"], room["settings"]["turn_seconds"]) == (mode, clock)
        assert sum(1 for s in room["seats"] if s.get("bot")) == 3
        # Its own hand, as the server dealt it.
        view = st["snapshot"]["view"]
        assert sorted(st["hand"]) == sorted(tile_key(t) for t in view["hand"])
        print(f"{label}: play now to a started game in {took:.1f} s")
        assert page.errors == []


def test_a_host_who_closes_the_tab_is_replaced(open_page, lobby_api):
    host = open_page(label="budi")
    host.open_lobby()
    host.save_name("Budi")
    code = host.create_table(mode="tunggal", turn_seconds=60, length=1, public=False)

    sari = open_page(label="sari", viewport=PHONE)
    sari.open_lobby()
    sari.save_name("Sari")
    sari.open_link(code)
    sari.sit(1)
    sari.by("waiting-note").wait_for()
    assert sari.by("start-button").count() == 0  # not the host (yet)

    host.page.close()  # the host closes the tab and does not come back
    sari.by("start-button").wait_for(timeout=(HOST_AWAY_SECONDS + 20) * 1000)
    assert lobby_api.room(code)["host"]["name"] == "Sari"
    assert sari.by("seat-card", seat=1).get_by_test_id("host-badge").count() == 1
    # The new host fills the empty seats with bots and starts: the table is not a dead end.
    sari.by("fill-bots-button").click()
    sari.wait_js(
        "() => [...document.querySelectorAll('[data-testid=\"seat-card\"]')]"
        ".every((e) => e.dataset.occupied === 'true')"
    )
    assert sari.by("fill-bots-button").count() == 0
    sari.start_set()
    sari.wait_js(HAND_JS)
    assert sari.state()["role"] == "seat"


def test_a_player_who_left_takes_their_seat_back(open_page, lobby_api):
    page, code, guest = bot_table(
        lobby_api, open_page, name="Wati", seat=2, turn_seconds=60, deals_per_set=21
    )
    page.wait_js(HAND_JS)
    page.page.once("dialog", lambda dialog: dialog.accept())
    page.by("leave-table-button").click()
    # A bot plays the seat now; the page watches and offers the seat back.
    back = page.by("take-seat-button", seat=2)
    back.wait_for()
    assert back.get_attribute("data-kind") == "back"
    assert page.by("take-seat-button").count() == 1  # a private room: no other bot's seat
    assert page.state()["role"] == "spectator"
    seats = lobby_api.room(code)["seats"]
    assert seats[2]["bot"] and seats[2]["player_id"] is None, seats

    # Bots play fast here: a deal's result may cover the table; the player closes it first.
    _click_through_results(page, back)
    page.wait_js("() => document.querySelector('[data-testid=\"table\"]').dataset.role === 'seat'")
    page.wait_js(HAND_JS)
    st = page.state()
    assert st["seat"] == 2 and st["role"] == "seat", st
    view = st["snapshot"]["view"]
    assert view["viewer"] == 2
    assert sorted(st["hand"]) == sorted(tile_key(t) for t in view["hand"])
    assert page.by("take-seat-button").count() == 0
    assert lobby_api.room(code)["seats"][2]["player_id"] == guest["player_id"]
    # And plays on from there.
    st = wait_my_turn(page, timeout=60)
    assert st["legal"]


def test_a_full_table_by_link_says_so(open_page, lobby_api):
    host, code, _ = bot_table(
        lobby_api, open_page, name="Joko", seat=0, turn_seconds=60, start=False, deals_per_set=1
    )
    stranger = lobby_api.guest("Tono")
    assert lobby_api.refused("POST", f"/api/rooms/{code}/seats/1", stranger["token"]) == (
        409,
        "room_full",
    )

    page = open_page(label="tono", viewport=PHONE)
    page.login_as(stranger)
    page.open_link(code)
    full = page.by("room-full")
    full.wait_for()
    assert page.page.locator("#full-title").inner_text() == "Meja ini penuh"
    assert page.by("full-quickplay").is_visible() and page.by("full-watch").is_visible()
    save_screenshot(page.page, "room-full-phone-id")
    page.by("lang-toggle").click()
    assert page.page.locator("#full-title").inner_text() == "This table is full"
    save_screenshot(page.page, "room-full-phone-en")

    # Watching is a choice now, not what happens silently.
    page.by("full-watch").click()
    page.by("room-screen").wait_for()
    page.by("spectator-marker").wait_for()
    host.start_set()
    page.by("table").wait_for()
    assert page.state()["role"] == "spectator"
    assert page.by("take-seat-button").count() == 0


def test_the_closed_room_page(open_page, lobby_api):
    host = open_page(label="dewi", viewport=PHONE)
    host.open_lobby()
    host.save_name("Dewi")
    code = host.create_table(mode="ganda", turn_seconds=30, length=3, public=True)
    guest = open_page(label="eko", viewport=PHONE, locale="en-US")
    guest.open_lobby()
    guest.save_name("Eko")
    guest.open_link(code)
    guest.sit(1)

    host.page.once("dialog", lambda dialog: dialog.accept())
    host.by("close-room-button").click()
    for page in (host, guest):  # the guest hears it from the server (bye room_closed)
        # The page says "closed" at once, and why as soon as the REST room has answered.
        page.by("room-closed", status="closed", reason="host_closed").wait_for(timeout=5000)
    assert lobby_api.room(code)["status"] == "closed"
    rooms = lobby_api.http.get("/api/rooms").json()["rooms"]
    assert code not in {r["code"] for r in rooms}

    # Its link stays a clear page, not a table that waits forever.
    guest.page.reload()
    guest.by("room-closed").wait_for()
    assert guest.page.locator("#closed-title").inner_text() == "This table is closed"
    assert guest.by("room-closed-reason").inner_text() == "The host closed this table."
    save_screenshot(guest.page, "room-closed-phone-en")
    guest.by("lang-toggle").click()
    assert guest.page.locator("#closed-title").inner_text() == "Meja ini sudah ditutup"
    save_screenshot(guest.page, "room-closed-phone-id")
    sockets = guest.page.evaluate("() => window.__gaple.sockets.length")

    # The ways out: the lobby, or play now.
    guest.by("closed-lobby").click()
    guest.by("lobby").wait_for()
    guest.page.go_back()
    guest.by("room-closed").wait_for()
    guest.by("closed-quickplay").click()
    guest.page.wait_for_url(lambda url: CODE_IN_URL.search(url) is not None and code not in url)
    # The same kind of game as the closed room (Ganda, 30 s), at a table that starts soon.
    again = lobby_api.room(_code(guest))
    assert (again["settings"]["mode"], again["settings"]["turn_seconds"]) == ("ganda", 30)
    assert again["quickplay"] is True
    guest.page.locator('[data-testid="room-screen"], [data-testid="table"]').first.wait_for()
    assert guest.page.evaluate("() => window.__gaple.sockets.length") >= sockets


def test_a_second_tab_replaces_the_first(open_page, lobby_api):
    first, code, _ = bot_table(
        lobby_api, open_page, name="Nyoman", seat=1, turn_seconds=60, deals_per_set=3
    )
    first.wait_js(HAND_JS)
    # Same browser, same player: a second tab of the same table.
    second = Page(first.page.context.new_page(), "second-tab")
    second.goto(f"/r/{code}")
    second.by("table").wait_for()
    second.wait_js(HAND_JS)
    assert second.state()["role"] == "seat"
    banner = first.by("connection-banner", state="replaced")
    banner.wait_for()
    sockets = first.page.evaluate("() => window.__gaple.sockets.length")
    time.sleep(3)  # longer than the first reconnect delay: no reconnect loop
    assert first.page.evaluate("() => window.__gaple.sockets.length") == sockets
    assert second.state()["role"] == "seat"
    assert second.errors == []
