"""A Swiss played for real in a browser (issue #24's browser test): a player enters a Tunggal
Swiss of eight with seven others, and the real tournament socket and rooms run it. The others are
scripted: each takes its seat's socket and gives the seat up (`leave`), so bots play for them
(a no-show is played by the clock and then by a bot; leaving only skips the clock's turns). The
player's page goes to round 1's table by itself, the table says "Round 1 · <name>" and links back,
the player plays the one-deal set, the result panel offers the way back to the tournament instead
of another set, the standings there have moved and the table links its replay by the set the view
names; the player goes back to the finished table, and when the other table's set ends, round
2's table opens by itself from there (/ws/me's tournament_round). Screenshots of the
running tournament page and of the tournament table at 390 px."""

from __future__ import annotations

import contextlib
import json
import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.e2e.gaple import PHONE, LobbyApi, no_horizontal_scroll, play_set, save_screenshot
from tests.e2e.test_tournaments_page import account, as_player

NAME = "Piala Balai Desa"


def give_up_seat(api: LobbyApi, code: str, guest: dict[str, Any]) -> None:
    """An entrant takes their seat's socket and leaves the seat to a bot (docs/PROTOCOL.md §2)."""
    from websockets.sync.client import connect

    url = api.base_url.replace("http://", "ws://") + f"/ws/rooms/{code}"
    with connect(url, origin=api.base_url, open_timeout=10) as ws:  # type: ignore[arg-type]
        ws.send(json.dumps({"type": "hello", "token": guest["token"]}))
        seat = None
        while seat is None:
            frame = json.loads(ws.recv(timeout=10))
            if frame["type"] == "welcome":
                assert frame["role"] == "seat", frame
                assert frame["room"]["tournament"]["id"] is not None
                seat = frame["seat"]
        ws.send(json.dumps({"type": "leave"}))
        # Left: the socket is told it watches now (a new welcome), the seat is a bot's.
        while True:
            frame = json.loads(ws.recv(timeout=10))
            if frame["type"] == "welcome" and frame["role"] == "spectator":
                break
    room = api.room(code)
    assert room["seats"][seat]["bot"] and room["seats"][seat]["left_by"] == guest["player_id"]


def tables_of(api: LobbyApi, tid: int, number: int) -> list[dict[str, Any]]:
    """Round `number`'s tables once every one has its room (waits for them)."""
    deadline = time.monotonic() + 20
    while True:
        view = api._call("GET", f"/api/tournaments/{tid}")
        rounds = [r for r in view["rounds"] if r["number"] == number]
        if rounds and all(t["code"] for t in rounds[0]["tables"]):
            return list(rounds[0]["tables"])
        assert time.monotonic() < deadline, f"round {number} has no rooms: {view['rounds']}"
        time.sleep(0.2)


