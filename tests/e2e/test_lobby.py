"""The lobby at phone and desktop size (with screenshots), and the language switch: Bahasa
Indonesia and English, chosen from the browser and switchable, in the lobby and at the table,
while the game's own terms stay as players say them.

The lobby lists only tables someone can use (a connected human), so each host here holds a
socket open from Python (``HeldSocket``)."""

from __future__ import annotations

import random

from tests.e2e.gaple import (
    DESKTOP,
    PHONE,
    HeldSocket,
    bot_table,
    no_horizontal_scroll,
    play_set,
    save_screenshot,
    wait_my_turn,
)

GAME_TERMS = {"Domi", "Ceki", "Balak", "Kandang", "Tunggal", "Ganda"}


def _public_tables(api, base_url):
    """A few public tables for the list, each with its host connected: waiting for players, and
    one already playing (private, so nobody may take its bots' seats). Returns the codes and the
    held sockets (the caller closes them)."""
    codes, held = [], []
    sari = api.guest("Sari")
    room = api.create_room(sari["token"], mode="tunggal", turn_seconds=30, deals_per_set=5)
    api.sit(sari["token"], room["code"], 0)
    api.bot(sari["token"], room["code"], 2)
    codes.append(room["code"])
    held.append(HeldSocket(base_url, room["code"], sari["token"]))
    wayan = api.guest("Wayan")
    room = api.create_room(
        wayan["token"], mode="ganda", turn_seconds=60, target_points=7, allow_join_bots=False
    )
    for seat in range(4):
        if seat == 0:
            api.sit(wayan["token"], room["code"], 0)
        else:
            api.bot(wayan["token"], room["code"], seat)
    held.append(HeldSocket(base_url, room["code"], wayan["token"]))
    api.start(wayan["token"], room["code"])
    codes.append(room["code"])
    dewi = api.guest("Dewi")
    room = api.create_room(dewi["token"], mode="ganda", turn_seconds=15, target_points=3)
    api.sit(dewi["token"], room["code"], 1)
    held.append(HeldSocket(base_url, room["code"], dewi["token"]))
    codes.append(room["code"])
    return codes, held


def test_lobby_at_phone_and_desktop_size(open_page, lobby_api, e2e_server):
    codes, held = _public_tables(lobby_api, e2e_server.base_url)
    offer = lobby_api.http.get("/api/presets").json()["quickplay"]
    choices = len(offer["modes"]) + len(offer["turn_seconds"])
    choices += len(offer["presets"]) if len(offer["presets"]) > 1 else 0
    try:
        for name, size, locale in (
            ("phone", PHONE, "id-ID"),
            ("phone-en", PHONE, "en-US"),
            ("desktop", DESKTOP, "en-US"),
        ):
            page = open_page(label=f"lobby-{name}", viewport=size, locale=locale)
            page.open_lobby()
            page.save_name("Budi")
            for code in codes:
                page.by("room-row", code=code).wait_for()
            playing = page.by("room-row", code=codes[1])
            assert playing.get_attribute("data-status") == "playing"
            assert playing.get_by_test_id("room-join").count() == 0  # no seat to take: watch
            assert playing.get_by_test_id("room-watch").is_visible()
            waiting = page.by("room-row", code=codes[0])
            assert waiting.get_by_test_id("room-seats").inner_text().startswith("2/4")
            assert waiting.get_by_test_id("room-join").is_visible()
            # Play now: the server's choices, and the button on the first screen of a phone.
            quick = page.by("quickplay")
            assert quick.locator('input[type="radio"]').count() == choices
            button = page.by("quickplay-submit")
            expected = "Main sekarang" if locale == "id-ID" else "Play now"
            assert button.inner_text().splitlines()[0] == expected
            box = page.box(button)
            assert box["y"] + box["height"] <= size[1], (name, box)  # no scrolling to find it
            assert box["height"] >= 60, box
            no_horizontal_scroll(page)
            for tid in ("name-card", "quickplay", "create-form", "join-form", "tables"):
                box = page.box(page.by(tid))
                assert box["x"] >= 0 and box["x"] + box["width"] <= size[0] + 1, (name, tid, box)
            page.page.evaluate("() => window.scrollTo(0, 0)")
            save_screenshot(page.page, f"lobby-{name}", docs=name != "phone-en")
            save_screenshot(page.page, f"lobby-{name}-full", full_page=True)
            assert page.errors == []
    finally:
        for socket in held:
            socket.close()


def _texts(page, *testids):
    return [page.by(t).first.inner_text().strip() for t in testids]


