"""The replay page in the browser, on sets played through the real server.

A set is played by one WebSocket client (the protocol's own client, tests/app/live/client.py)
and three bots; the page is then checked against the stored set (GET /api/sets/{id}): the line
it draws after each step is the line that the stored moves make (folded here, from each move's
drawn tile and end), and each seat's hand is what it was dealt less what it has played.
"""

from __future__ import annotations

import random
from typing import Any

import httpx

from tests.app.live.client import Lobby, TableClient, choose
from tests.conftest import run_async
from tests.e2e.gaple import (
    PHONE,
    Page,
    fair_mark,
    no_horizontal_scroll,
    save_screenshot,
    wait_until,
)


async def _play_a_set(base_url: str, *, finish: bool, **settings: Any) -> tuple[str, int]:
    """One guest in seat 0 and three bots; the guest plays random legal tiles until the set is
    over (or, with finish=False, not at all). Returns the guest's id and the set's id."""
    async with Lobby(base_url) as lobby:
        guest = await lobby.guest("Budi")
        room = await lobby.create_room(guest["token"], turn_seconds=60, public=False, **settings)
        code = room["code"]
        await lobby.sit(guest["token"], code, 0)
        for seat in (1, 2, 3):
            await lobby.seat_bot(guest["token"], code, seat)
        client = TableClient(
            base_url.replace("http", "ws", 1) + f"/ws/rooms/{code}", guest["token"]
        )
        await client.connect()
        await lobby.start(guest["token"], code)
        rng = random.Random(7)

        def my_turn() -> bool:
            view = client.view or {}
            return view.get("phase") == "set_over" or (
                view.get("phase") == "playing" and view.get("turn") == 0 and bool(view["legal"])
            )

        for _ in range(400 if finish else 0):
            await client.wait_for(my_turn, timeout=30)
            assert client.view is not None
            if client.view["phase"] == "set_over":
                break
            move_id = await client.play(*choose(client.view, rng))
            # The move's ack, then the snapshot after it: an event alone would leave the view
            # before the move in place, and the next turn check would read it.
            await client.wait_for(lambda m=move_id: client.acked(m), timeout=30)  # type: ignore[misc]
        await client.close()
        page = (await lobby.http.get(f"/api/players/{guest['player_id']}/sets")).json()
    [entry] = page["sets"]
    assert entry["status"] == ("finished" if finish else "in_play"), entry
    return guest["player_id"], int(entry["set_id"])


def played_set(base_url: str, *, finish: bool = True, **settings: Any) -> dict[str, Any]:
    _, set_id = run_async(lambda: _play_a_set(base_url, finish=finish, **settings))
    detail = httpx.get(f"{base_url}/api/sets/{set_id}", timeout=10).json()
    return dict(detail)


def line_after(deal: dict[str, Any], moves: int) -> list[str]:
    """The line, left to right as drawn, after the deal's first ``moves`` moves."""
    line = [deal["start"]] if deal["start"] else []
    for move in deal["moves"][:moves]:
        if move["end"] == "discard":
            continue
        if move["end"] == "left":
            line.insert(0, move["placed"])
        else:
            line.append(move["placed"])
    return line


def hands_after(deal: dict[str, Any], moves: int) -> list[list[str]]:
    hands = [list(hand) for hand in deal["hands"]]
    for move in deal["moves"][:moves]:
        hands[move["seat"]].remove(move["tile"])
    return hands


def drawn(page: Page) -> dict[str, Any]:
    return dict(
        page.page.evaluate(
            """() => {
              const root = document.querySelector('[data-testid="replay"]');
              const line = [...document.querySelectorAll('[data-testid="line-tile"]')]
                .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
                .map((e) => e.dataset.tile);
              const held = '.replay-hand-tiles > [data-testid="replay-tile"]:not(.discarded)';
              const hands = [...document.querySelectorAll('[data-testid="replay-hand"]')]
                .map((e) => [...e.querySelectorAll(held)].map((x) => x.dataset.tile));
              const cell = (id) => [...document.querySelectorAll(`[data-testid="${id}"]`)]
                .map((e) => Number(e.textContent.replace('+', '')));
              return {
                deal: Number(root.dataset.deal), move: Number(root.dataset.move),
                moves: Number(root.dataset.moves), line, hands,
                result: Boolean(document.querySelector('[data-testid="replay-result"]')),
                points: cell('replay-points'), totals: cell('replay-total'),
                hash: window.location.hash,
              };
            }"""
        )
    )


def open_replay(open_page: Any, path: str, **options: Any) -> Page:
    page: Page = open_page(viewport=PHONE, **options)
    page.goto(path)
    page.page.locator('[data-testid="replay"][data-status="ready"]').wait_for()
    return page


def wait_move(page: Page, move: int) -> dict[str, Any]:
    return dict(
        wait_until(
            lambda: (state := drawn(page))["move"] == move and state,
            5,
            lambda: f"the page did not reach move {move}: {drawn(page)}",
        )
    )