def test_a_swiss_round_played_in_the_browser_and_the_next_opens_by_itself(
    open_page: Any, lobby_api: LobbyApi
) -> None:
    org = account(lobby_api, "PanitiaDesa")
    body = {
        "name": NAME,
        "format": "swiss",
        "mode": "tunggal",
        "rounds": 2,
        # One deal a set: a round is a few tiles each.
        "settings": {"preset": "pordi", "turn_seconds": 15, "deals_per_set": 1},
        "starts_at": (datetime.now(UTC) + timedelta(hours=2)).isoformat(),
        "min_entrants": 8,
        "max_entrants": 8,
        "rated": False,
    }
    tid = lobby_api._call("POST", "/api/tournaments", org["token"], json=body)["id"]
    me = lobby_api.guest("Ayu")
    others = [lobby_api.guest(f"Warga {n}") for n in range(7)]
    by_player = {g["player_id"]: g for g in [me, *others]}
    for guest in (me, *others):
        lobby_api._call("POST", f"/api/tournaments/{tid}/entries", guest["token"], json={})

    page = open_page(viewport=PHONE, label="ayu")
    as_player(page, me)
    page.goto(f"/turnamen/{tid}")
    page.by("tournament-live", live="live").wait_for()  # the real socket
    page.by("tournament-my-entry").wait_for()

    lobby_api._call("POST", f"/api/tournaments/{tid}/start", org["token"])
    one = tables_of(lobby_api, tid, 1)
    [mine] = [t for t in one if me["player_id"] in {s["player_id"] for s in t["seats"]}]
    [other] = [t for t in one if t is not mine]
    # round_started: the page says so and goes to the player's table by itself.
    page.page.wait_for_url(f"**/r/{mine['code']}", timeout=15_000)
    page.by("table").wait_for()
    back = page.by("table-tournament", tournament=tid, round=1)
    back.wait_for()
    assert back.inner_text().strip() == f"Ronde 1 · {NAME}"
    # The other three at this table leave their seats to bots.
    for seat in mine["seats"]:
        if seat["player_id"] != me["player_id"]:
            give_up_seat(lobby_api, mine["code"], by_player[seat["player_id"]])
    no_horizontal_scroll(page)
    page.by("toast").first.wait_for(state="detached", timeout=10_000)  # the round's, said
    save_screenshot(page.page, "tournament-table-phone", docs=True)

    play_set([page], random.Random(24), timeout=60)
    # After the set: back to the tournament, not another set (the next round opens by itself).
    page.by("tournament-after").wait_for()
    assert page.by("next-set-button").count() == 0 and page.by("play-again-button").count() == 0
    assert page.by("tournament-back-button").get_attribute("href") == f"/turnamen/{tid}"
    no_horizontal_scroll(page)
    page.by("tournament-after").scroll_into_view_if_needed()
    save_screenshot(page.page, "tournament-set-over-phone")
    page.by("tournament-back-button").click()
    page.page.wait_for_url(f"**/turnamen/{tid}")
    page.by("tournament", status="ready").wait_for()

    # The standings have moved: the player won the table (the three who left place below).
    view = lobby_api._call("GET", f"/api/tournaments/{tid}")
    [done] = [t for t in view["rounds"][0]["tables"] if t["code"] == mine["code"]]
    assert done["result"] is not None and isinstance(done["set_id"], int)
    entry = next(e["id"] for e in view["entrants"] if e["player"]["player_id"] == me["player_id"])
    page.by("standing-row", entry=entry, points=3).wait_for(timeout=15_000)
    row = page.by("standing-row", entry=entry)
    assert "mine" in (row.get_attribute("class") or "")
    table = page.by("tournament-table", round=1, code=mine["code"], state="finished")
    replay = table.locator('[data-testid="tournament-table-replay"]')
    assert replay.get_attribute("href") == f"/replay/{done['set_id']}"
    # The other table still plays: round 2 has not started.
    assert page.by("tournament-table", round=1, code=other["code"], state="playing").count() == 1
    assert page.by("tournament-round", round=2).count() == 0
    no_horizontal_scroll(page)
    save_screenshot(page.page, "tournament-running-phone", full_page=True)

    # The player goes back to the finished table: the next round takes them on from there too
    # (the tournament_round notification on /ws/me, not the tournament page's socket).
    page.page.go_back()
    page.page.wait_for_url(f"**/r/{mine['code']}")
    page.by("table-tournament", tournament=tid, round=1).wait_for()
    # The other table's players leave too: bots end its set, round 2 is paired and opened, and
    # the player's page goes to their new table by itself.
    for seat in other["seats"]:
        give_up_seat(lobby_api, other["code"], by_player[seat["player_id"]])
    two = tables_of(lobby_api, tid, 2)
    [next_table] = [t for t in two if me["player_id"] in {s["player_id"] for s in t["seats"]}]
    page.page.wait_for_url(f"**/r/{next_table['code']}", timeout=60_000)
    page.by("table-tournament", tournament=tid, round=2).wait_for()
    page.by("lang-toggle").click()  # in English too
    assert page.by("table-tournament").inner_text().strip() == f"Round 2 · {NAME}"

    # Done: the organizer cancels; the round's tables finish by bots.
    page.page.close()
    for t in two:
        for seat in t["seats"]:
            if seat["player_id"] != me["player_id"]:
                with contextlib.suppress(AssertionError):
                    give_up_seat(lobby_api, t["code"], by_player[seat["player_id"]])
    lobby_api._call("POST", f"/api/tournaments/{tid}/cancel", org["token"])
