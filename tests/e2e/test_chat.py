"""Table talk in the browser: two players (one reading Indonesian, one English) and a spectator
chat; a reaction shows as a bubble on the sender's seat for 3 s; the unread badge; a muted seat
stays muted after a reload; the drawer never covers the hand. Screenshots at phone size."""

from __future__ import annotations

import time
from typing import Any

from tests.e2e.gaple import ARTIFACTS, PHONE, Page, save_screenshot, wait_until

LINES_JS = """() => [...document.querySelectorAll('[data-testid="chat-line"]')]
  .map((li) => li.textContent)"""


def lines(page: Page) -> list[str]:
    return list(page.page.evaluate(LINES_JS))


def wait_line(page: Page, text: str) -> None:
    wait_until(lambda: any(text in line for line in lines(page)), 10, f"{page.label}: no {text!r}")


def open_chat(page: Page) -> None:
    page.by("chat-toggle").click()
    page.by("chat-drawer").wait_for()


def say(page: Page, text: str) -> None:
    page.by("chat-input").fill(text)
    page.by("chat-send").click()


def table_with_talkers(api: Any, open_page: Any) -> tuple[list[Page], str]:
    ayu, ben, cici = api.guest("Ayu"), api.guest("Ben"), api.guest("Cici")
    code = api.create_room(ayu["token"], turn_seconds=60, public=False, deals_per_set=21)["code"]
    api.sit(ayu["token"], code, 0)
    api.sit(ben["token"], code, 1)
    for seat in (2, 3):
        api.bot(ayu["token"], code, seat)
    api.start(ayu["token"], code)
    pages = []
    for guest, locale, spectator in (
        (ayu, "id-ID", False),
        (ben, "en-US", False),
        (cici, "id-ID", True),
    ):
        page = open_page(locale=locale, viewport=PHONE, spectator=spectator, label=guest["name"])
        page.login_as(guest)
        if spectator:
            page.watch(code)  # a full table by link offers "watch" first
        else:
            page.goto(f"/r/{code}")
        page.by("table").wait_for()
        page.by("chat-toggle").wait_for()
        pages.append(page)
    return pages, code


def test_two_players_and_a_spectator_chat(open_page: Any, lobby_api: Any) -> None:
    (ayu, ben, cici), _ = table_with_talkers(lobby_api, open_page)

    open_chat(ayu)
    say(ayu, "Halo Ben!")
    wait_line(ayu, "Halo Ben!")
    assert ayu.by("chat-input").input_value() == ""
    # Ben's drawer is shut: the badge counts what he has not read.
    ben.by("chat-badge").wait_for()
    assert ben.by("chat-badge").inner_text() == "1"
    wait_line(cici, "Halo Ben!")
    open_chat(ben)
    assert ben.by("chat-badge").is_hidden()
    wait_line(ben, "Ayu Halo Ben!")

    # A spectator is heard by spectators only.
    open_chat(cici)
    say(cici, "dari penonton")
    wait_line(cici, "dari penonton")
    assert "penonton" in lines(cici)[-1]  # marked as a spectator's line
    # A quick phrase, read in each viewer's language; its arrival proves the spectator's line
    # (sent earlier) would have come first.
    ben.by("phrase", phrase="terima_kasih").click()
    wait_line(ayu, "Terima kasih")
    wait_line(ben, "Thank you")
    wait_line(cici, "Terima kasih")
    assert not any("dari penonton" in line for line in lines(ayu) + lines(ben))

    # Bad input gets the server's refusal as a toast and changes nothing.
    ayu.page.evaluate(
        "() => document.querySelector('[data-testid=\"chat-input\"]').removeAttribute('maxlength')"
    )
    say(ayu, "x" * 201)
    ayu.page.get_by_text("Pesan tidak bisa dikirim", exact=False).wait_for()
    assert not any("xxxx" in line for line in lines(ben))

    # Ben mutes Ayu's seat: her words are hidden, and stay hidden after a reload.
    ben.by("chat-mute", seat=0).click()
    assert ben.by("chat-mute", seat=0).get_attribute("aria-pressed") == "true"
    assert not any("Halo Ben!" in line for line in lines(ben))
    ben.page.reload()
    ben.by("chat-toggle").wait_for()
    open_chat(ben)
    assert ben.by("chat-mute", seat=0).get_attribute("aria-pressed") == "true"
    wait_line(ben, "Thank you")  # the history came back after welcome, minus the muted seat
    assert not any("Halo Ben!" in line for line in lines(ben))
    ben.by("chat-mute", seat=0).click()
    wait_line(ben, "Halo Ben!")


def test_a_reaction_is_a_bubble_on_the_seat_for_three_seconds(
    open_page: Any, lobby_api: Any
) -> None:
    (ayu, ben, cici), _ = table_with_talkers(lobby_api, open_page)
    open_chat(ayu)
    say(ayu, "Siap?")
    ben.by("chat-badge").wait_for()
    ayu.by("react", emoji="🔥").click()
    for page in (ben, cici):
        bubble = page.by("reaction-bubble", seat=0)
        bubble.wait_for()
        assert bubble.inner_text() == "🔥"
        seat, box = page.box(page.by("seat-panel", seat=0)), page.box(bubble)
        centre = box["x"] + box["width"] / 2
        assert seat["x"] <= centre <= seat["x"] + seat["width"], (seat, box)
    shown = time.monotonic()
    ARTIFACTS.mkdir(exist_ok=True)  # mid-animation, so not save_screenshot (animations off)
    ben.page.screenshot(path=str(ARTIFACTS / "table-chat-bubble-phone.png"))
    ben.by("reaction-bubble").wait_for(state="detached", timeout=6000)
    assert 2.5 <= time.monotonic() - shown + 0.3 <= 4.5
    # A reaction is not a chat line, and is not counted as unread.
    assert ben.by("chat-badge").inner_text() == "1"


def test_the_drawer_leaves_the_hand_free_on_a_phone(open_page: Any, lobby_api: Any) -> None:
    (ayu, ben, _cici), _ = table_with_talkers(lobby_api, open_page)
    say_in = {"id": ayu, "en": ben}
    open_chat(ben)
    say(ben, "Good luck everyone 👋")
    ben.by("phrase", phrase="mantap").click()
    for lang, page in say_in.items():
        if page is not ben:
            open_chat(page)
        wait_line(page, "Good luck")
        drawer, hand = page.box(page.by("chat-drawer")), page.box(page.by("hand"))
        assert drawer["y"] + drawer["height"] <= hand["y"] + 1, (drawer, hand)
        assert page.by("hand-tile").first.is_visible()
        assert drawer["x"] >= 0 and drawer["x"] + drawer["width"] <= PHONE[0] + 1
        page.page.wait_for_timeout(300)
        save_screenshot(page.page, f"table-chat-phone-{lang}")
        if lang == "id":
            save_screenshot(page.page, "table-chat-phone", docs=True)