def test_language_switch_and_game_terms(open_page, lobby_api):
    # The browser's language picks the first one.
    english = open_page(label="english", locale="en-US")
    english.open_lobby()
    assert english.by("lang-toggle").get_attribute("data-lang") == "en"
    assert english.page.locator("#create-title").inner_text() == "Create a table"

    page = open_page(label="indonesian", locale="id-ID")
    page.open_lobby()
    html = page.page.locator("html")
    assert page.by("lang-toggle").get_attribute("data-lang") == "id"
    assert html.get_attribute("lang") == "id"
    lobby_id = {
        "create": page.page.locator("#create-title").inner_text(),
        "tables": page.page.locator("#tables-title").inner_text(),
        "join": page.page.locator("#join-title").inner_text(),
        "submit": page.by("create-submit").inner_text(),
    }
    assert lobby_id == {
        "create": "Buat meja",
        "tables": "Meja umum",
        "join": "Masuk dengan kode",
        "submit": "Buat meja",
    }
    modes = page.by("create-form").locator(".seg-title").all_inner_texts()
    assert modes == ["Tunggal", "Ganda"]

    page.by("lang-toggle").click()
    assert page.by("lang-toggle").get_attribute("data-lang") == "en"
    assert html.get_attribute("lang") == "en"
    assert page.page.locator("#create-title").inner_text() == "Create a table"
    assert page.page.locator("#tables-title").inner_text() == "Public tables"
    assert page.by("create-submit").inner_text() == "Create table"
    assert page.by("create-form").locator(".seg-title").all_inner_texts() == ["Tunggal", "Ganda"]
    # Remembered across a reload, then switched back.
    page.page.reload()
    page.by("lobby").wait_for()
    assert page.by("lang-toggle").get_attribute("data-lang") == "en"
    assert page.page.locator("#create-title").inner_text() == "Create a table"
    page.by("lang-toggle").click()
    assert page.page.locator("#create-title").inner_text() == "Buat meja"

    # At the table, mid-deal: the UI's words change, the game's do not.
    table, _, _ = bot_table(
        lobby_api, open_page, name="Made", seat=0, turn_seconds=60, deals_per_set=1
    )
    st = wait_my_turn(table)
    assert table.by("lang-toggle").get_attribute("data-lang") == "id"
    tile = st["legal"][0]
    a, b = tile.split("-")
    assert table.by("turn-indicator").inner_text().startswith("Giliranmu")
    assert table.by("leave-table-button").inner_text() == "Tinggalkan kursi"
    assert table.tile(tile).get_attribute("aria-label").startswith(f"kartu {a}-{b}")
    assert table.page.locator(".mode-pill").inner_text() == "Tunggal"
    table.by("lang-toggle").click()
    assert table.by("turn-indicator").inner_text().startswith("Your turn")
    assert table.by("leave-table-button").inner_text() == "Leave seat"
    assert table.tile(tile).get_attribute("aria-label").startswith(f"tile {a}-{b}")
    assert table.page.locator(".mode-pill").inner_text() == "Tunggal"
    assert table.state()["hand"] == st["hand"]  # switching draws the same table

    # The result screen: its labels are translated, the result's name is the game's own.
    play_set([table], random.Random(7), timeout=120)
    en = {
        "type": table.by("result-type").inner_text(),
        "set": table.by("set-result").inner_text(),
        "next": table.by("next-set-button").inner_text(),
        "mode": table.page.locator(".mode-pill").inner_text(),
    }
    table.by("lang-toggle").click()
    table.wait_js("() => document.documentElement.lang === 'id'")
    id_ = {
        "type": table.by("result-type").inner_text(),
        "set": table.by("set-result").inner_text(),
        "next": table.by("next-set-button").inner_text(),
        "mode": table.page.locator(".mode-pill").inner_text(),
    }
    assert en["type"] == id_["type"] and set(en["type"].split()) & GAME_TERMS, en["type"]
    assert en["mode"] == id_["mode"] == "Tunggal"
    assert "Set over" in en["set"] and "Set selesai" in id_["set"]
    assert (en["next"], id_["next"]) == ("Next set", "Set berikutnya")
    for p in (english, page, table):
        assert p.errors == []


LOOK_JS = "(e) => { const s = getComputedStyle(e); return [s.backgroundColor, s.borderColor]; }"


def test_the_klasik_game_choice_shows_which_is_chosen(open_page):
    for label, locale, viewport in (("phone", "id-ID", PHONE), ("desktop", "en-US", DESKTOP)):
        page = open_page(label=label, locale=locale, viewport=viewport)
        page.open_lobby()
        page.by("create-preset").select_option("klasik")
        page.by("create-klasik-options").wait_for()
        for chosen in ("discard", "draw", "pass"):
            page.by(f"create-stuck-{chosen}").click()
            page.by(f"create-stuck-{chosen}").and_(
                page.page.locator('[aria-checked="true"]')
            ).wait_for()
            looks = {
                c: page.by(f"create-stuck-{c}").evaluate(LOOK_JS)
                for c in ("discard", "pass", "draw")
            }
            others = [look for c, look in looks.items() if c != chosen]
            assert others[0] == others[1], (label, looks)  # the two not chosen look alike
            assert looks[chosen][0] != others[0][0], (label, chosen, looks)  # its own background
            assert looks[chosen][1] != others[0][1], (label, chosen, looks)  # and its own border
