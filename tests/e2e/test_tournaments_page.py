"""The Tournaments page in a real browser: an account creates a Ganda Swiss from the form, a
second player enters it naming a partner, the partner confirms on their own page, the organizer
starts it from the page; the standings and round 1's tables show (a table whose room is not made
yet says it is being set up), the viewer's own table marked. On a phone nothing scrolls sideways;
screenshots at 390 px and 1280 px. A started knockout's pools drawn on a phone, and its bracket
from a later frame (the socket routed by the test: a real bracket is many sets away; the page
tells pool rounds from bracket rounds by the view's `stage`). The real socket and a round played
to the next: tests/e2e/test_tournament_play.py."""

from __future__ import annotations

from typing import Any

from tests.e2e.gaple import PHONE, LobbyApi, Page, no_horizontal_scroll, save_screenshot

PASSWORD = "kartu-balak-66"
DESKTOP_WIDE = (1280, 800)


def as_player(page: Page, guest: dict[str, Any], username: str | None = None) -> None:
    """This page's browser plays as `guest` (and knows its saved account, if any)."""
    page.login_as(guest)
    if username:
        account = {"player_id": guest["player_id"], "username": username}
        page.page.evaluate(
            "(a) => localStorage.setItem('gaple.account', JSON.stringify(a))", account
        )
    page.open_lobby()  # a fresh load reads the stored player


def account(api: LobbyApi, name: str) -> dict[str, Any]:
    guest = api.guest(name)
    api._call(
        "POST",
        "/api/accounts",
        guest["token"],
        json={"username": name.lower(), "password": PASSWORD},
    )
    return guest


