"""Friends, challenges, a Ganda party and a block in the browser, three players on 390 px phones
(Ayu and Cici read Indonesian, Budi English): Ayu finds Budi by username in the friends drawer
and asks him; he accepts from his drawer; Ayu challenges him from his row and he accepts from
the bell's list, and both land seated at one table; they partner up and quick-play Ganda, seated
across; Cici blocks Ayu from a seat's menu and never sees Ayu's chat line (while Budi's, sent
after it, arrives). Short: bots, no set played to its end. Then a rematch at a challenge's table
after a one-deal set."""

from __future__ import annotations

import random
import re
from typing import Any

from tests.e2e.gaple import (
    PHONE,
    Page,
    no_horizontal_scroll,
    play_set,
    save_screenshot,
    wait_until,
)
from tests.e2e.test_chat import lines, open_chat, say, wait_line

SEED = random.randrange(1 << 32)


def player_page(open_page: Any, guest: dict[str, Any], locale: str) -> Page:
    page = open_page(locale=locale, viewport=PHONE, label=guest["name"])
    page.login_as(guest)
    page.open_lobby()  # starts as that player: /ws/me opens, the lists are read
    page.by("friends-button").wait_for()
    page.by("bell", live="true").wait_for()
    return page


def open_drawer(page: Page, tab: str = "friends") -> None:
    if not page.by("social-drawer").count():
        (page.by("friends-button") if tab == "friends" else page.by("bell")).click()
    page.by("social-drawer").wait_for()
    if page.by("social-drawer").get_attribute("data-tab") != tab:
        page.by(f"social-tab-{tab}").click()
    page.by("social-drawer", tab=tab).wait_for()


def seat_of(page: Page, lobby_api: Any, player_id: str) -> tuple[str, int]:
    """The table the page is on (its code, from the address) and the player's seat there."""
    page.page.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
    code = page.page.url.rsplit("/", 1)[1]
    room = lobby_api.room(code)
    [seat] = [s["seat"] for s in room["seats"] if s.get("player_id") == player_id]
    return code, seat


