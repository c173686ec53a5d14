"""The operators' page (/admin) in Chromium: the token pasted once (this tab only), the live
tables listed with their seats, a table closed and a player taken off a seat, with the players'
own pages told."""

from __future__ import annotations

from typing import Any

from tests.e2e.gaple import (
    ADMIN_TOKEN,
    PHONE,
    WCAG_AA,
    Page,
    contrast,
    no_horizontal_scroll,
)


def seated_guest(
    open_page: Any, lobby_api: Any, name: str
) -> tuple[Page, str, dict[str, Any], dict[str, Any]]:
    """A room (its host only in the lobby's records) and a guest seated in seat 1 whose page is
    at the table; the page, the room's code, the guest and the host."""
    host = lobby_api.guest("Host")
    guest = lobby_api.guest(name)
    code = lobby_api.create_room(host["token"], mode="tunggal")["code"]
    lobby_api.sit(guest["token"], code, 1)
    page = open_page(label=name.lower(), locale="en-US")
    page.login_as(guest)
    page.open_link(code)
    page.by("leave-seat-button", seat=1).wait_for()
    return page, code, guest, host


def admin_page(open_page: Any) -> Page:
    page = open_page(label="admin", locale="en-US")
    page.goto("/admin")
    page.by("admin").wait_for()
    page.by("admin-token").fill(ADMIN_TOKEN)
    page.by("admin-token-use").click()
    page.by("admin", status="ready").wait_for()
    return page


def test_the_admin_page_lists_a_table_and_closes_it(open_page, lobby_api):
    player, code, guest, _ = seated_guest(open_page, lobby_api, "Wati")
    admin = admin_page(open_page)
    table = admin.by("admin-table", code=code)
    table.wait_for()
    seat = table.locator(f'[data-testid="admin-seat"][data-player="{guest["player_id"]}"]')
    assert "Wati" in seat.inner_text() and "connected" in seat.inner_text()
    assert "1 player connected, 0 watching" in table.inner_text()
    # The Refresh button reads as one: its text meets WCAG AA against what is behind it.
    assert contrast(admin.by("admin-refresh")) >= WCAG_AA
    # The token lives in this tab's sessionStorage, nowhere the player's pages could read it.
    stored = admin.page.evaluate("() => sessionStorage.getItem('gaple.admin_token')")
    assert stored == ADMIN_TOKEN
    assert ADMIN_TOKEN not in admin.page.evaluate("() => JSON.stringify(localStorage)")

    admin.page.once("dialog", lambda dialog: dialog.accept())
    table.locator('[data-testid="admin-close"]').click()
    player.by("room-closed", status="closed", reason="admin").wait_for(timeout=5000)
    assert player.by("room-closed-reason").inner_text() == "The table was closed by the operators."
    assert lobby_api.room(code)["status"] == "closed"
    gone_or_closed = (
        "(code) => { const t = document.querySelector("
        "`[data-testid=admin-table][data-code='${code}']`);"
        " return !t || t.dataset.status === 'closed'; }"
    )
    admin.wait_js(gone_or_closed, code)


def test_the_admin_page_removes_a_player_from_a_seat(open_page, lobby_api):
    player, code, guest, host = seated_guest(open_page, lobby_api, "Yanto")
    # The host seated and at the room: else the room, its host handed over to Yanto while the
    # host was away, closes when Yanto is removed (nobody to hand it to) and leaves the list.
    lobby_api.sit(host["token"], code, 0)
    at_room = open_page(label="host", locale="en-US")
    at_room.login_as(host)
    at_room.open_link(code)
    admin = admin_page(open_page)
    seat = admin.by("admin-table", code=code).locator(
        f'[data-testid="admin-seat"][data-player="{guest["player_id"]}"]'
    )
    admin.page.once("dialog", lambda dialog: dialog.accept())
    seat.locator('[data-testid="admin-remove"]').click()
    banner = player.by("connection-banner")
    banner.wait_for(timeout=5000)
    assert banner.inner_text().strip().startswith("An operator removed you from this table.")
    assert lobby_api.room(code)["seats"][1]["player_id"] is None
    # The list was reloaded: seat 1 of this table is empty (other tests' tables are listed too).
    admin.by("admin-table", code=code).locator(
        '[data-testid="admin-seat"][data-seat="1"][data-player=""]'
    ).wait_for()