def test_create_enter_confirm_start_and_see_round_one(open_page: Any, lobby_api: LobbyApi) -> None:
    org = account(lobby_api, "Penyelenggara")
    budi, sari, dewi = (lobby_api.guest(n) for n in ("Budi", "Sari", "Dewi"))

    organizer = open_page(viewport=DESKTOP_WIDE, label="organizer")
    as_player(organizer, org, "penyelenggara")
    # The top bar leads to the page.
    organizer.by("tournaments-link").click()
    organizer.by("tournaments", status="ready").wait_for()
    organizer.by("tournament-new").click()
    organizer.by("tournament-name").fill("Piala RT 05")
    organizer.by("tournament-mode-ganda").check()
    organizer.by("tournament-rounds").fill("3")
    organizer.by("tournament-min").fill("2")
    organizer.by("tournament-max").fill("8")
    # A start in the past: the server's refusal is shown by its field, in the page's words.
    start = organizer.by("tournament-starts-at").input_value()
    organizer.by("tournament-starts-at").fill("2020-01-01T10:00")
    organizer.by("tournament-submit").click()
    refusal = organizer.by("field-error", field="starts_at")
    refusal.wait_for()
    assert refusal.inner_text() == "Isian „Waktu mulai” tidak diterima. Periksa lagi."
    assert organizer.by("tournament-form").count() == 1
    # Chromium logs the refused call itself as a failed resource: the refusal the test asked for.
    refused = [c for c in organizer.console if "status of 422" in c]
    assert len(refused) == 1, organizer.console
    organizer.console.remove(refused[0])
    organizer.by("tournament-starts-at").fill(start)
    organizer.by("tournament-submit").click()
    organizer.by("tournament", status="ready").wait_for()
    tid = int(organizer.by("tournament").get_attribute("data-id"))
    assert organizer.page.url.endswith(f"/turnamen/{tid}")
    assert organizer.by("tournament-status").get_attribute("data-status") == "registering"
    view = lobby_api._call("GET", f"/api/tournaments/{tid}")
    assert (view["mode"], view["format"], view["round_count"], view["min_entrants"]) == (
        "ganda",
        "swiss",
        3,
        2,
    )
    # The start time is shown in the browser's local time: the instant the server stored.
    shown = organizer.by("tournament-start").get_attribute("datetime")
    assert shown == view["starts_at"]

    # A guest is not offered the form.
    player = open_page(viewport=PHONE, label="budi")
    as_player(player, budi)
    # On a phone the lobby leads to the page.
    player.by("lobby-tournaments").click()
    player.by("tournament-need-account").wait_for()
    assert player.by("tournament-new").count() == 0
    player.by("tournament-link").first.wait_for()
    player.page.locator(f'[data-testid="tournament-row"][data-id="{tid}"] a').click()
    player.by("tournament", status="ready").wait_for()

    # Budi enters naming Sari by her player id; his entry waits for her.
    player.by("tournament-partner").fill(sari["player_id"])
    player.by("tournament-enter").click()
    player.by("tournament-my-entry", confirmed="false").wait_for()

    partner = open_page(viewport=PHONE, label="sari")
    as_player(partner, sari)
    partner.goto(f"/turnamen/{tid}")
    partner.by("tournament-invite").wait_for()
    partner.by("tournament-confirm").click()
    partner.by("tournament-my-entry", confirmed="true").wait_for()
    # Budi's page sees the confirmation by itself (socket or the REST fallback).
    player.by("tournament-my-entry", confirmed="true").wait_for(timeout=15_000)

    # A second pair, over REST: the organizer with Dewi.
    entry = lobby_api._call(
        "POST",
        f"/api/tournaments/{tid}/entries",
        org["token"],
        json={"partner_id": dewi["player_id"]},
    )
    lobby_api._call(
        "POST", f"/api/tournaments/{tid}/entries/{entry['entrant']['id']}/confirm", dewi["token"]
    )
    organizer.by("tournament-entrant", confirmed="true").nth(1).wait_for(timeout=15_000)

    # The organizer starts it from the page.
    organizer.by("tournament-start-button").click()
    organizer.page.locator(
        '[data-testid="tournament"][data-tournament-status="running"]'
    ).wait_for()
    organizer.by("tournament-round", round="1").wait_for()
    table = organizer.by("tournament-table", round="1")
    assert table.count() == 1
    started = lobby_api._call("GET", f"/api/tournaments/{tid}")
    code = started["rounds"][0]["tables"][0]["code"]
    if code is None:
        assert table.get_attribute("data-state") == "setup"
        organizer.by("tournament-table-setup").wait_for()
    else:
        assert table.get_attribute("data-code") == code
    assert table.get_attribute("data-mine") == "true"  # the organizer plays at it

    # The players' pages follow: running, the standings, their own table marked.
    player.page.locator('[data-testid="tournament"][data-tournament-status="running"]').wait_for(
        timeout=15_000
    )
    if started["standings"]:
        player.by("tournament-standings").wait_for()
        rows = player.by("standing-row")
        assert rows.count() == len(started["standings"])
        assert [int(rows.nth(i).get_attribute("data-entry")) for i in range(rows.count())] == [
            s["entrant"] for s in started["standings"]
        ]
    assert player.by("tournament-table", round="1", mine="true").count() == 1
    for page in (player, partner):
        no_horizontal_scroll(page)
        # The top bar keeps to one row on a phone, the tournaments link in it.
        bar = page.box(page.page.locator("#topbar"))
        assert bar["height"] <= 60, bar
        brand = page.box(page.by("lobby-link"))
        assert brand["height"] <= 48, brand
    save_screenshot(player.page, "tournament-phone", docs=True, full_page=True)
    save_screenshot(organizer.page, "tournament-desktop", full_page=True)

    # In English too.
    player.by("lang-toggle").click()
    assert player.by("tournament-round", round="1").locator("h3").inner_text().startswith("Round 1")
    no_horizontal_scroll(player)