def test_friends_a_challenge_a_party_and_a_block(open_page: Any, lobby_api: Any) -> None:
    ayu, budi, cici = lobby_api.guest("Ayu"), lobby_api.guest("Budi"), lobby_api.guest("Cici")
    lobby_api._call(
        "POST",
        "/api/accounts",
        budi["token"],
        json={"username": "budi_9", "password": "rahasia-1234"},
    )
    a = player_page(open_page, ayu, "id-ID")
    b = player_page(open_page, budi, "en-US")

    # Ayu finds Budi by his username (any case) and asks him.
    open_drawer(a)
    a.by("friend-search-input").fill("BUDI_9")
    a.by("friend-search-submit").click()
    a.by("search-result", player=budi["player_id"]).wait_for()
    a.by("add-friend", player=budi["player_id"]).click()
    a.by("outgoing-row", player=budi["player_id"]).wait_for()

    # Budi's friends button counts the request; he accepts it in his drawer.
    b.by("friends-count").wait_for()
    open_drawer(b)
    b.by("accept-friend", player=ayu["player_id"]).click()
    b.by("friend-row", player=ayu["player_id"]).wait_for()
    # Ayu's row for Budi: online (his /ws/me is open), with its dot.
    a.by("friend-row", player=budi["player_id"], online="true").wait_for()
    drawer = a.box(a.by("social-drawer"))
    assert drawer["x"] >= 0 and drawer["x"] + drawer["width"] <= PHONE[0] + 0.5
    no_horizontal_scroll(a)
    save_screenshot(a.page, "social-drawer-phone")

    # Ayu challenges Budi from his row: Tunggal, 15 s, 1 deal, bots in the other seats.
    a.by("challenge-friend", player=budi["player_id"]).click()
    a.by("challenge-form").wait_for()
    a.by("challenge-mode").select_option("tunggal")
    a.by("challenge-turn-seconds").select_option("15")
    a.by("challenge-deals-per-set").fill("1")
    a.by("challenge-deals-per-set").dispatch_event("change")
    save_screenshot(a.page, "social-challenge-phone")
    a.by("challenge-send").click()
    a.by("challenge-form").wait_for(state="detached")
    a.by("social-close").click()

    # Budi reads it in the bell's list, in English, and accepts: both land seated at the table.
    b.by("social-close").click()
    b.by("bell-count").wait_for()
    open_drawer(b, "notices")
    notice = b.by("notice", kind="challenge").first
    assert (
        notice.locator('[data-testid="notice-text"]').inner_text()
        == "Ayu challenges you to Tunggal."
    )
    save_screenshot(b.page, "social-notices-phone")
    notice.locator('[data-testid="challenge-accept"]').click()
    b_code, b_seat = seat_of(b, lobby_api, budi["player_id"])
    a_code, a_seat = seat_of(a, lobby_api, ayu["player_id"])  # told live, taken there
    assert a_code == b_code and (a_seat, b_seat) == (0, 1)
    for page in (a, b):
        page.by("table").wait_for()
    room = lobby_api.room(a_code)
    assert room["status"] == "playing" and room["settings"]["deals_per_set"] == 1

    # A party: Ayu invites Budi from his row, he accepts from his notification.
    a.open_lobby()
    open_drawer(a)
    a.by("invite-party", player=budi["player_id"]).click()
    b.open_lobby()
    open_drawer(b, "notices")
    b.by("notice-party-accept").first.click()
    b.by("social-drawer").wait_for()
    b.by("social-close").click()
    # Ayu's play-now card offers "play with my partner" (read again when the party is made).
    a.by("social-close").click()
    a.open_lobby()
    a.by("quickplay-partner").wait_for()
    assert a.by("quickplay-partner").inner_text() == "Main Ganda bersama Budi"
    a.by("quickplay-partner").click()
    q_code, q_seat = seat_of(a, lobby_api, ayu["player_id"])
    b.by("quickplay-partner").wait_for()
    b.by("quickplay-partner").click()
    b_q_code, b_q_seat = seat_of(b, lobby_api, budi["player_id"])
    assert b_q_code == q_code and (q_seat - b_q_seat) % 4 == 2  # partners, across
    assert lobby_api.room(q_code)["settings"]["mode"] == "ganda"

    # Cici blocks Ayu from Ayu's seat menu at a table they share, then never sees her words.
    code = lobby_api.create_room(cici["token"], turn_seconds=60, public=False)["code"]
    for guest, seat in ((cici, 0), (ayu, 1), (budi, 2)):
        lobby_api.sit(guest["token"], code, seat)
    lobby_api.bot(cici["token"], code, 3)
    lobby_api.start(cici["token"], code)
    c = player_page(open_page, cici, "id-ID")
    for page in (c, a, b):
        page.goto(f"/r/{code}")
        page.by("table").wait_for()
    c.by("seat-menu-button", player=ayu["player_id"]).click()
    save_screenshot(c.page, "social-seat-menu-phone")
    c.by("seat-menu-block").click()
    wait_until(
        lambda: (
            ayu["player_id"]
            in [
                x["player_id"]
                for x in lobby_api._call("GET", "/api/blocks", cici["token"])["blocked"]
            ]
        ),
        10,
        "the block was not stored",
    )
    c.by("seat-menu-button", player=ayu["player_id"]).click()
    c.by("seat-menu-unblock").wait_for()  # the menu now offers the way back
    c.by("seat-menu-button", player=ayu["player_id"]).click()
    open_chat(a)
    say(a, "halo dari Ayu")
    wait_line(a, "halo dari Ayu")
    open_chat(b)
    wait_line(b, "halo dari Ayu")  # the others hear her
    say(b, "hello from Budi")
    open_chat(c)
    wait_line(c, "hello from Budi")  # sent after Ayu's: hers would have come first
    assert not any("halo dari Ayu" in line for line in lines(c))

    # On Ayu's profile Cici sees the way back too, and takes it.
    c.goto(f"/p/{ayu['player_id']}")
    c.by("profile", status="ready").wait_for()
    c.by("profile-social").locator('[data-testid="unblock-player"]').click()
    c.by("profile-social").locator('[data-testid="block-player"]').wait_for()
    assert lobby_api._call("GET", "/api/blocks", cici["token"])["blocked"] == []


def test_a_rematch_at_a_challenges_table(open_page: Any, lobby_api: Any) -> None:
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    ayu, budi = lobby_api.guest("Ayu"), lobby_api.guest("Budi")
    made = lobby_api._call(
        "POST",
        "/api/challenges",
        ayu["token"],
        json={"to": [budi["player_id"]], "settings": {"mode": "tunggal", "deals_per_set": 1}},
    )
    code = lobby_api._call("POST", f"/api/challenges/{made['id']}/accept", budi["token"])["room"]
    a, b = player_page(open_page, ayu, "id-ID"), player_page(open_page, budi, "en-US")
    for page in (a, b):
        page.goto(f"/r/{code}")
        page.by("table").wait_for()
    play_set([a, b], rng, timeout=240)
    a.by("rematch-button").click()
    a.by("quick-ready", seat=0, ready="true").wait_for()
    # Budi is offered it (a notification) and sees who chose it; his choice starts the set.
    b.by("quick-ready", seat=0, ready="true").wait_for()
    assert b.by("rematch-button").inner_text() == "Rematch"
    wait_until(
        lambda: any(
            n["kind"] == "rematch" and n["payload"]["table"] == code
            for n in lobby_api._call("GET", "/api/notifications", budi["token"])["notifications"]
        ),
        10,
        "no rematch offer",
    )
    b.by("rematch-button").click()
    wait_until(lambda: lobby_api.room(code)["status"] == "playing", 10, "no second set")
    room = lobby_api.room(code)
    assert [s.get("player_id") for s in room["seats"][:2]] == [ayu["player_id"], budi["player_id"]]
