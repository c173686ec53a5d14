"""The operators' page (/admin) in Chromium: the token pasted once (this tab only), the live
tables listed with their seats, a table closed and a player taken off a seat, with the players'
own pages told."""

from __future__ import annotations

from typing import Any

from tests.e2e.gaple import ADMIN_TOKEN, WCAG_AA, Page, contrast


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