def test_a_knockouts_pools_and_bracket_are_drawn_and_fit_a_phone(
    open_page: Any, lobby_api: LobbyApi
) -> None:
    from datetime import UTC, datetime, timedelta

    org = account(lobby_api, "Ketua")
    body = {
        "name": "Piala PORDI Kecamatan",
        "format": "knockout",
        "mode": "ganda",
        "settings": {"preset": "pordi"},
        "starts_at": (datetime.now(UTC) + timedelta(hours=3)).isoformat(),
        "min_entrants": 2,
        "max_entrants": 16,
    }
    tid = lobby_api._call("POST", "/api/tournaments", org["token"], json=body)["id"]
    players = [lobby_api.guest(f"Pemain {n}") for n in range(16)]
    for a, b in zip(players[::2], players[1::2], strict=True):
        entry = lobby_api._call(
            "POST",
            f"/api/tournaments/{tid}/entries",
            a["token"],
            json={"partner_id": b["player_id"]},
        )
        lobby_api._call(
            "POST", f"/api/tournaments/{tid}/entries/{entry['entrant']['id']}/confirm", b["token"]
        )
    view = lobby_api._call("POST", f"/api/tournaments/{tid}/start", org["token"])
    assert view["pools"], view

    me = players[0]
    page = open_page(viewport=PHONE, label="pemain0", locale="en-GB")
    sockets: list[Any] = []
    page.page.route_web_socket(f"**/ws/tournaments/{tid}", lambda ws: sockets.append(ws))
    as_player(page, me)
    page.goto(f"/turnamen/{tid}")
    page.by("tournament-bracket").wait_for()
    pools = page.by("bracket-pool")
    assert [pools.nth(i).get_attribute("data-pool") for i in range(pools.count())] == [
        p["name"] for p in view["pools"]
    ]
    # Round 1's tables are drawn in their pools, each once, the viewer's own marked.
    first = view["rounds"][0]["tables"]
    assert page.page.locator(
        '[data-testid="bracket-pool"] [data-testid="bracket-table"]'
    ).count() == len(first)
    assert page.page.locator('[data-testid="bracket-table"].mine').count() == 1
    # The bracket's rounds come after the pools: none yet, the strip says so.
    assert page.by("tournament-bracket").get_attribute("data-columns") == "0"
    no_horizontal_scroll(page)

    # Later (the socket, played to its contract): the semi-finals and the final as columns.
    import json

    ids = [e["id"] for e in view["entrants"]]
    won = {"places": [1, 2], "deal_points": [7, 2], "points": [2, 0]}
    later = json.loads(json.dumps(view))
    later["rounds"] += [
        {
            "number": 4,
            "status": "finished",
            "stage": "bracket",
            "byes": [],
            "tables": [
                {"number": 1, "code": "SEMI01", "entrants": [ids[0], ids[3]], "result": won},
                {"number": 2, "code": "SEMI02", "entrants": [ids[1], ids[2]], "result": won},
            ],
        },
        {
            "number": 5,
            "status": "paired",
            "stage": "bracket",
            "byes": [],
            "tables": [{"number": 1, "code": None, "entrants": [ids[0], ids[1]], "result": None}],
        },
    ]
    assert sockets, "the page opened the tournament socket"
    sockets[-1].send(json.dumps({"type": "tournament", "tournament": later}))
    page.by("bracket-column", round="5").wait_for()
    columns = page.by("bracket-column")
    assert [columns.nth(i).get_attribute("data-round") for i in range(columns.count())] == [
        "4",
        "5",
    ]
    assert columns.nth(1).locator("h3").inner_text().lower() == "final"
    semis = columns.nth(0).locator('[data-testid="bracket-table"]')
    assert semis.count() == 2
    assert semis.nth(0).locator(".br-entrant.on").get_attribute("data-entry") == str(ids[0])
    assert page.by("bracket-table", state="setup").count() >= 1
    no_horizontal_scroll(page)  # the strip scrolls inside its card, never the page
    page.by("tournament-bracket").scroll_into_view_if_needed()
    save_screenshot(page.page, "tournament-bracket-phone")
    page.page.set_viewport_size({"width": 1280, "height": 900})
    page.by("tournament-bracket").scroll_into_view_if_needed()
    save_screenshot(page.page, "tournament-bracket-desktop")
    # A replay is linked by the set the view names: these made-up tables name none.
    assert page.by("tournament-table-replay").count() == 0