def test_a_replay_steps_through_a_whole_deal_to_the_stored_result(open_page: Any, e2e_server):
    detail = played_set(e2e_server.base_url, mode="tunggal", deals_per_set=2)
    deal = detail["deals"][0]
    total = len(deal["moves"])
    page = open_replay(open_page, detail["link"], label="replay")
    state = drawn(page)
    assert (state["deal"], state["move"], state["moves"]) == (1, 0, total)
    assert state["hands"] == hands_after(deal, 0) and state["line"] == []

    for move in range(1, total + 1):
        if move % 2:
            page.page.keyboard.press("ArrowRight")
        else:
            page.by("replay-next").click()
        state = wait_move(page, move)
        assert state["line"] == line_after(deal, move), move
        assert state["hands"] == hands_after(deal, move), move
        assert state["hash"] == f"#deal=1&move={move}"
    # The final position is the stored result: the hands left, the points, the totals.
    assert state["result"]
    assert [sorted(hand) for hand in state["hands"]] == [
        sorted(hand) for hand in deal["result"]["hands"]
    ]
    assert state["points"] == deal["points"] and state["totals"] == deal["scores"]
    assert page.by("replay-next").is_disabled()
    # A fair deal: the page checks its secret against the commitment and what the secret deals
    # against every hand as dealt and the result, and marks the result.
    assert deal["fairness"]["shuffle"] == "fair"
    fair_mark(page, "ok")

    page.page.keyboard.press("ArrowLeft")
    state = wait_move(page, total - 1)
    assert not state["result"] and state["line"] == line_after(deal, total - 1)


def test_a_shared_link_opens_at_its_moment_and_plays_on(open_page: Any, e2e_server):
    detail = played_set(e2e_server.base_url, mode="ganda", target_points=1)
    deals = detail["deals"]
    deal = deals[-1]
    moment = min(5, len(deal["moves"]) - 1)
    page = open_replay(
        open_page, f"{detail['link']}#deal={deal['number']}&move={moment}", locale="en-US"
    )
    state = drawn(page)
    assert (state["deal"], state["move"]) == (deal["number"], moment)
    assert state["line"] == line_after(deal, moment)
    assert state["hands"] == hands_after(deal, moment)
    assert page.by("replay-position").inner_text() == f"Move {moment} of {len(deal['moves'])}"

    page.by("replay-play").click()
    state = wait_move(page, moment + 2)
    page.by("replay-play").click()  # pause
    paused = drawn(page)["move"]
    page.page.wait_for_timeout(1500)
    assert drawn(page)["move"] == paused
    assert drawn(page)["line"] == line_after(deal, paused)

    # A link past the end of a deal is held at its end; an unknown deal opens the first.
    page.goto(f"{detail['link']}#deal={deal['number']}&move=999")
    page.by("replay-result").wait_for()
    assert drawn(page)["move"] == len(deal["moves"])
    page.goto(f"{detail['link']}#deal=99&move=1")
    wait_until(lambda: drawn(page)["deal"] == deals[0]["number"], 5, "not the first deal")


def test_a_set_in_play_shows_no_tiles(open_page: Any, e2e_server):
    detail = played_set(e2e_server.base_url, finish=False, mode="tunggal", deals_per_set=1)
    assert detail["deals"][0]["status"] == "in_play"
    page: Page = open_page(viewport=PHONE)
    page.goto(detail["link"])
    page.by("replay-empty").wait_for()
    assert page.by("replay-tile").count() == 0 and page.by("line-tile").count() == 0
    page.goto("/replay/987654")
    page.by("replay-error").wait_for()
    # The browser logs the API's 404 for the unknown set: expected here, and only here.
    page.console = [c for c in page.console if "status of 404" not in c]


def test_the_replay_page_on_a_phone_in_both_languages(open_page: Any, e2e_server):
    detail = played_set(e2e_server.base_url, mode="tunggal", deals_per_set=1)
    deal = detail["deals"][0]
    for locale, lang in (("id-ID", "id"), ("en-US", "en")):
        page = open_replay(
            open_page, f"{detail['link']}#deal=1&move={len(deal['moves'])}", locale=locale
        )
        assert page.page.evaluate("() => document.documentElement.lang") == lang
        page.by("replay-result").wait_for()
        mark = fair_mark(page, "ok")
        assert mark.startswith("✓ acak terbukti adil" if lang == "id" else "✓ shuffle verified")
        no_horizontal_scroll(page)
        # Every control a thumb uses is at least 44 px high.
        for testid in ("replay-first", "replay-prev", "replay-play", "replay-next", "replay-last"):
            assert page.box(page.by(testid))["height"] >= 44, testid
        save_screenshot(page.page, f"replay-phone-{lang}", full_page=True)