def test_a_moderator_reads_a_report_in_the_queue_and_mutes_the_player(open_page, lobby_api):
    """A report from a seat at the table: the queue shows it with the set's replay and the
    stored chat around it; the moderator mutes the player, whose next line is refused."""
    budi, ayu = lobby_api.guest("Budi"), lobby_api.guest("Ayu")
    code = lobby_api.create_room(budi["token"], mode="tunggal", rated=True, turn_seconds=60)["code"]
    lobby_api.sit(budi["token"], code, 0)
    lobby_api.sit(ayu["token"], code, 1)
    for seat in (2, 3):
        lobby_api.bot(budi["token"], code, seat)
    lobby_api.start(budi["token"], code)
    [played] = lobby_api._call("GET", f"/api/players/{budi['player_id']}/sets")["sets"]
    player = open_page(label="budi", locale="en-US")
    player.login_as(budi)
    player.open_link(code)
    player.by("chat-toggle").click()
    player.by("chat-drawer").wait_for()
    player.by("chat-input").fill("kamu payah semua")
    player.by("chat-send").click()
    player.by("chat-lines").get_by_text("kamu payah semua").wait_for()
    # Ayu, at her seat, reports Budi from his seat's menu (the set is named for her).
    reporter = open_page(label="ayu", locale="en-US")
    reporter.login_as(ayu)
    reporter.open_link(code)
    reporter.by("seat-menu-button", player=budi["player_id"]).click()
    reporter.by("seat-menu-report").click()
    reporter.by("report-dialog").wait_for()
    reporter.by("report-category").select_option("abuse")
    reporter.by("report-text").fill("kasar di chat")
    reporter.by("report-send").click()
    reporter.page.get_by_text("Your report about Budi reached the moderators.").wait_for()
    assert reporter.by("report-dialog").count() == 0

    admin = admin_page(open_page)
    card = admin.by("admin-report", player=budi["player_id"])
    card.wait_for()
    assert "Budi" in card.inner_text() and "abuse 1" in card.inner_text()
    assert "kasar di chat" in card.inner_text()
    card.locator('[data-testid="admin-context-toggle"]').click()
    replay = card.locator('[data-testid="admin-replay"]')
    replay.wait_for()
    assert replay.get_attribute("href") == f"/replay/{played['set_id']}"
    line = card.locator('[data-testid="admin-chat-line"]')
    line.first.wait_for()
    assert "Budi" in line.first.inner_text() and "kamu payah semua" in line.first.inner_text()
    # Phone first: the queue with its actions fits 390 px without sideways scrolling.
    admin.page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    no_horizontal_scroll(admin)

    card.locator('[data-testid="admin-mute"]').click()
    admin.page.get_by_text("Budi is muted until", exact=False).wait_for()
    admin.by("admin-no-reports").wait_for()  # acting on Budi closed his reports
    player.by("chat-input").fill("masih bisa?")
    player.by("chat-send").click()
    player.page.get_by_text("A moderator muted you", exact=False).wait_for(timeout=5000)
    assert "masih bisa?" not in player.by("chat-lines").inner_text()

    # Found by name, the player shows the mute; unmuted, he is heard again.
    admin.by("admin-q").fill("budi")
    admin.by("admin-search").click()
    found = admin.by("admin-player", player=budi["player_id"])
    found.wait_for()
    assert "muted until" in found.inner_text() and "muted 1 times" in found.inner_text()
    found.locator('[data-testid="admin-unmute"]').click()
    admin.page.get_by_text("Budi may talk again.", exact=False).wait_for()
    player.by("chat-input").fill("maaf ya")
    player.by("chat-send").click()
    player.by("chat-lines").get_by_text("maaf ya").wait_for()
