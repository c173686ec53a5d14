"""Accounts, profiles, ratings and the leaderboard in the browser, on the real server.

Rated sets are played by WebSocket clients (the protocol's own client, tests/app/live/client.py),
one deal each, so that the pages have real history and real ratings to show: four guests play
five rated Tunggal sets (the leaderboard lists players from their fifth rated set), and a rated
set's result screen is watched from a browser that plays one of its seats.
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.app.live.client import Lobby, TableClient
from tests.app.live.server import ServerProcess
from tests.app.live.test_server import autoplay, set_over
from tests.conftest import run_async
from tests.e2e.gaple import (
    DESKTOP,
    PHONE,
    Page,
    no_horizontal_scroll,
    play_set,
    save_screenshot,
    wait_until,
)

RATED = {"rated": True, "deals_per_set": 1, "turn_seconds": 60, "public": False}
NAMES = ["Ayu", "Bayu", "Citra", "Dewi"]


async def _seat_table(
    server: ServerProcess, lobby: Lobby, players: list[dict[str, Any]], clients_for: list[int]
) -> tuple[str, list[TableClient]]:
    """A rated Tunggal room hosted by players[0], every player seated in order; a socket for
    each seat in ``clients_for``."""
    room = await lobby.create_room(players[0]["token"], **RATED)
    code = room["code"]
    clients = []
    for seat, player in enumerate(players):
        await lobby.sit(player["token"], code, seat)
        if seat in clients_for:
            client = TableClient(server.ws_url(code), player["token"], name=f"seat{seat}")
            await client.connect()
            clients.append(client)
    return code, clients


async def _play_rated_sets(server: ServerProcess, sets: int) -> list[dict[str, Any]]:
    rng = random.Random(15)
    async with Lobby(server.base_url) as lobby:
        players = [await lobby.guest(name) for name in NAMES]
        code, clients = await _seat_table(server, lobby, players, [0, 1, 2, 3])
        for _ in range(sets):
            for client in clients:
                client.view = None  # wait for the new set's snapshot
            await lobby.start(players[0]["token"], code)
            for client in clients:
                await client.wait_for(lambda c=client: c.view is not None and not set_over(c))
            await asyncio.wait_for(asyncio.gather(*(autoplay(c, rng) for c in clients)), 120)
        for client in clients:
            await client.close()
    return players


@pytest.fixture(scope="module")
def regulars(e2e_server: ServerProcess) -> list[dict[str, Any]]:
    """Four guests who played five rated Tunggal sets together: {name, token, player_id}."""
    return run_async(lambda: _play_rated_sets(e2e_server, 5))


def as_player(page: Page, player: dict[str, Any]) -> None:
    """This browser plays as a guest made over the API (stored as the lobby stores its own)."""
    page.page.goto("/")
    page.page.evaluate(
        "(p) => localStorage.setItem('gaple.player', JSON.stringify(p))",
        {"name": player["name"], "token": player["token"], "player_id": player["player_id"]},
    )
    page.page.reload()
    page.by("player-name").wait_for(state="attached")


def profile_of(base_url: str, player_id: str) -> dict[str, Any]:
    return dict(httpx.get(f"{base_url}/api/players/{player_id}", timeout=10).json())


UNAUTHORIZED = "Failed to load resource: the server responded with a status of 401 (Unauthorized)"


def fill_account(page: Page, username: str, password: str) -> None:
    dialog = page.by("account-dialog")
    dialog.wait_for()
    page.by("account-username").fill(username)
    page.by("account-password").fill(password)
    page.by("account-submit").click()
    dialog.wait_for(state="detached")


def test_save_an_account_and_log_in_from_another_browser(
    open_page: Any, e2e_server: ServerProcess, regulars: list[dict[str, Any]]
) -> None:
    ayu = regulars[0]
    username = f"ayu_{secrets.token_hex(3)}"
    password = "kartu-balak-66"

    # The first device: a guest who has played saves the account from the top bar.
    first = open_page(label="first")
    as_player(first, ayu)
    first.by("save-account-button").click()
    fill_account(first, username, password)
    wait_until(lambda: first.by("toast").count() > 0, 5, "no toast after saving")
    first.by("account-menu-button").click()
    assert first.by("menu-username").inner_text() == f"@{username}"
    assert first.by("menu-logout").count() == 1 and first.by("menu-save-account").count() == 0
    assert (
        httpx.get(
            f"{e2e_server.base_url}/api/players/me",
            headers={"Authorization": f"Bearer {ayu['token']}"},
            timeout=10,
        ).json()["username"]
        == username
    )

    # Another device (a fresh browser context: no stored token), on a phone.
    second = open_page(label="second", viewport=PHONE)
    second.page.goto("/")
    second.by("lobby").wait_for()
    second.by("account-menu-button").click()
    second.by("menu-login").click()
    fill_account(second, username.upper(), password)  # usernames ignore case
    stored = second.page.evaluate("() => JSON.parse(localStorage.getItem('gaple.player'))")
    assert stored["player_id"] == ayu["player_id"] and stored["name"] == ayu["name"]
    assert stored["token"] and stored["token"] != ayu["token"]  # the login's own token

    # The same profile and history as the first device sees.
    second.by("account-menu-button").click()
    second.by("menu-profile").click()
    second.page.wait_for_url(f"**/p/{ayu['player_id']}")
    profile = second.by("profile", status="ready")
    profile.wait_for()
    expected = profile_of(e2e_server.base_url, ayu["player_id"])
    tunggal = expected["modes"]["tunggal"]
    assert second.by("profile-name").inner_text() == ayu["name"]
    assert second.by("profile-username").inner_text() == f"@{username}"
    assert second.by("profile-played", mode="tunggal").inner_text() == "5"
    assert second.by("profile-won", mode="tunggal").inner_text() == str(tunggal["sets_won"])
    assert second.by("profile-rating", mode="tunggal").inner_text() == str(tunggal["rating"])
    assert second.by("rating-chart", mode="tunggal").get_attribute("data-points") == "6"
    assert second.by("rating-chart", mode="ganda").get_attribute("data-points") == "0"
    for kind, count in tunggal["deals_won"].items():
        assert second.by("deal-won", kind=kind).get_attribute("data-count") == str(count)

    sets = httpx.get(
        f"{e2e_server.base_url}/api/players/{ayu['player_id']}/sets", timeout=10
    ).json()["sets"]
    assert len(sets) == 5
    rows = second.by("profile-set")
    assert [rows.nth(i).get_attribute("data-set") for i in range(rows.count())] == [
        str(s["set_id"]) for s in sets
    ]
    changes = [s["rating_change"] for s in sets]
    shown = second.by("profile-set-change")
    assert [int(shown.nth(i).get_attribute("data-change")) for i in range(5)] == changes

    # The first device shows the same profile; a set opens its replay.
    first.page.goto(f"/p/{ayu['player_id']}")
    first.by("profile", status="ready").wait_for()
    assert first.by("profile-played", mode="tunggal").inner_text() == "5"
    second.by("profile-set-link").first.click()
    second.page.wait_for_url(f"**/replay/{sets[0]['set_id']}**")
    second.by("replay", status="ready").wait_for()

    # Logging out on the second device forgets its token; the first device stays logged in.
    second.page.goto("/")
    second.by("account-menu-button").click()
    second.page.once("dialog", lambda d: d.accept())
    logged_before = len(second.console)
    second.by("menu-logout").click()
    wait_until(
        lambda: second.page.evaluate("() => localStorage.getItem('gaple.player')") is None,
        5,
        "the token is still stored after logging out",
    )
    assert (
        httpx.get(
            f"{e2e_server.base_url}/api/players/me",
            headers={"Authorization": f"Bearer {stored['token']}"},
            timeout=10,
        ).status_code
        == 401
    )
    second.by("login-button").wait_for(state="attached")
    first.page.reload()
    first.by("account-menu-button", account="account").wait_for()
    # The lobby's reads under way with that token (the lists /ws/me's welcome reloads) may
    # reach the server after the logout and be refused; Chromium logs each refusal itself as a
    # failed resource. They are the logout's, not the page's errors.
    second.console[logged_before:] = [
        c for c in second.console[logged_before:] if UNAUTHORIZED not in c
    ]


def test_rename_keeps_the_player(open_page: Any, e2e_server: ServerProcess) -> None:
    guest = httpx.post(f"{e2e_server.base_url}/api/guests", json={"name": "Eka"}, timeout=10).json()
    page = open_page()
    as_player(page, guest)
    page.by("account-menu-button").click()
    page.by("menu-rename").click()
    page.by("account-dialog", kind="rename").wait_for()
    page.by("account-name").fill("Eka Putri")
    page.by("account-submit").click()
    page.by("account-dialog").wait_for(state="detached")
    assert page.by("player-name").inner_text() == "Eka Putri"
    assert profile_of(e2e_server.base_url, guest["player_id"])["name"] == "Eka Putri"


def test_the_leaderboard_lists_the_regulars(
    open_page: Any, e2e_server: ServerProcess, regulars: list[dict[str, Any]]
) -> None:
    board = httpx.get(f"{e2e_server.base_url}/api/leaderboard?mode=tunggal", timeout=10).json()
    ours = {p["player_id"] for p in regulars}
    listed = [p for p in board["players"] if p["player_id"] in ours]
    assert len(listed) == 4

    page = open_page(viewport=PHONE)
    as_player(page, regulars[1])
    page.by("account-menu-button").click()
    page.by("menu-leaderboard").click()
    page.page.wait_for_url("**/leaderboard")
    page.by("leaderboard", status="ready").wait_for()
    rows = page.by("leaderboard-row")
    drawn = [
        (rows.nth(i).get_attribute("data-player"), int(rows.nth(i).get_attribute("data-rating")))
        for i in range(rows.count())
    ]
    assert drawn == [(p["player_id"], p["rating"]) for p in board["players"]]
    assert (
        page.page.locator(".lb-row.mine").get_attribute("data-player") == regulars[1]["player_id"]
    )

    # Ganda: nobody has rated sets there.
    page.by("leaderboard-tab", mode="ganda").click()
    page.by("leaderboard", mode="ganda", status="ready").wait_for()
    assert page.by("leaderboard-empty").count() == 1
    assert "mode=ganda" in page.page.url

    # A name opens that player's profile.
    page.by("leaderboard-tab", mode="tunggal").click()
    page.by("leaderboard", mode="tunggal", status="ready").wait_for()
    page.by("leaderboard-name").first.click()
    page.by("profile", status="ready").wait_for()
    assert page.page.url.endswith(f"/p/{board['players'][0]['player_id']}")


def test_profile_and_leaderboard_on_a_phone_in_both_languages(
    open_page: Any, regulars: list[dict[str, Any]]
) -> None:
    for locale, lang in (("id-ID", "id"), ("en-GB", "en")):
        page = open_page(locale=locale, viewport=PHONE, label=f"phone-{lang}")
        as_player(page, regulars[2])
        page.page.goto(f"/p/{regulars[2]['player_id']}")
        page.by("profile", status="ready").wait_for()
        assert page.by("lang-toggle").get_attribute("data-lang") == lang
        no_horizontal_scroll(page)
        save_screenshot(page.page, f"profile-phone-{lang}", full_page=True)
        page.page.goto("/leaderboard")
        page.by("leaderboard", status="ready").wait_for()
        no_horizontal_scroll(page)
        save_screenshot(page.page, f"leaderboard-phone-{lang}", full_page=True)
        page.by("account-menu-button").click()
        page.by("account-menu").wait_for()
        save_screenshot(page.page, f"account-menu-phone-{lang}")


class _ThreeSeats:
    """Three guests' sockets at a rated table on a thread of their own (its own event loop),
    playing their turns while the browser plays the fourth seat."""

    def __init__(self, server: ServerProcess, browser_guest: dict[str, Any]) -> None:
        self.server, self.browser_guest = server, browser_guest
        self.ready = threading.Event()
        self.go = threading.Event()
        self.code = ""
        self.players: list[dict[str, Any]] = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._play())
        except BaseException as exc:  # reported by join()
            self.error = exc
            self.ready.set()

    async def _play(self) -> None:
        async with Lobby(self.server.base_url) as lobby:
            others = [await lobby.guest(name) for name in ("Gita", "Hadi", "Indah")]
            self.players = [*others, self.browser_guest]
            self.code, clients = await _seat_table(self.server, lobby, self.players, [0, 1, 2])
            self.ready.set()
            await asyncio.to_thread(self.go.wait, 60)
            await lobby.start(others[0]["token"], self.code)
            rng = random.Random(3)
            for client in clients:
                await client.wait_for(lambda c=client: c.view is not None)
            await asyncio.wait_for(asyncio.gather(*(autoplay(c, rng) for c in clients)), 150)
            for client in clients:
                await client.close()

    def join(self) -> None:
        self.thread.join(timeout=180)
        if self.error:
            raise self.error


@pytest.fixture
def three_seats(e2e_server: ServerProcess) -> Iterator[Any]:
    made: list[_ThreeSeats] = []

    def make(guest: dict[str, Any]) -> _ThreeSeats:
        table = _ThreeSeats(e2e_server, guest)
        made.append(table)
        table.thread.start()
        assert table.ready.wait(60), "the table was not seated"
        if table.error:
            raise table.error
        return table

    yield make
    for table in made:
        table.go.set()
        table.thread.join(timeout=10)


def test_a_rated_set_result_shows_each_players_rating_change(
    open_page: Any, e2e_server: ServerProcess, three_seats: Any
) -> None:
    guest = httpx.post(
        f"{e2e_server.base_url}/api/guests", json={"name": "Joko"}, timeout=10
    ).json()
    page = open_page(label="joko")
    as_player(page, guest)
    table = three_seats(guest)
    page.page.goto(f"/r/{table.code}")
    page.by("room-screen").wait_for()
    table.go.set()
    play_set([page], random.Random(5), timeout=150)
    table.join()

    changes = page.by("rating-change")
    changes.first.wait_for()
    # Every name at the table links to that player's profile, in another tab (the seat stays).
    for seat, player in enumerate(table.players):
        link = page.by("seat-name", seat=seat).locator("a.profile-link")
        assert link.get_attribute("href") == f"/p/{player['player_id']}"
        assert link.get_attribute("target") == "_blank"
    ratings = httpx.get(
        f"{e2e_server.base_url}/api/rooms/{table.code}/sets/1/ratings", timeout=10
    ).json()
    assert ratings["rated"] is True and ratings["ended"] is True
    expected = {p["seat"]: p["change"] for p in ratings["players"]}
    assert len(expected) == 4
    drawn = {
        int(changes.nth(i).get_attribute("data-seat")): int(
            changes.nth(i).get_attribute("data-change")
        )
        for i in range(changes.count())
    }
    assert drawn == expected
    for i in range(changes.count()):
        change = int(changes.nth(i).get_attribute("data-change"))
        text = changes.nth(i).inner_text()
        sign = "+" if change > 0 else "\u2212" if change < 0 else ""
        assert re.search(rf"{re.escape(sign)}{abs(change)}\b", text), text
    save_screenshot(page.page, "rated-set-result")
    page.page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    # In one step in the page: the result panel may be drawn again between a locator's
    # lookup and its scroll.
    page.page.evaluate(
        "() => document.querySelector('[data-testid=\"rating-changes\"]').scrollIntoView()"
    )
    no_horizontal_scroll(page)
    save_screenshot(page.page, "rated-set-result-phone")


def test_a_refused_input_is_said_in_the_page_s_language(
    open_page: Any, e2e_server: ServerProcess
) -> None:
    # A too-short password (422 from the server): the page's own sentence for that field, never
    # pydantic's English.
    for label, locale, viewport, expected in (
        ("phone", "id-ID", PHONE, "Kata sandi: Minimal 8 karakter"),
        ("desktop", "en-US", DESKTOP, "Password: At least 8 characters"),
    ):
        page = open_page(label=label, locale=locale, viewport=viewport)
        guest = httpx.post(f"{e2e_server.base_url}/api/guests", json={"name": "Pendek"}, timeout=10)
        as_player(page, {"name": "Pendek", **guest.json()})
        page.by("account-menu-button").click()
        page.by("menu-save-account").click()
        page.by("account-dialog").wait_for()
        page.by("account-username").fill(f"pendek_{secrets.token_hex(3)}")
        page.by("account-password").fill("abc12")
        page.by("account-submit").click()
        error = page.by("account-error", field="password")
        error.wait_for()
        assert error.inner_text() == expected, (label, error.inner_text())
        assert "Value should" not in page.page.inner_text("body")
        page.console[:] = [c for c in page.console if "422" not in c]  # the refusal itself
