"""After an operator takes a player off a finished set's table, the set's result does not call
them "Kursi 2": a page that saw them keeps their name, a page opened afterwards says "Pemain yang
sudah pergi" / "A player who left". Both languages, 390 px and desktop."""

from __future__ import annotations

import random

from tests.e2e.gaple import ADMIN_TOKEN, PHONE, play_set

SEED = random.randrange(1 << 32)


def test_a_removed_player_is_still_named_in_the_result(open_page, lobby_api):
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    host = lobby_api.guest("Yanto")
    other = lobby_api.guest("Wati")
    room = lobby_api.create_room(
        host["token"], mode="tunggal", turn_seconds=60, deals_per_set=1, public=False
    )
    code = room["code"]
    lobby_api.sit(host["token"], code, 0)
    lobby_api.sit(other["token"], code, 1)
    for seat in (2, 3):
        lobby_api.bot(host["token"], code, seat)
    players = []
    for guest, seat in ((host, 0), (other, 1)):
        page = open_page(label=guest["name"].lower())
        page.login_as(guest)
        page.goto(f"/r/{code}")
        page.wait_seated(seat)
        players.append(page)
    players[0].start_set()
    play_set(players, rng, timeout=180)
    watchers = []
    for locale, viewport in (("id-ID", PHONE), ("en-US", (1366, 768))):
        watcher = open_page(locale=locale, viewport=viewport, spectator=True)
        watcher.watch(code)
        watcher.by("set-result").wait_for()
        watchers.append(watcher)
    removed = lobby_api.http.delete(
        f"/api/admin/rooms/{code}/seats/1", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
    )
    assert removed.status_code == 200, removed.text
    row = '[data-testid="result-row"][data-seat="1"] .result-name'
    for watcher in watchers:  # saw Wati sit there: still says Wati
        watcher.page.wait_for_timeout(1000)  # the room frame with seat 0 empty is in
        assert "Wati" in watcher.page.locator(row).inner_text()
    for watcher, label in zip(
        watchers, ("Pemain yang sudah pergi", "A player who left"), strict=True
    ):
        watcher.open_link(code)  # opened afresh: nobody sits in seat 1 any more
        watcher.by("set-result").wait_for()
        text = watcher.page.locator(row).inner_text()
        assert label in text and "Kursi 2" not in text and "Seat 2" not in text, text
